/*
 * sse_fp_operands.h — operand layout and element access shared by the SSE/AVX
 * floating-point and conversion families.
 *
 * A legacy SSE instruction reads its destination as the first source
 * (addps xmm1, xmm2/m128); the VEX form names a separate first source
 * (vaddps ymm1, ymm2, ymm3/m256). Handlers ask for the sources here instead
 * of branching on the encoding themselves, and write the result through
 * emu_vec_write, which applies the VEX upper-zeroing rule.
 *
 * The binding's `op` of these families packs the element type and the
 * scalar/packed choice with a family-defined selector (EMU_FP_OP).
 */
#ifndef TTREC_EMU_SSE_FP_OPERANDS_H
#define TTREC_EMU_SSE_FP_OPERANDS_H

#include "mxcsr_exec.h"
#include "vector.h"

enum { EMU_FP_DOUBLE = 1u << 6, EMU_FP_SCALAR = 1u << 7, EMU_FP_SELECT = 0x3f };

/* The op byte of a binding: selector | element type | scalar. */
#define EMU_FP_OP(select, dbl, scalar) \
	((uint8_t)((select) | ((dbl) ? EMU_FP_DOUBLE : 0) | ((scalar) ? EMU_FP_SCALAR : 0)))

static inline unsigned emu_fp_select(const struct emu_insn *insn)
{
	return insn->op & EMU_FP_SELECT;
}

static inline bool emu_fp_double(const struct emu_insn *insn)
{
	return insn->op & EMU_FP_DOUBLE;
}

static inline bool emu_fp_scalar(const struct emu_insn *insn)
{
	return insn->op & EMU_FP_SCALAR;
}

static inline bool emu_opnd_is_vec_or_mem(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_VEC || o->kind == EMU_OPND_MEM;
}

/* Number of leading vector/memory operands (the immediate, if any, follows). */
static inline unsigned emu_fp_nvec(const struct emu_insn *insn)
{
	unsigned n = 0;
	while (n < insn->nopnd && emu_opnd_is_vec_or_mem(&insn->opnd[n]))
		n++;
	return n;
}

/* Index of the first source: the destination itself for legacy encodings
 * and for two-operand VEX forms, operand 1 for three-operand VEX forms. */
static inline unsigned emu_fp_src1(const struct emu_insn *insn)
{
	return emu_fp_nvec(insn) >= 3 ? 1 : 0;
}

/* Index of the last (register-or-memory) source. */
static inline unsigned emu_fp_src2(const struct emu_insn *insn)
{
	unsigned n = emu_fp_nvec(insn);
	return n ? n - 1 : 0;
}

/* Legacy SSE packed operations require 16-byte-aligned memory operands;
 * VEX forms and scalar operands do not. */
static inline int emu_fp_check_alignment(struct emu_cpu *cpu,
					 const struct emu_insn *insn, unsigned i)
{
	if (emu_vec_zero_upper(insn) || insn->opnd[i].size < 16)
		return EMU_OK;
	return emu_vec_check_aligned(cpu, insn, i, 16);
}

/* Reads operand i at its own size (a register: its full xmm/ymm width). */
static inline int emu_fp_read(struct emu_cpu *cpu, const struct emu_insn *insn,
			      unsigned i, emu_vec *out)
{
	return emu_vec_read(cpu, insn, i, insn->opnd[i].size, out);
}

/* Element i of a vector of 32-bit (dbl false) or 64-bit elements. */
static inline uint64_t emu_elem_get(const emu_vec *v, bool dbl, unsigned i)
{
	return dbl ? v->q[i] : v->d[i];
}

static inline void emu_elem_set(emu_vec *v, bool dbl, unsigned i, uint64_t x)
{
	if (dbl)
		v->q[i] = x;
	else
		v->d[i] = (uint32_t)x;
}

/* Completes an instruction's floating-point work: #XM (nothing changed) when
 * an unmasked exception occurred, else writes `size` bytes of the result to
 * operand `dst` and accumulates the flags into MXCSR. */
static inline int emu_fp_commit(struct emu_cpu *cpu, const struct emu_insn *insn,
				unsigned dst, unsigned size, const emu_vec *result,
				uint32_t flags)
{
	if (emu_mx_unmasked(cpu->regs.mxcsr, flags))
		return emu_fault(cpu, EMU_FAULT_XM);
	int r = emu_vec_write(cpu, insn, dst, size, result);
	if (r != EMU_OK)
		return r;
	cpu->regs.mxcsr |= flags;
	return EMU_OK;
}

#endif
