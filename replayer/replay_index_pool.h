/*
 * replay_index_pool.h — makes a replay index's frames on a few threads
 * (ttreplay --jobs of them), gathering each one's payload and compressing
 * it, and hands them back in the order they were given, so that the file
 * is the same as one written on one core. Each frame is a zstd frame of
 * its own (man/ttreplay-index.5), so they are made independently; with
 * one job they are made on the caller's thread.
 */
#ifndef TTREC_REPLAY_INDEX_POOL_H
#define TTREC_REPLAY_INDEX_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replayer/replay_index_stream.h"

struct index_pool;

/* NULL when memory or threads are short. With several jobs, up to
 * `ahead` frames per thread are in flight: while one thread makes a frame
 * that costs as much as many others (a snapshot stored whole), the others
 * go on with the frames after it instead of waiting for it to be taken. */
struct index_pool *index_pool_open(unsigned jobs, unsigned ahead);
/* Whether a frame must be taken before the next is given (the frames in
 * flight hold their payloads, and what they read, in memory: at most
 * jobs * ahead + 1; 1 with one job). */
bool index_pool_full(const struct index_pool *p);
/* Whether frames given are not yet taken. */
bool index_pool_pending(const struct index_pool *p);
/* What gathers a frame's payload from the a and b it was given with:
 * 0 and the payload in *raw (malloc'd; the pool frees it) and *n, or -1.
 * It runs on one of the pool's threads, several at once on different
 * frames: it must only read what a and b lead to. */
typedef int (*index_payload_fn)(const void *a, const void *b, uint8_t **raw, size_t *n);
/* Gives a frame, its payload to gather with make(a, b): what a and b lead
 * to must stay as it is until the frame is taken. Not when full. */
void index_pool_give(struct index_pool *p, index_payload_fn make, const void *a, const void *b);
/* The oldest frame given and not taken, once made (waits). 0, or -1 (its
 * payload or its compression failed; z holds nothing). Not unless
 * pending. */
int index_pool_take(struct index_pool *p, struct index_frame *z);
/* Frees frames not taken, after their compression ends. */
void index_pool_close(struct index_pool *p);

#endif
