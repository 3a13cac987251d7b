/*
 * test_emu_fma.c — every FMA3 instruction run natively and in the emulator
 * on the same bytes and states (fp_stub.h), bit for bit: results, MXCSR
 * flags and #XM.
 *
 * Independent random operands rarely reach what makes a fused operation
 * hard, so most elements are built as (a, b, c) triples aimed at it: the
 * addend cancelling the product (tiny results from normal operands), ties
 * (short significands), products that overflow or underflow only before
 * the addition, and NaN/infinity/zero/denormal operands in each position.
 * Each triple is placed in the registers the instruction's order reads as
 * a, b and c. Every case runs under every rounding mode and DAZ/FTZ
 * combination, and once with exceptions unmasked.
 */
#include <math.h>

#include "check_main.h"
#include "fp_forms.h"

#define CASES 24

enum order { ORDER_132, ORDER_213, ORDER_231 };

struct fma_insn {
	ZydisMnemonic mnemonic;
	enum order order;
	bool dbl, scalar;
};

#define ORDER_FORMS(M, ORD) \
	{ ZYDIS_MNEMONIC_##M##ORD##PS, ORDER_##ORD, false, false }, \
	{ ZYDIS_MNEMONIC_##M##ORD##PD, ORDER_##ORD, true, false }
#define ORDER_FORMS_SCALAR(M, ORD) ORDER_FORMS(M, ORD), \
	{ ZYDIS_MNEMONIC_##M##ORD##SS, ORDER_##ORD, false, true }, \
	{ ZYDIS_MNEMONIC_##M##ORD##SD, ORDER_##ORD, true, true }
#define ALL_ORDERS(M) \
	ORDER_FORMS_SCALAR(M, 132), ORDER_FORMS_SCALAR(M, 213), ORDER_FORMS_SCALAR(M, 231)
#define PACKED_ORDERS(M) ORDER_FORMS(M, 132), ORDER_FORMS(M, 213), ORDER_FORMS(M, 231)

static const struct fma_insn fma_insns[] = {
	ALL_ORDERS(VFMADD), ALL_ORDERS(VFMSUB), ALL_ORDERS(VFNMADD), ALL_ORDERS(VFNMSUB),
	PACKED_ORDERS(VFMADDSUB), PACKED_ORDERS(VFMSUBADD),
};

/* --- operand triples ------------------------------------------------------- */

struct format { unsigned exp_bits, frac_bits; };
static const struct format f32 = { 8, 23 }, f64 = { 11, 52 };

static int bias(const struct format *f)
{
	return (1 << (f->exp_bits - 1)) - 1;
}

/* A normal value 2^e * 1.frac with e clamped into the normal range. */
static uint64_t make(const struct format *f, bool sign, int e, uint64_t frac)
{
	int biased = e + bias(f);
	int max = (1 << f->exp_bits) - 2;
	biased = biased < 1 ? 1 : biased > max ? max : biased;
	return (uint64_t)sign << (f->exp_bits + f->frac_bits) |
	       (uint64_t)biased << f->frac_bits | (frac & ((1ull << f->frac_bits) - 1));
}

/* A fraction with only its top `bits` bits random: products and sums of
 * such values land exactly on, or next to, rounding ties. */
static uint64_t short_frac(const struct format *f, unsigned bits)
{
	return (fp_rand() >> (64 - bits)) << (f->frac_bits - bits);
}

static uint64_t random_value(bool dbl)
{
	return dbl ? fp_random_f64() : fp_random_f32();
}

static double as_double(bool dbl, uint64_t v)
{
	if (dbl) {
		double d;
		memcpy(&d, &v, 8);
		return d;
	}
	uint32_t w = (uint32_t)v;
	float x;
	memcpy(&x, &w, 4);
	return x;
}

/* The product a*b rounded to the format (by the host, nearest-even). */
static uint64_t rounded_product(bool dbl, uint64_t a, uint64_t b)
{
	double p = as_double(dbl, a) * as_double(dbl, b);
	if (dbl) {
		uint64_t r;
		memcpy(&r, &p, 8);
		return r;
	}
	float x = (float)p;
	uint32_t r;
	memcpy(&r, &x, 4);
	return r;
}

static void make_triple(bool dbl, uint64_t t[3])
{
	const struct format *f = dbl ? &f64 : &f32;
	int emax = bias(f), emin = 1 - bias(f), p = (int)f->frac_bits + 1;
	uint64_t sign_bit = 1ull << (f->exp_bits + f->frac_bits);
	uint64_t r = fp_rand();
	bool s0 = r & 1, s1 = r & 2, s2 = r & 4;
	int spread = (int)((r >> 8) % 8);
	switch ((r >> 4) % 9) {
	case 0: case 1: /* independent */
		for (int i = 0; i < 3; i++)
			t[i] = random_value(dbl);
		break;
	case 2: { /* the addend cancels the rounded product: the rounding
		   * error, often tiny, is what remains */
		int e = (int)((r >> 12) % 60) - 30;
		t[0] = make(f, s0, e, fp_rand());
		t[1] = make(f, s1, -e + (int)((r >> 20) % 5) - 2, fp_rand());
		t[2] = rounded_product(dbl, t[0], t[1]) ^ sign_bit;
		if (r & 0x100000)
			t[2] += (r & 0x200000) ? 1 : -1; /* a neighbour */
		break;
	}
	case 3: /* short significands: exact ties */
		t[0] = make(f, s0, spread - 4, short_frac(f, 4 + spread));
		t[1] = make(f, s1, (int)((r >> 12) % 8) - 4, short_frac(f, 4 + spread));
		t[2] = make(f, s2, (int)((r >> 16) % (2 * p)) - p, short_frac(f, 8));
		break;
	case 4: /* the product overflows, the sum may not */
		t[0] = make(f, s0, emax / 2 + spread, fp_rand());
		t[1] = make(f, s1, emax - emax / 2 - spread + (int)((r >> 12) % 3) - 1,
			    fp_rand());
		t[2] = make(f, s2, emax - (int)((r >> 16) % 3), fp_rand());
		break;
	case 5: /* the product underflows; the sum may be normal or tiny */
		t[0] = make(f, s0, emin / 2 - spread, fp_rand());
		t[1] = make(f, s1, emin - emin / 2 + spread - (int)((r >> 12) % (p + 4)),
			    fp_rand());
		if (r & 0x10000)
			t[2] = make(f, s2, emin + (int)((r >> 20) % 3), fp_rand());
		else
			t[2] = (fp_rand() & ((1ull << f->frac_bits) - 1)) >> (r >> 24) % 16 |
			       (s2 ? sign_bit : 0); /* denormal or zero */
		break;
	case 6: /* a normal product, a sum at the edge of the normal range */
		t[0] = make(f, s0, emin / 2, fp_rand());
		t[1] = make(f, s1, emin - emin / 2 + 1, fp_rand());
		t[2] = make(f, !(s0 ^ s1), emin + 1, fp_rand());
		break;
	default: /* one special operand (or more) among random ones */
		for (int i = 0; i < 3; i++)
			t[i] = random_value(dbl);
		t[(r >> 12) % 3] = dbl ? fp_edge_f64[(r >> 16) % (sizeof(fp_edge_f64) / 8)]
				       : fp_edge_f32[(r >> 16) % (sizeof(fp_edge_f32) / 4)];
		break;
	}
}

/* Which register holds a, b and c: 0 the destination (ymm1), 1 the first
 * source (ymm2), 2 the last source (ymm3 and the memory operand). */
static const unsigned holder[3][3] = {
	[ORDER_132] = { 0, 2, 1 },
	[ORDER_213] = { 1, 0, 2 },
	[ORDER_231] = { 1, 2, 0 },
};

static void put(uint8_t *v, bool dbl, unsigned i, uint64_t x)
{
	if (dbl)
		memcpy(v + 8 * i, &x, 8);
	else
		memcpy(v + 4 * i, &x, 4);
}

static void fma_state(struct fp_state *s, const struct fma_insn *fi)
{
	fp_random_state(s, fi->dbl ? FP_F64 : FP_F32);
	unsigned n = fi->dbl ? 4 : 8;
	for (unsigned i = 0; i < n; i++) {
		uint64_t t[3];
		make_triple(fi->dbl, t);
		for (unsigned k = 0; k < 3; k++) {
			unsigned reg = holder[fi->order][k];
			put(s->ymm[1 + reg], fi->dbl, i, t[k]);
			if (reg == 2)
				put(s->mem, fi->dbl, i, t[k]);
		}
	}
}

static unsigned check_insn(struct fp_harness *h, const struct fma_insn *fi)
{
	unsigned elem = fi->dbl ? 8 : 4, failed = 0;
	struct fp_form_spec spec = {
		.legacy = ZYDIS_MNEMONIC_INVALID, .vex = fi->mnemonic,
		.src_size = fi->scalar ? elem : 16, .has_256 = !fi->scalar, .imm = FP_NO_IMM,
	};
	struct fp_insn forms[FP_MAX_FORMS];
	unsigned nforms = fp_forms(&spec, forms);
	for (unsigned f = 0; f < nforms; f++) {
		fp_begin_form(h, &forms[f]);
		struct fp_state s;
		for (unsigned c = 0; c < CASES; c++) {
			fma_state(&s, fi);
			for (unsigned m = 0; m < FP_MXCSR_MODES; m++) {
				s.mxcsr = fp_mxcsr_mode(m);
				failed += !fp_check(h, &s);
			}
			s.mxcsr = fp_mxcsr_unmasked();
			failed += !fp_check(h, &s);
		}
	}
	fp_begin_form(h, NULL);
	return failed;
}

/* One test per group of mnemonics, so a failure names its group. */
static void check_range(size_t first, size_t count, uint64_t seed)
{
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(seed);
	unsigned failed = 0;
	for (size_t i = first; i < first + count; i++)
		failed += check_insn(&h, &fma_insns[i]);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}

START_TEST(test_fmadd) { check_range(0, 12, 21); }
END_TEST
START_TEST(test_fmsub) { check_range(12, 12, 22); }
END_TEST
START_TEST(test_fnmadd) { check_range(24, 12, 23); }
END_TEST
START_TEST(test_fnmsub) { check_range(36, 12, 24); }
END_TEST
START_TEST(test_fmaddsub_fmsubadd) { check_range(48, 12, 25); }
END_TEST

/* The table covers every FMA3 mnemonic once. */
START_TEST(test_table)
{
	ck_assert_uint_eq(sizeof(fma_insns) / sizeof(fma_insns[0]), 60);
}
END_TEST

static Suite *emu_fma_suite(void)
{
	Suite *s = suite_create("emu_fma");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_fmadd);
	tcase_add_test(tc, test_fmsub);
	tcase_add_test(tc, test_fnmadd);
	tcase_add_test(tc, test_fnmsub);
	tcase_add_test(tc, test_fmaddsub_fmsubadd);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_fma_suite)
