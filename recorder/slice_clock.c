/*
 * slice_clock.c — a turn's length in the recorder's CPU time (header).
 */
#include <time.h>

#include "recorder/slice_clock.h"

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0)
		return UINT64_MAX; /* never here: the thread's clocks always exist */
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void slice_clock_start(struct slice_clock *c, uint64_t length_ns)
{
	c->length_ns = length_ns;
	c->cpu_start_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	c->next_look_ns = clock_ns(CLOCK_MONOTONIC) + length_ns;
}

bool slice_clock_over(struct slice_clock *c)
{
	uint64_t now = clock_ns(CLOCK_MONOTONIC);
	if (now < c->next_look_ns)
		return false;
	uint64_t cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (cpu == UINT64_MAX || c->cpu_start_ns == UINT64_MAX)
		return true;
	uint64_t used = cpu - c->cpu_start_ns;
	if (used >= c->length_ns)
		return true;
	c->next_look_ns = now + (c->length_ns - used);
	return false;
}
