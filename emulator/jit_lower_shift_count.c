/*
 * jit_lower_shift_count.c — shl, shr and sar of a 32- or 64-bit register
 * by cl as host code, as ops_shift.c's shift_plain does them. Interpreters
 * (CPython's integer and hash code among them) shift by a variable count
 * in their hottest loops; through the handler each one costs a call and
 * two operand reads by descriptor.
 *
 * The count is masked to 5 or 6 bits, so it is below the operand's width
 * and the host's CF after its own shift (the last bit shifted out) is
 * defined and equal to the handler's. OF is computed from the operand
 * before, as the handler computes it for any count (the architecture
 * defines it for a count of 1 only): never the host's. A count of 0
 * changes no flag; the destination is written either way (a 32-bit one
 * has its upper half cleared, as the handler's write does).
 */
#include <Zydis/Zydis.h>

#include "flags.h"
#include "jit_xlate.h"

#define CL_REG ((uint8_t)(EMU_RCX * 8)) /* operand.h's numbering: gpr * 8 + byte */

bool jit_shift_count_lowerable(const struct emu_insn *insn)
{
	if (insn->attr & (EMU_ATTR_LOCK | EMU_ATTR_REP | EMU_ATTR_REPNE) || insn->nopnd != 2)
		return false;
	if (insn->mnemonic != ZYDIS_MNEMONIC_SHL && insn->mnemonic != ZYDIS_MNEMONIC_SHR &&
	    insn->mnemonic != ZYDIS_MNEMONIC_SAR)
		return false;
	const struct emu_operand *d = &insn->opnd[0], *c = &insn->opnd[1];
	return d->kind == EMU_OPND_GPR && d->reg % 8 == 0 && (d->size == 4 || d->size == 8) &&
	       c->kind == EMU_OPND_GPR && c->reg == CL_REG && c->size == 1;
}

/* r8 = OF of a one-step shift of rdx (the operand, zero-extended). */
static void overflow_to_r8(struct jit_xlate *x, ZydisMnemonic op, unsigned bits)
{
	struct jit_asm *a = &x->a;
	if (op == ZYDIS_MNEMONIC_SAR) {
		jit_op(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_R8, 4), jit_r(JR_R8, 4));
		return;
	}
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_R8, 8), jit_r(JR_RDX, 8));
	if (op == ZYDIS_MNEMONIC_SHR) { /* the top bit */
		jit_op(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_R8, 8), jit_i(bits - 1));
		return;
	}
	/* shl: whether the top two bits differ */
	jit_op(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_R8, 8), jit_i(bits - 2));
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_R10, 8), jit_r(JR_R8, 8));
	jit_op(a, ZYDIS_MNEMONIC_SHR, jit_r(JR_R10, 8), jit_i(1));
	jit_op(a, ZYDIS_MNEMONIC_XOR, jit_r(JR_R8, 4), jit_r(JR_R10, 4));
	jit_op(a, ZYDIS_MNEMONIC_AND, jit_r(JR_R8, 4), jit_i(1));
}

void jit_lower_shift_count(struct jit_xlate *x, const struct emu_insn *insn)
{
	struct jit_asm *a = &x->a;
	const struct emu_operand *d = &insn->opnd[0];
	unsigned size = d->size, bits = size * 8, g = d->reg / 8u;
	ZydisMnemonic op = (ZydisMnemonic)insn->mnemonic;

	int count = jit_guest_in(x, EMU_RCX, JR_RCX);
	if (count != JR_RCX)
		jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RCX, 8), jit_r(count, 8));
	int v = jit_guest_in(x, g, JR_RAX);
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, size), jit_r(v, size));
	jit_op(a, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(bits - 1));
	size_t unchanged = jit_jcc_forward(a, JIT_CC_Z);

	overflow_to_r8(x, op, bits);
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(JR_R8, 8));
	jit_op(a, op, jit_r(JR_RDX, size), jit_r(JR_RCX, 1));
	jit_op(a, ZYDIS_MNEMONIC_SETB, jit_r(JR_R8, 1), jit_none());
	jit_op(a, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_R8, 4), jit_r(JR_R8, 1));
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_R8, 8));
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(JR_RDX, 8));
	jit_op(a, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_LAZY_WORD, 4),
	       jit_i((int64_t)EMU_LAZY_SHIFT | (int64_t)size << 8));

	jit_bind(a, unchanged);
	jit_guest_out(x, g, size, JR_RDX);
	/* Which flags are pending depends on the count: known only at run
	 * time, so a later jcc reads them from cpu->lazy. */
	x->lazy_kind = EMU_LAZY_NONE;
	x->flags_live = false;
}
