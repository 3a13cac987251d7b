/*
 * memory_mirror.h — the recorder's copy of the tracee's memory (DESIGN.md,
 * Recording step 2).
 *
 * Pages are copied in from the real process on first touch; emulated writes
 * go to the copy and are marked dirty byte by byte (never whole pages:
 * another thread's syscall may be writing the rest of a page). Before
 * anything runs in the real process the caller flushes the dirty bytes back;
 * after something ran there it invalidates what may have changed. Shared
 * mappings are never cached: every access goes to the process.
 *
 * The mirror implements the emulator's memory interface, with the
 * protections of the mapping table: an access the CPU would fault on gets
 * EMU_MEM_FAULT.
 */
#ifndef TTREC_MEMORY_MIRROR_H
#define TTREC_MEMORY_MIRROR_H

#include <stddef.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "recorder/mapping_table.h"

/* How the mirror reaches the real process. Both return 0 on success, -1 if
 * the range cannot be accessed. */
struct mirror_backend {
	void *ctx;
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
};

struct memory_mirror_stats {
	uint64_t pages_loaded;   /* copied in from the process */
	uint64_t bytes_flushed;  /* dirty bytes written back */
	uint64_t flush_writes;   /* backend writes done by flushes */
	uint64_t direct_accesses; /* accesses to uncached (shared) memory */
};

struct memory_mirror;

/* The mapping table is borrowed: it must outlive the mirror, and the caller
 * invalidates affected ranges whenever it changes. */
struct memory_mirror *memory_mirror_new(const struct mirror_backend *backend,
					const struct mapping_table *maps);
void memory_mirror_free(struct memory_mirror *m);

/* The emulator's memory interface over a mirror (ctx = the mirror). */
extern const struct emu_memory_ops memory_mirror_ops;

/* The same operations called directly, for the recorder's hot path (no
 * indirect call). */
int memory_mirror_read(struct memory_mirror *m, uint64_t addr, void *buf, size_t len);
int memory_mirror_write(struct memory_mirror *m, uint64_t addr, const void *buf, size_t len);
size_t memory_mirror_fetch(struct memory_mirror *m, uint64_t addr, void *buf, size_t len);

/* Writes every dirty byte back to the process. 0, or -1 if a write failed
 * (the bytes stay dirty). */
int memory_mirror_flush(struct memory_mirror *m);

/* True if some byte is dirty. */
int memory_mirror_has_dirty(const struct memory_mirror *m);

/* Forgets cached pages overlapping [addr, addr+len); the next access reads
 * them again. Dirty bytes in the range are lost: flush first.
 * len == UINT64_MAX forgets everything. */
void memory_mirror_invalidate(struct memory_mirror *m, uint64_t addr, uint64_t len);

void memory_mirror_get_stats(const struct memory_mirror *m, struct memory_mirror_stats *out);

#endif
