/*
 * decode_cache.c — decoded instructions, kept per basic block.
 *
 * A block is a straight run of instructions decoded once, ending at a
 * control transfer, a special or unimplemented instruction, or the first
 * instruction that crosses a page boundary; a block therefore touches at most
 * two pages. Blocks are found by their start address through a small
 * direct-mapped jump cache in front of a chained hash table.
 *
 * Self-modifying code: every emulated write consults a bitmap of pages that
 * may hold decoded code (a false positive costs one hash lookup); a write to
 * such a page retires every block touching it. Retired blocks are freed only
 * between runs, since the run loop may be executing one of them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "internal.h"
#include "jit.h"

#define PAGE_SHIFT 12
#define MAX_INSN_BYTES 15
/* Sized for large programs: a JVM decodes some 10^5 blocks, and returns
 * and indirect jumps (CPython's dispatch) that miss their block's two
 * links go through the jump cache (1 MiB) and then the buckets (2 MiB).
 * Against 2^16 buckets and 2^12 jump entries: python3 and sort -n record
 * about 3% faster, a JVM 1-3%. */
#define BLOCK_BUCKETS (1u << 18)
#define PAGE_BUCKETS (1u << 12)
#define JUMP_CACHE_SIZE (1u << 16)
#define PAGE_FILTER_BITS EMU_CODE_FILTER_BITS
/* Buckets ever filled since the table was last emptied, listed so that
 * freeing, emptying and walking the table cost what it holds: a replay
 * restored for one backward step decodes a few dozen blocks, and walking
 * all 2^18 buckets twice (translations forgotten, blocks freed) was most
 * of the step. Beyond this many, walks go over every bucket. */
#define OCCUPIED_LIST_MAX (1u << 13)

/* Blocks that touch one page. */
struct code_page {
	uint64_t page;
	struct code_page *next;
	struct emu_block **blocks;
	size_t count, capacity;
};

struct jump_entry {
	uint64_t rip;
	struct emu_block *block;
};

struct emu_decode_cache {
	struct emu_block *buckets[BLOCK_BUCKETS];
	struct code_page *pages[PAGE_BUCKETS];
	struct jump_entry jump[JUMP_CACHE_SIZE];
	uint64_t page_filter[PAGE_FILTER_BITS / 64];
	struct emu_block *retired;
	size_t n_retired;
	uint64_t occupied_bits[BLOCK_BUCKETS / 64];
	uint32_t occupied[OCCUPIED_LIST_MAX];
	size_t n_occupied; /* > OCCUPIED_LIST_MAX: the list overflowed */
};

/* Retired blocks kept before they are freed: freeing bumps the link
 * generation, after which every block transition of the hot code goes
 * through a lookup again (a JIT retires blocks thousands of times a
 * second, a few at a time). */
#define RETIRED_BATCH 1024

static inline unsigned block_bucket(uint64_t rip)
{
	return (unsigned)((rip ^ (rip >> 16) ^ (rip >> 32)) & (BLOCK_BUCKETS - 1));
}

static inline unsigned page_bucket(uint64_t page)
{
	return (unsigned)((page ^ (page >> 12)) & (PAGE_BUCKETS - 1));
}

static inline unsigned jump_slot(uint64_t rip)
{
	return (unsigned)((rip ^ (rip >> 12)) & (JUMP_CACHE_SIZE - 1));
}

static inline bool page_filter_test(const struct emu_decode_cache *c, uint64_t page)
{
	unsigned bit = (unsigned)(page & (PAGE_FILTER_BITS - 1));
	return c->page_filter[bit / 64] & (1ull << (bit % 64));
}

static inline void page_filter_set(struct emu_decode_cache *c, uint64_t page)
{
	unsigned bit = (unsigned)(page & (PAGE_FILTER_BITS - 1));
	c->page_filter[bit / 64] |= 1ull << (bit % 64);
}

static void note_occupied(struct emu_decode_cache *c, unsigned h)
{
	uint64_t bit = 1ull << (h % 64);
	if (c->occupied_bits[h / 64] & bit)
		return;
	c->occupied_bits[h / 64] |= bit;
	if (c->n_occupied < OCCUPIED_LIST_MAX)
		c->occupied[c->n_occupied] = h;
	c->n_occupied++;
}

/* How many buckets a walk visits, and the k-th of them: each bucket that
 * may hold blocks once. */
static size_t buckets_to_visit(const struct emu_decode_cache *c)
{
	return c->n_occupied > OCCUPIED_LIST_MAX ? BLOCK_BUCKETS : c->n_occupied;
}

static unsigned bucket_to_visit(const struct emu_decode_cache *c, size_t k)
{
	return c->n_occupied > OCCUPIED_LIST_MAX ? (unsigned)k : c->occupied[k];
}

/* The table is empty again. */
static void forget_occupied(struct emu_decode_cache *c)
{
	if (c->n_occupied > OCCUPIED_LIST_MAX)
		memset(c->occupied_bits, 0, sizeof(c->occupied_bits));
	else
		for (size_t k = 0; k < c->n_occupied; k++)
			c->occupied_bits[c->occupied[k] / 64] = 0;
	c->n_occupied = 0;
}

struct emu_decode_cache *emu_decode_cache_new(void)
{
	/* Mapped, not calloc'd (3 MiB): a replay restored for a backward
	 * step makes a new emulator, and calloc of a size freed before is
	 * served from the heap once glibc has raised its mmap threshold and
	 * clears all of it; mapped pages cost only when touched. */
	void *c = mmap(NULL, sizeof(struct emu_decode_cache), PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return c == MAP_FAILED ? NULL : c;
}

const uint64_t *emu_decode_cache_page_filter(const struct emu_decode_cache *c)
{
	return c->page_filter;
}

static void free_pages(struct emu_decode_cache *c)
{
	for (unsigned i = 0; i < PAGE_BUCKETS; i++) {
		struct code_page *p = c->pages[i];
		while (p) {
			struct code_page *next = p->next;
			free(p->blocks);
			free(p);
			p = next;
		}
		c->pages[i] = NULL;
	}
}

static void free_retired(struct emu_decode_cache *c)
{
	struct emu_block *b = c->retired;
	while (b) {
		struct emu_block *next = b->retired_next;
		free(b);
		b = next;
	}
	c->retired = NULL;
	c->n_retired = 0;
}

void emu_decode_cache_release_retired(struct emu_cpu *cpu)
{
	if (cpu->cache->n_retired < RETIRED_BATCH)
		return;
	free_retired(cpu->cache);
	cpu->code_generation++;
}

void emu_decode_cache_free(struct emu_decode_cache *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < buckets_to_visit(c); k++) {
		struct emu_block *b = c->buckets[bucket_to_visit(c, k)];
		while (b) {
			struct emu_block *next = b->hash_next;
			free(b);
			b = next;
		}
	}
	free_pages(c);
	free_retired(c);
	munmap(c, sizeof(*c));
}

static struct code_page *find_page(struct emu_decode_cache *c, uint64_t page,
				   bool create)
{
	unsigned h = page_bucket(page);
	for (struct code_page *p = c->pages[h]; p; p = p->next)
		if (p->page == page)
			return p;
	if (!create)
		return NULL;
	struct code_page *p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->page = page;
	p->next = c->pages[h];
	c->pages[h] = p;
	page_filter_set(c, page);
	return p;
}

static bool page_add_block(struct emu_decode_cache *c, uint64_t page,
			   struct emu_block *b)
{
	struct code_page *p = find_page(c, page, true);
	if (!p)
		return false;
	if (p->count == p->capacity) {
		size_t cap = p->capacity ? p->capacity * 2 : 8;
		struct emu_block **nb = realloc(p->blocks, cap * sizeof(*nb));
		if (!nb)
			return false;
		p->blocks = nb;
		p->capacity = cap;
	}
	p->blocks[p->count++] = b;
	return true;
}

static void page_remove_block(struct emu_decode_cache *c, uint64_t page,
			      const struct emu_block *b)
{
	struct code_page *p = find_page(c, page, false);
	if (!p)
		return;
	for (size_t i = 0; i < p->count; i++)
		if (p->blocks[i] == b) {
			p->blocks[i] = p->blocks[--p->count];
			return;
		}
}

static void unlink_block(struct emu_decode_cache *c, struct emu_block *b)
{
	struct emu_block **pp = &c->buckets[block_bucket(b->start)];
	while (*pp && *pp != b)
		pp = &(*pp)->hash_next;
	if (*pp)
		*pp = b->hash_next;
}

/* A retired block may be the one running: what is left of it must not run
 * (emu_handler_stale sends the run loop back to decoding). Its memory
 * stays until emu_decode_cache_release_retired. */
static void mark_retired(struct emu_decode_cache *c, struct emu_block *b)
{
	b->retired = true;
	if (b->jit)
		emu_jit_unchain_into(b);
	for (uint32_t i = 0; i < b->count; i++)
		b->insns[i].handler = emu_handler_stale;
	if (b->unfused)
		b->unfused = emu_handler_stale;
	b->retired_next = c->retired;
	c->retired = b;
	c->n_retired++;
}

static void retire_block(struct emu_decode_cache *c, struct emu_block *b)
{
	if (b->retired)
		return;
	unlink_block(c, b);
	struct jump_entry *j = &c->jump[jump_slot(b->start)];
	if (j->block == b)
		j->block = NULL;
	for (uint64_t pg = b->first_page; pg <= b->last_page; pg++)
		page_remove_block(c, pg, b);
	mark_retired(c, b);
}

static void retire_page(struct emu_cpu *cpu, uint64_t page)
{
	struct emu_decode_cache *c = cpu->cache;
	struct code_page *p = find_page(c, page, false);
	if (!p || p->count == 0)
		return;
	while (p->count)
		retire_block(c, p->blocks[p->count - 1]);
	cpu->code_changed = true;
}

void emu_decode_cache_write_slow(struct emu_cpu *cpu, uint64_t first, uint64_t last)
{
	for (uint64_t pg = first; pg <= last; pg++)
		if (page_filter_test(cpu->cache, pg))
			retire_page(cpu, pg);
}

void emu_invalidate_code(struct emu_cpu *cpu, uint64_t addr, uint64_t len)
{
	struct emu_decode_cache *c = cpu->cache;
	if (len == UINT64_MAX || addr + len < addr) {
		for (size_t k = 0; k < buckets_to_visit(c); k++) {
			unsigned i = bucket_to_visit(c, k);
			struct emu_block *b = c->buckets[i];
			while (b) {
				struct emu_block *next = b->hash_next;
				mark_retired(c, b);
				b = next;
			}
			c->buckets[i] = NULL;
		}
		forget_occupied(c);
		free_pages(c);
		memset(c->page_filter, 0, sizeof(c->page_filter));
		memset(c->jump, 0, sizeof(c->jump));
		cpu->code_changed = true;
		cpu->code_generation++;
		return;
	}
	if (len == 0)
		return;
	uint64_t first = addr >> PAGE_SHIFT, last = (addr + len - 1) >> PAGE_SHIFT;
	for (uint64_t pg = first; pg <= last; pg++)
		if (page_filter_test(c, pg))
			retire_page(cpu, pg);
}

void emu_decode_cache_forget_translations(struct emu_decode_cache *c)
{
	for (size_t k = 0; k < buckets_to_visit(c); k++)
		for (struct emu_block *b = c->buckets[bucket_to_visit(c, k)]; b; b = b->hash_next) {
			if (b->jit)
				emu_jit_forget(b);
			b->heat = 0;
		}
	for (struct emu_block *b = c->retired; b; b = b->retired_next)
		if (b->jit)
			emu_jit_forget(b);
}

void emu_decode_cache_unchain_all(struct emu_decode_cache *c)
{
	for (size_t k = 0; k < buckets_to_visit(c); k++)
		for (struct emu_block *b = c->buckets[bucket_to_visit(c, k)]; b; b = b->hash_next)
			if (b->jit)
				emu_jit_unchain_into(b);
}

void emu_unchain_code(struct emu_cpu *cpu, uint64_t addr, uint64_t len)
{
	if (len == 0 || addr + len < addr)
		return;
	uint64_t first = addr >> PAGE_SHIFT, last = (addr + len - 1) >> PAGE_SHIFT;
	for (uint64_t pg = first; pg <= last; pg++) {
		struct code_page *p = find_page(cpu->cache, pg, false);
		for (size_t i = 0; p && i < p->count; i++) {
			struct emu_block *b = p->blocks[i];
			if (b->jit && b->start < addr + len && b->next_rip > addr)
				emu_jit_unchain_into(b);
		}
	}
}

/* Handler for an instruction whose bytes could not all be fetched. */
static int fetch_fault(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return emu_page_fault(cpu, insn->imm, false);
}

/* The fetch decode_one makes for the instruction at addr; how many bytes
 * it got. */
static size_t fetch_one(struct emu_cpu *cpu, uint64_t addr, uint8_t bytes[MAX_INSN_BYTES])
{
	return cpu->mem->fetch(cpu->mem_ctx, addr, bytes, MAX_INSN_BYTES);
}

/*
 * The bytes of a block's first page that decode_block fetches at once:
 * one fetch call instead of one per instruction (a call costs a few
 * hundred host instructions in the recorder and the replayer; python3's
 * start-up decodes 420,000 instructions). The window never leaves the
 * block's first page, which the first instruction's fetch reaches
 * anyway, and an instruction whose 15 bytes would pass the window's end
 * is fetched alone as before: the pages fetched, and so the code pages a
 * recording logs and when, are the same.
 */
#define FETCH_WINDOW 128

struct fetch_window {
	uint64_t start;
	size_t len;
	uint8_t bytes[FETCH_WINDOW];
};

/* How many bytes the window at rip asks for; none when not even one
 * instruction would fit before the page's end. */
static size_t fetch_window_size(uint64_t rip)
{
	uint64_t page_left = ((rip | ((1ull << PAGE_SHIFT) - 1)) + 1) - rip;
	size_t want = page_left < FETCH_WINDOW ? (size_t)page_left : FETCH_WINDOW;
	return want > MAX_INSN_BYTES ? want : 0;
}

static void fetch_window(struct emu_cpu *cpu, uint64_t rip, struct fetch_window *w)
{
	size_t want = fetch_window_size(rip);
	w->start = rip;
	w->len = want ? cpu->mem->fetch(cpu->mem_ctx, rip, w->bytes, want) : 0;
}

static bool in_window(const struct fetch_window *w, uint64_t addr)
{
	return addr - w->start + MAX_INSN_BYTES <= w->len;
}

/* Decodes one instruction at addr into *insn; false if the block must end
 * before it because not a single byte of it can be fetched and it is not the
 * first instruction of the block. */
static void decode_one(struct emu_cpu *cpu, uint64_t addr, struct emu_insn *insn,
		       const struct fetch_window *w)
{
	if (in_window(w, addr)) {
		emu_decode(w->bytes + (addr - w->start), MAX_INSN_BYTES, addr, insn);
		return; /* all 15 bytes were there: nothing to fault on */
	}
	uint8_t bytes[MAX_INSN_BYTES];
	size_t got = fetch_one(cpu, addr, bytes);
	if (emu_decode(bytes, got, addr, insn))
		return;
	if (got < sizeof(bytes) && insn->len == 0) {
		/* Decoding needed bytes that could not be fetched. */
		memset(insn, 0, sizeof(*insn));
		insn->addr = addr;
		insn->handler = fetch_fault;
		insn->imm = addr + got;
		insn->mem.base = insn->mem.index = EMU_NO_REG;
		insn->ends_block = 1;
	}
}

/* A block ending in cmp/test + jcc runs the pair as one handler when
 * nothing observes the run (emu_run); the compare keeps its own handler
 * for stepping. */
static void fuse_compare_and_branch(struct emu_block *b)
{
	b->fused_count = b->count;
	b->unfused = NULL;
	if (b->count < 2)
		return;
	struct emu_insn *cmp = &b->insns[b->count - 2];
	int cc = emu_jcc_condition(&b->insns[b->count - 1]);
	emu_handler *fused = cc >= 0 ? emu_fuse_compare(cmp, (unsigned)cc) : NULL;
	if (!fused)
		return;
	b->unfused = cmp->handler;
	cmp->handler = fused;
	b->fused_count = b->count - 1;
}

static struct emu_block *decode_block(struct emu_cpu *cpu, uint64_t rip)
{
	struct emu_insn buf[EMU_MAX_BLOCK_INSNS];
	uint32_t n = 0;
	uint64_t addr = rip;
	struct fetch_window window;
	fetch_window(cpu, rip, &window);

	while (n < EMU_MAX_BLOCK_INSNS) {
		struct emu_insn *insn = &buf[n++];
		decode_one(cpu, addr, insn, &window);
		if (insn->ends_block || insn->len == 0)
			break;
		uint64_t end = addr + insn->len;
		if (((end - 1) >> PAGE_SHIFT) != (rip >> PAGE_SHIFT))
			break; /* crosses into or reaches the next page */
		addr = end;
	}
	size_t align = _Alignof(struct emu_block);
	size_t size = (sizeof(struct emu_block) + n * sizeof(struct emu_insn) + align - 1) & ~(align - 1);
	struct emu_block *b = aligned_alloc(align, size);
	if (!b)
		return NULL;
	memcpy(b->insns, buf, n * sizeof(struct emu_insn));
	b->start = rip;
	b->count = n;
	memset(b->links, 0, sizeof(b->links));
	b->retired = false;
	b->fetch_epoch = cpu->fetch_epoch;
	b->jit = NULL;
	b->heat = 0;
	b->retired_next = NULL;
	b->first_page = rip >> PAGE_SHIFT;
	const struct emu_insn *last = &b->insns[n - 1];
	uint64_t end = last->addr + (last->len ? last->len : 1);
	b->last_page = (end - 1) >> PAGE_SHIFT;
	b->next_rip = last->addr + last->len;
	fuse_compare_and_branch(b);
	return b;
}

struct emu_block *emu_decode_cache_lookup(struct emu_cpu *cpu, uint64_t rip)
{
	struct emu_decode_cache *c = cpu->cache;
	struct jump_entry *j = &c->jump[jump_slot(rip)];
	if (EMU_LIKELY(j->block && j->rip == rip))
		return j->block;

	unsigned h = block_bucket(rip);
	struct emu_block *b;
	for (b = c->buckets[h]; b; b = b->hash_next)
		if (b->start == rip)
			break;
	if (!b) {
		b = decode_block(cpu, rip);
		if (!b)
			return NULL;
		for (uint64_t pg = b->first_page; pg <= b->last_page; pg++)
			if (!page_add_block(c, pg, b)) {
				for (uint64_t q = b->first_page; q < pg; q++)
					page_remove_block(c, q, b);
				free(b);
				return NULL;
			}
		b->hash_next = c->buckets[h];
		c->buckets[h] = b;
		note_occupied(c, h);
		/* Before the block runs: inline writes there must call. */
		if (cpu->mem->decoded_code_page)
			for (uint64_t pg = b->first_page; pg <= b->last_page; pg++)
				cpu->mem->decoded_code_page(cpu->mem_ctx, pg << PAGE_SHIFT);
	}
	j->rip = rip;
	j->block = b;
	return b;
}

void emu_refetch_code(struct emu_cpu *cpu)
{
	cpu->refetch_epoch = ++cpu->fetch_epoch;
	/* A chained jump would enter its block without the fetches. */
	emu_jit_unchain_all(cpu);
}

void emu_report_code(struct emu_cpu *cpu, void (*report)(void *ctx, uint64_t addr, uint64_t len),
		     void *ctx)
{
	cpu->code_report = report;
	cpu->code_report_ctx = ctx;
	if (!report)
		return;
	cpu->fetch_epoch++;
	/* A chained jump would enter its block without the report. */
	emu_jit_unchain_all(cpu);
}

/*
 * The fetches of a decoding, made again in the same order: the window at
 * the block's start, then each instruction's own window of
 * MAX_INSN_BYTES where it passed the first's end. Its bytes cannot have
 * changed (a write to them retires the block), so nothing is decoded; but
 * a page may have stopped being fetchable whole, and then the block gives
 * way to a decoding anew, whose fetches find again what these ones found.
 */
struct emu_block *emu_block_refetch(struct emu_cpu *cpu, struct emu_block *b)
{
	struct emu_decode_cache *c = cpu->cache;
	if (b->fetch_epoch < cpu->refetch_epoch) {
		struct fetch_window w;
		fetch_window(cpu, b->start, &w);
		bool changed = w.len != fetch_window_size(b->start);
		uint8_t bytes[MAX_INSN_BYTES];
		for (uint32_t i = 0; !changed && i < b->count; i++) {
			const struct emu_insn *insn = &b->insns[i];
			changed = insn->len == 0 ||
				  (!in_window(&w, insn->addr) &&
				   fetch_one(cpu, insn->addr, bytes) < insn->len);
		}
		if (changed) {
			uint64_t start = b->start;
			retire_block(c, b);
			cpu->code_changed = true;
			return emu_decode_cache_lookup(cpu, start);
		}
	}
	if (cpu->code_report)
		cpu->code_report(cpu->code_report_ctx, b->start, b->next_rip - b->start);
	b->fetch_epoch = cpu->fetch_epoch;
	return b;
}
