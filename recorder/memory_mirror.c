/*
 * memory_mirror.c — cached pages of the tracee, each with a byte-granular
 * dirty bitmap, in a chained hash table. In front of the table sits a small
 * direct-mapped translation cache of recently used pages (memory_mirror.h
 * has its inline accessors): a program's accesses alternate between a few
 * pages (stack, heap, data), so an access to a cached page is a tag
 * compare, a bounds check and a copy.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "memory_mirror.h"

#define PAGE_SIZE 4096u
#define PAGE_MASK (~(uint64_t)(PAGE_SIZE - 1))
/* The page table's buckets: it starts at MIN_BUCKETS and doubles when it
 * holds more pages than buckets, so chains stay short for programs of
 * hundreds of megabytes (xz's dictionary) without costing small ones. */
#define MIN_BUCKETS 4096u

struct mirror_page {
	uint64_t addr;
	struct mirror_page *next;        /* hash chain */
	/* The list of pages with dirty bytes (or a flush's part of it),
	 * doubly linked: a page leaves it without a walk of the list, which
	 * holds thousands of pages in a JVM or node between the calls that
	 * write everything back. */
	struct mirror_page *dirty_next, **dirty_pprev;
	unsigned prot;            /* MAPPING_* of the mapping holding it */
	bool dirty;
	/* A MAP_PRIVATE page of a file: the program's own copy, no longer
	 * the file's (written since loaded). */
	bool own_copy;
	/* An own copy the process does not have yet: its first write is
	 * still in the mirror (on the copy list below too). */
	bool copy_pending;
	struct mirror_page *copy_next, **copy_pprev;
	/* The inline write path finds dirty_bits right after data. */
	_Alignas(8) uint8_t data[PAGE_SIZE];
	uint64_t dirty_bits[PAGE_SIZE / 64];
};

/* Dirty runs gathered for one write_runs call. */
#define FLUSH_RUNS 1024 /* IOV_MAX */
struct flush_batch {
	struct iovec local[FLUSH_RUNS], remote[FLUSH_RUNS];
	size_t n;
};

struct memory_mirror {
	/* First member: the inline accessors of memory_mirror.h reach it. */
	struct memory_mirror_tlb tlb;
	struct mirror_page *tlb_pages[MIRROR_TLB_ENTRIES]; /* what each entry serves */
	struct mirror_backend backend;
	const struct mapping_table *maps;
	struct mirror_page **buckets;
	size_t bucket_mask; /* buckets - 1, a power of two less one */
	size_t n_pages;
	struct mirror_page *dirty_pages;
	size_t n_dirty; /* pages with dirty set */
	struct mirror_page *pending_copies; /* pages with copy_pending */
	struct memory_mirror_stats stats;
	struct flush_batch flush; /* a flush's runs, for backend.write_runs */
	bool quiet; /* memory_mirror_set_quiet */
	memory_mirror_stack_grower *grow_stack; /* optional */
	void *grow_ctx;
	/* memory_mirror_guard_writes: pages whose bit is set in either are
	 * never WRITABLE in the translation cache. */
	struct {
		const uint64_t *bits;
		uint64_t mask;
	} guards[MIRROR_GUARDS];
};

_Static_assert(offsetof(struct mirror_page, dirty_bits) ==
		       offsetof(struct mirror_page, data) + PAGE_SIZE,
	       "memory_mirror_mark_dirty finds the dirty bits after the data");

static unsigned tlb_index(uint64_t page_addr)
{
	return (unsigned)(page_addr >> 12) & (MIRROR_TLB_ENTRIES - 1);
}

/* The page the translation-cache entry for page_addr serves, or NULL. */
static struct mirror_page *tlb_page(const struct memory_mirror *m, uint64_t page_addr)
{
	return m->tlb_pages[tlb_index(page_addr)];
}

static bool write_guarded(const struct memory_mirror *m, uint64_t page_addr)
{
	for (unsigned g = 0; g < MIRROR_GUARDS; g++) {
		if (!m->guards[g].bits)
			continue;
		uint64_t b = (page_addr >> 12) & m->guards[g].mask;
		if ((m->guards[g].bits[b / 64] >> (b % 64)) & 1)
			return true;
	}
	return false;
}

/* Makes p the page its translation-cache entry serves. Writes take the
 * inline path only once the page is on the dirty list, so that path need
 * not link it, and never to a guarded page. */
static void tlb_fill(struct memory_mirror *m, struct mirror_page *p)
{
	unsigned i = tlb_index(p->addr);
	bool writable = p->dirty && (p->prot & MAPPING_WRITE) && !write_guarded(m, p->addr);
	m->tlb.entries[i] = (struct mirror_tlb_entry){
		.tag = p->addr | (writable ? MIRROR_TLB_WRITABLE : 0), .data = p->data,
		.read_tag = p->addr, .delta = (uintptr_t)p->data - (uintptr_t)p->addr };
	m->tlb_pages[i] = p;
}

static void tlb_forget(struct memory_mirror *m, const struct mirror_page *p)
{
	unsigned i = tlb_index(p->addr);
	if (m->tlb_pages[i] == p) {
		m->tlb.entries[i] = (struct mirror_tlb_entry){ .tag = MIRROR_TLB_EMPTY,
							       .read_tag = MIRROR_TLB_EMPTY };
		m->tlb_pages[i] = NULL;
	}
}

static size_t bucket_of(const struct memory_mirror *m, uint64_t page_addr)
{
	uint64_t n = page_addr >> 12;
	return (size_t)((n ^ (n >> 12) ^ (n >> 24)) & m->bucket_mask);
}

/* Twice the buckets, the pages spread over them again; on failure the
 * table stays as it is (longer chains, still correct). */
static void grow_buckets(struct memory_mirror *m)
{
	size_t n = (m->bucket_mask + 1) * 2;
	struct mirror_page **b = calloc(n, sizeof(*b));
	if (!b)
		return;
	struct mirror_page **old = m->buckets;
	size_t old_n = m->bucket_mask + 1;
	m->buckets = b;
	m->bucket_mask = n - 1;
	for (size_t i = 0; i < old_n; i++)
		while (old[i]) {
			struct mirror_page *p = old[i];
			old[i] = p->next;
			size_t k = bucket_of(m, p->addr);
			p->next = b[k];
			b[k] = p;
		}
	free(old);
}

struct memory_mirror *memory_mirror_new(const struct mirror_backend *backend,
					const struct mapping_table *maps)
{
	struct memory_mirror *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->buckets = calloc(MIN_BUCKETS, sizeof(*m->buckets));
	if (!m->buckets) {
		free(m);
		return NULL;
	}
	m->bucket_mask = MIN_BUCKETS - 1;
	m->backend = *backend;
	m->maps = maps;
	for (unsigned i = 0; i < MIRROR_TLB_ENTRIES; i++)
		m->tlb.entries[i].tag = m->tlb.entries[i].read_tag = MIRROR_TLB_EMPTY;
	return m;
}

static void dirty_list_push(struct mirror_page **head, struct mirror_page *p)
{
	p->dirty_next = *head;
	if (*head)
		(*head)->dirty_pprev = &p->dirty_next;
	p->dirty_pprev = head;
	*head = p;
}

static void dirty_list_remove(struct mirror_page *p)
{
	*p->dirty_pprev = p->dirty_next;
	if (p->dirty_next)
		p->dirty_next->dirty_pprev = p->dirty_pprev;
}

static void copy_done(struct mirror_page *p)
{
	if (!p->copy_pending)
		return;
	p->copy_pending = false;
	*p->copy_pprev = p->copy_next;
	if (p->copy_next)
		p->copy_next->copy_pprev = p->copy_pprev;
}

static void drop_page(struct memory_mirror *m, struct mirror_page **slot)
{
	struct mirror_page *p = *slot;
	*slot = p->next;
	copy_done(p);
	if (p->dirty) {
		dirty_list_remove(p);
		m->n_dirty--;
	}
	tlb_forget(m, p);
	free(p);
	m->n_pages--;
}

/* The cached page at page_addr, or NULL (nothing is loaded). */
static struct mirror_page *find_page(const struct memory_mirror *m, uint64_t page_addr)
{
	struct mirror_page *p = m->buckets[bucket_of(m, page_addr)];
	while (p && p->addr != page_addr)
		p = p->next;
	return p;
}

/* A range of at most this many pages, or of no more pages than are
 * dirty, is looked at page by page, a larger one through the dirty list
 * (node's collector hands 127-page ranges to mprotect and madvise while
 * thousands of pages are dirty). */
#define SMALL_RANGE_PAGES 64u
void memory_mirror_invalidate(struct memory_mirror *m, uint64_t addr, uint64_t len)
{
	bool all = len == UINT64_MAX || addr + len < addr;
	uint64_t first = addr & PAGE_MASK, end = addr + len;
	/* A range of fewer pages than the table has buckets and pages is
	 * cheaper by page; a larger one by scanning the buckets (node's
	 * collector unmaps and advises away megabytes at a time). */
	if (!all && (end - first) / PAGE_SIZE <= m->bucket_mask + 1 + m->n_pages) {
		for (uint64_t pa = first; pa < end; pa += PAGE_SIZE) {
			struct mirror_page **slot = &m->buckets[bucket_of(m, pa)];
			while (*slot && (*slot)->addr != pa)
				slot = &(*slot)->next;
			if (*slot)
				drop_page(m, slot);
		}
		return;
	}
	for (size_t b = 0; b <= m->bucket_mask; b++) {
		struct mirror_page **slot = &m->buckets[b];
		while (*slot) {
			uint64_t pa = (*slot)->addr;
			if (all || (pa + PAGE_SIZE > addr && pa < end))
				drop_page(m, slot);
			else
				slot = &(*slot)->next;
		}
	}
}

void memory_mirror_free(struct memory_mirror *m)
{
	if (!m)
		return;
	memory_mirror_invalidate(m, 0, UINT64_MAX);
	free(m->buckets);
	free(m);
}

/* The cached page at page_addr, loading it if it is cacheable; NULL if the
 * page is unmapped, shared or unreadable from outside (*prot tells which:
 * 0 for unmapped). */
static struct mirror_page *get_page(struct memory_mirror *m, uint64_t page_addr,
			     unsigned *prot)
{
	struct mirror_page *p = tlb_page(m, page_addr);
	if (p && p->addr == page_addr) {
		*prot = p->prot;
		return p;
	}
	size_t b = bucket_of(m, page_addr);
	for (p = m->buckets[b]; p; p = p->next)
		if (p->addr == page_addr) {
			tlb_fill(m, p);
			*prot = p->prot;
			return p;
		}
	const struct mapping *map = mapping_table_find(m->maps, page_addr);
	*prot = map ? map->flags : 0;
	if (!map || (map->flags & (MAPPING_SHARED | MAPPING_UNREADABLE_REMOTE)) ||
	    !(map->flags & MAPPING_READ))
		return NULL;
	p = malloc(sizeof(*p));
	if (!p)
		return NULL;
	if (m->backend.read(m->backend.ctx, page_addr, p->data, PAGE_SIZE) != 0) {
		free(p);
		*prot = 0;
		return NULL;
	}
	p->addr = page_addr;
	p->prot = map->flags;
	p->dirty = false;
	p->own_copy = false;
	p->copy_pending = false;
	memset(p->dirty_bits, 0, sizeof(p->dirty_bits));
	p->next = m->buckets[b];
	m->buckets[b] = p;
	if (++m->n_pages > m->bucket_mask + 1)
		grow_buckets(m);
	tlb_fill(m, p);
	m->stats.pages_loaded++;
	return p;
}

/* Marks [off, off+len) dirty a 64-bit word of the bitmap at a time. */
static inline void mark_dirty(struct memory_mirror *m, struct mirror_page *p, unsigned off,
			      unsigned len)
{
	while (len) {
		unsigned bit = off % 64, n = 64 - bit < len ? 64 - bit : len;
		uint64_t run = n == 64 ? ~0ull : (1ull << n) - 1;
		p->dirty_bits[off / 64] |= run << bit;
		off += n;
		len -= n;
	}
	if (!p->dirty) {
		p->dirty = true;
		m->n_dirty++;
		dirty_list_push(&m->dirty_pages, p);
		if (tlb_page(m, p->addr) == p)
			tlb_fill(m, p);
	}
}

enum access { ACCESS_READ, ACCESS_WRITE, ACCESS_FETCH };

static unsigned required_prot(enum access a)
{
	return a == ACCESS_WRITE ? MAPPING_WRITE : a == ACCESS_FETCH ? MAPPING_EXEC : MAPPING_READ;
}

void memory_mirror_guard_changed(struct memory_mirror *m, uint64_t page_addr)
{
	bool all = page_addr == UINT64_MAX;
	for (unsigned i = all ? 0 : tlb_index(page_addr); i < MIRROR_TLB_ENTRIES; i++) {
		if (m->tlb_pages[i])
			tlb_fill(m, m->tlb_pages[i]);
		if (!all)
			break;
	}
}

void memory_mirror_guard_writes(struct memory_mirror *m, enum mirror_guard kind,
				const uint64_t *bitmap, uint64_t mask)
{
	m->guards[kind].bits = bitmap;
	m->guards[kind].mask = mask;
	memory_mirror_guard_changed(m, UINT64_MAX);
}

void memory_mirror_set_stack_grower(struct memory_mirror *m, memory_mirror_stack_grower *grow,
				    void *ctx)
{
	m->grow_stack = grow;
	m->grow_ctx = ctx;
}

void memory_mirror_set_quiet(struct memory_mirror *m, bool quiet)
{
	m->quiet = quiet;
}

/* Checks that the whole range may be accessed, so that a failing access
 * changes nothing (the emulator's contract). An access just below the
 * stack first lets the kernel grow it, as the CPU's fault would. */
static bool range_allowed(struct memory_mirror *m, uint64_t addr, size_t len,
			  enum access a)
{
	uint64_t end = addr + len;
	for (uint64_t pa = addr & PAGE_MASK; pa < end; pa += PAGE_SIZE) {
		unsigned prot;
		struct mirror_page *p = get_page(m, pa, &prot);
		if (!prot && m->grow_stack && mapping_table_stack_above(m->maps, pa) &&
		    m->grow_stack(m->grow_ctx, pa) == 1) {
			m->stats.stack_growths++;
			p = get_page(m, pa, &prot);
		}
		(void)p;
		if (!(prot & required_prot(a)))
			return false;
		if ((prot & MAPPING_UNREADABLE_REMOTE) && a != ACCESS_WRITE)
			return false;
	}
	return true;
}

/* True for a cached page still showing its file's bytes: a MAP_PRIVATE page
 * of a file the program has not written since it was loaded. */
static bool shows_file(const struct mirror_page *p)
{
	return (p->prot & MAPPING_FILE) && !p->own_copy;
}

/*
 * The program's first write to a page that shows its file: natively the
 * kernel gives the process its own copy of the page then, holding the
 * file's bytes of that moment. The write stays in the mirror like any
 * other, but the page goes on the list of pending copies, which reach the
 * process (and so the kernel makes the copy) before anything else could
 * change the file: before a write through a shared mapping of a file
 * (transfer) and at every system call, even one that flushes only its
 * own buffers (memory_mirror_flush_copies), since the call may let
 * another process write the file. The JVM's first writes to its data
 * pages no longer cost a process_vm_writev each.
 */
static void begin_own_copy(struct memory_mirror *m, struct mirror_page *p)
{
	p->own_copy = true;
	p->copy_pending = true;
	p->copy_next = m->pending_copies;
	if (m->pending_copies)
		m->pending_copies->copy_pprev = &p->copy_next;
	p->copy_pprev = &m->pending_copies;
	m->pending_copies = p;
}

/* A locked instruction's write cycle (memory_mirror_write_back) makes no
 * dirty bytes: its first write to a page showing its file goes to the
 * process at once. The bytes stay clean: the process has them. */
static int write_through_once(struct memory_mirror *m, struct mirror_page *p, uint64_t addr,
			      const uint8_t *b, unsigned n)
{
	if (m->backend.write(m->backend.ctx, addr, b, n) != 0)
		return -1;
	p->own_copy = true;
	m->stats.direct_accesses++;
	return 0;
}

/*
 * A write through a MAP_SHARED mapping of a file reaches the page cache,
 * and so every MAP_PRIVATE page of that file at the same offsets that the
 * program has not written: the cached copies of those are forgotten.
 */
static void forget_private_aliases(struct memory_mirror *m, uint64_t addr, size_t len)
{
	const struct mapping *s = mapping_table_find(m->maps, addr);
	if (!s || !(s->flags & MAPPING_FILE))
		return;
	uint64_t lo = s->offset + (addr - s->start), hi = lo + len;
	size_t count = mapping_table_count(m->maps);
	for (size_t i = 0; i < count; i++) {
		const struct mapping *a = mapping_table_at(m->maps, i);
		uint64_t a_hi = a->offset + (a->end - a->start);
		if ((a->flags & (MAPPING_FILE | MAPPING_SHARED)) != MAPPING_FILE ||
		    hi <= a->offset || lo >= a_hi || strcmp(a->path, s->path) != 0)
			continue;
		uint64_t from = a->start + ((lo > a->offset ? lo : a->offset) - a->offset);
		uint64_t to = a->start + ((hi < a_hi ? hi : a_hi) - a->offset);
		for (uint64_t pa = from & PAGE_MASK; pa < to; pa += PAGE_SIZE) {
			struct mirror_page **slot = &m->buckets[bucket_of(m, pa)];
			while (*slot && (*slot)->addr != pa)
				slot = &(*slot)->next;
			if (*slot && shows_file(*slot) && !(*slot)->dirty)
				drop_page(m, slot);
		}
	}
}

/* Copies between buf and the mirror (or the process, for uncached pages). */
static int transfer(struct memory_mirror *m, uint64_t addr, void *buf,
		    size_t len, enum access a)
{
	uint8_t *b = buf;
	while (len) {
		uint64_t pa = addr & PAGE_MASK;
		unsigned off = (unsigned)(addr - pa);
		unsigned n = PAGE_SIZE - off < len ? PAGE_SIZE - off : (unsigned)len;
		unsigned prot;
		struct mirror_page *p = get_page(m, pa, &prot);
		if (p) {
			if (a == ACCESS_WRITE) {
				if (shows_file(p))
					begin_own_copy(m, p);
				memcpy(p->data + off, b, n);
				mark_dirty(m, p, off, n);
			} else {
				memcpy(b, p->data + off, n);
			}
		} else {
			if (a == ACCESS_WRITE && (prot & MAPPING_FILE) &&
			    memory_mirror_flush_copies(m) != 0)
				return EMU_MEM_FAULT;
			int r = a == ACCESS_WRITE
				? m->backend.write(m->backend.ctx, addr, b, n)
				: m->backend.read(m->backend.ctx, addr, b, n);
			m->stats.direct_accesses++;
			if (r != 0)
				return EMU_MEM_FAULT;
			if (a == ACCESS_WRITE)
				forget_private_aliases(m, addr, n);
		}
		addr += n;
		b += n;
		len -= n;
	}
	return EMU_MEM_OK;
}

int memory_mirror_read(struct memory_mirror *m, uint64_t addr, void *buf, size_t len)
{
	if (memory_mirror_read_cached(m, addr, buf, len))
		return EMU_MEM_OK;
	if (addr + len < addr || !range_allowed(m, addr, len, ACCESS_READ))
		return EMU_MEM_FAULT;
	return transfer(m, addr, buf, len, ACCESS_READ);
}

int memory_mirror_write(struct memory_mirror *m, uint64_t addr, const void *buf, size_t len)
{
	if (memory_mirror_write_cached(m, addr, buf, len))
		return EMU_MEM_OK;
	if (addr + len < addr || !range_allowed(m, addr, len, ACCESS_WRITE))
		return EMU_MEM_FAULT;
	return transfer(m, addr, (void *)buf, len, ACCESS_WRITE);
}

/*
 * The bytes just read, put back by a locked instruction's write cycle: only
 * checked, never dirtied. Another thread's system call may be writing
 * there in the real process (a PI futex's waiter bit, a lock handed over):
 * a flush would put the copy's older bytes over it. A page still showing
 * its file is written through all the same (the CPU's write cycle gives
 * the process its own copy of it).
 */
int memory_mirror_write_back(struct memory_mirror *m, uint64_t addr, const void *buf, size_t len)
{
	if (addr + len < addr || !range_allowed(m, addr, len, ACCESS_WRITE))
		return EMU_MEM_FAULT;
	const uint8_t *b = buf;
	while (len) {
		uint64_t pa = addr & PAGE_MASK;
		unsigned n = PAGE_SIZE - (unsigned)(addr - pa) < len ? PAGE_SIZE - (unsigned)(addr - pa)
								    : (unsigned)len;
		unsigned prot;
		struct mirror_page *p = get_page(m, pa, &prot);
		if (p && shows_file(p) && write_through_once(m, p, addr, b, n) != 0)
			return EMU_MEM_FAULT;
		addr += n;
		b += n;
		len -= n;
	}
	return EMU_MEM_OK;
}

size_t memory_mirror_fetch(struct memory_mirror *m, uint64_t addr, void *buf, size_t len)
{
	size_t done = 0;
	/* Byte runs per page: stop at the first page that is not executable. */
	while (done < len) {
		uint64_t a = addr + done;
		size_t n = PAGE_SIZE - (a & (PAGE_SIZE - 1));
		if (n > len - done)
			n = len - done;
		if (!range_allowed(m, a, n, ACCESS_FETCH) ||
		    transfer(m, a, (uint8_t *)buf + done, n, ACCESS_FETCH) != EMU_MEM_OK)
			break;
		done += n;
	}
	return done;
}

static int mirror_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return memory_mirror_read(ctx, addr, buf, len);
}

static int mirror_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	return memory_mirror_write(ctx, addr, buf, len);
}

static int mirror_write_back(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	return memory_mirror_write_back(ctx, addr, buf, len);
}

static size_t mirror_fetch(void *ctx, uint64_t addr, void *buf, size_t len)
{
	return memory_mirror_fetch(ctx, addr, buf, len);
}

const struct emu_memory_ops memory_mirror_ops = {
	.read = mirror_read,
	.write = mirror_write,
	.fetch = mirror_fetch,
	.write_back = mirror_write_back,
};

/* The first byte at or after i whose dirty bit equals `dirty`, or
 * PAGE_SIZE; whole words of the other kind are skipped at once. */
static unsigned next_dirty_edge(const struct mirror_page *p, unsigned i, bool dirty)
{
	while (i < PAGE_SIZE) {
		uint64_t w = p->dirty_bits[i / 64];
		if (!dirty)
			w = ~w;
		w &= ~0ull << (i % 64);
		if (w)
			return (i & ~63u) + (unsigned)__builtin_ctzll(w);
		i = (i & ~63u) + 64;
	}
	return PAGE_SIZE;
}

/* One past the page's last dirty byte (0: none). */
static unsigned dirty_end(const struct mirror_page *p)
{
	for (unsigned w = PAGE_SIZE / 64; w-- > 0;)
		if (p->dirty_bits[w])
			return w * 64 + 64 - (unsigned)__builtin_clzll(p->dirty_bits[w]);
	return 0;
}

/* A page written back whole: clean again. */
static void mark_clean(struct memory_mirror *m, struct mirror_page *p)
{
	memset(p->dirty_bits, 0, sizeof(p->dirty_bits));
	if (p->dirty)
		m->n_dirty--;
	p->dirty = false;
	copy_done(p);
	if (tlb_page(m, p->addr) == p)
		tlb_fill(m, p);
}

static int write_batch(struct memory_mirror *m, struct flush_batch *fb)
{
	if (fb->n == 0)
		return 0;
	int r = m->backend.write_runs(m->backend.ctx, fb->local, fb->remote, fb->n);
	m->stats.flush_writes++;
	fb->n = 0;
	return r;
}

/* The runs of dirty bytes of the pages on the list at *head, written back
 * by the backend's write_runs, a batch at a time; each page is clean once
 * its last run is written and leaves the list. On failure the pages not
 * known to be written stay on it, dirty (writing a byte again is
 * harmless). */
static int flush_batched(struct memory_mirror *m, struct mirror_page **head)
{
	struct flush_batch *fb = &m->flush;
	fb->n = 0;
	for (struct mirror_page *p = *head; p; p = p->dirty_next) {
		/* An anonymous page of a quiet process: one run, its clean
		 * bytes between the dirty ones included (the process has
		 * them already). A file's page may show the file's newer
		 * bytes where the mirror has not loaded them again. */
		bool one_run = m->quiet && !(p->prot & (MAPPING_FILE | MAPPING_SHARED));
		unsigned last = one_run ? dirty_end(p) : 0;
		unsigned i = 0;
		while ((i = next_dirty_edge(p, i, true)) < PAGE_SIZE) {
			unsigned start = i;
			i = one_run ? last : next_dirty_edge(p, i, false);
			if (fb->n == FLUSH_RUNS) {
				if (write_batch(m, fb) != 0)
					return -1;
				/* Every page before p is written whole. */
				while (*head != p) {
					struct mirror_page *done = *head;
					dirty_list_remove(done);
					mark_clean(m, done);
				}
			}
			fb->local[fb->n] = (struct iovec){ p->data + start, i - start };
			fb->remote[fb->n] = (struct iovec){ (void *)(uintptr_t)(p->addr + start), i - start };
			fb->n++;
			m->stats.bytes_flushed += i - start;
		}
	}
	if (write_batch(m, fb) != 0)
		return -1;
	while (*head) {
		struct mirror_page *done = *head;
		dirty_list_remove(done);
		mark_clean(m, done);
	}
	return 0;
}

/* Writes back the runs of dirty bytes of one page, one backend write each. */
static int flush_page(struct memory_mirror *m, struct mirror_page *p)
{
	unsigned i = 0;
	while ((i = next_dirty_edge(p, i, true)) < PAGE_SIZE) {
		unsigned start = i;
		i = next_dirty_edge(p, i, false);
		if (m->backend.write(m->backend.ctx, p->addr + start, p->data + start,
				     i - start) != 0)
			return -1;
		m->stats.bytes_flushed += i - start;
		m->stats.flush_writes++;
	}
	mark_clean(m, p);
	return 0;
}

/* Every page of the list at *head written back and taken off it; on
 * failure the list holds those still dirty. */
static int flush_list(struct memory_mirror *m, struct mirror_page **head)
{
	if (m->backend.write_runs)
		return flush_batched(m, head);
	while (*head) {
		struct mirror_page *p = *head;
		if (flush_page(m, p) != 0)
			return -1;
		dirty_list_remove(p);
	}
	return 0;
}

int memory_mirror_flush(struct memory_mirror *m)
{
	return flush_list(m, &m->dirty_pages);
}

/* A flush of the pages taken off the dirty list into the list at
 * *chosen (their back links point into it, so the list is passed by its
 * head); those a failed write leaves dirty go back on the dirty list. */
static int flush_chosen(struct memory_mirror *m, struct mirror_page **chosen)
{
	if (!*chosen)
		return 0;
	int r = flush_list(m, chosen);
	while (*chosen) {
		struct mirror_page *p = *chosen;
		dirty_list_remove(p);
		dirty_list_push(&m->dirty_pages, p);
	}
	return r;
}

int memory_mirror_flush_range(struct memory_mirror *m, uint64_t addr, uint64_t len)
{
	uint64_t lo = addr & PAGE_MASK, hi = addr + len < addr ? UINT64_MAX : addr + len;
	struct mirror_page *chosen = NULL;
	uint64_t pages = (hi - lo) / PAGE_SIZE;
	if (pages <= SMALL_RANGE_PAGES || pages <= m->n_dirty) {
		for (uint64_t pa = lo; pa < hi; pa += PAGE_SIZE) {
			struct mirror_page *p = find_page(m, pa);
			if (p && p->dirty) {
				dirty_list_remove(p);
				dirty_list_push(&chosen, p);
			}
		}
	} else {
		struct mirror_page *p = m->dirty_pages;
		while (p) {
			struct mirror_page *next = p->dirty_next;
			if (p->addr >= lo && p->addr < hi) {
				dirty_list_remove(p);
				dirty_list_push(&chosen, p);
			}
			p = next;
		}
	}
	return flush_chosen(m, &chosen);
}

int memory_mirror_flush_copies(struct memory_mirror *m)
{
	struct mirror_page *chosen = NULL;
	for (struct mirror_page *p = m->pending_copies; p; p = p->copy_next) {
		dirty_list_remove(p);
		dirty_list_push(&chosen, p);
	}
	return flush_chosen(m, &chosen);
}

bool memory_mirror_dirty_at_least(const struct memory_mirror *m, unsigned pages)
{
	const struct mirror_page *p = m->dirty_pages;
	for (; p && pages; pages--)
		p = p->dirty_next;
	return pages == 0;
}

int memory_mirror_has_dirty(const struct memory_mirror *m)
{
	return m->dirty_pages != NULL;
}

void memory_mirror_get_stats(const struct memory_mirror *m, struct memory_mirror_stats *out)
{
	*out = m->stats;
}
