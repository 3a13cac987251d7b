/*
 * replay_session_spill.c — the first pass's snapshots beyond the memory
 * budget, kept in a spill file (snapshot_spill.h) instead of dropped.
 *
 * Whenever the replay's heap passes the budget, every other snapshot kept
 * in memory (never the first nor the last) goes to the file, written as
 * the pages it does not share with the one kept before it (its base), and
 * what stays in memory is its time, counts and segment summaries: going
 * back still starts at most one snapshot interval before the target, and
 * backward searches still skip segments by their summaries. Reading one
 * back reads its base first when that went to the file too (a chain, one
 * link per round of spilling since); a range's snapshot the join adopted
 * spilled has a patch applied after its record (pass_join.c). Only when
 * no spill file can be made does the session thin its snapshots instead
 * (replay_session.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/replay_index.h"
#include "replayer/replay_session.h"
#include "replayer/segment_summary.h"
#include "replayer/snapshot_spill.h"
#include "replayer/spill_writer.h"

/* Spilling stops when fewer snapshots than this stay in memory. */
#define MIN_IN_MEMORY 8

struct snapshot_spill *replay_spill_open(void)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	char folder[4096];
	int n = -1;
	if (xdg && xdg[0] == '/')
		n = snprintf(folder, sizeof(folder), "%s/ttreplay", xdg);
	else if (home && home[0] == '/')
		n = snprintf(folder, sizeof(folder), "%s/.cache/ttreplay", home);
	struct snapshot_spill *f = NULL;
	if (n > 0 && (size_t)n < sizeof(folder))
		f = snapshot_spill_open(folder);
	return f ? f : snapshot_spill_open(NULL);
}

/* What stays in memory of a snapshot written to the spill file. */
static void keep_only_numbers(struct replay_snapshot *snap, uint64_t base_time,
			      const struct spill_ref *ref)
{
	uint64_t time = snap->state.time;
	struct resim_counts counts = snap->state.counts;
	resim_state_free(&snap->state);
	snap->state.time = time;
	snap->state.counts = counts; /* segment_may_have_events reads them */
	snap->spill_base = base_time;
	snap->spill = *ref;
	snap->spilled = true;
}

/*
 * One round: of the snapshots in memory, m0 (the first), m1, m2, ...,
 * the last, m1, m3, ... go, each based on the one before it, which stays:
 * go(ctx, k, b) for each, until it says no. Fewer than MIN_IN_MEMORY in
 * memory: none goes.
 */
static void spill_round(struct replay_snapshot *snaps, size_t n,
			bool (*go)(void *ctx, size_t k, size_t b), void *ctx)
{
	size_t in_memory = 0;
	for (size_t i = 0; i < n; i++)
		in_memory += !snaps[i].spilled;
	if (in_memory < MIN_IN_MEMORY)
		return;
	size_t base = 0, seen = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		if (snaps[i].spilled)
			continue;
		if (++seen % 2 == 0) {
			base = i;
			continue;
		}
		if (!go(ctx, i, base))
			return;
	}
}

struct spill_now {
	struct snapshot_spill *f;
	struct replay_snapshot *snaps;
};

/* snaps[k] written now, on snaps[b]. */
static bool spill_one(void *ctx, size_t k, size_t b)
{
	struct spill_now *now = ctx;
	struct replay_snapshot *snap = &now->snaps[k];
	struct spill_ref ref;
	if (snapshot_spill_put(now->f, &snap->state, now->snaps[b].state.image, &ref) != 0)
		/* The disk is full, say: what went stays readable, the rest
		 * stays in memory, over the budget, and no snapshot may be
		 * thinned away from under a spilled one's base. */
		return false;
	keep_only_numbers(snap, now->snaps[b].icount, &ref);
	return true;
}

void replay_snapshots_spill_half(struct snapshot_spill *f, struct replay_snapshot *snaps, size_t n)
{
	struct spill_now now = { f, snaps };
	spill_round(snaps, n, spill_one, &now);
}

/* snaps[k] queued for the writer thread, on snaps[b]; it stays in memory
 * until reaped (spill_writer.h: neither it nor its base changes before). */
static bool queue_one(void *ctx, size_t k, size_t b)
{
	struct replay_session *s = ctx;
	struct replay_snapshot *snap = &s->snapshots[k];
	if (spill_writer_queue(s->spill_writer, &snap->state, s->snapshots[b].state.image,
			       snap->icount) != 0)
		return false;
	snap->spill_base = s->snapshots[b].icount;
	return true;
}

/* A job of the writer finished: its snapshot (found by time) now keeps
 * only its numbers, or, when it could not be written, stays whole. */
static void spilled_by_writer(void *ctx, uint64_t time, const struct spill_ref *ref)
{
	struct replay_session *s = ctx;
	size_t k = replay_session_snapshot_for(s, time);
	if (k >= s->n_snapshots || s->snapshots[k].icount != time || s->snapshots[k].spilled)
		return; /* (not reached: the array keeps its order while jobs run) */
	struct replay_snapshot *snap = &s->snapshots[k];
	if (ref)
		keep_only_numbers(snap, snap->spill_base, ref);
	else
		snap->spill_base = 0;
}

size_t replay_session_spill_reap(struct replay_session *s, bool wait)
{
	return s->spill_writer ? spill_writer_reap(s->spill_writer, wait, spilled_by_writer, s) : 0;
}

/* While a round is being written the pass goes on; the next round waits
 * for it once the heap has grown past the budget by 1/IN_FLIGHT_SLACK of
 * it meanwhile, the resident size then staying within that much of the
 * budget. (The writer does not always keep up: at every 4 M instructions
 * a round of xz's spilled snapshots, large records on distant bases, took
 * longer than the pass took 32 more; not waiting, the pass of xz of 1 MB
 * peaked at 1 GB for a 512 MiB budget: BENCHMARKS.md.) */
#define IN_FLIGHT_SLACK 4

int replay_session_spill_some(struct replay_session *s, uint64_t in_use)
{
	if (s->spill_failed)
		return -1;
	if (!s->spill && !(s->spill = replay_spill_open())) {
		s->spill_failed = true;
		return -1;
	}
	if (!s->spill_writer)
		s->spill_writer = spill_writer_start(s->spill);
	if (!s->spill_writer) {
		replay_snapshots_spill_half(s->spill, s->snapshots, s->n_snapshots);
		return 0;
	}
	if (replay_session_spill_reap(s, false) > 0) {
		if (in_use <= s->snapshot_budget + s->snapshot_budget / IN_FLIGHT_SLACK)
			return 0;
		replay_session_spill_reap(s, true);
	}
	spill_round(s->snapshots, s->n_snapshots, queue_one, s);
	return 0;
}

const struct resim_state *replay_session_snapshot_state(struct replay_session *s, size_t k,
							struct resim_state *tmp)
{
	replay_session_spill_reap(s, true);
	if (s->snapshots[k].indexed)
		return replay_session_indexed_state(s, k);
	if (!s->snapshots[k].spilled)
		return &s->snapshots[k].state;
	/* The chain down to a snapshot in memory, then read back up. */
	size_t depth = 0, *chain = malloc(s->n_snapshots * sizeof(*chain));
	if (!chain) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return NULL;
	}
	size_t j = k;
	while (s->snapshots[j].spilled && depth < s->n_snapshots) {
		chain[depth++] = j;
		size_t b = replay_session_snapshot_for(s, s->snapshots[j].spill_base);
		if (s->snapshots[b].icount != s->snapshots[j].spill_base || b >= j)
			break;
		j = b;
	}
	if (s->snapshots[j].spilled) {
		free(chain);
		snprintf(s->error, sizeof(s->error), "a spilled snapshot lost its base");
		return NULL;
	}
	const struct memory_image *base = s->snapshots[j].state.image;
	struct resim_state prev;
	bool have_prev = false;
	while (depth) {
		struct resim_state cur;
		const struct replay_snapshot *link = &s->snapshots[chain[--depth]];
		int rc = snapshot_spill_get(s->spill, &link->spill, base, &cur);
		if (rc == 0 && link->spill_patch.length &&
		    snapshot_spill_patch(s->spill, &link->spill_patch, &cur) != 0) {
			resim_state_free(&cur);
			rc = -1;
		}
		if (rc != 0) {
			if (have_prev)
				resim_state_free(&prev);
			free(chain);
			snprintf(s->error, sizeof(s->error), "cannot read a snapshot back from the spill file");
			return NULL;
		}
		/* cur's image shares prev's pages: prev can go. */
		if (have_prev)
			resim_state_free(&prev);
		prev = cur;
		have_prev = true;
		base = prev.image;
	}
	free(chain);
	*tmp = prev;
	return tmp;
}

void replay_session_spill_close(struct replay_session *s)
{
	replay_session_spill_reap(s, true);
	spill_writer_stop(s->spill_writer);
	s->spill_writer = NULL;
	snapshot_spill_close(s->spill);
	s->spill = NULL;
	s->spill_failed = false;
}

size_t replay_session_spilled_count(struct replay_session *s)
{
	replay_session_spill_reap(s, true);
	size_t n = 0;
	for (size_t i = 0; i < s->n_snapshots; i++)
		n += s->snapshots[i].spilled;
	return n;
}
