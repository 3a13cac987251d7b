/*
 * jit_lower_stack_run.c — consecutive pushes of registers (a function's
 * prologue, with the register moves compilers put between them) or pops
 * of them (its epilogue, with the ret that ends it) as one run: their
 * page found and checked once for all of their accesses, where each
 * alone checks its own (about two thirds of its host instructions). When
 * that check misses (the run crosses a page, its page is not in the
 * memory's table or not writable inline; for pops, a value the cache
 * does not predict, bytes not known, too few hits left), each
 * instruction is made as it is alone, in order.
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

/*
 * An instruction a run's pushes may all be made before: a lowered move
 * from a register, an immediate or an address (lea) into a register,
 * neither of them rsp. It cannot fault, reads no memory and leaves the
 * flags and rsp alone, so made after the pushes it ends as it would
 * between them, unless a push after it pushes the register it writes
 * (push_run_span leaves such a push out).
 */
static bool moves_between_registers(const struct emu_insn *insn)
{
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_MOV:
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
	case ZYDIS_MNEMONIC_LEA:
		break;
	default:
		return false;
	}
	if (insn->nopnd != 2 || insn->opnd[0].kind != EMU_OPND_GPR ||
	    insn->opnd[0].reg / 8u == EMU_RSP)
		return false;
	const struct emu_operand *from = &insn->opnd[1];
	switch (from->kind) {
	case EMU_OPND_GPR:
		return from->reg / 8u != EMU_RSP;
	case EMU_OPND_IMM:
		return true;
	case EMU_OPND_AGEN:
		return insn->mem.base != EMU_RSP && insn->mem.index != EMU_RSP;
	default:
		return false;
	}
}

/* Instruction j of the block is a lowered push of a register. */
static bool lowered_push(const struct jit_xlate *x, const bool *lowered, unsigned j)
{
	return lowered[j] && moves_register(&x->b->insns[j], ZYDIS_MNEMONIC_PUSH);
}

/* The instructions from i (a push) that a push run takes, ending with
 * a push, before `limit`: pushes and moves between them
 * (moves_between_registers). 0: none from here. */
static unsigned push_span_before(const struct jit_xlate *x, const bool *lowered, unsigned i,
				 unsigned limit)
{
	unsigned span = 0;
	for (unsigned j = i; j < limit && j - i < STACK_RUN_MAX; j++) {
		if (lowered_push(x, lowered, j))
			span = j - i + 1;
		else if (!lowered[j] || !moves_between_registers(&x->b->insns[j]))
			break;
	}
	return span;
}

/* The push run's span from instruction i: cut before a move that writes
 * a register a later push of the run pushes (made after the pushes, it
 * would change what they store), until none does. */
static unsigned push_run_span(const struct jit_xlate *x, const bool *lowered, unsigned i)
{
	const struct emu_block *b = x->b;
	unsigned limit = b->count;
	for (;;) {
		unsigned span = push_span_before(x, lowered, i, limit), conflict = 0;
		uint32_t pushed_later = 0;
		for (unsigned k = span; k-- > 0;) {
			const struct emu_insn *insn = &b->insns[i + k];
			unsigned g = insn->opnd[0].reg / 8u;
			if (lowered_push(x, lowered, i + k))
				pushed_later |= 1u << g;
			else if (pushed_later & (1u << g))
				conflict = k;
		}
		if (!conflict)
			return span;
		limit = i + conflict;
	}
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

/* The pushes among instructions i .. i + n - 1. */
static unsigned pushes_in(const struct jit_xlate *x, const bool *lowered, unsigned i, unsigned n)
{
	unsigned pushes = 0;
	for (unsigned k = 0; k < n; k++)
		pushes += lowered_push(x, lowered, i + k);
	return pushes;
}

unsigned jit_push_run(const struct jit_xlate *x, const bool *lowered, unsigned i)
{
	if (!jit_inline_push_runs(x) || !lowered_push(x, lowered, i))
		return 0;
	unsigned n = push_run_span(x, lowered, i);
	return pushes_in(x, lowered, i, n) >= 2 ? n : 0;
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
	unsigned pushes = pushes_in(x, lowered, i, n);
	x->cur = i;
	/* rsi = the lowest of the run's bytes: the last push's */
	int sp = jit_guest_in(x, EMU_RSP, JR_RSI);
	jit_op(&x->a, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8),
	       jit_m(sp, JR_NONE, 0, -8 * (int64_t)pushes, 8));
	struct jit_misses m;
	if (!jit_inline_push_run_page(x, 8 * pushes, &m)) {
		x->a.failed = true; /* (jit_push_run said it would) */
		return;
	}
	for (unsigned k = 0, stored = 0; k < n; k++) {
		if (!lowered_push(x, lowered, i + k))
			continue;
		int v = jit_guest_in(x, b->insns[i + k].opnd[0].reg / 8u, JR_RCX);
		jit_inline_push_store(x, v, 8 * (pushes - 1 - stored++));
	}
	move_rsp(x, -8 * (int64_t)pushes);
	/* The moves between them, after them (moves_between_registers). */
	x->flags_live = false;
	for (unsigned k = 0; k < n; k++)
		if (!lowered_push(x, lowered, i + k))
			jit_lower_at(x, lowered, i + k);
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
