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
 * pass_cuts.h). A waiting thread that has run nothing since its last
 * checkpoint (only switch key frames at its count follow it; the recorder
 * gives such a thread no new checkpoint outside a ring) is idle: it
 * begins at the cut with that checkpoint's state, which is the whole
 * replay's there, so a range it stays idle through ends knowing it; one
 * idle to its stream's end stays so until history ends. A thread whose
 * stream ended before T (it exited) runs no more: the cut replay knows it
 * finished and its count, not its last registers (the join takes those
 * from the range before too). Threads
 * that begin later start at their stream's start, noted created when
 * their clone returned in the parent before T (the parent's stream has
 * the return before where the parent stands at the cut).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>

#include "trace-format/trace_regs.h"
#include "replayer/resim.h"

/* Records of a stream read at most to find where it stands at a cut. */
#define SCAN_LIMIT (1u << 20)

/* Where a waiting thread's checkpoint c lets a cut be: c begins a slice
 * (a switch key frame at c's count, global order `switch_seq`, then c),
 * and the thread's key frame or checkpoint before that switch has global
 * order `before`: at a cut g with before < g < switch_seq, the thread
 * waits, and runs no instruction before c. */
struct cut_wait {
	bool known, valid;
	uint64_t before, switch_seq;
	/* Its thread runs nothing after c before global order idle_until
	 * (only switch key frames at c's count follow it until then): at a
	 * cut g with c < g < idle_until, the thread's state is still c's. */
	bool idle_known;
	uint64_t idle_until;
};

struct resim_cut_memo {
	const struct idna_checkpoint *table;
	struct cut_wait *waits; /* by checkpoint index */
};

/* c's window, read from the stream's checkpoint before it. */
static struct cut_wait wait_window(struct idna_reader *r, const struct idna_checkpoint *c)
{
	struct cut_wait w = { .known = true };
	const struct idna_checkpoint *from = NULL;
	for (size_t k = 0; k < idna_reader_checkpoint_count(r); k++) {
		const struct idna_checkpoint *p = idna_reader_checkpoint(r, k);
		if (p->stream == c->stream && p->global_seq < c->global_seq &&
		    (!from || p->global_seq > from->global_seq))
			from = p;
	}
	char err[128];
	struct idna_iter *it = idna_iter_open(r, c->stream, from, err, sizeof(err));
	if (!it)
		return w;
	struct idna_record rec;
	uint64_t last = 0, before = 0;
	bool switched = false;
	for (unsigned n = 0; n < SCAN_LIMIT && idna_iter_next(it, &rec) == 1; n++) {
		if (rec.type == IDNA_REC_CHECKPOINT && rec.u.checkpoint.global_seq == c->global_seq) {
			w.valid = switched;
			w.before = before;
			break;
		}
		bool is_switch = rec.type == IDNA_REC_KEY_FRAME && rec.u.key.reason == IDNA_KEY_SWITCH &&
				 rec.u.key.icount == c->icount;
		if (is_switch) {
			before = last;
			w.switch_seq = rec.u.key.global_seq;
		}
		switched = is_switch;
		if (rec.type == IDNA_REC_KEY_FRAME)
			last = rec.u.key.global_seq;
		else if (rec.type == IDNA_REC_CHECKPOINT)
			last = rec.u.checkpoint.global_seq;
	}
	idna_iter_close(it);
	return w;
}

/* How long c's thread stays as c left it (cut_wait.idle_until). */
static uint64_t idle_until(struct idna_reader *r, const struct idna_checkpoint *c)
{
	char err[128];
	struct idna_iter *it = idna_iter_open(r, c->stream, c, err, sizeof(err));
	if (!it)
		return 0;
	struct idna_record rec;
	uint64_t until = 0;
	if (idna_iter_next(it, &rec) == 1 && rec.type == IDNA_REC_CHECKPOINT) {
		int got = 0;
		for (unsigned n = 0; n < SCAN_LIMIT && (got = idna_iter_next(it, &rec)) == 1; n++) {
			if (rec.type != IDNA_REC_KEY_FRAME || rec.u.key.reason != IDNA_KEY_SWITCH ||
			    rec.u.key.icount != c->icount)
				break;
			/* A slice begins here: whether it runs anything is
			 * the next record's to say, so no later cut. */
			until = rec.u.key.global_seq;
		}
		/* The stream ends with only such slices: the thread stays
		 * blocked (or waiting) until the process dies. */
		if (got == 0)
			until = UINT64_MAX;
	}
	idna_iter_close(it);
	return until;
}

/* Whether c's thread, waiting at global order g, has run nothing since c. */
static bool idle_since(struct idna_reader *r, struct resim_cut_memo *memo, uint64_t g,
		       const struct idna_checkpoint *c)
{
	struct cut_wait one = { 0 }, *w = &one;
	if (memo)
		w = &memo->waits[c - memo->table];
	if (!w->idle_known) {
		w->idle_until = idle_until(r, c);
		w->idle_known = true;
	}
	return c->global_seq < g && g < w->idle_until;
}

/* Whether the thread of checkpoint next waits at global order g and runs
 * no instruction before next (its stream read once per checkpoint with a
 * memo). */
static bool waits_for(struct idna_reader *r, struct resim_cut_memo *memo, uint64_t g,
		      const struct idna_checkpoint *next)
{
	struct cut_wait one, *w = &one;
	if (memo)
		w = &memo->waits[next - memo->table];
	if (!memo || !w->known)
		*w = wait_window(r, next);
	return w->valid && w->before < g && g < w->switch_seq;
}

struct resim_cut_memo *resim_cut_memo_new(const struct resim *s)
{
	struct resim_cut_memo *m = calloc(1, sizeof(*m));
	size_t n = idna_reader_checkpoint_count(s->reader);
	if (!m || !(m->waits = calloc(n ? n : 1, sizeof(*m->waits)))) {
		free(m);
		return NULL;
	}
	m->table = idna_reader_checkpoint(s->reader, 0);
	return m;
}

void resim_cut_memo_free(struct resim_cut_memo *m)
{
	if (m)
		free(m->waits);
	free(m);
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

/* Where a stream ends, read from its checkpoint `from`: the global order
 * and count of its last key frame or checkpoint, which must be its last
 * record (the thread stands there when the stream ends). false when it
 * ends otherwise, or cannot be read. */
static bool stream_end(struct idna_reader *r, uint32_t stream, const struct idna_checkpoint *from,
		       uint64_t *seq, uint64_t *icount)
{
	char err[128];
	struct idna_iter *it = idna_iter_open(r, stream, from, err, sizeof(err));
	if (!it)
		return false;
	struct idna_record rec;
	bool at_frame = false;
	int n = 0;
	for (unsigned k = 0; k < SCAN_LIMIT && (n = idna_iter_next(it, &rec)) == 1; k++) {
		at_frame = rec.type == IDNA_REC_KEY_FRAME || rec.type == IDNA_REC_CHECKPOINT;
		if (rec.type == IDNA_REC_KEY_FRAME) {
			*seq = rec.u.key.global_seq;
			*icount = rec.u.key.icount;
		} else if (rec.type == IDNA_REC_CHECKPOINT) {
			*seq = rec.u.checkpoint.global_seq;
			*icount = rec.u.checkpoint.icount;
		}
	}
	idna_iter_close(it);
	return n == 0 && at_frame;
}

/* Whether the parent's stream, read from `from` (where the parent stands
 * at the cut) up to global order `until` (the child's first slice),
 * returns the clone of tid: then the clone returns after the cut. -1
 * when the stream cannot be read that far. */
static int clone_returns_after(struct idna_reader *r, uint32_t stream,
			       const struct idna_checkpoint *from, uint64_t until, uint64_t tid)
{
	char err[128];
	struct idna_iter *it = idna_iter_open(r, stream, from, err, sizeof(err));
	if (!it)
		return -1;
	struct idna_record rec;
	int found = -1, n = 0;
	for (unsigned k = 0; k < SCAN_LIMIT && (n = idna_iter_next(it, &rec)) == 1; k++) {
		uint64_t seq = rec.type == IDNA_REC_KEY_FRAME	 ? rec.u.key.global_seq
			       : rec.type == IDNA_REC_CHECKPOINT ? rec.u.checkpoint.global_seq
								 : 0;
		if (seq > until) {
			found = 0;
			break;
		}
		if (rec.type == IDNA_REC_KERNEL && rec.u.kernel.kind == IDNA_KERNEL_SYSCALL &&
		    (rec.u.kernel.nr == SYS_clone || rec.u.kernel.nr == SYS_clone3) &&
		    rec.u.kernel.result == tid) {
			found = 1;
			break;
		}
	}
	if (n == 0)
		found = 0; /* the parent's stream ended first */
	idna_iter_close(it);
	return found;
}

/* The thread of the recording's tid, or -1. */
static long thread_of_tid(const struct resim *s, uint64_t tid)
{
	for (size_t i = 0; i < idna_reader_thread_count(s->reader); i++) {
		const struct idna_thread_info *info = idna_reader_thread(s->reader, i);
		if (info->tid == tid)
			return thread_of_stream(s, info->stream);
	}
	long i = resim_thread_index(s, (int64_t)tid);
	return i >= 0 && s->threads[i].stream == RESIM_INITIAL_STREAM ? i : -1;
}

/* Whether thread i, which begins after the cut (its first checkpoint at
 * global order `begins`), was created before it: its parent has begun and
 * its clone's return is not after where the parent stands at the cut.
 * -1 when that cannot be told. */
static int created_before(const struct resim *s, size_t i, uint64_t begins,
			  const struct resim_cut_thread *out)
{
	for (size_t k = 0; k < idna_reader_thread_count(s->reader); k++) {
		const struct idna_thread_info *info = idna_reader_thread(s->reader, k);
		if (info->stream != s->threads[i].stream)
			continue;
		long p = thread_of_tid(s, info->parent_tid);
		if (p < 0 || (size_t)p == i)
			return -1;
		if (out[p].exited)
			return 1;
		if (!out[p].start)
			return 0; /* the parent begins after the cut too */
		int after = clone_returns_after(s->reader, s->threads[p].stream, out[p].start,
						begins, info->tid);
		return after < 0 ? -1 : !after;
	}
	return -1;
}

/* resim_cut_plan, the streams read for waiting threads and created ones
 * only when `check` (each can be read up to SCAN_LIMIT records: cheap
 * conditions first); exited threads' ends are always read (their counts
 * are part of the time). */
static int plan(const struct resim *s, const struct idna_checkpoint *cp,
		struct resim_cut_memo *memo, struct resim_cut_thread *out, uint64_t *time, bool check)
{
	long a = thread_of_stream(s, cp->stream);
	if (a < 0 || s->ring_start)
		return -1;
	uint64_t g = cp->global_seq;
	uint64_t *first = malloc(s->n_threads * sizeof(*first));
	const struct idna_checkpoint **last = calloc(s->n_threads, sizeof(*last));
	if (!first || !last) {
		free(first);
		free(last);
		return -1;
	}
	for (size_t i = 0; i < s->n_threads; i++) {
		first[i] = UINT64_MAX;
		out[i] = (struct resim_cut_thread){ 0 };
	}
	/* Per thread: its first checkpoint's order, its first after g and
	 * its last before g. */
	for (size_t k = 0; k < idna_reader_checkpoint_count(s->reader); k++) {
		const struct idna_checkpoint *c = idna_reader_checkpoint(s->reader, k);
		long i = thread_of_stream(s, c->stream);
		if (i < 0)
			continue;
		if (c->global_seq < first[i])
			first[i] = c->global_seq;
		if (c->global_seq > g && (!out[i].start || c->global_seq < out[i].start->global_seq))
			out[i].start = c;
		if (c->global_seq < g && (!last[i] || c->global_seq > last[i]->global_seq))
			last[i] = c;
	}
	int rc = 0;
	uint64_t t = 0;
	for (size_t i = 0; i < s->n_threads && rc == 0; i++) {
		uint64_t end_seq = 0;
		if ((long)i == a)
			out[i].start = cp;
		else if (first[i] == UINT64_MAX)
			rc = -1; /* a stream with no checkpoint: not seen to begin */
		else if (first[i] > g)
			out[i].start = NULL; /* begins after the cut */
		else if (!out[i].start) {
			/* No checkpoint of its own later: gone before g, or
			 * idle since its last (the recorder gives an idle
			 * thread no new one)? */
			out[i].exited = last[i] &&
					stream_end(s->reader, s->threads[i].stream, last[i], &end_seq,
						   &out[i].icount) &&
					end_seq < g;
			if (!out[i].exited && last[i] && idle_since(s->reader, memo, g, last[i])) {
				out[i].start = last[i];
				out[i].idle = true;
			} else if (!out[i].exited)
				rc = -1;
		}
		if (out[i].start)
			out[i].icount = out[i].start->icount;
		t += out[i].icount;
	}
	/* The initial thread begins history: a cut before it is none. */
	if (!out[0].start && !out[0].exited)
		rc = -1;
	/* Each waiting thread runs no instruction before its next
	 * checkpoint, or has run none since its last. */
	for (size_t i = 0; i < s->n_threads && rc == 0; i++) {
		if ((long)i == a || !out[i].start || out[i].idle ||
		    waits_for(s->reader, memo, g, out[i].start))
			continue;
		if (last[i] && idle_since(s->reader, memo, g, last[i])) {
			out[i].start = last[i];
			out[i].idle = true;
			continue;
		}
		rc = -1;
	}
	/* An idle thread's count is its last checkpoint's. */
	for (size_t i = 0; i < s->n_threads && rc == 0; i++)
		if (out[i].idle) {
			t = t - out[i].icount + out[i].start->icount;
			out[i].icount = out[i].start->icount;
		}
	/* A thread that begins later exists from its clone's return. */
	for (size_t i = 0; check && i < s->n_threads && rc == 0; i++)
		if (!out[i].start && !out[i].exited) {
			int c = created_before(s, i, first[i], out);
			if (c < 0)
				rc = -1;
			out[i].created = c == 1;
		}
	free(first);
	free(last);
	*time = t;
	return rc;
}

int resim_cut_plan(const struct resim *s, const struct idna_checkpoint *cp,
		   struct resim_cut_memo *memo, struct resim_cut_thread *out, uint64_t *time)
{
	return plan(s, cp, memo, out, time, true);
}

int resim_cut_time(const struct resim *s, const struct idna_checkpoint *cp, uint64_t *time)
{
	struct resim_cut_thread *out = calloc(s->n_threads, sizeof(*out));
	int rc = out ? plan(s, cp, s->cut_memo, out, time, false) : -1;
	free(out);
	return rc;
}

bool resim_cut_pending(const struct resim *s)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].first && !s->threads[i].started)
			return true;
	return false;
}

/* Thread t, idle at the cut g since its checkpoint t->first: the whole
 * replay applied that checkpoint before g, so this one takes its
 * registers and goes on from after it and the slices that ran nothing
 * before g (its cache is empty, as the checkpoint left it, when it is
 * acquired). 0, or -1 when its stream cannot be read. */
static int pass_idle_checkpoint(struct resim_thread *t, uint64_t g)
{
	const struct idna_record *ev = cursor_peek(&t->events);
	if (!ev || ev->type != IDNA_REC_CHECKPOINT)
		return -1;
	trace_regs_to_emu(ev->u.checkpoint.regs, &t->regs);
	cursor_next(&t->events);
	while ((ev = cursor_peek(&t->events)) && ev->type == IDNA_REC_KEY_FRAME &&
	       ev->u.key.global_seq < g)
		cursor_next(&t->events);
	ev = cursor_peek(&t->mem.cursor);
	if (!ev || ev->type != IDNA_REC_CHECKPOINT)
		return -1;
	cursor_next(&t->mem.cursor);
	return 0;
}

/* Thread t, idle at the cut g: begun there with its checkpoint's state,
 * which is the whole replay's (not waiting for a checkpoint, so a range
 * it stays idle through ends knowing it). 0, or -1. */
static int start_idle(struct resim_thread *t, uint64_t g)
{
	if (pass_idle_checkpoint(t, g) != 0 || replay_memory_cache_acquire(&t->mem) != 0)
		return -1;
	t->started = true;
	return 0;
}

int resim_start_at_cut(struct resim *s, const struct idna_checkpoint *cp)
{
	struct resim_cut_thread *plan_of = calloc(s->n_threads, sizeof(*plan_of));
	uint64_t time;
	if (!plan_of || resim_cut_plan(s, cp, NULL, plan_of, &time) != 0) {
		free(plan_of);
		snprintf(s->error, sizeof(s->error),
			 "no replay starts at this checkpoint: not every thread is at one there");
		return -1;
	}
	int rc = 0;
	for (size_t i = 0; i < s->n_threads && rc == 0; i++) {
		struct resim_thread *t = &s->threads[i];
		const struct resim_cut_thread *p = &plan_of[i];
		if (p->exited) {
			/* Its stream is over: no cursor, no cache; not
			 * listed as a live thread (created is for threads
			 * that have not begun). */
			t->finished = true;
			t->started = false;
			t->icount = p->icount;
			replay_memory_cache_release(&t->mem);
			continue;
		}
		if (p->start) {
			t->first = p->start;
			t->icount = p->icount;
			t->started = false;
			/* Begun, so created (the initial thread never is). */
			t->created = t->stream != RESIM_INITIAL_STREAM;
		} else {
			t->created = p->created;
		}
		if (cursor_open(&t->mem.cursor, s->reader, t->stream, t->first, CURSOR_MEMORY) != 0 ||
		    cursor_open(&t->events, s->reader, t->stream, t->first, CURSOR_EVENTS) != 0 ||
		    (p->idle && start_idle(t, cp->global_seq) != 0)) {
			snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
				 t->events.failed ? t->events.error : t->mem.cursor.error);
			rc = -1;
		}
	}
	free(plan_of);
	if (rc != 0)
		return -1;
	s->current = 0;
	/* Thread 0's registers, which the first switch saves: an idle
	 * thread's are its checkpoint's. */
	*emu_regs(s->cpu) = s->threads[0].regs;
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
