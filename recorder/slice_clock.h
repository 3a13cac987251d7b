/*
 * slice_clock.h — how long the current thread's turn has lasted, in the
 * recorder's own CPU time (its emulating thread's), not the wall clock:
 * natively a time slice goes by only while the thread runs. On a busy
 * machine the recorder waits for a CPU, and a wall-clock turn then ended
 * after a few instructions: the next thread ran where natively the first
 * one went on (a thread made after a long time alone ran before its
 * creator's next instruction, 1 time in 40 with a niced ttrec beside six
 * busy loops).
 *
 * The CPU clock is a system call: it is read at the turn's start and only
 * once the wall clock says the turn could be over (the thread's CPU time
 * never runs ahead of the wall clock), then the next look is put off by
 * the time still left.
 */
#ifndef TTREC_SLICE_CLOCK_H
#define TTREC_SLICE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct slice_clock {
	uint64_t length_ns;    /* the turn's length in CPU time */
	uint64_t cpu_start_ns; /* the calling thread's CPU time at the start */
	uint64_t next_look_ns; /* CLOCK_MONOTONIC: before this, not over */
};

/* A turn of length_ns starts now (on the calling thread). */
void slice_clock_start(struct slice_clock *c, uint64_t length_ns);
/* Whether the calling thread has run length_ns since the start. */
bool slice_clock_over(struct slice_clock *c);

#endif
