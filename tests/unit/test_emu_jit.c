/*
 * test_emu_jit.c — the block translator (emu_set_jit) against the
 * interpreter. Random loops made of the forms the translator lowers,
 * mixed with forms it leaves to their handlers, each run twice from the
 * same state: interpreted, and with the translator on. The translated run
 * must leave the same registers, flags, rip, instruction count, exit and
 * memory, and make the same calls of the memory interface in the same
 * order (a recording is made of those calls): after whole runs, at every
 * boundary of runs cut into small budgets, at faults, with code that
 * rewrites itself, and over memory interfaces with and without read_uint,
 * and one that describes its common read for translated code to make
 * inline (a page table and a prediction cache, as the recorder's).
 *
 * The guest lives in a small address space of its own, served by the
 * test's memory interface, which logs every call. JIT_TEST_SEED and
 * JIT_TEST_PROGRAMS override the seed and the number of programs.
 */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "emulator/emu.h"
#include "check_main.h"
#include "encode_operands.h"

/* --- the guest's address space -------------------------------------------- */

#define CODE_BASE 0x10000ull
#define FUNC_ADDR CODE_BASE            /* the function the loops call */
#define ENTRY_ADDR (CODE_BASE + 0x200) /* the loop */
#define DATA_BASE 0x200000ull          /* two pages the memory operands use */
#define RODATA_BASE 0x240000ull        /* read-only: slot 0 holds FUNC_ADDR */
#define STACK_BASE 0x300000ull
#define EDGE_BASE 0x00007ffffffff000ull  /* the last page of the lower half */
#define KHIGH_BASE 0xffff800000000000ull /* the first page of the upper half */
#define GUARD_ADDR 0x280000ull           /* nothing mapped near it */
/* Pages whose numbers the decode cache's filter of code pages confuses
 * with the code's (page number modulo 2^20): writes there take the
 * translation's slow path of note_write. */
#define ALIAS_BASE (CODE_BASE + (1ull << 32))
#define FS_BASE 0x100000ull
#define STACK_TOP (STACK_BASE + 0x2000 - 0x100)
#define REGION_MAX 0x2000

enum { R_CODE, R_DATA, R_RODATA, R_STACK, R_EDGE, R_KHIGH, R_ALIAS, R_COUNT };
static const struct {
	uint64_t base;
	size_t size;
	bool writable;
	const char *name;
} regions[R_COUNT] = {
	[R_CODE] = { CODE_BASE, 0x2000, true, "code" },
	[R_DATA] = { DATA_BASE, 0x2000, true, "data" },
	[R_RODATA] = { RODATA_BASE, 0x1000, false, "rodata" },
	[R_STACK] = { STACK_BASE, 0x2000, true, "stack" },
	[R_EDGE] = { EDGE_BASE, 0x1000, true, "edge" },
	[R_KHIGH] = { KHIGH_BASE, 0x1000, true, "khigh" },
	[R_ALIAS] = { ALIAS_BASE, 0x2000, true, "alias" },
};

/* --- the memory interface: buffers, and a log of every call ---------------- */

enum { A_READ, A_WRITE, A_FETCH };
enum { VIA_BUFFER, VIA_UINT, VIA_SIZED, VIA_MISPREDICTED };

struct access {
	uint8_t kind, via, status;
	uint32_t size;
	uint64_t addr, value; /* fetch: the bytes it returned */
	uint64_t hits_before; /* a predicting memory's read: the hits before it */
};

/* The inline interface's tables (emu.h, struct emu_inline_memory): pages
 * enter the table when first read, as the recorder's mirror loads them;
 * the prediction cache is smaller than the recorder's, so that entries
 * collide; the code's pages are watched: the table never has them
 * WRITABLE (writes there always call), as the recorder's mirror keeps
 * pages that may hold logged code. */
#define INLINE_PAGES 1024
#define INLINE_WATCH_BITS 256
#define INLINE_CACHE_LOG2 6
#define INLINE_MULTIPLIER 0x9E3779B97F4A7C15ull
/* The cache's size in use (at most 2^INLINE_CACHE_LOG2 entries) and its
 * hash (the multiplier's, or direct-mapped): tests change them between
 * runs. */
static unsigned cache_log2 = INLINE_CACHE_LOG2;
static bool cache_direct;

struct tmem {
	uint8_t *bytes[R_COUNT];
	struct access *log;
	size_t n, cap;
	/* The inline interface: reads are checked against the cache, and
	 * only misses are logged (a hit made by translated code makes no
	 * call); hits are counted in hits_since_miss, by calls (called_hits
	 * too) or inline, and a miss moves that run into hits_settled. */
	bool predicting;
	struct emu_inline_page pages[INLINE_PAGES];
	uint64_t cache[1u << INLINE_CACHE_LOG2];
	uint64_t hits_settled, hits_since_miss, called_hits;
	uint64_t watched[INLINE_WATCH_BITS / 64];
	/* The guarded variant's (emu.h, decoded_code_page): the emulator's
	 * filter of pages holding decoded code, never WRITABLE here; no
	 * page is watched then. */
	const uint64_t *decoded;
	/* Dirty bits, one per byte written, at a fixed distance from the
	 * bytes (a page's bits in the first 512 bytes of its shadow page). */
	uint8_t *dirty[R_COUNT];
	/* Writes translated code could have made inline, made by a call. */
	uint64_t called_inline_writes;
	/* Checked reads (emu.h, hits_limit; the replayer's): the dirty bits
	 * stand for the bytes known. Set before machine_start. */
	bool checked;
	uint64_t hits_limit;
	/* A distance to the dirty bits beyond a 32-bit displacement (the
	 * bits themselves stay where they are): no access may be inline. */
	bool bitmap_far;
	/* Every page leaves the table at each miss (as a memory may change
	 * its table whenever one of its functions runs): translated code
	 * must look pages up again after any call. */
	bool drop_on_miss;
	struct emu_inline_memory contract;
};

static uint8_t *tmem_at(struct tmem *m, uint64_t addr, size_t size, int kind)
{
	for (unsigned r = 0; r < R_COUNT; r++) {
		uint64_t off = addr - regions[r].base;
		if (addr < regions[r].base || off >= regions[r].size || size > regions[r].size - off)
			continue;
		if ((kind == A_WRITE && !regions[r].writable) || (kind == A_FETCH && r != R_CODE))
			return NULL;
		return m->bytes[r] + off;
	}
	return NULL;
}

static void tmem_log(struct tmem *m, int kind, int via, int status, size_t size, uint64_t addr,
		     uint64_t value)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? 2 * m->cap : 4096;
		m->log = realloc(m->log, m->cap * sizeof(*m->log));
		ck_assert_ptr_nonnull(m->log);
	}
	m->log[m->n++] = (struct access){ (uint8_t)kind, (uint8_t)via, (uint8_t)status,
					  (uint32_t)size, addr, value, 0 };
}

static uint64_t le_value(const void *p, size_t size)
{
	uint64_t v = 0;
	memcpy(&v, p, size < 8 ? size : 8);
	return v;
}

/* --- the predicting memory's tables --- */

/* The entry of addr, as emu.h's contract has it: the 8 entries of an
 * aligned 64-byte block consecutive. */
static unsigned cache_index(uint64_t addr)
{
	if (cache_direct)
		return (unsigned)((addr >> 3) & ((1u << cache_log2) - 1));
	return (unsigned)((((addr >> 6) * INLINE_MULTIPLIER) >> (64 - cache_log2 + 3)) << 3 |
			  ((addr >> 3) & 7));
}

static uint64_t *cache_entry(struct tmem *m, uint64_t addr)
{
	return &m->cache[cache_index(addr)];
}

static uint8_t cache_byte(struct tmem *m, uint64_t addr)
{
	return (uint8_t)(*cache_entry(m, addr) >> 8 * (addr & 7));
}

/* The cache takes n bytes at addr (a write, or a miss's value). */
static void cache_take(struct tmem *m, uint64_t addr, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t *e = cache_entry(m, addr + i);
		unsigned shift = 8 * ((addr + i) & 7);
		*e = (*e & ~(0xffull << shift)) | (uint64_t)bytes[i] << shift;
	}
}

static bool watched(const struct tmem *m, uint64_t addr)
{
	uint64_t bit = (addr >> 12) & (INLINE_WATCH_BITS - 1);
	if ((m->watched[bit / 64] >> (bit % 64)) & 1)
		return true;
	uint64_t code = (addr >> 12) & (EMU_CODE_PAGE_FILTER_BITS - 1);
	return m->decoded && ((m->decoded[code / 64] >> (code % 64)) & 1);
}

/* The emulator decodes code on the page: writes there call from now on. */
static void t_decoded_code_page(void *ctx, uint64_t page_addr)
{
	struct tmem *m = ctx;
	struct emu_inline_page *e = &m->pages[(page_addr >> 12) & (INLINE_PAGES - 1)];
	ck_assert(watched(m, page_addr));
	if (e->tag == (page_addr | EMU_INLINE_PAGE_WRITABLE))
		e->tag = page_addr;
}

/* The page holding addr enters the table, unless it is the data region's
 * second page (never: its reads all make calls) or in the upper half. A
 * page in the table stays as it is (as in the recorder's mirror: only
 * decoded_code_page takes WRITABLE off it). */
static void table_fill(struct tmem *m, uint64_t addr)
{
	uint64_t page = addr & ~4095ull;
	if ((m->pages[(page >> 12) & (INLINE_PAGES - 1)].tag & ~(uint64_t)EMU_INLINE_PAGE_WRITABLE) ==
	    page)
		return;
	uint8_t *p = tmem_at(m, page, 4096, A_READ);
	if (!p || page == DATA_BASE + 0x1000 || page >= KHIGH_BASE)
		return;
	bool writable = tmem_at(m, page, 4096, A_WRITE) != NULL && !watched(m, page);
	emu_inline_page_set(&m->pages[(page >> 12) & (INLINE_PAGES - 1)], page, p, writable);
}

/* A read of the bytes at p: a hit is counted, a miss logged. */
static void predicted_read(struct tmem *m, uint64_t addr, const uint8_t *p, size_t size, int via)
{
	table_fill(m, addr);
	table_fill(m, addr + size - 1);
	bool hit = true;
	for (size_t i = 0; i < size; i++)
		hit &= cache_byte(m, addr + i) == p[i];
	if (hit) {
		m->hits_since_miss++;
		m->called_hits++;
		return;
	}
	cache_take(m, addr, p, size);
	if (m->drop_on_miss)
		for (unsigned i = 0; i < INLINE_PAGES; i++)
			emu_inline_page_clear(&m->pages[i]);
	tmem_log(m, A_READ, via, EMU_MEM_OK, size, addr, le_value(p, size));
	m->log[m->n - 1].hits_before = m->hits_since_miss;
	m->hits_settled += m->hits_since_miss;
	m->hits_since_miss = 0;
}

/* A write of `size` bytes at addr, stored already at p: the cache takes
 * them, their dirty bits are set. True when translated code may make it
 * inline (then it is not logged: the call is not always made). */
static bool predicted_write(struct tmem *m, uint64_t addr, const uint8_t *p, size_t size)
{
	cache_take(m, addr, p, size);
	for (size_t i = 0; i < size; i++)
		for (unsigned r = 0; r < R_COUNT; r++) {
			uint64_t off = addr + i - regions[r].base;
			if (addr + i >= regions[r].base && off < regions[r].size)
				m->dirty[r][(off & ~4095ull) + (off & 4095) / 8] |=
					(uint8_t)(1u << (off % 8));
		}
	uint64_t page = addr & ~4095ull;
	bool inline_form = (size == 1 || size == 2 || size == 4 || size == 8 || size == 16) &&
			   (size == 16 ? (addr & 4095) <= 4096 - 16 : (addr & 7) + size <= 8) &&
			   m->pages[(page >> 12) & (INLINE_PAGES - 1)].tag ==
				   (page | EMU_INLINE_PAGE_WRITABLE);
	m->called_inline_writes += inline_form;
	return inline_form;
}

static const struct emu_inline_memory *t_inline_memory(void *ctx)
{
	struct tmem *m = ctx;
	m->contract = (struct emu_inline_memory){
		.pages = m->pages, .page_mask = INLINE_PAGES - 1, .cache = (uint8_t *)m->cache,
		.cache_multiplier = INLINE_MULTIPLIER, .cache_shift = 64 - (cache_log2 - 3),
		.cache_direct_mask = cache_direct ? (8u << cache_log2) - 1 : 0,
		.hits_since_miss = &m->hits_since_miss,
		.writes_inline = true,
		.dirty_offset = m->bitmap_far ? 1ull << 40 : (uint64_t)(m->dirty[0] - m->bytes[0]),
		.hits_limit = m->checked ? &m->hits_limit : NULL,
	};
	return &m->contract;
}

static int t_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct tmem *m = ctx;
	uint8_t *p = tmem_at(m, addr, size, A_READ);
	if (p)
		memcpy(buf, p, size);
	if (p && m->predicting) {
		predicted_read(m, addr, p, size, VIA_BUFFER);
		return EMU_MEM_OK;
	}
	tmem_log(m, A_READ, VIA_BUFFER, p ? EMU_MEM_OK : EMU_MEM_FAULT, size, addr,
		 p ? le_value(p, size) : 0);
	return p ? EMU_MEM_OK : EMU_MEM_FAULT;
}

static int t_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct tmem *m = ctx;
	uint8_t *p = tmem_at(m, addr, size, A_WRITE);
	if (p)
		memcpy(p, buf, size);
	if (p && m->predicting && predicted_write(m, addr, p, size))
		return EMU_MEM_OK;
	tmem_log(m, A_WRITE, VIA_BUFFER, p ? EMU_MEM_OK : EMU_MEM_FAULT, size, addr,
		 le_value(buf, size));
	return p ? EMU_MEM_OK : EMU_MEM_FAULT;
}

static size_t t_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct tmem *m = ctx;
	size_t n = 0;
	uint64_t off = addr - CODE_BASE;
	if (addr >= CODE_BASE && off < regions[R_CODE].size) {
		n = regions[R_CODE].size - off < size ? regions[R_CODE].size - off : size;
		memcpy(buf, m->bytes[R_CODE] + off, n);
		/* The recorder's mirror loads a fetched page as a read one. */
		if (m->predicting)
			table_fill(m, addr);
	}
	tmem_log(m, A_FETCH, VIA_BUFFER, EMU_MEM_OK, size, addr, n);
	return n;
}

static struct emu_mem_uint read_via(void *ctx, uint64_t addr, unsigned size, int via)
{
	struct tmem *m = ctx;
	uint8_t *p = tmem_at(m, addr, size, A_READ);
	uint64_t v = p ? le_value(p, size) : 0;
	if (p && m->predicting) {
		predicted_read(m, addr, p, size, via);
		return (struct emu_mem_uint){ v, EMU_MEM_OK };
	}
	tmem_log(m, A_READ, via, p ? EMU_MEM_OK : EMU_MEM_FAULT, size, addr, v);
	return (struct emu_mem_uint){ v, p ? EMU_MEM_OK : EMU_MEM_FAULT };
}

static int write_via(void *ctx, uint64_t addr, unsigned size, uint64_t value, int via)
{
	struct tmem *m = ctx;
	uint8_t *p = tmem_at(m, addr, size, A_WRITE);
	uint64_t v = size == 8 ? value : value & ((1ull << (8 * size)) - 1);
	if (p)
		memcpy(p, &v, size);
	if (p && m->predicting && predicted_write(m, addr, p, size))
		return EMU_MEM_OK;
	tmem_log(m, A_WRITE, via, p ? EMU_MEM_OK : EMU_MEM_FAULT, size, addr, v);
	return p ? EMU_MEM_OK : EMU_MEM_FAULT;
}

static struct emu_mem_uint t_read_uint(void *ctx, uint64_t addr, unsigned size)
{
	return read_via(ctx, addr, size, VIA_UINT);
}

static int t_write_uint(void *ctx, uint64_t addr, unsigned size, uint64_t value)
{
	return write_via(ctx, addr, size, value, VIA_UINT);
}

#define SIZED(n)                                                                   \
	static struct emu_mem_uint t_read_##n(void *ctx, uint64_t addr)            \
	{                                                                          \
		return read_via(ctx, addr, n, VIA_SIZED);                          \
	}                                                                          \
	static int t_write_##n(void *ctx, uint64_t addr, uint64_t value)           \
	{                                                                          \
		return write_via(ctx, addr, n, value, VIA_SIZED);                  \
	}
SIZED(1)
SIZED(2)
SIZED(4)
SIZED(8)

/* A read translated code made inline up to the prediction (emu.h,
 * read_mispredicted): what it says it found is checked against the
 * memory, then the read goes on as read_via's would. */
static uint64_t mispredicted_via(void *ctx, uint64_t addr, uint64_t value, unsigned size)
{
	struct tmem *m = ctx;
	uint8_t *p = tmem_at(m, addr, size, A_READ);
	uint64_t page = addr & ~4095ull;
	ck_assert(p && m->predicting && !m->checked && addr % size == 0);
	ck_assert_uint_eq((m->pages[(page >> 12) & (INLINE_PAGES - 1)].tag &
			   ~(uint64_t)EMU_INLINE_PAGE_WRITABLE), page);
	ck_assert_uint_eq(le_value(p, size), value);
	bool hit = true;
	for (unsigned i = 0; i < size; i++)
		hit &= cache_byte(m, addr + i) == p[i];
	ck_assert_msg(!hit, "read_mispredicted of a predicted value at %#" PRIx64, addr);
	predicted_read(m, addr, p, size, VIA_MISPREDICTED);
	return value;
}
#define MISPREDICTED(n)                                                               \
	static uint64_t t_mispredicted_##n(void *ctx, uint64_t addr, uint64_t value) \
	{                                                                             \
		return mispredicted_via(ctx, addr, value, n);                         \
	}
MISPREDICTED(1)
MISPREDICTED(2)
MISPREDICTED(4)
MISPREDICTED(8)

/* The four kinds of interface: with the sized functions translated code
 * calls directly, with read_uint/write_uint only, with neither (the
 * translation's helpers, as over emu_self_memory_ops), and with the
 * sized functions and the tables of the common read (predicting). */
enum { V_SIZED, V_UINT, V_PLAIN, V_INLINE, V_GUARDED, V_COUNT };
static const char *const variant_names[V_COUNT] = { "sized", "uint", "plain", "inline",
						    "inline, code pages guarded" };
static const struct emu_memory_ops variant_ops[V_COUNT] = {
	[V_SIZED] = { .read = t_read, .write = t_write, .fetch = t_fetch,
		      .read_uint = t_read_uint, .write_uint = t_write_uint,
		      .read_uint_sized = { t_read_1, t_read_2, t_read_4, t_read_8 },
		      .write_uint_sized = { t_write_1, t_write_2, t_write_4, t_write_8 } },
	[V_UINT] = { .read = t_read, .write = t_write, .fetch = t_fetch,
		     .read_uint = t_read_uint, .write_uint = t_write_uint },
	[V_PLAIN] = { .read = t_read, .write = t_write, .fetch = t_fetch },
	[V_INLINE] = { .read = t_read, .write = t_write, .fetch = t_fetch,
		       .read_uint = t_read_uint, .write_uint = t_write_uint,
		       .read_uint_sized = { t_read_1, t_read_2, t_read_4, t_read_8 },
		       .write_uint_sized = { t_write_1, t_write_2, t_write_4, t_write_8 },
		       .inline_memory = t_inline_memory },
	/* The same, the code's pages kept from inline writes by the filter
	 * of decoded code rather than watched: translated code's inline
	 * writes skip their check for self-modifying code. And, as the
	 * recorder's, the reads the cache does not predict handed over
	 * with their values (the variant above calls read_uint_sized). */
	[V_GUARDED] = { .read = t_read, .write = t_write, .fetch = t_fetch,
			.read_uint = t_read_uint, .write_uint = t_write_uint,
			.read_uint_sized = { t_read_1, t_read_2, t_read_4, t_read_8 },
			.write_uint_sized = { t_write_1, t_write_2, t_write_4, t_write_8 },
			.inline_memory = t_inline_memory,
			.read_mispredicted = { t_mispredicted_1, t_mispredicted_2,
					       t_mispredicted_4, t_mispredicted_8 },
			.decoded_code_page = t_decoded_code_page },
};

/* --- random numbers --------------------------------------------------------- */

struct rng {
	uint64_t s;
};

static uint64_t rnd(struct rng *r)
{
	r->s ^= r->s << 13;
	r->s ^= r->s >> 7;
	r->s ^= r->s << 17;
	return r->s * 0x2545f4914f6cdd1dull;
}

static unsigned below(struct rng *r, unsigned n)
{
	return (unsigned)(rnd(r) % n);
}

static bool chance(struct rng *r, unsigned percent)
{
	return below(r, 100) < percent;
}

static int64_t sext(uint64_t v, unsigned size)
{
	unsigned sh = 64 - 8 * size;
	return size >= 8 ? (int64_t)v : (int64_t)(v << sh) >> sh;
}

/* Values that make flags interesting: edges of every width, and noise. */
static uint64_t rand_value(struct rng *r)
{
	static const uint64_t edges[] = {
		0, 1, 2, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000,
		0xffffffff, 0x100000000, 0x7fffffffffffffff, 0x8000000000000000,
		0xffffffffffffffff, 0xfffffffffffffffe, 0x8000000000000001,
	};
	switch (below(r, 7)) {
	case 0: return (uint64_t)((int64_t)below(r, 9) - 4);
	case 1: return edges[below(r, sizeof(edges) / sizeof(edges[0]))];
	case 2: return (uint64_t)sext(rnd(r), 1);
	case 3: return (uint64_t)sext(rnd(r), 2);
	case 4: return (uint64_t)sext(rnd(r), 4);
	default: return rnd(r);
	}
}

/* An immediate for an operation of `size` bytes (imm8 forms often). */
static int64_t rand_imm(struct rng *r, unsigned size)
{
	unsigned width = size > 4 ? 4 : size;
	if (width > 1 && chance(r, 40))
		width = 1;
	return sext(rand_value(r), width);
}

/* --- encoding ------------------------------------------------------------------ */

struct asmb {
	uint8_t *buf;
	size_t len, cap;
	uint64_t base; /* guest address of buf[0] */
};

/* n: 0..15 a GPR, 16..19 ah ch dh bh (size 1): encode_operands.h's
 * numbering. */
#define HIGH8 EMU_GPR_COUNT
#define R stub_op_reg
#define I(v) stub_op_imm((uint64_t)(v))

#define NO_REG (-1)
#define RIP_REG (-2)
/* [base + index*scale + disp], `size` bytes; base NO_REG, RIP_REG
 * (disp then the absolute address) or a GPR; addr_size 4 or 8. */
static ZydisEncoderOperand M(int base, int index, unsigned scale, int64_t disp, unsigned size,
			     unsigned addr_size)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_MEMORY;
	o.mem.base = base == RIP_REG ? ZYDIS_REGISTER_RIP :
		     base == NO_REG ? ZYDIS_REGISTER_NONE : stub_gpr((unsigned)base, addr_size);
	o.mem.index = index == NO_REG ? ZYDIS_REGISTER_NONE : stub_gpr((unsigned)index, addr_size);
	o.mem.scale = (ZyanU8)(index == NO_REG ? 0 : scale);
	o.mem.displacement = disp;
	o.mem.size = (ZyanU16)size;
	return o;
}

/* Encodes one instruction at the end of a; false (nothing added) when
 * there is no such encoding or the emulator does not implement it. */
static bool emit_req(struct asmb *a, ZydisMnemonic mn, uint64_t prefixes, ZydisBranchWidth bw,
		     unsigned n, const ZydisEncoderOperand *ops)
{
	ZydisEncoderRequest rq;
	memset(&rq, 0, sizeof(rq));
	rq.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	rq.mnemonic = mn;
	rq.prefixes = prefixes;
	rq.branch_width = bw;
	rq.operand_count = (ZyanU8)n;
	for (unsigned i = 0; i < n; i++)
		rq.operands[i] = ops[i];
	uint8_t tmp[ZYDIS_MAX_INSTRUCTION_LENGTH];
	ZyanUSize len = sizeof(tmp);
	if (!ZYAN_SUCCESS(ZydisEncoderEncodeInstructionAbsolute(&rq, tmp, &len, a->base + a->len)))
		return false;
	if (a->len + len > a->cap || !emu_implements(tmp, len))
		return false;
	memcpy(a->buf + a->len, tmp, len);
	a->len += len;
	return true;
}

#define NOPS(...) (sizeof((ZydisEncoderOperand[]){ __VA_ARGS__ }) / sizeof(ZydisEncoderOperand))
#define EMITP(a, mn, prefixes, ...) \
	emit_req(a, mn, prefixes, ZYDIS_BRANCH_WIDTH_NONE, NOPS(__VA_ARGS__), \
		 (ZydisEncoderOperand[]){ __VA_ARGS__ })
#define EMIT(a, mn, ...) EMITP(a, mn, 0, __VA_ARGS__)
#define EMIT0(a, mn) emit_req(a, mn, 0, ZYDIS_BRANCH_WIDTH_NONE, 0, NULL)

/* A branch to an absolute target with a rel8 or rel32. */
static bool emit_branch(struct asmb *a, ZydisMnemonic mn, uint64_t target, bool short_form)
{
	ZydisEncoderOperand t = I((int64_t)target);
	return emit_req(a, mn, 0, short_form ? ZYDIS_BRANCH_WIDTH_8 : ZYDIS_BRANCH_WIDTH_32, 1, &t);
}

/* The sixteen mnemonics of a condition family in condition-code order. */
#define CONDITION_FAMILY(F) { ZYDIS_MNEMONIC_##F##O, ZYDIS_MNEMONIC_##F##NO, \
	ZYDIS_MNEMONIC_##F##B, ZYDIS_MNEMONIC_##F##NB, ZYDIS_MNEMONIC_##F##Z, \
	ZYDIS_MNEMONIC_##F##NZ, ZYDIS_MNEMONIC_##F##BE, ZYDIS_MNEMONIC_##F##NBE, \
	ZYDIS_MNEMONIC_##F##S, ZYDIS_MNEMONIC_##F##NS, ZYDIS_MNEMONIC_##F##P, \
	ZYDIS_MNEMONIC_##F##NP, ZYDIS_MNEMONIC_##F##L, ZYDIS_MNEMONIC_##F##NL, \
	ZYDIS_MNEMONIC_##F##LE, ZYDIS_MNEMONIC_##F##NLE }
static const ZydisMnemonic jcc_of[16] = CONDITION_FAMILY(J);
static const ZydisMnemonic setcc_of[16] = CONDITION_FAMILY(SET);
static const ZydisMnemonic cmov_of[16] = CONDITION_FAMILY(CMOV);
static const ZydisMnemonic alu_ops[7] = {
	ZYDIS_MNEMONIC_ADD, ZYDIS_MNEMONIC_SUB, ZYDIS_MNEMONIC_AND, ZYDIS_MNEMONIC_OR,
	ZYDIS_MNEMONIC_XOR, ZYDIS_MNEMONIC_CMP, ZYDIS_MNEMONIC_TEST,
};
static const ZydisMnemonic shift_ops[3] = {
	ZYDIS_MNEMONIC_SHL, ZYDIS_MNEMONIC_SHR, ZYDIS_MNEMONIC_SAR,
};
static const unsigned sizes[4] = { 1, 2, 4, 8 };

/* --- programs ------------------------------------------------------------------ */

/*
 * A program: a function at FUNC_ADDR (a few instructions and ret), and at
 * ENTRY_ADDR a loop body run C times, ending in ud2. Registers the body
 * must not change: rsp (only balanced push/pop and call/ret move it), B
 * (the data pages' middle, every memory operand's base), I (an index,
 * kept below 64 by the updates that change it), C (the loop counter) and
 * F (a faulting base some programs move into B at one iteration).
 */
struct program {
	uint8_t image[R_COUNT][REGION_MAX];
	uint64_t gpr[EMU_GPR_COUNT], rflags;
	uint32_t mxcsr;
	uint64_t xmm[16][2]; /* the low 16 bytes of xmm0..15 */
	size_t func_end, body_end; /* offsets into the code */
	unsigned B, Ix, C, F;      /* F: NO_F when none */
};
#define NO_F 99

struct gen {
	struct rng r;
	struct asmb a;
	uint32_t writable; /* registers the random code may write */
	unsigned B, Ix, C;
	bool in_func;      /* rsp points at the return address */
	bool divides_fault; /* a div may raise #DE (a faulting program) */
};

/* How often gen_lowered makes SSE arithmetic, a conversion or an XMM
 * register move (percent; test_random_sse raises it). */
static unsigned sse_percent = 0;

static unsigned pick_size(struct gen *g)
{
	return sizes[below(&g->r, 4)];
}

/* A register to write (ah..bh sometimes, for byte operations). */
static unsigned dst_reg(struct gen *g, unsigned size)
{
	if (size == 1 && chance(&g->r, 15)) {
		unsigned h = below(&g->r, 4);
		if (g->writable & (1u << h))
			return HIGH8 + h;
	}
	for (;;) {
		unsigned n = below(&g->r, 16);
		if (g->writable & (1u << n))
			return n;
	}
}

static unsigned src_reg(struct gen *g, unsigned size)
{
	if (size == 1 && chance(&g->r, 15))
		return HIGH8 + below(&g->r, 4);
	return below(&g->r, 16);
}

/* A memory operand of `size` bytes inside the data pages (or the stack),
 * in one of the addressing forms; *prefixes gets a segment override. */
static ZydisEncoderOperand rand_mem(struct gen *g, unsigned size, uint64_t *prefixes)
{
	struct rng *r = &g->r;
	int half = 0x1000;
	unsigned scale = 1u << below(r, 4);
	int64_t span = 63 * (int64_t)scale;
	*prefixes = 0;
	switch (below(r, g->in_func ? 8 : 9)) {
	case 0: /* [B + disp] */
		return M((int)g->B, NO_REG, 0, (int64_t)below(r, 2 * half - size) - half, size, 8);
	case 1: /* [B + disp] across B, a page boundary (or the end of
		 * the lower half, or of a mapping, for a faulting B) */
		return M((int)g->B, NO_REG, 0, (int64_t)below(r, 16) - 12, size, 8);
	case 2: case 3: /* [B + I*scale + disp] */
		return M((int)g->B, (int)g->Ix, scale,
			 (int64_t)below(r, (unsigned)(2 * half - span - size)) - half, size, 8);
	case 4: /* rip-relative */
		return M(RIP_REG, NO_REG, 0, (int64_t)(DATA_BASE + below(r, 2 * half - size)), size, 8);
	case 5: /* [I*scale + disp32] or [disp32] */
		if (chance(r, 50))
			return M(NO_REG, (int)g->Ix, scale,
				 (int64_t)(DATA_BASE + below(r, (unsigned)(2 * half - span - size))),
				 size, 8);
		return M(NO_REG, NO_REG, 0, (int64_t)(DATA_BASE + below(r, 2 * half - size)), size, 8);
	case 6: /* fs:[B + disp] */
		*prefixes = ZYDIS_ATTRIB_HAS_SEGMENT_FS;
		return M((int)g->B, NO_REG, 0,
			 (int64_t)below(r, 2 * half - size) - half - (int64_t)FS_BASE, size, 8);
	case 7: /* [B32 + disp]: the 0x67 prefix */
		return M((int)g->B, NO_REG, 0, (int64_t)below(r, 2 * half - size) - half, size, 4);
	default: /* [rsp + disp]: above what the body pushes */
		return M(EMU_RSP, NO_REG, 0, (int64_t)below(r, 0xf0 - size), size, 8);
	}
}

static ZydisEncoderOperand XMM(unsigned n)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_REGISTER;
	o.reg.value = (ZydisRegister)(ZYDIS_REGISTER_XMM0 + n);
	return o;
}

/* An SSE move between an XMM register and memory: movd, movq, movss,
 * movsd, or one of the whole-register moves (aligned ones fault when the
 * address is not); half of them at an address aligned to 16 in the data
 * page below B (the page above it is never in the inline table), or
 * not, for the unaligned ones. */
static bool gen_vector_move(struct gen *g)
{
	static const ZydisMnemonic whole[] = {
		ZYDIS_MNEMONIC_MOVDQA, ZYDIS_MNEMONIC_MOVDQU, ZYDIS_MNEMONIC_MOVAPS,
		ZYDIS_MNEMONIC_MOVUPS, ZYDIS_MNEMONIC_MOVAPD, ZYDIS_MNEMONIC_MOVUPD,
	};
	static const ZydisMnemonic nontemporal[] = { ZYDIS_MNEMONIC_MOVNTDQ, ZYDIS_MNEMONIC_MOVNTPS,
						     ZYDIS_MNEMONIC_MOVNTPD };
	static const ZydisMnemonic low[] = { ZYDIS_MNEMONIC_MOVD, ZYDIS_MNEMONIC_MOVQ,
					     ZYDIS_MNEMONIC_MOVSS, ZYDIS_MNEMONIC_MOVSD };
	struct rng *r = &g->r;
	bool store = chance(r, 50);
	ZydisMnemonic mn;
	unsigned n = 16;
	if (chance(r, 50)) {
		mn = store && chance(r, 20) ? nontemporal[below(r, 3)] : whole[below(r, 6)];
	} else {
		unsigned k = below(r, 4);
		mn = low[k];
		n = k % 2 ? 8 : 4;
	}
	/* movdqu, movups, movupd: any offset in the page too, up to its
	 * end and across it */
	bool any = mn == ZYDIS_MNEMONIC_MOVDQU || mn == ZYDIS_MNEMONIC_MOVUPS ||
		   mn == ZYDIS_MNEMONIC_MOVUPD;
	int64_t skew = any && chance(r, 50) ? (int64_t)below(r, 16) : 0;
	uint64_t pre = 0;
	ZydisEncoderOperand m = chance(r, 50)
		? M((int)g->B, NO_REG, 0, 16 * (int64_t)below(r, 0x1000 / 16) - 0x1000 + skew, n, 8)
		: rand_mem(g, n, &pre);
	ZydisEncoderOperand v = XMM(below(r, 16));
	if (store)
		return EMITP(&g->a, mn, pre, m, v);
	/* A load of 4 or 8 bytes zeroes the rest of the register: set
	 * first, or it would be zero already from the runs before the
	 * translation. */
	if (n < 16 && chance(r, 50) && !EMIT(&g->a, ZYDIS_MNEMONIC_PCMPEQB, v, v))
		return false;
	return EMITP(&g->a, mn, pre, v, m);
}

/* --- SSE arithmetic ------------------------------------------------------ */

/* Where ldmxcsr finds the MXCSR values a loop switches between: the
 * first masks every exception, the others unmask some. */
#define MXCSR_TABLE (RODATA_BASE + 8)
#define MXCSR_VALUES 4

/* An MXCSR: any rounding, DAZ and FTZ, some flags already set, every
 * exception masked (the translator's own case) or, with `unmasked`,
 * some not (where the instruction is the handler's). */
static uint32_t rand_mxcsr(struct rng *r, bool unmasked)
{
	uint32_t m = 0x1f80 | (uint32_t)below(r, 4) << 13;
	if (chance(r, 25))
		m |= 1u << 6; /* DAZ */
	if (chance(r, 25))
		m |= 1u << 15; /* FTZ */
	if (chance(r, 30))
		m |= (uint32_t)rnd(r) & 0x3f;
	if (unmasked)
		m &= ~((uint32_t)((rnd(r) & 0x3f) | 1u << below(r, 6)) << 7);
	return m;
}

/* A 64-bit lane of floating-point data: a special double (zeroes,
 * denormals, the normal limits, infinities, quiet and signalling NaNs,
 * integer limits for the conversions), two special singles, or an
 * ordinary double near 1 (inexact results that stay finite). */
static uint64_t fp_lane(struct rng *r)
{
	static const uint64_t dbl[] = {
		0, 0x8000000000000000ull, 0x3ff0000000000000ull, 0xbff8000000000000ull,
		1, 0x800fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
		0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
		0x7ff0000000000001ull, 0xfff8000000000badull, 0x43e0000000000000ull,
		0xc3e0000000000000ull, 0x41e0000000000000ull, 0x3fb999999999999aull,
		0x0008000000000000ull,
	};
	static const uint32_t flt[] = {
		0, 0x80000000u, 0x3f800000u, 0xbfc00000u, 1, 0x807fffffu, 0x00800000u,
		0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7f800001u, 0xffc00badu,
		0x5f000000u, 0x4f000000u, 0x3dcccccdu, 0x00400000u,
	};
	const unsigned nd = sizeof(dbl) / sizeof(dbl[0]), nf = sizeof(flt) / sizeof(flt[0]);
	switch (below(r, 4)) {
	case 0: return dbl[below(r, nd)];
	case 1: return flt[below(r, nf)] | (uint64_t)flt[below(r, nf)] << 32;
	case 2: return (uint64_t)(0x3f0 + below(r, 32)) << 52 | (rnd(r) >> 12);
	default: return rnd(r);
	}
}

/* A source of `size` bytes: an XMM register, or memory (16 bytes: most
 * of them aligned to 16 in the data page below B, the rest a #GP). */
static ZydisEncoderOperand sse_source(struct gen *g, unsigned size, uint64_t *pre)
{
	struct rng *r = &g->r;
	*pre = 0;
	if (chance(r, 60))
		return XMM(below(r, 16));
	if (size == 16 && chance(r, 90))
		return M((int)g->B, NO_REG, 0, 16 * (int64_t)below(r, 0x1000 / 16) - 0x1000, 16, 8);
	return rand_mem(g, size, pre);
}

#define FP_FOUR(M) ZYDIS_MNEMONIC_##M##SS, ZYDIS_MNEMONIC_##M##SD, \
	ZYDIS_MNEMONIC_##M##PS, ZYDIS_MNEMONIC_##M##PD

/* SSE arithmetic, a scalar conversion, an integer or bitwise operation,
 * or a move between XMM registers (and general ones), or now and then an ldmxcsr that
 * switches the rounding, DAZ, FTZ and masks the rest of the loop runs
 * under. */
static bool gen_sse(struct gen *g)
{
	static const ZydisMnemonic arith[] = {
		FP_FOUR(ADD), FP_FOUR(SUB), FP_FOUR(MUL), FP_FOUR(DIV), FP_FOUR(MIN), FP_FOUR(MAX),
		FP_FOUR(SQRT),
	};
	static const ZydisMnemonic integer[] = {
		ZYDIS_MNEMONIC_PXOR, ZYDIS_MNEMONIC_POR, ZYDIS_MNEMONIC_PAND, ZYDIS_MNEMONIC_PANDN,
		ZYDIS_MNEMONIC_XORPS, ZYDIS_MNEMONIC_XORPD, ZYDIS_MNEMONIC_ANDPS, ZYDIS_MNEMONIC_ANDPD,
		ZYDIS_MNEMONIC_ANDNPS, ZYDIS_MNEMONIC_ANDNPD, ZYDIS_MNEMONIC_ORPS, ZYDIS_MNEMONIC_ORPD,
		ZYDIS_MNEMONIC_PADDB, ZYDIS_MNEMONIC_PADDW, ZYDIS_MNEMONIC_PADDD, ZYDIS_MNEMONIC_PADDQ,
		ZYDIS_MNEMONIC_PSUBB, ZYDIS_MNEMONIC_PSUBW, ZYDIS_MNEMONIC_PSUBD, ZYDIS_MNEMONIC_PSUBQ,
		ZYDIS_MNEMONIC_PCMPEQB, ZYDIS_MNEMONIC_PCMPEQW, ZYDIS_MNEMONIC_PCMPEQD,
		ZYDIS_MNEMONIC_PCMPGTB, ZYDIS_MNEMONIC_PCMPGTW, ZYDIS_MNEMONIC_PCMPGTD,
		ZYDIS_MNEMONIC_PMINUB, ZYDIS_MNEMONIC_PMAXUB,
		ZYDIS_MNEMONIC_PUNPCKLBW, ZYDIS_MNEMONIC_PUNPCKLWD, ZYDIS_MNEMONIC_PUNPCKLDQ,
		ZYDIS_MNEMONIC_PUNPCKLQDQ, ZYDIS_MNEMONIC_PUNPCKHBW, ZYDIS_MNEMONIC_PUNPCKHWD,
		ZYDIS_MNEMONIC_PUNPCKHDQ, ZYDIS_MNEMONIC_PUNPCKHQDQ,
	};
	static const ZydisMnemonic copy[] = {
		ZYDIS_MNEMONIC_MOVAPS, ZYDIS_MNEMONIC_MOVAPD, ZYDIS_MNEMONIC_MOVUPS,
		ZYDIS_MNEMONIC_MOVUPD, ZYDIS_MNEMONIC_MOVDQA, ZYDIS_MNEMONIC_MOVDQU,
		ZYDIS_MNEMONIC_MOVQ,
	};
	static const ZydisMnemonic to_int[] = {
		ZYDIS_MNEMONIC_CVTSS2SI, ZYDIS_MNEMONIC_CVTSD2SI, ZYDIS_MNEMONIC_CVTTSS2SI,
		ZYDIS_MNEMONIC_CVTTSD2SI,
	};
	struct rng *r = &g->r;
	struct asmb *a = &g->a;
	ZydisEncoderOperand d = XMM(below(r, 16));
	unsigned isize = chance(r, 50) ? 4 : 8;
	uint64_t pre;
	switch (below(r, 23)) {
	case 22: { /* cmpss/sd/ps/pd: predicates 0..7 mostly */
		static const ZydisMnemonic cmp[] = { ZYDIS_MNEMONIC_CMPSS, ZYDIS_MNEMONIC_CMPSD,
						     ZYDIS_MNEMONIC_CMPPS, ZYDIS_MNEMONIC_CMPPD };
		unsigned k = below(r, 4);
		ZydisEncoderOperand s = sse_source(g, k == 0 ? 4 : k == 1 ? 8 : 16, &pre);
		return EMITP(a, cmp[k], pre, d, s, I(below(r, chance(r, 90) ? 8 : 256)));
	}
	case 20: case 21: { /* (u)comiss/sd, its flags read by a setcc now and then */
		static const ZydisMnemonic cmp[] = { ZYDIS_MNEMONIC_COMISS, ZYDIS_MNEMONIC_COMISD,
						     ZYDIS_MNEMONIC_UCOMISS, ZYDIS_MNEMONIC_UCOMISD };
		unsigned k = below(r, 4);
		ZydisEncoderOperand s = sse_source(g, k % 2 ? 8 : 4, &pre);
		if (!EMITP(a, cmp[k], pre, d, s))
			return false;
		return chance(r, 50) ||
		       EMIT(a, setcc_of[below(r, 16)], R(dst_reg(g, 1), 1));
	}
	case 0: case 1: case 2: case 3: case 4: case 5: case 6: case 7: {
		unsigned k = below(r, sizeof(arith) / sizeof(arith[0]));
		unsigned size = k % 4 == 0 ? 4 : k % 4 == 1 ? 8 : 16;
		ZydisEncoderOperand s = sse_source(g, size, &pre);
		return EMITP(a, arith[k], pre, d, s);
	}
	case 8: { /* cvtss2sd xmm, xmm/m32; cvtsd2ss xmm, xmm/m64 */
		bool widen = chance(r, 50);
		ZydisEncoderOperand s = sse_source(g, widen ? 4 : 8, &pre);
		return EMITP(a, widen ? ZYDIS_MNEMONIC_CVTSS2SD : ZYDIS_MNEMONIC_CVTSD2SS, pre, d, s);
	}
	case 9: case 10: { /* cvtsi2ss/sd xmm, r/m32/64 */
		ZydisMnemonic mn = chance(r, 50) ? ZYDIS_MNEMONIC_CVTSI2SS : ZYDIS_MNEMONIC_CVTSI2SD;
		if (chance(r, 30))
			return EMITP(a, mn, 0, d, R(src_reg(g, isize), isize));
		ZydisEncoderOperand m = rand_mem(g, isize, &pre);
		return EMITP(a, mn, pre, d, m);
	}
	case 11: case 12: { /* cvt(t)ss2si/sd2si r32/64, xmm/m */
		unsigned k = below(r, 4);
		ZydisEncoderOperand s = sse_source(g, k % 2 ? 8 : 4, &pre);
		return EMITP(a, to_int[k], pre, R(dst_reg(g, isize), isize), s);
	}
	case 13: case 14: {
		ZydisEncoderOperand s = sse_source(g, 16, &pre);
		return EMITP(a, integer[below(r, sizeof(integer) / sizeof(integer[0]))], pre, d, s);
	}
	case 15: { /* pshufd, palignr: an imm8; pmovmskb */
		ZydisEncoderOperand s = sse_source(g, 16, &pre);
		if (chance(r, 30))
			return EMIT(a, ZYDIS_MNEMONIC_PMOVMSKB, R(dst_reg(g, isize), isize),
				    XMM(below(r, 16)));
		return EMITP(a, chance(r, 50) ? ZYDIS_MNEMONIC_PSHUFD : ZYDIS_MNEMONIC_PALIGNR, pre, d,
			     s, I(below(r, chance(r, 80) ? 16 : 256)));
	}
	case 16:
		return EMIT(a, copy[below(r, sizeof(copy) / sizeof(copy[0]))], d, XMM(below(r, 16)));
	case 17: { /* movd/movq between an XMM and a general register */
		ZydisMnemonic mn = isize == 8 ? ZYDIS_MNEMONIC_MOVQ : ZYDIS_MNEMONIC_MOVD;
		if (chance(r, 50))
			return EMIT(a, mn, d, R(src_reg(g, isize), isize));
		return EMIT(a, mn, R(dst_reg(g, isize), isize), d);
	}
	case 18: {
		/* ldmxcsr of the masking value, but at one iteration late in
		 * the loop (the block translated by then) of an unmasking
		 * one: an exception then must reach no host instruction. */
		unsigned s1 = dst_reg(g, 8), s2 = dst_reg(g, 8);
		if (s1 == s2)
			return false;
		uint64_t other = MXCSR_TABLE + 4 * (1 + below(r, MXCSR_VALUES - 1));
		return EMIT(a, ZYDIS_MNEMONIC_MOV, R(s1, 4), I(MXCSR_TABLE)) &&
		       EMIT(a, ZYDIS_MNEMONIC_MOV, R(s2, 4), I((int64_t)other)) &&
		       EMIT(a, ZYDIS_MNEMONIC_CMP, R(g->C, 8), I(1 + below(r, 30))) &&
		       EMIT(a, ZYDIS_MNEMONIC_CMOVZ, R(s1, 8), R(s2, 8)) &&
		       EMIT(a, ZYDIS_MNEMONIC_LDMXCSR, M(s1, NO_REG, 0, 0, 4, 8));
	}
	default: { /* a special value into an XMM register's low lane */
		unsigned s = dst_reg(g, 8);
		return EMIT(a, ZYDIS_MNEMONIC_MOV, R(s, 8), I((int64_t)fp_lane(r))) &&
		       EMIT(a, ZYDIS_MNEMONIC_MOVQ, d, R(s, 8));
	}
	}
}

/* One instruction the translator lowers, in one of its forms. */
static bool gen_lowered(struct gen *g)
{
	struct rng *r = &g->r;
	struct asmb *a = &g->a;
	unsigned size = pick_size(g);
	uint64_t pre;
	ZydisMnemonic alu = alu_ops[below(r, 7)];
	if (chance(r, sse_percent))
		return gen_sse(g);
	switch (below(r, 20)) {
	case 0:
		return EMIT(a, ZYDIS_MNEMONIC_MOV, R(dst_reg(g, size), size), R(src_reg(g, size), size));
	case 1:
		return EMIT(a, ZYDIS_MNEMONIC_MOV, R(dst_reg(g, size), size),
			    I(size == 8 && chance(r, 50) ? (int64_t)rand_value(r) : rand_imm(r, size)));
	case 2: {
		ZydisEncoderOperand m = rand_mem(g, size, &pre);
		return EMITP(a, ZYDIS_MNEMONIC_MOV, pre, R(dst_reg(g, size), size), m);
	}
	case 3: {
		ZydisEncoderOperand m = rand_mem(g, size, &pre);
		return EMITP(a, ZYDIS_MNEMONIC_MOV, pre, m, R(src_reg(g, size), size));
	}
	case 4: {
		ZydisEncoderOperand m = rand_mem(g, size, &pre);
		return EMITP(a, ZYDIS_MNEMONIC_MOV, pre, m, I(rand_imm(r, size)));
	}
	case 5: { /* movzx, movsx, movsxd from a register or memory */
		unsigned from = chance(r, 50) ? 1 : 2, to = sizes[1 + below(r, 3)];
		ZydisMnemonic mn = chance(r, 50) ? ZYDIS_MNEMONIC_MOVZX : ZYDIS_MNEMONIC_MOVSX;
		if (chance(r, 20)) {
			from = 4;
			to = 8;
			mn = ZYDIS_MNEMONIC_MOVSXD;
		}
		if (from >= to)
			to = 4;
		if (chance(r, 50)) {
			ZydisEncoderOperand m = rand_mem(g, from, &pre);
			return EMITP(a, mn, pre, R(dst_reg(g, to), to), m);
		}
		return EMIT(a, mn, R(dst_reg(g, to), to), R(src_reg(g, from), from));
	}
	case 6: { /* lea of any registers: no access */
		unsigned to = sizes[1 + below(r, 3)];
		int base = chance(r, 80) ? (int)below(r, 16) : NO_REG;
		int index = chance(r, 60) ? (int)below(r, 16) : NO_REG;
		if (index == EMU_RSP)
			index = NO_REG;
		int64_t disp = chance(r, 30) ? 0 : rand_imm(r, 4);
		if (chance(r, 10))
			return EMIT(a, ZYDIS_MNEMONIC_LEA, R(dst_reg(g, to), to),
				    M(RIP_REG, NO_REG, 0, (int64_t)(CODE_BASE + below(r, 0x2000)), 8, 8));
		return EMIT(a, ZYDIS_MNEMONIC_LEA, R(dst_reg(g, to), to),
			    M(base, index, 1u << below(r, 4), disp, 8, chance(r, 15) ? 4 : 8));
	}
	case 7: case 8: { /* alu r, r */
		unsigned d = alu == ZYDIS_MNEMONIC_CMP || alu == ZYDIS_MNEMONIC_TEST ? src_reg(g, size)
										    : dst_reg(g, size);
		return EMIT(a, alu, R(d, size), R(chance(r, 15) ? d : src_reg(g, size), size));
	}
	case 9: { /* alu r, imm */
		unsigned d = alu == ZYDIS_MNEMONIC_CMP || alu == ZYDIS_MNEMONIC_TEST ? src_reg(g, size)
										    : dst_reg(g, size);
		return EMIT(a, alu, R(d, size), I(rand_imm(r, size)));
	}
	case 10: { /* alu r, m (test has only m, r) */
		unsigned d = alu == ZYDIS_MNEMONIC_CMP || alu == ZYDIS_MNEMONIC_TEST ? src_reg(g, size)
										    : dst_reg(g, size);
		ZydisEncoderOperand m = rand_mem(g, size, &pre);
		if (alu == ZYDIS_MNEMONIC_TEST)
			return EMITP(a, alu, pre, m, R(d, size));
		return EMITP(a, alu, pre, R(d, size), m);
	}
	case 11: { /* alu m, r */
		ZydisEncoderOperand m = rand_mem(g, size, &pre);
		return EMITP(a, alu, pre, m, R(src_reg(g, size), size));
	}
	case 12: { /* alu m, imm */
		ZydisEncoderOperand m = rand_mem(g, size, &pre);
		return EMITP(a, alu, pre, m, I(rand_imm(r, size)));
	}
	case 13: case 14: { /* shift r, imm: counts 0, 1, up to past the width */
		unsigned count = chance(r, 20) ? below(r, 2) : below(r, chance(r, 10) ? 256 : 8 * size + 4);
		return EMIT(a, shift_ops[below(r, 3)], R(dst_reg(g, size), size), I(count));
	}
	case 15: case 16:
		return gen_vector_move(g);
	case 17: { /* shift r32/r64, cl: counts 0, 1, the width - 1, past it, random */
		static const uint32_t counts[] = { 0, 1, 2, 31, 32, 33, 63, 64, 0xff, 0x100 };
		if (size < 4)
			size = chance(r, 50) ? 4 : 8;
		uint32_t count = chance(r, 70) ? counts[below(r, 10)] : (uint32_t)rand_value(r);
		/* (rcx may hold a base or the loop's counter: then its value) */
		if ((g->writable & (1u << EMU_RCX)) &&
		    !EMIT(a, ZYDIS_MNEMONIC_MOV, R(EMU_RCX, 4), I(count)))
			return false;
		return EMIT(a, shift_ops[below(r, 3)], R(dst_reg(g, size), size), R(EMU_RCX, 1));
	}
	case 18: { /* div r32/r64 (jit_lower_divide.c): rdx cleared and the
		    * divisor made odd, so that it cannot fault; in a
		    * program that may fault, one time in ten either is
		    * left out or the divisor is rdx (then 0 or the dividend's
		    * high half): #DE, which the handler raises */
		uint32_t both = 1u << EMU_RAX | 1u << EMU_RDX;
		if ((g->writable & both) != both || chance(r, 75))
			return false;
		size = chance(r, 50) ? 4 : 8;
		unsigned divisor = dst_reg(g, size);
		bool fault = g->divides_fault && chance(r, 10);
		if (fault && chance(r, 30))
			divisor = EMU_RDX;
		else if (divisor == EMU_RDX)
			return false;
		if ((!fault || chance(r, 50)) &&
		    !EMIT(a, ZYDIS_MNEMONIC_XOR, R(EMU_RDX, 4), R(EMU_RDX, 4)))
			return false;
		if (!fault && !EMIT(a, ZYDIS_MNEMONIC_OR, R(divisor, size), I(1)))
			return false;
		return EMIT(a, ZYDIS_MNEMONIC_DIV, R(divisor, size));
	}
	default:
		switch (below(r, 3)) {
		case 0: return EMIT0(a, ZYDIS_MNEMONIC_NOP);
		case 1: return EMIT0(a, ZYDIS_MNEMONIC_ENDBR64);
		default: return EMIT(a, ZYDIS_MNEMONIC_NOP, M(0, 0, 1, rand_imm(r, 4), 4, 8));
		}
	}
}

/* One instruction the translator leaves to its handler. */
static bool gen_handled(struct gen *g)
{
	struct rng *r = &g->r;
	struct asmb *a = &g->a;
	unsigned size = pick_size(g);
	uint64_t pre;
	bool mem = chance(r, 30);
	ZydisEncoderOperand m = rand_mem(g, size, &pre);
	ZydisEncoderOperand d = R(dst_reg(g, size), size);
	ZydisEncoderOperand rm = mem ? m : d;
	switch (below(r, 17)) {
	case 0: { /* (inc, dec, neg, not of a register are lowered) */
		static const ZydisMnemonic unary[] = { ZYDIS_MNEMONIC_INC, ZYDIS_MNEMONIC_DEC,
						       ZYDIS_MNEMONIC_NEG, ZYDIS_MNEMONIC_NOT };
		return EMITP(a, unary[below(r, 4)], mem ? pre : 0, rm);
	}
	case 1: /* imul r, r/m (, imm) */
		if (size == 1)
			size = 4;
		d = R(dst_reg(g, size), size);
		m = rand_mem(g, size, &pre);
		if (chance(r, 40))
			return EMITP(a, ZYDIS_MNEMONIC_IMUL, mem ? pre : 0, d,
				     mem ? m : R(src_reg(g, size), size), I(rand_imm(r, size)));
		return EMITP(a, ZYDIS_MNEMONIC_IMUL, mem ? pre : 0, d, mem ? m : R(src_reg(g, size), size));
	case 2: { /* adc, sbb */
		ZydisMnemonic mn = chance(r, 50) ? ZYDIS_MNEMONIC_ADC : ZYDIS_MNEMONIC_SBB;
		switch (below(r, 4)) {
		case 0: return EMIT(a, mn, d, R(src_reg(g, size), size));
		case 1: return EMIT(a, mn, d, I(rand_imm(r, size)));
		case 2: return EMITP(a, mn, pre, d, m);
		default: return EMITP(a, mn, pre, m, R(src_reg(g, size), size));
		}
	}
	case 3: /* setcc */
		m = rand_mem(g, 1, &pre);
		return EMITP(a, setcc_of[below(r, 16)], mem ? pre : 0, mem ? m : R(dst_reg(g, 1), 1));
	case 4: /* cmovcc */
		if (size == 1)
			size = 8;
		m = rand_mem(g, size, &pre);
		return EMITP(a, cmov_of[below(r, 16)], mem ? pre : 0, R(dst_reg(g, size), size),
			     mem ? m : R(src_reg(g, size), size));
	case 5: { /* bt family: register offsets only on registers */
		static const ZydisMnemonic bts[] = { ZYDIS_MNEMONIC_BT, ZYDIS_MNEMONIC_BTS,
						     ZYDIS_MNEMONIC_BTR, ZYDIS_MNEMONIC_BTC };
		if (size == 1)
			size = 2;
		m = rand_mem(g, size, &pre);
		ZydisMnemonic mn = bts[below(r, 4)];
		if (mem)
			return EMITP(a, mn, pre, m, I(below(r, 8 * size)));
		ZydisEncoderOperand t = R(mn == ZYDIS_MNEMONIC_BT ? src_reg(g, size) : dst_reg(g, size), size);
		return EMIT(a, mn, t, chance(r, 50) ? R(src_reg(g, size), size) : I(below(r, 256)));
	}
	case 6: { /* rotates; shifts by cl; shifts of memory */
		static const ZydisMnemonic rots[] = { ZYDIS_MNEMONIC_ROL, ZYDIS_MNEMONIC_ROR,
						      ZYDIS_MNEMONIC_RCL, ZYDIS_MNEMONIC_RCR,
						      ZYDIS_MNEMONIC_SHL, ZYDIS_MNEMONIC_SHR,
						      ZYDIS_MNEMONIC_SAR };
		unsigned i = below(r, 7);
		ZydisMnemonic mn = rots[i];
		/* (shifts of a register by an immediate, and of a 32- or 64-bit
		 * one by cl, are lowered; 8- and 16-bit ones by cl are not) */
		if (chance(r, 40) || (i >= 4 && !mem))
			return EMITP(a, mn, mem ? pre : 0, rm, R(EMU_RCX, 1));
		return EMITP(a, mn, mem ? pre : 0, rm, I(below(r, 2 * 8 * size)));
	}
	case 7: { /* xchg, xadd of registers */
		ZydisEncoderOperand s = R(dst_reg(g, size), size);
		return EMIT(a, chance(r, 70) ? ZYDIS_MNEMONIC_XCHG : ZYDIS_MNEMONIC_XADD, d, s);
	}
	case 8:
		size = chance(r, 50) ? 4 : 8;
		return EMIT(a, ZYDIS_MNEMONIC_BSWAP, R(dst_reg(g, size), size));
	case 9: {
		static const ZydisMnemonic implicit[] = {
			ZYDIS_MNEMONIC_CDQ, ZYDIS_MNEMONIC_CQO, ZYDIS_MNEMONIC_CWD, ZYDIS_MNEMONIC_CBW,
			ZYDIS_MNEMONIC_CWDE, ZYDIS_MNEMONIC_CDQE, ZYDIS_MNEMONIC_LAHF,
			ZYDIS_MNEMONIC_SAHF, ZYDIS_MNEMONIC_CLC, ZYDIS_MNEMONIC_STC, ZYDIS_MNEMONIC_CMC,
		};
		return EMIT0(a, implicit[below(r, sizeof(implicit) / sizeof(implicit[0]))]);
	}
	case 10: { /* mul, imul, one operand: rdx:rax */
		ZydisEncoderOperand s = mem ? m : R(src_reg(g, size), size);
		return EMITP(a, chance(r, 50) ? ZYDIS_MNEMONIC_MUL : ZYDIS_MNEMONIC_IMUL, mem ? pre : 0, s);
	}
	case 11: { /* bit scans and counts (lowered: jit_lower_bit_count.c) */
		static const ZydisMnemonic scans[] = { ZYDIS_MNEMONIC_BSF, ZYDIS_MNEMONIC_BSR,
						       ZYDIS_MNEMONIC_POPCNT, ZYDIS_MNEMONIC_LZCNT,
						       ZYDIS_MNEMONIC_TZCNT };
		if (size == 1)
			size = 4;
		m = rand_mem(g, size, &pre);
		return EMITP(a, scans[below(r, 5)], mem ? pre : 0, R(dst_reg(g, size), size),
			     mem ? m : R(src_reg(g, size), size));
	}
	case 12: { /* the ah..bh forms of lowered operations */
		unsigned h = HIGH8 + below(r, 4);
		if (!(g->writable & (1u << (h - HIGH8))))
			h = dst_reg(g, 1);
		switch (below(r, 4)) {
		case 0: return EMIT(a, alu_ops[below(r, 7)], R(h, 1), R(src_reg(g, 1), 1));
		case 1: return EMIT(a, ZYDIS_MNEMONIC_MOV, R(h, 1), I(rand_imm(r, 1)));
		case 2: return EMIT(a, ZYDIS_MNEMONIC_MOV, R(dst_reg(g, 1), 1), R(HIGH8 + below(r, 4), 1));
		default: return EMIT(a, ZYDIS_MNEMONIC_SHL, R(h, 1), I(below(r, 12)));
		}
	}
	case 13: /* extensions of ah..bh */
		size = sizes[1 + below(r, 3)];
		return EMIT(a, chance(r, 50) ? ZYDIS_MNEMONIC_MOVZX : ZYDIS_MNEMONIC_MOVSX,
			    R(dst_reg(g, size), size), R(HIGH8 + below(r, 4), 1));
	case 14: /* xchg with memory (a locked access) */
		return EMITP(a, ZYDIS_MNEMONIC_XCHG, pre, m, d);
	case 15: /* pushfq; pop r */
		return EMIT0(a, ZYDIS_MNEMONIC_PUSHFQ) && EMIT(a, ZYDIS_MNEMONIC_POP, R(dst_reg(g, 8), 8));
	default: { /* push m; pop m */
		ZydisEncoderOperand m2 = rand_mem(g, 8, &pre);
		return EMITP(a, ZYDIS_MNEMONIC_PUSH, pre, m2) &&
		       EMITP(a, ZYDIS_MNEMONIC_POP, pre, rand_mem(g, 8, &pre));
	}
	}
}

/* One instruction (or two for pushf+pop, push+pop of memory), retried
 * until an encodable form comes out. */
static void gen_simple(struct gen *g)
{
	for (unsigned tries = 0; tries < 100; tries++) {
		size_t at = g->a.len;
		if (chance(&g->r, 65) ? gen_lowered(g) : gen_handled(g))
			return;
		g->a.len = at;
	}
	ck_assert(EMIT0(&g->a, ZYDIS_MNEMONIC_NOP));
}

/* A register the code may write, for control-flow items. */
static unsigned scratch_reg(struct gen *g)
{
	return dst_reg(g, 8);
}

/* Control flow and stack items, or a simple instruction. */
static void gen_item(struct gen *g)
{
	struct rng *r = &g->r;
	struct asmb *a = &g->a;
	unsigned k = below(r, 100);
	if (k < 8) { /* a flag-setting instruction, a forward jcc over one */
		if (chance(r, 60))
			gen_simple(g);
		bool short_form = chance(r, 70);
		size_t at = a->len;
		/* Its length first: a trial at a reachable target. */
		ck_assert(emit_branch(a, jcc_of[0], a->base + at + 0x40, short_form));
		size_t jlen = a->len - at;
		uint8_t body[64];
		gen_simple(g);
		size_t blen = a->len - at - jlen;
		ck_assert_uint_le(blen, sizeof(body));
		memcpy(body, a->buf + at + jlen, blen);
		a->len = at;
		ck_assert(emit_branch(a, jcc_of[below(r, 16)], a->base + at + jlen + blen, short_form));
		ck_assert_uint_eq(a->len - at, jlen);
		memcpy(a->buf + a->len, body, blen);
		a->len += blen;
	} else if (k < 12) { /* a call of the function */
		unsigned s = scratch_reg(g);
		switch (below(r, 4)) {
		case 0: case 1:
			ck_assert(emit_branch(a, ZYDIS_MNEMONIC_CALL, FUNC_ADDR, false));
			break;
		case 2:
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(s, 8), M(RIP_REG, NO_REG, 0, FUNC_ADDR, 8, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_CALL, R(s, 8)));
			break;
		default:
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_CALL, M(RIP_REG, NO_REG, 0, RODATA_BASE, 8, 8)));
			break;
		}
	} else if (k < 16) { /* push; a few instructions; pop */
		bool ok;
		switch (below(r, 3)) {
		case 0: ok = EMIT(a, ZYDIS_MNEMONIC_PUSH, R(below(r, 16), 8)); break;
		case 1: ok = EMIT(a, ZYDIS_MNEMONIC_PUSH, I(rand_imm(r, 4))); break;
		default: ok = EMIT0(a, ZYDIS_MNEMONIC_PUSHFQ); break;
		}
		ck_assert(ok);
		for (unsigned n = below(r, 3); n; n--)
			gen_simple(g);
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, R(scratch_reg(g), 8)));
	} else if (k < 19) { /* jumps: to the next instruction, over one, by register */
		size_t at = a->len;
		unsigned s = scratch_reg(g);
		switch (below(r, 3)) {
		case 0:
			ck_assert(emit_branch(a, ZYDIS_MNEMONIC_JMP, a->base + at + 2, true));
			break;
		case 1: {
			ck_assert(emit_branch(a, ZYDIS_MNEMONIC_JMP, a->base + at + 0x40, true));
			size_t jat = a->len;
			gen_simple(g);
			size_t blen = a->len - jat;
			uint8_t body[64];
			memcpy(body, a->buf + jat, blen);
			a->len = at;
			ck_assert(emit_branch(a, ZYDIS_MNEMONIC_JMP, a->base + jat + blen, true));
			memcpy(a->buf + a->len, body, blen);
			a->len += blen;
			break;
		}
		default: {
			/* lea s, [rip + after]; jmp s: the jmp's length first. */
			size_t jlen = s >= 8 ? 3 : 2;
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(s, 8),
				       M(RIP_REG, NO_REG, 0, (int64_t)(a->base + at + 7 + jlen), 8, 8)));
			ck_assert_uint_eq(a->len - at, 7);
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_JMP, R(s, 8)));
			ck_assert_uint_eq(a->len - at, 7 + jlen);
			break;
		}
		}
	} else if (k < 22 && !g->in_func) { /* pushes and pops of rsp and [rsp] */
		switch (below(r, 3)) {
		case 0: { /* rsp moved by pop rsp, and back by lea */
			unsigned s = scratch_reg(g);
			int64_t d = 8 * ((int64_t)below(r, 17) - 8);
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(s, 8), M(EMU_RSP, NO_REG, 0, d, 8, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_PUSH, R(chance(r, 30) ? EMU_RSP : s, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, R(EMU_RSP, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(EMU_RSP, 8), M(EMU_RSP, NO_REG, 0, -d, 8, 8)));
			break;
		}
		case 1:
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_PUSH, R(below(r, 16), 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_PUSH, M(EMU_RSP, NO_REG, 0, 0, 8, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, M(EMU_RSP, NO_REG, 0, 0, 8, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, R(scratch_reg(g), 8)));
			break;
		default: /* a return address of its own: call the next instruction */
			ck_assert(emit_branch(a, ZYDIS_MNEMONIC_CALL, a->base + a->len + 5, false));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, R(scratch_reg(g), 8)));
			break;
		}
	} else if (k < 25) {
		switch (below(r, 2)) {
		case 0: { /* movabs: a 64-bit address (one the filter confuses
			   * with the code's, or the upper half's) */
			unsigned size = pick_size(g);
			uint64_t at = chance(r, 50) ? ALIAS_BASE + below(r, 0x2000 - size)
						    : KHIGH_BASE + below(r, 0x1000 - size);
			ZydisEncoderOperand m = M(NO_REG, NO_REG, 0, (int64_t)at, size, 8);
			if (chance(r, 50))
				ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, size), m));
			else
				ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, m, R(EMU_RAX, size)));
			break;
		}
		default: { /* jmp [rsp] to the next instruction, pushed */
			unsigned s = scratch_reg(g);
			size_t at = a->len;
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(s, 8), M(RIP_REG, NO_REG, 0, 0x10000, 8, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_PUSH, R(s, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_JMP, M(EMU_RSP, NO_REG, 0, 0, 8, 8)));
			uint64_t after = a->base + a->len;
			a->len = at;
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(s, 8), M(RIP_REG, NO_REG, 0, (int64_t)after, 8, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_PUSH, R(s, 8)));
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_JMP, M(EMU_RSP, NO_REG, 0, 0, 8, 8)));
			ck_assert_uint_eq(a->base + a->len, after);
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, R(scratch_reg(g), 8)));
			break;
		}
		}
	} else if (k < 27) { /* an update of the index: kept below 64 */
		unsigned ix = g->Ix;
		switch (below(r, 3)) {
		case 0: ck_assert(EMIT(a, ZYDIS_MNEMONIC_ADD, R(ix, 8), I(rand_imm(r, 1)))); break;
		case 1: ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(ix, 4), M((int)ix, (int)ix, 2, below(r, 100), 8, 8))); break;
		default: ck_assert(EMIT(a, ZYDIS_MNEMONIC_XOR, R(ix, 4), I(rand_imm(r, 4)))); break;
		}
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_AND, R(ix, chance(r, 50) ? 4 : 8), I(63)));
	} else {
		gen_simple(g);
	}
}

/* The end of the body: C counted down, back to the top while not zero,
 * in one of the forms compilers emit (and one the translator calls a
 * handler for). */
static void gen_loop_end(struct gen *g, size_t top)
{
	struct rng *r = &g->r;
	struct asmb *a = &g->a;
	unsigned c = g->C, size = chance(r, 50) ? 4 : 8;
	uint64_t target = a->base + top;
	ZydisMnemonic jcc = ZYDIS_MNEMONIC_JNZ;
	switch (below(r, 5)) {
	case 0: ck_assert(EMIT(a, ZYDIS_MNEMONIC_SUB, R(c, size), I(1))); break;
	case 1: ck_assert(EMIT(a, ZYDIS_MNEMONIC_DEC, R(c, size))); break;
	case 2:
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_SUB, R(c, size), I(1)));
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_CMP, R(c, size), I(0)));
		jcc = ZYDIS_MNEMONIC_JNLE;
		break;
	case 3:
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_LEA, R(c, size), M((int)c, NO_REG, 0, -1, 8, 8)));
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_TEST, R(c, size), R(c, size)));
		break;
	default: { /* the flags pass over a move */
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_ADD, R(c, size), I(-1)));
		uint64_t pre;
		unsigned s = chance(r, 50) ? 8 : 4;
		ZydisEncoderOperand m = rand_mem(g, s, &pre);
		if (chance(r, 50))
			ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, R(scratch_reg(g), 8), R(below(r, 16), 8)));
		else
			ck_assert(EMITP(a, ZYDIS_MNEMONIC_MOV, pre, R(scratch_reg(g), s), m) ||
				  EMIT0(a, ZYDIS_MNEMONIC_NOP));
		break;
	}
	}
	ck_assert(emit_branch(a, jcc, target, a->base + a->len + 2 - target < 128 && chance(r, 50)) ||
		  emit_branch(a, jcc, target, false));
}

/* Registers the loop keeps to itself: none of rax rcx rdx (implicit
 * operands) nor rsp. */
static const unsigned reservable[] = { EMU_RBX, EMU_RBP, EMU_RSI, EMU_RDI, EMU_R8, EMU_R9, EMU_R10,
				       EMU_R11, EMU_R12, EMU_R13, EMU_R14, EMU_R15 };

static unsigned pick_reserved(struct rng *r, uint32_t *taken)
{
	for (;;) {
		unsigned n = reservable[below(r, sizeof(reservable) / sizeof(reservable[0]))];
		if (!(*taken & (1u << n))) {
			*taken |= 1u << n;
			return n;
		}
	}
}

/* Where a faulting program's B goes: unmapped, read-only, straddling the
 * end of the lower half (#GP past it), the upper half, non-canonical. */
static uint64_t fault_base(struct rng *r)
{
	switch (below(r, 7)) {
	case 6: return ALIAS_BASE + 0x1000;
	case 0: return GUARD_ADDR;
	case 1: return RODATA_BASE + 0x800;
	case 2: return EDGE_BASE + 0x1000;
	case 3: return KHIGH_BASE + 0x1000;
	case 4: return 0x8000000000000000ull | (rnd(r) & 0x0000fffffffffff0ull);
	default: return rnd(r);
	}
}

static void generate(struct program *p, uint64_t seed, bool faulting)
{
	struct gen g;
	memset(&g, 0, sizeof(g));
	memset(p, 0, sizeof(*p));
	g.r.s = seed | 1;
	for (int i = 0; i < 4; i++)
		rnd(&g.r);
	uint32_t taken = 1u << EMU_RSP;
	g.B = pick_reserved(&g.r, &taken);
	g.Ix = pick_reserved(&g.r, &taken);
	g.C = pick_reserved(&g.r, &taken);
	p->F = faulting ? pick_reserved(&g.r, &taken) : NO_F;
	g.divides_fault = faulting;
	g.writable = 0xffffu & ~taken;
	p->B = g.B;
	p->Ix = g.Ix;
	p->C = g.C;

	for (unsigned i = 0; i < EMU_GPR_COUNT; i++)
		p->gpr[i] = rand_value(&g.r);
	p->gpr[EMU_RSP] = STACK_TOP;
	p->gpr[g.B] = DATA_BASE + 0x1000;
	p->gpr[g.Ix] = below(&g.r, 64);
	p->gpr[g.C] = 100 + below(&g.r, 160);
	if (faulting)
		p->gpr[p->F] = fault_base(&g.r);
	p->rflags = 0x202 | (rnd(&g.r) & EMU_STATUS_FLAGS);
	for (unsigned reg = R_DATA; reg < R_COUNT; reg++)
		for (size_t i = 0; i < REGION_MAX; i++)
			p->image[reg][i] = (uint8_t)rnd(&g.r);
	uint64_t func = FUNC_ADDR;
	memcpy(p->image[R_RODATA], &func, 8);
	p->mxcsr = rand_mxcsr(&g.r, chance(&g.r, 10));
	for (unsigned k = 0; k < MXCSR_VALUES; k++) {
		uint32_t m = rand_mxcsr(&g.r, k > 0);
		memcpy(p->image[R_RODATA] + (MXCSR_TABLE - RODATA_BASE) + 4 * k, &m, 4);
	}
	for (unsigned v = 0; v < 16; v++)
		for (unsigned q = 0; q < 2; q++)
			p->xmm[v][q] = fp_lane(&g.r);
	/* Floating-point data for the memory sources. */
	for (size_t i = 0; i + 8 <= REGION_MAX; i += 8)
		if (chance(&g.r, 40)) {
			uint64_t lane = fp_lane(&g.r);
			memcpy(p->image[R_DATA] + i, &lane, 8);
		}

	/* The function. */
	g.a = (struct asmb){ p->image[R_CODE], 0, ENTRY_ADDR - CODE_BASE - 16, CODE_BASE };
	g.in_func = true;
	for (unsigned n = below(&g.r, 4); n; n--)
		gen_simple(&g);
	ck_assert(EMIT0(&g.a, ZYDIS_MNEMONIC_RET));
	p->func_end = g.a.len;
	g.in_func = false;

	/* The loop. */
	g.a = (struct asmb){ p->image[R_CODE] + (ENTRY_ADDR - CODE_BASE), 0,
			     regions[R_CODE].size - (ENTRY_ADDR - CODE_BASE) - 64, ENTRY_ADDR };
	unsigned n = chance(&g.r, 15) ? 30 + below(&g.r, 40) : 2 + below(&g.r, 22);
	unsigned trigger = faulting ? below(&g.r, n) : n;
	for (unsigned i = 0; i < n; i++) {
		if (i == trigger) {
			/* At one iteration (usually once the loop is hot),
			 * B becomes the faulting base. */
			unsigned at = chance(&g.r, 80) ? 1 + below(&g.r, 30)
						       : (unsigned)p->gpr[g.C] - below(&g.r, 40);
			ck_assert(EMIT(&g.a, ZYDIS_MNEMONIC_CMP, R(g.C, 8), I(at)));
			/* Sometimes the stack goes instead. */
			unsigned moved = chance(&g.r, 20) ? EMU_RSP : g.B;
			ck_assert(EMIT(&g.a, ZYDIS_MNEMONIC_CMOVZ, R(moved, 8), R(p->F, 8)));
		}
		gen_item(&g);
	}
	gen_loop_end(&g, 0);
	ck_assert(EMIT0(&g.a, ZYDIS_MNEMONIC_UD2));
	p->body_end = (ENTRY_ADDR - CODE_BASE) + g.a.len;
}

/* --- running ------------------------------------------------------------------- */

struct machine {
	struct emu_cpu *cpu;
	struct tmem mem;
	uint8_t bytes[R_COUNT][REGION_MAX];
	uint8_t dirty[R_COUNT][REGION_MAX]; /* the inline interface's dirty bits */
};

/* Zeroes every other 8-byte line, chosen by a hash of its index: a read
 * that crosses from a line into a zero one then finds a value its first
 * entry alone would predict, which the second entry (holding another
 * line's bytes, in a cache this small) may not: an inline read that
 * checked one entry of a crossing read would count a hit where the
 * memory counts a miss. */
static void zero_lines(uint8_t *bytes, size_t size)
{
	for (size_t i = 0; i + 8 <= size; i += 8)
		if ((((i / 8) * INLINE_MULTIPLIER) >> 40) & 1)
			memset(bytes + i, 0, 8);
}

/* The unguarded variant's code pages in its table, writable inline like
 * any other (else watched: their writes all call), so that translated
 * code's own inline writes are what must find the code they change. */
static bool code_pages_inline;

static void machine_start(struct machine *m, const struct program *p, int variant, bool jit,
			  uint64_t entry)
{
	emu_free(m->cpu);
	memcpy(m->bytes, p->image, sizeof(m->bytes));
	memset(m->dirty, 0, sizeof(m->dirty));
	for (unsigned r = 0; r < R_COUNT; r++) {
		m->mem.bytes[r] = m->bytes[r];
		m->mem.dirty[r] = m->dirty[r];
	}
	m->mem.n = 0;
	m->mem.predicting = variant == V_INLINE || variant == V_GUARDED;
	if (m->mem.predicting) /* half the data lines zero (see zero_lines) */
		zero_lines(m->bytes[R_DATA], regions[R_DATA].size);
	for (unsigned i = 0; i < INLINE_PAGES; i++)
		emu_inline_page_clear(&m->mem.pages[i]);
	memset(m->mem.cache, 0, sizeof(m->mem.cache));
	m->mem.hits_settled = m->mem.hits_since_miss = m->mem.called_hits = 0;
	m->mem.called_inline_writes = 0;
	memset(m->mem.watched, 0, sizeof(m->mem.watched));
	m->mem.decoded = NULL;
	for (uint64_t page = CODE_BASE; variant != V_GUARDED && !code_pages_inline &&
					page < CODE_BASE + regions[R_CODE].size;
	     page += 4096) {
		uint64_t bit = (page >> 12) & (INLINE_WATCH_BITS - 1);
		m->mem.watched[bit / 64] |= 1ull << (bit % 64);
	}
	m->cpu = emu_new(&variant_ops[variant], &m->mem);
	ck_assert_ptr_nonnull(m->cpu);
	if (variant == V_GUARDED)
		m->mem.decoded = emu_code_page_filter(m->cpu);
	if (jit)
		ck_assert(emu_set_jit(m->cpu, true));
	struct emu_regs *r = emu_regs(m->cpu);
	memcpy(r->gpr, p->gpr, sizeof(r->gpr));
	r->rflags = p->rflags;
	/* Vector registers with every byte set (the SSE moves' other
	 * bytes, above 128 bits too, must stay). */
	for (unsigned v = 0; v < 32; v++)
		for (unsigned q = 0; q < 8; q++)
			r->zmm[v].q[q] = p->gpr[(v + q) % EMU_GPR_COUNT] * 0x9e3779b97f4a7c15ull + v;
	for (unsigned v = 0; v < 16; v++)
		memcpy(r->zmm[v].q, p->xmm[v], sizeof(p->xmm[v]));
	r->mxcsr = p->mxcsr;
	r->rip = entry;
	r->fs_base = FS_BASE;
}

static void machine_free(struct machine *m)
{
	emu_free(m->cpu);
	m->cpu = NULL;
	free(m->mem.log);
	m->mem.log = NULL;
	m->mem.n = m->mem.cap = 0;
}

/* A program and the two machines that run it, interpreted (a) and
 * translated (b). */
struct rig {
	struct program *p;
	struct machine *a, *b;
};

static struct rig rig_new(void)
{
	struct rig g = { malloc(sizeof(*g.p)), calloc(1, sizeof(*g.a)), calloc(1, sizeof(*g.b)) };
	ck_assert(g.p && g.a && g.b);
	return g;
}

static void rig_free(struct rig *g)
{
	machine_free(g->a);
	machine_free(g->b);
	free(g->a);
	free(g->b);
	free(g->p);
}

/* Both machines at the program's start, a interpreting, b translating. */
static void machines_start(struct machine *a, struct machine *b, const struct program *p,
			   int variant)
{
	machine_start(a, p, variant, false, ENTRY_ADDR);
	machine_start(b, p, variant, true, ENTRY_ADDR);
}

/* Both machines run the same budget. */
static void run_both(struct machine *a, struct machine *b, uint64_t budget)
{
	emu_run(a->cpu, budget);
	emu_run(b->cpu, budget);
}

static const char *const kind_names[] = { "read", "write", "fetch" };

static int describe_access(char *buf, size_t n, const struct tmem *m, size_t i)
{
	if (i >= m->n)
		return snprintf(buf, n, "(none)");
	const struct access *x = &m->log[i];
	return snprintf(buf, n, "%s %u bytes at %#" PRIx64 " value %#" PRIx64 "%s (%" PRIu64
			" hits before)", kind_names[x->kind], x->size, x->addr, x->value,
			x->status ? " FAULT" : "", x->hits_before);
}

/* The first difference between interpreter (a) and translator (b), in
 * msg; false when none. Log entries before *log_from were compared
 * already. */
static bool differ(struct machine *a, struct machine *b, size_t *log_from, char *msg, size_t n)
{
	const struct emu_exit_info *ea = emu_exit_info(a->cpu), *eb = emu_exit_info(b->cpu);
	struct emu_regs *ra = emu_regs(a->cpu), *rb = emu_regs(b->cpu);
	if (emu_icount(a->cpu) != emu_icount(b->cpu)) {
		snprintf(msg, n, "icount %" PRIu64 " vs %" PRIu64, emu_icount(a->cpu), emu_icount(b->cpu));
		return true;
	}
	if (ea->reason != eb->reason || ea->insn_len != eb->insn_len || ea->special != eb->special ||
	    ea->fault != eb->fault || ea->fault_addr != eb->fault_addr ||
	    ea->fault_write != eb->fault_write ||
	    (ea->mnemonic != eb->mnemonic &&
	     (!ea->mnemonic || !eb->mnemonic || strcmp(ea->mnemonic, eb->mnemonic)))) {
		snprintf(msg, n, "exit %s %s len %u addr %#" PRIx64 " write %d vs %s %s len %u addr %#" PRIx64
			 " write %d", emu_exit_name(ea->reason), emu_fault_name(ea->fault), ea->insn_len,
			 ea->fault_addr, ea->fault_write, emu_exit_name(eb->reason),
			 emu_fault_name(eb->fault), eb->insn_len, eb->fault_addr, eb->fault_write);
		return true;
	}
	if (ra->rip != rb->rip) {
		snprintf(msg, n, "rip %#" PRIx64 " vs %#" PRIx64, ra->rip, rb->rip);
		return true;
	}
	if (ra->rflags != rb->rflags) {
		snprintf(msg, n, "rflags %#" PRIx64 " vs %#" PRIx64, ra->rflags, rb->rflags);
		return true;
	}
	for (unsigned g = 0; g < EMU_GPR_COUNT; g++)
		if (ra->gpr[g] != rb->gpr[g]) {
			snprintf(msg, n, "gpr %u %#" PRIx64 " vs %#" PRIx64, g, ra->gpr[g], rb->gpr[g]);
			return true;
		}
	if (memcmp(ra, rb, sizeof(*ra))) {
		snprintf(msg, n, "other register state");
		return true;
	}
	for (unsigned r = 0; r < R_COUNT; r++)
		if (memcmp(a->bytes[r], b->bytes[r], regions[r].size)) {
			size_t i = 0;
			while (a->bytes[r][i] == b->bytes[r][i])
				i++;
			snprintf(msg, n, "memory at %#" PRIx64 " (%s): %#x vs %#x", regions[r].base + i,
				 regions[r].name, a->bytes[r][i], b->bytes[r][i]);
			return true;
		}
	if (a->mem.hits_settled != b->mem.hits_settled || a->mem.hits_since_miss != b->mem.hits_since_miss) {
		snprintf(msg, n, "prediction hits %" PRIu64 " (%" PRIu64 " since a miss) vs %" PRIu64
			 " (%" PRIu64 ")", a->mem.hits_settled, a->mem.hits_since_miss, b->mem.hits_settled,
			 b->mem.hits_since_miss);
		return true;
	}
	if (memcmp(a->mem.cache, b->mem.cache, sizeof(a->mem.cache))) {
		snprintf(msg, n, "prediction cache contents");
		return true;
	}
	if (memcmp(a->dirty, b->dirty, sizeof(a->dirty))) {
		snprintf(msg, n, "dirty bits");
		return true;
	}
	size_t na = a->mem.n, nb = b->mem.n, i = *log_from;
	for (; i < na && i < nb; i++) {
		const struct access *x = &a->mem.log[i], *y = &b->mem.log[i];
		if (x->kind != y->kind || x->status != y->status || x->size != y->size ||
		    x->addr != y->addr || x->value != y->value || x->hits_before != y->hits_before)
			break;
	}
	if (i < na || i < nb) {
		char sa[128], sb[128];
		describe_access(sa, sizeof(sa), &a->mem, i);
		describe_access(sb, sizeof(sb), &b->mem, i);
		snprintf(msg, n, "memory call %zu of %zu/%zu: %s vs %s", i, na, nb, sa, sb);
		return true;
	}
	*log_from = i;
	return false;
}

/* Both machines run the same budget, then must agree (the log compared
 * from *from on); `what` and `n` say which run differed. */
static void run_compared(struct machine *a, struct machine *b, uint64_t budget, size_t *from,
			 const char *what, unsigned n)
{
	char msg[512];
	run_both(a, b, budget);
	if (differ(a, b, from, msg, sizeof(msg)))
		ck_abort_msg("%s %u: %s", what, n, msg);
}

static void print_code(const uint8_t *code, uint64_t from, uint64_t to)
{
	char text[160];
	for (uint64_t addr = from; addr < to;) {
		const uint8_t *p = code + (addr - CODE_BASE);
		size_t len = emu_disassemble(addr, p, (size_t)(to - addr), text, sizeof(text));
		if (!len) {
			fprintf(stderr, "  %#" PRIx64 ":  (.byte %#x)\n", addr, p[0]);
			addr++;
			continue;
		}
		fprintf(stderr, "  %#" PRIx64 ":  %s\n", addr, text);
		addr += len;
	}
}

static void print_program(const struct program *p)
{
	fprintf(stderr, "B=%u I=%u C=%u F=%u; registers:", p->B, p->Ix, p->C, p->F);
	for (unsigned g = 0; g < EMU_GPR_COUNT; g++)
		fprintf(stderr, " %#" PRIx64, p->gpr[g]);
	fprintf(stderr, "\nrflags %#" PRIx64 "\nfunction:\n", p->rflags);
	print_code(p->image[R_CODE], FUNC_ADDR, FUNC_ADDR + p->func_end);
	fprintf(stderr, "loop:\n");
	print_code(p->image[R_CODE], ENTRY_ADDR, CODE_BASE + p->body_end);
}

/* What the runs saw, for the report: translated code does call the
 * sized functions (the interpreter never does), and makes hits inline. */
static struct stats {
	unsigned programs, sized_programs, inline_programs, inline_write_programs, faults,
		mispredicted_programs;
	uint64_t insns;
} stats;

#define WHOLE_BUDGET (1u << 22)
#define MAX_CHUNKS 200000

struct context {
	const char *what;
	uint64_t seed;
	unsigned index;
	int variant;
};

static void report_difference(const struct context *c, const struct program *p, const char *mode,
		 unsigned chunk, const char *msg)
{
	fprintf(stderr, "\n%s: seed %#" PRIx64 " program %u (%s interface), %s run", c->what, c->seed,
		c->index, variant_names[c->variant], mode);
	if (chunk)
		fprintf(stderr, " after chunk %u", chunk);
	fprintf(stderr, ":\n  %s\n", msg);
	if (p)
		print_program(p);
	ck_abort_msg("%s: program %u (%s), %s run: %s", c->what, c->index, variant_names[c->variant],
		     mode, msg);
}

/* The program run whole, interpreted and translated. */
static void compare_whole(const struct context *c, const struct program *p, struct machine *a,
			  struct machine *b)
{
	char msg[512];
	size_t from = 0;
	machines_start(a, b, p, c->variant);
	run_both(a, b, WHOLE_BUDGET);
	if (differ(a, b, &from, msg, sizeof(msg)))
		report_difference(c, p, "whole", 0, msg);
	stats.programs++;
	stats.insns += emu_icount(a->cpu);
	if (emu_exit_info(a->cpu)->reason == EMU_EXIT_FAULT && emu_exit_info(a->cpu)->fault != EMU_FAULT_UD)
		stats.faults++;
	for (size_t i = 0; i < b->mem.n; i++)
		if (b->mem.log[i].via == VIA_SIZED) {
			stats.sized_programs++;
			break;
		}
	for (size_t i = 0; i < b->mem.n; i++)
		if (b->mem.log[i].via == VIA_MISPREDICTED) {
			stats.mispredicted_programs++;
			break;
		}
	if (b->mem.hits_settled + b->mem.hits_since_miss > b->mem.called_hits)
		stats.inline_programs++;
	if (a->mem.called_inline_writes > b->mem.called_inline_writes)
		stats.inline_write_programs++;
}

/* The program run in budgets of 1 to 40 instructions, the same for both,
 * compared at every boundary. */
static void compare_chunked(const struct context *c, const struct program *p, struct machine *a,
			    struct machine *b, uint64_t chunk_seed)
{
	char msg[512];
	size_t from = 0;
	struct rng r = { chunk_seed | 1 };
	machines_start(a, b, p, c->variant);
	for (unsigned chunk = 1; chunk <= MAX_CHUNKS; chunk++) {
		uint64_t budget = 1 + below(&r, 40);
		/* Now and then what a caller does between runs: code
		 * changed behind the emulator's back, or fetched again. */
		unsigned between = below(&r, 200);
		uint64_t at = ENTRY_ADDR + below(&r, 0x40);
		for (int i = 0; i < 2; i++) {
			struct emu_cpu *cpu = i ? b->cpu : a->cpu;
			if (between == 0)
				emu_invalidate_code(cpu, at, 1);
			else if (between == 1)
				emu_invalidate_code(cpu, 0, UINT64_MAX);
			else if (between == 2)
				emu_refetch_code(cpu);
		}
		enum emu_exit ea = emu_run(a->cpu, budget);
		emu_run(b->cpu, budget);
		if (differ(a, b, &from, msg, sizeof(msg)))
			report_difference(c, p, "chunked", chunk, msg);
		if (ea != EMU_EXIT_LIMIT)
			break;
	}
}

/* Eight chunked runs, each cut at other boundaries. */
static void compare_chunked_runs(const struct context *c, const struct program *p,
				 struct machine *a, struct machine *b, struct rng *r)
{
	for (int k = 0; k < 8; k++)
		compare_chunked(c, p, a, b, rnd(r));
}

/* The interpreted run ended at fault `want` (a hand-built program's end:
 * its ud2, or the fault it is built to take). */
static void assert_ends_in_fault(const char *name, const struct machine *a,
				 enum emu_fault_vector want)
{
	const struct emu_exit_info *e = emu_exit_info(a->cpu);
	ck_assert_msg(e->reason == EMU_EXIT_FAULT && e->fault == want,
		      "%s: fault %d at %#" PRIx64 " (%#" PRIx64 ") after %" PRIu64, name, e->fault,
		      emu_regs(a->cpu)->rip, e->fault_addr, emu_icount(a->cpu));
}

static uint64_t test_seed(void)
{
	const char *s = getenv("JIT_TEST_SEED");
	return s ? strtoull(s, NULL, 0) : 0x6a17c0de5eed2024ull;
}

static unsigned test_programs(unsigned dflt)
{
	const char *s = getenv("JIT_TEST_PROGRAMS");
	return s ? (unsigned)strtoul(s, NULL, 0) : dflt;
}

/* Random programs over one interface; every fourth one faults at some
 * iteration; each run whole and in chunks. */
static void random_programs(const char *what, int variant, unsigned count, uint64_t salt)
{
	uint64_t seed = test_seed() ^ salt;
	printf("%s: seed %#" PRIx64 " (JIT_TEST_SEED=%#" PRIx64 "), %u programs\n", what, seed,
	       test_seed(), count);
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	memset(&stats, 0, sizeof(stats));
	struct rng r = { seed | 1 };
	for (unsigned i = 0; i < count; i++) {
		uint64_t pseed = rnd(&r), cseed = rnd(&r);
		struct context c = { what, seed, i, variant };
		generate(p, pseed, i % 4 == 3);
		if (getenv("JIT_TEST_DUMP") && i == strtoul(getenv("JIT_TEST_DUMP"), NULL, 0))
			print_program(p);
		compare_whole(&c, p, a, b);
		compare_chunked(&c, p, a, b, cseed);
	}
	printf("%s: %u programs, %" PRIu64 " instructions, %u stopped by a fault, %u with translated "
	       "code calling the sized functions, %u with hits and %u with writes made inline, %u "
	       "with mispredicted reads handed over\n", what,
	       stats.programs, stats.insns, stats.faults, stats.sized_programs, stats.inline_programs,
	       stats.inline_write_programs, stats.mispredicted_programs);
	/* Loops mostly of SSE make fewer of the general accesses. */
	unsigned most = sse_percent > 50 ? count / 5 : count / 2;
	/* With inline accesses only their misses call the sized functions:
	 * in about half the programs (148 to 179 of 300 over five seeds). */
	if (variant == V_SIZED)
		ck_assert_uint_gt(stats.sized_programs, most);
	if (variant == V_INLINE || variant == V_GUARDED)
		ck_assert_uint_gt(stats.sized_programs, most * 4 / 5);
	if (variant == V_INLINE || variant == V_GUARDED) {
		ck_assert_uint_gt(stats.inline_programs, most);
		ck_assert_uint_gt(stats.inline_write_programs, most);
	}
	if (variant_ops[variant].read_mispredicted[0])
		ck_assert_uint_gt(stats.mispredicted_programs, count / 20);
	ck_assert_uint_gt(stats.faults, count / 20);
	rig_free(&g);
}

START_TEST(test_random_sized)
{
	random_programs("sized interface", V_SIZED, test_programs(1200), 0);
}
END_TEST

START_TEST(test_random_uint)
{
	random_programs("read_uint interface", V_UINT, test_programs(400), 0x1111);
}
END_TEST

START_TEST(test_random_plain)
{
	random_programs("plain interface", V_PLAIN, test_programs(400), 0x2222);
}
END_TEST

START_TEST(test_random_inline)
{
	random_programs("inline interface", V_INLINE, test_programs(600), 0x3333);
}
END_TEST

START_TEST(test_random_guarded)
{
	random_programs("inline interface, code pages guarded", V_GUARDED, test_programs(300),
			0x5555);
}
END_TEST

/* The recorder's and the replayer's cache since format 1.6. */
START_TEST(test_random_direct)
{
	cache_direct = true;
	random_programs("inline interface, direct-mapped cache, code pages guarded", V_GUARDED,
			test_programs(300), 0x6666);
	cache_direct = false;
}
END_TEST

/* Loops mostly of SSE arithmetic, conversions and XMM moves, under
 * MXCSRs of every rounding, DAZ, FTZ and masking, on NaNs, infinities,
 * denormals and integer limits, their memory sources faulting, missing
 * and misaligned: what the translator runs as the host's instruction
 * must leave the registers, MXCSR's flags and exits as the handlers do. */
START_TEST(test_random_sse)
{
	sse_percent = 60;
	random_programs("sse arithmetic", V_INLINE, test_programs(400), 0x4444);
	random_programs("sse arithmetic, plain interface", V_PLAIN, test_programs(100), 0x5555);
	sse_percent = 0;
}
END_TEST

/* --- code that writes code ---------------------------------------------------- */

/* How the loop writes: lowered (mov, add to memory), by a handler (inc,
 * xchg), one byte or four. */
enum writer { W_MOV, W_MOV_BYTE, W_MOV_WORD, W_ADD, W_INC, W_XCHG, W_COUNT };
static const char *const writer_names[W_COUNT] = { "mov", "mov byte", "mov word", "add", "inc",
						   "xchg" };

static void emit_writer(struct asmb *a, enum writer w)
{
	ZydisEncoderOperand m4 = M(EMU_RDX, NO_REG, 0, 0, 4, 8), m1 = M(EMU_RDX, NO_REG, 0, 0, 1, 8);
	/* (2 bytes at the immediate's odd address: not aligned to their
	 * size, within one 8-byte line) */
	ZydisEncoderOperand m2 = M(EMU_RDX, NO_REG, 0, 0, 2, 8);
	switch (w) {
	case W_MOV: ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, m4, R(EMU_RCX, 4))); break;
	case W_MOV_BYTE: ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, m1, R(EMU_RCX, 1))); break;
	case W_MOV_WORD: ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, m2, R(EMU_RCX, 2))); break;
	case W_ADD: ck_assert(EMIT(a, ZYDIS_MNEMONIC_ADD, m4, R(EMU_RCX, 4))); break;
	case W_INC: ck_assert(EMIT(a, ZYDIS_MNEMONIC_INC, m4)); break;
	default: ck_assert(EMIT(a, ZYDIS_MNEMONIC_XCHG, m4, R(EMU_R9, 4))); break;
	}
}

/*
 * Where the loop writes, every 128th iteration (the first time before
 * the block is hot, later from its translation; in between it becomes
 * hot again):
 *   OWN_AFTER   the immediate of a mov later in the writing block
 *   OWN_BEFORE  the immediate of a mov earlier in it (already run)
 *   NEXT        the immediate of a mov in the block the loop jumps to,
 *               placed so that the immediate straddles a page boundary
 *   CODE_PAGE   bytes of a page with code that no block holds
 * Other iterations write to the data pages.
 */
enum smc_target { T_OWN_AFTER, T_OWN_BEFORE, T_NEXT, T_CODE_PAGE, T_COUNT };
static const char *const target_names[T_COUNT] = { "own block, ahead", "own block, behind",
						    "next block", "code page, no code" };

/* An empty program, and an assembler for its loop at ENTRY_ADDR. */
static struct asmb loop_code(struct program *p)
{
	memset(p, 0, sizeof(*p));
	return (struct asmb){ p->image[R_CODE] + (ENTRY_ADDR - CODE_BASE), 0,
			      regions[R_CODE].size - (ENTRY_ADDR - CODE_BASE), ENTRY_ADDR };
}

/* The end of a loop from ENTRY_ADDR that rcx runs 400 times, and what
 * such a program starts with besides its own registers: the stack, the
 * flags, and its fixed registers (struct program: base rbx, index rsi,
 * counter rcx, no faulting base). */
static void end_counted_loop(struct program *p, struct asmb *a)
{
	ck_assert(EMIT(a, ZYDIS_MNEMONIC_SUB, R(EMU_RCX, 4), I(1)));
	ck_assert(emit_branch(a, ZYDIS_MNEMONIC_JNZ, ENTRY_ADDR, false));
	ck_assert(EMIT0(a, ZYDIS_MNEMONIC_UD2));
	p->func_end = 0;
	p->body_end = (ENTRY_ADDR - CODE_BASE) + a->len;
	p->gpr[EMU_RSP] = STACK_TOP;
	p->gpr[EMU_RCX] = 400;
	p->rflags = 0x202;
	p->B = EMU_RBX;
	p->Ix = EMU_RSI;
	p->C = EMU_RCX;
	p->F = NO_F;
}

static void build_smc(struct program *p, enum smc_target t, enum writer w)
{
	struct asmb a = loop_code(p);
	uint64_t imm_at = 0;
	ZydisEncoderOperand rdx = R(EMU_RDX, 8);
	if (t == T_OWN_BEFORE) {
		imm_at = a.base + a.len + 1;
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 4), I(0x11111111)));
	}
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, rdx, R(EMU_RBX, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RCX, 4), I(127)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMOVZ, rdx, R(EMU_RSI, 8)));
	emit_writer(&a, w);
	if (t == T_NEXT) {
		/* The next block's mov: its immediate across 0x11000. */
		uint64_t next = CODE_BASE + 0x1000 - 3;
		ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, next, false));
		ck_assert(EMIT0(&a, ZYDIS_MNEMONIC_UD2));
		a.len = next - a.base;
	}
	if (t == T_OWN_AFTER || t == T_NEXT || t == T_CODE_PAGE) {
		imm_at = t == T_CODE_PAGE ? CODE_BASE + 0x180 : a.base + a.len + 1;
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 4), I(0x11111111)));
	}
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R8, 8), R(EMU_RAX, 8)));
	end_counted_loop(p, &a);
	p->gpr[EMU_RBX] = DATA_BASE + 0x100;
	p->gpr[EMU_RSI] = imm_at;
	p->gpr[EMU_R9] = 0x22222222;
}

START_TEST(test_self_modifying)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	char what[96];
	struct rng r = { test_seed() | 1 };
	for (int t = 0; t < T_COUNT; t++)
		for (int w = 0; w < W_COUNT; w++) {
			build_smc(p, (enum smc_target)t, (enum writer)w);
			snprintf(what, sizeof(what), "self-modifying (%s, %s)", target_names[t],
				 writer_names[w]);
			for (int v = 0; v <= V_COUNT; v++) {
				/* one more: the unguarded variant, its code pages
				 * written inline */
				code_pages_inline = v == V_COUNT;
				struct context c = { what, test_seed(), 0, v == V_COUNT ? V_INLINE : v };
				compare_whole(&c, p, a, b);
				/* The loop ran to its end, and its code changed. */
				ck_assert_int_eq(emu_exit_info(a->cpu)->reason, EMU_EXIT_FAULT);
				ck_assert_int_eq(emu_exit_info(a->cpu)->fault, EMU_FAULT_UD);
				ck_assert_uint_eq(emu_icount(a->cpu), 400 * (t == T_NEXT ? 9 : 8));
				uint32_t imm;
				memcpy(&imm, a->bytes[R_CODE] + (p->gpr[EMU_RSI] - CODE_BASE), 4);
				/* (xchg swaps with the data as well: an even
				 * number of swaps may put the code back) */
				ck_assert_msg(imm != 0x11111111 || w == W_XCHG,
					      "%s: the code did not change", what);
				/* Translated code made one of the writes. */
				bool translated = false;
				for (size_t i = 0; i < b->mem.n; i++)
					translated |= b->mem.log[i].kind == A_WRITE &&
						      b->mem.log[i].via == VIA_SIZED &&
						      b->mem.log[i].addr == p->gpr[EMU_RSI];
				ck_assert_msg(translated ||
						      (v != V_SIZED && v != V_INLINE && v != V_GUARDED) ||
						      w >= W_INC,
					      "%s: no write from translated code", what);
				compare_chunked_runs(&c, p, a, b, &r);
			}
			code_pages_inline = false;
		}
	rig_free(&g);
}
END_TEST

/* --- indirect successors ----------------------------------------------------- */

/* Where an indirect exit goes while its prediction (the first target it
 * chained to) stops holding:
 *   I_RET_MOVED    a function's ret whose return address it rewrites
 *                  every 64 iterations (to B and back to A)
 *   I_JMP_REWRITTEN  a jmp rax to a block whose code the loop rewrites
 *                  every 128th iteration (its translation retired, its
 *                  block decoded and translated again)
 *   I_JMP_TWO      a jmp rax to A or B by the counter's bit 5
 * A and B count into r8 and r9; the loop's end is shared. */
enum indirect_case { I_RET_MOVED, I_JMP_REWRITTEN, I_JMP_TWO, I_COUNT };
static const char *const indirect_names[I_COUNT] = { "ret to a moved return address",
						      "jmp to rewritten code", "jmp to two targets" };

static void place(struct asmb *a, uint64_t at)
{
	ck_assert_uint_ge(at, a->base + a->len);
	a->len = at - a->base;
}

static void build_indirect(struct program *p, enum indirect_case k)
{
	struct asmb a = loop_code(p);
	/* On the next page: a write there retires them, not the loop's
	 * first block (the decode cache retires by page). */
	const uint64_t at_a = CODE_BASE + 0x1040, at_b = CODE_BASE + 0x1080,
		       at_end = CODE_BASE + 0x10c0, at_f = CODE_BASE + 0x1100;
	ZydisEncoderOperand rdx = R(EMU_RDX, 8), rax = R(EMU_RAX, 8);
	if (k == I_RET_MOVED) {
		ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_CALL, at_f, false));
		ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, at_a, false));
	} else {
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, rdx, R(EMU_RBX, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RCX, 4), I(127)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMOVZ, rdx, R(EMU_RSI, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RDX, NO_REG, 0, 0, 4, 8), R(EMU_RCX, 4)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 4), I((int64_t)at_a)));
		if (k == I_JMP_TWO) {
			ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RCX, 4), I(32)));
			ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMOVNZ, rax, R(EMU_RDI, 8)));
		}
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_JMP, rax));
	}
	place(&a, at_a);
	uint64_t imm_at = a.base + a.len + 1;
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 4), I(0x11111111)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R8, 8), rax));
	ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, at_end, false));
	place(&a, at_b);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R9, 8), I(1)));
	ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, at_end, false));
	place(&a, at_end);
	end_counted_loop(p, &a);
	if (k == I_RET_MOVED) {
		/* The function: its return address B while the counter's
		 * bit 6 is set. */
		place(&a, at_f);
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, rdx, M(EMU_RSP, NO_REG, 0, 0, 8, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RCX, 4), I(64)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMOVNZ, rdx, R(EMU_RDI, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 0, 0, 8, 8), rdx));
		ck_assert(EMIT0(&a, ZYDIS_MNEMONIC_RET));
		p->body_end = (ENTRY_ADDR - CODE_BASE) + a.len;
	}
	p->gpr[EMU_RBX] = DATA_BASE + 0x100;
	p->gpr[EMU_RSI] = k == I_JMP_REWRITTEN ? imm_at : DATA_BASE + 0x200;
	p->gpr[EMU_RDI] = at_b;
}

START_TEST(test_indirect_targets)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct rng r = { test_seed() | 1 };
	for (int k = 0; k < I_COUNT; k++) {
		build_indirect(p, (enum indirect_case)k);
		for (int v = 0; v < V_COUNT; v++) {
			struct context c = { indirect_names[k], test_seed(), 0, v };
			compare_whole(&c, p, a, b);
			assert_ends_in_fault(indirect_names[k], a, EMU_FAULT_UD);
			/* Both ways were taken, or the code changed. */
			if (k == I_JMP_REWRITTEN) {
				uint32_t imm;
				memcpy(&imm, a->bytes[R_CODE] + (p->gpr[EMU_RSI] - CODE_BASE), 4);
				ck_assert_uint_ne(imm, 0x11111111);
			} else {
				ck_assert_uint_gt(emu_regs(a->cpu)->gpr[EMU_R9], 0);
			}
			ck_assert_uint_gt(emu_regs(a->cpu)->gpr[EMU_R8], 0);
			ck_assert_uint_gt(emu_jit_translations(b->cpu), 0);
			compare_chunked_runs(&c, p, a, b, &r);
		}
	}
	rig_free(&g);
}
END_TEST

/* --- pending flags across chained blocks ---------------------------------------- */

/*
 * A block whose last flag writer comes right before its direct jump keeps
 * the pending flags in host registers, and its chain skips storing them
 * into a successor whose translation replaces them first. Loops of a
 * block A (ENTRY_ADDR) going on to blocks on the next page, where each
 * successor:
 *   F_OVERWRITES   replaces the flags first (the store is skipped)
 *   F_SETCC        reads CF first (setb)
 *   F_PUSHF        reads them all first (pushfq, a handler)
 *   F_FAULTS       faults before its flag writer (an add from memory, the
 *                  address unmapped from the 301st iteration on)
 *   F_REWRITTEN    its first instruction rewritten by A, from sub eax, eax
 *                  (overwrites) to adc eax, eax (reads CF) and back: its
 *                  translation retired under A's chain, made again
 *   F_TWO_WAYS     A ends in cmp mem, reg + jb: the fall-through
 *                  successor overwrites the flags, the taken one reads
 *                  them (pushfq)
 * Successors count into r10; the loop's end (end_counted_loop) chains to
 * A, whose first flag writer comes after moves only.
 */
enum flag_case { F_OVERWRITES, F_SETCC, F_PUSHF, F_FAULTS, F_REWRITTEN, F_TWO_WAYS, F_COUNT };
static const char *const flag_case_names[F_COUNT] = {
	"flags: successor overwrites them", "flags: successor reads CF",
	"flags: successor reads them all", "flags: successor faults before writing them",
	"flags: successor rewritten to read them", "flags: jcc to an overwriter and a reader" };

/* rax = flags (pushfq; pop), added to r10. */
static void emit_flags_into_r10(struct asmb *a)
{
	ck_assert(EMIT0(a, ZYDIS_MNEMONIC_PUSHFQ));
	ck_assert(EMIT(a, ZYDIS_MNEMONIC_POP, R(EMU_RAX, 8)));
	ck_assert(EMIT(a, ZYDIS_MNEMONIC_ADD, R(EMU_R10, 8), R(EMU_RAX, 8)));
}

static void build_flag_chain(struct program *p, enum flag_case k)
{
	memset(p, 0, sizeof(*p));
	struct asmb a = { p->image[R_CODE] + (ENTRY_ADDR - CODE_BASE), 0,
			  regions[R_CODE].size - (ENTRY_ADDR - CODE_BASE), ENTRY_ADDR };
	const uint64_t at_b = CODE_BASE + 0x1040, at_c = CODE_BASE + 0x1080,
		       at_end = CODE_BASE + 0x10c0;
	ZydisEncoderOperand r8 = R(EMU_R8, 8), r9 = R(EMU_R9, 8), rax = R(EMU_RAX, 8);
	/* A: moves, then its last flag writer right before its jump. */
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_LEA, R(EMU_RDX, 8), M(EMU_RBX, EMU_RCX, 8, 0, 8, 8)));
	if (k == F_REWRITTEN) {
		/* The byte at B: adc's opcode (0x11) while the counter's bit
		 * 8 is set, else sub's (0x29), written every 128th turn. */
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RDX, 8), R(EMU_RBX, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R11, 4), I(0x29)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R12, 4), I(0x11)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RCX, 4), I(256)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMOVNZ, R(EMU_R11, 4), R(EMU_R12, 4)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RCX, 4), I(127)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMOVZ, R(EMU_RDX, 8), R(EMU_RSI, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RDX, NO_REG, 0, 0, 1, 8), R(EMU_R11, 1)));
	}
	if (k == F_TWO_WAYS) {
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, r8, r9));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMP, M(EMU_RDX, NO_REG, 0, 0, 8, 8), r8));
		ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JB, at_c, false));
	} else {
		/* add of a register to itself: both operands replaced by
		 * the operation (kept in copies to the end). */
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R11, 8), r8));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, r8, r9));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R11, 8), R(EMU_R11, 8)));
		ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, at_b, false));
	}
	if (k != F_TWO_WAYS) /* (its successor falls through) */
		place(&a, at_b);
	switch (k) {
	case F_OVERWRITES:
	case F_TWO_WAYS:
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, rax, r8));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SUB, rax, r9));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R10, 8), rax));
		break;
	case F_SETCC:
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SETB, R(EMU_RAX, 1)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R10, 8), rax));
		break;
	case F_PUSHF:
		emit_flags_into_r10(&a);
		break;
	case F_FAULTS:
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R10, 8), M(EMU_RDX, NO_REG, 0, 0, 8, 8)));
		break;
	default: /* F_REWRITTEN */
		p->gpr[EMU_RSI] = a.base + a.len;
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SUB, R(EMU_RAX, 4), R(EMU_RAX, 4)));
		ck_assert(p->image[R_CODE][p->gpr[EMU_RSI] - CODE_BASE] == 0x29);
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R10, 8), rax));
		break;
	}
	ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, at_end, false));
	if (k == F_TWO_WAYS) {
		place(&a, at_c);
		emit_flags_into_r10(&a);
		ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_JMP, at_end, false));
	}
	place(&a, at_end);
	end_counted_loop(p, &a);
	/* A's data: 400 slots from rbx + 8 (F_FAULTS: only the last 300
	 * of them mapped). */
	p->gpr[EMU_RBX] = k == F_FAULTS ? DATA_BASE - 8 * 100 : DATA_BASE + 0x100;
	p->gpr[EMU_R8] = 0x0123456789abcdefull;
	p->gpr[EMU_R9] = 0x9e3779b97f4a7c15ull;
	for (unsigned i = 0; i < 0x1000; i += 8) {
		uint64_t v = 0x5851f42d4c957f2dull * (i + 1);
		memcpy(p->image[R_DATA] + i, &v, 8);
	}
}

START_TEST(test_flags_across_chains)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct rng r = { test_seed() | 1 };
	for (int k = 0; k < F_COUNT; k++) {
		build_flag_chain(p, (enum flag_case)k);
		for (int v = 0; v < V_COUNT; v++) {
			struct context c = { flag_case_names[k], test_seed(), 0, v };
			compare_whole(&c, p, a, b);
			/* The loop ran to its end (or to its fault). */
			assert_ends_in_fault(flag_case_names[k], a,
					     k == F_FAULTS ? EMU_FAULT_PF : EMU_FAULT_UD);
			if (k == F_FAULTS)
				ck_assert_uint_eq(emu_exit_info(a->cpu)->fault_addr, DATA_BASE - 8);
			ck_assert_uint_gt(emu_jit_translations(b->cpu), 2);
			compare_chunked_runs(&c, p, a, b, &r);
		}
	}
	rig_free(&g);
}
END_TEST

/* --- divides ------------------------------------------------------------------- */

/* Loops of div (jit_lower_divide.c) that fault once translated, by a
 * divisor of 0 and by a quotient too wide for its register only because
 * of the dividend's bits above 32, and one of 32-bit divides with the
 * rdx's upper half set (not the dividend's). */
enum divide_case { D_ZERO, D_WIDE, D_UPPER, D_COUNT };
static const char *const divide_case_names[D_COUNT] = { "divisor zero", "quotient too wide",
							 "32-bit, rdx's upper half set" };

static void build_divides(struct program *p, enum divide_case k)
{
	struct asmb a = loop_code(p);
	switch (k) {
	case D_ZERO: /* r10 = rcx - 1: 0 at the last turn */
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_LEA, R(EMU_R10, 8), M(EMU_RCX, NO_REG, 0, -1, 8, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_XOR, R(EMU_RDX, 4), R(EMU_RDX, 4)));
		break;
	case D_WIDE: /* rdx = (400 - rcx) << 32 passes r10 = 2^40 + 5 at
		      * rcx = 143; edx stays 0, below r10d */
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RDX, 8), R(EMU_R9, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SUB, R(EMU_RDX, 8), R(EMU_RCX, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SHL, R(EMU_RDX, 8), I(32)));
		break;
	default: /* rdx's upper half set, edx below the divisor rcx */
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RDX, 8), R(EMU_R9, 8)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R10, 4), R(EMU_RCX, 4)));
		break;
	}
	unsigned size = k == D_UPPER ? 4 : 8;
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 8), R(EMU_R8, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_DIV, R(EMU_R10, size)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R11, 8), R(EMU_RAX, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R12, 8), R(EMU_RDX, 8)));
	end_counted_loop(p, &a);
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_R8] = 0x9e3779b97f4a7c15ull;
	p->gpr[EMU_R9] = k == D_WIDE ? 400 : 0xffffffff00000000ull;
	p->gpr[EMU_R10] = (1ull << 40) + 5;
}

/* Hand-built loops, one per case, that end in a fault once translated:
 * each run whole and in chunks by both machines, its interpreted run
 * ending in the case's fault at the turn its rcx says. */
struct fault_loops {
	const char *const *names;
	int count;
	void (*build)(struct program *p, int k);
	enum emu_fault_vector (*fault)(int k);
	uint64_t (*rcx_at_fault)(int k);
};

static void compare_fault_loops(const struct fault_loops *f)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct rng r = { test_seed() | 1 };
	for (int k = 0; k < f->count; k++) {
		f->build(p, k);
		for (int v = 0; v < V_COUNT; v++) {
			struct context c = { f->names[k], test_seed(), 0, v };
			compare_whole(&c, p, a, b);
			assert_ends_in_fault(f->names[k], a, f->fault(k));
			ck_assert_uint_eq(emu_regs(a->cpu)->gpr[EMU_RCX], f->rcx_at_fault(k));
			ck_assert_uint_gt(emu_jit_translations(b->cpu), 0);
			compare_chunked_runs(&c, p, a, b, &r);
		}
	}
	rig_free(&g);
}

static void build_divide_case(struct program *p, int k)
{
	build_divides(p, (enum divide_case)k);
}

static enum emu_fault_vector divide_fault(int k)
{
	return k == D_UPPER ? EMU_FAULT_UD : EMU_FAULT_DE;
}

static uint64_t divide_rcx_at_fault(int k)
{
	return k == D_ZERO ? 1 : k == D_WIDE ? 143 : 0;
}

START_TEST(test_divides)
{
	compare_fault_loops(&(struct fault_loops){ divide_case_names, D_COUNT, build_divide_case,
						   divide_fault, divide_rcx_at_fault });
}
END_TEST

/* --- flags remade at an exit ---------------------------------------------------- */

/* Loops where an operation of registers is followed by a load and then
 * by an instruction that replaces the flags: translated code leaves the
 * operation's flags out of cpu->lazy, and the load's page fault, at the
 * 128th turn (r10 = (400 - rcx) * 64 leaves the data pages), remakes
 * them from the registers (jit_flags_remakeable). One loop per form. */
enum remade_case { RM_ADD, RM_SUB_IMM, RM_CMP, RM_TEST, RM_XOR_IMM, RM_AND, RM_COUNT };
static const char *const remade_case_names[RM_COUNT] = {
	"add r64, r64", "sub r32, imm", "cmp r64, r64", "test r32, r32", "xor r64, imm", "and r32, r32"
};

static void build_remade_flags(struct program *p, int k)
{
	struct asmb a = loop_code(p);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R10, 8), R(EMU_R9, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SUB, R(EMU_R10, 8), R(EMU_RCX, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SHL, R(EMU_R10, 8), I(6)));
	/* rax walks through values whose flags differ turn by turn */
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_IMUL, R(EMU_RAX, 8), R(EMU_R12, 8)));
	switch (k) {
	case RM_ADD: ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), R(EMU_RDX, 8))); break;
	case RM_SUB_IMM: ck_assert(EMIT(&a, ZYDIS_MNEMONIC_SUB, R(EMU_RAX, 4), I(0x7fff1234))); break;
	case RM_CMP: ck_assert(EMIT(&a, ZYDIS_MNEMONIC_CMP, R(EMU_RAX, 8), R(EMU_RDX, 8))); break;
	case RM_TEST: ck_assert(EMIT(&a, ZYDIS_MNEMONIC_TEST, R(EMU_RAX, 4), R(EMU_RDX, 4))); break;
	case RM_XOR_IMM: ck_assert(EMIT(&a, ZYDIS_MNEMONIC_XOR, R(EMU_RAX, 8), I(-0x5a5a))); break;
	default: ck_assert(EMIT(&a, ZYDIS_MNEMONIC_AND, R(EMU_RAX, 4), R(EMU_RDX, 4))); break;
	}
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R8, 8), M(EMU_RBX, EMU_R10, 1, 0, 8, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RBX, EMU_R10, 1, 8, 8, 8), R(EMU_R11, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R11, 8), R(EMU_R8, 8)));
	end_counted_loop(p, &a);
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RAX] = 0x8000000000000001ull;
	p->gpr[EMU_RDX] = 0x7fffffff80000003ull;
	p->gpr[EMU_R9] = 400;
	p->gpr[EMU_R12] = 0x9e3779b97f4a7c15ull;
}

static enum emu_fault_vector remade_fault(int k)
{
	(void)k;
	return EMU_FAULT_PF;
}

static uint64_t remade_rcx_at_fault(int k)
{
	(void)k;
	return 400 - 128;
}

START_TEST(test_remade_flags)
{
	compare_fault_loops(&(struct fault_loops){ remade_case_names, RM_COUNT, build_remade_flags,
						   remade_fault, remade_rcx_at_fault });
}
END_TEST

/* --- SSE moves ----------------------------------------------------------------- */

/* A writable address outside [avoid, avoid + 16) whose prediction-cache
 * entry is that of addr. */
static uint64_t same_cache_entry(uint64_t addr, uint64_t avoid)
{
	static const uint64_t from[] = { DATA_BASE, STACK_BASE };
	static const uint64_t size[] = { 0x1000, 0x2000 };
	unsigned want = cache_index(addr);
	for (unsigned r = 0; r < 2; r++)
		for (uint64_t c = from[r]; c < from[r] + size[r]; c += 8)
			if ((c < avoid || c >= avoid + 16) && c != addr && cache_index(c) == want)
				return c;
	ck_abort_msg("no address shares the cache entry of %#" PRIx64, addr);
	return 0;
}

/*
 * rbx data, ecx the counter, rdi an address sharing the cache entry of
 * the second half of the movdqa's source: each iteration writes the
 * counter there, so that load finds its first entry predicted and its
 * second not. Each load first sets its register (a 4- or 8-byte load
 * zeroes the rest); the stores put the registers' bytes back in memory.
 * movupd and the last movdqu are 8 bytes off alignment (made by the
 * handler).
 */
static void build_vector_moves(struct program *p)
{
	static const struct {
		ZydisMnemonic mn;
		unsigned size, at;
	} loads[] = {
		{ ZYDIS_MNEMONIC_MOVD, 4, 0x10 }, { ZYDIS_MNEMONIC_MOVQ, 8, 0x20 },
		{ ZYDIS_MNEMONIC_MOVSS, 4, 0x30 }, { ZYDIS_MNEMONIC_MOVSD, 8, 0x40 },
		{ ZYDIS_MNEMONIC_MOVDQA, 16, 0x50 }, { ZYDIS_MNEMONIC_MOVDQU, 16, 0x60 },
		{ ZYDIS_MNEMONIC_MOVAPS, 16, 0x70 }, { ZYDIS_MNEMONIC_MOVUPD, 16, 0x88 },
	}, stores[] = {
		{ ZYDIS_MNEMONIC_MOVD, 4, 0x400 }, { ZYDIS_MNEMONIC_MOVQ, 8, 0x410 },
		{ ZYDIS_MNEMONIC_MOVSS, 4, 0x420 }, { ZYDIS_MNEMONIC_MOVSD, 8, 0x430 },
		{ ZYDIS_MNEMONIC_MOVDQA, 16, 0x440 }, { ZYDIS_MNEMONIC_MOVUPS, 16, 0x450 },
		{ ZYDIS_MNEMONIC_MOVNTDQ, 16, 0x460 }, { ZYDIS_MNEMONIC_MOVDQU, 16, 0x478 },
	};
	struct asmb a = loop_code(p);
	uint64_t data = DATA_BASE + 0x100;
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RDI, NO_REG, 0, 0, 8, 8), R(EMU_RCX, 8)));
	for (unsigned i = 0; i < 8; i++) {
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_PCMPEQB, XMM(i + 1), XMM(i + 1)));
		ck_assert(EMIT(&a, loads[i].mn, XMM(i + 1),
			       M(EMU_RBX, NO_REG, 0, loads[i].at, loads[i].size, 8)));
	}
	for (unsigned i = 0; i < 8; i++)
		ck_assert(EMIT(&a, stores[i].mn, M(EMU_RBX, NO_REG, 0, stores[i].at, stores[i].size, 8),
			       XMM(i + 1)));
	end_counted_loop(p, &a);
	for (unsigned i = 0; i < 0x100; i++) /* no zero bytes */
		p->image[R_DATA][0x100 + i] = (uint8_t)(0x80 + i);
	p->gpr[EMU_RBX] = data;
	p->gpr[EMU_RDI] = same_cache_entry(data + 0x58, data + 0x50);
}

/* A loop of SSE moves (from build) over every interface: it runs its 400
 * iterations of `insns` to the ud2, and on the inline interface
 * translated code makes its reads and writes itself, the calls out fewer
 * than the interpreter's by the factors given (0: not compared). */
static void vector_moves(const char *what, void (*build)(struct program *), unsigned insns,
			 unsigned fewer_reads, unsigned fewer_writes)
{
	struct rng r = { test_seed() | 1 };
	/* Each hash: the program's addresses that share an entry are its. */
	for (int direct = 0; direct < 2; direct++) {
		cache_direct = direct;
		struct rig g = rig_new();
		struct program *p = g.p;
		struct machine *a = g.a, *b = g.b;
		build(p);
		for (int v = 0; v < V_COUNT; v++) {
			bool predicting = v == V_INLINE || v == V_GUARDED;
			if (direct && !predicting)
				continue;
			struct context c = { what, test_seed(), 0, v };
			compare_whole(&c, p, a, b);
			ck_assert_int_eq(emu_exit_info(a->cpu)->fault, EMU_FAULT_UD);
			ck_assert_uint_eq(emu_icount(a->cpu), 400 * insns);
			if (predicting)
				ck_assert((!fewer_reads ||
					   b->mem.called_hits * fewer_reads < a->mem.called_hits) &&
					  (!fewer_writes || b->mem.called_inline_writes * fewer_writes <
								    a->mem.called_inline_writes));
			compare_chunked_runs(&c, p, a, b, &r);
		}
		rig_free(&g);
	}
	cache_direct = false;
}

START_TEST(test_vector_moves)
{
	vector_moves("SSE moves", build_vector_moves, 27, 1, 1);
}
END_TEST

/*
 * movdqu, movups and movupd at every offset in an 8-byte line, across a
 * 64-byte block (two groups of cache entries), at the end of a page and
 * across it (made by the handler). rbx data; rdi, rsi and rdx addresses
 * sharing the cache entry of the first, second and third line of one
 * load each, which every iteration writes r8 to: each of those loads
 * then finds one of its three entries not predicting it. The stores
 * put the loaded registers back at as many offsets.
 */
static void build_unaligned_moves(struct program *p)
{
	static const ZydisMnemonic mns[3] = { ZYDIS_MNEMONIC_MOVDQU, ZYDIS_MNEMONIC_MOVUPS,
					      ZYDIS_MNEMONIC_MOVUPD };
	static const unsigned loads[] = { 0x101, 0x112, 0x123, 0x134, 0x13c, 0x145, 0x156,
					  0x167, 0x178, 0x1f9, 0x20b, 0x22d, 0x24e, 0xff0,
					  0xff7 };
	static const unsigned stores[] = { 0x401, 0x412, 0x423, 0x434, 0x43c, 0x445, 0x456,
					   0x467, 0x478, 0x4f9, 0x808, 0xff1, 0xfe9, 0xff0,
					   0xff9 };
	const unsigned n = sizeof(loads) / sizeof(loads[0]);
	struct asmb a = loop_code(p);
	uint64_t data = DATA_BASE;
	static const unsigned aliases[3] = { EMU_RDI, EMU_RSI, EMU_RDX };
	for (unsigned j = 0; j < 3; j++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, M((int)aliases[j], NO_REG, 0, 0, 8, 8),
			       R(EMU_R8, 8)));
	for (unsigned i = 0; i < n; i++)
		ck_assert(EMIT(&a, mns[i % 3], XMM(i), M(EMU_RBX, NO_REG, 0, loads[i], 16, 8)));
	for (unsigned i = 0; i < n; i++)
		ck_assert(EMIT(&a, mns[(i + 1) % 3], M(EMU_RBX, NO_REG, 0, stores[i], 16, 8),
			       XMM(i)));
	/* A store 32 bytes further each iteration, 28 bytes into its 32,
	 * so that translated code sets dirty bits the handler has not set
	 * before, half of them across two 64-bit words of the bitmap. */
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_R9, 4), I(32)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_AND, R(EMU_R9, 4), I(0xfe0)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOVDQU, M(EMU_RBX, EMU_R9, 1, 0x1c, 16, 8), XMM(15)));
	end_counted_loop(p, &a);
	for (unsigned i = 0; i < 0x1000; i++) /* no zero bytes */
		p->image[R_DATA][i] = (uint8_t)(0x80 + i % 0x7f);
	p->gpr[EMU_RBX] = data;
	p->gpr[EMU_R8] = 0x5a5a5a5a5a5a5a5aull;
	/* The loads at 0x20b, 0x22d and 0x24e: lines 0x208, 0x230, 0x258. */
	p->gpr[EMU_RDI] = same_cache_entry(data + 0x208, data + 0x20b);
	p->gpr[EMU_RSI] = same_cache_entry(data + 0x230, data + 0x22d);
	p->gpr[EMU_RDX] = same_cache_entry(data + 0x258, data + 0x24e);
}

START_TEST(test_unaligned_vector_moves)
{
	/* most reads and writes made inline */
	vector_moves("unaligned SSE moves", build_unaligned_moves, 38, 2, 4);
}
END_TEST

/*
 * Reads and writes of 2 and 4 bytes within one 8-byte line at addresses
 * not aligned to their size (the common sequence misses them; the call
 * path's own sequence makes them inline), beside aligned ones, with
 * values that change every iteration.
 */
static void build_misaligned_moves(struct program *p)
{
	static const struct {
		unsigned size, at;
	} loads[] = { { 2, 0x23 }, { 4, 0x31 }, { 4, 0x3a }, { 2, 0x45 }, { 4, 0x54 } },
	  stores[] = { { 2, 0x403 }, { 4, 0x411 }, { 4, 0x422 }, { 2, 0x435 }, { 4, 0x444 } };
	static const int regs[5] = { EMU_RAX, EMU_RDX, EMU_RDI, EMU_R8, EMU_R9 };
	struct asmb a = loop_code(p);
	for (unsigned i = 0; i < 5; i++) {
		ZydisEncoderOperand m = M(EMU_RBX, NO_REG, 0, loads[i].at, loads[i].size, 8);
		ck_assert(loads[i].size == 2 ? EMIT(&a, ZYDIS_MNEMONIC_MOVZX, R(regs[i], 4), m)
					     : EMIT(&a, ZYDIS_MNEMONIC_MOV, R(regs[i], 4), m));
	}
	for (unsigned i = 0; i < 5; i++) {
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(regs[i], 4), R(EMU_RCX, 4)));
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV,
			       M(EMU_RBX, NO_REG, 0, stores[i].at, stores[i].size, 8),
			       R(regs[i], stores[i].size)));
	}
	end_counted_loop(p, &a);
	for (unsigned i = 0; i < 0x100; i++) /* no zero bytes */
		p->image[R_DATA][i] = (uint8_t)(0x80 + i);
	p->gpr[EMU_RBX] = DATA_BASE;
}

/*
 * Runs of pushes (a prologue's), then the pops that undo them, with
 * values that change every iteration, from an rsp 8 bytes higher each
 * iteration (r11 - 8 * rcx): the runs fall in one page, or across two
 * (then each push is made alone), and their first push writes bytes no
 * earlier iteration wrote (their dirty bits set by translated code, in
 * the upper page when the run crosses); or, from an r11 not aligned to
 * 8, every push is made alone.
 */
static uint64_t push_run_base;

/* rsp = r11 - 8 * rcx: 8 bytes higher each iteration. */
static void rsp_walks_up(struct asmb *a)
{
	ck_assert(EMIT(a, ZYDIS_MNEMONIC_MOV, R(EMU_R10, 8), R(EMU_RCX, 8)) &&
		  EMIT(a, ZYDIS_MNEMONIC_NEG, R(EMU_R10, 8)) &&
		  EMIT(a, ZYDIS_MNEMONIC_LEA, R(EMU_RSP, 8), M(EMU_R11, EMU_R10, 8, 0, 8, 8)));
}

/* The four registers take values new each iteration, then are pushed. */
static void push_new_values(struct asmb *a, const int regs[4])
{
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_ADD, R(regs[i], 8), R(EMU_RCX, 8)));
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(a, ZYDIS_MNEMONIC_PUSH, R(regs[i], 8)));
}

/* The loop's end after a push run's pops (r9 folded into rax), and the
 * registers the runs start from. */
static void end_push_runs(struct program *p, struct asmb *a)
{
	ck_assert(EMIT(a, ZYDIS_MNEMONIC_XOR, R(EMU_RAX, 8), R(EMU_R9, 8)));
	end_counted_loop(p, a);
	p->gpr[EMU_R11] = push_run_base;
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RDX] = 0x1111222233334444ull;
	p->gpr[EMU_R8] = 0x5555666677778888ull;
}

static void build_push_runs(struct program *p)
{
	static const int regs[4] = { EMU_RAX, EMU_RDX, EMU_RDI, EMU_R8 };
	struct asmb a = loop_code(p);
	rsp_walks_up(&a);
	push_new_values(&a, regs);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RCX, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_R9, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_R10, 8)));
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_POP, R(regs[3 - i], 8)));
	end_push_runs(p, &a);
}

/*
 * A prologue's pushes with register moves between them, as compilers
 * order them: a run's pushes are stored first and its moves made after
 * them, except that a move writing a register a later push pushes ends
 * the run before it (mov r8d, ecx: made after push r8, the push would
 * store the new r8), and so does a move from rsp (it would read rsp
 * past every push). Moves from registers, an immediate, an address and
 * a byte register; into registers pushed before them too (rdx).
 */
static void build_push_runs_with_moves(struct program *p)
{
	static const int regs[4] = { EMU_RAX, EMU_RDX, EMU_RDI, EMU_R8 };
	struct asmb a = loop_code(p);
	rsp_walks_up(&a);
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, R(regs[i], 8), R(EMU_RCX, 8)));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RAX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R9, 8), R(EMU_RCX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RDX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_LEA, R(EMU_R10, 8), M(EMU_RCX, EMU_RAX, 2, 8, 8, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RDX, 8), R(EMU_R10, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RDI, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOVZX, R(EMU_RSI, 4), R(EMU_RAX, 1)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R8, 4), R(EMU_RCX, 4)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_R8, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RDI, 4), I(0x1234567)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R9, 8), R(EMU_RSP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_R10, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RSI, 8)));
	static const int popped[7] = { EMU_R10, EMU_RSI, EMU_RAX, EMU_R8, EMU_RDX, EMU_RDI, EMU_RBP };
	for (unsigned i = 0; i < 7; i++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_POP, R(popped[i], 8)));
	end_push_runs(p, &a);
}

START_TEST(test_push_runs)
{
	/* rsp from 0x400 up by 8 * 400: across the stack's page boundary */
	ck_assert(0x400 + 8 * 400 > 0x1000);
	static const uint64_t bases[] = { STACK_BASE + 0x400 + 8 * 400, STACK_BASE + 0x403 + 8 * 400 };
	for (unsigned k = 0; k < sizeof(bases) / sizeof(bases[0]); k++) {
		push_run_base = bases[k];
		/* most writes inline, in or out of runs (not aligned to 8:
		 * none, the comparison with the interpreter the check) */
		vector_moves("runs of pushes", build_push_runs, 22, k ? 0 : 1, k ? 0 : 4);
		vector_moves("runs of pushes with moves", build_push_runs_with_moves, 31,
			     k ? 0 : 1, k ? 0 : 4);
	}
}
END_TEST

/*
 * A run of pushes, then of pops into other registers, from an rsp 8
 * bytes higher each iteration as build_push_runs has it; between them a
 * store to the address 512 bytes above word rcx & 7 of the run, which in
 * the test's direct-mapped cache of 512 bytes has that word's entry: for
 * rcx & 7 below 4 one pop of the run then misses, and the run is made
 * pop by pop (the hits before the miss counted as the interpreter counts
 * them); above, the run is a hit whole.
 */
static void build_pop_runs(struct program *p)
{
	static const int pushed[4] = { EMU_RAX, EMU_RDX, EMU_RDI, EMU_R8 };
	static const int popped[4] = { EMU_R9, EMU_R10, EMU_RSI, EMU_RBP };
	struct asmb a = loop_code(p);
	rsp_walks_up(&a);
	push_new_values(&a, pushed);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R9, 8), R(EMU_RCX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_AND, R(EMU_R9, 8), I(7)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, EMU_R9, 8, 512, 8, 8), R(EMU_RBX, 8)));
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_POP, R(popped[i], 8)));
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_XOR, R(pushed[i], 8), R(popped[i], 8)));
	end_counted_loop(p, &a);
	p->gpr[EMU_R11] = STACK_BASE + 0x400 + 8 * 400;
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RDX] = 0x1111222233334444ull;
	p->gpr[EMU_R8] = 0x5555666677778888ull;
}

static void place(struct asmb *a, uint64_t at);

/*
 * Epilogues: f pops two registers and returns, g one; f first stores to
 * the address 512 bytes above word rcx & 7 from its rsp (the test's
 * cache entry of that word): its first pop, its second or its ret then
 * misses for rcx & 7 of 0, 1 or 2, and its run is made instruction by
 * instruction. rsp 8 bytes higher each iteration, as build_pop_runs.
 */
static void build_pop_ret_runs(struct program *p)
{
	const uint64_t at_f = CODE_BASE + 0x1100, at_g = CODE_BASE + 0x1180;
	struct asmb a = loop_code(p);
	rsp_walks_up(&a);
	ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_CALL, at_f, false));
	ck_assert(emit_branch(&a, ZYDIS_MNEMONIC_CALL, at_g, false));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_XOR, R(EMU_RAX, 8), R(EMU_RBP, 8)));
	end_counted_loop(p, &a);
	place(&a, at_f);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_RBX, 8), R(EMU_RCX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RBP, 8), R(EMU_RCX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R9, 8), R(EMU_RCX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_AND, R(EMU_R9, 8), I(7)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, EMU_R9, 8, 512, 8, 8), R(EMU_RDX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_RBP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_RBX, 8)) && EMIT0(&a, ZYDIS_MNEMONIC_RET));
	place(&a, at_g);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RBP, 8), R(EMU_RSP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_RBP, 8)) && EMIT0(&a, ZYDIS_MNEMONIC_RET));
	p->body_end = (ENTRY_ADDR - CODE_BASE) + a.len;
	p->gpr[EMU_R11] = STACK_BASE + 0x400 + 8 * 400;
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RDX] = 0x1111222233334444ull;
}

START_TEST(test_pop_runs)
{
	vector_moves("runs of pops", build_pop_runs, 24, 1, 0);
	vector_moves("runs of pops ending in ret", build_pop_ret_runs, 22, 1, 0);
}
END_TEST

/*
 * A stack frame each iteration, rsp 8 bytes higher each time as
 * build_push_runs has it, so that some frames cross the stack's page
 * boundary: a push run, then accesses of 1 to 8 bytes relative to rsp,
 * a handler's call between them (xchg), and a store 512 bytes above a
 * word later read back (in the test's direct-mapped cache, that word's
 * entry: the read then misses).
 */
static void build_stack_frames(struct program *p)
{
	struct asmb a = loop_code(p);
	rsp_walks_up(&a);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_PUSH, R(EMU_RBP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_SUB, R(EMU_RSP, 8), I(0x40)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x08, 8, 8), R(EMU_RAX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x38, 8, 8), R(EMU_RCX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x10, 4, 8), R(EMU_RCX, 4)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x14, 2, 8), R(EMU_RCX, 2)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x17, 1, 8), R(EMU_RDX, 1)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x208, 8, 8), R(EMU_RDX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R9, 8), M(EMU_RSP, NO_REG, 1, 0x08, 8, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), M(EMU_RSP, NO_REG, 1, 0x38, 8, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_XCHG, R(EMU_RDX, 8), R(EMU_RDI, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOVZX, R(EMU_R10, 4), M(EMU_RSP, NO_REG, 1, 0x14, 2, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_RDX, 8), R(EMU_R10, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, M(EMU_RSP, NO_REG, 1, 0x20, 8, 8), R(EMU_RDI, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_R8, 8), M(EMU_RSP, NO_REG, 1, 0x10, 8, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_XOR, R(EMU_RAX, 8), R(EMU_R8, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_ADD, R(EMU_RSP, 8), I(0x40)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_RBP, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_POP, R(EMU_RBX, 8)) &&
		  EMIT(&a, ZYDIS_MNEMONIC_XOR, R(EMU_RAX, 8), R(EMU_R9, 8)));
	end_counted_loop(p, &a);
	p->gpr[EMU_R11] = STACK_BASE + 0x400 + 8 * 400;
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RDX] = 0x1111222233334444ull;
	p->gpr[EMU_RDI] = 0x5555666677778888ull;
}

START_TEST(test_stack_frames)
{
	/* most reads and writes inline */
	vector_moves("stack frames", build_stack_frames, 26, 1, 1);
	/* a memory that changes its table at every miss: translated code
	 * must not keep a page the table has dropped (a write there then
	 * calls, logged, as the interpreter's does) */
	for (int direct = 0; direct < 2; direct++) {
		cache_direct = direct;
		struct rig g = rig_new();
		build_stack_frames(g.p);
		g.a->mem.drop_on_miss = g.b->mem.drop_on_miss = true;
		for (int v = V_INLINE; v <= V_GUARDED; v++) {
			struct context c = { "stack frames, table dropped at misses", test_seed(), 0, v };
			compare_whole(&c, g.p, g.a, g.b);
			ck_assert_int_eq(emu_exit_info(g.a->cpu)->fault, EMU_FAULT_UD);
			ck_assert_uint_eq(emu_icount(g.a->cpu), 400 * 26);
		}
		rig_free(&g);
	}
	cache_direct = false;
}
END_TEST

/* Four pops from the same place each iteration, of bytes no instruction
 * wrote (the image's, nonzero). */
static void build_fixed_pops(struct program *p)
{
	struct asmb a = loop_code(p);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RSP, 8), R(EMU_R11, 8)));
	static const int popped[4] = { EMU_R9, EMU_R10, EMU_RSI, EMU_RBP };
	for (unsigned i = 0; i < 4; i++)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_POP, R(popped[i], 8)));
	end_counted_loop(p, &a);
	for (unsigned i = 0; i < 32; i++)
		p->image[R_STACK][0x800 + i] = (uint8_t)(0x41 + i);
	p->gpr[EMU_R11] = STACK_BASE + 0x800;
}

static uint64_t unchecked_inline_hits(struct machine *b, const struct program *p);

/* Checked reads (the replayer's): a run of pops is made inline only when
 * each of its words is known and as many hits are left before the limit
 * as it has pops; else pop by pop, each inline while its own are. */
static uint64_t checked_pop_hits(struct machine *b, const struct program *p, int unknown_word,
				 uint64_t limit)
{
	b->mem.checked = true;
	machine_start(b, p, V_INLINE, true, ENTRY_ADDR);
	b->mem.hits_limit = limit;
	for (unsigned w = 0; w < 4; w++)
		if ((int)w != unknown_word)
			b->dirty[R_STACK][(0x800 + 8 * w) / 8] = 0xff;
	emu_run(b->cpu, 10000);
	ck_assert_int_eq(emu_exit_info(b->cpu)->fault, EMU_FAULT_UD);
	b->mem.checked = false;
	return b->mem.hits_settled + b->mem.hits_since_miss - b->mem.called_hits;
}

START_TEST(test_checked_pop_runs)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *b = g.b;
	cache_direct = true;
	build_fixed_pops(p);
	/* all known, no limit: every pop inline once translated, as for
	 * a memory whose reads are not checked */
	uint64_t all = checked_pop_hits(b, p, -1, UINT64_MAX);
	ck_assert_uint_gt(all, 4 * 200);
	ck_assert_uint_eq(all, unchecked_inline_hits(b, p));
	/* one word unknown: that pop always calls, the other three not */
	for (int w = 0; w < 4; w++) {
		uint64_t hits = checked_pop_hits(b, p, w, UINT64_MAX);
		ck_assert_msg(4 * hits == 3 * all, "word %d unknown: %" PRIu64 " of %" PRIu64 " inline",
			      w, hits, all);
	}
	/* hits left below a run's pops: no more inline than the limit
	 * allows past the hits the interpreter made before translating
	 * (no miss after the first iteration's) */
	checked_pop_hits(b, p, -1, UINT64_MAX);
	uint64_t before = b->mem.called_hits;
	for (uint64_t left = 0; left < 12; left++) {
		uint64_t hits = checked_pop_hits(b, p, -1, before + left);
		ck_assert_msg(hits <= left, "%" PRIu64 " hits left: %" PRIu64 " inline", left, hits);
		ck_assert_msg(left < 4 || hits > 0, "%" PRIu64 " hits left: none inline", left);
	}
	cache_direct = false;
	rig_free(&g);
}
END_TEST

/*
 * An ALU operation into memory (read, write: one check of the page
 * inline) on bytes a read just had the cache predict, 8 bytes further
 * each iteration: bytes no instruction wrote before, whose dirty bits
 * the operation's inline write must set.
 */
static unsigned update_size;
static void build_updates(struct program *p)
{
	unsigned n = update_size;
	struct asmb a = loop_code(p);
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_LEA, R(EMU_R9, 8), M(NO_REG, EMU_RCX, 8, 0, 8, 8)));
	ZydisEncoderOperand at = M(EMU_RBX, EMU_R9, 1, 0x100, n, 8);
	ck_assert(EMIT(&a, n < 4 ? ZYDIS_MNEMONIC_MOVZX : ZYDIS_MNEMONIC_MOV, R(EMU_R10, n < 4 ? 4 : n),
		       at));
	ck_assert(EMIT(&a, ZYDIS_MNEMONIC_ADD, at, R(EMU_RCX, n)));
	end_counted_loop(p, &a);
	p->gpr[EMU_RBX] = DATA_BASE;
}

START_TEST(test_alu_into_memory)
{
	for (update_size = 1; update_size <= 8; update_size *= 2)
		vector_moves("add into memory", build_updates, 5, 1, 1);
}
END_TEST

START_TEST(test_misaligned_moves)
{
	/* nearly all of them made inline */
	vector_moves("misaligned integer moves", build_misaligned_moves, 17, 4, 4);
}
END_TEST

/* --- checked reads: known bytes and a hit limit ------------------------------ */

/* A loop reading `size` bytes at DATA_BASE + 0x100 + at, 400 times. */
static void build_one_read(struct program *p, unsigned size, unsigned at)
{
	struct asmb a = loop_code(p);
	ZydisEncoderOperand m = M(EMU_RBX, NO_REG, 0, at, size, 8);
	if (size == 16)
		ck_assert(EMIT(&a, at % 16 ? ZYDIS_MNEMONIC_MOVDQU : ZYDIS_MNEMONIC_MOVDQA, XMM(1), m));
	else if (size < 4)
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOVZX, R(EMU_RAX, 4), m));
	else
		ck_assert(EMIT(&a, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, size), m));
	end_counted_loop(p, &a);
	for (unsigned i = 0; i < 0x100; i++) /* no zero bytes */
		p->image[R_DATA][0x100 + i] = (uint8_t)(0x80 + i);
	p->gpr[EMU_RBX] = DATA_BASE + 0x100;
}

/* Hits translated code made itself, the read's bytes known but for byte
 * `unknown` of them (-1: all known), below a hit limit. */
static uint64_t checked_inline_hits(struct machine *b, const struct program *p, unsigned size,
				    unsigned at, int unknown, uint64_t limit)
{
	b->mem.checked = true;
	machine_start(b, p, V_INLINE, true, ENTRY_ADDR);
	b->mem.hits_limit = limit;
	for (unsigned i = 0; i < size; i++) {
		unsigned off = 0x100 + at + i;
		if ((int)i != unknown)
			b->dirty[R_DATA][off / 8] |= (uint8_t)(1u << (off % 8));
	}
	emu_run(b->cpu, 10000);
	ck_assert_int_eq(emu_exit_info(b->cpu)->fault, EMU_FAULT_UD);
	uint64_t hits = b->mem.hits_settled + b->mem.hits_since_miss;
	b->mem.checked = false;
	return hits - b->mem.called_hits;
}

/* The same read's hits made inline by a memory whose reads are not
 * checked (the recorder's). */
static uint64_t unchecked_inline_hits(struct machine *b, const struct program *p)
{
	machine_start(b, p, V_INLINE, true, ENTRY_ADDR);
	emu_run(b->cpu, 10000);
	ck_assert_int_eq(emu_exit_info(b->cpu)->fault, EMU_FAULT_UD);
	return b->mem.hits_settled + b->mem.hits_since_miss - b->mem.called_hits;
}

START_TEST(test_checked_reads)
{
	static const struct {
		unsigned size, at;
	} reads[] = { { 1, 0x13 }, { 2, 0x22 }, { 2, 0x26 }, { 4, 0x34 }, { 8, 0x40 }, { 16, 0x50 },
		      { 16, 0x63 }, { 16, 0x78 }, { 16, 0xb9 },
		      /* crossing two lines (and a 64-byte block) */
		      { 2, 0x27 }, { 4, 0x35 }, { 8, 0x43 }, { 8, 0x3f }, { 4, 0xbe } };
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *b = g.b;
	for (size_t n = 0; n < 2 * sizeof(reads) / sizeof(reads[0]); n++) {
		size_t k = n % (sizeof(reads) / sizeof(reads[0]));
		cache_direct = n >= sizeof(reads) / sizeof(reads[0]); /* each hash */
		unsigned size = reads[k].size, at = reads[k].at;
		build_one_read(p, size, at);
		ck_assert_msg(unchecked_inline_hits(b, p) > 300, "%u bytes at +%#x: few reads inline",
			      size, at);
		ck_assert_msg(checked_inline_hits(b, p, size, at, -1, UINT64_MAX) > 300,
			      "%u bytes at +%#x, all known: few reads inline", size, at);
		for (unsigned i = 0; i < size; i++)
			ck_assert_msg(checked_inline_hits(b, p, size, at, (int)i, UINT64_MAX) == 0,
				      "%u bytes at +%#x, byte %u unknown: read inline", size, at, i);
		ck_assert_msg(checked_inline_hits(b, p, size, at, -1, 0) == 0,
			      "%u bytes at +%#x past the hit limit: read inline", size, at);
		/* Below a limit of 100: hits made inline while the count
		 * (all hits since the one miss) stays under it. */
		uint64_t below = checked_inline_hits(b, p, size, at, -1, 100);
		ck_assert_msg(below > 0 && below <= 100, "%u bytes at +%#x: %" PRIu64 " inline hits",
			      size, at, below);
	}
	cache_direct = false;
	rig_free(&g);
}
END_TEST

/* Translations hold the bitmap's distance as a 32-bit displacement: a
 * memory whose bitmap lies farther has every access called, and runs as
 * the interpreter does. */
START_TEST(test_bitmap_out_of_reach)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *b = g.b;
	build_one_read(p, 4, 0x34);
	ck_assert_uint_gt(unchecked_inline_hits(b, p), 300);
	b->mem.bitmap_far = true;
	ck_assert_uint_eq(unchecked_inline_hits(b, p), 0);
	b->mem.bitmap_far = false;
	struct asmb as = loop_code(p);
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 8), M(EMU_RBX, NO_REG, 0, 0, 8, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), R(EMU_RCX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, M(EMU_RBX, NO_REG, 0, 8, 8, 8), R(EMU_RAX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_PUSH, R(EMU_RAX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_PUSH, R(EMU_RCX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_POP, R(EMU_RCX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_POP, R(EMU_RDX, 8)));
	end_counted_loop(p, &as);
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RCX] = 3000;
	g.a->mem.bitmap_far = b->mem.bitmap_far = true;
	machines_start(g.a, b, p, V_INLINE);
	size_t from = 0;
	run_compared(g.a, b, 5000, &from, "dirty bits out of a displacement's reach, run", 0);
	ck_assert_uint_eq(b->mem.hits_since_miss + b->mem.hits_settled, b->mem.called_hits);
	ck_assert_uint_gt(emu_jit_translations(b->cpu), 0);
	rig_free(&g);
}
END_TEST

/* --- another cache size between runs ------------------------------------------ */

/* A loop that reads and writes along the data, hot and translated; then
 * the memory's cache takes another size (another hash shift, which
 * translations have as an immediate) or another hash (translations have
 * one or the other) and the context is set again: the translated run
 * must hash as the interpreted one from there on. */
START_TEST(test_cache_shift_change)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct asmb as = loop_code(p);
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 8), M(EMU_RBX, NO_REG, 0, 0, 8, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), R(EMU_RCX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, M(EMU_RBX, NO_REG, 0, 8, 8, 8), R(EMU_RAX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, R(EMU_RDX, 4), M(EMU_RBX, NO_REG, 0, 0, 4, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RBX, 8), I(64)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_AND, R(EMU_RBX, 4), I(0x1fff)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_OR, R(EMU_RBX, 8), R(EMU_RSI, 8)));
	end_counted_loop(p, &as);
	p->gpr[EMU_RSI] = DATA_BASE;
	p->gpr[EMU_RBX] = DATA_BASE;
	p->gpr[EMU_RCX] = 3000;
	ck_assert(DATA_BASE % 0x2000 == 0 && regions[R_DATA].size == 0x2000);
	machines_start(a, b, p, V_INLINE);
	size_t from = 0;
	/* The size changing, the hash changing alone (the shift the same). */
	static const struct {
		unsigned log2;
		bool direct;
	} steps[] = { { INLINE_CACHE_LOG2, false },	{ INLINE_CACHE_LOG2, true },
		      { INLINE_CACHE_LOG2 - 1, true },	{ INLINE_CACHE_LOG2 - 1, false },
		      { INLINE_CACHE_LOG2 - 2, false }, { INLINE_CACHE_LOG2 - 2, true } };
	for (unsigned step = 0; step < sizeof(steps) / sizeof(steps[0]); step++) {
		unsigned log2 = steps[step].log2;
		cache_log2 = log2;
		cache_direct = steps[step].direct;
		for (struct machine *m = a; m; m = m == a ? b : NULL) {
			memset(m->mem.cache, 0, sizeof(m->mem.cache));
			emu_set_memory_context(m->cpu, &m->mem);
		}
		run_compared(a, b, 2000, &from, cache_direct ? "direct-mapped cache of 2^n entries, n ="
							     : "cache of 2^n entries, n =", log2);
	}
	cache_log2 = INLINE_CACHE_LOG2;
	cache_direct = false;
	ck_assert_uint_gt(emu_jit_translations(b->cpu), 0);
	ck_assert_uint_gt(b->mem.hits_settled + b->mem.hits_since_miss, b->mem.called_hits);
	rig_free(&g);
}
END_TEST

/* --- the budget at a chained block's end ------------------------------------- */

/* A loop of one block of the most instructions a block holds, chained to
 * itself once hot: a run whose budget ends one short of a second whole
 * block goes home after the first, exactly at the limit. */
START_TEST(test_chain_limit)
{
	enum { BLOCK = 32 }; /* EMU_MAX_BLOCK_INSNS */
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct asmb as = loop_code(p);
	for (unsigned i = 0; i < BLOCK - 2; i++)
		ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), I(1)));
	end_counted_loop(p, &as);
	p->gpr[EMU_RCX] = 1000;
	machines_start(a, b, p, V_PLAIN);
	for (unsigned budget = 2 * BLOCK - 1; budget <= 2 * BLOCK + 1; budget++) {
		size_t from = 0;
		/* hot, translated, and chained (the run loop saw it follow
		 * itself within one run) */
		run_both(a, b, 100 * BLOCK);
		uint64_t before = emu_icount(b->cpu);
		run_compared(a, b, budget, &from, "budget", budget);
		ck_assert_uint_eq(emu_icount(b->cpu), before + budget);
		/* back to a block's start */
		run_both(a, b, BLOCK - budget % BLOCK);
	}
	ck_assert_uint_gt(emu_jit_translations(b->cpu), 0);
	rig_free(&g);
}
END_TEST

/* --- observed runs: blocks the observer need not see ------------------------ */

struct watch_probe {
	uint64_t watched;       /* the address whose block is seen, or none */
	unsigned asked, started;
};

static bool probe_insn_start(void *ctx, uint64_t rip)
{
	struct watch_probe *w = ctx;
	w->started++;
	return rip == w->watched;
}

static bool probe_block_watched(void *ctx, uint64_t start, uint64_t end)
{
	struct watch_probe *w = ctx;
	w->asked++;
	return w->watched >= start && w->watched < end;
}

/* Under an observer with block_watched, a loop of two blocks it need not
 * see runs translated, each block chained into the other (few questions,
 * no instruction seen); once the observer watches an address in the
 * first and that block is unchained (emu_unchain_code, as gdb's
 * breakpoints are), a run from the second stops there within the turn,
 * where an interpreter would. */
START_TEST(test_observed_chains)
{
	enum { FIRST = 3, TURN = 7, TURNS = 1000 }; /* add, add, jmp; add, add, sub, jnz */
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct asmb as = loop_code(p);
	for (unsigned i = 0; i < 2; i++)
		ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), I(1)));
	ck_assert(emit_branch(&as, ZYDIS_MNEMONIC_JMP, as.base + as.len + 2, true));
	for (unsigned i = 0; i < 2; i++)
		ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), I(1)));
	end_counted_loop(p, &as);
	p->gpr[EMU_RCX] = 100 * TURNS;
	machines_start(a, b, p, V_PLAIN);
	struct watch_probe w = { .watched = UINT64_MAX };
	struct emu_observer obs = { .ctx = &w, .insn_start = probe_insn_start,
				    .block_watched = probe_block_watched };
	emu_set_observer(b->cpu, &obs);
	emu_run(b->cpu, TURN * TURNS + FIRST); /* to the second block */
	ck_assert_uint_eq(emu_jit_translations(b->cpu), 2);
	ck_assert_uint_eq(w.started, 0);
	ck_assert_uint_lt(w.asked, TURNS / 4);
	ck_assert_uint_eq(emu_regs(b->cpu)->gpr[EMU_RAX], 4 * TURNS + 2);

	w.watched = ENTRY_ADDR + 4; /* the first block's second add */
	emu_unchain_code(b->cpu, w.watched, 1);
	uint64_t before = emu_icount(b->cpu);
	ck_assert_int_eq(emu_run(b->cpu, TURN * TURNS), EMU_EXIT_STOPPED);
	ck_assert_uint_eq(emu_regs(b->cpu)->rip, ENTRY_ADDR + 4);
	ck_assert_uint_eq(emu_icount(b->cpu), before + TURN - FIRST + 1);
	ck_assert_uint_eq(w.started, 2);
	/* The interpreter, unobserved, agrees on the state there. */
	emu_run(a->cpu, TURN * TURNS + TURN + 1);
	ck_assert_uint_eq(emu_regs(a->cpu)->gpr[EMU_RAX], emu_regs(b->cpu)->gpr[EMU_RAX]);
	ck_assert_uint_eq(emu_regs(a->cpu)->rip, ENTRY_ADDR + 4);
	emu_set_observer(b->cpu, NULL);
	rig_free(&g);
}
END_TEST

/* --- cached registers loaded on entry only when read first -------------------- */

/* Block A replaces rbx whole before reading it (not loaded on entry), but
 * writes al (a merge), moves rsi to itself and zero-extends di into edi:
 * those read the old values, which must be loaded. Block B, chained
 * between, leaves its own guests in all five cache registers, so a value
 * A failed to load is B's, not A's own from the last time round. */
START_TEST(test_entry_loads)
{
	struct rig g = rig_new();
	struct program *p = g.p;
	struct machine *a = g.a, *b = g.b;
	struct asmb as = loop_code(p);
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, R(EMU_RAX, 1), I(7)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, R(EMU_RSI, 8), R(EMU_RSI, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOVZX, R(EMU_RDI, 4), R(EMU_RDI, 2)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_MOV, R(EMU_RBX, 4), I(3)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), R(EMU_RSI, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), R(EMU_RDI, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RAX, 8), R(EMU_RBX, 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RSI, 8), I(1)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(EMU_RDI, 8), I(3)));
	uint64_t block_b = as.base + as.len + 5; /* after the jmp rel32 */
	ck_assert(emit_branch(&as, ZYDIS_MNEMONIC_JMP, block_b, false));
	ck_assert_uint_eq(as.base + as.len, block_b);
	static const unsigned others[5] = { EMU_R8, EMU_R9, EMU_R10, EMU_R11, EMU_R12 };
	for (unsigned i = 0; i < 5; i++)
		ck_assert(EMIT(&as, ZYDIS_MNEMONIC_ADD, R(others[i], 8), R(others[(i + 1) % 5], 8)));
	ck_assert(EMIT(&as, ZYDIS_MNEMONIC_SUB, R(EMU_RCX, 8), I(1)));
	ck_assert(emit_branch(&as, ZYDIS_MNEMONIC_JNZ, ENTRY_ADDR, false));
	ck_assert(EMIT0(&as, ZYDIS_MNEMONIC_UD2));
	p->gpr[EMU_RSP] = STACK_TOP;
	p->gpr[EMU_RAX] = 0x1122334455667788;
	p->gpr[EMU_RSI] = 0x0101010101010101;
	p->gpr[EMU_RDI] = 0x7777777777775555;
	p->gpr[EMU_RCX] = 5000;
	for (unsigned i = 0; i < 5; i++)
		p->gpr[others[i]] = 0x9000000000000001 * (i + 3);
	p->rflags = 0x202;
	machines_start(a, b, p, V_PLAIN);
	size_t from = 0;
	for (unsigned round = 0; round < 4; round++)
		run_compared(a, b, 10000, &from, "round", round);
	ck_assert_uint_ge(emu_jit_translations(b->cpu), 2);
	rig_free(&g);
}
END_TEST

static Suite *emu_jit_suite(void)
{
	Suite *s = suite_create("emu_jit");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_random_sized);
	tcase_add_test(tc, test_vector_moves);
	tcase_add_test(tc, test_unaligned_vector_moves);
	tcase_add_test(tc, test_misaligned_moves);
	tcase_add_test(tc, test_push_runs);
	tcase_add_test(tc, test_chain_limit);
	tcase_add_test(tc, test_observed_chains);
	tcase_add_test(tc, test_entry_loads);
	tcase_add_test(tc, test_cache_shift_change);
	tcase_add_test(tc, test_checked_reads);
	tcase_add_test(tc, test_pop_runs);
	tcase_add_test(tc, test_stack_frames);
	tcase_add_test(tc, test_alu_into_memory);
	tcase_add_test(tc, test_checked_pop_runs);
	tcase_add_test(tc, test_bitmap_out_of_reach);
	tcase_add_test(tc, test_random_uint);
	tcase_add_test(tc, test_random_plain);
	tcase_add_test(tc, test_random_inline);
	tcase_add_test(tc, test_random_guarded);
	tcase_add_test(tc, test_random_direct);
	tcase_add_test(tc, test_random_sse);
	tcase_add_test(tc, test_self_modifying);
	tcase_add_test(tc, test_indirect_targets);
	tcase_add_test(tc, test_flags_across_chains);
	tcase_add_test(tc, test_divides);
	tcase_add_test(tc, test_remade_flags);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_jit_suite)
