/*
 * replay_index_pool.h — compresses a replay index's frames on a few
 * threads (ttreplay --jobs of them) and hands them back in the order
 * they were given, so that the file is the same as one written on one
 * core. Each frame is a zstd frame of its own (man/ttreplay-index.5), so
 * they compress independently; with one job they compress on the
 * caller's thread.
 */
#ifndef TTREC_REPLAY_INDEX_POOL_H
#define TTREC_REPLAY_INDEX_POOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replayer/replay_index_stream.h"

struct index_pool;

/* NULL when memory or threads are short. */
struct index_pool *index_pool_open(unsigned jobs);
/* Whether a frame must be taken before the next is given (the frames in
 * flight hold their payloads in memory: at most jobs + 1). */
bool index_pool_full(const struct index_pool *p);
/* Whether frames given are not yet taken. */
bool index_pool_pending(const struct index_pool *p);
/* Gives a payload (the pool frees it). Not when full. */
void index_pool_give(struct index_pool *p, uint8_t *raw, size_t n);
/* The oldest frame given and not taken, once compressed (waits). 0, or
 * -1 (its compression failed; z holds nothing). Not unless pending. */
int index_pool_take(struct index_pool *p, struct index_frame *z);
/* Frees frames not taken, after their compression ends. */
void index_pool_close(struct index_pool *p);

#endif
