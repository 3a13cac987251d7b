/*
 * exact_fp.c — unpacking IEEE binary formats and rounding exact values to
 * them under MXCSR rules (see exact_fp.h).
 */
#include "exact_fp.h"
#include "mxcsr_exec.h"

const struct xfp_format xfp_half = { 5, 10 };
const struct xfp_format xfp_single = { 8, 23 };
const struct xfp_format xfp_double = { 11, 52 };

static uint64_t frac_mask(const struct xfp_format *f)
{
	return (1ull << f->frac_bits) - 1;
}

static uint64_t exp_max(const struct xfp_format *f)
{
	return (1ull << f->exp_bits) - 1;
}

static int32_t bias(const struct xfp_format *f)
{
	return (int32_t)(exp_max(f) >> 1);
}

static unsigned sign_shift(const struct xfp_format *f)
{
	return f->exp_bits + f->frac_bits;
}

struct xfp_value xfp_unpack(const struct xfp_format *f, uint64_t bits, bool daz)
{
	struct xfp_value v = { .bits = bits };
	uint64_t e = (bits >> f->frac_bits) & exp_max(f), m = bits & frac_mask(f);
	v.sign = (bits >> sign_shift(f)) & 1;
	if (e == exp_max(f)) {
		if (!m)
			v.cls = XFP_INF;
		else
			v.cls = (m >> (f->frac_bits - 1)) & 1 ? XFP_QNAN : XFP_SNAN;
	} else if (e == 0) {
		v.denormal = m != 0;
		if (!m || daz) {
			v.cls = XFP_ZERO;
		} else {
			v.cls = XFP_FINITE;
			v.sig = m;
			v.exp = 1 - bias(f) - f->frac_bits;
		}
	} else {
		v.cls = XFP_FINITE;
		v.sig = m | (1ull << f->frac_bits);
		v.exp = (int32_t)e - bias(f) - f->frac_bits;
	}
	return v;
}

uint64_t xfp_quiet(const struct xfp_format *f, uint64_t nan_bits)
{
	return nan_bits | (1ull << (f->frac_bits - 1));
}

uint64_t xfp_default_nan(const struct xfp_format *f)
{
	return (1ull << sign_shift(f)) | (exp_max(f) << f->frac_bits) |
	       (1ull << (f->frac_bits - 1));
}

uint64_t xfp_zero(const struct xfp_format *f, bool sign)
{
	return (uint64_t)sign << sign_shift(f);
}

uint64_t xfp_inf(const struct xfp_format *f, bool sign)
{
	return xfp_zero(f, sign) | exp_max(f) << f->frac_bits;
}

static unsigned msb128(unsigned __int128 x)
{
	uint64_t hi = (uint64_t)(x >> 64);
	return hi ? 127u - (unsigned)__builtin_clzll(hi)
		  : 63u - (unsigned)__builtin_clzll((uint64_t)x);
}

/* sig shifted right by `shift` bits; *guard gets the highest bit shifted
 * out, *rest whether any lower one was set (sticky included). */
static uint64_t shift_out(unsigned __int128 sig, int32_t shift, bool sticky,
			  bool *guard, bool *rest)
{
	if (shift <= 0) {
		*guard = false;
		*rest = sticky;
		return (uint64_t)(sig << -shift);
	}
	if (shift > 128) {
		*guard = false;
		*rest = true;
		return 0;
	}
	unsigned __int128 kept = shift == 128 ? 0 : sig >> shift;
	unsigned __int128 below = sig - (shift == 128 ? 0 : kept << shift);
	unsigned __int128 half = (unsigned __int128)1 << (shift - 1);
	*guard = (below & half) != 0;
	*rest = (below & (half - 1)) != 0 || sticky;
	return (uint64_t)kept;
}

static bool rounds_up(const struct xfp_env *env, bool sign, uint64_t kept, bool guard,
		      bool rest)
{
	switch (env->rc & 3) {
	case 0: return guard && (rest || (kept & 1));
	case 1: return (guard || rest) && sign;
	case 2: return (guard || rest) && !sign;
	default: return false;
	}
}

/* The result of an overflow: infinity, or the largest finite value when
 * the rounding direction points back toward zero. */
static uint64_t overflow_result(const struct xfp_format *f, const struct xfp_env *env,
				bool sign)
{
	unsigned rc = env->rc & 3;
	bool to_inf = rc == 0 || (rc == 1 && sign) || (rc == 2 && !sign);
	if (to_inf)
		return xfp_inf(f, sign);
	return xfp_inf(f, sign) - 1;
}

uint64_t xfp_round(const struct xfp_format *f, const struct xfp_env *env, bool sign,
		   int32_t exp, unsigned __int128 sig, bool sticky, uint32_t *flags)
{
	const int32_t p = f->frac_bits + 1, emin = 1 - bias(f), emax = bias(f);
	/* Unbiased exponent of the exact value's leading bit. */
	int32_t lead = exp + (int32_t)msb128(sig);
	bool guard, rest;

	/* Tininess after rounding to p bits with an unbounded exponent. */
	uint64_t unbounded = shift_out(sig, lead - (p - 1) - exp, sticky, &guard, &rest);
	int32_t lead_rounded = lead;
	if (rounds_up(env, sign, unbounded, guard, rest) && unbounded + 1 == 1ull << p)
		lead_rounded++;
	bool tiny = lead_rounded < emin;

	/* The result on the format's grid: denormal spacing below emin. */
	int32_t lsb = (lead < emin ? emin : lead) - (p - 1);
	uint64_t kept = shift_out(sig, lsb - exp, sticky, &guard, &rest);
	bool inexact = guard || rest;
	if (rounds_up(env, sign, kept, guard, rest))
		kept++;
	if (kept == 1ull << p) {
		kept >>= 1;
		lsb++;
	}

	if (tiny && env->ftz && env->underflow_masked) {
		*flags |= EMU_MX_UE | EMU_MX_PE;
		return xfp_zero(f, sign);
	}
	if (tiny && (inexact || !env->underflow_masked))
		*flags |= EMU_MX_UE;
	if (inexact)
		*flags |= EMU_MX_PE;
	if (kept < 1ull << (p - 1)) /* denormal or zero */
		return xfp_zero(f, sign) | kept;
	int32_t e = lsb + (p - 1);
	if (e > emax) {
		*flags |= EMU_MX_OE | EMU_MX_PE;
		return overflow_result(f, env, sign);
	}
	return xfp_zero(f, sign) | (uint64_t)(e + bias(f)) << f->frac_bits |
	       (kept & frac_mask(f));
}
