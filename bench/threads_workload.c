/*
 * threads_workload.c — a CPU-bound threaded program for the recording
 * benchmark: THREADS workers (argument 2, default 4) each hash their share
 * of ROUNDS (argument 1, in millions) rounds, meeting at a mutex-protected
 * total every 4096 rounds and at an atomic counter every round. Prints the
 * total, which must be the same natively and recorded.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "tests/programs/hash_rounds.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;
static uint64_t rounds_done;
static long per_thread;

static void *work(void *arg)
{
	hash_rounds((uint64_t)(uintptr_t)arg, per_thread, &lock, &total, &rounds_done);
	return NULL;
}

int main(int argc, char **argv)
{
	long millions = argc > 1 ? atol(argv[1]) : 8;
	int threads = argc > 2 ? atoi(argv[2]) : 4;
	if (millions <= 0 || threads <= 0 || threads > 64)
		return fprintf(stderr, "usage: threads_workload [MILLIONS] [THREADS]\n"), 2;
	per_thread = millions * 1000000 / threads;
	pthread_t t[64];
	for (int i = 0; i < threads; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 1)) != 0)
			return perror("pthread_create"), 1;
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	printf("%d threads, %llu rounds, total %llu\n", threads, (unsigned long long)rounds_done,
	       (unsigned long long)total);
	return 0;
}
