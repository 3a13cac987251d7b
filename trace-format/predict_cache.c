/*
 * predict_cache.c — the tag-less direct-mapped cache. Byte address a lives
 * in entry (a >> 3) modulo the entries, at lane a & 7: translated code
 * finds it with one `and` of the address (format 1.6). Traces of format
 * 1.5 hashed 64-byte blocks, a in entry 8 * H(a >> 6) + ((a >> 3) & 7),
 * H(x) = (x * 0x9E3779B97F4A7C15) >> (64 - log2_entries + 3), spreading
 * addresses equal modulo a power of two over different entries; the
 * recordings of the benchmarks miss no more without it, and its eight
 * host instructions per access cost a tenth of the recording's time
 * (BENCHMARKS.md). Format 1.4 and older hashed each 8-byte line alone
 * (group_log2 0). An access crossing an 8-byte boundary touches two or more
 * entries, each handled the same way. This file has the general forms;
 * predict_cache.h the inline fast paths for accesses within one entry,
 * which must agree with them byte for byte.
 */
#include "trace-format/predict_cache.h"

#include <stdlib.h>
#include <string.h>

bool predict_cache_init(struct predict_cache *pc, unsigned log2_entries)
{
	if (log2_entries < PREDICT_CACHE_MIN_LOG2 || log2_entries > PREDICT_CACHE_MAX_LOG2)
		return false;
	/* calloc, not an aligned allocation: its pages stay uncommitted
	 * until used (predict_cache_flush keeps them so). */
	uint8_t *allocation = calloc(((size_t)1 << log2_entries) * PREDICT_CACHE_LINE + 64, 1);
	if (!allocation)
		return false;
	memset(pc, 0, sizeof(*pc));
	pc->allocation = allocation;
	pc->bytes = allocation + (-(uintptr_t)allocation & 63);
	pc->log2_entries = log2_entries;
	pc->group_log2 = log2_entries; /* direct-mapped */
	return true;
}

bool predict_cache_set_line_log2(struct predict_cache *pc, unsigned cache_log2_line)
{
	if (!predict_cache_line_log2_known(pc->log2_entries, cache_log2_line))
		return false;
	pc->group_log2 = cache_log2_line - 3;
	return true;
}

void predict_cache_fini(struct predict_cache *pc)
{
	free(pc->allocation);
	pc->allocation = NULL;
	pc->bytes = NULL;
}

/* Whether len bytes (a multiple of 8, 8-aligned) are all zeros. */
static bool block_is_zero(const uint8_t *p, size_t len)
{
	const uint64_t *w = (const uint64_t *)(const void *)p;
	uint64_t any = 0;
	for (size_t i = 0; i < len / 8; i++)
		any |= w[i];
	return any == 0;
}

void predict_cache_zero(struct predict_cache *pc)
{
	/* Only blocks that hold something are cleared: a large cache whose
	 * lines were never filled stays uncommitted memory (reading pages
	 * never written commits nothing; clearing them would). */
	size_t size = ((size_t)1 << pc->log2_entries) * PREDICT_CACHE_LINE;
	size_t block = size < 4096 ? size : 4096;
	for (size_t at = 0; at < size; at += block)
		if (!block_is_zero(pc->bytes + at, block))
			memset(pc->bytes + at, 0, block);
}

void predict_cache_flush(struct predict_cache *pc)
{
	predict_cache_zero(pc);
	predict_cache_end_run(pc);
}

/* The piece of an access at a that lies in one entry: its slot, and
 * its length (at most `left`, never past the entry's end). */
static inline size_t piece_at(const struct predict_cache *pc, uint64_t a, size_t left, uint8_t **slot)
{
	size_t len = PREDICT_CACHE_LINE - (a & 7);
	*slot = pc->bytes + predict_cache_entry_offset(pc, a >> 3) + (a & 7);
	return len < left ? len : left;
}

void predict_cache_predict(const struct predict_cache *pc, uint64_t addr, uint8_t *out, unsigned n)
{
	uint8_t *slot;
	if ((addr & 7) + n <= PREDICT_CACHE_LINE) {
		/* One entry (nearly every read replay makes): a sized copy. */
		slot = pc->bytes + predict_cache_entry_offset(pc, addr >> 3) + (addr & 7);
		switch (n) {
		case 1: out[0] = slot[0]; return;
		case 2: memcpy(out, slot, 2); return;
		case 4: memcpy(out, slot, 4); return;
		case 8: memcpy(out, slot, 8); return;
		default: break;
		}
	}
	for (size_t done = 0, len; done < n; done += len) {
		len = piece_at(pc, addr + done, n - done, &slot);
		memcpy(out + done, slot, len);
	}
}

void predict_cache_update_any(struct predict_cache *pc, uint64_t addr, const uint8_t *bytes, size_t n)
{
	uint8_t *slot;
	for (size_t done = 0, len; done < n; done += len) {
		len = piece_at(pc, addr + done, n - done, &slot);
		memcpy(slot, bytes + done, len);
	}
}

static bool matches(const struct predict_cache *pc, uint64_t addr, const uint8_t *bytes, unsigned n)
{
	uint8_t *slot;
	for (size_t done = 0, len; done < n; done += len) {
		len = piece_at(pc, addr + done, n - done, &slot);
		if (len == PREDICT_CACHE_LINE) {
			/* Whole entries (vector reads): one compare, no call. */
			uint64_t have, want;
			memcpy(&have, slot, 8);
			memcpy(&want, bytes + done, 8);
			if (have != want)
				return false;
		} else if (memcmp(slot, bytes + done, len) != 0) {
			return false;
		}
	}
	return true;
}

bool predict_cache_record_read_any(struct predict_cache *pc, uint64_t addr, const uint8_t *bytes,
				   unsigned n, uint64_t *hits_before)
{
	if (matches(pc, addr, bytes, n)) {
		pc->hits_since_miss++;
		return true;
	}
	predict_cache_update_any(pc, addr, bytes, n);
	*hits_before = predict_cache_end_run(pc);
	pc->misses++;
	return false;
}

/* The integer forms reach here only for accesses crossing an entry: the
 * value goes through memory once, on this rare path. */
void predict_cache_update_uint_any(struct predict_cache *pc, uint64_t addr, uint64_t value,
				   unsigned n)
{
	uint8_t bytes[8];
	memcpy(bytes, &value, sizeof(bytes)); /* little-endian host */
	predict_cache_update_any(pc, addr, bytes, n);
}

bool predict_cache_record_read_uint_any(struct predict_cache *pc, uint64_t addr, uint64_t value,
					unsigned n, uint64_t *hits_before)
{
	uint8_t bytes[8];
	memcpy(bytes, &value, sizeof(bytes));
	return predict_cache_record_read_any(pc, addr, bytes, n, hits_before);
}

int predict_cache_replay_read(struct predict_cache *pc, uint64_t addr, uint8_t *out, unsigned n,
			      struct predict_miss *next)
{
	if (next->valid && next->hits_before == 0) {
		if (next->len != n)
			return -1;
		memcpy(out, next->value, n);
		predict_cache_update(pc, addr, out, n);
		next->valid = false;
		predict_cache_end_run(pc);
		pc->misses++;
		return 1;
	}
	predict_cache_predict(pc, addr, out, n);
	if (next->valid)
		next->hits_before--;
	pc->hits_since_miss++;
	return 0;
}
