/*
 * pass_digest.h — checksums of what a first pass made: each snapshot's
 * whole state (times, figures, registers, stream positions, prediction
 * cache, logged code pages, memory image) with its segment summaries,
 * and the future image. Two passes over one trace that made the same
 * print the same (monitor snapshot-digests): how the pass on several
 * cores (pass_join.h) is checked against the serial one.
 */
#ifndef TTREC_PASS_DIGEST_H
#define TTREC_PASS_DIGEST_H

#include <stdbool.h>
#include <stdint.h>

#include "replayer/replay_session.h"

/* Snapshot k's checksum (spilled ones read back). false with s->error. */
bool pass_digest_snapshot(struct replay_session *s, size_t k, uint64_t *out);
/* What a replay started in the middle of history must have at its start
 * to go on as the whole replay from there (pass_cuts.h): thread i's
 * registers, count, state, stream positions and prediction cache, or with
 * i SIZE_MAX the time, the running thread and the logged code pages; not
 * the figures counted so far, the memory image or where slices began. */
uint64_t pass_digest_cut(const struct resim_state *st, size_t i);
/* A memory image's, whatever the order its pages are held in. */
uint64_t pass_digest_image(const struct memory_image *m);

#endif
