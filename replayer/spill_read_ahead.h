/*
 * spill_read_ahead.h — records of a spill file (snapshot_spill.h) read
 * and decompressed on a thread of their own, a few ahead of their use, in
 * the order listed: the join of a range (pass_join.c) decodes and
 * completes its spilled snapshots on the session's thread while the next
 * ones are read on a core the finished ranges left idle. The thread only
 * reads the file and makes buffers of its own: it shares no image.
 */
#ifndef TTREC_SPILL_READ_AHEAD_H
#define TTREC_SPILL_READ_AHEAD_H

#include "replayer/snapshot_spill.h"

struct spill_read_ahead;

/* Starts reading refs[0..n) of f, at most `window` records ahead of the
 * last taken (refs and f stay the caller's, f unwritten, until close).
 * NULL when memory or a thread is short: the caller reads them itself. */
struct spill_read_ahead *spill_read_ahead_start(struct snapshot_spill *f,
						const struct spill_ref *refs, size_t n,
						size_t window);
/* The next record (refs[0], then refs[1], ...), waiting for it: as
 * snapshot_spill_read gives it (for snapshot_spill_decode). NULL when it
 * could not be read, or all n were taken. */
uint8_t *spill_read_ahead_take(struct spill_read_ahead *r, size_t *len);
/* Stops the thread; frees the records not taken. NULL: nothing. */
void spill_read_ahead_close(struct spill_read_ahead *r);

#endif
