/*
 * threads_exit.c — the ways a threaded process ends: with an argument,
 * the main thread leaves with pthread_exit and the last thread's exit
 * ends the process (status 0); otherwise a thread calls exit(5) while
 * another is blocked in the kernel and the main thread waits in join.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	pause(); /* blocked in the kernel until the process ends */
	return NULL;
}

static void *finisher(void *arg)
{
	usleep(20000);
	printf("finisher: %s\n", (const char *)arg);
	fflush(stdout);
	if (arg && ((const char *)arg)[0] == 'e')
		exit(5);
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argv;
	pthread_t s, f;
	if (argc > 1) {
		pthread_create(&f, NULL, finisher, "last thread standing");
		printf("main thread leaves first\n");
		fflush(stdout);
		pthread_exit(NULL);
	}
	pthread_create(&s, NULL, sleeper, NULL);
	pthread_create(&f, NULL, finisher, "exit from a thread");
	pthread_join(f, NULL);
	return 1; /* not reached: the finisher exits */
}
