/*
 * pass_parallel.c — the first pass's summary from ranges of the history
 * replayed at once (pass_parallel.h).
 *
 * Where two ranges meet: the range before runs to the time of the
 * checkpoint that starts the next (resim_run applies the events at that
 * time, the checkpoint among them, up to the next one that retires an
 * instruction); the next range first runs to that same time and counts
 * only what it passes after it. So every record is counted once, by the
 * range that passed it, as in the serial pass.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replayer/pass_ahead.h"
#include "replayer/pass_cuts.h"
#include "replayer/pass_parallel.h"
#include "replayer/pass_worker.h"
#include "replayer/segment_summary.h"

/* The first snapshot time after t. */
static uint64_t snapshot_after(const struct pass_worker *w, uint64_t t)
{
	if (t < w->snapshot_origin)
		return w->snapshot_origin;
	return w->snapshot_origin + ((t - w->snapshot_origin) / w->snapshot_interval + 1) *
					    w->snapshot_interval;
}

static int open_worker(struct pass_worker *w)
{
	w->reader = idna_reader_open(w->path, w->error, sizeof(w->error));
	if (!w->reader)
		return -1;
	struct memory_image *image = memory_image_new();
	if (!image) {
		snprintf(w->error, sizeof(w->error), "out of memory");
		return -1;
	}
	int rc = w->checkpoint == PASS_FROM_START
			 ? resim_open(&w->sim, w->reader, w->cache_log2, w->jit, image)
			 : resim_open_at_checkpoint(&w->sim, w->reader, w->cache_log2, w->jit, image,
						    idna_reader_checkpoint(w->reader, w->checkpoint));
	if (rc != 0) {
		snprintf(w->error, sizeof(w->error), "%s", w->sim.error);
		return -1;
	}
	w->sim_open = true;
	return 0;
}

/* keep: notes the pages of code fetched into the segment being noted. */
static void note_fetch(void *ctx, uint64_t addr, size_t len)
{
	struct pass_worker *w = ctx;
	if (!pass_note_pages(w->noting->code_pages, addr, len))
		w->summary_incomplete = true;
}

static void note_code(void *ctx, uint64_t addr, uint64_t len)
{
	note_fetch(ctx, addr, (size_t)len);
}

/* The heap in use, or where the allocator cannot say (under a
 * sanitizer) the range's snapshots' estimate, as the serial pass does. */
static uint64_t worker_memory_in_use(const struct pass_worker *w)
{
	uint64_t heap = replay_heap_in_use();
	if (heap)
		return heap;
	uint64_t estimate = 0;
	for (size_t i = 0; i < w->n_kept; i++)
		if (!w->kept[i].spilled)
			estimate += replay_snapshot_bytes(&w->kept[i]);
	return estimate;
}

/* keep: from now on, the pages the range writes and runs go to seg's
 * sets (made here). false when memory is short. */
static bool note_into(struct pass_worker *w, struct replay_snapshot *seg)
{
	if (!segment_summary_make(seg))
		return false;
	w->noting = seg;
	segment_summary_note_access(&w->sim.proc, seg);
	w->sim.proc.on_fetch = note_fetch;
	w->sim.proc.fetch_ctx = w;
	/* Blocks decoded before, run from now on in the segment. */
	emu_report_code(w->sim.cpu, note_code, w);
	return true;
}

/* Snapshots between two looks at the heap (as the serial pass). */
#define BUDGET_CHECK_EVERY 4

/* keep, past the budget: every other snapshot in memory to the range's
 * spill file, as the serial pass does with its own. false when no spill
 * file can be made (the pass then goes serial, which thins instead). */
static bool spill_some(struct pass_worker *w)
{
	if (!w->spill && !(w->spill = replay_spill_open()))
		return false;
	replay_snapshots_spill_half(w->spill, w->kept, w->n_kept);
	return true;
}

/* keep: a snapshot at the current time, its segment noted from now on.
 * false when the range stops (memory, the budget, another range asked). */
static bool keep_snapshot(struct pass_worker *w)
{
	if (atomic_load(w->stop))
		return false;
	if (w->n_kept == w->cap_kept) {
		size_t cap = w->cap_kept ? 2 * w->cap_kept : 64;
		struct replay_snapshot *k = realloc(w->kept, cap * sizeof(*k));
		if (k)
			w->kept = k;
		size_t *m = realloc(w->log_marks, cap * sizeof(*m));
		if (m)
			w->log_marks = m;
		if (!k || !m)
			return false;
		w->cap_kept = cap;
	}
	struct replay_snapshot *snap = &w->kept[w->n_kept];
	memset(snap, 0, sizeof(*snap));
	if (resim_save(&w->sim, &snap->state) != 0)
		return false;
	snap->icount = snap->state.time;
	w->log_marks[w->n_kept] = w->log.len;
	w->n_kept++;
	if (!note_into(w, snap))
		return false;
	if (w->n_kept % BUDGET_CHECK_EVERY == 0 && worker_memory_in_use(w) > w->budget &&
	    !spill_some(w)) {
		w->out_of_budget = true;
		return false;
	}
	return true;
}

/* keep: at the range's start, the state there and the noting of its
 * lead part; the log from now on. */
static bool keep_start(struct pass_worker *w)
{
	if (resim_save(&w->sim, &w->start_state) != 0 || !note_into(w, &w->lead))
		return false;
	w->sim.proc.log = &w->log;
	return true;
}

/* Replays one range, counting the serial pass's snapshot times in it
 * (keep: taking the snapshots). */
static void replay_range(struct pass_worker *w)
{
	w->status = RESIM_ERROR;
	if (open_worker(w) != 0) {
		w->bad_start = true;
		return;
	}
	uint64_t next = w->snapshot_origin;
	if (w->checkpoint != PASS_FROM_START) {
		uint64_t start = resim_now(&w->sim);
		w->status = resim_run(&w->sim, start);
		if (w->status != RESIM_AT_TARGET || w->sim.counts.checkpoints == 0 ||
		    resim_now(&w->sim) != start) {
			w->bad_start = true;
			return;
		}
		w->base = w->sim.counts;
		next = snapshot_after(w, start);
	}
	if (w->keep && !keep_start(w)) {
		w->stopped = true;
		return;
	}
	if (!w->keep && w->check_cut && resim_save(&w->sim, &w->start_state) != 0) {
		w->bad_start = true;
		return;
	}
	for (;;) {
		uint64_t target = next < w->end ? next : w->end;
		w->status = resim_run(&w->sim, target);
		if (w->status != RESIM_AT_TARGET)
			return;
		if (target == next) {
			if (w->keep && !keep_snapshot(w)) {
				w->stopped = true;
				atomic_store(w->stop, true);
				return;
			}
			w->snapshots++;
			next += w->snapshot_interval;
		}
		if (target == w->end) {
			if ((w->keep || w->check_cut) && resim_save(&w->sim, &w->end_state) != 0)
				w->stopped = true;
			return;
		}
	}
}

/* Replays one range, and notes the CPU time that took. */
void *pass_worker_run(void *arg)
{
	struct pass_worker *w = arg;
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	replay_range(w);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	w->cpu_seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return NULL;
}

size_t pass_range_starts(struct replay_session *s, uint64_t after, size_t *out)
{
	if (s->sim.n_threads > 1)
		return pass_cuts_find(s, after, out);
	const struct resim_thread *t = &s->sim.threads[0];
	uint64_t origin = t->first ? t->first->icount : 0, last = origin + after;
	size_t n = 0;
	for (size_t i = 0; i < idna_reader_checkpoint_count(s->reader); i++) {
		const struct idna_checkpoint *cp = idna_reader_checkpoint(s->reader, i);
		if (cp->stream != t->stream || cp->icount <= last)
			continue;
		out[n++] = i;
		last = cp->icount;
	}
	return n;
}

void pass_join_counts(struct resim_counts *out, const struct resim_counts *before,
		      const struct resim_counts *x, const struct resim_counts *base)
{
	struct resim_counts c = *before;
	c.syscalls += x->syscalls - base->syscalls;
	c.signals += x->signals - base->signals;
	c.checkpoints += x->checkpoints - base->checkpoints;
	c.native_steps += x->native_steps - base->native_steps;
	c.execs += x->execs - base->execs;
	if (x->signals > base->signals) {
		c.last_signal = x->last_signal;
		c.last_signal_time = x->last_signal_time;
	}
	if (x->execs > base->execs)
		c.last_exec_time = x->last_exec_time;
	*out = c;
}

/* Whether w, a range of several threads, started as the range before
 * (which reached w's start) ended; why not in s->summary.serial_reason. */
static bool started_as_whole(struct replay_session *s, const struct pass_worker *before,
			     const struct pass_worker *w)
{
	if (before->stopped)
		s->summary.serial_reason = "out of memory for a range's end state";
	else if (resim_cut_pending(&before->sim))
		s->summary.serial_reason = "a range ended before its threads' checkpoints";
	else
		s->summary.serial_reason = pass_cut_mismatch(&before->end_state, &w->start_state);
	return s->summary.serial_reason == NULL;
}

/* The summary from the workers, in history order: up to the first range
 * that did not reach its end (history ended or the replay failed there).
 * 1, -1 with s->error, or 0 when a range could not start as the serial
 * pass would have passed its checkpoint. */
static int join(struct replay_session *s, struct pass_worker *w, size_t n)
{
	struct resim_counts counts = { 0 };
	size_t snapshots = 0, k = 0;
	for (;; k++) {
		if (w[k].bad_start)
			return 0;
		if (k > 0 && w[k].check_cut && !started_as_whole(s, &w[k - 1], &w[k]))
			return 0;
		pass_join_counts(&counts, &counts, &w[k].sim.counts, &w[k].base);
		snapshots += w[k].snapshots;
		if (k == n - 1 || w[k].status != RESIM_AT_TARGET)
			break;
	}
	s->summary.snapshots = snapshots;
	s->summary.ranges = (unsigned)n;
	for (size_t i = 0; i < n; i++)
		if (w[i].cpu_seconds > s->summary.longest_range_seconds)
			s->summary.longest_range_seconds = w[i].cpu_seconds;
	return replay_session_summarise_replay(s, &w[k].sim, &counts, w[k].status) == 0 ? 1 : -1;
}

static uint64_t start_icount(const struct replay_session *s, const size_t *starts, size_t i)
{
	return pass_cut_clock(s, starts[i]);
}

/* The start of range k of n: the checkpoint nearest k/n of the history
 * (its end guessed one average checkpoint spacing after the last one:
 * the recorder takes one every so many instructions, and others at
 * execs and faults), after range k-1's and leaving one for each later
 * range. */
static size_t pick_start(const struct replay_session *s, const size_t *starts, size_t n_starts,
			 uint64_t origin, size_t k, size_t n, size_t after)
{
	uint64_t last = start_icount(s, starts, n_starts - 1) - origin;
	uint64_t end = last + last / n_starts;
	uint64_t want = origin + (uint64_t)((double)end * k / n);
	size_t best = after, hi = n_starts - (n - k);
	for (size_t i = after; i <= hi; i++) {
		uint64_t at = start_icount(s, starts, i), b = start_icount(s, starts, best);
		uint64_t d = at > want ? at - want : want - at, db = b > want ? b - want : want - b;
		if (d < db)
			best = i;
	}
	return best;
}

void pass_plan(struct replay_session *s, struct pass_worker *w, size_t n, const size_t *starts,
	       size_t n_starts, uint64_t from, uint64_t snapshot_origin, uint64_t snapshot_interval)
{
	uint64_t origin = s->sim.threads[0].first ? s->sim.threads[0].first->icount : 0;
	size_t next = 0;
	for (size_t k = 0; k < n; k++) {
		w[k] = (struct pass_worker){
			.path = s->path, .cache_log2 = s->cache_log2, .jit = s->jit,
			.checkpoint = PASS_FROM_START, .end = UINT64_MAX,
			.snapshot_origin = snapshot_origin, .snapshot_interval = snapshot_interval,
			.check_cut = s->sim.n_threads > 1,
		};
		if (k > 0) {
			size_t i = pick_start(s, starts, n_starts, origin + from, k, n, next);
			w[k].checkpoint = starts[i];
			next = i + 1;
		}
	}
	for (size_t k = 0; k + 1 < n; k++)
		w[k].end = pass_cut_clock(s, w[k + 1].checkpoint) - origin;
}

size_t pass_workers_start(struct pass_worker *w, pthread_t *tids, size_t first, size_t n)
{
	size_t started = first;
	for (; started < n; started++)
		if (pthread_create(&tids[started], NULL, pass_worker_run, &w[started]) != 0)
			break;
	return started;
}

void pass_workers_wait(struct pass_worker *w, pthread_t *tids, size_t first, size_t n,
		       size_t started)
{
	for (size_t k = first; k < started; k++)
		pthread_join(tids[k], NULL);
	/* A worker that could not start: that range replays here. */
	for (size_t k = started; k < n; k++)
		pass_worker_run(&w[k]);
}

void pass_worker_free(struct pass_worker *w)
{
	if (w->sim_open)
		resim_close(&w->sim);
	w->sim_open = false;
	if (w->reader)
		idna_reader_close(w->reader);
	w->reader = NULL;
	for (size_t i = 0; i < w->n_kept; i++) {
		resim_state_free(&w->kept[i].state);
		segment_summary_free(&w->kept[i]);
	}
	free(w->kept);
	free(w->log_marks);
	w->kept = NULL;
	w->log_marks = NULL;
	w->n_kept = 0;
	segment_summary_free(&w->lead);
	resim_state_free(&w->start_state);
	resim_state_free(&w->end_state);
	pass_log_free(&w->log);
	snapshot_spill_close(w->spill);
	w->spill = NULL;
}

int pass_parallel_summary(struct replay_session *s, unsigned jobs)
{
	if (!s->sim_open || jobs < 1 || s->n_snapshots == 0)
		return 0;
	if (s->sim.n_threads > 1 && s->sim.ring_start) {
		s->summary.serial_reason = "a ring trace of several threads: its history starts at a checkpoint";
		return 0;
	}
	size_t *starts = calloc(idna_reader_checkpoint_count(s->reader) + 1, sizeof(*starts));
	struct pass_worker *w = calloc(jobs, sizeof(*w));
	pthread_t *tids = calloc(jobs, sizeof(*tids));
	int rc = 0;
	if (!starts || !w || !tids)
		goto out; /* the serial pass needs no more */
	/* (One job: one range, the whole history, with no cut to find.) */
	size_t n_starts = jobs > 1 ? pass_range_starts(s, 0, starts) : 0;
	size_t n = n_starts + 1 < jobs ? n_starts + 1 : jobs;
	if (n < 2 && jobs > 1) {
		if (s->sim.n_threads > 1)
			s->summary.serial_reason = PASS_NO_THREAD_CUT;
		goto out;
	}
	pass_plan(s, w, n, starts, n_starts, 0, s->snapshots[0].icount, s->snapshot_interval);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pass_workers_wait(w, tids, 0, n, n > 1 ? pass_workers_start(w, tids, 0, n) : 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->summary.seconds += (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	rc = join(s, w, n);
	for (size_t k = 0; k < n; k++)
		pass_worker_free(&w[k]);
out:
	free(starts);
	free(w);
	free(tids);
	return rc;
}
