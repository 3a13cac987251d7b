/*
 * threads_ring.c — a threaded program whose trace outgrows a small ring
 * (ttrec run --ring): workers read the time stamp counter in a loop (each
 * value is logged, and does not compress) and meet at a mutex, while the
 * main thread waits in join and one thread waits in read on a pipe for the
 * whole run, so neither logs anything of its own until the end. Argument:
 * rounds per worker (default 150000).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#define WORKERS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long meetings;
static long rounds;
static int pipe_fds[2];

static void *worker(void *arg)
{
	(void)arg;
	uint64_t odd = 0;
	for (long i = 0; i < rounds; i++) {
		odd += __rdtsc() & 1;
		if ((i & 1023) == 0) {
			pthread_mutex_lock(&lock);
			meetings++;
			pthread_mutex_unlock(&lock);
		}
	}
	return (void *)(uintptr_t)(odd <= (uint64_t)rounds);
}

static void *pipe_waiter(void *arg)
{
	(void)arg;
	char c = 0;
	if (read(pipe_fds[0], &c, 1) != 1)
		return NULL;
	printf("pipe_waiter: got '%c'\n", c);
	return NULL;
}

int main(int argc, char **argv)
{
	rounds = argc > 1 ? atol(argv[1]) : 150000;
	if (pipe(pipe_fds) != 0)
		return 2;
	pthread_t waiter, workers[WORKERS];
	pthread_create(&waiter, NULL, pipe_waiter, NULL);
	for (long i = 0; i < WORKERS; i++)
		pthread_create(&workers[i], NULL, worker, NULL);
	int sane = 1;
	for (int i = 0; i < WORKERS; i++) {
		void *ok;
		pthread_join(workers[i], &ok);
		sane &= ok != NULL;
	}
	if (write(pipe_fds[1], "x", 1) != 1)
		return 2;
	pthread_join(waiter, NULL);
	printf("meetings %ld, counts sane: %d\n", meetings, sane);
	return 0;
}
