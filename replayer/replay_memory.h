/*
 * replay_memory.h — the memory the emulator sees while replaying: the
 * replaying side of the rules in man/idna.5 that recorder/traced_memory.c
 * follows while recording. Reads take the prediction cache's value until
 * the log says a miss; fetches take code from CODE_PAGE records; every byte
 * read or written goes into the memory image the debugger is shown.
 *
 * What a process's threads share (the memory image, the logged code pages,
 * the observers) is one struct process_memory; each thread has its own
 * struct replay_memory (prediction cache, memory cursor over its stream),
 * the emulator's memory context while that thread runs.
 */
#ifndef TTREC_REPLAY_MEMORY_H
#define TTREC_REPLAY_MEMORY_H

#include <stdbool.h>

#include "emulator/emu.h"
#include "replayer/memory_image.h"
#include "replayer/pass_log.h"
#include "replayer/record_cursor.h"
#include "trace-format/code_page_set.h"
#include "trace-format/predict_cache.h"

/* Observes the memory accesses of the instruction being replayed (for
 * watchpoints). */
typedef void replay_access_fn(void *ctx, uint64_t addr, size_t len, bool write);

/* Prediction-cache tables of a replay that another one replaces
 * (resim_reopen_state), all of one size: its threads take these instead
 * of allocating new ones. A table allocated anew (1 MiB by default) is
 * cleared whole by calloc once glibc serves that size from its heap, at
 * every restore of a replay state (each backward step); a spare one is
 * zeroed where it is not zero yet. */
#define PREDICT_SPARES_MAX 8
struct predict_spares {
	struct predict_cache tables[PREDICT_SPARES_MAX]; /* their bytes and allocations */
	size_t n;
	unsigned log2_entries;
};

/* Keeps cache c's table in spares (c no longer has it), or frees it when
 * they are full or of another size. */
void predict_spares_keep(struct predict_spares *sp, struct predict_cache *c);
void predict_spares_free(struct predict_spares *sp);

/* Shared by every thread of the replayed process. */
struct process_memory {
	/* Pages whose code was logged since the last checkpoint of any
	 * thread; a write by any thread un-logs a page for all. */
	struct code_page_set *code_pages;
	struct memory_image *image;     /* owned */
	/* First pass only: first-read values go here (memory_image.h), valid
	 * from the last kernel transition of any thread (a time on the
	 * replay's global clock), which resim keeps up to date. */
	struct memory_image *future;
	uint64_t transition_time;
	/* A range of the first pass replayed on a core of its own
	 * (pass_parallel.h): what depends on the memory before it goes
	 * here, for the join (NULL otherwise). */
	struct pass_log *log;
	/* First pass: every page written goes into this set (NULL: none
	 * noted). Most writes go to a page written just before: noted_pages
	 * holds page + 1 at page % NOTED_PAGES (0: none) for those, which
	 * skip the set's lookup; whoever changes the set empties it. */
	struct code_page_set *written_pages;
#define NOTED_PAGES 16
	uint64_t noted_pages[NOTED_PAGES];
	bool written_incomplete;        /* a page could not be added */
	/* The same for every page the program's instructions read (what a
	 * read watchpoint stops at; the kernel's reads are not watched). */
	struct code_page_set *read_pages;
	uint64_t noted_read_pages[NOTED_PAGES];
	bool read_incomplete;
	/* Every access, for watchpoints (slows the replay: set it only while
	 * needed). */
	replay_access_fn *on_access;
	void *access_ctx;
	/* Every access by the program's instructions, before it changes
	 * what the memory image knows (undo_log.h); NULL: none. */
	replay_access_fn *before_access;
	void *before_access_ctx;
	/* Instruction fetches (decoding), for the first pass's summaries. */
	void (*on_fetch)(void *ctx, uint64_t addr, size_t len);
	void *fetch_ctx;
	struct predict_spares spares;   /* freed with it */
	/* The pages translated code reads inline (emu.h, struct
	 * emu_inline_memory; replay_memory.c says which): tag and the
	 * image's page data, by page number modulo INLINE_PAGES. */
#define INLINE_PAGES 16384u
	struct emu_inline_page *inline_pages;
	/* Pages the emulator has decoded code on (replay_memory_ops'
	 * decoded_code_page sets bit page % DECODED_FILTER_BITS; nothing
	 * clears one): never writable inline, so that translated code's
	 * inline writes need no check for self-modifying code. */
#define DECODED_FILTER_BITS (1u << 16)
	uint64_t *decoded_filter;
};

/* Takes ownership of image (freed on failure too). 0, or -1. */
int process_memory_init(struct process_memory *p, struct memory_image *image);
void process_memory_fini(struct process_memory *p);

/* One thread's side: its prediction cache and its stream's memory records. */
struct replay_memory {
	struct process_memory *proc;
	struct predict_cache cache;
	struct record_cursor cursor;    /* CURSOR_MEMORY */
	struct predict_miss next;
	bool next_loaded;
	bool diverged;
	char why[256];
	/* The hits_since_miss at which next (when valid) is due; reads
	 * made inline stay below hits_limit: 0 while anything else must
	 * see the read (next not loaded, a pass log, a cache the
	 * emulator was not told of). */
	uint64_t miss_at;
	uint64_t hits_limit;
	const uint8_t *inline_cache; /* the cache inline_reads shows */
	struct emu_inline_memory inline_reads;
};

/* The prediction cache is not allocated yet: a thread's cache exists from
 * its first slice to the end of its stream (replay_memory_cache_acquire,
 * _release), so that memory follows the threads alive at the replayed
 * time, not every thread the trace holds. cache_log2_line is the trace
 * header's (the hash's geometry: man/idna.5). */
int replay_memory_init(struct replay_memory *m, unsigned cache_log2, unsigned cache_log2_line,
		       struct process_memory *proc);
void replay_memory_fini(struct replay_memory *m);
/* 0, or -1 when memory is short. A cache made again after a release
 * starts empty; its counts carry on. */
int replay_memory_cache_acquire(struct replay_memory *m);
/* The same, for a caller that writes the whole table next (a restore):
 * a spare table (predict_spares) is taken as it is, not zeroed first. */
int replay_memory_cache_acquire_to_overwrite(struct replay_memory *m);
void replay_memory_cache_release(struct replay_memory *m);
/* Whether the thread's cache exists (acquired, not released). */
static inline bool replay_memory_cache_held(const struct replay_memory *m)
{
	return m->cache.bytes != NULL;
}

/* Whether the emulator must be told of m's cache again
 * (emu_set_memory_context): it was acquired after m became the
 * emulator's context. Until then translated code makes m's reads and
 * writes by calls. */
static inline bool replay_memory_context_stale(const struct replay_memory *m)
{
	return m->cache.bytes != m->inline_cache;
}

/* At a checkpoint: the thread's cache and the process's logged code pages
 * start empty, and the thread's memory records up to the checkpoint are
 * done with (a faulting instruction's reads, replayed no further, are
 * discarded with them). */
void replay_memory_checkpoint(struct replay_memory *m);

/* Notes written pages into `pages` from now on (NULL: stops). */
void process_memory_note_writes(struct process_memory *p, struct code_page_set *pages);
/* Notes read pages into `pages` from now on (NULL: stops). */
void process_memory_note_reads(struct process_memory *p, struct code_page_set *pages);
/* Notes the pages of a write made outside the emulator (the kernel's). */
void process_memory_note_written(struct process_memory *p, uint64_t addr, uint64_t len);

/* The trace says code pages in [addr, addr+len) changed behind the
 * emulator (len UINT64_MAX: everything). */
void process_memory_code_changed(struct process_memory *p, uint64_t addr, uint64_t len);

extern const struct emu_memory_ops replay_memory_ops;

#endif
