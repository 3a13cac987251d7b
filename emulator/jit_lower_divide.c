/*
 * jit_lower_divide.c — div of rdx:rax by a 32- or 64-bit register as the
 * host's own div, the cases that raise #DE left to the handler.
 *
 * The division faults when the divisor is 0 or the quotient does not fit,
 * which for an unsigned one is exactly when the high half of the dividend
 * is not below the divisor (a divisor of 0 included): that case, tested
 * first, runs ops_muldiv.c's divide by jit_handler_fallback, which
 * raises the fault as the interpreter does. Otherwise the host's div gives
 * the handler's quotient and remainder. The guest's flags are unchanged by
 * a div (the handler's rule) and stay where they were, in cpu->lazy: an
 * instruction before one that can fault never leaves its flags only in
 * the host's (jit_flags_overwritten stops at it). Interpreters divide in
 * their arithmetic: python3's `i * i % 7` called the handler once or twice
 * a turn.
 */
#include <Zydis/Zydis.h>

#include "jit_xlate.h"

bool jit_divide_lowerable(const struct emu_insn *insn)
{
	if (insn->attr & (EMU_ATTR_LOCK | EMU_ATTR_REP | EMU_ATTR_REPNE) || insn->nopnd != 1 ||
	    insn->mnemonic != ZYDIS_MNEMONIC_DIV)
		return false;
	const struct emu_operand *s = &insn->opnd[0];
	return s->kind == EMU_OPND_GPR && s->reg % 8 == 0 && (s->size == 4 || s->size == 8);
}

void jit_lower_divide(struct jit_xlate *x, const struct emu_insn *insn)
{
	struct jit_asm *a = &x->a;
	unsigned size = insn->opnd[0].size;
	/* The divisor first: it may be the guest's rax or rdx, whose values
	 * stay in their cache registers or in memory while rax and rdx are
	 * loaded. */
	int divisor = jit_guest_in(x, insn->opnd[0].reg / 8u, JR_RCX);
	if (divisor != JR_RCX)
		jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RCX, 8), jit_r(divisor, 8));
	int lo = jit_guest_in(x, EMU_RAX, JR_RAX);
	if (lo != JR_RAX)
		jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 8), jit_r(lo, 8));
	int hi = jit_guest_in(x, EMU_RDX, JR_RDX);
	if (hi != JR_RDX)
		jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, 8), jit_r(hi, 8));
	jit_op(a, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, size), jit_r(JR_RCX, size));
	size_t faults = jit_jcc_forward(a, JIT_CC_AE);
	jit_op(a, ZYDIS_MNEMONIC_DIV, jit_r(JR_RCX, size), jit_none());
	jit_guest_out(x, EMU_RDX, size, JR_RDX);
	jit_guest_out(x, EMU_RAX, size, JR_RAX);
	size_t done = jit_jmp_forward(a);
	jit_bind(a, faults);
	jit_handler_fallback(x);
	jit_bind(a, done);
	x->lazy_kind = EMU_LAZY_NONE; /* (its host registers are clobbered) */
	x->flags_live = false;
}
