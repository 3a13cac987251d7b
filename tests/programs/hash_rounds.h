/*
 * hash_rounds.h — the busy work of the threaded test programs and of
 * bench/threads_workload.c: ROUNDS rounds of a 64-bit mix seeded by SEED,
 * adding to *total under `lock` every 4096 rounds and at the end, so the
 * total is the same whatever the interleaving. `rounds_done`, when not
 * NULL, is an atomic counter bumped every round (a memory write shared by
 * every thread, for the benchmark).
 */
#ifndef TESTS_PROGRAMS_HASH_ROUNDS_H
#define TESTS_PROGRAMS_HASH_ROUNDS_H

#include <pthread.h>
#include <stdint.h>

static inline void hash_rounds(uint64_t seed, long rounds, pthread_mutex_t *lock, uint64_t *total,
			       uint64_t *rounds_done)
{
	uint64_t h = 0x9e3779b97f4a7c15ull * seed, local = 0;
	for (long i = 0; i < rounds; i++) {
		h ^= h >> 31;
		h *= 0xbf58476d1ce4e5b9ull;
		h ^= (uint64_t)i;
		local += h >> 40;
		if (rounds_done)
			__atomic_fetch_add(rounds_done, 1, __ATOMIC_RELAXED);
		if ((i & 4095) == 4095) {
			pthread_mutex_lock(lock);
			*total += local;
			pthread_mutex_unlock(lock);
			local = 0;
		}
	}
	pthread_mutex_lock(lock);
	*total += local;
	pthread_mutex_unlock(lock);
}

#endif
