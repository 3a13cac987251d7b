/*
 * sse_shape.h — the operand shape rules the SSE/AVX integer, move and
 * shuffle families share: how wide an instruction's vectors are, which
 * operands are its sources, when a legacy memory operand must be aligned,
 * and element access inside an emu_vec.
 *
 * Binders store the vector width in insn->vl (VEX: 16 or 32; legacy SSE:
 * 16; MMX: 8) so handlers never re-derive it.
 */
#ifndef TTREC_EMU_SSE_SHAPE_H
#define TTREC_EMU_SSE_SHAPE_H

#include "vector.h"

static inline bool sse_is_vex(const struct emu_insn *insn)
{
	return insn->attr & EMU_ATTR_VEX;
}

/* Width of the instruction's vectors from its encoding and registers. */
static inline unsigned sse_width(const struct emu_insn *insn)
{
	if (insn->attr & (EMU_ATTR_VEX | EMU_ATTR_EVEX))
		return insn->vl;
	for (unsigned i = 0; i < insn->nopnd; i++)
		if (insn->opnd[i].kind == EMU_OPND_MMX)
			return 8;
	return 16;
}

/*
 * Prepares insn for an SSE/AVX handler: refuses EVEX encodings (AVX-512 is
 * executed natively) and records the vector width. Returns false when the
 * form is not for these families.
 */
static inline bool sse_bind_common(struct emu_insn *insn)
{
	if (insn->attr & EMU_ATTR_EVEX)
		return false;
	insn->vl = (uint8_t)sse_width(insn);
	return insn->vl == 8 || insn->vl == 16 || insn->vl == 32;
}

/* The first source of a "dst = src1 op src2" form: VEX names it separately
 * (operand 1), the legacy form reuses the destination (operand 0). */
static inline unsigned sse_src1(const struct emu_insn *insn)
{
	return sse_is_vex(insn) ? 1 : 0;
}

static inline bool sse_last_is_imm(const struct emu_insn *insn)
{
	return insn->nopnd && insn->opnd[insn->nopnd - 1].kind == EMU_OPND_IMM;
}

/* Legacy-SSE 16-byte memory operands must be 16-byte aligned (#GP
 * otherwise); VEX forms and MMX forms have no such rule. */
static inline int sse_check_legacy_alignment(struct emu_cpu *cpu,
					     const struct emu_insn *insn,
					     unsigned i)
{
	if (sse_is_vex(insn) || insn->opnd[i].size != 16)
		return EMU_OK;
	return emu_vec_check_aligned(cpu, insn, i, 16);
}

/* Reads operand i as a source of `width` bytes: a register gives `width`
 * bytes, a memory operand the size the encoding gives it (an MMX unpack
 * reads 4 bytes), checked for the legacy alignment rule. */
static inline int sse_read_source(struct emu_cpu *cpu, const struct emu_insn *insn,
				  unsigned i, unsigned width, emu_vec *out)
{
	if (insn->opnd[i].kind == EMU_OPND_MEM) {
		int r = sse_check_legacy_alignment(cpu, insn, i);
		if (r != EMU_OK)
			return r;
		unsigned size = insn->opnd[i].size < width ? insn->opnd[i].size : width;
		return emu_vec_read(cpu, insn, i, size, out);
	}
	return emu_vec_read(cpu, insn, i, width, out);
}

/* --- elements ------------------------------------------------------------ */

/* Element i of `size` bytes (1, 2, 4, 8), zero-extended. */
static inline uint64_t sse_get(const emu_vec *v, unsigned i, unsigned size)
{
	switch (size) {
	case 1: return v->b[i];
	case 2: return v->w[i];
	case 4: return v->d[i];
	default: return v->q[i];
	}
}

static inline void sse_set(emu_vec *v, unsigned i, unsigned size, uint64_t x)
{
	switch (size) {
	case 1: v->b[i] = (uint8_t)x; break;
	case 2: v->w[i] = (uint16_t)x; break;
	case 4: v->d[i] = (uint32_t)x; break;
	default: v->q[i] = x; break;
	}
}

/* Saturates a signed value to a signed or an unsigned element of `bits`. */
static inline uint64_t sse_saturate_signed(int64_t v, unsigned bits)
{
	int64_t max = (int64_t)((1ull << (bits - 1)) - 1), min = -max - 1;
	return (uint64_t)(v > max ? max : v < min ? min : v) & ((2ull << (bits - 1)) - 1);
}

static inline uint64_t sse_saturate_unsigned(int64_t v, unsigned bits)
{
	int64_t max = (int64_t)((1ull << bits) - 1);
	return (uint64_t)(v > max ? max : v < 0 ? 0 : v);
}

/* Element sizes travel in binding ops as log2(bytes) in the low two bits. */
#define SSE_OP(op, size_log2) ((uint8_t)(((op) << 2) | (size_log2)))
#define SSE_OP_KIND(op) ((unsigned)(op) >> 2)
#define SSE_OP_SIZE(op) (1u << ((op) & 3))

#endif
