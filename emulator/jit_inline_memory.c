/*
 * jit_inline_memory.c — the common read as host code, for memories that
 * describe it (struct emu_inline_memory, emu.h): the page looked up in the
 * memory's table, the value loaded, checked against its prediction cache,
 * the hit counted, with no call. Every other case falls through to the
 * call the translation makes without it (jit_lower.c), which starts the
 * read over: nothing here writes anything before the read is known to be
 * a hit.
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

/* A hit of `size` bytes at rsi leaves the value zero-extended in rax and
 * jumps to the returned patch site; anything else goes on after the code
 * emitted here with rsi unchanged. Clobbers rax rcx rdx rdi r8. */
size_t jit_inline_read(struct jit_xlate *x, unsigned size)
{
	struct misses m = { .n = 0 };
	if (size > 1) {
		/* Within one cache entry, so within one page. */
		emit(x, MOV, jit_r(JR_RCX, 4), jit_r(JR_RSI, 4));
		emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(7));
		emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RCX, 4), jit_i(8 - (int64_t)size));
		miss_if(x, &m, 7); /* ja */
	}
	emit(x, MOV, jit_r(JR_RDI, 8), jit_cpu_field(JIT_MEM_INLINE, 8));
	/* The page's entry: rax = pages + 16 * ((addr >> 12) & page_mask). */
	emit(x, MOV, jit_r(JR_RAX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_i(12));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 8), contract(JIT_INLINE(page_mask)));
	emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 8), jit_i(4));
	emit(x, ZYDIS_MNEMONIC_ADD, jit_r(JR_RAX, 8), contract(JIT_INLINE(pages)));
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
	/* The cache's entry: rdx = cache[((addr >> 3) * multiplier) >> shift]. */
	emit(x, MOV, jit_r(JR_RDX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_i(3));
	emit(x, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RDX, 8), contract(JIT_INLINE(cache_multiplier)));
	emit(x, MOV, jit_r(JR_RCX, 8), contract(JIT_INLINE(cache_shift)));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_r(JR_RCX, 1));
	emit(x, MOV, jit_r(JR_R8, 8), contract(JIT_INLINE(cache)));
	emit(x, MOV, jit_r(JR_RDX, 8), jit_m(JR_R8, JR_RDX, 8, 0, 8));
	if (size < 8) { /* an 8-byte read is a whole entry */
		emit(x, MOV, jit_r(JR_RCX, 4), jit_r(JR_RSI, 4));
		emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(7));
		emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RCX, 4), jit_i(3));
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
	size_t hit = jit_jmp_forward(&x->a);
	for (unsigned i = 0; i < m.n; i++)
		jit_bind(&x->a, m.site[i]);
	return hit;
}
