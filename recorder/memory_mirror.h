/*
 * memory_mirror.h — the recorder's copy of the tracee's memory (DESIGN.md,
 * Recording step 2).
 *
 * Pages are copied in from the real process on first touch; emulated writes
 * go to the copy and are marked dirty byte by byte (never whole pages:
 * another thread's syscall may be writing the rest of a page). Before
 * anything runs in the real process the caller flushes back the dirty
 * bytes it may read or write beside (all of them, or a syscall's buffer:
 * recorder/syscall_flush.c); after something ran there it invalidates
 * what may have changed, which must not hold dirty bytes. Shared
 * mappings are never cached: every access goes to the process. A
 * MAP_PRIVATE page of a file is written through once (memory_mirror.c says
 * why), and a write to a shared mapping of a file forgets the private
 * pages of that file it shows through.
 *
 * The mirror implements the emulator's memory interface, with the
 * protections of the mapping table: an access the CPU would fault on gets
 * EMU_MEM_FAULT.
 */
#ifndef TTREC_MEMORY_MIRROR_H
#define TTREC_MEMORY_MIRROR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/uio.h>

#include "emulator/emu.h"
#include "recorder/mapping_table.h"

/* How the mirror reaches the real process. Both return 0 on success, -1 if
 * the range cannot be accessed. */
struct mirror_backend {
	void *ctx;
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t len);
	/* Optional: n writes at once, local[i] to remote[i] (equal lengths),
	 * in order; 0, or -1 when one failed (those before it may be done).
	 * A flush hands its dirty runs over up to IOV_MAX at a time: one
	 * system call instead of one per run. */
	int (*write_runs)(void *ctx, const struct iovec *local, const struct iovec *remote,
			  size_t n);
};

struct memory_mirror_stats {
	uint64_t pages_loaded;   /* copied in from the process */
	uint64_t bytes_flushed;  /* dirty bytes written back */
	uint64_t flush_writes;   /* backend calls made by flushes */
	uint64_t direct_accesses; /* accesses to uncached (shared) memory */
	uint64_t stack_growths;  /* accesses below the stack that grew it */
};

struct memory_mirror;
struct mirror_page;

/*
 * The translation cache: recently used cached pages by page number modulo
 * MIRROR_TLB_ENTRIES. It is the first member of struct memory_mirror, so
 * that the inline accessors below serve an access to a cached page with no
 * call. Only memory_mirror.c changes it. An entry is 32 bytes (the
 * emulator's struct emu_inline_page), so the entries of neighbouring
 * pages share a cache line: a program's pages take as many lines
 * whatever the size; 16,384 entries (512 KiB) serve
 * the tables of xz's match finder (4 MiB and more, read at random),
 * which 1,024 left mostly to the call (12% of the samples of xz's
 * recording of 1 MB; −2.3% host instructions on 100 kB).
 */
#define MIRROR_TLB_ENTRIES 16384u
#define MIRROR_TLB_EMPTY UINT64_MAX
#define MIRROR_TLB_WRITABLE 0x10u /* in tag: writes may take the inline path */

struct mirror_tlb_entry {
	uint64_t tag;  /* the page's address, | MIRROR_TLB_WRITABLE; or EMPTY */
	uint8_t *data; /* the page's bytes (readable: only such are cached),
			* followed by its dirty bits, one per byte */
	uint64_t read_tag; /* the page's address, or EMPTY */
	uintptr_t delta;   /* data - the page's address */
};

struct memory_mirror_tlb {
	struct mirror_tlb_entry entries[MIRROR_TLB_ENTRIES];
};

/* The mapping table is borrowed: it must outlive the mirror, and the caller
 * invalidates affected ranges whenever it changes. */
struct memory_mirror *memory_mirror_new(const struct mirror_backend *backend,
					const struct mapping_table *maps);
void memory_mirror_free(struct memory_mirror *m);

/*
 * Writes to the pages of a bitmap never take the inline path (the C one
 * above and translated code's, which then need not look at the bitmap):
 * a page whose bit ((addr >> 12) & mask) is set in `bitmap` is never
 * WRITABLE in the translation cache. Two bitmaps may guard at once, one
 * per kind: the pages that may hold logged code (the recorder's code-page
 * filter) and those that may hold code the emulator decoded (its
 * emu_code_page_filter). A bitmap is borrowed (NULL: none); after its
 * bits change, memory_mirror_guard_changed(m, page) for a bit set for
 * page (only the entry that can hold such a page changes when mask + 1
 * is a multiple of MIRROR_TLB_ENTRIES), or UINT64_MAX for any change
 * (bits cleared: pages become writable inline again).
 */
enum mirror_guard { MIRROR_GUARD_LOGGED_CODE, MIRROR_GUARD_DECODED_CODE, MIRROR_GUARDS };
void memory_mirror_guard_writes(struct memory_mirror *m, enum mirror_guard kind,
				const uint64_t *bitmap, uint64_t mask);
void memory_mirror_guard_changed(struct memory_mirror *m, uint64_t page_addr);

/* The emulator's memory interface over a mirror (ctx = the mirror). */
extern const struct emu_memory_ops memory_mirror_ops;

/* The same operations called directly, for the recorder's hot path (no
 * indirect call). */
int memory_mirror_read(struct memory_mirror *m, uint64_t addr, void *buf, size_t len);
int memory_mirror_write(struct memory_mirror *m, uint64_t addr, const void *buf, size_t len);
size_t memory_mirror_fetch(struct memory_mirror *m, uint64_t addr, void *buf, size_t len);
/* The emulator's write_back (emu.h): the range checked as a write, the
 * real process left as it is (memory_mirror.c says why). */
int memory_mirror_write_back(struct memory_mirror *m, uint64_t addr, const void *buf, size_t len);

/* Inline fast paths for accesses of 1..MIRROR_INLINE_MAX bytes (integers
 * and vectors) within one cached page: true when done, false when the
 * access must go through memory_mirror_read / memory_mirror_write (nothing
 * is changed then). */
#define MIRROR_INLINE_MAX 64u

/* The sizes instructions use are copied with a constant length: a copy of
 * a variable length is a call. */
static inline void memory_mirror_copy_small(void *dst, const void *src, size_t len)
{
	switch (len) {
	case 1: memcpy(dst, src, 1); break;
	case 2: memcpy(dst, src, 2); break;
	case 4: memcpy(dst, src, 4); break;
	case 8: memcpy(dst, src, 8); break;
	case 16: memcpy(dst, src, 16); break;
	case 32: memcpy(dst, src, 32); break;
	default: memcpy(dst, src, len); break;
	}
}

/* The translation cache's table (for translated code's inline reads). */
static inline const struct mirror_tlb_entry *memory_mirror_tlb_table(const struct memory_mirror *m)
{
	return ((const struct memory_mirror_tlb *)(const void *)m)->entries;
}

static inline const struct mirror_tlb_entry *memory_mirror_tlb_entry(
	const struct memory_mirror *m, uint64_t addr)
{
	return &((const struct memory_mirror_tlb *)(const void *)m)
			->entries[(addr >> 12) & (MIRROR_TLB_ENTRIES - 1)];
}

/* The entry serving len (1..MIRROR_INLINE_MAX) bytes at addr for reading,
 * or NULL. */
static inline const struct mirror_tlb_entry *memory_mirror_tlb_lookup(
	const struct memory_mirror *m, uint64_t addr, size_t len)
{
	const struct mirror_tlb_entry *t = memory_mirror_tlb_entry(m, addr);
	if (t->read_tag != (addr & ~(uint64_t)4095) || len > MIRROR_INLINE_MAX ||
	    (addr & 4095) + len > 4096)
		return NULL;
	return t;
}

/* The same for writing: the page must also take inline writes. */
static inline const struct mirror_tlb_entry *memory_mirror_tlb_lookup_write(
	const struct memory_mirror *m, uint64_t addr, size_t len)
{
	const struct mirror_tlb_entry *t = memory_mirror_tlb_entry(m, addr);
	if (t->tag != ((addr & ~(uint64_t)4095) | MIRROR_TLB_WRITABLE) || len > MIRROR_INLINE_MAX ||
	    (addr & 4095) + len > 4096)
		return NULL;
	return t;
}

static inline bool memory_mirror_read_cached(const struct memory_mirror *m, uint64_t addr,
					     void *buf, size_t len)
{
	const struct mirror_tlb_entry *t = memory_mirror_tlb_lookup(m, addr, len);
	if (!t)
		return false;
	memory_mirror_copy_small(buf, t->data + (addr & 4095), len);
	return true;
}

/* Marks len (1..MIRROR_INLINE_MAX) bytes at page offset off dirty: they
 * span at most two words of dirty bits. */
static inline void memory_mirror_mark_dirty(const struct mirror_tlb_entry *t, unsigned off,
					    size_t len)
{
	uint64_t *dirty_bits = (uint64_t *)(void *)(t->data + 4096);
	unsigned bit = off % 64;
	uint64_t run = len >= 64 ? ~0ull : (1ull << len) - 1;
	dirty_bits[off / 64] |= run << bit;
	if (bit + len > 64)
		dirty_bits[off / 64 + 1] |= run >> (64 - bit);
}

static inline bool memory_mirror_write_cached(struct memory_mirror *m, uint64_t addr,
					      const void *buf, size_t len)
{
	const struct mirror_tlb_entry *t = memory_mirror_tlb_lookup_write(m, addr, len);
	if (!t)
		return false;
	unsigned off = (unsigned)(addr & 4095);
	memory_mirror_copy_small(t->data + off, buf, len);
	memory_mirror_mark_dirty(t, off, len);
	return true;
}

/*
 * The integer forms: a little-endian integer of len (1, 2, 4 or 8: other
 * sizes take the general path) bytes, in a register. The value is loaded
 * and stored at its own width, so a reload by the caller never waits on a
 * narrower store; no call is made, so the caller can be a leaf.
 */
static inline bool memory_mirror_read_uint_cached(const struct memory_mirror *m, uint64_t addr,
						  unsigned len, uint64_t *value)
{
	const struct mirror_tlb_entry *t = memory_mirror_tlb_lookup(m, addr, len);
	if (!t)
		return false;
	const uint8_t *p = t->data + (addr & 4095);
	switch (len) {
	case 1: *value = *p; break;
	case 2: { uint16_t v; memcpy(&v, p, 2); *value = v; break; }
	case 4: { uint32_t v; memcpy(&v, p, 4); *value = v; break; }
	case 8: memcpy(value, p, 8); break;
	default: return false;
	}
	return true;
}

static inline bool memory_mirror_write_uint_cached(struct memory_mirror *m, uint64_t addr,
						   unsigned len, uint64_t value)
{
	const struct mirror_tlb_entry *t = memory_mirror_tlb_lookup_write(m, addr, len);
	if (!t)
		return false;
	unsigned off = (unsigned)(addr & 4095);
	uint8_t *p = t->data + off;
	switch (len) {
	case 1: *p = (uint8_t)value; break;
	case 2: { uint16_t v = (uint16_t)value; memcpy(p, &v, 2); break; }
	case 4: { uint32_t v = (uint32_t)value; memcpy(p, &v, 4); break; }
	case 8: memcpy(p, &value, 8); break;
	default: return false;
	}
	memory_mirror_mark_dirty(t, off, len);
	return true;
}

/*
 * An access to the unmapped page at page_addr, just below the process's
 * stack (mapping_table_stack_above): the kernel would grow the stack down
 * to it on the CPU's fault. The grower makes the real process do so and
 * reloads the mapping table the mirror borrows: 1 when the page is mapped
 * now, 0 when the kernel refused (the access faults).
 */
typedef int memory_mirror_stack_grower(void *ctx, uint64_t page_addr);
void memory_mirror_set_stack_grower(struct memory_mirror *m, memory_mirror_stack_grower *grow,
				    void *ctx);

/*
 * Whether the process is quiet: nothing but the mirror's flushes writes
 * its anonymous private memory (no thread of it in a system call that
 * may write memory, no other process sharing it, no asynchronous I/O), so that
 * such a page's clean bytes in the mirror are the process's. A quiet
 * flush then writes each such page's dirty bytes back as one run, from
 * its first dirty byte to its last, the clean bytes between included:
 * process_vm_writev costs the kernel a page walk per run, and sort -n
 * leaves millions of runs of a few dozen bytes. Off by default; the
 * recorder sets it around its system calls' flushes.
 */
void memory_mirror_set_quiet(struct memory_mirror *m, bool quiet);

/* Writes every dirty byte back to the process. 0, or -1 if a write failed
 * (the bytes stay dirty). */
int memory_mirror_flush(struct memory_mirror *m);

/* Writes back the dirty bytes of the pages overlapping [addr, addr+len)
 * (to the end of memory if that wraps), leaving the others dirty. 0, or
 * -1 if a write failed (the bytes stay dirty). */
int memory_mirror_flush_range(struct memory_mirror *m, uint64_t addr, uint64_t len);

/* Writes back the pages whose first write (a MAP_PRIVATE page of a file)
 * the process has not seen yet, so that the kernel makes its copy of the
 * page before the file can change: at every system call, and before a
 * write through a shared mapping of a file. 0, or -1 if a write failed. */
int memory_mirror_flush_copies(struct memory_mirror *m);

/* True if at least `pages` pages hold dirty bytes (0: always). */
bool memory_mirror_dirty_at_least(const struct memory_mirror *m, unsigned pages);

/* True if some byte is dirty. */
int memory_mirror_has_dirty(const struct memory_mirror *m);

/* Forgets cached pages overlapping [addr, addr+len); the next access reads
 * them again. Dirty bytes in the range are lost: flush first.
 * len == UINT64_MAX forgets everything. */
void memory_mirror_invalidate(struct memory_mirror *m, uint64_t addr, uint64_t len);

void memory_mirror_get_stats(const struct memory_mirror *m, struct memory_mirror_stats *out);

#endif
