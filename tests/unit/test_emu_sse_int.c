/*
 * test_emu_sse_int.c — packed integer arithmetic and logic (ops_sse_int.c)
 * against the CPU: every MMX, SSE and AVX2 form runs natively and in the
 * emulator from the same seeded random and edge states (vec_stub.h).
 */
#include "check_main.h"
#include "vec_stub.h"

/* The legacy SSE forms (register and aligned memory source) and the VEX
 * 128- and 256-bit forms of a two-source instruction. */
#define SSE_AVX(X, m)                                                    \
	X(m##_xx, 0, #m " xmm1, xmm2")                                   \
	X(m##_xm, 0, #m " xmm3, [rsi+32]")                               \
	X(v##m##_xxx, 0, "v" #m " xmm1, xmm2, xmm3")                     \
	X(v##m##_yyy, 0, "v" #m " ymm4, ymm5, ymm6")                     \
	X(v##m##_yym, 0, "v" #m " ymm7, ymm8, [rsi+64]")
/* ... plus the MMX forms. */
#define MMX_SSE_AVX(X, m)                                                \
	SSE_AVX(X, m)                                                    \
	X(m##_mm, 0, #m " mm1, mm2")                                     \
	X(m##_mmem, 0, #m " mm3, [rsi+8]")
/* One-source forms (pabs). */
#define UNARY(X, m)                                                      \
	X(m##_mm, 0, #m " mm1, mm2")                                     \
	X(m##_xx, 0, #m " xmm1, xmm2")                                   \
	X(m##_xm, 0, #m " xmm3, [rsi+48]")                               \
	X(v##m##_yy, 0, "v" #m " ymm4, ymm5")
/* Shifts by immediate and by register, all widths. */
#define SHIFT(X, m)                                                      \
	X(m##_mi, VEC_IMM8, #m " mm1, 0")                                \
	X(m##_mm, 0, #m " mm1, mm2")                                     \
	X(m##_xi, VEC_IMM8, #m " xmm1, 0")                               \
	X(m##_xx, 0, #m " xmm1, xmm2")                                   \
	X(m##_xm, 0, #m " xmm1, [rsi+16]")                               \
	X(v##m##_xxi, VEC_IMM8, "v" #m " xmm1, xmm2, 0")                 \
	X(v##m##_yyi, VEC_IMM8, "v" #m " ymm1, ymm2, 0")                 \
	X(v##m##_yyx, 0, "v" #m " ymm1, ymm2, xmm3")                     \
	X(v##m##_yym, 0, "v" #m " ymm1, ymm2, [rsi]")

#define INT_CASES(X)                                                     \
	MMX_SSE_AVX(X, paddb) MMX_SSE_AVX(X, paddw) MMX_SSE_AVX(X, paddd)    \
	MMX_SSE_AVX(X, paddq) MMX_SSE_AVX(X, paddsb) MMX_SSE_AVX(X, paddsw)  \
	MMX_SSE_AVX(X, paddusb) MMX_SSE_AVX(X, paddusw)                      \
	MMX_SSE_AVX(X, psubb) MMX_SSE_AVX(X, psubw) MMX_SSE_AVX(X, psubd)    \
	MMX_SSE_AVX(X, psubq) MMX_SSE_AVX(X, psubsb) MMX_SSE_AVX(X, psubsw)  \
	MMX_SSE_AVX(X, psubusb) MMX_SSE_AVX(X, psubusw)                      \
	MMX_SSE_AVX(X, pmullw) SSE_AVX(X, pmulld) MMX_SSE_AVX(X, pmulhw)     \
	MMX_SSE_AVX(X, pmulhuw) MMX_SSE_AVX(X, pmulhrsw)                     \
	MMX_SSE_AVX(X, pmuludq) SSE_AVX(X, pmuldq)                           \
	MMX_SSE_AVX(X, pmaddwd) MMX_SSE_AVX(X, pmaddubsw)                    \
	MMX_SSE_AVX(X, psadbw) MMX_SSE_AVX(X, pavgb) MMX_SSE_AVX(X, pavgw)   \
	MMX_SSE_AVX(X, pminub) SSE_AVX(X, pminuw) SSE_AVX(X, pminud)         \
	SSE_AVX(X, pminsb) MMX_SSE_AVX(X, pminsw) SSE_AVX(X, pminsd)         \
	MMX_SSE_AVX(X, pmaxub) SSE_AVX(X, pmaxuw) SSE_AVX(X, pmaxud)         \
	SSE_AVX(X, pmaxsb) MMX_SSE_AVX(X, pmaxsw) SSE_AVX(X, pmaxsd)         \
	MMX_SSE_AVX(X, pcmpeqb) MMX_SSE_AVX(X, pcmpeqw)                      \
	MMX_SSE_AVX(X, pcmpeqd) SSE_AVX(X, pcmpeqq)                          \
	MMX_SSE_AVX(X, pcmpgtb) MMX_SSE_AVX(X, pcmpgtw)                      \
	MMX_SSE_AVX(X, pcmpgtd) SSE_AVX(X, pcmpgtq)                          \
	MMX_SSE_AVX(X, pand) MMX_SSE_AVX(X, pandn) MMX_SSE_AVX(X, por)       \
	MMX_SSE_AVX(X, pxor)                                                 \
	SSE_AVX(X, andps) SSE_AVX(X, andpd) SSE_AVX(X, andnps)               \
	SSE_AVX(X, andnpd) SSE_AVX(X, orps) SSE_AVX(X, orpd)                 \
	SSE_AVX(X, xorps) SSE_AVX(X, xorpd)                                  \
	MMX_SSE_AVX(X, psignb) MMX_SSE_AVX(X, psignw) MMX_SSE_AVX(X, psignd) \
	UNARY(X, pabsb) UNARY(X, pabsw) UNARY(X, pabsd)                      \
	MMX_SSE_AVX(X, phaddw) MMX_SSE_AVX(X, phaddd) MMX_SSE_AVX(X, phaddsw) \
	MMX_SSE_AVX(X, phsubw) MMX_SSE_AVX(X, phsubd) MMX_SSE_AVX(X, phsubsw) \
	SHIFT(X, psllw) SHIFT(X, pslld) SHIFT(X, psllq)                      \
	SHIFT(X, psrlw) SHIFT(X, psrld) SHIFT(X, psrlq)                      \
	SHIFT(X, psraw) SHIFT(X, psrad)                                      \
	X(vpsllvd_yyy, 0, "vpsllvd ymm1, ymm2, ymm3")                        \
	X(vpsllvq_xxm, 0, "vpsllvq xmm1, xmm2, [rsi+1]")                     \
	X(vpsrlvd_xxx, 0, "vpsrlvd xmm1, xmm2, xmm3")                        \
	X(vpsrlvq_yym, 0, "vpsrlvq ymm1, ymm2, [rsi+32]")                    \
	X(vpsravd_yyy, 0, "vpsravd ymm1, ymm2, ymm3")                        \
	X(pslldq_xi, VEC_IMM8, "pslldq xmm1, 0")                             \
	X(psrldq_xi, VEC_IMM8, "psrldq xmm2, 0")                             \
	X(vpslldq_yyi, VEC_IMM8, "vpslldq ymm1, ymm2, 0")                    \
	X(vpsrldq_xxi, VEC_IMM8, "vpsrldq xmm1, xmm2, 0")                    \
	X(ptest_xx, 0, "ptest xmm1, xmm2")                                   \
	X(ptest_xm, 0, "ptest xmm1, [rsi]")                                  \
	X(vptest_yy, 0, "vptest ymm1, ymm2")                                 \
	X(vptest_same, 0, "vptest ymm3, ymm3")                               \
	X(phminposuw_xx, 0, "phminposuw xmm1, xmm2")                         \
	X(vphminposuw_xm, 0, "vphminposuw xmm1, [rsi+3]")                    \
	X(mpsadbw_xxi, VEC_IMM8, "mpsadbw xmm1, xmm2, 0")                    \
	X(vmpsadbw_yymi, VEC_IMM8, "vmpsadbw ymm1, ymm2, [rsi+7], 0")

INT_CASES(VEC_DEFINE_CASE)
static const struct vec_case int_cases[] = { INT_CASES(VEC_CASE_ENTRY) };

START_TEST(test_int_differential)
{
	vec_run_cases("sse_int", int_cases, sizeof(int_cases) / sizeof(int_cases[0]),
		      200, 0x5eed1234abcdull);
}
END_TEST

START_TEST(test_legacy_misaligned_operand_faults)
{
	/* paddb xmm1, [rsi+1]: a legacy SSE 16-byte operand must be aligned;
	 * the VEX form of the same instruction is not. */
	static const uint8_t legacy[] = { 0x66, 0x0f, 0xfc, 0x4e, 0x01 };
	static const uint8_t vex[] = { 0xc5, 0xf1, 0xfc, 0x4e, 0x01 };
	struct vec_harness h;
	vec_harness_init(&h, 1);
	struct emu_regs *r = emu_regs(h.cpu);
	memcpy(h.code, legacy, sizeof(legacy));
	r->gpr[EMU_RSI] = (uint64_t)(uintptr_t)h.mem;
	r->rip = (uint64_t)(uintptr_t)h.code;
	ck_assert_int_eq(emu_run(h.cpu, 1), EMU_EXIT_FAULT);
	ck_assert_int_eq(emu_exit_info(h.cpu)->fault, EMU_FAULT_GP);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)h.code);
	memcpy(h.code, vex, sizeof(vex));
	emu_invalidate_code(h.cpu, 0, UINT64_MAX);
	ck_assert_int_eq(emu_run(h.cpu, 1), EMU_EXIT_LIMIT);
	vec_harness_fini(&h);
}
END_TEST

static Suite *sse_int_suite(void)
{
	Suite *s = suite_create("emu_sse_int");
	TCase *tc = tcase_create("int");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_int_differential);
	tcase_add_test(tc, test_legacy_misaligned_operand_faults);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sse_int_suite)
