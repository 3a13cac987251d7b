/*
 * traced_memory.c — the recording side of the memory rules in man/idna.5:
 * reads are cut into pieces of at most IDNA_MAX_READ bytes, each checked
 * against the prediction cache; writes update the cache and un-log the code
 * pages they touch; fetches log each code page the first time it is needed.
 */
#include <stddef.h>
#include <string.h>

#include "recorder/traced_memory.h"
#include "trace-format/code_page_set.h"

#define PAGE_SIZE 4096u

/* The miss cursor of a traced memory with no writer: no room, ever. */
static struct idna_miss_cursor never_aimed;

int traced_memory_init(struct traced_memory *tm, struct memory_mirror *mirror,
		       struct idna_writer *writer, uint32_t stream,
		       unsigned cache_log2_entries, struct traced_memory *sibling)
{
	memset(tm, 0, sizeof(*tm));
	tm->mirror = mirror;
	tm->writer = writer;
	tm->stream = stream;
	tm->misses = writer ? idna_writer_miss_cursor(writer, stream) : NULL;
	if (!tm->misses)
		tm->misses = &never_aimed;
	if (!predict_cache_init(&tm->cache, cache_log2_entries))
		return -1;
	if (writer && !predict_cache_set_line_log2(&tm->cache, idna_writer_cache_log2_line(writer))) {
		predict_cache_fini(&tm->cache);
		return -1;
	}
	tm->owns_code_pages = !sibling;
	tm->code_pages = sibling ? sibling->code_pages : code_page_set_new();
	if (!tm->code_pages) {
		predict_cache_fini(&tm->cache);
		return -1;
	}
	/* Writes to pages that may hold logged code un-log them: they call
	 * (translated code's writes test only the page's WRITABLE bit). */
	if (tm->owns_code_pages)
		memory_mirror_guard_writes(mirror, MIRROR_GUARD_LOGGED_CODE, tm->code_pages->filter,
					   CODE_PAGE_SET_FILTER_BITS - 1);
	return 0;
}

void traced_memory_fini(struct traced_memory *tm)
{
	predict_cache_fini(&tm->cache);
	if (tm->owns_code_pages) {
		memory_mirror_guard_writes(tm->mirror, MIRROR_GUARD_LOGGED_CODE, NULL, 0);
		code_page_set_free(tm->code_pages);
	}
	tm->code_pages = NULL;
}

void traced_memory_checkpoint(struct traced_memory *tm)
{
	predict_cache_flush(&tm->cache);
	code_page_set_clear(tm->code_pages);
	memory_mirror_guard_changed(tm->mirror, UINT64_MAX);
}

bool traced_memory_forget_code(struct traced_memory *tm, uint64_t addr, uint64_t len)
{
	if (len == UINT64_MAX) {
		bool any = code_page_set_count(tm->code_pages) != 0;
		code_page_set_clear(tm->code_pages);
		memory_mirror_guard_changed(tm->mirror, UINT64_MAX);
		return any;
	}
	bool any = false;
	for (uint64_t pg = addr / PAGE_SIZE; len && pg <= (addr + len - 1) / PAGE_SIZE; pg++)
		if (code_page_set_contains(tm->code_pages, pg)) {
			code_page_set_remove(tm->code_pages, pg);
			any = true;
		}
	return any;
}

static void append(struct traced_memory *tm, const struct idna_record *rec)
{
	if (!tm->failed && idna_writer_append(tm->writer, tm->stream, rec) != 0)
		tm->failed = 1;
}

/* A read the prediction cache missed: logged with the run of hits before
 * it. Out of line: misses are rare, and the read paths stay small. */
static __attribute__((noinline)) void log_miss(struct traced_memory *tm, uint64_t hits_before,
						const uint8_t *bytes, unsigned n)
{
	if (!tm->failed && idna_writer_append_miss(tm->writer, tm->stream, hits_before, bytes, n) != 0)
		tm->failed = 1;
}

static __attribute__((noinline)) void log_miss_uint(struct traced_memory *tm,
						     uint64_t hits_before, uint64_t value,
						     unsigned n)
{
	if (!tm->failed &&
	    idna_writer_append_miss_uint(tm->writer, tm->stream, hits_before, value, n) != 0)
		tm->failed = 1;
}

/* An integer read's miss: put by the stream's cursor while it has room,
 * with no call (miss_cursor.h). */
static inline __attribute__((always_inline)) void note_miss_uint(struct traced_memory *tm,
								 uint64_t hits_before,
								 uint64_t value, unsigned n)
{
	if (!idna_miss_cursor_put_uint(tm->misses, hits_before, value, n))
		log_miss_uint(tm, hits_before, value, n);
}

/* One read of at most IDNA_MAX_READ bytes against the prediction cache;
 * a miss is logged. */
static inline __attribute__((always_inline)) void check_read(struct traced_memory *tm,
							     uint64_t addr,
							     const uint8_t *bytes, unsigned n)
{
	uint64_t hits_before;
	if (!predict_cache_record_read(&tm->cache, addr, bytes, n, &hits_before))
		log_miss(tm, hits_before, bytes, n);
}

/* Any read: pieces of at most IDNA_MAX_READ bytes, as man/idna.5 says. */
static int traced_read_any(struct traced_memory *tm, uint64_t addr, void *buf, size_t size)
{
	int r = memory_mirror_read(tm->mirror, addr, buf, size);
	if (r != EMU_MEM_OK)
		return r;
	const uint8_t *bytes = buf;
	for (size_t done = 0; done < size;) {
		unsigned n = size - done > IDNA_MAX_READ ? IDNA_MAX_READ : (unsigned)(size - done);
		check_read(tm, addr + done, bytes + done, n);
		done += n;
	}
	return EMU_MEM_OK;
}

_Static_assert(MIRROR_INLINE_MAX <= IDNA_MAX_READ, "an inline read is one prediction-cache read");

/* A read through a buffer (vectors, and integers from memories without
 * read_uint) within a page the mirror has at hand: inline. */
static int traced_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct traced_memory *tm = ctx;
	if (!memory_mirror_read_cached(tm->mirror, addr, buf, size))
		return traced_read_any(tm, addr, buf, size);
	check_read(tm, addr, buf, (unsigned)size);
	return EMU_MEM_OK;
}

/* An integer read the inline path below does not finish: a miss, an
 * access crossing an entry or a page, or a page the mirror has not at
 * hand. Starts over the general way (the inline path changed nothing). */
static __attribute__((noinline)) struct emu_mem_uint traced_read_uint_rest(struct traced_memory *tm,
									    uint64_t addr,
									    unsigned size)
{
	uint64_t value, hits_before;
	if (memory_mirror_read_uint_cached(tm->mirror, addr, size, &value)) {
		if (!predict_cache_record_read_uint(&tm->cache, addr, value, size, &hits_before))
			note_miss_uint(tm, hits_before, value, size);
		return (struct emu_mem_uint){ .value = value, .status = EMU_MEM_OK };
	}
	uint8_t bytes[8] = { 0 };
	struct emu_mem_uint got = { .status = traced_read_any(tm, addr, bytes, size) };
	if (got.status == EMU_MEM_OK)
		memcpy(&got.value, bytes, sizeof(bytes)); /* little-endian host */
	return got;
}

/*
 * The common read: an integer of 1..8 bytes in a page the mirror has at
 * hand, which the prediction cache predicted. A leaf with the value in
 * registers throughout; anything else is a tail call, so the common case
 * saves no registers.
 */
static inline __attribute__((always_inline)) struct emu_mem_uint
traced_read_uint_inline(void *ctx, uint64_t addr, unsigned size)
{
	struct traced_memory *tm = ctx;
	uint64_t value;
	if (__builtin_expect(memory_mirror_read_uint_cached(tm->mirror, addr, size, &value) &&
			     predict_cache_try_hit_uint(&tm->cache, addr, value, size), 1))
		return (struct emu_mem_uint){ .value = value, .status = EMU_MEM_OK };
	return traced_read_uint_rest(tm, addr, size);
}

static struct emu_mem_uint traced_read_uint(void *ctx, uint64_t addr, unsigned size)
{
	return traced_read_uint_inline(ctx, addr, size);
}

/* After a write of size bytes at addr: the code pages it touched are
 * logged again when next fetched. The filter answers for nearly all. */
static inline void forget_written_code(struct traced_memory *tm, uint64_t addr, size_t size)
{
	for (uint64_t pg = addr / PAGE_SIZE; pg <= (addr + size - 1) / PAGE_SIZE; pg++)
		if (code_page_set_may_contain(tm->code_pages, pg))
			code_page_set_remove(tm->code_pages, pg);
}

static int traced_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct traced_memory *tm = ctx;
	if (!memory_mirror_write_cached(tm->mirror, addr, buf, size)) {
		int r = memory_mirror_write(tm->mirror, addr, buf, size);
		if (r != EMU_MEM_OK)
			return r;
	}
	predict_cache_update(&tm->cache, addr, buf, size);
	forget_written_code(tm, addr, size);
	return EMU_MEM_OK;
}

/* A failed compare-exchange's write cycle: the cache and the code pages as
 * for a write, the mirror left clean. */
static int traced_write_back(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct traced_memory *tm = ctx;
	int r = memory_mirror_write_back(tm->mirror, addr, buf, size);
	if (r != EMU_MEM_OK)
		return r;
	predict_cache_update(&tm->cache, addr, buf, size);
	forget_written_code(tm, addr, size);
	return EMU_MEM_OK;
}

/* An integer write the inline path below does not take: the general
 * write, on a buffer. */
static __attribute__((noinline)) int traced_write_uint_any(struct traced_memory *tm,
							   uint64_t addr, unsigned size,
							   uint64_t value)
{
	uint8_t bytes[8];
	memcpy(bytes, &value, sizeof(bytes)); /* little-endian host */
	return traced_write(tm, addr, bytes, size);
}

/* The rest of an integer write the mirror took, when it crosses a
 * prediction-cache entry or its page may hold logged code. */
static __attribute__((noinline)) int traced_write_uint_rest(struct traced_memory *tm,
							    uint64_t addr, unsigned size,
							    uint64_t value)
{
	predict_cache_update_uint(&tm->cache, addr, value, size);
	forget_written_code(tm, addr, size);
	return EMU_MEM_OK;
}

/* The common write, an integer of 1..8 bytes within one page the mirror
 * has at hand and one prediction-cache entry, to a page with no logged
 * code: a leaf, as traced_read_uint. */
static inline __attribute__((always_inline)) int
traced_write_uint_inline(void *ctx, uint64_t addr, unsigned size, uint64_t value)
{
	struct traced_memory *tm = ctx;
	if (__builtin_expect(!memory_mirror_write_uint_cached(tm->mirror, addr, size, value), 0))
		return traced_write_uint_any(tm, addr, size, value);
	if (__builtin_expect((addr & 7) + size > PREDICT_CACHE_LINE ||
			     code_page_set_may_contain(tm->code_pages, addr / PAGE_SIZE), 0))
		return traced_write_uint_rest(tm, addr, size, value);
	predict_cache_update_uint(&tm->cache, addr, value, size);
	return EMU_MEM_OK;
}

static int traced_write_uint(void *ctx, uint64_t addr, unsigned size, uint64_t value)
{
	return traced_write_uint_inline(ctx, addr, size, value);
}

/* A read translated code made inline up to the prediction, which did not
 * hold the value (emu.h, read_mispredicted): the rest of what
 * traced_read_uint_rest does for it, the mirror's page and the value
 * known already. */
static inline __attribute__((always_inline)) uint64_t
traced_read_mispredicted(void *ctx, uint64_t addr, uint64_t value, unsigned size)
{
	struct traced_memory *tm = ctx;
	uint64_t hits_before;
	if (!predict_cache_record_miss_uint(&tm->cache, addr, value, size, &hits_before))
		note_miss_uint(tm, hits_before, value, size);
	return value;
}

/* The same, one copy per size, for translated code: the size's tests and
 * masks fold away. */
#define TRACED_UINT_SIZED(N) \
	static struct emu_mem_uint traced_read_u##N(void *ctx, uint64_t addr) \
	{ return traced_read_uint_inline(ctx, addr, N); } \
	static int traced_write_u##N(void *ctx, uint64_t addr, uint64_t value) \
	{ return traced_write_uint_inline(ctx, addr, N, value); } \
	static uint64_t traced_read_mispredicted_u##N(void *ctx, uint64_t addr, uint64_t value) \
	{ return traced_read_mispredicted(ctx, addr, value, N); }
TRACED_UINT_SIZED(1)
TRACED_UINT_SIZED(2)
TRACED_UINT_SIZED(4)
TRACED_UINT_SIZED(8)

/*
 * The common read and write as translated code makes them (emu.h, struct
 * emu_inline_memory): the mirror's translation cache and the prediction
 * cache, as traced_read_uint_inline and traced_write_uint_inline use them;
 * the mirror keeps WRITABLE off the pages that may hold logged code
 * (memory_mirror_guard_writes: a write there calls traced_write_u<N>,
 * which un-logs them). Translated code finishes
 * nothing else: every other case calls the functions, which start over.
 */
_Static_assert(sizeof(struct mirror_tlb_entry) == sizeof(struct emu_inline_page) &&
		       offsetof(struct mirror_tlb_entry, tag) == offsetof(struct emu_inline_page, tag) &&
		       offsetof(struct mirror_tlb_entry, data) == offsetof(struct emu_inline_page, data) &&
		       offsetof(struct mirror_tlb_entry, read_tag) == offsetof(struct emu_inline_page, read_tag) &&
		       offsetof(struct mirror_tlb_entry, delta) == offsetof(struct emu_inline_page, delta) &&
		       MIRROR_TLB_WRITABLE == EMU_INLINE_PAGE_WRITABLE,
	       "the mirror's translation cache is the emulator's inline page table");
_Static_assert(PREDICT_CACHE_LINE == 8 && PREDICT_CACHE_GROUP_LOG2 == 3,
	       "the inline path's cache entries are 8 bytes, hashed by 64-byte blocks or directly mapped");

static const struct emu_inline_memory *traced_inline_memory(void *ctx)
{
	struct traced_memory *tm = ctx;
	tm->inline_reads = (struct emu_inline_memory){
		.pages = (const struct emu_inline_page *)(const void *)memory_mirror_tlb_table(tm->mirror),
		.page_mask = MIRROR_TLB_ENTRIES - 1,
		.cache = tm->cache.bytes,
		.cache_multiplier = PREDICT_CACHE_HASH_MULTIPLIER,
		.cache_shift = 64 - (tm->cache.log2_entries - PREDICT_CACHE_GROUP_LOG2),
		.cache_direct_mask = predict_cache_direct(&tm->cache)
					     ? (PREDICT_CACHE_LINE << tm->cache.log2_entries) - 1
					     : 0,
		.hits_since_miss = &tm->cache.hits_since_miss,
		.writes_inline = true, /* WRITABLE never on a guarded page */
		.dirty_offset = PAGE_SIZE, /* memory_mirror_mark_dirty's bits */
	};
	return &tm->inline_reads;
}

/* Logs the code page `pg` (a page number) if it is not logged yet; false
 * when it cannot be fetched whole. */
static bool log_code_page(struct traced_memory *tm, uint64_t pg)
{
	if (code_page_set_contains(tm->code_pages, pg))
		return true;
	uint8_t page[PAGE_SIZE];
	if (memory_mirror_fetch(tm->mirror, pg * PAGE_SIZE, page, PAGE_SIZE) != PAGE_SIZE)
		return false;
	struct idna_record rec = { .type = IDNA_REC_CODE_PAGE };
	rec.u.code_page.addr = pg * PAGE_SIZE;
	rec.u.code_page.bytes = page;
	rec.u.code_page.len = PAGE_SIZE;
	append(tm, &rec);
	if (!code_page_set_add(tm->code_pages, pg))
		tm->failed = 1;
	memory_mirror_guard_changed(tm->mirror, pg * PAGE_SIZE);
	tm->code_pages_logged++;
	return true;
}

/* Serves whole logged pages only: what replay can serve from CODE_PAGE
 * records. A fetch stops at the first page that is not executable. */
static size_t traced_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct traced_memory *tm = ctx;
	size_t done = 0;
	while (done < size) {
		uint64_t a = addr + done;
		uint64_t pg = a / PAGE_SIZE;
		if (!log_code_page(tm, pg))
			break;
		size_t n = PAGE_SIZE - (a % PAGE_SIZE);
		if (n > size - done)
			n = size - done;
		if (memory_mirror_fetch(tm->mirror, a, (uint8_t *)buf + done, n) != n)
			break;
		done += n;
	}
	return done;
}

/* Both tables' calls; only the 64-byte-block cache of format 1.5 has the
 * inline path, which hashes by blocks. */
#define TRACED_MEMORY_CALLS                                                                   \
	.read = traced_read, .write = traced_write, .fetch = traced_fetch,                    \
	.write_back = traced_write_back, .read_uint = traced_read_uint,                       \
	.write_uint = traced_write_uint,                                                      \
	.read_uint_sized = { traced_read_u1, traced_read_u2, traced_read_u4, traced_read_u8 }, \
	.write_uint_sized = { traced_write_u1, traced_write_u2, traced_write_u4, traced_write_u8 }

/* The emulator decoded code on a page: its entry loses WRITABLE (the
 * mirror guards the emulator's filter, recording.c). */
static void traced_decoded_code_page(void *ctx, uint64_t page_addr)
{
	struct traced_memory *tm = ctx;
	memory_mirror_guard_changed(tm->mirror, page_addr);
}

const struct emu_memory_ops traced_memory_ops = {
	TRACED_MEMORY_CALLS,
	.inline_memory = traced_inline_memory,
	.read_mispredicted = { traced_read_mispredicted_u1, traced_read_mispredicted_u2,
			       traced_read_mispredicted_u4, traced_read_mispredicted_u8 },
	.decoded_code_page = traced_decoded_code_page,
};

const struct emu_memory_ops traced_memory_ops_8_byte_lines = { TRACED_MEMORY_CALLS };
