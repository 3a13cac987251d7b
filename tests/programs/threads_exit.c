/*
 * threads_exit.c — the ways a threaded process ends:
 *   (no argument) a thread calls exit(5) while another is blocked in the
 *     kernel (pause) and the main thread waits in join;
 *   main-first: the main thread leaves with pthread_exit and the last
 *     thread's exit ends the process (status 0);
 *   blocked-workers: the main thread calls exit(3) while one worker is
 *     blocked reading an empty pipe and another waits on a condition
 *     variable (a futex).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "task_state_letter.h"

static int pipe_fds[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never = PTHREAD_COND_INITIALIZER;

static void *sleeper(void *arg)
{
	(void)arg;
	pause(); /* blocked in the kernel until the process ends */
	return NULL;
}

static void *pipe_reader(void *arg)
{
	(void)arg;
	char c;
	if (read(pipe_fds[0], &c, 1) >= 0) /* nobody writes: blocked */
		printf("pipe_reader: read returned\n");
	return NULL;
}

static void *cond_waiter(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&lock);
	pthread_cond_wait(&never, &lock); /* nobody signals: blocked */
	pthread_mutex_unlock(&lock);
	return NULL;
}

/* The state letter of the main thread (/proc/PID/task/PID/stat), 0 if
 * it cannot be read. */
static char main_thread_state(void)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)getpid(), (int)getpid());
	return task_state_letter(path);
}

static void *finisher(void *arg)
{
	/* main-first: after the main thread's line, whatever the load (a
	 * fixed sleep lost that race on a busy machine); else the sleeper
	 * is in pause by then, likely. */
	if (arg && strcmp(arg, "last thread standing") == 0) {
		char st;
		while ((st = main_thread_state()) != 'Z' && st != 0)
			usleep(1000);
	} else {
		usleep(20000);
	}
	printf("finisher: %s\n", (const char *)arg);
	fflush(stdout);
	if (arg && ((const char *)arg)[0] == 'e')
		exit(5);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t s, f;
	if (argc > 1 && strcmp(argv[1], "main-first") == 0) {
		pthread_create(&f, NULL, finisher, "last thread standing");
		printf("main thread leaves first\n");
		fflush(stdout);
		pthread_exit(NULL);
	}
	if (argc > 1 && strcmp(argv[1], "blocked-workers") == 0) {
		if (pipe(pipe_fds) != 0)
			return 2;
		pthread_create(&s, NULL, pipe_reader, NULL);
		pthread_create(&f, NULL, cond_waiter, NULL);
		usleep(50000); /* both are blocked by then */
		printf("main exits\n");
		fflush(stdout);
		exit(3);
	}
	pthread_create(&s, NULL, sleeper, NULL);
	pthread_create(&f, NULL, finisher, "exit from a thread");
	pthread_join(f, NULL);
	return 1; /* not reached: the finisher exits */
}
