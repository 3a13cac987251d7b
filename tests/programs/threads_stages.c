/*
 * threads_stages.c — threads that come and go while the history goes on
 * (tests/pass_join_threads.sh: the first pass cut where some threads have
 * exited, or have been made and not run yet). Rounds as threads_compute's
 * (argument 1, in thousands; default 3000), in one of two shapes
 * (argument 2):
 *   exits: a first worker exits at once (the main thread joins it), then
 *     two workers do a third and two thirds of the rounds, the first
 *     exiting halfway through the history;
 *   clones: the main thread makes a worker, does a share itself, makes
 *     the next, and so on (four of each), then joins them: clones in the
 *     middle of the history, each worker exiting when done;
 *   idle: workers (argument 3; default 4) wait on a condition variable,
 *     blocked in the kernel, while the main thread does all the rounds,
 *     then are woken and each does a few: threads that run nothing
 *     across many checkpoint intervals;
 *   asleep: as idle, but the workers are never woken: the process ends
 *     with them blocked.
 * Prints the total, the same whatever the interleaving.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash_rounds.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static uint64_t total;
static pthread_cond_t wake = PTHREAD_COND_INITIALIZER, ready = PTHREAD_COND_INITIALIZER;
static int waiting, go;

struct share {
	uint64_t seed;
	long rounds;
};

static void share_rounds(const struct share *sh)
{
	hash_rounds(sh->seed, sh->rounds, &lock, &total, NULL);
}

static void *work(void *arg)
{
	share_rounds(arg);
	return NULL;
}

/* An idle worker: blocked until the main thread has done its rounds. */
static void *wait_then_work(void *arg)
{
	pthread_mutex_lock(&lock);
	waiting++;
	pthread_cond_signal(&ready);
	while (!go)
		pthread_cond_wait(&wake, &lock);
	pthread_mutex_unlock(&lock);
	share_rounds(arg);
	return NULL;
}

static int start_as(pthread_t *t, void *(*fn)(void *), struct share *sh)
{
	if (pthread_create(t, NULL, fn, sh) != 0)
		return perror("pthread_create"), -1;
	return 0;
}

static int start(pthread_t *t, struct share *sh)
{
	return start_as(t, work, sh);
}

/* The idle shape: every worker blocked before the main thread computes. */
static int idle_shape(long rounds, int idlers, bool woken)
{
	pthread_t *t = calloc((size_t)idlers, sizeof(*t));
	struct share *sh = calloc((size_t)idlers + 1, sizeof(*sh));
	if (!t || !sh)
		return perror("calloc"), 1;
	for (int k = 0; k < idlers; k++) {
		sh[k] = (struct share){ (uint64_t)k + 2, 100 };
		if (start_as(&t[k], wait_then_work, &sh[k]) != 0)
			return 1;
	}
	pthread_mutex_lock(&lock);
	while (waiting < idlers)
		pthread_cond_wait(&ready, &lock);
	pthread_mutex_unlock(&lock);
	sh[idlers] = (struct share){ 1, rounds };
	share_rounds(&sh[idlers]);
	if (!woken) {
		printf("total %llu\n", (unsigned long long)total);
		return 0;
	}
	pthread_mutex_lock(&lock);
	go = 1;
	pthread_cond_broadcast(&wake);
	pthread_mutex_unlock(&lock);
	for (int k = 0; k < idlers; k++)
		pthread_join(t[k], NULL);
	printf("total %llu\n", (unsigned long long)total);
	free(t);
	free(sh);
	return 0;
}

int main(int argc, char **argv)
{
	long rounds = (argc > 1 ? atol(argv[1]) : 3000) * 1000;
	const char *shape = argc > 2 ? argv[2] : "exits";
	int idlers = argc > 3 ? atoi(argv[3]) : 4;
	if (rounds <= 0 || idlers < 1 || idlers > 1000 ||
	    (strcmp(shape, "exits") != 0 && strcmp(shape, "clones") != 0 &&
	     strcmp(shape, "idle") != 0 && strcmp(shape, "asleep") != 0))
		return fprintf(stderr, "usage: threads_stages [THOUSANDS] [exits|clones|idle|asleep [WORKERS]]\n"), 2;
	if (strcmp(shape, "idle") == 0 || strcmp(shape, "asleep") == 0)
		return idle_shape(rounds, idlers, strcmp(shape, "idle") == 0);
	pthread_t t[4];
	struct share sh[8];
	if (strcmp(shape, "exits") == 0) {
		sh[0] = (struct share){ 1, 10 };
		if (start(&t[0], &sh[0]) != 0)
			return 1;
		pthread_join(t[0], NULL);
		sh[1] = (struct share){ 2, rounds / 3 };
		sh[2] = (struct share){ 3, rounds - rounds / 3 };
		if (start(&t[1], &sh[1]) != 0 || start(&t[2], &sh[2]) != 0)
			return 1;
		pthread_join(t[1], NULL);
		pthread_join(t[2], NULL);
	} else {
		for (int k = 0; k < 4; k++) {
			sh[k] = (struct share){ (uint64_t)k + 1, rounds / 8 };
			sh[4 + k] = (struct share){ (uint64_t)k + 5, rounds / 8 };
			if (start(&t[k], &sh[k]) != 0)
				return 1;
			share_rounds(&sh[4 + k]);
		}
		for (int k = 0; k < 4; k++)
			pthread_join(t[k], NULL);
	}
	printf("total %llu\n", (unsigned long long)total);
	return 0;
}
