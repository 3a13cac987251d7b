/*
 * test_emu_sse_shuffle.c — shuffles, permutes, unpacks, packs, palignr,
 * inserts/extracts and blends (ops_sse_shuffle.c) against the CPU: every
 * form runs natively and in the emulator from the same seeded states,
 * immediates drawn afresh on every run (vec_stub.h).
 */
#include "check_main.h"
#include "vec_stub.h"

/* Two-source forms: legacy register and aligned memory, VEX 128 and 256. */
#define TWO(X, m)                                                        \
	X(m##_xx, 0, #m " xmm1, xmm2")                                   \
	X(m##_xm, 0, #m " xmm3, [rsi+32]")                               \
	X(v##m##_xxx, 0, "v" #m " xmm1, xmm2, xmm3")                     \
	X(v##m##_yyy, 0, "v" #m " ymm4, ymm5, ymm6")                     \
	X(v##m##_yym, 0, "v" #m " ymm7, ymm8, [rsi+65]")
#define MMX_TWO(X, m)                                                    \
	TWO(X, m)                                                        \
	X(m##_mm, 0, #m " mm1, mm2")                                     \
	X(m##_mmem, 0, #m " mm3, [rsi+8]")
/* The same with an immediate. */
#define TWO_IMM(X, m)                                                    \
	X(m##_xx, VEC_IMM8, #m " xmm1, xmm2, 0")                         \
	X(m##_xm, VEC_IMM8, #m " xmm3, [rsi+32], 0")                     \
	X(v##m##_xxx, VEC_IMM8, "v" #m " xmm1, xmm2, xmm3, 0")           \
	X(v##m##_yyy, VEC_IMM8, "v" #m " ymm4, ymm5, ymm6, 0")           \
	X(v##m##_yym, VEC_IMM8, "v" #m " ymm7, ymm8, [rsi+65], 0")
/* One source and an immediate. */
#define ONE_IMM(X, m)                                                    \
	X(m##_xx, VEC_IMM8, #m " xmm1, xmm2, 0")                         \
	X(m##_xm, VEC_IMM8, #m " xmm3, [rsi+16], 0")                     \
	X(v##m##_yy, VEC_IMM8, "v" #m " ymm1, ymm2, 0")                  \
	X(v##m##_ym, VEC_IMM8, "v" #m " ymm3, [rsi+3], 0")
#define INSERT(X, m, reg, msize)                                         \
	X(m##_r, VEC_IMM8, #m " xmm1, " reg ", 0")                       \
	X(m##_m, VEC_IMM8, #m " xmm1, " msize " ptr [rsi+3], 0")         \
	X(v##m##_r, VEC_IMM8, "v" #m " xmm1, xmm2, " reg ", 0")          \
	X(v##m##_m, VEC_IMM8, "v" #m " xmm1, xmm2, " msize " ptr [rsi+5], 0")
#define EXTRACT(X, m, reg, msize)                                        \
	X(m##_r, VEC_IMM8, #m " " reg ", xmm1, 0")                       \
	X(m##_m, VEC_IMM8, #m " " msize " ptr [rsi+3], xmm1, 0")         \
	X(v##m##_r, VEC_IMM8, "v" #m " " reg ", xmm2, 0")

#define SHUFFLE_CASES(X)                                                 \
	ONE_IMM(X, pshufd) ONE_IMM(X, pshuflw) ONE_IMM(X, pshufhw)           \
	X(pshufw_mm, VEC_IMM8, "pshufw mm1, mm2, 0")                         \
	X(pshufw_mmem, VEC_IMM8, "pshufw mm1, [rsi+1], 0")                   \
	X(vpermq_yy, VEC_IMM8, "vpermq ymm1, ymm2, 0")                       \
	X(vpermpd_ym, VEC_IMM8, "vpermpd ymm1, [rsi+8], 0")                  \
	X(vpermilps_xi, VEC_IMM8, "vpermilps xmm1, xmm2, 0")                 \
	X(vpermilps_yi, VEC_IMM8, "vpermilps ymm1, [rsi+4], 0")              \
	X(vpermilpd_xi, VEC_IMM8, "vpermilpd xmm1, xmm2, 0")                 \
	X(vpermilpd_yi, VEC_IMM8, "vpermilpd ymm1, ymm2, 0")                 \
	X(vpermilps_yyy, 0, "vpermilps ymm1, ymm2, ymm3")                    \
	X(vpermilps_xxm, 0, "vpermilps xmm1, xmm2, [rsi]")                   \
	X(vpermilpd_yyy, 0, "vpermilpd ymm1, ymm2, ymm3")                    \
	X(vpermilpd_xxx, 0, "vpermilpd xmm1, xmm2, xmm3")                    \
	X(vpermd_yyy, 0, "vpermd ymm1, ymm2, ymm3")                          \
	X(vpermd_yym, 0, "vpermd ymm1, ymm2, [rsi+4]")                       \
	X(vpermps_yyy, 0, "vpermps ymm1, ymm2, ymm3")                        \
	MMX_TWO(X, pshufb)                                                   \
	TWO_IMM(X, shufps) TWO_IMM(X, shufpd)                                \
	MMX_TWO(X, punpcklbw) MMX_TWO(X, punpcklwd) MMX_TWO(X, punpckldq)    \
	TWO(X, punpcklqdq)                                                   \
	MMX_TWO(X, punpckhbw) MMX_TWO(X, punpckhwd) MMX_TWO(X, punpckhdq)    \
	TWO(X, punpckhqdq)                                                   \
	TWO(X, unpcklps) TWO(X, unpcklpd) TWO(X, unpckhps) TWO(X, unpckhpd)  \
	MMX_TWO(X, packsswb) MMX_TWO(X, packssdw) MMX_TWO(X, packuswb)       \
	TWO(X, packusdw)                                                     \
	TWO_IMM(X, palignr)                                                  \
	X(palignr_mm, VEC_IMM8, "palignr mm1, mm2, 0")                       \
	X(palignr_mmem, VEC_IMM8, "palignr mm1, [rsi+3], 0")                 \
	TWO_IMM(X, blendps) TWO_IMM(X, blendpd) TWO_IMM(X, pblendw)          \
	X(vpblendd_xxx, VEC_IMM8, "vpblendd xmm1, xmm2, xmm3, 0")            \
	X(vpblendd_yym, VEC_IMM8, "vpblendd ymm1, ymm2, [rsi+1], 0")         \
	X(blendvps_xx, 0, "blendvps xmm1, xmm2, xmm0")                       \
	X(blendvpd_xm, 0, "blendvpd xmm1, [rsi+16], xmm0")                   \
	X(pblendvb_xx, 0, "pblendvb xmm3, xmm4, xmm0")                       \
	X(vblendvps_yyyy, 0, "vblendvps ymm1, ymm2, ymm3, ymm4")             \
	X(vblendvpd_xxmx, 0, "vblendvpd xmm1, xmm2, [rsi+1], xmm5")          \
	X(vpblendvb_yyyy, 0, "vpblendvb ymm1, ymm2, ymm3, ymm4")             \
	X(vpblendvb_xxxx, 0, "vpblendvb xmm1, xmm2, xmm3, xmm4")             \
	INSERT(X, pinsrb, "eax", "byte") INSERT(X, pinsrw, "ecx", "word")    \
	INSERT(X, pinsrd, "edx", "dword") INSERT(X, pinsrq, "r9", "qword")   \
	X(pinsrw_mmr, VEC_IMM8, "pinsrw mm1, eax, 0")                        \
	X(pinsrw_mmm, VEC_IMM8, "pinsrw mm1, word ptr [rsi+1], 0")           \
	EXTRACT(X, pextrb, "eax", "byte") EXTRACT(X, pextrw, "ecx", "word")  \
	EXTRACT(X, pextrd, "edx", "dword") EXTRACT(X, pextrq, "r9", "qword") \
	EXTRACT(X, extractps, "eax", "dword")                                \
	X(pextrw_rmm, VEC_IMM8, "pextrw eax, mm1, 0")                        \
	X(pextrw_r64, VEC_IMM8, "pextrw rbx, xmm1, 0")                       \
	X(insertps_xx, VEC_IMM8, "insertps xmm1, xmm2, 0")                   \
	X(insertps_xm, VEC_IMM8, "insertps xmm1, dword ptr [rsi+3], 0")      \
	X(vinsertps_xxx, VEC_IMM8, "vinsertps xmm1, xmm2, xmm3, 0")          \
	X(vinsertps_xxm, VEC_IMM8, "vinsertps xmm1, xmm2, dword ptr [rsi], 0")

SHUFFLE_CASES(VEC_DEFINE_CASE)
static const struct vec_case shuffle_cases[] = { SHUFFLE_CASES(VEC_CASE_ENTRY) };

START_TEST(test_shuffle_differential)
{
	vec_run_cases("sse_shuffle", shuffle_cases,
		      sizeof(shuffle_cases) / sizeof(shuffle_cases[0]), 200, 0x9a11c0deull);
}
END_TEST

static Suite *sse_shuffle_suite(void)
{
	Suite *s = suite_create("emu_sse_shuffle");
	TCase *tc = tcase_create("shuffle");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_shuffle_differential);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sse_shuffle_suite)
