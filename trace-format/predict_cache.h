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
#include <string.h>

#define PREDICT_CACHE_LINE 8         /* bytes per entry */
#define PREDICT_CACHE_MIN_LOG2 4
#define PREDICT_CACHE_MAX_LOG2 24
#define PREDICT_CACHE_DEFAULT_LOG2 17 /* 2^17 entries: 1 MiB per thread */
/* 8 consecutive lines (64 bytes) have 8 consecutive entries: one host
 * cache line, so that neighbouring accesses find their entries at hand. */
#define PREDICT_CACHE_GROUP_LOG2 3

struct predict_cache {
	uint8_t *bytes; /* entries * PREDICT_CACHE_LINE, zeros at start and flush;
			 * 64-byte aligned, so a group of entries is one host cache line */
	void *allocation; /* what holds bytes (for free) */
	unsigned log2_entries;
	/* Lines hashed together (below): log2_entries (the whole cache one
	 * group: direct-mapped, format 1.6 and later), PREDICT_CACHE_GROUP_LOG2
	 * (format 1.5), or 0 (format 1.4 and older hashed each line alone). */
	unsigned group_log2;
	/* Hits are counted once, in hits_since_miss (the hot paths, inline
	 * ones in translated code too, make one increment); a miss or a flush
	 * moves that run into hits_settled. predict_cache_hits() is the sum. */
	uint64_t hits_settled, misses; /* cumulative, not reset by flush */
	uint64_t hits_since_miss;      /* reset by a miss and by a flush */
};

/* The reads that hit, cumulative. */
static inline uint64_t predict_cache_hits(const struct predict_cache *pc)
{
	return pc->hits_settled + pc->hits_since_miss;
}

/* A miss (or flush) ends the run of hits: returns its length. */
static inline uint64_t predict_cache_end_run(struct predict_cache *pc)
{
	uint64_t run = pc->hits_since_miss;
	pc->hits_settled += run;
	pc->hits_since_miss = 0;
	return run;
}

/* Returns false (cache untouched) when log2_entries is out of range or
 * memory is short. */
bool predict_cache_init(struct predict_cache *pc, unsigned log2_entries);
void predict_cache_fini(struct predict_cache *pc);

/* Zeros every entry and the run of hits: what a checkpoint frame does. */
void predict_cache_flush(struct predict_cache *pc);
/* Zeros the table (as at its start) without ending the run of hits:
 * only blocks not zero yet are written. */
void predict_cache_zero(struct predict_cache *pc);

/* The value the cache predicts for n (1..64) bytes at addr. */
void predict_cache_predict(const struct predict_cache *pc, uint64_t addr, uint8_t *out, unsigned n);

/* A write (or a miss's value): the cache takes n bytes at addr, any n. */
static inline void predict_cache_update(struct predict_cache *pc, uint64_t addr,
					const uint8_t *bytes, size_t n);

/* Record side: the program read n (1..64) bytes at addr. Returns true on
 * a hit. On a miss the cache takes the bytes and *hits_before receives
 * what the miss record must carry. */
static inline bool predict_cache_record_read(struct predict_cache *pc, uint64_t addr,
					     const uint8_t *bytes, unsigned n,
					     uint64_t *hits_before);

/* The general forms of the two above, for accesses the inline fast paths
 * do not take (crossing an entry, or of an odd size). */
void predict_cache_update_any(struct predict_cache *pc, uint64_t addr, const uint8_t *bytes, size_t n);
bool predict_cache_record_read_any(struct predict_cache *pc, uint64_t addr, const uint8_t *bytes,
				   unsigned n, uint64_t *hits_before);
/* The same with the n (1..8) bytes as a little-endian integer. */
void predict_cache_update_uint_any(struct predict_cache *pc, uint64_t addr, uint64_t value,
				   unsigned n);
bool predict_cache_record_read_uint_any(struct predict_cache *pc, uint64_t addr, uint64_t value,
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

/*
 * Fast paths. Nearly every access the emulator makes is 1, 2, 4 or 8 bytes
 * inside one 8-byte entry: such an access is one load of the entry, a
 * shift and a mask, with no call. The host is little-endian (x86-64), so
 * lane k of an entry is bits 8k..8k+7 of the entry read as a uint64_t.
 */

/* The hash of a line (man/idna.5): lines are hashed in groups of
 * 2^group_log2 consecutive ones, whose entries are consecutive too; a
 * group's first entry is 2^group_log2 times the top log2_entries -
 * group_log2 bits of group * PREDICT_CACHE_HASH_MULTIPLIER, and 0 when
 * the group is the whole cache: then line n's entry is n modulo the
 * entries, a direct-mapped cache. */
#define PREDICT_CACHE_HASH_MULTIPLIER 0x9E3779B97F4A7C15ull

/* Whether a trace header's cache_log2_line is one of the formats' for a
 * cache of 2^log2_entries entries: 3 (each line alone, 1.4), 3 +
 * PREDICT_CACHE_GROUP_LOG2 (64-byte blocks, 1.5) or 3 + log2_entries
 * (direct-mapped, 1.6). */
static inline bool predict_cache_line_log2_known(unsigned log2_entries, unsigned cache_log2_line)
{
	return cache_log2_line == 3 || cache_log2_line == 3 + PREDICT_CACHE_GROUP_LOG2 ||
	       cache_log2_line == 3 + log2_entries;
}

/* Sets pc's hash from a trace header's cache_log2_line (known as above).
 * False, pc unchanged, for any other value. */
bool predict_cache_set_line_log2(struct predict_cache *pc, unsigned cache_log2_line);

/* The 8 entries of a 64-byte block are consecutive (formats 1.5 and
 * later): the hashes translated code's inline accesses know. */
static inline bool predict_cache_blocks_consecutive(const struct predict_cache *pc)
{
	return pc->group_log2 >= PREDICT_CACHE_GROUP_LOG2;
}

/* A direct-mapped cache: line n's entry is n modulo the entries. */
static inline bool predict_cache_direct(const struct predict_cache *pc)
{
	return pc->group_log2 == pc->log2_entries;
}

/* Offset in pc->bytes of the entry holding the 8-byte line `line`. */
static inline size_t predict_cache_entry_offset(const struct predict_cache *pc, uint64_t line)
{
	unsigned g = pc->group_log2;
	uint64_t within = line & ((UINT64_C(1) << g) - 1);
	if (g == pc->log2_entries) /* the shift below would be by 64 */
		return (size_t)within * PREDICT_CACHE_LINE;
	uint64_t group = ((line >> g) * PREDICT_CACHE_HASH_MULTIPLIER) >> (64 - pc->log2_entries + g);
	return (size_t)((group << g) | within) * PREDICT_CACHE_LINE;
}

/* Whether an access of n bytes at addr lies in one entry and has a size
 * the fast paths load in one instruction; *value receives those bytes. */
static inline bool predict_cache_small(uint64_t addr, const uint8_t *bytes, size_t n,
				       uint64_t *value)
{
	if ((addr & 7) + n > PREDICT_CACHE_LINE)
		return false;
	switch (n) {
	case 1: *value = bytes[0]; return true;
	case 2: { uint16_t v; memcpy(&v, bytes, 2); *value = v; return true; }
	case 4: { uint32_t v; memcpy(&v, bytes, 4); *value = v; return true; }
	case 8: memcpy(value, bytes, 8); return true;
	default: return false;
	}
}

/* The lanes of n (1..8) bytes. */
static inline uint64_t predict_cache_lane_mask(size_t n)
{
	return ~0ull >> (64 - 8 * n);
}

/* The entry holding byte address addr. */
static inline uint8_t *predict_cache_slot(const struct predict_cache *pc, uint64_t addr)
{
	return pc->bytes + predict_cache_entry_offset(pc, addr >> 3);
}

/* The integer forms of update and record_read: `value` holds the n
 * (1..8) bytes little-endian, so a caller that has them in a register
 * never stores them to memory. update ignores the bits above the n bytes
 * (a byte store of a full register); the reads want them zero.
 * Accesses crossing an entry go out of line. */
static inline void predict_cache_update_uint(struct predict_cache *pc, uint64_t addr,
					     uint64_t value, unsigned n)
{
	if ((addr & 7) + n > PREDICT_CACHE_LINE) {
		predict_cache_update_uint_any(pc, addr, value, n);
		return;
	}
	uint8_t *slot = predict_cache_slot(pc, addr);
	if (n == PREDICT_CACHE_LINE) {
		/* A whole entry (most writes: pointers, counters): stored
		 * without first loading the entry, which is rarely in the
		 * CPU's L1 cache. */
		memcpy(slot, &value, 8);
		return;
	}
	unsigned shift = (unsigned)(addr & 7) * 8;
	uint64_t lanes = predict_cache_lane_mask(n), entry;
	memcpy(&entry, slot, 8);
	entry = (entry & ~(lanes << shift)) | ((value & lanes) << shift);
	memcpy(slot, &entry, 8);
}

/* Record side, the hit alone: true, the hit counted, when the read lies in
 * one entry and the cache predicted it; false, nothing changed, otherwise
 * (then predict_cache_record_read_uint must follow). For callers that
 * keep the common case free of calls. */
static inline bool predict_cache_try_hit_uint(struct predict_cache *pc, uint64_t addr,
					      uint64_t value, unsigned n)
{
	if ((addr & 7) + n > PREDICT_CACHE_LINE)
		return false;
	uint64_t entry;
	memcpy(&entry, predict_cache_slot(pc, addr), 8);
	if (((entry >> ((addr & 7) * 8)) & predict_cache_lane_mask(n)) != value)
		return false;
	pc->hits_since_miss++;
	return true;
}

/* Record side, a read in one entry that the caller found the cache did
 * not predict (translated code's inline probe): the miss taken, the
 * entry updated. Returns false, as predict_cache_record_read_uint for a
 * miss; a read across entries is looked at afresh. */
static inline bool predict_cache_record_miss_uint(struct predict_cache *pc, uint64_t addr,
						  uint64_t value, unsigned n,
						  uint64_t *hits_before)
{
	if ((addr & 7) + n > PREDICT_CACHE_LINE)
		return predict_cache_record_read_uint_any(pc, addr, value, n, hits_before);
	predict_cache_update_uint(pc, addr, value, n);
	*hits_before = predict_cache_end_run(pc);
	pc->misses++;
	return false;
}

static inline bool predict_cache_record_read_uint(struct predict_cache *pc, uint64_t addr,
						  uint64_t value, unsigned n,
						  uint64_t *hits_before)
{
	if (predict_cache_try_hit_uint(pc, addr, value, n))
		return true;
	return predict_cache_record_miss_uint(pc, addr, value, n, hits_before);
}

/* Whether n bytes at addr are whole entries (aligned vectors): then each
 * entry is one 8-byte load or store, with no call. */
static inline bool predict_cache_whole_entries(uint64_t addr, size_t n)
{
	return ((addr | n) & (PREDICT_CACHE_LINE - 1)) == 0 && n <= 64;
}

static inline void predict_cache_update(struct predict_cache *pc, uint64_t addr,
					const uint8_t *bytes, size_t n)
{
	uint64_t value;
	if (predict_cache_small(addr, bytes, n, &value)) {
		predict_cache_update_uint(pc, addr, value, (unsigned)n);
	} else if (predict_cache_whole_entries(addr, n)) {
		for (size_t i = 0; i < n; i += PREDICT_CACHE_LINE)
			memcpy(predict_cache_slot(pc, addr + i), bytes + i, PREDICT_CACHE_LINE);
	} else {
		predict_cache_update_any(pc, addr, bytes, n);
	}
}

/* Whether whole entries at addr hold the n bytes (the general form's
 * test, for predict_cache_whole_entries accesses). */
static inline bool predict_cache_entries_match(const struct predict_cache *pc, uint64_t addr,
					       const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i += PREDICT_CACHE_LINE)
		if (memcmp(predict_cache_slot(pc, addr + i), bytes + i, PREDICT_CACHE_LINE) != 0)
			return false;
	return true;
}

static inline bool predict_cache_record_read(struct predict_cache *pc, uint64_t addr,
					     const uint8_t *bytes, unsigned n,
					     uint64_t *hits_before)
{
	uint64_t value;
	if (predict_cache_small(addr, bytes, n, &value))
		return predict_cache_record_read_uint(pc, addr, value, n, hits_before);
	if (predict_cache_whole_entries(addr, n) && predict_cache_entries_match(pc, addr, bytes, n)) {
		pc->hits_since_miss++;
		return true;
	}
	return predict_cache_record_read_any(pc, addr, bytes, n, hits_before);
}

#endif
