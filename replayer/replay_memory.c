/*
 * replay_memory.c — prediction-cache reads, code-page fetches and image
 * updates, in exactly the order recording made them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/replay_memory.h"

#define PAGE_SIZE 4096u

/* Empties the inline page table: no read is made inline until the
 * functions below put pages back in. */
static void forget_inline_pages(struct emu_inline_page *pages)
{
	for (unsigned i = 0; i < INLINE_PAGES; i++)
		emu_inline_page_clear(&pages[i]);
}

/* Writes to every page of the table call again (their pages shared with a
 * snapshot now, or the set of written pages replaced). */
static void forget_writable_pages(struct emu_inline_page *pages)
{
	for (unsigned i = 0; i < INLINE_PAGES; i++)
		if (pages[i].tag != UINT64_MAX)
			pages[i].tag &= ~(uint64_t)EMU_INLINE_PAGE_WRITABLE;
}

/* The image's page at page_addr is another now, or all its pages are
 * shared (memory_image_on_move). */
static void inline_page_moved(void *ctx, uint64_t page_addr)
{
	struct emu_inline_page *pages = ctx;
	if (page_addr == MEMORY_IMAGE_ALL_PAGES) {
		forget_writable_pages(pages);
		return;
	}
	struct emu_inline_page *e = &pages[(page_addr >> 12) % INLINE_PAGES];
	if ((e->tag & ~(uint64_t)EMU_INLINE_PAGE_WRITABLE) == page_addr)
		emu_inline_page_clear(e);
}

int process_memory_init(struct process_memory *p, struct memory_image *image)
{
	memset(p, 0, sizeof(*p));
	p->code_pages = code_page_set_new();
	p->inline_pages = malloc(INLINE_PAGES * sizeof(*p->inline_pages));
	p->decoded_filter = calloc(DECODED_FILTER_BITS / 64, sizeof(uint64_t));
	if (!p->code_pages || !p->inline_pages || !p->decoded_filter) {
		code_page_set_free(p->code_pages);
		free(p->inline_pages);
		free(p->decoded_filter);
		memory_image_free(image);
		return -1;
	}
	forget_inline_pages(p->inline_pages);
	memory_image_on_move(image, inline_page_moved, p->inline_pages);
	p->image = image;
	return 0;
}

void predict_spares_keep(struct predict_spares *sp, struct predict_cache *c)
{
	if (!c->bytes)
		return;
	if (sp->n == 0)
		sp->log2_entries = c->log2_entries;
	if (sp->n < PREDICT_SPARES_MAX && sp->log2_entries == c->log2_entries) {
		sp->tables[sp->n++] = *c;
		c->bytes = NULL;
		c->allocation = NULL;
		return;
	}
	predict_cache_fini(c);
}

void predict_spares_free(struct predict_spares *sp)
{
	while (sp->n)
		predict_cache_fini(&sp->tables[--sp->n]);
}

void process_memory_fini(struct process_memory *p)
{
	predict_spares_free(&p->spares);
	code_page_set_free(p->code_pages);
	memory_image_free(p->image);
	free(p->inline_pages);
	free(p->decoded_filter);
	p->code_pages = NULL;
	p->image = NULL;
	p->inline_pages = NULL;
	p->decoded_filter = NULL;
}

int replay_memory_init(struct replay_memory *m, unsigned cache_log2, unsigned cache_log2_line,
		       struct process_memory *proc)
{
	memset(m, 0, sizeof(*m));
	if (cache_log2 < PREDICT_CACHE_MIN_LOG2 || cache_log2 > PREDICT_CACHE_MAX_LOG2)
		return -1;
	m->cache.log2_entries = cache_log2;
	if (!predict_cache_set_line_log2(&m->cache, cache_log2_line))
		return -1;
	m->proc = proc;
	return 0;
}

static int acquire(struct replay_memory *m, bool zeroed)
{
	if (m->cache.bytes)
		return 0;
	struct predict_spares *sp = &m->proc->spares;
	if (sp->n && sp->log2_entries == m->cache.log2_entries) {
		const struct predict_cache *spare = &sp->tables[--sp->n];
		m->cache.bytes = spare->bytes; /* its counts and geometry stay */
		m->cache.allocation = spare->allocation;
		if (zeroed)
			predict_cache_zero(&m->cache);
	} else {
		struct predict_cache fresh;
		if (!predict_cache_init(&fresh, m->cache.log2_entries))
			return -1;
		m->cache.bytes = fresh.bytes; /* its counts stay */
		m->cache.allocation = fresh.allocation;
	}
	/* Until the emulator is told of this table, translated code of
	 * this thread may hold the old one: it writes nothing inline. */
	if (m->cache.bytes != m->inline_cache)
		forget_writable_pages(m->proc->inline_pages);
	return 0;
}

int replay_memory_cache_acquire(struct replay_memory *m)
{
	return acquire(m, true);
}

int replay_memory_cache_acquire_to_overwrite(struct replay_memory *m)
{
	return acquire(m, false);
}

void replay_memory_cache_release(struct replay_memory *m)
{
	predict_cache_fini(&m->cache);
}

void replay_memory_fini(struct replay_memory *m)
{
	predict_cache_fini(&m->cache);
	cursor_close(&m->cursor);
}

/*
 * Reads made inline (emu.h, hits_limit): translated code reads a page of
 * the inline table itself when the image knows the bytes, the cache
 * predicts them and no miss is due; the read then changes nothing but the
 * hit count, as replay_read_uint_inline would have done: the image
 * already holds the value (so no first read either) and the page is in
 * the segment's read set already (pages enter the table only once noted,
 * and the table empties when the set changes). A pass log (a range's of
 * the first pass, pass_log.h) takes only reads of bytes the image does
 * not know, never made inline, so the table serves it too; watchpoints
 * (on_access) come with an emulator observer, under which translated
 * code does not run.
 */
static void set_hits_limit(struct replay_memory *m)
{
	bool inline_ok = m->next_loaded && !m->diverged && m->cache.bytes &&
			 m->cache.bytes == m->inline_cache &&
			 predict_cache_blocks_consecutive(&m->cache);
	m->hits_limit = !inline_ok ? 0 : m->next.valid ? m->miss_at : UINT64_MAX;
}

static void unload_next(struct replay_memory *m)
{
	m->next_loaded = false;
	m->hits_limit = 0;
}

static const struct emu_inline_memory *replay_inline_memory(void *ctx)
{
	struct replay_memory *m = ctx;
	m->inline_cache = m->cache.bytes;
	m->inline_reads = (struct emu_inline_memory){
		.pages = m->proc->inline_pages,
		.page_mask = INLINE_PAGES - 1,
		.cache = m->cache.bytes,
		.cache_multiplier = PREDICT_CACHE_HASH_MULTIPLIER,
		.cache_shift = 64 - (m->cache.log2_entries - PREDICT_CACHE_GROUP_LOG2),
		.cache_direct_mask = predict_cache_direct(&m->cache)
					     ? (PREDICT_CACHE_LINE << m->cache.log2_entries) - 1
					     : 0,
		.hits_since_miss = &m->cache.hits_since_miss,
		.writes_inline = true, /* WRITABLE never on a logged code page */
		.dirty_offset = (uint64_t)memory_image_known_offset,
		.hits_limit = &m->hits_limit,
	};
	set_hits_limit(m);
	return &m->inline_reads;
}

/* After a read of page pg the replay noted (or keeps no read set for):
 * later reads of it may be made inline. */
static inline void offer_inline_page(struct process_memory *p, uint64_t pg)
{
	struct emu_inline_page *e = &p->inline_pages[pg % INLINE_PAGES];
	if ((e->tag & ~(uint64_t)EMU_INLINE_PAGE_WRITABLE) == pg * PAGE_SIZE || p->on_access ||
	    (p->read_pages && p->noted_read_pages[pg % NOTED_PAGES] != pg + 1))
		return;
	uint8_t *data = memory_image_page_data(p->image, pg * PAGE_SIZE, false);
	if (data)
		emu_inline_page_set(e, pg * PAGE_SIZE, data, false);
}

static inline bool decoded_may_contain(const struct process_memory *p, uint64_t pg)
{
	unsigned b = (unsigned)(pg % DECODED_FILTER_BITS);
	return (p->decoded_filter[b / 64] >> (b % 64)) & 1;
}

/* The emulator decoded code on the page: writes there call from now on
 * (emu.h, decoded_code_page). */
static void replay_decoded_code_page(void *ctx, uint64_t page_addr)
{
	struct process_memory *p = ((struct replay_memory *)ctx)->proc;
	uint64_t pg = page_addr / PAGE_SIZE;
	unsigned b = (unsigned)(pg % DECODED_FILTER_BITS);
	p->decoded_filter[b / 64] |= 1ull << (b % 64);
	struct emu_inline_page *e = &p->inline_pages[pg % INLINE_PAGES];
	if (e->tag == (page_addr | EMU_INLINE_PAGE_WRITABLE))
		e->tag = page_addr;
}

/*
 * After a write to page pg the replay noted (or keeps no written set
 * for), by a thread whose translated code knows its cache: when the page
 * is in the table (read inline), is the image's own (no snapshot shares
 * it) and may hold no logged code (the filter: writes there call, to
 * un-log it), translated code makes the next writes there itself: the
 * bytes and their known bits into the image's page (what
 * memory_image_store_word does to a private page), the value into the
 * cache (predict_cache_update_uint).
 */
static inline void offer_writable_page(struct replay_memory *m, uint64_t pg)
{
	struct process_memory *p = m->proc;
	struct emu_inline_page *e = &p->inline_pages[pg % INLINE_PAGES];
	/* (A format 1.4 cache hashes each entry alone: the inline path's
	 * block hash would update another entry.) */
	if (e->tag != pg * PAGE_SIZE || m->cache.bytes != m->inline_cache ||
	    !predict_cache_blocks_consecutive(&m->cache) || p->on_access ||
	    (p->written_pages && p->noted_pages[pg % NOTED_PAGES] != pg + 1) ||
	    code_page_set_may_contain(p->code_pages, pg) || decoded_may_contain(p, pg))
		return;
	if (memory_image_page_data(p->image, pg * PAGE_SIZE, true) == e->data)
		e->tag |= EMU_INLINE_PAGE_WRITABLE;
}

static void diverge(struct replay_memory *m, const char *why)
{
	m->hits_limit = 0;
	if (!m->diverged) {
		m->diverged = true;
		snprintf(m->why, sizeof(m->why), "%s", why);
	}
}

void replay_memory_checkpoint(struct replay_memory *m)
{
	const struct idna_record *r;
	while ((r = cursor_peek(&m->cursor)) != NULL) {
		cursor_next(&m->cursor);
		if (r->type == IDNA_REC_CHECKPOINT)
			break;
	}
	predict_cache_flush(&m->cache);
	code_page_set_clear(m->proc->code_pages);
	unload_next(m);
}

void process_memory_note_writes(struct process_memory *p, struct code_page_set *pages)
{
	p->written_pages = pages;
	memset(p->noted_pages, 0, sizeof(p->noted_pages));
	forget_writable_pages(p->inline_pages);
}

void process_memory_note_reads(struct process_memory *p, struct code_page_set *pages)
{
	p->read_pages = pages;
	memset(p->noted_read_pages, 0, sizeof(p->noted_read_pages));
	forget_inline_pages(p->inline_pages);
}

/* Adds page pg to a summary set (written or read pages), remembering it
 * in `recent` (page + 1 at pg % NOTED_PAGES) on success. */
static __attribute__((noinline)) void note_page_slow(struct code_page_set *pages, uint64_t *recent,
						     bool *incomplete, uint64_t pg)
{
	if (!code_page_set_contains(pages, pg) && !code_page_set_add(pages, pg))
		*incomplete = true;
	else
		recent[pg % NOTED_PAGES] = pg + 1;
}

static inline void note_written_page(struct process_memory *p, uint64_t pg)
{
	if (__builtin_expect(p->written_pages != NULL, 0) &&
	    p->noted_pages[pg % NOTED_PAGES] != pg + 1)
		note_page_slow(p->written_pages, p->noted_pages, &p->written_incomplete, pg);
}

static inline void note_read_page(struct process_memory *p, uint64_t pg)
{
	if (__builtin_expect(p->read_pages != NULL, 0) &&
	    p->noted_read_pages[pg % NOTED_PAGES] != pg + 1)
		note_page_slow(p->read_pages, p->noted_read_pages, &p->read_incomplete, pg);
}

void process_memory_note_written(struct process_memory *p, uint64_t addr, uint64_t len)
{
	for (uint64_t pg = addr / PAGE_SIZE; len && pg <= (addr + len - 1) / PAGE_SIZE; pg++)
		note_written_page(p, pg);
}

void process_memory_code_changed(struct process_memory *p, uint64_t addr, uint64_t len)
{
	if (len == UINT64_MAX) {
		code_page_set_clear(p->code_pages);
		return;
	}
	for (uint64_t pg = addr / PAGE_SIZE; len && pg <= (addr + len - 1) / PAGE_SIZE; pg++)
		code_page_set_remove(p->code_pages, pg);
}

/* Makes m->next describe the pending miss, if the next memory record is
 * one. */
static __attribute__((noinline)) void load_next_record(struct replay_memory *m)
{
	m->next_loaded = true;
	m->next.valid = false;
	const struct idna_record *r = cursor_peek(&m->cursor);
	if (!r || r->type != IDNA_REC_MISS) {
		set_hits_limit(m);
		return;
	}
	if (r->u.miss.hits_before < m->cache.hits_since_miss) {
		diverge(m, "a prediction miss came later than the log says");
		return;
	}
	m->next.valid = true;
	m->next.hits_before = r->u.miss.hits_before - m->cache.hits_since_miss;
	m->miss_at = r->u.miss.hits_before;
	m->next.value = r->u.miss.value;
	m->next.len = r->u.miss.len;
	set_hits_limit(m);
}

static inline void load_next(struct replay_memory *m)
{
	if (__builtin_expect(!m->next_loaded, 0))
		load_next_record(m);
}

/*
 * A read of 9..64 bytes (vector loads) the cache predicts, with no
 * observer or pass log: what replay_read does for it, the image read a
 * word's piece at a time (memory_image_read_word: no store when the
 * image knows those bytes with these values). false: not such a read,
 * nothing done.
 */
static bool read_predicted_by_words(struct replay_memory *m, uint64_t addr, uint8_t *out,
				    size_t size)
{
	struct process_memory *p = m->proc;
	if (size <= PREDICT_CACHE_LINE || size > IDNA_MAX_READ || p->before_access || p->on_access ||
	    p->log)
		return false;
	load_next(m);
	if (m->next.valid && m->cache.hits_since_miss == m->miss_at)
		return false;
	predict_cache_predict(&m->cache, addr, out, (unsigned)size);
	m->cache.hits_since_miss++;
	for (size_t done = 0; done < size;) {
		uint64_t a = addr + done, value = 0;
		unsigned n = PREDICT_CACHE_LINE - (unsigned)(a & 7);
		if (n > size - done)
			n = (unsigned)(size - done);
		memcpy(&value, out + done, n); /* little-endian host */
		memory_image_read_word(p->image, p->future, a, n, value, p->transition_time);
		done += n;
	}
	for (uint64_t pg = addr / PAGE_SIZE; pg <= (addr + size - 1) / PAGE_SIZE; pg++)
		note_read_page(p, pg);
	return true;
}

static int replay_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct replay_memory *m = ctx;
	struct process_memory *p = m->proc;
	uint8_t *out = buf;
	if (read_predicted_by_words(m, addr, out, size))
		return EMU_MEM_OK;
	if (__builtin_expect(p->before_access != NULL, 0))
		p->before_access(p->before_access_ctx, addr, size, false);
	for (size_t done = 0; done < size;) {
		unsigned n = size - done > IDNA_MAX_READ ? IDNA_MAX_READ : (unsigned)(size - done);
		load_next(m);
		if (m->next.valid) /* inline reads count hits_since_miss only */
			m->next.hits_before = m->miss_at - m->cache.hits_since_miss;
		int r = predict_cache_replay_read(&m->cache, addr + done, out + done, n, &m->next);
		if (r < 0)
			diverge(m, "a logged miss has another size than the read");
		else if (r == 1) {
			cursor_next(&m->cursor);
			unload_next(m);
		}
		done += n;
	}
	if (p->future)
		memory_image_store_first_reads(p->image, p->future, addr, buf, size,
					       p->transition_time);
	if (p->log)
		pass_log_read(p->log, p->image, addr, buf, size, p->transition_time);
	memory_image_store(p->image, addr, buf, size);
	for (uint64_t pg = addr / PAGE_SIZE; size && pg <= (addr + size - 1) / PAGE_SIZE; pg++)
		note_read_page(p, pg);
	if (p->on_access)
		p->on_access(p->access_ctx, addr, size, false);
	return EMU_MEM_OK;
}

/* Writes of at most this many bytes go to the cache and the image a word
 * at a time (write_word): vector stores, mostly. Longer ones (string
 * copies, fxsave) are stored in one go. */
#define WRITE_BY_WORDS_MAX 64u

/* A write of n (1..8) bytes within one entry, observers aside. */
static inline __attribute__((always_inline)) void write_word(struct replay_memory *m, uint64_t addr,
							     unsigned size, uint64_t value)
{
	struct process_memory *p = m->proc;
	predict_cache_update_uint(&m->cache, addr, value, size);
	uint64_t pg = addr / PAGE_SIZE; /* one page: the entry is aligned */
	if (__builtin_expect(code_page_set_may_contain(p->code_pages, pg), 0) &&
	    code_page_set_contains(p->code_pages, pg))
		code_page_set_remove(p->code_pages, pg);
	memory_image_store_word(p->image, addr, size, value);
	note_written_page(p, pg);
	/* A written page counts as read too (the read set stays a superset
	 * of the pages reads touch), so that a page the program writes
	 * before reading it, or never reads (an array filled, a merge's
	 * buffer), enters the inline table and its next writes make no
	 * call. Every write notes it, whatever the table holds, so the
	 * sets do not depend on it. */
	note_read_page(p, pg);
	offer_inline_page(p, pg);
	offer_writable_page(m, pg);
}

static int replay_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct replay_memory *m = ctx;
	struct process_memory *p = m->proc;
	if (__builtin_expect(p->before_access != NULL, 0))
		p->before_access(p->before_access_ctx, addr, size, true);
	if (size <= WRITE_BY_WORDS_MAX) {
		/* The same bytes into the same places as the loop below,
		 * one aligned word's piece at a time. */
		const uint8_t *b = buf;
		for (size_t done = 0; done < size;) {
			uint64_t a = addr + done, value = 0;
			unsigned n = PREDICT_CACHE_LINE - (unsigned)(a & 7);
			if (n > size - done)
				n = (unsigned)(size - done);
			memcpy(&value, b + done, n); /* little-endian host */
			write_word(m, a, n, value);
			done += n;
		}
	} else {
		predict_cache_update(&m->cache, addr, buf, size);
		for (uint64_t pg = addr / PAGE_SIZE; pg <= (addr + size - 1) / PAGE_SIZE; pg++) {
			if (code_page_set_may_contain(p->code_pages, pg) &&
			    code_page_set_contains(p->code_pages, pg))
				code_page_set_remove(p->code_pages, pg);
			note_written_page(p, pg);
		}
		memory_image_store(p->image, addr, buf, size);
	}
	if (p->on_access)
		p->on_access(p->access_ctx, addr, size, true);
	return EMU_MEM_OK;
}

/* A page not logged since the checkpoint can be fetched only if the next
 * memory record is its CODE_PAGE, as it was when recording. */
static bool have_code_page(struct replay_memory *m, uint64_t pg)
{
	struct process_memory *p = m->proc;
	if (code_page_set_contains(p->code_pages, pg))
		return true;
	const struct idna_record *r = cursor_peek(&m->cursor);
	if (!r || r->type != IDNA_REC_CODE_PAGE || r->u.code_page.addr != pg * PAGE_SIZE ||
	    r->u.code_page.len != PAGE_SIZE)
		return false;
	if (p->future)
		memory_image_store_first_reads(p->image, p->future, pg * PAGE_SIZE,
					       r->u.code_page.bytes, PAGE_SIZE, p->transition_time);
	if (p->log)
		pass_log_read(p->log, p->image, pg * PAGE_SIZE, r->u.code_page.bytes, PAGE_SIZE,
			      p->transition_time);
	memory_image_store(p->image, pg * PAGE_SIZE, r->u.code_page.bytes, PAGE_SIZE);
	code_page_set_add(p->code_pages, pg);
	/* Writes there must call now, to un-log it. */
	struct emu_inline_page *e = &p->inline_pages[pg % INLINE_PAGES];
	if (e->tag == (pg * PAGE_SIZE | EMU_INLINE_PAGE_WRITABLE))
		e->tag = pg * PAGE_SIZE;
	cursor_next(&m->cursor);
	unload_next(m);
	return true;
}

static size_t replay_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct replay_memory *m = ctx;
	size_t done = 0;
	if (m->proc->on_fetch)
		m->proc->on_fetch(m->proc->fetch_ctx, addr, size);
	while (done < size) {
		uint64_t a = addr + done;
		if (!have_code_page(m, a / PAGE_SIZE))
			break;
		size_t n = PAGE_SIZE - (a % PAGE_SIZE);
		if (n > size - done)
			n = size - done;
		if (memory_image_load(m->proc->image, a, (uint8_t *)buf + done, n) != n)
			break;
		done += n;
	}
	return done;
}

/*
 * The integer forms, for reads and writes of 1..8 bytes within one
 * prediction-cache entry (nearly all): the same steps as replay_read and
 * replay_write, without buffers, loops or calls for the common case.
 * Anything else, and a read the log says missed, takes those. Inline,
 * so that the copies for one size each (translated code calls those)
 * fold the size's tests and masks away.
 */
static __attribute__((noinline)) struct emu_mem_uint replay_read_uint_slow(void *ctx,
									  uint64_t addr,
									  unsigned size)
{
	uint8_t bytes[8] = { 0 };
	struct emu_mem_uint got = { .status = replay_read(ctx, addr, bytes, size) };
	memcpy(&got.value, bytes, sizeof(bytes)); /* little-endian host */
	return got;
}

/* What a read of n bytes within one entry does once its value is known
 * (the cache's or the logged miss's): the image, the read pages, the
 * observers. */
static inline __attribute__((always_inline)) struct emu_mem_uint
finish_read_uint(struct replay_memory *m, uint64_t addr, unsigned size, uint64_t value)
{
	struct process_memory *p = m->proc;
	if (__builtin_expect(p->log != NULL, 0))
		pass_log_read(p->log, p->image, addr, &value, size, p->transition_time);
	memory_image_read_word(p->image, p->future, addr, size, value, p->transition_time);
	note_read_page(p, addr / PAGE_SIZE); /* one page: the entry is aligned */
	offer_inline_page(p, addr / PAGE_SIZE);
	if (__builtin_expect(p->on_access != NULL, 0))
		p->on_access(p->access_ctx, addr, size, false);
	return (struct emu_mem_uint){ .value = value, .status = EMU_MEM_OK };
}

/* A read within one entry that the log says missed: what replay_read and
 * predict_cache_replay_read do for it, the value taken from the record
 * (about one read in 300 of a sort). A miss of another size diverges
 * there. */
static __attribute__((noinline)) struct emu_mem_uint replay_read_uint_missed(void *ctx,
									    uint64_t addr,
									    unsigned size)
{
	struct replay_memory *m = ctx;
	struct process_memory *p = m->proc;
	if (m->next.len != size)
		return replay_read_uint_slow(ctx, addr, size);
	if (__builtin_expect(p->before_access != NULL, 0))
		p->before_access(p->before_access_ctx, addr, size, false);
	uint64_t value = 0;
	switch (size) { /* constant sizes: no call to memcpy */
	case 1: value = m->next.value[0]; break;
	case 2: { uint16_t v; memcpy(&v, m->next.value, 2); value = v; break; }
	case 4: { uint32_t v; memcpy(&v, m->next.value, 4); value = v; break; }
	case 8: memcpy(&value, m->next.value, 8); break;
	default: memcpy(&value, m->next.value, size); break; /* little-endian host */
	}
	predict_cache_update_uint(&m->cache, addr, value, size);
	predict_cache_end_run(&m->cache);
	m->cache.misses++;
	cursor_next(&m->cursor);
	/* The next miss now, not at the next read: that read, and the
	 * hits up to the next miss, can then be made inline
	 * (set_hits_limit) instead of calling to load it. */
	unload_next(m);
	load_next_record(m);
	return finish_read_uint(m, addr, size, value);
}

static inline __attribute__((always_inline)) struct emu_mem_uint
replay_read_uint_inline(void *ctx, uint64_t addr, unsigned size)
{
	struct replay_memory *m = ctx;
	if (__builtin_expect((addr & 7) + size > PREDICT_CACHE_LINE, 0))
		return replay_read_uint_slow(ctx, addr, size);
	load_next(m);
	if (__builtin_expect(m->next.valid && m->cache.hits_since_miss == m->miss_at, 0))
		return replay_read_uint_missed(ctx, addr, size);
	struct process_memory *p = m->proc;
	if (__builtin_expect(p->before_access != NULL, 0))
		p->before_access(p->before_access_ctx, addr, size, false);
	uint64_t entry, value;
	memcpy(&entry, predict_cache_slot(&m->cache, addr), 8);
	value = (entry >> ((addr & 7) * 8)) & predict_cache_lane_mask(size);
	m->cache.hits_since_miss++;
	return finish_read_uint(m, addr, size, value);
}

static __attribute__((noinline)) int replay_write_uint_slow(void *ctx, uint64_t addr,
							    unsigned size, uint64_t value)
{
	uint8_t bytes[8];
	memcpy(bytes, &value, sizeof(bytes));
	return replay_write(ctx, addr, bytes, size);
}

static inline __attribute__((always_inline)) int
replay_write_uint_inline(void *ctx, uint64_t addr, unsigned size, uint64_t value)
{
	struct replay_memory *m = ctx;
	struct process_memory *p = m->proc;
	if (__builtin_expect((addr & 7) + size > PREDICT_CACHE_LINE, 0))
		return replay_write_uint_slow(ctx, addr, size, value);
	if (__builtin_expect(p->before_access != NULL, 0))
		p->before_access(p->before_access_ctx, addr, size, true);
	write_word(m, addr, size, value);
	if (__builtin_expect(p->on_access != NULL, 0))
		p->on_access(p->access_ctx, addr, size, true);
	return EMU_MEM_OK;
}

static struct emu_mem_uint replay_read_uint(void *ctx, uint64_t addr, unsigned size)
{
	return replay_read_uint_inline(ctx, addr, size);
}

static int replay_write_uint(void *ctx, uint64_t addr, unsigned size, uint64_t value)
{
	return replay_write_uint_inline(ctx, addr, size, value);
}

#define REPLAY_UINT_SIZED(N) \
	static struct emu_mem_uint replay_read_u##N(void *ctx, uint64_t addr) \
	{ return replay_read_uint_inline(ctx, addr, N); } \
	static int replay_write_u##N(void *ctx, uint64_t addr, uint64_t value) \
	{ return replay_write_uint_inline(ctx, addr, N, value); }
REPLAY_UINT_SIZED(1)
REPLAY_UINT_SIZED(2)
REPLAY_UINT_SIZED(4)
REPLAY_UINT_SIZED(8)

const struct emu_memory_ops replay_memory_ops = {
	.read = replay_read,
	.write = replay_write,
	.fetch = replay_fetch,
	.read_uint = replay_read_uint,
	.write_uint = replay_write_uint,
	.read_uint_sized = { replay_read_u1, replay_read_u2, replay_read_u4, replay_read_u8 },
	.write_uint_sized = { replay_write_u1, replay_write_u2, replay_write_u4, replay_write_u8 },
	.inline_memory = replay_inline_memory,
	.decoded_code_page = replay_decoded_code_page,
};
