/*
 * replay_memory.h — the memory the emulator sees while replaying: the
 * replaying side of the rules in man/idna.5 that recorder/traced_memory.c
 * follows while recording. Reads take the prediction cache's value until
 * the log says a miss; fetches take code from CODE_PAGE records; every byte
 * read or written goes into the memory image the debugger is shown.
 */
#ifndef TTREC_REPLAY_MEMORY_H
#define TTREC_REPLAY_MEMORY_H

#include <stdbool.h>

#include "emulator/emu.h"
#include "replayer/memory_image.h"
#include "replayer/record_cursor.h"
#include "trace-format/code_page_set.h"
#include "trace-format/predict_cache.h"

/* Observes the memory accesses of the instruction being replayed (for
 * watchpoints). */
typedef void replay_access_fn(void *ctx, uint64_t addr, size_t len, bool write);

struct replay_memory {
	struct predict_cache cache;
	struct code_page_set *code_pages;
	struct memory_image *image;     /* owned */
	struct record_cursor cursor;    /* CURSOR_MEMORY */
	struct predict_miss next;
	bool next_loaded;
	bool diverged;
	char why[256];
	/* First pass only: first-read values go here (memory_image.h), valid
	 * from the last kernel transition, which resim keeps up to date. */
	struct memory_image *future;
	uint64_t transition_icount;
	replay_access_fn *on_access;
	void *access_ctx;
	/* Instruction fetches (decoding), for the first pass's summaries. */
	void (*on_fetch)(void *ctx, uint64_t addr, size_t len);
	void *fetch_ctx;
};

int replay_memory_init(struct replay_memory *m, unsigned cache_log2, struct memory_image *image);
void replay_memory_fini(struct replay_memory *m);

/* At a checkpoint: the cache and the logged code pages start empty, and the
 * memory records up to the checkpoint are done with (a faulting
 * instruction's reads, replayed no further, are discarded with them). */
void replay_memory_checkpoint(struct replay_memory *m);

/* The trace says code pages in [addr, addr+len) changed behind the
 * emulator (len UINT64_MAX: everything). */
void replay_memory_code_changed(struct replay_memory *m, uint64_t addr, uint64_t len);

extern const struct emu_memory_ops replay_memory_ops;

#endif
