/*
 * test_emu_sse_fp.c — SSE/AVX floating-point arithmetic and compares run
 * natively and in the emulator on the same bytes and states, over edge and
 * seeded random inputs, every rounding mode and DAZ/FTZ combination and
 * unmasked exceptions (fp_stub.h); results must agree bit for bit.
 */
#include "check_main.h"
#include "fp_forms.h"
#include "tests/shared/model_specific.h"

#define CASES 120

/* The four shapes of an operation: ps pd (legacy 16 bytes, VEX 256 too),
 * ss sd (scalar memory operands). */
static unsigned check_four_shapes(struct fp_harness *h, const ZydisMnemonic m[8],
				  bool unary, int imm)
{
	unsigned failed = 0;
	for (int shape = 0; shape < 4; shape++) {
		bool scalar = shape >= 2, dbl = shape & 1;
		struct fp_form_spec spec = {
			.legacy = m[shape], .vex = m[4 + shape],
			.src_size = scalar ? (dbl ? 8 : 4) : 16,
			.has_256 = !scalar, .two_operand_vex = unary && !scalar, .imm = imm,
		};
		if (spec.legacy == ZYDIS_MNEMONIC_INVALID)
			continue;
		failed += fp_check_spec(h, &spec, dbl ? FP_F64 : FP_F32, CASES);
	}
	return failed;
}

#define SHAPES(M) { ZYDIS_MNEMONIC_##M##PS, ZYDIS_MNEMONIC_##M##PD, \
	ZYDIS_MNEMONIC_##M##SS, ZYDIS_MNEMONIC_##M##SD, ZYDIS_MNEMONIC_V##M##PS, \
	ZYDIS_MNEMONIC_V##M##PD, ZYDIS_MNEMONIC_V##M##SS, ZYDIS_MNEMONIC_V##M##SD }
#define SINGLE_SHAPES(M) { ZYDIS_MNEMONIC_##M##PS, ZYDIS_MNEMONIC_INVALID, \
	ZYDIS_MNEMONIC_##M##SS, ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_V##M##PS, \
	ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_V##M##SS, ZYDIS_MNEMONIC_INVALID }
#define PACKED_SHAPES(M) { ZYDIS_MNEMONIC_##M##PS, ZYDIS_MNEMONIC_##M##PD, \
	ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_V##M##PS, \
	ZYDIS_MNEMONIC_V##M##PD, ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_INVALID }

START_TEST(test_arithmetic)
{
	static const ZydisMnemonic binary[][8] = {
		SHAPES(ADD), SHAPES(SUB), SHAPES(MUL), SHAPES(DIV), SHAPES(MIN), SHAPES(MAX),
	};
	static const ZydisMnemonic unary[][8] = {
		SHAPES(SQRT), SINGLE_SHAPES(RCP), SINGLE_SHAPES(RSQRT),
	};
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(1);
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(binary) / sizeof(binary[0]); i++)
		failed += check_four_shapes(&h, binary[i], false, FP_NO_IMM);
	for (size_t i = 0; i < sizeof(unary) / sizeof(unary[0]); i++)
		failed += check_four_shapes(&h, unary[i], true, FP_NO_IMM);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_horizontal)
{
	static const ZydisMnemonic ops[][8] = {
		PACKED_SHAPES(HADD), PACKED_SHAPES(HSUB), PACKED_SHAPES(ADDSUB),
	};
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(2);
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		failed += check_four_shapes(&h, ops[i], false, FP_NO_IMM);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/* Every predicate: 0..7 in the legacy encoding, 0..31 in VEX. */
START_TEST(test_compare_predicates)
{
	static const ZydisMnemonic cmp[8] = SHAPES(CMP);
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(3);
	unsigned failed = 0;
	for (int p = 0; p < 32; p++) {
		ZydisMnemonic m[8];
		memcpy(m, cmp, sizeof(m));
		if (p >= 8)
			m[0] = m[1] = m[2] = m[3] = ZYDIS_MNEMONIC_INVALID;
		for (int shape = 0; shape < 4; shape++) {
			bool scalar = shape >= 2, dbl = shape & 1;
			struct fp_form_spec spec = {
				.legacy = m[shape], .vex = m[4 + shape],
				.src_size = scalar ? (dbl ? 8 : 4) : 16,
				.has_256 = !scalar, .imm = p,
			};
			failed += fp_check_spec(&h, &spec, dbl ? FP_F64 : FP_F32, CASES / 4);
		}
	}
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_compare_flags)
{
	static const struct { ZydisMnemonic legacy, vex; bool dbl; } ops[] = {
		{ ZYDIS_MNEMONIC_COMISS, ZYDIS_MNEMONIC_VCOMISS, false },
		{ ZYDIS_MNEMONIC_COMISD, ZYDIS_MNEMONIC_VCOMISD, true },
		{ ZYDIS_MNEMONIC_UCOMISS, ZYDIS_MNEMONIC_VUCOMISS, false },
		{ ZYDIS_MNEMONIC_UCOMISD, ZYDIS_MNEMONIC_VUCOMISD, true },
	};
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(4);
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		struct fp_form_spec spec = {
			.legacy = ops[i].legacy, .vex = ops[i].vex,
			.src_size = ops[i].dbl ? 8 : 4, .two_operand_vex = true,
			.imm = FP_NO_IMM,
		};
		failed += fp_check_spec(&h, &spec, ops[i].dbl ? FP_F64 : FP_F32, CASES * 2);
	}
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/* Every immediate: rounding mode, MXCSR.RC selection, precision suppression. */
START_TEST(test_round)
{
	static const ZydisMnemonic round[8] = SHAPES(ROUND);
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(5);
	unsigned failed = 0;
	for (int imm = 0; imm < 16; imm++)
		failed += check_four_shapes(&h, round, true, imm);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

/* The immediate of the dot-product form under test. */
static int dot_imm;

/* Which NaN a dot product returns when several are possible is
 * model-specific: tests/shared/model_specific.h, dot_nan_choice. */
static void dot_nan_model_specific(const struct fp_harness *h, const struct fp_state *in,
				   const struct fp_state *native, struct fp_state *emulated)
{
	bool vex = h->form[0] == 'v', mem = strstr(h->form, "[rsi]") != NULL;
	bool dbl = strncmp(h->form + vex, "dppd", 4) == 0;
	unsigned lanes = strstr(h->form, "ymm1") ? 2 : 1;
	const uint8_t *src1 = in->ymm[vex ? 2 : 1], *src2 = mem ? in->mem : in->ymm[3];
	dot_nan_choice(dbl, lanes, (unsigned)dot_imm, src1, src2, native->ymm[1], emulated->ymm[1]);
}

START_TEST(test_dot_product)
{
	static const int masks[] = { 0xff, 0x00, 0x31, 0xf1, 0x7f, 0x8c, 0x13, 0x22, 0xe5, 0x5a, 0xf0, 0x3c };
	struct fp_harness h;
	fp_harness_init(&h);
	h.model_specific = dot_nan_model_specific;
	fp_seed(6);
	unsigned failed = 0;
	for (size_t i = 0; i < sizeof(masks) / sizeof(masks[0]); i++) {
		struct fp_form_spec ps = {
			.legacy = ZYDIS_MNEMONIC_DPPS, .vex = ZYDIS_MNEMONIC_VDPPS,
			.src_size = 16, .has_256 = true, .imm = masks[i],
		};
		struct fp_form_spec pd = {
			.legacy = ZYDIS_MNEMONIC_DPPD, .vex = ZYDIS_MNEMONIC_VDPPD,
			.src_size = 16, .imm = masks[i] & 0x33,
		};
		dot_imm = ps.imm;
		failed += fp_check_spec(&h, &ps, FP_F32, CASES);
		dot_imm = pd.imm;
		failed += fp_check_spec(&h, &pd, FP_F64, CASES);
	}
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

static Suite *emu_sse_fp_suite(void)
{
	Suite *s = suite_create("emu_sse_fp");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_arithmetic);
	tcase_add_test(tc, test_horizontal);
	tcase_add_test(tc, test_compare_predicates);
	tcase_add_test(tc, test_compare_flags);
	tcase_add_test(tc, test_round);
	tcase_add_test(tc, test_dot_product);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_sse_fp_suite)
