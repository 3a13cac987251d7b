/*
 * threads_compute.c — three threads hash their share of the rounds
 * (argument 1, in thousands; default 3000) while the main thread waits
 * for them, adding to a mutex-protected total every 4096 rounds: a
 * history long enough to be cut into ranges, every thread busy
 * (tests/pass_join_threads.sh). Prints the total, the same whatever the
 * interleaving.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hash_rounds.h"

#define THREADS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;
static long per_thread;

static void *work(void *arg)
{
	hash_rounds((uint64_t)(uintptr_t)arg, per_thread, &lock, &total, NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	long thousands = argc > 1 ? atol(argv[1]) : 3000;
	if (thousands <= 0)
		return fprintf(stderr, "usage: threads_compute [THOUSANDS]\n"), 2;
	per_thread = thousands * 1000 / THREADS;
	pthread_t t[THREADS];
	for (int i = 0; i < THREADS; i++)
		if (pthread_create(&t[i], NULL, work, (void *)(uintptr_t)(i + 1)) != 0)
			return perror("pthread_create"), 1;
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	printf("total %llu\n", (unsigned long long)total);
	return 0;
}
