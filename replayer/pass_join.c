/*
 * pass_join.c — a session's first pass from ranges replayed at once
 * (pass_join.h).
 *
 * A range starts at a trace checkpoint, which empties the prediction
 * cache and the logged code pages and makes the emulator decode again:
 * from there its replay is the serial pass's but for what the memory
 * before it holds. Its snapshots' images know what it learned; the serial
 * pass's images know that, and where it did not learn a byte, what the
 * image before the range knew, changed by the range's forgets and zeroes
 * (pass_log.h). A byte the range read without knowing it was a first
 * read only if that image and the future image (with the blocks the
 * range made) did not know it either: the log's reads, applied in order,
 * decide. The figures a state carries count on from the range before.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replayer/pass_ahead.h"
#include "replayer/pass_cuts.h"
#include "replayer/pass_join.h"
#include "replayer/pass_worker.h"
#include "replayer/segment_summary.h"
#include "replayer/spill_read_ahead.h"

/* Spilled records of a range read ahead of the join: enough to keep the
 * reading thread busy, few enough to hold in memory. */
#define READ_AHEAD_RECORDS 4

/* Why the pass cannot be cut, or NULL. */
static const char *cannot_cut(const struct replay_session *s)
{
	uint64_t intact;
	if (s->sim.ring_start)
		return "a ring trace: its history starts at a checkpoint";
	if (!idna_reader_complete(s->reader, &intact))
		return "a truncated trace";
	return NULL;
}

/* t, a thread of a state a worker saved, as the serial pass has it: its
 * figures go on from b's (the thread where the range starts in the serial
 * pass), s0's at the range's start; its slice, when none began since the
 * range's start, is the one b is in. */
static void complete_thread(struct resim_thread_state *t, const struct resim_thread_state *b,
			    const struct resim_thread_state *s0)
{
	t->cache_misses = b->cache_misses + t->cache_misses - s0->cache_misses;
	if (!s0->started && b->started) {
		/* It waited for its checkpoint at the range's start (pass_cuts.h)
		 * and has passed it: the flush there settled b's hits since its
		 * last miss, and the range counted from zero. */
		t->cache_hits = b->cache_hits + b->cache_hits_since_miss + t->cache_hits;
	} else {
		t->cache_hits = b->cache_hits + t->cache_hits - s0->cache_hits;
		t->cache_hits_since_miss =
			b->cache_hits_since_miss + t->cache_hits_since_miss - s0->cache_hits_since_miss;
	}
	if (t->slice_time == s0->slice_time && t->slice_icount == s0->slice_icount) {
		t->slice_time = b->slice_time;
		t->slice_icount = b->slice_icount;
	}
	if (!t->declared_end_known && b->declared_end_known) {
		t->declared_end = b->declared_end;
		t->declared_end_known = true;
	}
}

/* x, a state worker w saved, as the serial pass has it: its figures go
 * on from `before` (the serial state where the range starts), its image
 * is `image`; a thread that waits for its checkpoint there is before's
 * (pass_cuts.h). false when memory is short. */
static bool complete_state(struct resim_state *x, const struct pass_worker *w,
			   const struct resim_state *before, struct memory_image *image)
{
	const struct resim_state *start = &w->start_state;
	pass_join_counts(&x->counts, &before->counts, &x->counts, &start->counts);
	if (!x->transition_time)
		x->transition_time = before->transition_time;
	bool ok = true;
	for (size_t i = 0; i < x->n_threads; i++) {
		if (x->threads[i].started || !before->threads[i].started)
			complete_thread(&x->threads[i], &before->threads[i], &start->threads[i]);
		ok = ok && pass_cut_complete_thread(&x->threads[i], i, before, x);
	}
	memory_image_free(x->image);
	x->image = image;
	return ok;
}

/* The images of the join of one range: the serial image before it with
 * the range's forgets and zeroes applied as far as the log is applied
 * (base), and the last overlay's inputs and result. */
struct overlay_chain {
	struct memory_image *base;
	struct memory_image *prev_top, *prev_base, *prev_result; /* owned */
	size_t applied;  /* of the log */
};

static void chain_free(struct overlay_chain *c)
{
	memory_image_free(c->base);
	memory_image_free(c->prev_top);
	memory_image_free(c->prev_base);
	memory_image_free(c->prev_result);
	memset(c, 0, sizeof(*c));
}

/* The serial image at the time worker w's image `top` (taken when its
 * log was `mark` long) was: the log up to there applied, then the
 * overlay. Takes top. NULL when memory is short. */
static struct memory_image *complete_image(struct overlay_chain *c, struct pass_worker *w,
					   size_t mark, struct memory_image *top,
					   struct memory_image *future, uint64_t transition)
{
	pass_log_apply(&w->log, c->applied, mark, c->base, future, transition);
	c->applied = mark;
	struct memory_image_overlay_prev prev = { c->prev_top, c->prev_base, c->prev_result };
	struct memory_image *image = memory_image_overlay(c->base, top, c->prev_top ? &prev : NULL);
	struct memory_image *base_now = memory_image_snapshot(c->base);
	struct memory_image *kept = image ? memory_image_snapshot(image) : NULL;
	memory_image_free(c->prev_top);
	memory_image_free(c->prev_base);
	memory_image_free(c->prev_result);
	c->prev_top = top;
	c->prev_base = base_now;
	c->prev_result = kept;
	if (!image || !base_now || !kept) {
		memory_image_free(image);
		return NULL;
	}
	return image;
}

/*
 * The images of a range's snapshots that spilled ones are based on, kept
 * from when the join reaches them until the last snapshot based on them
 * is done: the range's own (before completion: the worker wrote a
 * spilled snapshot's image as the pages its base's image did not share)
 * and the completed one (what the session reads that snapshot's record
 * back on, once it adopts it spilled).
 */
struct range_bases {
	size_t *base_of;              /* kept index of snapshot i's base, SIZE_MAX: none */
	size_t *last_use;             /* the last snapshot based on i, SIZE_MAX: none */
	struct memory_image **image;  /* the range's, of the bases reached, owned */
	struct memory_image **done;   /* completed, of the bases reached, owned */
	size_t n;
};

static void bases_free(struct range_bases *b)
{
	for (size_t i = 0; i < b->n; i++) {
		if (b->image)
			memory_image_free(b->image[i]);
		if (b->done)
			memory_image_free(b->done[i]);
	}
	free(b->base_of);
	free(b->last_use);
	free(b->image);
	free(b->done);
	memset(b, 0, sizeof(*b));
}

/* b for worker w's snapshots. false when memory is short, or a spilled
 * snapshot's base is not an earlier one of the range. */
static bool bases_make(struct range_bases *b, const struct pass_worker *w)
{
	size_t n = w->n_kept;
	*b = (struct range_bases){ .n = n };
	b->base_of = malloc((n + 1) * sizeof(*b->base_of));
	b->last_use = malloc((n + 1) * sizeof(*b->last_use));
	b->image = calloc(n + 1, sizeof(*b->image));
	b->done = calloc(n + 1, sizeof(*b->done));
	if (!b->base_of || !b->last_use || !b->image || !b->done)
		return false;
	for (size_t i = 0; i < n; i++)
		b->base_of[i] = b->last_use[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		if (!w->kept[i].spilled)
			continue;
		for (size_t j = 0; j < i && b->base_of[i] == SIZE_MAX; j++)
			if (w->kept[j].icount == w->kept[i].spill_base)
				b->base_of[i] = j;
		if (b->base_of[i] == SIZE_MAX)
			return false;
		b->last_use[b->base_of[i]] = i;
	}
	return true;
}

/* Snapshot i done: its base's images go when it was the last one based
 * on them. */
static void bases_release(struct range_bases *b, size_t i)
{
	size_t j = b->base_of[i];
	if (j != SIZE_MAX && b->last_use[j] == i) {
		memory_image_free(b->image[j]);
		memory_image_free(b->done[j]);
		b->image[j] = b->done[j] = NULL;
	}
}

/* Snapshot i of w in memory, read back when it was spilled (its record
 * the next that ra read, NULL: read here); its own image kept when a
 * later one is based on it. NULL, or why not. */
static const char *range_snapshot(struct replay_session *s, struct pass_worker *w,
				  struct range_bases *b, struct spill_read_ahead *ra, size_t i)
{
	struct replay_snapshot *snap = &w->kept[i];
	if (snap->spilled) {
		struct memory_image *base = b->image[b->base_of[i]];
		struct resim_state st;
		size_t len = 0;
		uint8_t *record = ra ? spill_read_ahead_take(ra, &len)
				     : snapshot_spill_read(w->spill, &snap->spill, &len);
		if (!base)
			free(record);
		if (!base || snapshot_spill_decode(record, len, base, &st) != 0)
			return "cannot read a range's snapshot back from its spill file";
		snap->state = st; /* spilled, it held only its time and counts */
		snap->spilled = false;
		memset(&snap->spill, 0, sizeof(snap->spill));
		snap->spill_base = 0;
		s->summary.range_snapshots_spilled++;
	}
	if (b->last_use[i] != SIZE_MAX && !(b->image[i] = memory_image_snapshot(snap->state.image)))
		return "out of memory for snapshots";
	return NULL;
}

/* w's spilled snapshots' records read ahead in their order on a thread
 * of their own, *refs their places (to free after closing it). NULL when
 * none are, or they are read on the join's thread. */
static struct spill_read_ahead *read_ahead(const struct pass_worker *w, struct spill_ref **refs)
{
	size_t n = 0;
	*refs = malloc((w->n_kept + 1) * sizeof(**refs));
	for (size_t i = 0; *refs && i < w->n_kept; i++)
		if (w->kept[i].spilled)
			(*refs)[n++] = w->kept[i].spill;
	return n ? spill_read_ahead_start(w->spill, *refs, n, READ_AHEAD_RECORDS) : NULL;
}

/*
 * snap, completed, which worker w had spilled as record `rec` based on
 * its snapshot at time base_time, joins the session spilled: the record
 * copied as it is into the session's spill file, and a patch that turns
 * what it reads back to on the completed base (u) into snap's state. No
 * image is compressed again but the patch's pages (those the range did
 * not know whole). false, snap unchanged, when it cannot (no spill file,
 * memory, the disk): it then joins in memory.
 */
static bool adopt_spilled(struct replay_session *s, struct pass_worker *w,
			  struct replay_snapshot *snap, const struct spill_ref *rec,
			  uint64_t base_time, const struct spill_under *u)
{
	if (!u->base || !u->top || !u->top_base || s->spill_failed)
		return false;
	replay_session_spill_reap(s, true); /* the file is this function's */
	if (!s->spill && !(s->spill = replay_spill_open())) {
		s->spill_failed = true;
		return false;
	}
	struct spill_ref patch, copy;
	if (snapshot_spill_put_patch(s->spill, &snap->state, u, &patch) != 0 ||
	    snapshot_spill_copy(s->spill, w->spill, rec, &copy) != 0)
		return false;
	uint64_t time = snap->state.time;
	struct resim_counts counts = snap->state.counts;
	resim_state_free(&snap->state);
	snap->state.time = time;
	snap->state.counts = counts; /* segment_may_have_events reads them */
	snap->spilled = true;
	snap->spill = copy;
	snap->spill_patch = patch;
	snap->spill_base = base_time;
	s->summary.range_snapshots_adopted++;
	return true;
}

/*
 * Joins range w (after `before`, the serial state where it starts, which
 * becomes the serial state where it ends when it reached its end): its
 * lead summaries into the session's last snapshot, its snapshots
 * completed after it (those its worker spilled read back first, and
 * adopted spilled). 0, or -1 (s->error).
 */
static int join_range(struct replay_session *s, struct pass_worker *w, struct resim_state *before)
{
	if (!segment_summary_join(&s->snapshots[s->n_snapshots - 1], &w->lead))
		s->summary_incomplete = true;
	if (w->summary_incomplete || w->sim.proc.written_incomplete || w->sim.proc.read_incomplete)
		s->summary_incomplete = true;
	const char *why = NULL;
	struct overlay_chain c = { .base = memory_image_snapshot(before->image) };
	struct range_bases b;
	struct spill_ref *refs = NULL;
	struct spill_read_ahead *ra = NULL;
	if (!bases_make(&b, w) || !c.base)
		goto fail;
	ra = read_ahead(w, &refs);
	for (size_t i = 0; i < w->n_kept; i++) {
		struct replay_snapshot *snap = &w->kept[i];
		bool spilled = snap->spilled;
		struct spill_ref rec = snap->spill;
		uint64_t base_time = snap->spill_base;
		if ((why = range_snapshot(s, w, &b, ra, i)) != NULL)
			goto fail;
		struct memory_image *top = snap->state.image; /* c's prev_top from here */
		struct memory_image *image = complete_image(&c, w, w->log_marks[i], top, s->future,
							    before->transition_time);
		snap->state.image = NULL;
		if (!image)
			goto fail;
		if (!complete_state(&snap->state, w, before, image))
			goto fail;
		if (b.last_use[i] != SIZE_MAX && !(b.done[i] = memory_image_snapshot(image)))
			goto fail;
		if (spilled) {
			size_t j = b.base_of[i];
			struct spill_under u = { b.done[j], top, b.image[j] };
			adopt_spilled(s, w, snap, &rec, base_time, &u);
		}
		bases_release(&b, i);
		if (replay_session_add_snapshot(s, snap) != 0)
			goto fail;
		memset(snap, 0, sizeof(*snap)); /* the session's now */
	}
	if (w->status == RESIM_AT_TARGET && w->end != UINT64_MAX) {
		struct memory_image *image = complete_image(&c, w, w->log.len, w->end_state.image,
							    s->future, before->transition_time);
		w->end_state.image = NULL;
		if (!image)
			goto fail;
		if (!complete_state(&w->end_state, w, before, image))
			goto fail;
		resim_state_free(before);
		*before = w->end_state;
		memset(&w->end_state, 0, sizeof(w->end_state));
	} else {
		pass_log_apply(&w->log, c.applied, w->log.len, c.base, s->future,
			       before->transition_time);
	}
	spill_read_ahead_close(ra);
	free(refs);
	chain_free(&c);
	bases_free(&b);
	return 0;
fail:
	spill_read_ahead_close(ra);
	free(refs);
	chain_free(&c);
	bases_free(&b);
	snprintf(s->error, sizeof(s->error), "%s: %s", s->path,
		 why ? why : "out of memory for snapshots");
	return -1;
}

/* Why range w's work cannot be joined (it did not start as the table
 * said, or stopped before its end, or history's end, or the replay's
 * failure), or NULL. */
static const char *unjoinable(const struct pass_worker *w)
{
	if (w->bad_start)
		return "a range could not start at its checkpoint";
	if (w->stopped || w->log.failed)
		return "out of memory for the ranges' snapshots";
	return NULL;
}

/* Whether a range stopped for the budget, with no spill file to keep
 * its snapshots in (the others then stopped too). */
static bool past_budget(const struct pass_worker *w, size_t n)
{
	for (size_t k = 1; k < n; k++)
		if (w[k].out_of_budget)
			return true;
	return false;
}

/* The ranges replayed, the session's pass at the first one's end: their
 * work joined in history order, up to the first that did not reach its
 * end. 1, -1 (s->error), or 0 with s->summary.serial_reason when it
 * cannot be (nothing joined then). */
static int join(struct replay_session *s, struct pass_worker *w, size_t n)
{
	if (past_budget(w, n)) {
		s->summary.serial_reason =
			"the ranges' snapshots would pass the snapshot memory budget (no spill file)";
		return 0;
	}
	size_t last = 1;
	for (;; last++) {
		const char *why = unjoinable(&w[last]);
		if (why) {
			s->summary.serial_reason = why;
			return 0;
		}
		if (last == n - 1 || w[last].status != RESIM_AT_TARGET)
			break;
	}
	struct resim_state before;
	if (resim_save(&s->sim, &before) != 0) {
		s->summary.serial_reason = "out of memory for the ranges' snapshots";
		return 0;
	}
	for (size_t k = 1; k <= last && w[k].check_cut; k++) {
		const char *why = k > 1 && resim_cut_pending(&w[k - 1].sim)
					  ? "a range ended before its threads' checkpoints"
					  : pass_cut_mismatch(k == 1 ? &before : &w[k - 1].end_state,
							      &w[k].start_state);
		if (why) {
			resim_state_free(&before);
			s->summary.serial_reason = why;
			return 0;
		}
	}
	int rc = 0;
	for (size_t k = 1; k <= last && rc == 0; k++)
		rc = join_range(s, &w[k], &before);
	struct resim_counts counts;
	pass_join_counts(&counts, &before.counts, &w[last].sim.counts, &w[last].base);
	resim_state_free(&before);
	if (rc != 0)
		return -1; /* s->error says why */
	s->summary.ranges = (unsigned)n;
	return replay_session_summarise_replay(s, &w[last].sim, &counts, w[last].status) == 0 ? 1
											      : -1;
}

static double thread_cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec + t.tv_nsec * 1e-9;
}

/* Replays range 0 (the session's pass, to w[0].end) while the others run.
 * 1 when it reached that end as planned, 0 when not (the pass was
 * interrupted, or thinned its snapshots: the others' times are no longer
 * the pass's), -1 when the history ended or failed in it: *st says how. */
static int run_first_range(struct replay_session *s, struct pass_worker *w, enum resim_status *st)
{
	uint64_t interval = s->snapshot_interval;
	double t0 = thread_cpu_seconds();
	*st = replay_session_run_pass(s, SIZE_MAX, w[0].end);
	w[0].cpu_seconds = thread_cpu_seconds() - t0;
	if (*st != RESIM_AT_TARGET)
		return -1;
	if (s->pass_was_interrupted || resim_now(&s->sim) != w[0].end)
		return 0;
	if (s->snapshot_interval != interval) {
		s->summary.serial_reason = "the snapshots were thinned (no spill file)";
		return 0;
	}
	return 1;
}

int pass_join_session(struct replay_session *s, unsigned jobs)
{
	const char *why = cannot_cut(s);
	if (why) {
		s->summary.serial_reason = why;
		return 0;
	}
	uint64_t from = resim_now(&s->sim);
	size_t *starts = calloc(idna_reader_checkpoint_count(s->reader) + 1, sizeof(*starts));
	struct pass_worker *w = calloc(jobs, sizeof(*w));
	pthread_t *tids = calloc(jobs, sizeof(*tids));
	atomic_bool stop = false;
	int rc = 0;
	if (!starts || !w || !tids) {
		s->summary.serial_reason = "out of memory";
		goto out;
	}
	size_t n_starts = pass_range_starts(s, from, starts);
	size_t n = n_starts + 1 < jobs ? n_starts + 1 : jobs;
	if (n < 2) {
		s->summary.serial_reason = s->sim.n_threads > 1
						   ? PASS_NO_THREAD_CUT
						   : "too few checkpoints left to cut the history at";
		goto out;
	}
	pass_plan(s, w, n, starts, n_starts, from, from, s->snapshot_interval);
	for (size_t k = 1; k < n; k++) {
		w[k].keep = true;
		w[k].budget = s->snapshot_budget;
		w[k].stop = &stop;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double seconds = s->summary.seconds; /* the main range's adds to it */
	size_t started = pass_workers_start(w, tids, 1, n);
	enum resim_status st;
	int first = run_first_range(s, w, &st);
	if (first != 1)
		atomic_store(&stop, true);
	pass_workers_wait(w, tids, 1, n, started);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	for (size_t k = 0; k < n; k++)
		if (w[k].cpu_seconds > s->summary.longest_range_seconds)
			s->summary.longest_range_seconds = w[k].cpu_seconds;
	if (first < 0) /* the history ended, or the replay failed, in range 0 */
		rc = replay_session_summarise_history(s, st) == 0 ? 1 : -1;
	else if (first == 1)
		rc = join(s, w, n);
	if (rc != 0) {
		/* The pass's time: all ranges', the main one's included. */
		s->summary.seconds = seconds + (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
		s->summary.serial_reason = NULL;
	}
	for (size_t k = 0; k < n; k++)
		pass_worker_free(&w[k]);
out:
	free(starts);
	free(w);
	free(tids);
	return rc;
}
