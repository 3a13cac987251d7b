/*
 * ops_sse_round_dot.c — the SSE4.1 floating-point instructions and their VEX
 * forms: roundps/pd/ss/sd and the dot products dpps/dppd.
 *
 * The host need not have SSE4.1: rounding to an integral value is exact
 * integer arithmetic on the encoding, and a dot product is the sequence of
 * SSE2 multiplies and adds the architecture defines, each rounded under the
 * guest's MXCSR (mxcsr_exec.h).
 */
#include "binding.h"
#include "sse_fp_operands.h"

enum { ROUND_NEAREST, ROUND_DOWN, ROUND_UP, ROUND_ZERO };

/* Immediate bits of round*. */
enum { ROUND_IMM_USE_MXCSR = 4, ROUND_IMM_NO_PRECISION = 8 };

/* Rounds the float or double x to an integral value in `mode`. The result
 * keeps x's sign (so -0.3 rounds to -0.0). Signalling NaNs are quieted with
 * invalid; inexact results raise precision. */
static uint64_t round_integral(uint64_t x, bool dbl, unsigned mode, bool daz,
			       uint32_t *flags)
{
	unsigned mant = dbl ? 52 : 23, sign_shift = dbl ? 63 : 31;
	uint64_t bias = dbl ? 1023 : 127, exp_max = dbl ? 0x7ff : 0xff;
	uint64_t sign = x & (1ull << sign_shift), mag = x & ~sign;
	uint64_t exp = mag >> mant, frac = mag & ((1ull << mant) - 1);
	bool negative = sign != 0;

	if (exp == exp_max) {
		uint64_t quiet = 1ull << (mant - 1);
		if (frac && !(frac & quiet)) {
			*flags |= EMU_MX_IE;
			return x | quiet;
		}
		return x;
	}
	if (exp == 0 && daz)
		return sign;
	if (exp >= bias + mant || mag == 0)
		return x;
	if (exp < bias) { /* 0 < |x| < 1: the result is 0 or 1 in magnitude */
		bool one;
		switch (mode) {
		case ROUND_NEAREST: one = exp == bias - 1 && frac != 0; break;
		case ROUND_DOWN: one = negative; break;
		case ROUND_UP: one = !negative; break;
		default: one = false; break;
		}
		*flags |= EMU_MX_PE;
		return sign | (one ? bias << mant : 0);
	}
	unsigned frac_bits = (unsigned)(bias + mant - exp);
	uint64_t m = frac | (1ull << mant);
	uint64_t ip = m >> frac_bits, rem = m & ((1ull << frac_bits) - 1);
	uint64_t half = 1ull << (frac_bits - 1);
	if (rem == 0)
		return x;
	*flags |= EMU_MX_PE;
	bool up;
	switch (mode) {
	case ROUND_NEAREST: up = rem > half || (rem == half && (ip & 1)); break;
	case ROUND_DOWN: up = negative; break;
	case ROUND_UP: up = !negative; break;
	default: up = false; break;
	}
	m = (ip + up) << frac_bits;
	if (m >> (mant + 1)) { /* rounding carried into the next binade */
		m >>= 1;
		exp++;
	}
	return sign | exp << mant | (m & ((1ull << mant) - 1));
}

static int fp_round(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn), scalar = emu_fp_scalar(insn);
	unsigned width = insn->opnd[0].size, n = scalar ? 1 : width / (dbl ? 8 : 4);
	unsigned imm = (unsigned)insn->imm;
	uint32_t mxcsr = cpu->regs.mxcsr;
	unsigned mode = (imm & ROUND_IMM_USE_MXCSR) ? (mxcsr & EMU_MX_RC) >> EMU_MX_RC_SHIFT
						    : (imm & 3);
	unsigned s2 = emu_fp_src2(insn);
	emu_vec a, b;
	int r = emu_fp_check_alignment(cpu, insn, s2);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, emu_fp_src1(insn), &a);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, s2, &b);
	if (r != EMU_OK)
		return r;
	emu_vec res = a;
	uint32_t flags = 0;
	for (unsigned i = 0; i < n; i++)
		emu_elem_set(&res, dbl, i, round_integral(emu_elem_get(&b, dbl, i), dbl, mode,
							  mxcsr & EMU_MX_DAZ, &flags));
	if (imm & ROUND_IMM_NO_PRECISION)
		flags &= ~(uint32_t)EMU_MX_PE;
	return emu_fp_commit(cpu, insn, 0, width, &res, flags);
}

/* One product or sum of a dot product, noting exact tiny results as the
 * arithmetic family does. */
static uint64_t dot_step(struct emu_mx *mx, enum emu_mx_op op, bool dbl, uint64_t a,
			 uint64_t b, uint32_t *extra)
{
	uint64_t r = emu_mx_arith(mx, op, dbl, a, b);
	*extra |= emu_mx_exact_tiny(mx->guest, dbl, r);
	return r;
}

/*
 * The sum of the products t[] as the CPU forms it for result element j.
 * Every element gets the same value up to which NaN propagates: the CPU
 * sums in a different operand order for each element. dpps: even elements
 * add each pair high + low, odd ones low + high, and the lower half of the
 * result adds the lower pair's sum first, the upper half the upper pair's.
 * dppd: element 0 adds low + high, element 1 high + low.
 */
static uint64_t dot_sum(struct emu_mx *mx, bool dbl, const uint64_t t[4], unsigned j,
			uint32_t *extra)
{
	bool swap_pair = dbl ? (j & 1) : !(j & 1);
	uint64_t low = dot_step(mx, EMU_MX_ADD, dbl, t[swap_pair], t[!swap_pair], extra);
	if (dbl)
		return low;
	uint64_t high = dot_step(mx, EMU_MX_ADD, dbl, t[2 + swap_pair], t[2 + !swap_pair], extra);
	return j < 2 ? dot_step(mx, EMU_MX_ADD, dbl, low, high, extra)
		     : dot_step(mx, EMU_MX_ADD, dbl, high, low, extra);
}

/*
 * dpps (per 128-bit lane) and dppd: imm8[7:4] selects which products take
 * part (the others are +0.0, without computing them), the products are
 * summed pairwise, and imm8[3:0] selects which result elements receive the
 * sum (the others become +0.0).
 */
static int fp_dot_product(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	bool dbl = emu_fp_double(insn);
	unsigned width = insn->opnd[0].size, per_lane = dbl ? 2 : 4;
	unsigned imm = (unsigned)insn->imm;
	emu_vec a, b, res;
	unsigned s2 = emu_fp_src2(insn);
	int r = emu_fp_check_alignment(cpu, insn, s2);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, emu_fp_src1(insn), &a);
	if (r == EMU_OK)
		r = emu_fp_read(cpu, insn, s2, &b);
	if (r != EMU_OK)
		return r;
	memset(&res, 0, sizeof(res));
	uint32_t extra = 0;
	struct emu_mx mx;
	emu_mx_begin(&mx, cpu->regs.mxcsr);
	for (unsigned lane = 0; lane < width / 16; lane++) {
		uint64_t t[4];
		unsigned base = lane * per_lane;
		for (unsigned j = 0; j < per_lane; j++)
			t[j] = (imm >> (4 + j)) & 1
			       ? dot_step(&mx, EMU_MX_MUL, dbl, emu_elem_get(&a, dbl, base + j),
					  emu_elem_get(&b, dbl, base + j), &extra)
			       : 0;
		for (unsigned j = 0; j < per_lane; j++) {
			uint64_t sum = dot_sum(&mx, dbl, t, j, &extra);
			emu_elem_set(&res, dbl, base + j, ((imm >> j) & 1) ? sum : 0);
		}
	}
	uint32_t flags = emu_mx_end(&mx) | extra;
	return emu_fp_commit(cpu, insn, 0, width, &res, flags);
}

static bool form_ok(const struct emu_insn *insn)
{
	return !(insn->attr & EMU_ATTR_EVEX) && insn->opnd[0].kind == EMU_OPND_VEC &&
	       emu_fp_nvec(insn) >= 2 && insn->opnd[insn->nopnd - 1].kind == EMU_OPND_IMM;
}

static emu_handler *bind_round(struct emu_insn *insn)
{
	return form_ok(insn) ? fp_round : NULL;
}

static emu_handler *bind_dot_product(struct emu_insn *insn)
{
	return form_ok(insn) ? fp_dot_product : NULL;
}

static const struct emu_binding sse_round_dot_bindings[] = {
	{ ZYDIS_MNEMONIC_ROUNDPS, EMU_FP_OP(0, 0, 0), NULL, bind_round },
	{ ZYDIS_MNEMONIC_ROUNDPD, EMU_FP_OP(0, 1, 0), NULL, bind_round },
	{ ZYDIS_MNEMONIC_ROUNDSS, EMU_FP_OP(0, 0, 1), NULL, bind_round },
	{ ZYDIS_MNEMONIC_ROUNDSD, EMU_FP_OP(0, 1, 1), NULL, bind_round },
	{ ZYDIS_MNEMONIC_VROUNDPS, EMU_FP_OP(0, 0, 0), NULL, bind_round },
	{ ZYDIS_MNEMONIC_VROUNDPD, EMU_FP_OP(0, 1, 0), NULL, bind_round },
	{ ZYDIS_MNEMONIC_VROUNDSS, EMU_FP_OP(0, 0, 1), NULL, bind_round },
	{ ZYDIS_MNEMONIC_VROUNDSD, EMU_FP_OP(0, 1, 1), NULL, bind_round },
	{ ZYDIS_MNEMONIC_DPPS, EMU_FP_OP(0, 0, 0), NULL, bind_dot_product },
	{ ZYDIS_MNEMONIC_DPPD, EMU_FP_OP(0, 1, 0), NULL, bind_dot_product },
	{ ZYDIS_MNEMONIC_VDPPS, EMU_FP_OP(0, 0, 0), NULL, bind_dot_product },
	{ ZYDIS_MNEMONIC_VDPPD, EMU_FP_OP(0, 1, 0), NULL, bind_dot_product },
};

EMU_FAMILY(emu_family_sse_round_dot, sse_round_dot_bindings);
