/*
 * test_emu_sse_convert.c — SSE/AVX conversions run natively and in the
 * emulator on the same bytes and states (fp_stub.h): integer boundaries
 * (2^31, 2^63 and their neighbours), NaNs, infinities, denormals, ties, in
 * every rounding mode and DAZ/FTZ combination and with unmasked exceptions.
 */
#include "check_main.h"
#include "fp_forms.h"

#define CASES 150

static unsigned check_insn(struct fp_harness *h, struct fp_insn in, enum fp_elem kind)
{
	fp_begin_form(h, &in);
	unsigned failed = fp_check_random(h, kind, CASES);
	fp_begin_form(h, NULL);
	return failed;
}

#define X(n) fp_reg(ZYDIS_REGISTER_XMM0 + (n))
#define Y(n) fp_reg(ZYDIS_REGISTER_YMM0 + (n))
#define MM(n) fp_reg(ZYDIS_REGISTER_MM0 + (n))
#define ENC(m, vex, ...) \
	fp_encode(m, vex, sizeof((ZydisEncoderOperand[]){ __VA_ARGS__ }) / sizeof(ZydisEncoderOperand), \
		  (ZydisEncoderOperand[]){ __VA_ARGS__ })

/* cvtsi2ss/sd from 32- and 64-bit registers and memory. */
START_TEST(test_int_to_scalar)
{
	static const ZydisMnemonic ops[][2] = {
		{ ZYDIS_MNEMONIC_CVTSI2SS, ZYDIS_MNEMONIC_VCVTSI2SS },
		{ ZYDIS_MNEMONIC_CVTSI2SD, ZYDIS_MNEMONIC_VCVTSI2SD },
	};
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(11);
	unsigned failed = 0;
	for (size_t i = 0; i < 2; i++)
		for (unsigned size = 4; size <= 8; size += 4) {
			ZydisEncoderOperand gpr = fp_reg(size == 8 ? ZYDIS_REGISTER_RBX : ZYDIS_REGISTER_EBX);
			failed += check_insn(&h, ENC(ops[i][0], false, X(1), gpr), FP_INT);
			failed += check_insn(&h, ENC(ops[i][0], false, X(1), fp_mem(size)), FP_INT);
			failed += check_insn(&h, ENC(ops[i][1], true, X(1), X(2), gpr), FP_INT);
			failed += check_insn(&h, ENC(ops[i][1], true, X(1), X(2), fp_mem(size)), FP_INT);
		}
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/* cvt(t)ss2si and cvt(t)sd2si into 32- and 64-bit registers. */
START_TEST(test_scalar_to_int)
{
	static const struct { ZydisMnemonic legacy, vex; bool dbl; } ops[] = {
		{ ZYDIS_MNEMONIC_CVTSS2SI, ZYDIS_MNEMONIC_VCVTSS2SI, false },
		{ ZYDIS_MNEMONIC_CVTTSS2SI, ZYDIS_MNEMONIC_VCVTTSS2SI, false },
		{ ZYDIS_MNEMONIC_CVTSD2SI, ZYDIS_MNEMONIC_VCVTSD2SI, true },
		{ ZYDIS_MNEMONIC_CVTTSD2SI, ZYDIS_MNEMONIC_VCVTTSD2SI, true },
	};
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(12);
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		enum fp_elem kind = ops[i].dbl ? FP_F64 : FP_F32;
		ZydisEncoderOperand mem = fp_mem(ops[i].dbl ? 8 : 4);
		for (int wide = 0; wide < 2; wide++) {
			ZydisEncoderOperand gpr = fp_reg(wide ? ZYDIS_REGISTER_RDX : ZYDIS_REGISTER_EDX);
			failed += check_insn(&h, ENC(ops[i].legacy, false, gpr, X(3)), kind);
			failed += check_insn(&h, ENC(ops[i].legacy, false, gpr, mem), kind);
			failed += check_insn(&h, ENC(ops[i].vex, true, gpr, X(3)), kind);
			failed += check_insn(&h, ENC(ops[i].vex, true, gpr, mem), kind);
		}
	}
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_scalar_precision)
{
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(13);
	unsigned failed = 0;
	struct fp_form_spec ss2sd = { .legacy = ZYDIS_MNEMONIC_CVTSS2SD,
		.vex = ZYDIS_MNEMONIC_VCVTSS2SD, .src_size = 4, .imm = FP_NO_IMM };
	struct fp_form_spec sd2ss = { .legacy = ZYDIS_MNEMONIC_CVTSD2SS,
		.vex = ZYDIS_MNEMONIC_VCVTSD2SS, .src_size = 8, .imm = FP_NO_IMM };
	failed += fp_check_spec(&h, &ss2sd, FP_F32, CASES);
	failed += fp_check_spec(&h, &sd2ss, FP_F64, CASES);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/*
 * Packed forms: the legacy destination/source register widths and memory
 * size, and the VEX.256 ones. `narrow` conversions (from doubles) read
 * twice the bytes they write; `widen` ones (to doubles) half.
 */
enum packed_shape { SAME_WIDTH, NARROW, WIDEN };

static unsigned check_packed(struct fp_harness *h, ZydisMnemonic legacy, ZydisMnemonic vex,
			     enum packed_shape shape, enum fp_elem kind)
{
	unsigned failed = 0;
	unsigned mem128 = shape == WIDEN ? 8 : 16;
	failed += check_insn(h, ENC(legacy, false, X(1), X(3)), kind);
	failed += check_insn(h, ENC(legacy, false, X(1), fp_mem(mem128)), kind);
	failed += check_insn(h, ENC(vex, true, X(1), X(3)), kind);
	failed += check_insn(h, ENC(vex, true, X(1), fp_mem(mem128)), kind);
	switch (shape) {
	case SAME_WIDTH:
		failed += check_insn(h, ENC(vex, true, Y(1), Y(3)), kind);
		failed += check_insn(h, ENC(vex, true, Y(1), fp_mem(32)), kind);
		break;
	case NARROW:
		failed += check_insn(h, ENC(vex, true, X(1), Y(3)), kind);
		failed += check_insn(h, ENC(vex, true, X(1), fp_mem(32)), kind);
		break;
	case WIDEN:
		failed += check_insn(h, ENC(vex, true, Y(1), X(3)), kind);
		failed += check_insn(h, ENC(vex, true, Y(1), fp_mem(16)), kind);
		break;
	}
	return failed;
}

START_TEST(test_packed)
{
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(14);
	unsigned failed = 0;
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTDQ2PS, ZYDIS_MNEMONIC_VCVTDQ2PS, SAME_WIDTH, FP_INT);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTPS2DQ, ZYDIS_MNEMONIC_VCVTPS2DQ, SAME_WIDTH, FP_F32);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTTPS2DQ, ZYDIS_MNEMONIC_VCVTTPS2DQ, SAME_WIDTH, FP_F32);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTDQ2PD, ZYDIS_MNEMONIC_VCVTDQ2PD, WIDEN, FP_INT);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTPS2PD, ZYDIS_MNEMONIC_VCVTPS2PD, WIDEN, FP_F32);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTPD2DQ, ZYDIS_MNEMONIC_VCVTPD2DQ, NARROW, FP_F64);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTTPD2DQ, ZYDIS_MNEMONIC_VCVTTPD2DQ, NARROW, FP_F64);
	failed += check_packed(&h, ZYDIS_MNEMONIC_CVTPD2PS, ZYDIS_MNEMONIC_VCVTPD2PS, NARROW, FP_F64);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_mmx_forms)
{
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(15);
	unsigned failed = 0;
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPI2PS, false, X(1), MM(3)), FP_INT);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPI2PS, false, X(1), fp_mem(8)), FP_INT);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPI2PD, false, X(1), MM(3)), FP_INT);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPI2PD, false, X(1), fp_mem(8)), FP_INT);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPS2PI, false, MM(1), X(3)), FP_F32);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPS2PI, false, MM(1), fp_mem(8)), FP_F32);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTTPS2PI, false, MM(1), X(3)), FP_F32);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTTPS2PI, false, MM(1), fp_mem(8)), FP_F32);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPD2PI, false, MM(1), X(3)), FP_F64);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTPD2PI, false, MM(1), fp_mem(16)), FP_F64);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTTPD2PI, false, MM(1), X(3)), FP_F64);
	failed += check_insn(&h, ENC(ZYDIS_MNEMONIC_CVTTPD2PI, false, MM(1), fp_mem(16)), FP_F64);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

static Suite *emu_sse_convert_suite(void)
{
	Suite *s = suite_create("emu_sse_convert");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_int_to_scalar);
	tcase_add_test(tc, test_scalar_to_int);
	tcase_add_test(tc, test_scalar_precision);
	tcase_add_test(tc, test_packed);
	tcase_add_test(tc, test_mmx_forms);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_sse_convert_suite)
