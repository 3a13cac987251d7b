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

#define THREADS 3

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;
static long per_thread;

static void *work(void *arg)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * (uint64_t)(uintptr_t)arg, local = 0;
	for (long i = 0; i < per_thread; i++) {
		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= (uint64_t)i;
		local += h >> 40;
		if ((i & 4095) == 4095) {
			pthread_mutex_lock(&lock);
			total += local;
			pthread_mutex_unlock(&lock);
			local = 0;
		}
	}
	pthread_mutex_lock(&lock);
	total += local;
	pthread_mutex_unlock(&lock);
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
