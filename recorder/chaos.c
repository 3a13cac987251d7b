/*
 * chaos.c — the random choices of --chaos (splitmix64: small, and the
 * same numbers from the same seed everywhere).
 */
#include <sys/random.h>
#include <time.h>

#include "recorder/chaos.h"

static uint64_t next(struct chaos *c)
{
	uint64_t z = (c->state += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void chaos_init(struct chaos *c, uint64_t seed)
{
	c->on = true;
	c->state = seed;
}

uint64_t chaos_fresh_seed(void)
{
	uint64_t seed;
	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000007ull ^ (uint64_t)ts.tv_nsec;
}

size_t chaos_pick(struct chaos *c, size_t n)
{
	return (size_t)(next(c) % n);
}

/* 2^lo .. 2^hi, log-uniform: an exponent, then a mantissa. */
static uint64_t log_uniform(struct chaos *c, unsigned lo, unsigned hi)
{
	unsigned e = lo + (unsigned)(next(c) % (hi - lo));
	uint64_t base = 1ull << e;
	return base + next(c) % base;
}

void chaos_slice(struct chaos *c, uint64_t *instructions, uint64_t *nanoseconds)
{
	*instructions = log_uniform(c, 8, 21);
	*nanoseconds = log_uniform(c, 17, 24); /* 131 us .. 33 ms */
}
