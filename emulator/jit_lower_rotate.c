/*
 * jit_lower_rotate.c — rol and ror of a register by an immediate as the
 * host's own rotate, where nothing reads the flags they leave.
 *
 * A rotate changes CF and OF and keeps the other four, which no pending
 * form of cpu->lazy holds; with live flags it stays a handler call. Where
 * the flags after it are replaced before anything sees them
 * (jit_flags_overwritten) only the value matters, and the host's rotate
 * computes it as ops_shift.c's shift_rotate does: the same count masked
 * the same way, an 8- or 16-bit rotate going round its own width. String
 * hashing (CPython's SipHash among others) runs in rotates: python3's
 * start-up called the handler 450,000 times for them from translated code.
 */
#include <Zydis/Zydis.h>

#include "jit_xlate.h"

bool jit_rotate_lowerable(const struct emu_insn *insn)
{
	if (insn->attr & (EMU_ATTR_LOCK | EMU_ATTR_REP | EMU_ATTR_REPNE) || insn->nopnd != 2)
		return false;
	if (insn->mnemonic != ZYDIS_MNEMONIC_ROL && insn->mnemonic != ZYDIS_MNEMONIC_ROR)
		return false;
	const struct emu_operand *d = &insn->opnd[0];
	return d->kind == EMU_OPND_GPR && d->reg % 8 == 0 && insn->opnd[1].kind == EMU_OPND_IMM;
}

void jit_lower_rotate(struct jit_xlate *x, const struct emu_insn *insn)
{
	if (!x->flags_dead) { /* assemble lowers only those: never here */
		x->a.failed = true;
		return;
	}
	const struct emu_operand *d = &insn->opnd[0];
	unsigned size = d->size, g = d->reg / 8u;
	unsigned count = (unsigned)(insn->imm & (size == 8 ? 63 : 31));
	int v = jit_guest_in(x, g, JR_RAX);
	if (count == 0) {
		/* No change but a 32-bit destination's upper half, as the
		 * handler's write of the value it read. */
		if (size == 4)
			jit_guest_out(x, g, 4, v);
		return;
	}
	if (size >= 4)
		jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, size), jit_r(v, size));
	else
		jit_op(&x->a, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RDX, 4), jit_r(v, size));
	jit_op(&x->a, (ZydisMnemonic)insn->mnemonic, jit_r(JR_RDX, size), jit_i(count));
	jit_guest_out(x, g, size, JR_RDX);
	x->lazy_kind = EMU_LAZY_NONE;
	x->flags_live = false;
}
