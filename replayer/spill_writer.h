/*
 * spill_writer.h — snapshots written to a spill file (snapshot_spill.h) on
 * a thread of their own while the first pass goes on. Compressing and
 * writing a record took a fifth to a quarter of a serial pass over a
 * program that rewrites much memory (xz, sort: BENCHMARKS.md), on one core
 * while the other waited.
 *
 * The writer reads a queued state and its base image while the caller
 * replays: what they point to (images, their pages, caches, code-page
 * sets) must stay alive and unchanged, and the base image must not be
 * looked up by the caller (a lookup updates its cache of recent pages),
 * until the job is reaped. The file must not be used by anyone else until
 * every job is reaped. Jobs are written in the order queued.
 */
#ifndef TTREC_SPILL_WRITER_H
#define TTREC_SPILL_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replayer/snapshot_spill.h"

struct spill_writer;

/* A writer appending to f. NULL when no thread can be started (the caller
 * writes itself then). */
struct spill_writer *spill_writer_start(struct snapshot_spill *f);
/* Writes the jobs still queued (what became of them is not told: reap
 * them first to know), then ends the thread. */
void spill_writer_stop(struct spill_writer *w);

/* Queues st (copied shallowly) to be written on base, as
 * snapshot_spill_put does; tag names it when reaped. 0, or -1 when out of
 * memory. After a job fails (a full disk, say), the ones queued after it
 * fail too without being tried. */
int spill_writer_queue(struct spill_writer *w, const struct resim_state *st,
		       const struct memory_image *base, uint64_t tag);

/* Each job finished since the last reap, in the order queued:
 * done(ctx, tag, ref), ref NULL when the job failed (its state was not
 * written: it stays the caller's to keep). With wait, every job queued is
 * waited for first. Returns how many jobs are still queued. */
typedef void spill_writer_done_fn(void *ctx, uint64_t tag, const struct spill_ref *ref);
size_t spill_writer_reap(struct spill_writer *w, bool wait, spill_writer_done_fn *done, void *ctx);

#endif
