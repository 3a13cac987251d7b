/*
 * test_emu_f16c.c — vcvtph2ps and vcvtps2ph run natively and in the
 * emulator on the same bytes and states (fp_stub.h), bit for bit: results,
 * MXCSR flags and #XM, in register and memory forms at 128 and 256 bits.
 *
 * Half inputs cover zeros, denormals, infinities, quiet and signalling NaNs
 * and normals; single inputs cluster around the half range: values that
 * round to half denormals or underflow to zero, ties (short significands),
 * the overflow edge (65504, 65520), single denormals (DAZ, DE), NaN
 * payloads. Every immediate rounding control, and MXCSR.RC through imm8
 * bit 2, under every MXCSR rounding mode and DAZ/FTZ combination.
 */
#include "check_main.h"
#include "fp_forms.h"

#define CASES 40

#define X(n) fp_reg(ZYDIS_REGISTER_XMM0 + (n))
#define Y(n) fp_reg(ZYDIS_REGISTER_YMM0 + (n))
#define ENC(m, ...) \
	fp_encode(m, true, sizeof((ZydisEncoderOperand[]){ __VA_ARGS__ }) / sizeof(ZydisEncoderOperand), \
		  (ZydisEncoderOperand[]){ __VA_ARGS__ })

static uint16_t random_half(void)
{
	static const uint16_t edges[] = {
		0x0000, 0x8000, 0x0001, 0x83ff, 0x0200, 0x0400, 0x7bff, 0xfbff, 0x7c00,
		0xfc00, 0x7e00, 0xfe01, 0x7c01, 0xfd55, 0x3c00, 0xbc00, 0x3555,
	};
	uint64_t r = fp_rand();
	switch (r % 4) {
	case 0: return edges[(r >> 8) % (sizeof(edges) / sizeof(edges[0]))];
	case 1: return (uint16_t)((r >> 16) & 0x83ff); /* denormal */
	default: return (uint16_t)(r >> 32);
	}
}

static uint32_t make_single(bool sign, int e, uint32_t frac)
{
	return (uint32_t)sign << 31 | (uint32_t)(e + 127) << 23 | (frac & 0x7fffff);
}

static uint32_t random_single_for_half(void)
{
	uint64_t r = fp_rand();
	bool sign = r & 1;
	uint32_t frac = (uint32_t)(r >> 32);
	switch ((r >> 1) % 8) {
	case 0: /* half normal range, ties: only the bits a half keeps and one more */
		return make_single(sign, (int)((r >> 8) % 31) - 14, frac & 0x7ff000);
	case 1: /* half denormal range and below */
		return make_single(sign, -15 - (int)((r >> 8) % 14), frac);
	case 2: /* ties in the half denormal range */
		return make_single(sign, -15 - (int)((r >> 8) % 10), frac & 0x7ff800);
	case 3: { /* the overflow edge: 65504 (max), 65520 (tie to infinity) */
		static const uint32_t big[] = { 0x477fe000, 0x477ff000, 0x477fefff, 0x477ff001,
						0x47800000, 0x477fffff, 0x7f7fffff };
		return big[(r >> 8) % 7] | (uint32_t)sign << 31;
	}
	case 4: /* single denormals and NaN payloads */
		return (uint32_t)sign << 31 | ((r >> 8) & 1 ? 0x7f800000 : 0) | (frac & 0x7fffff);
	case 5:
		return fp_random_f32();
	default:
		return make_single(sign, (int)((r >> 8) % 40) - 25, frac);
	}
}

/* Fills the sources (ymm3 and the memory operand) with half or single
 * values; other registers keep fp_random_state's contents. */
static void f16c_state(struct fp_state *s, bool halves)
{
	fp_random_state(s, FP_F32);
	for (unsigned i = 0; i < 8; i++) {
		if (halves) {
			uint16_t h = random_half(), g = random_half();
			memcpy(s->ymm[3] + 2 * i, &h, 2);
			memcpy(s->mem + 2 * i, &g, 2);
		} else {
			uint32_t f = random_single_for_half(), g = random_single_for_half();
			memcpy(s->ymm[3] + 4 * i, &f, 4);
			memcpy(s->mem + 4 * i, &g, 4);
		}
	}
}

static unsigned check_form(struct fp_harness *h, struct fp_insn in, bool halves)
{
	unsigned failed = 0;
	struct fp_state s;
	fp_begin_form(h, &in);
	for (unsigned c = 0; c < CASES; c++) {
		f16c_state(&s, halves);
		for (unsigned m = 0; m < FP_MXCSR_MODES; m++) {
			s.mxcsr = fp_mxcsr_mode(m);
			failed += !fp_check(h, &s);
		}
		s.mxcsr = fp_mxcsr_unmasked();
		failed += !fp_check(h, &s);
	}
	fp_begin_form(h, NULL);
	return failed;
}

START_TEST(test_ph2ps)
{
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(31);
	unsigned failed = 0;
	failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPH2PS, X(1), X(3)), true);
	failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPH2PS, X(1), fp_mem(8)), true);
	failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPH2PS, Y(1), X(3)), true);
	failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPH2PS, Y(1), fp_mem(16)), true);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/* Immediates: the four rounding controls, MXCSR.RC (bit 2) with stray
 * rounding bits, and ignored high bits. */
static const uint8_t ps2ph_imms[] = { 0, 1, 2, 3, 4, 7, 0xf9, 0x0e };

START_TEST(test_ps2ph)
{
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(32);
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(ps2ph_imms); i++) {
		ZydisEncoderOperand imm = fp_imm(ps2ph_imms[i]);
		failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPS2PH, X(1), X(3), imm), false);
		failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPS2PH, fp_mem(8), X(3), imm), false);
		failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPS2PH, X(1), Y(3), imm), false);
		failed += check_form(&h, ENC(ZYDIS_MNEMONIC_VCVTPS2PH, fp_mem(16), Y(3), imm), false);
	}
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

static Suite *emu_f16c_suite(void)
{
	Suite *s = suite_create("emu_f16c");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_ph2ps);
	tcase_add_test(tc, test_ps2ph);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_f16c_suite)
