/*
 * kernel_writes.c — memory only the kernel writes: pipe() into a global
 * array, read() into a buffer, stat() into a struct the program never
 * reads, and the frame of a SIGUSR1 handler reached through raise(). A
 * syscall follows each before the program reads what it wrote, so a
 * debugger can show those bytes at the line after it only from the
 * trace's record of the kernel's writes (tests/replay.sh).
 *
 * With an argument, the pipe gets a replay segment of its own (millions of
 * instructions that write only the stack before and after it): a
 * backward search finds it only if the segment's summary counts the
 * kernel's writes.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/* On a page of its own, away from the GOT that lazy binding writes. */
int fds[2] __attribute__((aligned(4096))) = { -1, -1 };
char buf[16] = "old-old-old-old";
struct stat st;
static volatile sig_atomic_t handled;

static void on_usr1(int signo)
{
	handled = signo;
}

static void spin(long n)
{
	for (volatile long i = 0; i < n; i++)
		;
}

/* The program reads fds only after another syscall. */
static void after_pipe(int alone)
{
	getpid();
	if (alone)
		spin(2000000);
}

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		spin(1500000);
	if (pipe(fds) != 0)
		return 1;
	after_pipe(argc > 1);
	if (write(fds[1], "kernel", 6) != 6)
		return 1;
	ssize_t n = read(fds[0], buf, sizeof(buf));
	getpid();
	if (stat("/", &st) != 0)
		return 1;
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	printf("read %zd: %.6s, handled %d\n", n, buf, (int)handled);
	return 0;
}
