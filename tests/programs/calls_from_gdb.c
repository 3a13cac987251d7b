/*
 * calls_from_gdb.c — functions for gdb to call while it replays this
 * program (tests/diversions.sh): a recursive one, one over a list, one
 * that makes a system call, one that crashes on a bad pointer, ones that
 * write to standard output and error (write, writev) and one that writes
 * to another descriptor. Its output starts in stdout's buffer when main
 * stops, for gdb's calls of puts and fflush. main stops
 * in stop_here with a string and a list, then computes a little more, so
 * that a step after a call has somewhere recorded to go.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

struct node {
	int value;
	struct node *next;
};

volatile int counter;

__attribute__((noinline, used)) int fact(int n)
{
	return n <= 1 ? 1 : n * fact(n - 1);
}

__attribute__((noinline, used)) int sum_list(const struct node *n)
{
	int sum = 0;
	for (; n; n = n->next)
		sum += n->value;
	return sum;
}

__attribute__((noinline, used)) long ask_pid(void)
{
	return syscall(SYS_getpid);
}

/* Writes "value=N\n" for each node (N a digit) to standard output, by
 * hand: stdio's state is not all known at the call; the bytes written. */
__attribute__((noinline, used)) long dump(const struct node *n)
{
	long total = 0;
	for (; n; n = n->next) {
		char line[] = "value=?\n";
		line[6] = (char)('0' + n->value % 10);
		total += write(1, line, sizeof(line) - 1);
	}
	return total;
}

/* Two pieces to standard error in one writev; its result. */
__attribute__((noinline, used)) long complain(void)
{
	struct iovec v[2] = { { "on stderr:", 10 }, { " two pieces\n", 12 } };
	return writev(2, v, 2);
}

/* A write to a descriptor that is neither output nor error: refused. */
__attribute__((noinline, used)) long write_elsewhere(void)
{
	return write(7, "x", 1);
}

__attribute__((noinline, used)) int read_through(const int *p)
{
	return *p;
}

__attribute__((noinline)) void stop_here(const char *name, struct node *list)
{
	counter += (int)strlen(name) + list->value;
}

int main(void)
{
	char name[] = "diversion";
	struct node c = { 3, NULL }, b = { 2, &c }, a = { 1, &b };
	/* Buffered (stdout is not a terminal in the tests): "start" is in
	 * stdout's buffer at stop_here, for gdb's calls of puts and fflush
	 * (the first flush makes what a flush reads known to the replay). */
	printf("begin\n");
	fflush(stdout);
	printf("start\n");
	stop_here(name, &a);
	for (int i = 0; i < 5; i++)
		counter += i;
	printf("%d\n", counter);
	return 0;
}
