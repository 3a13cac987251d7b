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
#include <Zydis/Zydis.h>

#include "jit_xlate.h"

#define MOV ZYDIS_MNEMONIC_MOV

static void emit(struct jit_xlate *x, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(&x->a, mn, a, b);
}

/* A field of the contract, whose address is in rdi. */
static struct jit_opnd contract(int64_t off)
{
	return jit_m(JR_RDI, JR_NONE, 0, off, 8);
}

/* The low `size` bytes of reg, zero-extended into reg. */
static void zero_extend(struct jit_xlate *x, int reg, unsigned size)
{
	if (size < 4)
		emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(reg, 4), jit_r(reg, size));
	else if (size == 4)
		emit(x, MOV, jit_r(reg, 4), jit_r(reg, 4));
}

/* The misses: where they jump to, bound together at the end. */
struct misses {
	size_t site[4];
	unsigned n;
};

static void miss_if(struct jit_xlate *x, struct misses *m, unsigned cc)
{
	m->site[m->n++] = jit_jcc_forward(&x->a, cc);
}

/* Misses unless (rsi & 7) + size <= 8: one cache entry, so one page.
 * Clobbers `scratch`. */
static void within_entry(struct jit_xlate *x, struct misses *m, unsigned size, int scratch)
{
	if (size == 1)
		return;
	emit(x, MOV, jit_r(scratch, 4), jit_r(JR_RSI, 4));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(scratch, 4), jit_i(7));
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(scratch, 4), jit_i(8 - (int64_t)size));
	miss_if(x, m, 7); /* ja */
}

/* rax = the page table's entry for rsi: pages + 16 * ((rsi >> 12) & page_mask). */
static void page_entry_to_rax(struct jit_xlate *x)
{
	emit(x, MOV, jit_r(JR_RAX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_i(12));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 8), contract(JIT_INLINE(page_mask)));
	emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 8), jit_i(4));
	emit(x, ZYDIS_MNEMONIC_ADD, jit_r(JR_RAX, 8), contract(JIT_INLINE(pages)));
}

/* r8 = the address of the cache's entry for rsi:
 * cache + 8 * (((rsi >> 3) * multiplier) >> shift). Clobbers rcx rdx. */
static void cache_entry_to_r8(struct jit_xlate *x)
{
	emit(x, MOV, jit_r(JR_RDX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_i(3));
	emit(x, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RDX, 8), contract(JIT_INLINE(cache_multiplier)));
	emit(x, MOV, jit_r(JR_RCX, 8), contract(JIT_INLINE(cache_shift)));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_r(JR_RCX, 1));
	emit(x, MOV, jit_r(JR_R8, 8), contract(JIT_INLINE(cache)));
	emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_R8, 8), jit_m(JR_R8, JR_RDX, 8, 0, 8));
}

/* cl = the bit offset of rsi's lane in its entry: 8 * (rsi & 7). */
static void lane_shift_to_cl(struct jit_xlate *x)
{
	emit(x, MOV, jit_r(JR_RCX, 4), jit_r(JR_RSI, 4));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(7));
	emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RCX, 4), jit_i(3));
}

/* Binds the misses here and returns the hit's jump to be bound. */
static size_t end_hit(struct jit_xlate *x, struct misses *m)
{
	size_t hit = jit_jmp_forward(&x->a);
	for (unsigned i = 0; i < m->n; i++)
		jit_bind(&x->a, m->site[i]);
	return hit;
}

size_t jit_inline_read(struct jit_xlate *x, unsigned size)
{
	struct misses m = { .n = 0 };
	within_entry(x, &m, size, JR_RCX);
	emit(x, MOV, jit_r(JR_RDI, 8), jit_cpu_field(JIT_MEM_INLINE, 8));
	page_entry_to_rax(x);
	emit(x, MOV, jit_r(JR_RDX, 8), jit_m(JR_RAX, JR_NONE, 0, 0, 8));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RDX, 8), jit_i(~(int64_t)EMU_INLINE_PAGE_WRITABLE));
	emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 8), jit_i(-4096));
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 8), jit_r(JR_RCX, 8));
	miss_if(x, &m, JIT_CC_NZ);
	/* The value: rax = the bytes at data + (addr & 4095). */
	emit(x, MOV, jit_r(JR_R8, 8), jit_m(JR_RAX, JR_NONE, 0, 8, 8));
	emit(x, MOV, jit_r(JR_RCX, 4), jit_r(JR_RSI, 4));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(4095));
	struct jit_opnd at = jit_m(JR_R8, JR_RCX, 1, 0, size);
	if (size < 4)
		emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), at);
	else
		emit(x, MOV, jit_r(JR_RAX, size), at);
	/* The prediction: rdx = the entry's lanes from addr & 7. */
	cache_entry_to_r8(x);
	emit(x, MOV, jit_r(JR_RDX, 8), jit_m(JR_R8, JR_NONE, 0, 0, 8));
	if (size < 8) { /* an 8-byte read is a whole entry */
		lane_shift_to_cl(x);
		emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_r(JR_RCX, 1));
		zero_extend(x, JR_RDX, size);
	}
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
	miss_if(x, &m, JIT_CC_NZ);
	/* A hit: counted. */
	emit(x, MOV, jit_r(JR_RDX, 8), contract(JIT_INLINE(hits)));
	emit(x, ZYDIS_MNEMONIC_ADD, jit_m(JR_RDX, JR_NONE, 0, 0, 8), jit_i(1));
	emit(x, MOV, jit_r(JR_RDX, 8), contract(JIT_INLINE(hits_since_miss)));
	emit(x, ZYDIS_MNEMONIC_ADD, jit_m(JR_RDX, JR_NONE, 0, 0, 8), jit_i(1));
	return end_hit(x, &m);
}

size_t jit_inline_write(struct jit_xlate *x, unsigned size)
{
	struct misses m = { .n = 0 };
	within_entry(x, &m, size, JR_RAX);
	emit(x, MOV, jit_r(JR_RDI, 8), jit_cpu_field(JIT_MEM_INLINE, 8));
	/* Not watched: bit ((addr >> 12) & watched_mask) of `watched` clear. */
	emit(x, MOV, jit_r(JR_R8, 8), contract(JIT_INLINE(watched)));
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_R8, 8), jit_r(JR_R8, 8));
	miss_if(x, &m, JIT_CC_Z);
	emit(x, MOV, jit_r(JR_RAX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_i(12));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 8), contract(JIT_INLINE(watched_mask)));
	emit(x, MOV, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_i(6));
	emit(x, MOV, jit_r(JR_RDX, 8), jit_m(JR_R8, JR_RDX, 8, 0, 8));
	emit(x, ZYDIS_MNEMONIC_BT, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8)); /* bit rax % 64 */
	miss_if(x, &m, 2); /* jc */
	/* The page, writable inline. */
	page_entry_to_rax(x);
	emit(x, MOV, jit_r(JR_RDX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RDX, 8), jit_i(-4096));
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RDX, 8), jit_i(EMU_INLINE_PAGE_WRITABLE));
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 8), jit_m(JR_RAX, JR_NONE, 0, 0, 8));
	miss_if(x, &m, JIT_CC_NZ);
	/* Done from here: the bytes, at data + off (off in eax). */
	emit(x, MOV, jit_r(JR_R8, 8), jit_m(JR_RAX, JR_NONE, 0, 8, 8));
	emit(x, MOV, jit_r(JR_RAX, 4), jit_r(JR_RSI, 4));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(4095));
	emit(x, MOV, jit_m(JR_R8, JR_RAX, 1, 0, size), jit_r(JR_RCX, size));
	emit(x, MOV, jit_r(JR_R11, 8), jit_r(JR_RCX, 8));
	/* Their dirty bits: all in the byte off / 8 of the bitmap. */
	emit(x, MOV, jit_r(JR_RDX, 8), contract(JIT_INLINE(dirty_offset)));
	emit(x, ZYDIS_MNEMONIC_ADD, jit_r(JR_RDX, 8), jit_r(JR_R8, 8));
	emit(x, MOV, jit_r(JR_R10, 4), jit_r(JR_RAX, 4));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_R10, 4), jit_i(3));
	struct jit_opnd dirty = jit_m(JR_RDX, JR_R10, 1, 0, 1);
	if (size == 8) {
		emit(x, ZYDIS_MNEMONIC_MOV, dirty, jit_i(-1));
	} else {
		emit(x, MOV, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
		emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(7));
		emit(x, MOV, jit_r(JR_RAX, 4), jit_i((1 << size) - 1));
		emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 4), jit_r(JR_RCX, 1));
		emit(x, ZYDIS_MNEMONIC_OR, dirty, jit_r(JR_RAX, 1));
	}
	/* The cache's entry takes them in their lanes. */
	cache_entry_to_r8(x);
	struct jit_opnd entry = jit_m(JR_R8, JR_NONE, 0, 0, 8);
	if (size == 8) {
		emit(x, MOV, entry, jit_r(JR_R11, 8));
	} else {
		zero_extend(x, JR_R11, size);
		lane_shift_to_cl(x);
		jit_mov_imm(&x->a, JR_RAX, ~0ull >> (64 - 8 * size));
		emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 8), jit_r(JR_RCX, 1));
		emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_R11, 8), jit_r(JR_RCX, 1));
		emit(x, ZYDIS_MNEMONIC_NOT, jit_r(JR_RAX, 8), jit_none());
		emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 8), entry);
		emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RAX, 8), jit_r(JR_R11, 8));
		emit(x, MOV, entry, jit_r(JR_RAX, 8));
	}
	return end_hit(x, &m);
}
