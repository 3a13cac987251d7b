/*
 * kernel_writes.c — memory only the kernel writes: pipe() into a global
 * array, read() into a buffer, stat() into a struct the program never
 * reads, and the frame of a SIGUSR1 handler reached through raise(). A
 * syscall follows each before the program reads what it wrote, so a
 * debugger can show those bytes at the line after it only from the
 * trace's record of the kernel's writes (tests/replay.sh).
 */
#include <signal.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

int fds[2] = { -1, -1 };
char buf[16] = "old-old-old-old";
struct stat st;
static volatile sig_atomic_t handled;

static void on_usr1(int signo)
{
	handled = signo;
}

int main(void)
{
	if (pipe(fds) != 0)
		return 1;
	getpid(); /* the program reads fds only after another syscall */
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
