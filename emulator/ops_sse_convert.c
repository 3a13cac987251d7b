/*
 * ops_sse_convert.c — SSE/AVX conversions between single, double and
 * integers: cvtsi2ss/sd, cvt(t)ss2si/sd2si, cvtss2sd/cvtsd2ss, the packed
 * cvt(t)ps2dq/pd2dq, cvtdq2ps/pd, cvtps2pd/cvtpd2ps, their MMX forms
 * (cvtpi2ps/pd, cvt(t)ps2pi, cvt(t)pd2pi) and VEX forms.
 *
 * Each element is converted by the host's SSE2 scalar conversion under the
 * guest's MXCSR (mxcsr_exec.h), so rounding, the integer indefinite value
 * (0x80000000...) on overflow or NaN with invalid, DAZ/FTZ and the flags are
 * the CPU's own. A packed conversion is its elements' scalar conversions.
 */
#include "binding.h"
#include "sse_fp_operands.h"

static bool cvt_source_is_64bit(enum emu_mx_cvt c)
{
	switch (c) {
	case EMU_CVT_I64_F32: case EMU_CVT_I64_F64: case EMU_CVT_F64_I32:
	case EMU_CVT_F64_I64: case EMU_CVT_F64_I32_TRUNC: case EMU_CVT_F64_I64_TRUNC:
	case EMU_CVT_F64_F32:
		return true;
	default:
		return false;
	}
}

static bool cvt_result_is_64bit(enum emu_mx_cvt c)
{
	switch (c) {
	case EMU_CVT_I32_F64: case EMU_CVT_I64_F64: case EMU_CVT_F32_I64:
	case EMU_CVT_F64_I64: case EMU_CVT_F32_I64_TRUNC: case EMU_CVT_F64_I64_TRUNC:
	case EMU_CVT_F32_F64:
		return true;
	default:
		return false;
	}
}

/* Converts one element, noting an exact tiny float result (possible only
 * when narrowing a double) for unmasked underflow. */
static uint64_t cvt_element(struct emu_mx *mx, enum emu_mx_cvt c, uint64_t src,
			    uint32_t *extra)
{
	uint64_t r = emu_mx_convert(mx, c, src);
	if (c == EMU_CVT_F64_F32)
		*extra |= emu_mx_exact_tiny(mx->guest, false, r);
	return r;
}

/*
 * cvtsi2ss/sd, cvtss2sd, cvtsd2ss (and VEX): the low element of the result
 * is the converted low element (or integer) of the last source; the rest
 * comes from the first source. An integer source's width picks the 32- or
 * 64-bit conversion (the 64-bit kind follows the 32-bit one in the enum).
 */
static int cvt_scalar_to_vector(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	enum emu_mx_cvt c = (enum emu_mx_cvt)insn->op;
	unsigned s2 = insn->nopnd - 1;
	if ((c == EMU_CVT_I32_F32 || c == EMU_CVT_I32_F64) && insn->opnd[s2].size == 8)
		c = (enum emu_mx_cvt)(c + 1);
	emu_vec a, b;
	int r = emu_fp_read(cpu, insn, insn->nopnd >= 3 ? 1 : 0, &a);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, s2, &b);
	if (r != EMU_OK)
		return r;
	uint32_t extra = 0;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	uint64_t v = cvt_element(&mx, c, b.q[0], &extra);
	uint32_t flags = emu_mx_end(&mx) | extra;
	emu_elem_set(&a, cvt_result_is_64bit(c), 0, v);
	return emu_fp_commit(cpu, insn, 0, insn->opnd[0].size, &a, flags);
}

/* cvt(t)ss2si, cvt(t)sd2si: a GPR of 32 or 64 bits (the 64-bit kind
 * follows the 32-bit one in the enum). */
static int cvt_scalar_to_gpr(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	enum emu_mx_cvt c = (enum emu_mx_cvt)insn->op;
	unsigned size = insn->opnd[0].size;
	if (size == 8)
		c = (enum emu_mx_cvt)(c + 1);
	emu_vec b;
	int r = emu_fp_read(cpu, insn, 1, &b);
	if (r != EMU_OK)
		return r;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	uint64_t v = emu_mx_convert(&mx, c, b.q[0]);
	uint32_t flags = emu_mx_end(&mx);
	if (emu_mx_unmasked(cpu->regs.mxcsr, flags))
		return emu_fault(cpu, EMU_FAULT_XM);
	emu_gpr_set(cpu, insn->opnd[0].reg, size, v);
	cpu->regs.mxcsr |= flags;
	return EMU_OK;
}

/* The packed conversions: which element conversion, how many elements at
 * 128 bits (twice as many in a VEX.256 form), and whether only the low 64
 * bits of the destination are written (cvtpi2ps keeps the rest). */
struct packed_form {
	uint8_t cvt;
	uint8_t count;
	bool low64_only;
};

enum packed_kind {
	PK_DQ2PS, PK_PS2DQ, PK_TPS2DQ, PK_DQ2PD, PK_PD2DQ, PK_TPD2DQ, PK_PS2PD,
	PK_PD2PS, PK_PI2PS, PK_PI2PD, PK_PS2PI, PK_TPS2PI, PK_PD2PI, PK_TPD2PI,
};

static const struct packed_form packed_forms[] = {
	[PK_DQ2PS] = { EMU_CVT_I32_F32, 4, false },
	[PK_PS2DQ] = { EMU_CVT_F32_I32, 4, false },
	[PK_TPS2DQ] = { EMU_CVT_F32_I32_TRUNC, 4, false },
	[PK_DQ2PD] = { EMU_CVT_I32_F64, 2, false },
	[PK_PD2DQ] = { EMU_CVT_F64_I32, 2, false },
	[PK_TPD2DQ] = { EMU_CVT_F64_I32_TRUNC, 2, false },
	[PK_PS2PD] = { EMU_CVT_F32_F64, 2, false },
	[PK_PD2PS] = { EMU_CVT_F64_F32, 2, false },
	[PK_PI2PS] = { EMU_CVT_I32_F32, 2, true },
	[PK_PI2PD] = { EMU_CVT_I32_F64, 2, false },
	[PK_PS2PI] = { EMU_CVT_F32_I32, 2, false },
	[PK_TPS2PI] = { EMU_CVT_F32_I32_TRUNC, 2, false },
	[PK_PD2PI] = { EMU_CVT_F64_I32, 2, false },
	[PK_TPD2PI] = { EMU_CVT_F64_I32_TRUNC, 2, false },
};

/* dst[i] = convert(src[i]); destination elements beyond the converted ones
 * are zeroed up to the destination register's width. */
static int cvt_packed(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	const struct packed_form *f = &packed_forms[insn->op];
	enum emu_mx_cvt c = (enum emu_mx_cvt)f->cvt;
	bool src64 = cvt_source_is_64bit(c), dst64 = cvt_result_is_64bit(c);
	bool wide = insn->opnd[0].size == 32 || insn->opnd[1].size == 32;
	unsigned n = f->count * (wide ? 2 : 1);
	emu_vec src, res;
	int r = emu_fp_check_alignment(cpu, insn, 1);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, 1, &src);
	if (r != EMU_OK)
		return r;
	memset(&res, 0, sizeof(res));
	uint32_t extra = 0;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	for (unsigned i = 0; i < n; i++)
		emu_elem_set(&res, dst64, i,
			     cvt_element(&mx, c, emu_elem_get(&src, src64, i), &extra));
	uint32_t flags = emu_mx_end(&mx) | extra;
	unsigned size = f->low64_only ? 8 : insn->opnd[0].size;
	return emu_fp_commit(cpu, insn, 0, size, &res, flags);
}

static bool not_evex(const struct emu_insn *insn)
{
	return !(insn->attr & EMU_ATTR_EVEX) && insn->nopnd >= 2;
}

static emu_handler *bind_scalar_to_vector(struct emu_insn *insn)
{
	return not_evex(insn) && insn->opnd[0].kind == EMU_OPND_VEC ? cvt_scalar_to_vector
								     : NULL;
}

static emu_handler *bind_scalar_to_gpr(struct emu_insn *insn)
{
	return not_evex(insn) && insn->opnd[0].kind == EMU_OPND_GPR ? cvt_scalar_to_gpr : NULL;
}

static emu_handler *bind_packed(struct emu_insn *insn)
{
	return not_evex(insn) && insn->nopnd == 2 ? cvt_packed : NULL;
}

#define LEGACY_AND_VEX(M, op, binder) \
	{ ZYDIS_MNEMONIC_##M, op, NULL, binder }, \
	{ ZYDIS_MNEMONIC_V##M, op, NULL, binder }

static const struct emu_binding sse_convert_bindings[] = {
	LEGACY_AND_VEX(CVTSI2SS, EMU_CVT_I32_F32, bind_scalar_to_vector),
	LEGACY_AND_VEX(CVTSI2SD, EMU_CVT_I32_F64, bind_scalar_to_vector),
	LEGACY_AND_VEX(CVTSS2SD, EMU_CVT_F32_F64, bind_scalar_to_vector),
	LEGACY_AND_VEX(CVTSD2SS, EMU_CVT_F64_F32, bind_scalar_to_vector),
	LEGACY_AND_VEX(CVTSS2SI, EMU_CVT_F32_I32, bind_scalar_to_gpr),
	LEGACY_AND_VEX(CVTSD2SI, EMU_CVT_F64_I32, bind_scalar_to_gpr),
	LEGACY_AND_VEX(CVTTSS2SI, EMU_CVT_F32_I32_TRUNC, bind_scalar_to_gpr),
	LEGACY_AND_VEX(CVTTSD2SI, EMU_CVT_F64_I32_TRUNC, bind_scalar_to_gpr),
	LEGACY_AND_VEX(CVTDQ2PS, PK_DQ2PS, bind_packed),
	LEGACY_AND_VEX(CVTPS2DQ, PK_PS2DQ, bind_packed),
	LEGACY_AND_VEX(CVTTPS2DQ, PK_TPS2DQ, bind_packed),
	LEGACY_AND_VEX(CVTDQ2PD, PK_DQ2PD, bind_packed),
	LEGACY_AND_VEX(CVTPD2DQ, PK_PD2DQ, bind_packed),
	LEGACY_AND_VEX(CVTTPD2DQ, PK_TPD2DQ, bind_packed),
	LEGACY_AND_VEX(CVTPS2PD, PK_PS2PD, bind_packed),
	LEGACY_AND_VEX(CVTPD2PS, PK_PD2PS, bind_packed),
	{ ZYDIS_MNEMONIC_CVTPI2PS, PK_PI2PS, NULL, bind_packed },
	{ ZYDIS_MNEMONIC_CVTPI2PD, PK_PI2PD, NULL, bind_packed },
	{ ZYDIS_MNEMONIC_CVTPS2PI, PK_PS2PI, NULL, bind_packed },
	{ ZYDIS_MNEMONIC_CVTTPS2PI, PK_TPS2PI, NULL, bind_packed },
	{ ZYDIS_MNEMONIC_CVTPD2PI, PK_PD2PI, NULL, bind_packed },
	{ ZYDIS_MNEMONIC_CVTTPD2PI, PK_TPD2PI, NULL, bind_packed },
};

EMU_FAMILY(emu_family_sse_convert, sse_convert_bindings);
