/*
 * vector.h — access to XMM/YMM/ZMM operands for the SSE and AVX families.
 *
 * A vector operand is a register (EMU_OPND_VEC, reg = number) or the
 * instruction's memory operand (EMU_OPND_MEM) of `size` bytes. Writes follow
 * the architecture's upper-bits rule: legacy SSE encodings leave bits above
 * the written width untouched; VEX and EVEX encodings zero everything above
 * it up to the register's full width (bit 511).
 */
#ifndef TTREC_EMU_VECTOR_H
#define TTREC_EMU_VECTOR_H

#include <string.h>
#include "operand.h"
#include "x87.h"

/* Every MMX instruction but emms puts the x87 unit in MMX mode: TOP = 0 and
 * no register empty; the full tag word then classifies each register's
 * contents, as fnstenv shows it. */
static inline void emu_mmx_enter(struct emu_cpu *cpu)
{
	emu_x87_settle(cpu);
	cpu->regs.fsw &= (uint16_t)~0x3800;
	cpu->regs.ftw = x87_full_tag(&cpu->regs, 0xff);
}

/* Writing an MMX register also sets the exponent field of the x87 register
 * it aliases to all ones. */
static inline void emu_mmx_set(struct emu_cpu *cpu, unsigned n, uint64_t v)
{
	emu_x87_settle(cpu);
	emu_x87_reg *r = &cpu->regs.st[n & 7];
	r->mmx = v;
	r->bytes[8] = r->bytes[9] = 0xff;
}

static inline emu_vec *emu_vreg(struct emu_cpu *cpu, unsigned n)
{
	return &cpu->regs.zmm[n & 31];
}

/* Copies between vectors at the widths instructions use: a copy of a
 * variable length would be a call on every vector move. */
static inline void emu_vec_copy_bytes(void *dst, const void *src, unsigned size)
{
	switch (size) {
	case 4: memcpy(dst, src, 4); break;
	case 8: memcpy(dst, src, 8); break;
	case 16: memcpy(dst, src, 16); break;
	case 32: memcpy(dst, src, 32); break;
	case 64: memcpy(dst, src, 64); break;
	default: memcpy(dst, src, size); break;
	}
}

/* Reads `size` bytes of vector operand i into out (the rest of out is
 * zeroed). Memory operands fault like any read. */
static inline int emu_vec_read(struct emu_cpu *cpu, const struct emu_insn *insn,
			       unsigned i, unsigned size, emu_vec *out)
{
	const struct emu_operand *o = &insn->opnd[i];
	memset(out, 0, sizeof(*out));
	switch (o->kind) {
	case EMU_OPND_VEC:
		emu_vec_copy_bytes(out, emu_vreg(cpu, o->reg), size);
		return EMU_OK;
	case EMU_OPND_MEM:
		return emu_mem_read(cpu, emu_mem_addr(cpu, insn), out, size);
	case EMU_OPND_GPR:
		out->q[0] = emu_gpr_get(cpu, o->reg, o->size);
		return EMU_OK;
	case EMU_OPND_MMX:
		/* MMX mode is entered when the instruction completes
		 * (emu_vec_write): a fault must leave the x87 state alone. */
		emu_x87_settle(cpu);
		out->q[0] = cpu->regs.st[o->reg & 7].mmx;
		return EMU_OK;
	default:
		return emu_fault(cpu, EMU_FAULT_UD);
	}
}

/* True when the instruction zeroes destination bits above what it writes
 * (VEX/EVEX encodings). */
static inline bool emu_vec_zero_upper(const struct emu_insn *insn)
{
	return insn->attr & (EMU_ATTR_VEX | EMU_ATTR_EVEX);
}

static inline bool emu_insn_uses_mmx(const struct emu_insn *insn)
{
	for (unsigned i = 0; i < insn->nopnd; i++)
		if (insn->opnd[i].kind == EMU_OPND_MMX)
			return true;
	return false;
}

static inline int emu_vec_write_operand(struct emu_cpu *cpu, const struct emu_insn *insn,
					unsigned i, unsigned size, const emu_vec *v);

/* For handlers whose result goes elsewhere than through emu_vec_write (a
 * GPR, byte-masked stores): the instruction completed. */
static inline int emu_vec_complete(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	if (EMU_UNLIKELY(emu_insn_uses_mmx(insn)))
		emu_mmx_enter(cpu);
	return EMU_OK;
}

/* Writes `size` bytes of v to vector operand i. For a register destination
 * of a VEX/EVEX instruction the bytes above `size` are zeroed. An
 * instruction with an MMX operand enters MMX mode once its result is
 * written (the write is its last step). */
static inline int emu_vec_write(struct emu_cpu *cpu, const struct emu_insn *insn,
				unsigned i, unsigned size, const emu_vec *v)
{
	int r = emu_vec_write_operand(cpu, insn, i, size, v);
	return r == EMU_OK ? emu_vec_complete(cpu, insn) : r;
}

static inline int emu_vec_write_operand(struct emu_cpu *cpu, const struct emu_insn *insn,
					unsigned i, unsigned size, const emu_vec *v)
{
	const struct emu_operand *o = &insn->opnd[i];
	switch (o->kind) {
	case EMU_OPND_VEC: {
		emu_vec *d = emu_vreg(cpu, o->reg);
		emu_vec_copy_bytes(d, v, size);
		if (emu_vec_zero_upper(insn))
			memset(d->b + size, 0, sizeof(*d) - size);
		return EMU_OK;
	}
	case EMU_OPND_MEM:
		return emu_mem_write(cpu, emu_mem_addr(cpu, insn), v, size);
	case EMU_OPND_GPR:
		emu_gpr_set(cpu, o->reg, o->size, v->q[0]);
		return EMU_OK;
	case EMU_OPND_MMX:
		emu_mmx_set(cpu, o->reg, v->q[0]);
		return EMU_OK;
	default:
		return emu_fault(cpu, EMU_FAULT_UD);
	}
}

/* #GP for a misaligned operand of an instruction that requires alignment
 * (movaps, movdqa, and legacy-SSE memory operands of packed arithmetic). */
static inline int emu_vec_check_aligned(struct emu_cpu *cpu,
					const struct emu_insn *insn, unsigned i,
					unsigned alignment)
{
	if (insn->opnd[i].kind == EMU_OPND_MEM &&
	    (emu_mem_addr(cpu, insn) & (alignment - 1)))
		return emu_fault(cpu, EMU_FAULT_GP);
	return EMU_OK;
}

#endif
