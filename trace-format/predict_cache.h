/*
 * predict_cache.h — the prediction cache (man/idna.5, "PREDICTION CACHE"):
 * one piece of code for the recorder, which asks whether a read hit, and
 * the replayer, which asks what a read returns. Both sides must make the
 * same calls in the same order; then they agree bit for bit.
 */
#ifndef TTREC_IDNA_PREDICT_CACHE_H
#define TTREC_IDNA_PREDICT_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PREDICT_CACHE_LINE 8         /* bytes per entry */
#define PREDICT_CACHE_MIN_LOG2 4
#define PREDICT_CACHE_MAX_LOG2 24
#define PREDICT_CACHE_DEFAULT_LOG2 17 /* 2^17 entries: 1 MiB per thread */

struct predict_cache {
	uint8_t *bytes; /* entries * PREDICT_CACHE_LINE, zeros at start and flush */
	unsigned log2_entries;
	uint64_t hits, misses;   /* cumulative, not reset by flush */
	uint64_t hits_since_miss; /* reset by a miss and by a flush */
};

/* Returns false (cache untouched) when log2_entries is out of range or
 * memory is short. */
bool predict_cache_init(struct predict_cache *pc, unsigned log2_entries);
void predict_cache_fini(struct predict_cache *pc);

/* Zeros every entry and the run of hits: what a checkpoint frame does. */
void predict_cache_flush(struct predict_cache *pc);

/* The value the cache predicts for n (1..64) bytes at addr. */
void predict_cache_predict(const struct predict_cache *pc, uint64_t addr, uint8_t *out, unsigned n);

/* A write (or a miss's value): the cache takes n bytes at addr, any n. */
void predict_cache_update(struct predict_cache *pc, uint64_t addr, const uint8_t *bytes, size_t n);

/* Record side: the program read n (1..64) bytes at addr. Returns true on
 * a hit. On a miss the cache takes the bytes and *hits_before receives
 * what the miss record must carry. */
bool predict_cache_record_read(struct predict_cache *pc, uint64_t addr, const uint8_t *bytes,
			       unsigned n, uint64_t *hits_before);

/* Replay side: the next miss the log holds for this stream. */
struct predict_miss {
	bool valid;           /* false: no miss loaded (end of log) */
	uint64_t hits_before; /* hits still to come before it */
	const uint8_t *value;
	uint32_t len;
};

/*
 * Replay side: the program reads n bytes at addr; the value goes to out.
 * Returns 0 for a predicted read, 1 when this read was next's miss (next
 * is consumed: load the following miss record), -1 when the log and the
 * reads disagree (the miss has a different size).
 */
int predict_cache_replay_read(struct predict_cache *pc, uint64_t addr, uint8_t *out, unsigned n,
			      struct predict_miss *next);

#endif
