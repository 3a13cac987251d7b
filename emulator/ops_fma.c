/*
 * ops_fma.c — FMA3: vfmadd, vfmsub, vfnmadd, vfnmsub, vfmaddsub, vfmsubadd
 * in the 132, 213 and 231 operand orders; ps/pd (128 and 256 bits) and
 * ss/sd.
 *
 * Each element is a*b + c computed exactly and rounded once (exact_fp.h),
 * so the host needs no FMA unit. The rules below were measured on the CPU:
 *   - NaN operands: the first NaN in the arithmetic order a, b, c (not the
 *     encoding order) is returned, quieted, never negated by the n/sub
 *     variants; any SNaN raises invalid.
 *   - invalid for inf*0 and for inf - inf, but not when c is a quiet NaN;
 *   - the denormal flag only when no NaN and no invalid operation occurs.
 * Order 132 is a=dst b=src3 c=src2; 213 a=src2 b=dst c=src3; 231 a=src2
 * b=src3 c=dst (dst is operand 1, src2 the VEX.vvvv register, src3 r/m).
 */
#include "binding.h"
#include "exact_fp.h"
#include "sse_fp_operands.h"

enum fma_order { ORDER_132, ORDER_213, ORDER_231 };

/* How the product and the addend are signed, per element parity. */
enum fma_sign {
	SIGN_MADD,    /* a*b + c */
	SIGN_MSUB,    /* a*b - c */
	SIGN_NMADD,   /* -(a*b) + c */
	SIGN_NMSUB,   /* -(a*b) - c */
	SIGN_MADDSUB, /* even elements a*b - c, odd a*b + c */
	SIGN_MSUBADD, /* even elements a*b + c, odd a*b - c */
};

/* The binding's selector: order in the low two bits, sign kind above. */
#define FMA_SELECT(order, sign) ((order) | (sign) << 2)

struct fma_element {
	const struct xfp_format *fmt;
	struct xfp_env env;
	bool daz;
	bool negate_product, negate_addend;
};

/* The first NaN of a, b, c, quieted; invalid if any is signalling. */
static uint64_t fma_nan(const struct fma_element *e, const struct xfp_value v[3],
			uint32_t *flags)
{
	const struct xfp_value *first = NULL;
	for (unsigned i = 0; i < 3; i++) {
		if (v[i].cls == XFP_SNAN)
			*flags |= EMU_MX_IE;
		if (!first && xfp_is_nan(&v[i]))
			first = &v[i];
	}
	return xfp_quiet(e->fmt, first->bits);
}

/*
 * Adds the exact product (sign ps, sig*2^exp) and addend (sign cs) and
 * rounds once. Both terms are placed with their leading bit at bit 125;
 * the smaller is shifted right with a sticky bit, which keeps the sum
 * exact to far more bits than the rounding needs: bits are lost only when
 * the terms' leading bits are more than 20 apart, and then the sum's
 * leading bit is within one of bit 125.
 */
static uint64_t fma_add_round(const struct fma_element *e, bool ps, int32_t pexp,
			      unsigned __int128 psig, bool cs, int32_t cexp,
			      unsigned __int128 csig, uint32_t *flags)
{
	if (!psig && !csig) {
		/* Exact zero: the common sign, else +0 (-0 rounding down). */
		bool sign = ps == cs ? ps : (e->env.rc & 3) == 1;
		return xfp_zero(e->fmt, sign);
	}
	if (!psig)
		return xfp_round(e->fmt, &e->env, cs, cexp, csig, false, flags);
	if (!csig)
		return xfp_round(e->fmt, &e->env, ps, pexp, psig, false, flags);

	/* Leading bits: the product has at most 106, the addend 53. */
	unsigned pm = psig >> 64 ? 127 - __builtin_clzll((uint64_t)(psig >> 64))
				 : 63 - __builtin_clzll((uint64_t)psig);
	unsigned cm = 63 - __builtin_clzll((uint64_t)csig);
	psig <<= 125 - pm;
	pexp -= (int32_t)(125 - pm);
	csig <<= 125 - cm;
	cexp -= (int32_t)(125 - cm);

	/* big: the term with the higher leading bit (or larger significand). */
	bool swap = cexp > pexp || (cexp == pexp && csig > psig);
	bool bs = swap ? cs : ps, ss = swap ? ps : cs;
	int32_t bexp = swap ? cexp : pexp, sexp = swap ? pexp : cexp;
	unsigned __int128 big = swap ? csig : psig, small = swap ? psig : csig;
	int64_t d = (int64_t)bexp - sexp;
	bool sticky = false;
	if (d >= 128) {
		small = 0;
		sticky = true;
	} else if (d > 0) {
		unsigned __int128 shifted = small >> d;
		sticky = (shifted << d) != small;
		small = shifted;
	}
	unsigned __int128 sum;
	if (bs == ss) {
		sum = big + small;
	} else {
		/* big - (small + ε) = (big - small - 1) + (1 - ε). */
		sum = big - small - (sticky ? 1 : 0);
		if (!sum && !sticky)
			return xfp_zero(e->fmt, (e->env.rc & 3) == 1);
	}
	return xfp_round(e->fmt, &e->env, bs, bexp, sum, sticky, flags);
}

static uint64_t fma_element(const struct fma_element *e, uint64_t a, uint64_t b,
			    uint64_t c, uint32_t *flags)
{
	struct xfp_value v[3] = {
		xfp_unpack(e->fmt, a, e->daz), xfp_unpack(e->fmt, b, e->daz),
		xfp_unpack(e->fmt, c, e->daz),
	};
	if (xfp_is_nan(&v[0]) || xfp_is_nan(&v[1]) || xfp_is_nan(&v[2]))
		return fma_nan(e, v, flags);
	bool ps = v[0].sign ^ v[1].sign ^ e->negate_product;
	bool cs = v[2].sign ^ e->negate_addend;
	bool pinf = v[0].cls == XFP_INF || v[1].cls == XFP_INF;
	bool pzero = v[0].cls == XFP_ZERO || v[1].cls == XFP_ZERO;
	if ((pinf && pzero) || (pinf && v[2].cls == XFP_INF && ps != cs)) {
		*flags |= EMU_MX_IE;
		return xfp_default_nan(e->fmt);
	}
	if (!e->daz && (v[0].denormal || v[1].denormal || v[2].denormal))
		*flags |= EMU_MX_DE;
	if (pinf)
		return xfp_inf(e->fmt, ps);
	if (v[2].cls == XFP_INF)
		return xfp_inf(e->fmt, cs);
	unsigned __int128 psig = pzero ? 0 : (unsigned __int128)v[0].sig * v[1].sig;
	return fma_add_round(e, ps, v[0].exp + v[1].exp, psig, cs, v[2].exp,
			     v[2].cls == XFP_ZERO ? 0 : v[2].sig, flags);
}

/* Which operand (0 dst, 1 src2, 2 src3) is a, b and c in each order. */
static const uint8_t order_operands[3][3] = {
	[ORDER_132] = { 0, 2, 1 },
	[ORDER_213] = { 1, 0, 2 },
	[ORDER_231] = { 1, 2, 0 },
};

static int fma_handler(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn), scalar = emu_fp_scalar(insn);
	unsigned select = emu_fp_select(insn);
	enum fma_order order = (enum fma_order)(select & 3);
	enum fma_sign sign = (enum fma_sign)(select >> 2);
	unsigned width = insn->opnd[0].size;
	unsigned n = scalar ? 1 : width / (dbl ? 8 : 4);
	emu_vec op[3];
	for (unsigned i = 0; i < 3; i++) {
		int r = emu_fp_read(cpu, insn, i, &op[i]);
		if (r != EMU_OK)
			return r;
	}
	uint32_t mxcsr = cpu->regs.mxcsr;
	struct fma_element e = {
		.fmt = dbl ? &xfp_double : &xfp_single,
		.env = { .rc = (mxcsr & EMU_MX_RC) >> EMU_MX_RC_SHIFT,
			 .ftz = mxcsr & EMU_MX_FTZ,
			 .underflow_masked = mxcsr & EMU_MX_UM },
		.daz = mxcsr & EMU_MX_DAZ,
	};
	const uint8_t *which = order_operands[order];
	emu_vec res = op[0];
	uint32_t flags = 0;
	for (unsigned i = 0; i < n; i++) {
		bool odd = i & 1;
		e.negate_product = sign == SIGN_NMADD || sign == SIGN_NMSUB;
		e.negate_addend = sign == SIGN_MSUB || sign == SIGN_NMSUB ||
				  (sign == SIGN_MADDSUB && !odd) || (sign == SIGN_MSUBADD && odd);
		uint64_t r = fma_element(&e, emu_elem_get(&op[which[0]], dbl, i),
					 emu_elem_get(&op[which[1]], dbl, i),
					 emu_elem_get(&op[which[2]], dbl, i), &flags);
		emu_elem_set(&res, dbl, i, r);
	}
	return emu_fp_commit(cpu, insn, 0, width, &res, flags);
}

/* VEX forms only: dst and src2 registers, src3 a register or memory. */
static emu_handler *bind_fma(struct emu_insn *insn)
{
	if (!(insn->attr & EMU_ATTR_VEX) || insn->nopnd != 3 ||
	    insn->opnd[0].kind != EMU_OPND_VEC || insn->opnd[1].kind != EMU_OPND_VEC ||
	    !emu_opnd_is_vec_or_mem(&insn->opnd[2]))
		return NULL;
	return fma_handler;
}

#define FMA_ORDER(M, ORD, sign) \
	{ ZYDIS_MNEMONIC_##M##ORD##PS, EMU_FP_OP(FMA_SELECT(ORDER_##ORD, sign), 0, 0), NULL, bind_fma }, \
	{ ZYDIS_MNEMONIC_##M##ORD##PD, EMU_FP_OP(FMA_SELECT(ORDER_##ORD, sign), 1, 0), NULL, bind_fma }

#define FMA_ORDER_SCALAR(M, ORD, sign) \
	FMA_ORDER(M, ORD, sign), \
	{ ZYDIS_MNEMONIC_##M##ORD##SS, EMU_FP_OP(FMA_SELECT(ORDER_##ORD, sign), 0, 1), NULL, bind_fma }, \
	{ ZYDIS_MNEMONIC_##M##ORD##SD, EMU_FP_OP(FMA_SELECT(ORDER_##ORD, sign), 1, 1), NULL, bind_fma }

/* The three orders of an operation with scalar forms, and of a packed-only
 * one (maddsub, msubadd). */
#define FMA_ALL_ORDERS(M, sign) \
	FMA_ORDER_SCALAR(M, 132, sign), FMA_ORDER_SCALAR(M, 213, sign), \
	FMA_ORDER_SCALAR(M, 231, sign)
#define FMA_PACKED_ORDERS(M, sign) \
	FMA_ORDER(M, 132, sign), FMA_ORDER(M, 213, sign), FMA_ORDER(M, 231, sign)

static const struct emu_binding fma_bindings[] = {
	FMA_ALL_ORDERS(VFMADD, SIGN_MADD),
	FMA_ALL_ORDERS(VFMSUB, SIGN_MSUB),
	FMA_ALL_ORDERS(VFNMADD, SIGN_NMADD),
	FMA_ALL_ORDERS(VFNMSUB, SIGN_NMSUB),
	FMA_PACKED_ORDERS(VFMADDSUB, SIGN_MADDSUB),
	FMA_PACKED_ORDERS(VFMSUBADD, SIGN_MSUBADD),
};

EMU_FAMILY(emu_family_fma, fma_bindings);
