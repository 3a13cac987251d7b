/*
 * jit_inline_memory.c — the common read and write as host code, for
 * memories that describe them (struct emu_inline_memory, emu.h): the page
 * looked up in the memory's table, the value loaded and checked against
 * the prediction cache (the hit counted), or stored, its dirty bits set
 * and the cache updated, with no call. Every other case falls through to
 * the call the translation makes without it (jit_lower.c), which starts
 * the access over: nothing here writes anything before the access is
 * known to complete inline.
 */
#include <pthread.h>
#include <string.h>

#include <Zydis/Zydis.h>

#include "jit_xlate.h"

#define MOV ZYDIS_MNEMONIC_MOV

static void emit(struct jit_asm *as, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(as, mn, a, b);
}

/* A field of the contract, as the cpu (r15) holds it. */
static struct jit_opnd contract(int64_t off)
{
	return jit_m(JIT_CPU, JR_NONE, 0, off, 8);
}

static void miss_if(struct jit_asm *a, struct jit_misses *m, unsigned cc)
{
	if (m->n == JIT_INLINE_MISSES) {
		a->failed = true;
		return;
	}
	m->site[m->n++] = jit_jcc_forward(a, cc);
}

/* A miss unless (rsi & 7) + size <= 8: one cache entry, so one page
 * (16 bytes: aligned to 16, so two whole entries of one page); clobbers
 * r10. */
static void within_entry(struct jit_asm *a, struct jit_misses *m, unsigned size)
{
	if (size >= 8) { /* aligned: 16 bytes are two whole entries */
		emit(a, ZYDIS_MNEMONIC_TEST, jit_r(JR_RSI, 4), jit_i((int64_t)size - 1));
		miss_if(a, m, JIT_CC_NZ);
		return;
	}
	if (size == 1) /* any byte lies in one entry */
		return;
	emit(a, MOV, jit_r(JR_R10, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R10, 4), jit_i(7));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_R10, 4), jit_i(8 - (int64_t)size));
	miss_if(a, m, 7); /* ja */
}

/* rdx = rsi & ~4095 with the bits `keep` of rsi too, and rax = the page
 * table's entry: pages + ((rdx >> 7) & page_bytes_mask), the index
 * already scaled by the entry's 32 bytes. A page-aligned tag has none
 * of the bits kept (WRITABLE lies above them), so the tag's test fails
 * unless they are clear: an access of n bytes keeps n - 1, and the one
 * test checks both its page and its alignment to its size (an aligned
 * access lies in one cache entry; 16 bytes, in two whole ones). */
_Static_assert(EMU_INLINE_PAGE_WRITABLE > 15 && EMU_INLINE_PAGE_WRITABLE < 4096,
	       "WRITABLE above the alignment bits a tag's test keeps");
_Static_assert(sizeof(struct emu_inline_page) == 32, "a page's entry is 32 bytes: index << 5");
static void page_entry_to_rax(struct jit_asm *a, unsigned keep)
{
	emit(a, MOV, jit_r(JR_RDX, 8), jit_r(JR_RSI, 8));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RDX, 8), jit_i(-4096 | (int64_t)keep));
	emit(a, MOV, jit_r(JR_RAX, 8), jit_r(JR_RDX, 8));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_i(7));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 8), contract(JIT_INLINE(page_bytes_mask)));
	emit(a, ZYDIS_MNEMONIC_ADD, jit_r(JR_RAX, 8), contract(JIT_INLINE(pages)));
}

/* What a sequence leaves to be filled in for each memory: the cache's
 * hash it is built for (a direct-mapped cache's, or the multiplier's,
 * whose shift is an immediate patched into each copy, copy_template),
 * and the bitmap's distance from the data as a 32-bit displacement of
 * the operands that reach the bitmap (emu.h: dirty_offset fits in 32
 * bits, else no access is made inline). Placeholders, and where their
 * bytes are. */
#define SHIFT_PLACEHOLDER 0x2a
#define BITMAP_PLACEHOLDER 0x2a2a2a2a
struct cache_hash {
	bool direct;
	size_t at[3];
	unsigned n;
	size_t bitmap_at[2];
	unsigned bitmap_n;
};

/* The placeholder's byte, just emitted, noted as a site. */
static void note_shift_site(struct jit_asm *a, struct cache_hash *h)
{
	if (a->pos == 0 || a->buf[a->pos - 1] != SHIFT_PLACEHOLDER || h->n == 3)
		a->failed = true;
	else
		h->at[h->n++] = a->pos - 1;
}

/* A byte of the bitmap: [base + index * scale + dirty_offset]. */
static struct jit_opnd bitmap_at(int base, int index, unsigned scale, unsigned size)
{
	return jit_m(base, index, scale, BITMAP_PLACEHOLDER, size);
}

/* mn with an operand bitmap_at made, its displacement noted as a site. */
static void emit_bitmap(struct jit_asm *a, struct cache_hash *h, ZydisMnemonic mn,
			struct jit_opnd x, struct jit_opnd y)
{
	size_t from = a->pos;
	emit(a, mn, x, y);
	const uint32_t placeholder = BITMAP_PLACEHOLDER; /* little-endian, as encoded */
	for (size_t i = from; i + 4 <= a->pos && !a->failed; i++)
		if (memcmp(a->buf + i, &placeholder, 4) == 0) {
			if (h->bitmap_n == 2)
				break;
			h->bitmap_at[h->bitmap_n++] = i;
			return;
		}
	a->failed = true;
}

/* rdx and r8 such that rdx + r8 is the access's first byte in the cache
 * entry of addr = rsi + disp, and r8 & ~7 that entry's offset from rdx:
 * directly mapped, rdx = cache and r8 = addr & cache_direct_mask; hashed,
 * rdx = the entry group's address, cache + 64 * (((addr >> 6) *
 * multiplier) >> shift), and r8 = addr & 63. Clobbers nothing else. */
static void cache_entry_to_rdx_r8(struct jit_asm *a, struct cache_hash *h, int64_t disp)
{
	if (h->direct) {
		emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_R8, 8), jit_m(JR_RSI, JR_NONE, 0, disp, 8));
		emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R8, 8), contract(JIT_INLINE(cache_direct_mask)));
		emit(a, MOV, jit_r(JR_RDX, 8), contract(JIT_INLINE(cache)));
		return;
	}
	emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_RDX, 8), jit_m(JR_RSI, JR_NONE, 0, disp, 8));
	emit(a, MOV, jit_r(JR_R8, 4), jit_r(JR_RDX, 4));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_i(6));
	emit(a, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RDX, 8), contract(JIT_INLINE(cache_multiplier)));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_i(SHIFT_PLACEHOLDER));
	note_shift_site(a, h);
	emit(a, ZYDIS_MNEMONIC_SHL, jit_r(JR_RDX, 8), jit_i(6));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R8, 4), jit_i(63));
	emit(a, ZYDIS_MNEMONIC_ADD, jit_r(JR_RDX, 8), contract(JIT_INLINE(cache)));
}

/* The access's `size` bytes in the cache entry (rdx + r8, as
 * cache_entry_to_rdx_r8 left them): the host is little-endian like the
 * cache's lanes, and within_entry keeps them inside the entry, so they
 * are one plain load or store away with no shifting or masking. */
static struct jit_opnd cache_lanes(unsigned size)
{
	return jit_m(JR_RDX, JR_R8, 1, 0, size);
}

/*
 * The hits of inline reads are kept in r9 while translated code runs,
 * not in *hits_since_miss: counted in memory one by one, they made a
 * read-modify-write of one word per read, each waiting for the last,
 * through every block. For an unchecked memory r9 holds the hits not yet
 * added; for a checked one, the hits left before *hits_limit (a read is
 * inline only while some are). jit_hits_settle stores them before each
 * call and on the way home, jit_hits_load sets r9 up after.
 */
static void count_hit(struct jit_asm *a, bool checked)
{
	emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_R9, 8), jit_m(JR_R9, JR_NONE, 0, checked ? -1 : 1, 8));
}

/* A checked read's conditions (emu.h, hits_limit): a miss when
 * *hits_since_miss >= *hits_limit, none left in r9. */
static void below_hits_limit(struct jit_asm *a, struct jit_misses *m)
{
	emit(a, ZYDIS_MNEMONIC_TEST, jit_r(JR_R9, 8), jit_r(JR_R9, 8));
	miss_if(a, m, JIT_CC_Z);
}

bool jit_hits_in_r9(const struct jit_xlate *x)
{
	return x->cpu->mem->inline_memory != NULL;
}

static bool hits_checked(const struct jit_xlate *x)
{
	return x->cpu->mem_inline.hits_limit != NULL;
}

void jit_hits_settle(struct jit_xlate *x)
{
	struct jit_asm *a = &x->a;
	if (!hits_checked(x)) {
		emit(a, MOV, jit_r(JR_R11, 8), contract(JIT_INLINE(hits_since_miss)));
		emit(a, ZYDIS_MNEMONIC_ADD, jit_m(JR_R11, JR_NONE, 0, 0, 8), jit_r(JR_R9, 8));
		return;
	}
	/* *hits_since_miss = *hits_limit - r9, unless the count is past
	 * the limit already (r9 was 0, and no read was inline since) */
	emit(a, MOV, jit_r(JR_R11, 8), contract(JIT_INLINE(hits_limit)));
	emit(a, MOV, jit_r(JR_R11, 8), jit_m(JR_R11, JR_NONE, 0, 0, 8));
	emit(a, ZYDIS_MNEMONIC_SUB, jit_r(JR_R11, 8), jit_r(JR_R9, 8));
	emit(a, MOV, jit_r(JR_R10, 8), contract(JIT_INLINE(hits_since_miss)));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_m(JR_R10, JR_NONE, 0, 0, 8), jit_r(JR_R11, 8));
	size_t past = jit_jcc_forward(a, 3); /* jae */
	emit(a, MOV, jit_m(JR_R10, JR_NONE, 0, 0, 8), jit_r(JR_R11, 8));
	jit_bind(a, past);
}

void jit_hits_load(struct jit_xlate *x)
{
	struct jit_asm *a = &x->a;
	if (!hits_checked(x)) {
		emit(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_R9, 4), jit_r(JR_R9, 4));
		return;
	}
	/* r9 = *hits_limit - *hits_since_miss, 0 when it is past */
	emit(a, MOV, jit_r(JR_R11, 8), contract(JIT_INLINE(hits_limit)));
	emit(a, MOV, jit_r(JR_R9, 8), jit_m(JR_R11, JR_NONE, 0, 0, 8));
	emit(a, MOV, jit_r(JR_R11, 8), contract(JIT_INLINE(hits_since_miss)));
	emit(a, ZYDIS_MNEMONIC_SUB, jit_r(JR_R9, 8), jit_m(JR_R11, JR_NONE, 0, 0, 8));
	size_t left = jit_jcc_forward(a, 3); /* jae */
	emit(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_R9, 4), jit_r(JR_R9, 4));
	jit_bind(a, left);
}

/* ... and a miss unless the `size` bits from bit eax (the page offset)
 * of the bitmap at r8 (the data) + dirty_offset are set. An access
 * within one cache entry has its bits in one bitmap byte, so in the
 * aligned 32-bit word holding bit eax, where they start at bit eax mod
 * 32: the count bt and shifts take. Clobbers rcx rdx. */
static void bytes_known(struct jit_asm *a, struct cache_hash *h, struct jit_misses *m,
			unsigned size)
{
	emit(a, MOV, jit_r(JR_RDX, 4), jit_r(JR_RAX, 4));
	if (size >= 8) { /* aligned: whole bitmap bytes */
		emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 4), jit_i(3));
		emit_bitmap(a, h, ZYDIS_MNEMONIC_CMP, bitmap_at(JR_R8, JR_RDX, 1, size / 8), jit_i(-1));
		miss_if(a, m, JIT_CC_NZ);
		return;
	}
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 4), jit_i(5));
	emit_bitmap(a, h, MOV, jit_r(JR_RDX, 4), bitmap_at(JR_R8, JR_RDX, 4, 4));
	if (size == 1) {
		emit(a, ZYDIS_MNEMONIC_BT, jit_r(JR_RDX, 4), jit_r(JR_RAX, 4));
		miss_if(a, m, 3); /* jnc */
		return;
	}
	emit(a, MOV, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
	emit(a, ZYDIS_MNEMONIC_NOT, jit_r(JR_RDX, 4), jit_none());
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 4), jit_r(JR_RCX, 1));
	emit(a, ZYDIS_MNEMONIC_TEST, jit_r(JR_RDX, 4), jit_i((1 << size) - 1));
	miss_if(a, m, JIT_CC_NZ);
}

/* A field of the page's entry (rax). */
#define PAGE_FIELD(field) jit_m(JR_RAX, JR_NONE, 0, (int64_t)offsetof(struct emu_inline_page, field), 8)

/* A page the mirror holds for reading (its read_tag is addr & ~4095) and
 * the bits `keep` of the address clear, else a miss. */
static void readable_page(struct jit_asm *a, struct jit_misses *m, unsigned keep)
{
	page_entry_to_rax(a, keep);
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 8), PAGE_FIELD(read_tag));
	miss_if(a, m, JIT_CC_NZ);
}

/* The same; then r8 = its data, rax = addr & 4095. */
static void readable_page_data(struct jit_asm *a, struct jit_misses *m, unsigned keep)
{
	readable_page(a, m, keep);
	emit(a, MOV, jit_r(JR_R8, 8), PAGE_FIELD(data));
	emit(a, MOV, jit_r(JR_RAX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(4095));
}

/* Ends where a hit goes on; the misses jump to the sites in *m. An
 * `aligned` sequence (the common one) misses on an address not aligned
 * to the size; the other, on the call's path, takes any address within
 * one cache entry. */
static void build_read(struct jit_asm *a, struct cache_hash *s, struct jit_misses *m,
		       unsigned size, bool checked, bool aligned)
{
	if (!aligned)
		within_entry(a, m, size);
	if (checked)
		below_hits_limit(a, m);
	/* The value: rax (and r11, 16 bytes' upper half) = the bytes at
	 * data + (addr & 4095); unchecked, at delta + addr, the page offset
	 * not needed. */
	int base = JR_R8, index = JR_RAX;
	if (checked) {
		readable_page_data(a, m, aligned ? size - 1 : 0);
		bytes_known(a, s, m, size);
	} else {
		readable_page(a, m, aligned ? size - 1 : 0);
		emit(a, MOV, jit_r(JR_R8, 8), PAGE_FIELD(delta));
		index = JR_RSI;
	}
	unsigned lane = size > 8 ? 8 : size;
	if (size == 16)
		emit(a, MOV, jit_r(JR_R11, 8), jit_m(base, index, 1, 8, 8));
	struct jit_opnd at = jit_m(base, index, 1, 0, lane);
	if (size < 4)
		emit(a, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), at);
	else
		emit(a, MOV, jit_r(JR_RAX, lane), at);
	/* The prediction: the entry's lanes equal the value's bytes (16:
	 * both entries, one request). */
	cache_entry_to_rdx_r8(a, s, 0);
	emit(a, ZYDIS_MNEMONIC_CMP, cache_lanes(lane), jit_r(JR_RAX, lane));
	if (size <= 8 && aligned && !checked)
		m->mispredicted = m->n + 1;
	miss_if(a, m, JIT_CC_NZ);
	if (size == 16) {
		cache_entry_to_rdx_r8(a, s, 8);
		emit(a, ZYDIS_MNEMONIC_CMP, cache_lanes(8), jit_r(JR_R11, 8));
		miss_if(a, m, JIT_CC_NZ);
	}
	count_hit(a, checked);
}

/* A page writable inline (its tag has the bit the view asks for: one no
 * tag has when writes always call, run.c; the memory keeps it off the
 * pages whose writes must call), else a miss; then r8 = its data, rax =
 * addr & 4095; the bits `keep` of the address as readable_page_data's. */
static void writable_page_data(struct jit_asm *a, struct jit_misses *m, unsigned keep)
{
	page_entry_to_rax(a, keep);
	emit(a, ZYDIS_MNEMONIC_OR, jit_r(JR_RDX, 8), contract(JIT_INLINE(write_tag_bit)));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 8), PAGE_FIELD(tag));
	miss_if(a, m, JIT_CC_NZ);
	emit(a, MOV, jit_r(JR_R8, 8), PAGE_FIELD(data));
	emit(a, MOV, jit_r(JR_RAX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(4095));
}

/*
 * Bits off .. off + size - 1 of the bitmap at r8 (the data) +
 * dirty_offset set, off (the page offset) in register `off`, which this
 * clobbers, as does rdx. An access within one cache entry has its bits
 * in one bitmap byte, so in the aligned 32-bit word holding bit off,
 * from bit off mod 32: (2^size - 1) << (rsi mod 32), made as bts makes
 * 1 << (rsi mod 32), times 2^size - 1 (no carry past the word), with no
 * shift count in cl (which holds the value being written).
 */
static void set_dirty_bits(struct jit_asm *a, struct cache_hash *h, int off, unsigned size)
{
	if (size == 8) { /* aligned: one whole bitmap byte */
		emit(a, ZYDIS_MNEMONIC_SHR, jit_r(off, 4), jit_i(3));
		emit_bitmap(a, h, MOV, bitmap_at(JR_R8, off, 1, 1), jit_i(-1));
		return;
	}
	emit(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_RDX, 4), jit_r(JR_RDX, 4));
	emit(a, ZYDIS_MNEMONIC_BTS, jit_r(JR_RDX, 4), jit_r(JR_RSI, 4));
	if (size > 1)
		jit_op3(a, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RDX, 4), jit_r(JR_RDX, 4),
			jit_i((1 << size) - 1));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(off, 4), jit_i(5));
	emit_bitmap(a, h, ZYDIS_MNEMONIC_OR, bitmap_at(JR_R8, off, 4, 4), jit_r(JR_RDX, 4));
}

/* The same for a write. */
static void build_write(struct jit_asm *a, struct cache_hash *s, struct jit_misses *m,
			unsigned size, bool aligned)
{
	if (!aligned)
		within_entry(a, m, size);
	writable_page_data(a, m, aligned ? size - 1 : 0);
	/* Done from here: the bytes, at data + off (off in eax), their
	 * dirty bits (set_dirty_bits), the cache's entry. */
	emit(a, MOV, jit_m(JR_R8, JR_RAX, 1, 0, size), jit_r(JR_RCX, size));
	set_dirty_bits(a, s, JR_RAX, size);
	cache_entry_to_rdx_r8(a, s, 0);
	emit(a, MOV, cache_lanes(size), jit_r(JR_RCX, size));
}

/*
 * A read that its instruction's write to the same bytes follows (an ALU
 * operation into memory): the page checked once for both, writable
 * inline, in a direct-mapped cache. The read leaves rax = the value, r8
 * = the page's data, r10 = the page offset and r11 = the bytes' first
 * lane in their cache entry; the write takes rax's low `size` bytes there.
 */
static void build_update_read(struct jit_asm *a, struct cache_hash *h, struct jit_misses *m,
			      unsigned size, bool checked)
{
	if (checked)
		below_hits_limit(a, m);
	writable_page_data(a, m, size - 1);
	if (checked)
		bytes_known(a, h, m, size);
	emit(a, MOV, jit_r(JR_R10, 4), jit_r(JR_RAX, 4));
	struct jit_opnd at = jit_m(JR_R8, JR_R10, 1, 0, size);
	if (size < 4)
		emit(a, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), at);
	else
		emit(a, MOV, jit_r(JR_RAX, size), at);
	emit(a, MOV, jit_r(JR_R11, 8), jit_r(JR_RSI, 8));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R11, 8), contract(JIT_INLINE(cache_direct_mask)));
	emit(a, ZYDIS_MNEMONIC_ADD, jit_r(JR_R11, 8), contract(JIT_INLINE(cache)));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_m(JR_R11, JR_NONE, 0, 0, size), jit_r(JR_RAX, size));
	miss_if(a, m, JIT_CC_NZ);
	count_hit(a, checked);
}

static void build_update_write(struct jit_asm *a, struct cache_hash *h, unsigned size)
{
	emit(a, MOV, jit_m(JR_R8, JR_R10, 1, 0, size), jit_r(JR_RAX, size));
	emit(a, MOV, jit_m(JR_R11, JR_NONE, 0, 0, size), jit_r(JR_RAX, size));
	set_dirty_bits(a, h, JR_R10, size);
}

/*
 * Runs of pushes and pops (jit_lower_stack_run.c): one check of the
 * run's page for all of its accesses. In a direct-mapped cache the
 * entries of consecutive lines are consecutive until the cache's end: in
 * one of a page or more, for any run within a page (the page lies whole
 * within one turn of the cache); in a smaller one, for a run whose first
 * entry is far enough from the end (checked). So the run's entries are
 * found from its first one's with a displacement.
 */
static bool stack_runs(const struct jit_xlate *x)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	return jit_inline_memory_usable(x->cpu) && ops->read_uint_sized[3] &&
	       x->cpu->mem_inline.cache_direct_mask;
}

bool jit_inline_push_runs(const struct jit_xlate *x)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	return stack_runs(x) && ops->write_uint && ops->write_uint_sized[3] &&
	       jit_inline_writes_miss_code(x);
}

bool jit_inline_pop_runs(const struct jit_xlate *x)
{
	return stack_runs(x);
}

/* A miss unless the `bytes` (a multiple of 8, at most a page) from rsi
 * lie in one page, aligned to 8; then eax = rsi & 4095. */
static void run_within_page(struct jit_asm *a, struct jit_misses *m, unsigned bytes)
{
	emit(a, MOV, jit_r(JR_RAX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(4095));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 4), jit_i(4096 - (int64_t)bytes));
	miss_if(a, m, 7); /* ja: across a page */
}

/* rdi = the host address of the run's first byte (r8 + rax, as
 * readable_page_data and writable_page_data leave them), r10 its
 * bitmap byte's, r11 its cache entry's; a miss when the run's entries
 * would pass the cache's end. */
static void run_addresses(struct jit_xlate *x, struct jit_misses *m, unsigned bytes)
{
	struct jit_asm *a = &x->a;
	uint64_t mask = x->cpu->mem_inline.cache_direct_mask;
	emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_RDI, 8), jit_m(JR_R8, JR_RAX, 1, 0, 8));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 4), jit_i(3));
	emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_R10, 8),
	     jit_m(JR_R8, JR_RAX, 1, (int64_t)x->cpu->mem_inline.dirty_offset, 8));
	emit(a, MOV, jit_r(JR_R11, 8), jit_r(JR_RSI, 8));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R11, 8), contract(JIT_INLINE(cache_direct_mask)));
	if (mask < 4095) {
		emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_R11, 8), jit_i((int64_t)(mask + 1 - bytes)));
		miss_if(a, m, 7); /* ja */
	}
	emit(a, ZYDIS_MNEMONIC_ADD, jit_r(JR_R11, 8), contract(JIT_INLINE(cache)));
}

/* A run of `bytes` lies in a page and in the cache. */
static bool run_fits(const struct jit_xlate *x, unsigned bytes)
{
	return bytes % 8 == 0 && bytes > 0 && bytes <= 4096 &&
	       bytes <= x->cpu->mem_inline.cache_direct_mask + 1;
}

bool jit_inline_push_run_page(struct jit_xlate *x, unsigned bytes, struct jit_misses *m)
{
	if (!jit_inline_push_runs(x) || !run_fits(x, bytes))
		return false;
	*m = (struct jit_misses){ 0 };
	run_within_page(&x->a, m, bytes);
	writable_page_data(&x->a, m, 7);
	run_addresses(x, m, bytes);
	return !x->a.failed;
}

void jit_inline_push_store(struct jit_xlate *x, int v, unsigned disp)
{
	struct jit_asm *a = &x->a;
	emit(a, MOV, jit_m(JR_RDI, JR_NONE, 0, disp, 8), jit_r(v, 8));
	emit(a, MOV, jit_m(JR_R10, JR_NONE, 0, disp / 8, 1), jit_i(-1));
	emit(a, MOV, jit_m(JR_R11, JR_NONE, 0, disp, 8), jit_r(v, 8));
}

/* Every read of the run a hit, or none made here: pops only read, so a
 * run checked whole, then loaded, changes nothing until it is known to
 * complete. The values' differences from their entries are ORed into
 * rcx and (checked) their known bits ANDed into dl, one test each at
 * the end. */
bool jit_inline_pop_run_check(struct jit_xlate *x, unsigned n, struct jit_misses *m)
{
	struct jit_asm *a = &x->a;
	bool checked = x->cpu->mem_inline.hits_limit != NULL;
	if (!jit_inline_pop_runs(x) || !run_fits(x, 8 * n) || n > 127)
		return false;
	*m = (struct jit_misses){ 0 };
	if (checked) { /* n hits left before the limit */
		emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_R9, 8), jit_i(n));
		miss_if(a, m, 2); /* jb */
	}
	run_within_page(a, m, 8 * n);
	readable_page_data(a, m, 7);
	run_addresses(x, m, 8 * n);
	emit(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_RCX, 4), jit_r(JR_RCX, 4));
	if (checked)
		emit(a, MOV, jit_r(JR_RDX, 4), jit_i(-1));
	for (unsigned k = 0; k < n; k++) {
		emit(a, MOV, jit_r(JR_RAX, 8), jit_m(JR_RDI, JR_NONE, 0, 8 * k, 8));
		emit(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_RAX, 8), jit_m(JR_R11, JR_NONE, 0, 8 * k, 8));
		emit(a, ZYDIS_MNEMONIC_OR, jit_r(JR_RCX, 8), jit_r(JR_RAX, 8));
		if (checked)
			emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RDX, 1), jit_m(JR_R10, JR_NONE, 0, k, 1));
	}
	emit(a, ZYDIS_MNEMONIC_TEST, jit_r(JR_RCX, 8), jit_r(JR_RCX, 8));
	miss_if(a, m, JIT_CC_NZ);
	if (checked) {
		emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 1), jit_i(-1));
		miss_if(a, m, JIT_CC_NZ);
	}
	emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_R9, 8),
	     jit_m(JR_R9, JR_NONE, 0, checked ? -(int64_t)n : (int64_t)n, 8));
	return !a->failed;
}

/*
 * 16 bytes at any address within one page (movdqu, movups, movupd): a
 * request of the memory as the handler's read or write of the buffer
 * is, whose bytes lie in lines L0 = addr >> 3, L0 + 1 and L0 + 2 (the
 * last not at all when addr is aligned to 8): lanes k = addr & 7 and up
 * of L0's entry, all of L0 + 1's, lanes below k of L0 + 2's. The three
 * entries are hashed one by one (two groups may hold them) and joined
 * by double shifts by 8k bits, which are no shift when k is 0.
 */

/* A miss unless the 16 bytes at rsi lie in one page; eax = their page
 * offset. */
static void within_page16(struct jit_asm *a, struct jit_misses *m)
{
	emit(a, MOV, jit_r(JR_RAX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(4095));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 4), jit_i(4096 - 16));
	miss_if(a, m, 7); /* ja */
}

/* rdx = the address of line (rsi + disp) >> 3's entry (clobbers r8). */
static void line_entry_to_rdx(struct jit_asm *a, struct cache_hash *s, int64_t disp)
{
	cache_entry_to_rdx_r8(a, s, disp);
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R8, 8), jit_i(-8));
	emit(a, ZYDIS_MNEMONIC_ADD, jit_r(JR_RDX, 8), jit_r(JR_R8, 8));
}

/* cl = 8 * (rsi & 7), the bit offset of the access in its first line. */
static void lane_bits_to_cl(struct jit_asm *a)
{
	emit(a, MOV, jit_r(JR_RCX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(7));
	emit(a, ZYDIS_MNEMONIC_SHL, jit_r(JR_RCX, 4), jit_i(3));
}

/* rdx = the 8 bytes from rsi's lane on, from the entries of lines
 * rsi >> 3 and the next (joined by a double shift), r10 = the next's
 * entry, cl as lane_bits_to_cl left it (clobbers r8). */
static void joined_lanes_to_rdx(struct jit_asm *a, struct cache_hash *s)
{
	lane_bits_to_cl(a);
	line_entry_to_rdx(a, s, 8);
	emit(a, MOV, jit_r(JR_R10, 8), jit_m(JR_RDX, JR_NONE, 0, 0, 8));
	line_entry_to_rdx(a, s, 0);
	emit(a, MOV, jit_r(JR_RDX, 8), jit_m(JR_RDX, JR_NONE, 0, 0, 8));
	jit_op3(a, ZYDIS_MNEMONIC_SHRD, jit_r(JR_RDX, 8), jit_r(JR_R10, 8), jit_r(JR_RCX, 1));
}

/* The bitmap's words (little-endian, 64 bits each) at r8 + dirty_offset
 * holding bits eax .. eax + n - 1: rdx = their base, r11 = the first
 * word's index, rcx = the last's (both within the page's 64 words). */
static void bitmap_words(struct jit_asm *a, struct cache_hash *h, unsigned n)
{
	emit_bitmap(a, h, ZYDIS_MNEMONIC_LEA, jit_r(JR_RDX, 8), bitmap_at(JR_R8, JR_NONE, 0, 8));
	emit(a, MOV, jit_r(JR_R11, 4), jit_r(JR_RAX, 4));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_R11, 4), jit_i(6));
	emit(a, ZYDIS_MNEMONIC_LEA, jit_r(JR_RCX, 8), jit_m(JR_RAX, JR_NONE, 0, (int64_t)n - 1, 8));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RCX, 4), jit_i(6));
}

/* A checked read's: a miss unless bits eax .. eax + n - 1 (n <= 16) are
 * all set (clobbers rcx rdx r10 r11). */
static void bytes_known_span(struct jit_asm *a, struct cache_hash *h, struct jit_misses *m,
			     unsigned n)
{
	bitmap_words(a, h, n);
	emit(a, MOV, jit_r(JR_R10, 8), jit_m(JR_RDX, JR_R11, 8, 0, 8));
	emit(a, MOV, jit_r(JR_R11, 8), jit_m(JR_RDX, JR_RCX, 8, 0, 8));
	emit(a, MOV, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4)); /* shifts take it mod 64 */
	jit_op3(a, ZYDIS_MNEMONIC_SHRD, jit_r(JR_R10, 8), jit_r(JR_R11, 8), jit_r(JR_RCX, 1));
	emit(a, ZYDIS_MNEMONIC_NOT, jit_r(JR_R10, 4), jit_none());
	emit(a, ZYDIS_MNEMONIC_TEST, jit_r(JR_R10, 4), jit_i((1 << n) - 1));
	miss_if(a, m, JIT_CC_NZ);
}

static void build_read16_any(struct jit_asm *a, struct cache_hash *s, struct jit_misses *m,
			     bool checked)
{
	within_page16(a, m);
	if (checked)
		below_hits_limit(a, m);
	readable_page_data(a, m, 0);
	if (checked)
		bytes_known_span(a, s, m, 16);
	/* The value: rax and r11. */
	emit(a, MOV, jit_r(JR_R11, 8), jit_m(JR_R8, JR_RAX, 1, 8, 8));
	emit(a, MOV, jit_r(JR_RAX, 8), jit_m(JR_R8, JR_RAX, 1, 0, 8));
	/* The prediction: the lanes of the three entries, joined, equal
	 * it (one request: one hit). */
	joined_lanes_to_rdx(a, s);
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
	miss_if(a, m, JIT_CC_NZ);
	line_entry_to_rdx(a, s, 16);
	emit(a, MOV, jit_r(JR_RDX, 8), jit_m(JR_RDX, JR_NONE, 0, 0, 8));
	jit_op3(a, ZYDIS_MNEMONIC_SHRD, jit_r(JR_R10, 8), jit_r(JR_RDX, 8), jit_r(JR_RCX, 1));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_R10, 8), jit_r(JR_R11, 8));
	miss_if(a, m, JIT_CC_NZ);
	count_hit(a, checked);
}

/*
 * An integer read of n (2, 4, 8) bytes that crosses from one 8-byte line
 * into the next within a page ((rsi & 7) + n > 8): lanes k = rsi & 7 and
 * up of L0's entry and the rest from L0 + 1's, joined by a double shift
 * as the 16-byte read does. Made only on the call path of the common
 * read, which misses on such an address first (within_entry). The value
 * into rax, zero-extended.
 */
static void build_read_crossing(struct jit_asm *a, struct cache_hash *s, struct jit_misses *m,
				unsigned size, bool checked)
{
	emit(a, MOV, jit_r(JR_RCX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(7));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RCX, 4), jit_i(8 - (int64_t)size));
	miss_if(a, m, 6); /* jbe: within one entry, missed for another reason */
	emit(a, MOV, jit_r(JR_RAX, 4), jit_r(JR_RSI, 4));
	emit(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(4095));
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 4), jit_i(4096 - (int64_t)size));
	miss_if(a, m, 7); /* ja: across a page */
	if (checked)
		below_hits_limit(a, m);
	readable_page_data(a, m, 0);
	if (checked)
		bytes_known_span(a, s, m, size);
	struct jit_opnd at = jit_m(JR_R8, JR_RAX, 1, 0, size);
	if (size < 4)
		emit(a, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), at);
	else
		emit(a, MOV, jit_r(JR_RAX, size), at);
	joined_lanes_to_rdx(a, s);
	emit(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, size), jit_r(JR_RAX, size));
	miss_if(a, m, JIT_CC_NZ);
	count_hit(a, checked);
}

/* The write of host xmm0's 16 bytes (clobbered). */
static void build_write16_any(struct jit_asm *a, struct cache_hash *s, struct jit_misses *m)
{
	within_page16(a, m);
	writable_page_data(a, m, 0);
	/* Done from here: the bytes, at data + off (off in eax). */
	emit(a, ZYDIS_MNEMONIC_MOVDQU, jit_m(JR_R8, JR_RAX, 1, 0, 16), jit_x(0));
	/* Their dirty bits: 0xffff shifted left by off as a 128-bit
	 * value, its halves ORed into the two words (the same word when
	 * the upper half is 0). */
	bitmap_words(a, s, 16);
	emit(a, MOV, jit_r(JR_R8, 8), jit_r(JR_RCX, 8));
	emit(a, MOV, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
	emit(a, MOV, jit_r(JR_RAX, 4), jit_i(0xffff));
	emit(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_R10, 4), jit_r(JR_R10, 4));
	jit_op3(a, ZYDIS_MNEMONIC_SHLD, jit_r(JR_R10, 8), jit_r(JR_RAX, 8), jit_r(JR_RCX, 1));
	emit(a, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 8), jit_r(JR_RCX, 1));
	emit(a, ZYDIS_MNEMONIC_OR, jit_m(JR_RDX, JR_R11, 8, 0, 8), jit_r(JR_RAX, 8));
	emit(a, ZYDIS_MNEMONIC_OR, jit_m(JR_RDX, JR_R8, 8, 0, 8), jit_r(JR_R10, 8));
	/* The cache's entries take them in their lanes: r10 the low
	 * half, r11 the high one. */
	emit(a, ZYDIS_MNEMONIC_MOVQ, jit_r(JR_R10, 8), jit_x(0));
	jit_op3(a, ZYDIS_MNEMONIC_PSHUFD, jit_x(0), jit_x(0), jit_i(0xee));
	emit(a, ZYDIS_MNEMONIC_MOVQ, jit_r(JR_R11, 8), jit_x(0));
	lane_bits_to_cl(a);
	/* L0 + 1: all its lanes, the bytes 8 - k .. 15 - k. */
	line_entry_to_rdx(a, s, 8);
	emit(a, MOV, jit_r(JR_RAX, 8), jit_r(JR_R11, 8));
	jit_op3(a, ZYDIS_MNEMONIC_SHLD, jit_r(JR_RAX, 8), jit_r(JR_R10, 8), jit_r(JR_RCX, 1));
	emit(a, MOV, jit_m(JR_RDX, JR_NONE, 0, 0, 8), jit_r(JR_RAX, 8));
	/* L0: its lanes below k kept (rotated to the top, shifted back in
	 * below the value's first bytes). */
	line_entry_to_rdx(a, s, 0);
	emit(a, MOV, jit_r(JR_RAX, 8), jit_m(JR_RDX, JR_NONE, 0, 0, 8));
	emit(a, ZYDIS_MNEMONIC_ROR, jit_r(JR_RAX, 8), jit_r(JR_RCX, 1));
	jit_op3(a, ZYDIS_MNEMONIC_SHLD, jit_r(JR_R10, 8), jit_r(JR_RAX, 8), jit_r(JR_RCX, 1));
	emit(a, MOV, jit_m(JR_RDX, JR_NONE, 0, 0, 8), jit_r(JR_R10, 8));
	/* L0 + 2: its lanes from k kept, the value's last k bytes below. */
	line_entry_to_rdx(a, s, 16);
	emit(a, MOV, jit_r(JR_RAX, 8), jit_m(JR_RDX, JR_NONE, 0, 0, 8));
	emit(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_r(JR_RCX, 1));
	jit_op3(a, ZYDIS_MNEMONIC_SHLD, jit_r(JR_RAX, 8), jit_r(JR_R11, 8), jit_r(JR_RCX, 1));
	emit(a, MOV, jit_m(JR_RDX, JR_NONE, 0, 0, 8), jit_r(JR_RAX, 8));
}

/*
 * Each sequence depends only on its kind and size (registers and offsets
 * are fixed), so it is encoded once and copied into every translation:
 * a translation costs no more encoder work than it did with calls. The
 * jumps inside are relative, so the bytes work at any address.
 */
#define TEMPLATE_MAX 384
struct inline_template {
	uint8_t code[TEMPLATE_MAX];
	size_t len;
	struct jit_misses misses; /* from the sequence's start */
	struct cache_hash hash;
	bool ok;
};
/* [hash: multiplied, direct][kind: read, write, checked read][size
 * index: 1, 2, 4, 8 bytes, and 16 for reads] */
enum { READ, WRITE, CHECKED_READ, UPDATE_READ, CHECKED_UPDATE_READ, UPDATE_WRITE, KINDS };
static struct inline_template templates[2][KINDS][5];
/* [hash][kind]: 16 bytes at any address within a page */
static struct inline_template templates16_any[2][3];
/* [hash][read, checked read][size index: 2, 4, 8 bytes]: reads
 * crossing two lines of one page */
static struct inline_template templates_crossing[2][2][3];
/* [hash][kind][size index: 2, 4 bytes]: accesses within one line at an
 * address not aligned to their size */
static struct inline_template templates_misaligned[2][3][2];
static pthread_once_t templates_once = PTHREAD_ONCE_INIT;

static void build_template(struct inline_template *t, bool direct, unsigned kind, unsigned size)
{
	struct jit_asm a = { .buf = t->code, .cap = sizeof(t->code) };
	t->hash.direct = direct;
	bool aligned = !(size & JIT_INLINE_MISALIGNED);
	size &= ~JIT_INLINE_MISALIGNED;
	if (kind == UPDATE_READ || kind == CHECKED_UPDATE_READ)
		build_update_read(&a, &t->hash, &t->misses, size, kind == CHECKED_UPDATE_READ);
	else if (kind == UPDATE_WRITE)
		build_update_write(&a, &t->hash, size);
	else if (size & JIT_INLINE_CROSSING)
		build_read_crossing(&a, &t->hash, &t->misses, size & ~JIT_INLINE_CROSSING,
				    kind == CHECKED_READ);
	else if (size == JIT_INLINE_16_ANY && kind == WRITE)
		build_write16_any(&a, &t->hash, &t->misses);
	else if (size == JIT_INLINE_16_ANY)
		build_read16_any(&a, &t->hash, &t->misses, kind == CHECKED_READ);
	else if (kind == WRITE)
		build_write(&a, &t->hash, &t->misses, size, aligned);
	else
		build_read(&a, &t->hash, &t->misses, size, kind == CHECKED_READ, aligned);
	t->len = a.pos;
	t->ok = !a.failed;
}

static void build_templates(void)
{
	for (unsigned h = 0; h < 2; h++)
		for (unsigned k = READ; k <= CHECKED_READ; k++) {
			for (unsigned i = 0; i < (k == WRITE ? 4u : 5u); i++)
				build_template(&templates[h][k][i], h, k, 1u << i);
			build_template(&templates16_any[h][k], h, k, JIT_INLINE_16_ANY);
		}
	for (unsigned k = UPDATE_READ; k < KINDS; k++) /* direct-mapped caches only */
		for (unsigned i = 0; i < 4; i++)
			build_template(&templates[1][k][i], true, k, 1u << i);
	for (unsigned h = 0; h < 2; h++)
		for (unsigned i = 0; i < 3; i++) {
			unsigned size = (2u << i) | JIT_INLINE_CROSSING;
			build_template(&templates_crossing[h][0][i], h, READ, size);
			build_template(&templates_crossing[h][1][i], h, CHECKED_READ, size);
		}
	for (unsigned h = 0; h < 2; h++)
		for (unsigned k = READ; k <= CHECKED_READ; k++)
			for (unsigned i = 0; i < 2; i++)
				build_template(&templates_misaligned[h][k][i], h, k,
					       (2u << i) | JIT_INLINE_MISALIGNED);
}

/* size: 1, 2, 4, 8, 16 (aligned to 16), JIT_INLINE_16_ANY, 2, 4, 8
 * | JIT_INLINE_CROSSING (a read), or 2, 4 | JIT_INLINE_MISALIGNED. */
static void copy_template(struct jit_asm *a, const struct emu_inline_view *view, unsigned kind,
			  unsigned size, struct jit_misses *misses)
{
	misses->n = 0;
	misses->mispredicted = 0;
	pthread_once(&templates_once, build_templates);
	unsigned h = view->cache_direct_mask != 0;
	unsigned n = size & ~(JIT_INLINE_CROSSING | JIT_INLINE_MISALIGNED);
	unsigned i = n == 1 ? 0 : n == 2 ? 1 : n == 4 ? 2 : n == 8 ? 3 : 4;
	const struct inline_template *t =
		size & JIT_INLINE_CROSSING ? &templates_crossing[h][kind == CHECKED_READ][i - 1]
		: size & JIT_INLINE_MISALIGNED ? &templates_misaligned[h][kind][i - 1]
		: size == JIT_INLINE_16_ANY ? &templates16_any[h][kind]
					    : &templates[h][kind][i];
	if (!t->ok || !jit_inline_bitmap_reachable(view)) {
		a->failed = true;
		return;
	}
	size_t at = a->pos;
	jit_bytes(a, t->code, t->len);
	if (a->failed)
		return;
	/* shr by more than 63 would take the count mod 64, as shr by cl
	 * does: the same hash either way. */
	for (unsigned k = 0; k < t->hash.n; k++)
		a->buf[at + t->hash.at[k]] = (uint8_t)(view->cache_shift & 63);
	int32_t bitmap = (int32_t)view->dirty_offset;
	for (unsigned k = 0; k < t->hash.bitmap_n; k++)
		memcpy(a->buf + at + t->hash.bitmap_at[k], &bitmap, 4); /* little-endian */
	for (unsigned k = 0; k < t->misses.n; k++)
		misses->site[k] = at + t->misses.site[k];
	misses->n = t->misses.n;
	misses->mispredicted = t->misses.mispredicted;
}

/* A hit jumps over what comes next; the misses go on to it. */
static size_t hit_jumps_over(struct jit_asm *a, const struct jit_misses *m)
{
	size_t hit = jit_jmp_forward(a);
	for (unsigned i = 0; i < m->n; i++)
		jit_bind(a, m->site[i]);
	return hit;
}

void jit_inline_read_misses(struct jit_xlate *x, unsigned size, struct jit_misses *m)
{
	const struct emu_inline_view *v = &x->cpu->mem_inline;
	copy_template(&x->a, v, v->hits_limit ? CHECKED_READ : READ, size, m);
}

bool jit_inline_read_crossing_misses(struct jit_xlate *x, unsigned size, struct jit_misses *m)
{
	const struct emu_inline_view *v = &x->cpu->mem_inline;
	if (size != 2 && size != 4 && size != 8)
		return false;
	copy_template(&x->a, v, v->hits_limit ? CHECKED_READ : READ, size | JIT_INLINE_CROSSING, m);
	return true;
}

bool jit_inline_misaligned_misses(struct jit_xlate *x, bool write, unsigned size,
				  struct jit_misses *m)
{
	const struct emu_inline_view *v = &x->cpu->mem_inline;
	if (size != 2 && size != 4)
		return false;
	copy_template(&x->a, v, write ? WRITE : v->hits_limit ? CHECKED_READ : READ,
		      size | JIT_INLINE_MISALIGNED, m);
	return true;
}

void jit_inline_write_misses(struct jit_xlate *x, unsigned size, struct jit_misses *m)
{
	copy_template(&x->a, &x->cpu->mem_inline, WRITE, size, m);
}

size_t jit_inline_read(struct jit_xlate *x, unsigned size)
{
	struct jit_misses m;
	jit_inline_read_misses(x, size, &m);
	return hit_jumps_over(&x->a, &m);
}

size_t jit_inline_write(struct jit_xlate *x, unsigned size)
{
	struct jit_misses m;
	jit_inline_write_misses(x, size, &m);
	return hit_jumps_over(&x->a, &m);
}

bool jit_inline_updates(const struct jit_xlate *x, unsigned size)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	unsigned i = size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : size == 8 ? 3 : 4;
	return i < 4 && jit_inline_memory_usable(x->cpu) && ops->read_uint_sized[i] &&
	       ops->write_uint && ops->write_uint_sized[i] && jit_inline_writes_miss_code(x) &&
	       x->cpu->mem_inline.cache_direct_mask;
}

void jit_inline_update_read(struct jit_xlate *x, unsigned size, struct jit_misses *m)
{
	const struct emu_inline_view *v = &x->cpu->mem_inline;
	copy_template(&x->a, v, v->hits_limit ? CHECKED_UPDATE_READ : UPDATE_READ, size, m);
}

void jit_inline_update_write(struct jit_xlate *x, unsigned size)
{
	struct jit_misses none;
	copy_template(&x->a, &x->cpu->mem_inline, UPDATE_WRITE, size, &none);
}
