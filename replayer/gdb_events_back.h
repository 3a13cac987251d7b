/*
 * gdb_events_back.h — finding, backwards, the signal and caught-syscall
 * stops a forward continue would make (gdb_events_back.c).
 */
#ifndef TTREC_GDB_EVENTS_BACK_H
#define TTREC_GDB_EVENTS_BACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "gdbstub/target.h"

struct gdb_target;

/* An event stop in a segment: its time, and its place among the
 * segment's event stops (all signals and syscalls, caught or not). */
struct event_mark {
	bool found;
	uint64_t time;
	unsigned ordinal;
};

/* Whether segment k received a signal, or (when catching) made a syscall,
 * from the first pass's counts at its two ends. */
bool target_segment_may_have_events(const struct gdb_target *t, size_t k);

/* The last event stop of segment k (which ends at `end`) strictly before
 * `before`. 0 with *out (found or not), -1 on error. Moves the replay. */
int target_last_event(struct gdb_target *t, size_t k, uint64_t end, uint64_t before,
		      struct event_mark *out);

/* Moves the replay to that event stop, as a forward continue leaves it,
 * and describes the stop. 0, or -1. */
int target_goto_event(struct gdb_target *t, size_t k, const struct event_mark *m,
		      struct gdbstub_stop *stop);

#endif
