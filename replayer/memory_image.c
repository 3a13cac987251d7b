/*
 * memory_image.c — pages of known bytes in a chained hash table; pages are
 * reference-counted and copied before a write when shared with a snapshot.
 * Every replayed read and write lands here, so a small direct-mapped cache
 * of recently found slots sits in front of the hash table (slots live as
 * long as their image), and known-bit ranges are set a word at a time.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/memory_image.h"
#include "replayer/wide_changes.h"

#define PAGE_SIZE MEMORY_IMAGE_PAGE
#define BUCKETS 4096u

struct memory_image_page {
	unsigned refs;
	bool timed;  /* has valid_from (set only by memory_image_page_make) */
	uint64_t known[PAGE_SIZE / 64]; /* bit i: byte i is known */
	uint8_t data[PAGE_SIZE];
	/* Future images only (the pages of others end before it): the
	 * values of each 8-byte word hold from then. */
	uint64_t valid_from[PAGE_SIZE / 8];
};

/* The bytes of a page of an image with or without times. */
static size_t page_bytes(bool timed)
{
	return timed ? sizeof(struct memory_image_page) : offsetof(struct memory_image_page, valid_from);
}

struct slot {
	uint64_t addr;
	struct memory_image_page *page;
	struct slot *next;
};

#define RECENT_SLOTS 512u

/* A slot found lately, and its page (kept current when the slot's page
 * is replaced by a private copy): one load answers most lookups. */
struct recent {
	uint64_t addr;
	struct slot *slot;
	struct memory_image_page *page;
};

struct memory_image {
	struct slot *buckets[BUCKETS];
	/* By page number modulo RECENT_SLOTS. A lookup aid, not part of the
	 * image's contents: readers of a const image update it too. */
	struct recent recent[RECENT_SLOTS];
	bool timed;      /* a future image: its pages carry valid_from */
	/* A snapshot's slots, allocated at once (freed with the image);
	 * slots added later are allocated one by one. */
	struct slot *slab;
	size_t slab_count;
	/* Told when a slot's page is replaced (memory_image_on_move). */
	memory_image_move_fn *on_move;
	void *move_ctx;
	/* A future image's blocked ranges of more than MAX_WALK_PAGES
	 * pages, whatever pages the image holds (wide_changes.h). */
	struct wide_changes wide;
};

static bool in_slab(const struct memory_image *m, const struct slot *s)
{
	return m->slab && s >= m->slab && s < m->slab + m->slab_count;
}

static unsigned bucket_of(uint64_t page_addr)
{
	uint64_t n = page_addr >> 12;
	return (unsigned)((n ^ (n >> 12) ^ (n >> 24)) & (BUCKETS - 1));
}

struct memory_image *memory_image_new(void)
{
	return calloc(1, sizeof(struct memory_image));
}

static void release(struct memory_image_page *p)
{
	if (p && --p->refs == 0)
		free(p);
}

void memory_image_free(struct memory_image *m)
{
	if (!m)
		return;
	for (unsigned b = 0; b < BUCKETS; b++) {
		struct slot *s = m->buckets[b];
		while (s) {
			struct slot *next = s->next;
			release(s->page);
			if (!in_slab(m, s))
				free(s);
			s = next;
		}
	}
	free(m->slab);
	wide_changes_free(&m->wide);
	free(m);
}

struct memory_image *memory_image_snapshot(const struct memory_image *m)
{
	struct memory_image *c = memory_image_new();
	if (!c)
		return NULL;
	if (m->on_move) /* its pages are shared from now on */
		m->on_move(m->move_ctx, MEMORY_IMAGE_ALL_PAGES);
	c->timed = m->timed;
	if (!wide_changes_copy(&c->wide, &m->wide)) {
		memory_image_free(c);
		return NULL;
	}
	size_t count = 0;
	for (unsigned b = 0; b < BUCKETS; b++)
		for (const struct slot *s = m->buckets[b]; s; s = s->next)
			count++;
	c->slab = malloc((count ? count : 1) * sizeof(*c->slab));
	if (!c->slab) {
		memory_image_free(c);
		return NULL;
	}
	c->slab_count = count;
	struct slot *n = c->slab;
	for (unsigned b = 0; b < BUCKETS; b++)
		for (const struct slot *s = m->buckets[b]; s; s = s->next, n++) {
			n->addr = s->addr;
			n->page = s->page;
			n->page->refs++;
			n->next = c->buckets[b];
			c->buckets[b] = n;
		}
	return c;
}

static __attribute__((noinline)) struct slot *find_in_buckets(struct recent *recent,
								 const struct memory_image *m,
								 uint64_t page_addr)
{
	for (struct slot *s = m->buckets[bucket_of(page_addr)]; s; s = s->next)
		if (s->addr == page_addr) {
			*recent = (struct recent){ page_addr, s, s->page };
			return s;
		}
	return NULL;
}

static inline struct recent *recent_of(const struct memory_image *image, uint64_t page_addr)
{
	struct memory_image *m = (struct memory_image *)image; /* only `recent` changes */
	return &m->recent[(page_addr >> 12) % RECENT_SLOTS];
}

/* Inline: nearly every lookup is answered by `recent`. */
static inline struct slot *find(const struct memory_image *m, uint64_t page_addr)
{
	struct recent *r = recent_of(m, page_addr);
	if (r->slot && r->addr == page_addr)
		return r->slot;
	return find_in_buckets(r, m, page_addr);
}

/* The page at page_addr, NULL if the image has none. */
static inline struct memory_image_page *find_page(const struct memory_image *m, uint64_t page_addr)
{
	struct recent *r = recent_of(m, page_addr);
	if (r->slot && r->addr == page_addr)
		return r->page;
	struct slot *s = find_in_buckets(r, m, page_addr);
	return s ? s->page : NULL;
}

/* The page at page_addr, private to m (copied if shared), created if
 * absent. */
static struct memory_image_page *writable_page(struct memory_image *m, uint64_t page_addr)
{
	struct slot *s = find(m, page_addr);
	if (!s) {
		s = malloc(sizeof(*s));
		struct memory_image_page *p = calloc(1, page_bytes(m->timed));
		if (!s || !p) {
			free(s);
			free(p);
			return NULL;
		}
		p->refs = 1;
		s->addr = page_addr;
		s->page = p;
		unsigned b = bucket_of(page_addr);
		s->next = m->buckets[b];
		m->buckets[b] = s;
		*recent_of(m, page_addr) = (struct recent){ page_addr, s, p };
		return p;
	}
	if (s->page->refs > 1) {
		struct memory_image_page *copy = malloc(page_bytes(m->timed));
		if (!copy)
			return NULL;
		memcpy(copy, s->page, page_bytes(m->timed));
		copy->refs = 1;
		s->page->refs--;
		s->page = copy;
		/* find() made this slot the recent one of its page. */
		recent_of(m, page_addr)->page = copy;
		if (m->on_move)
			m->on_move(m->move_ctx, page_addr);
	}
	return s->page;
}

/* The bits of known-word off / 64 that [off, off + n) covers, n > 0; *taken
 * receives how many of the n bytes they are. */
static uint64_t known_mask(unsigned off, unsigned n, unsigned *taken)
{
	unsigned bit = off % 64, take = 64 - bit < n ? 64 - bit : n;
	*taken = take;
	return (take == 64 ? ~0ull : (1ull << take) - 1) << bit;
}

static void set_known(struct memory_image_page *p, unsigned off, unsigned n, bool known)
{
	while (n) {
		unsigned take;
		uint64_t mask = known_mask(off, n, &take);
		if (known)
			p->known[off / 64] |= mask;
		else
			p->known[off / 64] &= ~mask;
		off += take;
		n -= take;
	}
}

static bool all_known(const struct memory_image_page *p, unsigned off, unsigned n)
{
	while (n) {
		unsigned take;
		uint64_t mask = known_mask(off, n, &take);
		if ((p->known[off / 64] & mask) != mask)
			return false;
		off += take;
		n -= take;
	}
	return true;
}

bool memory_image_store(struct memory_image *m, uint64_t addr, const void *bytes, size_t len)
{
	const uint8_t *b = bytes;
	while (len) {
		uint64_t pa = addr & ~(uint64_t)(PAGE_SIZE - 1);
		unsigned off = (unsigned)(addr - pa);
		unsigned n = PAGE_SIZE - off < len ? PAGE_SIZE - off : (unsigned)len;
		struct memory_image_page *p = writable_page(m, pa);
		if (!p)
			return false;
		memcpy(p->data + off, b, n);
		set_known(p, off, n, true);
		addr += n;
		b += n;
		len -= n;
	}
	return true;
}

/* The known bits of n bytes at page offset off, within one aligned 8-byte
 * word (so within one known word). */
static inline uint64_t word_known_bits(unsigned off, unsigned n)
{
	return (~0ull >> (64 - n)) << (off % 64);
}

/* The slot's page, private to m: the slot's own when nothing shares it. */
static inline struct memory_image_page *writable_slot_page(struct memory_image *m, struct slot *s,
						    uint64_t page_addr)
{
	return s && s->page->refs == 1 ? s->page : writable_page(m, page_addr);
}

static inline bool store_word_in(struct memory_image *m, struct slot *s, uint64_t addr,
				 unsigned n, uint64_t value)
{
	uint64_t pa = addr & ~(uint64_t)(PAGE_SIZE - 1);
	unsigned off = (unsigned)(addr - pa);
	struct memory_image_page *p = writable_slot_page(m, s, pa);
	if (!p)
		return false;
	switch (n) {
	case 1: p->data[off] = (uint8_t)value; break;
	case 2: { uint16_t v = (uint16_t)value; memcpy(p->data + off, &v, 2); break; }
	case 4: { uint32_t v = (uint32_t)value; memcpy(p->data + off, &v, 4); break; }
	case 8: memcpy(p->data + off, &value, 8); break;
	default: memcpy(p->data + off, &value, n); break; /* little-endian host */
	}
	p->known[off / 64] |= word_known_bits(off, n);
	return true;
}

bool memory_image_store_word(struct memory_image *m, uint64_t addr, unsigned n, uint64_t value)
{
	return store_word_in(m, find(m, addr & ~(uint64_t)(PAGE_SIZE - 1)), addr, n, value);
}

/* memory_image_read_word's every case: bytes not known yet (first
 * reads), a page not found lately or shared with a snapshot. */
static __attribute__((noinline)) void read_word_slow(struct memory_image *m,
						     struct memory_image *future, uint64_t addr,
						     unsigned n, uint64_t value, uint64_t valid_from)
{
	uint64_t pa = addr & ~(uint64_t)(PAGE_SIZE - 1);
	unsigned off = (unsigned)(addr - pa);
	struct slot *s = find(m, pa);
	const struct memory_image_page *p = s ? s->page : NULL;
	uint64_t bits = word_known_bits(off, n);
	if (p && (p->known[off / 64] & bits) == bits) {
		/* The common case: bytes the replay has seen already, with this
		 * value. Storing it again would change nothing, but would
		 * copy a page shared with a snapshot. */
		uint64_t word, mask = ~0ull >> (64 - 8 * n);
		memcpy(&word, p->data + (off & ~7u), 8);
		if (((word >> ((off & 7) * 8)) & mask) == (value & mask))
			return;
		/* A new value (a miss): stored through the slot found. */
		store_word_in(m, s, addr, n, value);
		return;
	}
	if (future)
		memory_image_store_first_reads(m, future, addr, &value, n, valid_from);
	memory_image_store_word(m, addr, n, value);
}

void memory_image_read_word(struct memory_image *m, struct memory_image *future, uint64_t addr,
			    unsigned n, uint64_t value, uint64_t valid_from)
{
	/* The cases of nearly every call, with no stack frame: a page found
	 * lately holding the bytes, private when the value is new. */
	uint64_t pa = addr & ~(uint64_t)(PAGE_SIZE - 1);
	unsigned off = (unsigned)(addr - pa);
	const struct recent *r = recent_of(m, pa);
	struct memory_image_page *p = r->page;
	uint64_t bits = word_known_bits(off, n);
	if (r->slot && r->addr == pa && (p->known[off / 64] & bits) == bits) {
		uint64_t *word = (uint64_t *)(void *)(p->data + (off & ~7u));
		unsigned shift = (off & 7) * 8;
		uint64_t mask = (~0ull >> (64 - 8 * n)) << shift;
		uint64_t w;
		memcpy(&w, word, 8);
		if ((w & mask) == ((value << shift) & mask))
			return;
		if (p->refs == 1) {
			w = (w & ~mask) | ((value << shift) & mask);
			memcpy(word, &w, 8);
			return;
		}
	}
	read_word_slow(m, future, addr, n, value, valid_from);
}

/* Plain images never set valid_from: every known byte holds from time 0. */
size_t memory_image_load(const struct memory_image *m, uint64_t addr, void *buf, size_t len)
{
	return memory_image_load_at(m, addr, buf, len, UINT64_MAX);
}

/* In a future image's valid_from words: the word's bytes not known there
 * are unknown at every time (a range the kernel changed covers them). */
#define BLOCKED (1ull << 63)

/* An operation on the piece [off, off + n) of the image's page at pa. */
typedef void piece_op(struct memory_image *m, uint64_t pa, unsigned off, unsigned n, bool flag);

/* Ranges of more than this many pages are changed only in the pages the
 * image holds (a whole new mapping is not worth pages of its own). */
#define MAX_WALK_PAGES 64u

/*
 * Calls op for each piece of [addr, addr+len) within one page: every page
 * of the range, or with only_held the pages the image holds; a range of
 * more than MAX_WALK_PAGES pages walks the held pages whatever only_held
 * says (op must not add pages to the image then: it may replace a held
 * page by its private copy).
 */
static void each_piece(struct memory_image *m, uint64_t addr, uint64_t len, bool only_held,
		       piece_op *op, bool flag)
{
	uint64_t end = addr + len < addr ? UINT64_MAX : addr + len;
	if (len > MAX_WALK_PAGES * (uint64_t)PAGE_SIZE) {
		for (unsigned b = 0; b < BUCKETS; b++)
			for (struct slot *s = m->buckets[b]; s; s = s->next)
				if (s->addr + PAGE_SIZE > addr && s->addr < end) {
					uint64_t lo = s->addr > addr ? s->addr : addr;
					uint64_t hi = s->addr + PAGE_SIZE < end ? s->addr + PAGE_SIZE : end;
					op(m, s->addr, (unsigned)(lo - s->addr), (unsigned)(hi - lo), flag);
				}
		return;
	}
	for (uint64_t a = addr; a < end;) {
		uint64_t pa = a & ~(uint64_t)(PAGE_SIZE - 1);
		uint64_t hi = pa + PAGE_SIZE < end ? pa + PAGE_SIZE : end;
		if (!only_held || find(m, pa))
			op(m, pa, (unsigned)(a - pa), (unsigned)(hi - a), flag);
		a = hi;
	}
}

/* A piece of a future image: forgotten, its words blocked. */
static void block_piece(struct memory_image *future, uint64_t pa, unsigned off, unsigned n,
			bool unused)
{
	(void)unused;
	struct memory_image_page *p = writable_page(future, pa);
	if (!p)
		return;
	set_known(p, off, n, false);
	for (unsigned w = off / 8; w <= (off + n - 1) / 8; w++)
		p->valid_from[w] |= BLOCKED;
}

/* A piece of a page the image holds: forgotten, or zero and known. */
static void change_piece(struct memory_image *m, uint64_t pa, unsigned off, unsigned n, bool zero)
{
	struct memory_image_page *p = writable_page(m, pa);
	if (!p)
		return;
	if (zero)
		memset(p->data + off, 0, n);
	set_known(p, off, n, zero);
}

void memory_image_forget(struct memory_image *m, uint64_t addr, uint64_t len)
{
	each_piece(m, addr, len, true, change_piece, false);
}

void memory_image_zero_held(struct memory_image *m, uint64_t addr, uint64_t len)
{
	each_piece(m, addr, len, true, change_piece, true);
}

void memory_image_block_future(struct memory_image *future, uint64_t addr, uint64_t len,
			       uint64_t time, bool file)
{
	future->timed = true; /* before its first page */
	each_piece(future, addr, len, false, block_piece, false);
	/* The pages it does not hold: the range as a whole, each word it
	 * touches. (When memory is short, like a page block_piece cannot
	 * copy, it stays unblocked.) */
	if (len > MAX_WALK_PAGES * (uint64_t)PAGE_SIZE) {
		uint64_t end = addr + len < addr || addr + len > UINT64_MAX - 7 ? UINT64_MAX
										   : (addr + len + 7) & ~7ull;
		struct wide_change c = { addr & ~7ull, end, time, file };
		memory_image_add_wide_change(future, &c);
	}
}

void memory_image_add_wide_change(struct memory_image *future, const struct wide_change *c)
{
	future->timed = true;
	wide_changes_add(&future->wide, c);
}

const struct wide_changes *memory_image_wide_changes(const struct memory_image *future)
{
	return &future->wide;
}

bool memory_image_blocked(const struct memory_image *future, uint64_t addr, uint64_t now)
{
	if (!future->timed)
		return false;
	uint64_t pa = addr & ~(uint64_t)(PAGE_SIZE - 1);
	const struct slot *s = find(future, pa);
	return (s && (s->page->valid_from[(addr - pa) / 8] & BLOCKED)) ||
	       wide_changes_block(&future->wide, addr, now);
}

/* One page's part of memory_image_store_first_reads: [off, off + n) of the
 * page at pa. false when memory is short. A known word (64 bytes) at a
 * time: a code page's first fetch is 4 KiB of first reads. */
static bool store_first_reads_in_page(const struct memory_image *past, struct memory_image *future,
				      uint64_t pa, unsigned off, unsigned n, const uint8_t *b,
				      uint64_t valid_from)
{
	const struct memory_image_page *before = find_page(past, pa);
	/* The common case: a read of bytes the replay has seen already. */
	if (before && all_known(before, off, n))
		return true;
	const struct memory_image_page *seen = find_page(future, pa);
	struct memory_image_page *p = NULL; /* future's, private, once written */
	for (unsigned start = off; n;) {
		unsigned take, k = off / 64;
		uint64_t fresh = known_mask(off, n, &take);
		if (before)
			fresh &= ~before->known[k];
		if (p || seen)
			fresh &= ~(p ? p : seen)->known[k];
		if (fresh) {
			if (!p && !(p = writable_page(future, pa)))
				return false;
			p->known[k] |= fresh;
			/* An 8-byte word at a time: its fresh bytes, its time. */
			for (unsigned word = 0; word < 8; word++) {
				unsigned bits = (unsigned)(fresh >> (8 * word)) & 0xff;
				if (!bits)
					continue;
				unsigned o = k * 64 + 8 * word;
				if (bits == 0xff)
					memcpy(p->data + o, b + (o - start), 8);
				else
					for (; bits; bits &= bits - 1) {
						unsigned i = o + (unsigned)__builtin_ctz(bits);
						p->data[i] = b[i - start];
					}
				uint64_t *w = &p->valid_from[o / 8];
				if (valid_from > (*w & ~BLOCKED))
					*w = valid_from | (*w & BLOCKED);
			}
		}
		off += take;
		n -= take;
	}
	return true;
}

void memory_image_store_first_reads(const struct memory_image *past, struct memory_image *future,
				    uint64_t addr, const void *bytes, size_t len,
				    uint64_t valid_from)
{
	const uint8_t *b = bytes;
	future->timed = true; /* before its first page */
	while (len) {
		uint64_t pa = addr & ~(uint64_t)(PAGE_SIZE - 1);
		unsigned off = (unsigned)(addr - pa);
		unsigned n = PAGE_SIZE - off < len ? PAGE_SIZE - off : (unsigned)len;
		if (!store_first_reads_in_page(past, future, pa, off, n, b, valid_from))
			return;
		addr += n;
		b += n;
		len -= n;
	}
}

/* How many of the n bytes at off in p are known, and in a timed image
 * valid by now, before the first that is not: a bitmap word at a time
 * (code fetches load a block's bytes at once). */
static unsigned loadable_run(const struct memory_image_page *p, bool timed, unsigned off,
			     unsigned n, uint64_t now)
{
	unsigned end = off + n, i = off;
	while (i < end) {
		unsigned rest_of_word = 64 - i % 64;
		uint64_t unknown = ~p->known[i / 64] >> (i % 64);
		unsigned run = unknown ? (unsigned)__builtin_ctzll(unknown) : rest_of_word;
		i += run;
		if (run < rest_of_word)
			break;
	}
	if (i > end)
		i = end;
	if (timed)
		for (unsigned k = off; k < i; k = (k / 8 + 1) * 8)
			if ((p->valid_from[k / 8] & ~BLOCKED) > now)
				return k - off;
	return i - off;
}

size_t memory_image_load_at(const struct memory_image *future, uint64_t addr, void *buf,
			    size_t len, uint64_t now)
{
	uint8_t *out = buf;
	size_t done = 0;
	while (done < len) {
		uint64_t a = addr + done;
		uint64_t pa = a & ~(uint64_t)(PAGE_SIZE - 1);
		const struct slot *s = find(future, pa);
		if (!s)
			return done;
		unsigned off = (unsigned)(a - pa);
		unsigned piece = PAGE_SIZE - off < len - done ? PAGE_SIZE - off : (unsigned)(len - done);
		unsigned run = loadable_run(s->page, future->timed, off, piece, now);
		memcpy(out + done, s->page->data + off, run);
		done += run;
		if (run < piece)
			return done;
	}
	return done;
}

size_t memory_image_run(const struct memory_image *m, uint64_t addr, size_t len, bool known)
{
	size_t n = 0;
	while (n < len) {
		uint64_t a = addr + n, pa = a & ~(uint64_t)(PAGE_SIZE - 1);
		unsigned off = (unsigned)(a - pa);
		unsigned take = PAGE_SIZE - off < len - n ? PAGE_SIZE - off : (unsigned)(len - n);
		const struct memory_image_page *p = find_page(m, pa);
		/* The common cases at once: a page not held, a piece all known. */
		if (!p || (known && all_known(p, off, take))) {
			if (!p && known)
				return n;
			n += take;
			continue;
		}
		for (unsigned i = off; i < off + take; i++, n++)
			if ((bool)((p->known[i / 64] >> (i % 64)) & 1) != known)
				return n;
	}
	return n;
}

/* Whether top's page adds nothing to base's: every byte it knows, base
 * knows with the same value. */
static bool page_adds_nothing(const struct memory_image_page *base,
			      const struct memory_image_page *top)
{
	for (unsigned w = 0; w < PAGE_SIZE / 64; w++) {
		uint64_t k = top->known[w];
		if ((base->known[w] & k) != k)
			return false;
		for (unsigned i = 0; k && i < 64; i++, k >>= 1)
			if ((k & 1) && base->data[w * 64 + i] != top->data[w * 64 + i])
				return false;
	}
	return true;
}

/* base's page with top's known bytes over it; NULL when memory is short. */
static struct memory_image_page *merged_page(const struct memory_image_page *base,
					     const struct memory_image_page *top)
{
	/* base->timed: false, as overlay takes untimed images only. */
	struct memory_image_page *p = malloc(page_bytes(base->timed));
	if (!p)
		return NULL;
	memcpy(p, base, page_bytes(base->timed));
	p->refs = 1;
	for (unsigned w = 0; w < PAGE_SIZE / 64; w++) {
		uint64_t k = top->known[w];
		if (k == ~0ull) {
			memcpy(p->data + w * 64, top->data + w * 64, 64);
		} else {
			for (unsigned i = 0; i < 64 && (k >> i); i++)
				if ((k >> i) & 1)
					p->data[w * 64 + i] = top->data[w * 64 + i];
		}
		p->known[w] |= top->known[w];
	}
	return p;
}

/* The page overlay puts at s->addr. *made: a new page (the caller drops
 * its reference once the image holds it). */
static struct memory_image_page *overlay_page(const struct memory_image *base, const struct slot *s,
					      const struct memory_image_overlay_prev *prev,
					      bool *made)
{
	*made = false;
	struct memory_image_page *bp = find_page(base, s->addr);
	if (!bp)
		return s->page;
	if (prev && find_page(prev->top, s->addr) == s->page && find_page(prev->base, s->addr) == bp) {
		struct memory_image_page *rp = find_page(prev->result, s->addr);
		if (rp)
			return rp;
	}
	if (page_adds_nothing(bp, s->page))
		return bp;
	*made = true;
	return merged_page(bp, s->page);
}

struct memory_image *memory_image_overlay(const struct memory_image *base,
					  const struct memory_image *top,
					  const struct memory_image_overlay_prev *prev)
{
	if (base->timed || top->timed)
		return NULL;
	struct memory_image *c = memory_image_snapshot(base);
	if (!c)
		return NULL;
	for (unsigned b = 0; b < BUCKETS; b++)
		for (const struct slot *s = top->buckets[b]; s; s = s->next) {
			bool made;
			struct memory_image_page *p = overlay_page(base, s, prev, &made);
			bool ok = p && memory_image_set_page(c, s->addr, p);
			if (made && p)
				release(p);
			if (!ok) {
				memory_image_free(c);
				return NULL;
			}
		}
	return c;
}

/* --- page by page, for the replay index ---------------------------------- */

bool memory_image_is_timed(const struct memory_image *m)
{
	return m->timed;
}

size_t memory_image_page_count(const struct memory_image *m)
{
	size_t n = 0;
	for (unsigned b = 0; b < BUCKETS; b++)
		for (const struct slot *s = m->buckets[b]; s; s = s->next)
			n++;
	return n;
}

void memory_image_for_each_page(const struct memory_image *m,
				void (*fn)(void *ctx, const struct memory_image_page_view *p),
				void *ctx)
{
	for (unsigned b = 0; b < BUCKETS; b++)
		for (const struct slot *s = m->buckets[b]; s; s = s->next) {
			struct memory_image_page_view v = {
				.page_addr = s->addr, .identity = s->page, .known = s->page->known,
				.data = s->page->data, .valid_from = m->timed ? s->page->valid_from : NULL,
			};
			fn(ctx, &v);
		}
}

bool memory_image_page_at(const struct memory_image *m, uint64_t page_addr,
			  struct memory_image_page_view *v)
{
	struct memory_image_page *p = find_page(m, page_addr);
	if (!p)
		return false;
	*v = (struct memory_image_page_view){
		.page_addr = page_addr, .identity = p, .known = p->known, .data = p->data,
		.valid_from = m->timed ? p->valid_from : NULL,
	};
	return true;
}

struct memory_image_page *memory_image_page_make(const struct memory_image_page_view *v)
{
	struct memory_image_page *p = malloc(page_bytes(v->valid_from != NULL));
	if (!p)
		return NULL;
	p->refs = 1;
	p->timed = v->valid_from != NULL;
	memcpy(p->known, v->known, sizeof(p->known));
	memcpy(p->data, v->data, sizeof(p->data));
	if (v->valid_from)
		memcpy(p->valid_from, v->valid_from, sizeof(p->valid_from));
	return p;
}

void memory_image_page_put(struct memory_image_page *p)
{
	release(p);
}

bool memory_image_share_page(struct memory_image *m, const struct memory_image *from,
			     uint64_t page_addr)
{
	struct memory_image_page *p = find_page(from, page_addr);
	return p && memory_image_add_page(m, page_addr, p);
}

bool memory_image_add_page(struct memory_image *m, uint64_t page_addr,
			   struct memory_image_page *p)
{
	if (page_addr % PAGE_SIZE || p->timed != m->timed || find(m, page_addr))
		return false;
	struct slot *s = malloc(sizeof(*s));
	if (!s)
		return false;
	p->refs++;
	s->addr = page_addr;
	s->page = p;
	unsigned b = bucket_of(page_addr);
	s->next = m->buckets[b];
	m->buckets[b] = s;
	return true;
}

bool memory_image_set_page(struct memory_image *m, uint64_t page_addr,
			   struct memory_image_page *p)
{
	struct slot *s = page_addr % PAGE_SIZE || p->timed != m->timed ? NULL : find(m, page_addr);
	if (!s)
		return memory_image_add_page(m, page_addr, p);
	p->refs++;
	release(s->page);
	s->page = p;
	/* find() made this slot the recent one of its page. */
	recent_of(m, page_addr)->page = p;
	if (m->on_move)
		m->on_move(m->move_ctx, page_addr);
	return true;
}

void memory_image_on_move(struct memory_image *m, memory_image_move_fn *fn, void *ctx)
{
	m->on_move = fn;
	m->move_ctx = ctx;
}

uint8_t *memory_image_page_data(struct memory_image *m, uint64_t page_addr, bool private_only)
{
	struct memory_image_page *p = find_page(m, page_addr);
	return p && (!private_only || p->refs == 1) ? p->data : NULL;
}

const int64_t memory_image_known_offset =
	(int64_t)offsetof(struct memory_image_page, known) -
	(int64_t)offsetof(struct memory_image_page, data);

struct memory_image *memory_image_new_timed(void)
{
	struct memory_image *m = memory_image_new();
	if (m)
		m->timed = true;
	return m;
}
