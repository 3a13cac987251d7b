/*
 * clone_vm_shared.c — a child process made by clone(CLONE_VM) without
 * CLONE_VFORK shares the parent's memory and runs beside it: what it
 * writes, the parent reads after waiting for it (a value it had read
 * before, so a recorder that cached it would show the old one).
 */
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

static volatile int shared_value = 1;

static int child_main(void *arg)
{
	shared_value = *(const int *)arg;
	return 0;
}

int main(void)
{
	printf("before: %d\n", shared_value);
	fflush(stdout);
	enum { STACK = 64 * 1024 };
	char *stack = malloc(STACK);
	if (!stack)
		return 1;
	static const int answer = 42;
	pid_t pid = clone(child_main, stack + STACK, CLONE_VM | SIGCHLD, (void *)&answer);
	if (pid < 0)
		return perror("clone"), 1;
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	printf("after: %d (child exited %d)\n", shared_value, WEXITSTATUS(status));
	free(stack);
	return 0;
}
