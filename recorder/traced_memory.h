/*
 * traced_memory.h — the memory the emulator sees while recording: the
 * memory mirror, with every read checked against the thread's prediction
 * cache (mispredictions logged as MISS records) and every page of code
 * logged (CODE_PAGE) the first time it is fetched after a checkpoint and
 * again after it is written.
 *
 * The replayer mirrors these rules exactly (replayer/README.md): the two
 * sides make the same prediction-cache calls and the same code-page
 * requests in the same order.
 */
#ifndef TTREC_TRACED_MEMORY_H
#define TTREC_TRACED_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "recorder/memory_mirror.h"
#include "trace-format/idna.h"
#include "trace-format/miss_cursor.h"
#include "trace-format/predict_cache.h"

struct code_page_set;

struct traced_memory {
	struct memory_mirror *mirror;
	struct idna_writer *writer;
	uint32_t stream;
	struct predict_cache cache;
	struct code_page_set *code_pages; /* the process's: shared by its threads */
	bool owns_code_pages;
	int failed;            /* the writer failed: stop recording */
	/* The stream's MISS records while its chunk has room (miss_cursor.h);
	 * one never aimed when there is no writer. */
	struct idna_miss_cursor *misses;
	uint64_t code_pages_logged;
	/* The common read's tables, for translated code (emu.h); filled
	 * each time the emulator asks, so the struct may move. */
	struct emu_inline_memory inline_reads;
};

/* Reads checked against the prediction cache, and how many of them missed
 * (each read is counted once by the cache, as a hit or a miss: the hot
 * path keeps no count of its own). */
static inline uint64_t traced_memory_reads(const struct traced_memory *tm)
{
	return predict_cache_hits(&tm->cache) + tm->cache.misses;
}

static inline uint64_t traced_memory_misses(const struct traced_memory *tm)
{
	return tm->cache.misses;
}

/* 0, or -1 when memory is short or the cache geometry is invalid. A
 * thread's memory shares the logged code pages with its sibling's (NULL:
 * the first thread, which owns them and must be finished last). */
int traced_memory_init(struct traced_memory *tm, struct memory_mirror *mirror,
		       struct idna_writer *writer, uint32_t stream,
		       unsigned cache_log2_entries, struct traced_memory *sibling);
void traced_memory_fini(struct traced_memory *tm);

/* The emulator's memory interface (ctx = struct traced_memory *). */
extern const struct emu_memory_ops traced_memory_ops;
/* The same without the tables for translated code, whose hash is that of
 * 64-byte blocks: for a trace whose cache hashes 8-byte lines alone. */
extern const struct emu_memory_ops traced_memory_ops_8_byte_lines;

/* Memory changed behind the emulator in [addr, addr+len) (len UINT64_MAX:
 * anywhere). Un-logs the code pages there, so they are logged again when
 * next fetched; returns true if there were any (the change must then be
 * logged, for replay to do the same). */
bool traced_memory_forget_code(struct traced_memory *tm, uint64_t addr, uint64_t len);

/* What a checkpoint frame resets: the prediction cache, and which code
 * pages have been logged. */
void traced_memory_checkpoint(struct traced_memory *tm);

#endif
