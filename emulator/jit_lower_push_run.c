/*
 * jit_lower_push_run.c — consecutive pushes of registers (a function's
 * prologue) as one run: their page found and checked once for all of
 * their stores, where each push alone checks its own (about two thirds
 * of its host instructions). When that check misses (the run crosses a
 * page, its page is not in the memory's table or not writable inline),
 * each push is made as it is alone.
 */
#include "jit_xlate.h"

/* Longest run made as one: its bytes lie in one page far more often
 * than not. */
#define PUSH_RUN_MAX 16

static bool pushes_register(const struct emu_insn *insn)
{
	return insn->mnemonic == ZYDIS_MNEMONIC_PUSH && insn->nopnd == 1 && insn->opsize == 8 &&
	       insn->opnd[0].kind == EMU_OPND_GPR && insn->opnd[0].size == 8 &&
	       insn->opnd[0].reg % 8 == 0 && insn->opnd[0].reg / 8 != EMU_RSP;
}

unsigned jit_push_run(const struct jit_xlate *x, const bool *lowered, unsigned i)
{
	const struct emu_block *b = x->b;
	unsigned n = 0;
	if (!jit_inline_push_runs(x))
		return 0;
	while (i + n < b->count && n < PUSH_RUN_MAX && lowered[i + n] &&
	       pushes_register(&b->insns[i + n]))
		n++;
	return n >= 2 ? n : 0;
}

void jit_lower_push_run(struct jit_xlate *x, const bool *lowered, unsigned i, unsigned n)
{
	const struct emu_block *b = x->b;
	uint16_t dirty = x->dirty;
	x->cur = i;
	/* rsi = the lowest of the run's bytes: the last push's */
	int sp = jit_guest_in(x, EMU_RSP, JR_RSI);
	jit_op(&x->a, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8), jit_m(sp, JR_NONE, 0, -8 * (int64_t)n, 8));
	struct jit_misses m;
	if (!jit_inline_push_run_page(x, 8 * n, &m)) {
		x->a.failed = true; /* (jit_push_run said it would) */
		return;
	}
	for (unsigned k = 0; k < n; k++) {
		const struct emu_insn *insn = &b->insns[i + k];
		int v = jit_guest_in(x, insn->opnd[0].reg / 8u, JR_RCX);
		jit_inline_push_store(x, v, 8 * (n - 1 - k));
	}
	sp = jit_guest_in(x, EMU_RSP, JR_RAX);
	jit_op(&x->a, ZYDIS_MNEMONIC_LEA, jit_r(sp, 8), jit_m(sp, JR_NONE, 0, -8 * (int64_t)n, 8));
	jit_guest_out(x, EMU_RSP, 8, sp);
	uint16_t dirty_after = x->dirty;
	size_t done = jit_jmp_forward(&x->a);
	for (unsigned k = 0; k < m.n; k++)
		jit_bind(&x->a, m.site[k]);
	x->dirty = dirty;
	for (unsigned k = 0; k < n; k++)
		jit_lower_at(x, lowered, i + k);
	x->dirty |= dirty_after; /* (both ways leave rsp the same) */
	jit_bind(&x->a, done);
	x->flags_live = false;
}
