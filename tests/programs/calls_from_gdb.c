/*
 * calls_from_gdb.c — functions for gdb to call while it replays this
 * program (tests/diversions.sh): a recursive one, one over a list, one
 * that makes a system call, one that crashes on a bad pointer. main stops
 * in stop_here with a string and a list, then computes a little more, so
 * that a step after a call has somewhere recorded to go.
 */
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
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
	stop_here(name, &a);
	for (int i = 0; i < 5; i++)
		counter += i;
	printf("%d\n", counter);
	return 0;
}
