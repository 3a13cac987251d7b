/*
 * resim_cut.c — a replay of a trace of several threads started in the
 * middle of its history (the first pass's ranges: pass_parallel.c).
 *
 * A checkpoint resets only its own thread (registers, prediction cache;
 * man/idna.5, THREADS): the other threads' caches and registers at that
 * time are known only to a replay that ran them. So a replay can start at
 * a checkpoint of thread A (time T) only where every other thread that
 * has begun is waiting (switched out) and its next slice begins with a
 * checkpoint before it runs an instruction: a switch key frame, then a
 * checkpoint at the same count (the recorder logs one there when the
 * thread's checkpoint interval passed while it waited, and a ring
 * recorder after every interval checkpoint of another). Such a thread
 * starts at that checkpoint, pending: the scheduler applies it where the
 * recording's order has the switch (resim_threads.c: pending_switch), and
 * until then its state is the whole replay's at T, which the cut replay
 * does not know (the first pass's join takes it from the range before:
 * pass_cuts.h). Threads that begin later start at their stream's start.
 */
#include <stdio.h>
#include <stdlib.h>

#include "replayer/resim.h"

/* Records of a stream read at most to find where it stands at a cut. */
#define SCAN_LIMIT (1u << 20)

/* Whether the stream's first key frame or checkpoint after global order g
 * is a switch key frame at next's count, followed by next itself (the
 * thread waits at g, and runs no instruction before next). */
static bool waits_for(struct idna_reader *r, uint32_t stream, uint64_t g,
		      const struct idna_checkpoint *next)
{
	const struct idna_checkpoint *from = NULL;
	for (size_t k = 0; k < idna_reader_checkpoint_count(r); k++) {
		const struct idna_checkpoint *c = idna_reader_checkpoint(r, k);
		if (c->stream == stream && c->global_seq < g &&
		    (!from || c->global_seq > from->global_seq))
			from = c;
	}
	char err[128];
	struct idna_iter *it = idna_iter_open(r, stream, from, err, sizeof(err));
	if (!it)
		return false;
	struct idna_record rec;
	bool switched = false, ok = false;
	for (unsigned n = 0; n < SCAN_LIMIT && idna_iter_next(it, &rec) == 1; n++) {
		if (rec.type == IDNA_REC_KEY_FRAME && rec.u.key.global_seq > g) {
			if (switched || rec.u.key.reason != IDNA_KEY_SWITCH ||
			    rec.u.key.icount != next->icount)
				break;
			switched = true;
		} else if (rec.type == IDNA_REC_CHECKPOINT && rec.u.checkpoint.global_seq > g) {
			ok = switched && rec.u.checkpoint.global_seq == next->global_seq;
			break;
		} else if (switched) {
			break; /* anything between the switch and the checkpoint */
		}
	}
	idna_iter_close(it);
	return ok;
}

/* The thread table is in stream order (resim_threads.c). */
static long thread_of_stream(const struct resim *s, uint32_t stream)
{
	size_t lo = 0, hi = s->n_threads;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->threads[mid].stream == stream)
			return (long)mid;
		if (s->threads[mid].stream < stream)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* resim_cut_plan, the waiting threads' streams read only when `check`
 * (each can be read up to SCAN_LIMIT records: cheap conditions first). */
static int plan(const struct resim *s, const struct idna_checkpoint *cp,
		const struct idna_checkpoint **starts, uint64_t *time, bool check)
{
	long a = thread_of_stream(s, cp->stream);
	if (a < 0 || s->ring_start)
		return -1;
	uint64_t g = cp->global_seq;
	uint64_t *first = malloc(s->n_threads * sizeof(*first));
	if (!first)
		return -1;
	for (size_t i = 0; i < s->n_threads; i++) {
		first[i] = UINT64_MAX;
		starts[i] = NULL;
	}
	/* Per thread: its first checkpoint's order, and its first after g. */
	for (size_t k = 0; k < idna_reader_checkpoint_count(s->reader); k++) {
		const struct idna_checkpoint *c = idna_reader_checkpoint(s->reader, k);
		long i = thread_of_stream(s, c->stream);
		if (i < 0)
			continue;
		if (c->global_seq < first[i])
			first[i] = c->global_seq;
		if (c->global_seq > g && (!starts[i] || c->global_seq < starts[i]->global_seq))
			starts[i] = c;
	}
	int rc = 0;
	uint64_t t = 0;
	for (size_t i = 0; i < s->n_threads && rc == 0; i++) {
		if ((long)i == a)
			starts[i] = cp;
		else if (first[i] == UINT64_MAX)
			rc = -1; /* a stream with no checkpoint: not seen to begin */
		else if (first[i] > g)
			starts[i] = NULL; /* begins after the cut */
		else if (!starts[i])
			rc = -1; /* gone, or no checkpoint of its own later */
		if (starts[i])
			t += starts[i]->icount;
	}
	/* The initial thread begins history: a cut before it is none. */
	if (!starts[0])
		rc = -1;
	/* Each waiting thread runs no instruction before its checkpoint. */
	for (size_t i = 0; check && i < s->n_threads && rc == 0; i++)
		if ((long)i != a && starts[i] &&
		    !waits_for(s->reader, s->threads[i].stream, g, starts[i]))
			rc = -1;
	free(first);
	*time = t;
	return rc;
}

int resim_cut_plan(const struct resim *s, const struct idna_checkpoint *cp,
		   const struct idna_checkpoint **starts, uint64_t *time)
{
	return plan(s, cp, starts, time, true);
}

int resim_cut_time(const struct resim *s, const struct idna_checkpoint *cp, uint64_t *time)
{
	const struct idna_checkpoint **starts = calloc(s->n_threads, sizeof(*starts));
	int rc = starts ? plan(s, cp, starts, time, false) : -1;
	free(starts);
	return rc;
}

bool resim_cut_pending(const struct resim *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].first && !s->threads[i].started)
			return true;
	return false;
}

int resim_start_at_cut(struct resim *s, const struct idna_checkpoint *cp)
{
	const struct idna_checkpoint **starts = calloc(s->n_threads, sizeof(*starts));
	uint64_t time;
	if (!starts || resim_cut_plan(s, cp, starts, &time) != 0) {
		free(starts);
		snprintf(s->error, sizeof(s->error),
			 "no replay starts at this checkpoint: not every thread is at one there");
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < s->n_threads && rc == 0; i++) {
		struct resim_thread *t = &s->threads[i];
		if (starts[i]) {
			t->first = starts[i];
			t->icount = starts[i]->icount;
			t->started = false;
			/* Begun, so created (the initial thread never is). */
			t->created = t->stream != RESIM_INITIAL_STREAM;
		}
		if (cursor_open(&t->mem.cursor, s->reader, t->stream, t->first, CURSOR_MEMORY) != 0 ||
		    cursor_open(&t->events, s->reader, t->stream, t->first, CURSOR_EVENTS) != 0) {
			snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
				 t->events.failed ? t->events.error : t->mem.cursor.error);
			rc = -1;
		}
	}
	free(starts);
	if (rc != 0)
		return -1;
	s->current = 0;
	emu_set_icount(s->cpu, s->threads[0].icount);
	s->clock_offset = time - s->threads[0].icount;
	bool switched;
	if (resim_schedule(s, &switched) != 1) {
		if (!s->error[0])
			snprintf(s->error, sizeof(s->error), "no thread starts at the cut");
		return -1;
	}
	return 0;
}
