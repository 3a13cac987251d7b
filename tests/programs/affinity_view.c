/*
 * affinity_view.c — the CPU affinity a program and its children and
 * threads see, and one it sets itself, while its syscalls run on the
 * recorder's CPU (recorder/step_affinity.h): the counts must be the
 * native run's.
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int allowed(void)
{
	cpu_set_t s;
	return sched_getaffinity(0, sizeof(s), &s) == 0 ? CPU_COUNT(&s) : -1;
}

static void *thread_view(void *arg)
{
	*(int *)arg = allowed();
	return NULL;
}

int main(void)
{
	/* Syscalls first, each one a step that may run bound. */
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	int mine = allowed();
	printf("process: %d CPUs\n", mine);
	fflush(stdout);

	pid_t child = fork();
	if (child == 0) {
		printf("forked child: %d CPUs\n", allowed());
		fflush(stdout);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	pthread_t t;
	int in_thread = 0;
	pthread_create(&t, NULL, thread_view, &in_thread);
	pthread_join(t, NULL);
	printf("thread: %d CPUs\n", in_thread);

	/* Its own setting holds across other syscalls, and is undone by it. */
	cpu_set_t all, one;
	sched_getaffinity(0, sizeof(all), &all);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	sched_setaffinity(0, sizeof(one), &one);
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	printf("after setting one: %d CPUs\n", allowed());
	sched_setaffinity(0, sizeof(all), &all);
	for (int i = 0; i < 100; i++)
		syscall(SYS_getppid);
	printf("after setting all back: %d CPUs, as before: %s\n", allowed(),
	       allowed() == mine ? "yes" : "no");
	return 0;
}
