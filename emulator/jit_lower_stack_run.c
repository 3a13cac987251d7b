/*
 * jit_lower_stack_run.c — consecutive pushes of registers (a function's
 * prologue) or pops of them (its epilogue, with the ret that ends it) as
 * one run: their page found
 * and checked once for all of their accesses, where each alone checks
 * its own (about two thirds of its host instructions). When that check
 * misses (the run crosses a page, its page is not in the memory's table
 * or not writable inline; for pops, a value the cache does not predict,
 * bytes not known, too few hits left), each is made as it is alone.
 */
#include "jit_xlate.h"

/* Longest run made as one: its bytes lie in one page far more often
 * than not. */
#define STACK_RUN_MAX 16

/* A push or pop (mn) of a whole register other than rsp. */
static bool moves_register(const struct emu_insn *insn, ZydisMnemonic mn)
{
	return insn->mnemonic == mn && insn->nopnd == 1 && insn->opsize == 8 &&
	       insn->opnd[0].kind == EMU_OPND_GPR && insn->opnd[0].size == 8 &&
	       insn->opnd[0].reg % 8 == 0 && insn->opnd[0].reg / 8 != EMU_RSP;
}

/* How many lowered pushes or pops (mn) from instruction i, at most max. */
static unsigned run_length(const struct jit_xlate *x, const bool *lowered, unsigned i,
			   ZydisMnemonic mn, unsigned max)
{
	const struct emu_block *b = x->b;
	unsigned n = 0;
	while (i + n < b->count && n < max && lowered[i + n] && moves_register(&b->insns[i + n], mn))
		n++;
	return n;
}

/* A plain ret, lowered, at instruction i. */
static bool returns(const struct jit_xlate *x, const bool *lowered, unsigned i)
{
	const struct emu_block *b = x->b;
	return i < b->count && lowered[i] && b->insns[i].mnemonic == ZYDIS_MNEMONIC_RET &&
	       b->insns[i].nopnd == 0;
}

unsigned jit_push_run(const struct jit_xlate *x, const bool *lowered, unsigned i)
{
	unsigned n = jit_inline_push_runs(x) ? run_length(x, lowered, i, ZYDIS_MNEMONIC_PUSH,
							  STACK_RUN_MAX) : 0;
	return n >= 2 ? n : 0;
}

unsigned jit_pop_run(const struct jit_xlate *x, const bool *lowered, unsigned i)
{
	if (!jit_inline_pop_runs(x))
		return 0;
	unsigned n = run_length(x, lowered, i, ZYDIS_MNEMONIC_POP, STACK_RUN_MAX - 1);
	n += returns(x, lowered, i + n);
	return n >= 2 ? n : 0;
}

/* rsp moved by `by` bytes. */
static void move_rsp(struct jit_xlate *x, int64_t by)
{
	int sp = jit_guest_in(x, EMU_RSP, JR_RAX);
	jit_op(&x->a, ZYDIS_MNEMONIC_LEA, jit_r(sp, 8), jit_m(sp, JR_NONE, 0, by, 8));
	jit_guest_out(x, EMU_RSP, 8, sp);
}

/* The run's end once its inline part is made: a jump over the
 * instructions i .. i + n - 1 made one by one, where the misses go. */
static void alone_on_miss(struct jit_xlate *x, const bool *lowered, unsigned i, unsigned n,
			  const struct jit_misses *m, uint16_t dirty_before)
{
	uint16_t dirty_after = x->dirty;
	size_t done = jit_jmp_forward(&x->a);
	for (unsigned k = 0; k < m->n; k++)
		jit_bind(&x->a, m->site[k]);
	x->dirty = dirty_before;
	for (unsigned k = 0; k < n; k++)
		jit_lower_at(x, lowered, i + k);
	x->dirty |= dirty_after; /* (both ways write the same registers) */
	jit_bind(&x->a, done);
	x->flags_live = false;
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
	move_rsp(x, -8 * (int64_t)n);
	alone_on_miss(x, lowered, i, n, &m, dirty);
}

void jit_lower_pop_run(struct jit_xlate *x, const bool *lowered, unsigned i, unsigned n)
{
	const struct emu_block *b = x->b;
	uint16_t dirty = x->dirty;
	bool ret = returns(x, lowered, i + n - 1);
	x->cur = i;
	int sp = jit_guest_in(x, EMU_RSP, JR_RSI);
	if (sp != JR_RSI)
		jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RSI, 8), jit_r(sp, 8));
	struct jit_misses m;
	if (!jit_inline_pop_run_check(x, n, &m)) {
		x->a.failed = true; /* (jit_pop_run said it would) */
		return;
	}
	/* Checked whole: the registers take their values in order (a
	 * register popped twice keeps the last). */
	for (unsigned k = 0; k < n - ret; k++) {
		unsigned g = b->insns[i + k].opnd[0].reg / 8u;
		struct jit_opnd value = jit_m(JR_RDI, JR_NONE, 0, 8 * (int64_t)k, 8);
		if (x->host[g] >= 0) {
			jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_r(x->host[g], 8), value);
			x->dirty |= (uint16_t)(1u << g);
		} else {
			jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 8), value);
			jit_guest_out(x, g, 8, JR_RAX);
		}
	}
	move_rsp(x, 8 * (int64_t)n);
	if (ret) { /* rip and rax the return address, as the ret's lowering leaves them */
		x->cur = i + n - 1;
		jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 8),
		       jit_m(JR_RDI, JR_NONE, 0, 8 * (int64_t)(n - 1), 8));
		jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_RIP, 8), jit_r(JR_RAX, 8));
	}
	alone_on_miss(x, lowered, i, n, &m, dirty);
}
