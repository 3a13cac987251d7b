/*
 * chaos.h — `ttrec run --chaos`: the thread scheduler's choices made at
 * random, as rr's chaos mode does, so that races that a fair scheduler
 * hides show up while recorded. From one seed the same sequence of
 * choices comes out (the points where threads block in the kernel still
 * depend on timing).
 */
#ifndef TTREC_CHAOS_H
#define TTREC_CHAOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chaos {
	bool on;
	uint64_t state;
};

void chaos_init(struct chaos *c, uint64_t seed);
/* A seed from the kernel's random source (the time if that fails). */
uint64_t chaos_fresh_seed(void);
/* The next slice's bounds: instructions from 2^8 to 2^21 and time from
 * 0.13 to 33 ms, both log-uniform (short slices often, long ones too). */
void chaos_slice(struct chaos *c, uint64_t *instructions, uint64_t *nanoseconds);
/* A number below n (n > 0). */
size_t chaos_pick(struct chaos *c, size_t n);

#endif
