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
#include "replayer/pass_parallel.h"

/* No checkpoint: the range starts where history does. */
#define FROM_START SIZE_MAX

struct pass_worker {
	/* What it replays. */
	const char *path;
	unsigned cache_log2;
	bool jit;
	size_t checkpoint;        /* its reader's checkpoint index, or FROM_START */
	uint64_t end;             /* the next range's start; UINT64_MAX: history's end */
	uint64_t snapshot_origin, snapshot_interval; /* the serial pass's snapshot times */
	/* What it found. */
	struct idna_reader *reader;
	struct resim sim;
	bool sim_open;
	struct resim_counts base; /* counted at its start, by the range before */
	enum resim_status status; /* RESIM_AT_TARGET: it reached `end` */
	size_t snapshots;         /* snapshot times it passed */
	double cpu_seconds;       /* the CPU time its thread took */
	char error[320];          /* why it could not start */
	/* It could not start (out of memory, the trace unreadable), or its
	 * checkpoint did not start it as the table said (a damaged or
	 * hostile trace): the serial pass decides then. */
	bool bad_start;
};

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
	int rc = w->checkpoint == FROM_START
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

/* Replays one range, counting the serial pass's snapshot times in it. */
static void replay_range(struct pass_worker *w)
{
	w->status = RESIM_ERROR;
	if (open_worker(w) != 0) {
		w->bad_start = true;
		return;
	}
	uint64_t next = w->snapshot_origin;
	if (w->checkpoint != FROM_START) {
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
	for (;;) {
		uint64_t target = next < w->end ? next : w->end;
		w->status = resim_run(&w->sim, target);
		if (w->status != RESIM_AT_TARGET)
			return;
		if (target == next) {
			w->snapshots++;
			next += w->snapshot_interval;
		}
		if (target == w->end)
			return;
	}
}

/* Replays one range, and notes the CPU time that took. */
static void *run_worker(void *arg)
{
	struct pass_worker *w = arg;
	struct timespec t0, t1;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	replay_range(w);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
	w->cpu_seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return NULL;
}

/* The checkpoints that can start a range: the one thread's, strictly
 * after history's start, in increasing time. Their reader indexes go to
 * `out` (room for every checkpoint); returns how many. */
static size_t range_starts(struct replay_session *s, size_t *out)
{
	const struct resim_thread *t = &s->sim.threads[0];
	uint64_t last = t->first ? t->first->icount : 0;
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

/* Adds what worker w passed to counts. */
static void add_counts(struct resim_counts *counts, const struct pass_worker *w)
{
	const struct resim_counts *c = &w->sim.counts, *b = &w->base;
	counts->syscalls += c->syscalls - b->syscalls;
	counts->signals += c->signals - b->signals;
	counts->checkpoints += c->checkpoints - b->checkpoints;
	counts->native_steps += c->native_steps - b->native_steps;
	if (c->signals > b->signals)
		counts->last_signal = c->last_signal;
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
		add_counts(&counts, &w[k]);
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
	return idna_reader_checkpoint(s->reader, starts[i])->icount;
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

/* The ranges: `n` of them, about as long in instructions as the
 * checkpoints allow. */
static void plan(struct replay_session *s, struct pass_worker *w, size_t n, const size_t *starts,
		 size_t n_starts)
{
	uint64_t origin = s->sim.threads[0].first ? s->sim.threads[0].first->icount : 0;
	size_t next = 0;
	for (size_t k = 0; k < n; k++) {
		w[k] = (struct pass_worker){
			.path = s->path, .cache_log2 = s->cache_log2, .jit = s->jit,
			.checkpoint = FROM_START, .end = UINT64_MAX,
			.snapshot_origin = s->snapshots[0].icount,
			.snapshot_interval = REPLAY_SNAPSHOT_INTERVAL,
		};
		if (k > 0) {
			size_t i = pick_start(s, starts, n_starts, origin, k, n, next);
			w[k].checkpoint = starts[i];
			next = i + 1;
		}
	}
	for (size_t k = 0; k + 1 < n; k++)
		w[k].end = idna_reader_checkpoint(s->reader, w[k + 1].checkpoint)->icount - origin;
}

int pass_parallel_summary(struct replay_session *s, unsigned jobs)
{
	if (!s->sim_open || s->sim.n_threads != 1 || jobs < 2 || s->n_snapshots == 0)
		return 0;
	size_t *starts = calloc(idna_reader_checkpoint_count(s->reader) + 1, sizeof(*starts));
	struct pass_worker *w = calloc(jobs, sizeof(*w));
	pthread_t *tids = calloc(jobs, sizeof(*tids));
	int rc = 0;
	if (!starts || !w || !tids)
		goto out; /* the serial pass needs no more */
	size_t n_starts = range_starts(s, starts);
	size_t n = n_starts + 1 < jobs ? n_starts + 1 : jobs;
	if (n < 2)
		goto out;
	plan(s, w, n, starts, n_starts);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	size_t started = 0;
	for (; started < n; started++)
		if (pthread_create(&tids[started], NULL, run_worker, &w[started]) != 0)
			break;
	for (size_t k = 0; k < started; k++)
		pthread_join(tids[k], NULL);
	/* A worker that could not start: that range replays here. */
	for (size_t k = started; k < n; k++)
		run_worker(&w[k]);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->summary.seconds += (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	rc = join(s, w, n);
	for (size_t k = 0; k < n; k++) {
		if (w[k].sim_open)
			resim_close(&w[k].sim);
		if (w[k].reader)
			idna_reader_close(w[k].reader);
	}
out:
	free(starts);
	free(w);
	free(tids);
	return rc;
}
