/*
 * gdb_events_back.c — what reverse-continue stops at besides breakpoints
 * and watchpoints: the signals the program received and, under `catch
 * syscall`, its syscalls, at the very places a forward continue stops at
 * them (before a signal's delivery; at a syscall's entry and at its
 * return).
 *
 * The re-simulation can only stop at such an event running forward, so a
 * segment (between two snapshots) is replayed once to find its last event
 * before the starting time, noting its ordinal among the segment's event
 * stops, and once more to stop at that ordinal.
 */
#include <string.h>

#include "replayer/gdb_events_back.h"
#include "replayer/gdb_target_internal.h"

static bool is_event(enum resim_status st)
{
	return st == RESIM_SIGNAL || st == RESIM_SYSCALL_ENTRY || st == RESIM_SYSCALL_RETURN;
}

/* Runs forward to `target`, stopping at each event a continue stops at. */
static enum resim_status run_to_event(struct gdb_target *t, uint64_t target)
{
	struct replay_session *s = t->s;
	s->sim.stop_at_signals = true;
	s->sim.stop_at_syscalls = t->catching;
	enum resim_status st = replay_session_run(s, target);
	s->sim.stop_at_signals = s->sim.stop_at_syscalls = false;
	return st;
}

static bool counts(const struct gdb_target *t, enum resim_status st)
{
	return st == RESIM_SIGNAL || target_syscall_caught(t, t->s->sim.syscall_nr);
}

/* The stop a forward continue reports for the event the replay is at. */
static void event_stop(struct gdb_target *t, enum resim_status st, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	if (st == RESIM_SIGNAL) {
		target_edge_stop(t, stop, GDBSTUB_STOP_SIGNAL);
		stop->signo = s->sim.counts.last_signal;
		return;
	}
	target_syscall_stop(t, stop, st == RESIM_SYSCALL_ENTRY);
}

bool target_segment_may_have_events(const struct gdb_target *t, size_t k)
{
	const struct replay_session *s = t->s;
	const struct resim_state *from = &s->snapshots[k].state;
	uint64_t signals = k + 1 < s->n_snapshots ? s->snapshots[k + 1].state.counts.signals
						  : s->summary.signals;
	uint64_t syscalls = k + 1 < s->n_snapshots ? s->snapshots[k + 1].state.counts.syscalls
						   : s->summary.syscalls;
	return signals != from->counts.signals || (t->catching && syscalls != from->counts.syscalls);
}

int target_last_event(struct gdb_target *t, size_t k, uint64_t end, uint64_t before,
		      struct event_mark *out)
{
	struct replay_session *s = t->s;
	memset(out, 0, sizeof(*out));
	if (replay_session_goto(s, s->snapshots[k].icount) != 0)
		return -1;
	for (unsigned ordinal = 1;; ordinal++) {
		enum resim_status st = run_to_event(t, end);
		if (st == RESIM_ERROR)
			return -1;
		uint64_t now = replay_session_now(s);
		if (!is_event(st) || now >= before)
			return 0;
		if (counts(t, st)) {
			out->found = true;
			out->time = now;
			out->ordinal = ordinal;
		}
	}
}

int target_goto_event(struct gdb_target *t, size_t k, const struct event_mark *m,
		      struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	if (replay_session_goto(s, s->snapshots[k].icount) != 0)
		return -1;
	for (unsigned ordinal = 1;; ordinal++) {
		enum resim_status st = run_to_event(t, s->summary.instructions);
		if (st == RESIM_ERROR || !is_event(st))
			return -1; /* the same replay found it a moment ago */
		if (ordinal == m->ordinal) {
			event_stop(t, st, stop);
			if (st == RESIM_SIGNAL)
				t->signal_reported_at = replay_session_now(s);
			return 0;
		}
	}
}
