/*
 * resim_bounds.c — how far a thread's replay may run. The emulator runs
 * up to the instruction count of the thread's next key frame or
 * checkpoint, except while a nondet record is pending: that one applies
 * wherever the emulator stops at a special instruction, and code that
 * never reaches one (a trace whose code page holds `jmp $`) would run
 * forever. The stream's own counts bound it: a recording always logs a
 * key frame after the special instruction (its thread's next kernel
 * transition, its exit, or the end of the recording), so the replay never
 * needs to run past the largest count the stream declares.
 *
 * Finding that count decodes the stream from its last checkpoint on (in
 * a history shorter than the checkpoint interval: all of it, a third
 * time besides the replay's two cursors), while nearly every special
 * instruction comes within a few instructions of its record's previous
 * event. So a wait first runs up to WAIT_UNSCANNED instructions without
 * the count; only a wait longer than that scans. Code that never
 * reaches its special instruction still ends: WAIT_UNSCANNED later.
 */
#include <stdio.h>

#include "replayer/resim.h"

#define WAIT_UNSCANNED (1ull << 22)

/* The largest count declared from the stream's last checkpoint on. */
static int scan_stream_end(struct resim *s, uint32_t stream, uint64_t *end)
{
	const struct idna_checkpoint *last = idna_reader_find_checkpoint(s->reader, stream, UINT64_MAX);
	char err[256];
	struct idna_iter *it = idna_iter_open(s->reader, stream, last, err, sizeof(err));
	if (!it) {
		snprintf(s->error, sizeof(s->error), "cannot read the trace: %s", err);
		return -1;
	}
	uint64_t max = last ? last->icount : 0;
	struct idna_record r;
	int k;
	while ((k = idna_iter_next(it, &r)) == 1) {
		if (r.type == IDNA_REC_KEY_FRAME && r.u.key.icount > max)
			max = r.u.key.icount;
		else if (r.type == IDNA_REC_CHECKPOINT && r.u.checkpoint.icount > max)
			max = r.u.checkpoint.icount;
	}
	if (k < 0)
		snprintf(s->error, sizeof(s->error), "cannot read the trace: %s", idna_iter_error(it));
	idna_iter_close(it);
	*end = max;
	return k < 0 ? -1 : 0;
}

int resim_declared_end(struct resim *s, uint64_t *end)
{
	struct resim_thread *t = resim_current(s);
	if (!t->declared_end_known) {
		if (scan_stream_end(s, t->stream, &t->declared_end) != 0)
			return -1;
		t->declared_end_known = true;
	}
	*end = t->declared_end;
	return 0;
}

int resim_wait_budget(struct resim *s, uint64_t own, uint64_t *budget)
{
	struct resim_thread *t = resim_current(s);
	if (!t->declared_end_known) {
		uint64_t record = t->events.taken + 1;
		if (t->wait_record != record) {
			t->wait_record = record;
			t->wait_until = own + WAIT_UNSCANNED;
		}
		if (own < t->wait_until) {
			if (t->wait_until - own < *budget)
				*budget = t->wait_until - own;
			return 0;
		}
	}
	uint64_t end;
	if (resim_declared_end(s, &end) != 0)
		return -1;
	if (own >= end)
		return 1;
	if (end - own < *budget)
		*budget = end - own;
	return 0;
}
