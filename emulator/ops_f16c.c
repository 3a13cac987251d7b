/*
 * ops_f16c.c — F16C: vcvtph2ps (half to single) and vcvtps2ph (single to
 * half, rounded by imm8[1:0], or by MXCSR.RC when imm8[2] is set), 128 and
 * 256 bits, register and memory forms.
 *
 * Half precision has no host operation, so both directions go through the
 * exact rounding of exact_fp.h. Rules measured on the CPU:
 *   - vcvtph2ps is exact: half denormals become normal singles, read
 *     as they are whatever DAZ says and without the denormal flag; only a
 *     signalling NaN raises a flag (invalid).
 *   - vcvtps2ph honours DAZ and raises the denormal flag for single
 *     denormal inputs, but ignores FTZ: tiny results are half denormals.
 *   - NaNs keep their sign and the top bits of their payload, quieted.
 */
#include "binding.h"
#include "exact_fp.h"
#include "sse_fp_operands.h"

/* A NaN converted between formats: sign, payload's top bits, quiet bit. */
static uint64_t convert_nan(const struct xfp_format *to, const struct xfp_format *from,
			    const struct xfp_value *v)
{
	uint64_t payload = v->bits & ((1ull << from->frac_bits) - 1);
	if (to->frac_bits > from->frac_bits)
		payload <<= to->frac_bits - from->frac_bits;
	else
		payload >>= from->frac_bits - to->frac_bits;
	return xfp_quiet(to, xfp_inf(to, v->sign) | payload);
}

static uint64_t convert_element(const struct xfp_format *to, const struct xfp_format *from,
				uint64_t bits, bool daz, bool denormal_flag,
				const struct xfp_env *env, uint32_t *flags)
{
	struct xfp_value v = xfp_unpack(from, bits, daz);
	switch (v.cls) {
	case XFP_SNAN:
		*flags |= EMU_MX_IE;
		/* fall through */
	case XFP_QNAN:
		return convert_nan(to, from, &v);
	case XFP_INF:
		return xfp_inf(to, v.sign);
	case XFP_ZERO: /* a denormal under DAZ too: no flag then */
		return xfp_zero(to, v.sign);
	default:
		if (v.denormal && denormal_flag)
			*flags |= EMU_MX_DE;
		return xfp_round(to, env, v.sign, v.exp, v.sig, false, flags);
	}
}

enum f16c_direction { PH_TO_PS, PS_TO_PH };

static int f16c_convert(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool to_half = insn->op == PS_TO_PH;
	const struct xfp_format *from = to_half ? &xfp_single : &xfp_half;
	const struct xfp_format *to = to_half ? &xfp_half : &xfp_single;
	/* Elements: as many as the single-precision side holds. */
	unsigned single_bytes = to_half ? insn->opnd[1].size : insn->opnd[0].size;
	unsigned n = single_bytes / 4;
	emu_vec src, res;
	int r = emu_vec_read(cpu, insn, 1, to_half ? single_bytes : n * 2, &src);
	if (r != EMU_OK)
		return r;
	uint32_t mxcsr = cpu->regs.mxcsr;
	unsigned imm = (unsigned)insn->imm;
	struct xfp_env env = {
		.rc = to_half && !(imm & 4) ? imm & 3 : (mxcsr & EMU_MX_RC) >> EMU_MX_RC_SHIFT,
		.ftz = false,
		.underflow_masked = mxcsr & EMU_MX_UM,
	};
	bool daz = to_half && (mxcsr & EMU_MX_DAZ);
	uint32_t flags = 0;
	memset(&res, 0, sizeof(res));
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = to_half ? src.d[i] : src.w[i];
		uint64_t y = convert_element(to, from, x, daz, to_half, &env, &flags);
		if (to_half)
			res.w[i] = (uint16_t)y;
		else
			res.d[i] = (uint32_t)y;
	}
	/* A register destination is written whole (the VEX rule zeroes what
	 * lies above); a memory destination gets the converted bytes only. */
	unsigned size = to_half ? n * 2 : n * 4;
	if (insn->opnd[0].kind == EMU_OPND_VEC && size < 16)
		size = 16;
	return emu_fp_commit(cpu, insn, 0, size, &res, flags);
}

static emu_handler *bind_f16c(struct emu_insn *insn)
{
	bool to_half = insn->op == PS_TO_PH;
	if (!(insn->attr & EMU_ATTR_VEX) || insn->nopnd != (to_half ? 3 : 2) ||
	    !emu_opnd_is_vec_or_mem(&insn->opnd[0]) || !emu_opnd_is_vec_or_mem(&insn->opnd[1]))
		return NULL;
	return f16c_convert;
}

static const struct emu_binding f16c_bindings[] = {
	{ ZYDIS_MNEMONIC_VCVTPH2PS, PH_TO_PS, NULL, bind_f16c },
	{ ZYDIS_MNEMONIC_VCVTPS2PH, PS_TO_PH, NULL, bind_f16c },
};

EMU_FAMILY(emu_family_f16c, f16c_bindings);
