/*
 * test_emu_sse_move.c — SSE/AVX data movement (ops_sse_move.c) against the
 * CPU: every form runs natively and in the emulator from the same seeded
 * states (vec_stub.h); plus the faults and non-faults the architecture
 * defines (alignment, masked-off elements).
 */
#include "check_main.h"
#include "vec_stub.h"

/* Whole-vector moves: register, aligned and unaligned memory, both ways. */
#define COPY_ALIGNED(X, m)                                               \
	X(m##_xx, 0, #m " xmm1, xmm2")                                   \
	X(m##_xm, 0, #m " xmm1, [rsi+16]")                               \
	X(m##_mx, 0, #m " [rsi+32], xmm3")                               \
	X(v##m##_xx, 0, "v" #m " xmm1, xmm2")                            \
	X(v##m##_ym, 0, "v" #m " ymm1, [rsi+32]")                        \
	X(v##m##_my, 0, "v" #m " [rsi+64], ymm4")
#define COPY_UNALIGNED(X, m)                                             \
	COPY_ALIGNED(X, m)                                               \
	X(m##_xu, 0, #m " xmm1, [rsi+3]")                                \
	X(m##_ux, 0, #m " [rsi+5], xmm2")                                \
	X(v##m##_yu, 0, "v" #m " ymm1, [rsi+7]")                         \
	X(v##m##_uy, 0, "v" #m " [rsi+9], ymm2")
#define EXTEND(X, m, msize)                                              \
	X(m##_xx, 0, #m " xmm1, xmm2")                                   \
	X(m##_xm, 0, #m " xmm1, " msize " ptr [rsi+1]")                  \
	X(v##m##_xx, 0, "v" #m " xmm1, xmm2")                            \
	X(v##m##_yx, 0, "v" #m " ymm1, xmm2")                            \
	X(v##m##_ym, 0, "v" #m " ymm3, [rsi+5]")

#define MOVE_CASES(X)                                                    \
	COPY_ALIGNED(X, movdqa) COPY_ALIGNED(X, movaps) COPY_ALIGNED(X, movapd) \
	COPY_UNALIGNED(X, movdqu) COPY_UNALIGNED(X, movups) COPY_UNALIGNED(X, movupd) \
	X(lddqu_xu, 0, "lddqu xmm1, [rsi+3]")                                \
	X(vlddqu_yu, 0, "vlddqu ymm1, [rsi+1]")                              \
	X(movntdq_mx, 0, "movntdq [rsi+16], xmm1")                           \
	X(vmovntdq_my, 0, "vmovntdq [rsi+32], ymm1")                         \
	X(movntps_mx, 0, "movntps [rsi+16], xmm2")                           \
	X(vmovntpd_my, 0, "vmovntpd [rsi+64], ymm3")                         \
	X(movntdqa_xm, 0, "movntdqa xmm1, [rsi+16]")                         \
	X(vmovntdqa_ym, 0, "vmovntdqa ymm1, [rsi+32]")                       \
	X(movnti_m32, 0, "movnti [rsi+4], eax")                              \
	X(movnti_m64, 0, "movnti [rsi+8], r9")                               \
	X(movd_xr, 0, "movd xmm1, eax")                                      \
	X(movd_xm, 0, "movd xmm1, [rsi+4]")                                  \
	X(movd_rx, 0, "movd ecx, xmm1")                                      \
	X(movd_mx, 0, "movd [rsi+4], xmm1")                                  \
	X(movq_xr, 0, "movq xmm1, rax")                                      \
	X(movq_rx, 0, "movq r10, xmm1")                                      \
	X(movq_xx, 0, "movq xmm1, xmm2")                                     \
	X(movq_xm, 0, "movq xmm1, [rsi+8]")                                  \
	X(movq_mx, 0, "movq [rsi+8], xmm1")                                  \
	X(vmovd_xr, 0, "vmovd xmm1, eax")                                    \
	X(vmovd_rx, 0, "vmovd ebx, xmm4")                                    \
	X(vmovq_xx, 0, "vmovq xmm1, xmm2")                                   \
	X(vmovq_xm, 0, "vmovq xmm3, [rsi+3]")                                \
	X(vmovq_rx, 0, "vmovq rcx, xmm3")                                    \
	X(movd_mmr, 0, "movd mm1, eax")                                      \
	X(movd_rmm, 0, "movd eax, mm1")                                      \
	X(movq_mmr, 0, "movq mm1, rax")                                      \
	X(movq_rmm, 0, "movq rax, mm1")                                      \
	X(movq_mmmm, 0, "movq mm1, mm2")                                     \
	X(movq_mmm, 0, "movq mm1, [rsi+1]")                                  \
	X(movq_mmm_st, 0, "movq [rsi+1], mm1")                               \
	X(movq2dq, 0, "movq2dq xmm1, mm2")                                   \
	X(movdq2q, 0, "movdq2q mm1, xmm2")                                   \
	X(movss_xx, 0, "movss xmm1, xmm2")                                   \
	X(movss_xm, 0, "movss xmm1, [rsi+4]")                                \
	X(movss_mx, 0, "movss [rsi+4], xmm1")                                \
	X(vmovss_xxx, 0, "vmovss xmm1, xmm2, xmm3")                          \
	X(vmovss_xm, 0, "vmovss xmm1, [rsi]")                                \
	X(vmovss_mx, 0, "vmovss [rsi], xmm1")                                \
	X(movsd_xx, 0, "movsd xmm1, xmm2")                                   \
	X(movsd_xm, 0, "movsd xmm1, [rsi+8]")                                \
	X(movsd_mx, 0, "movsd [rsi+8], xmm1")                                \
	X(vmovsd_xxx, 0, "vmovsd xmm1, xmm2, xmm3")                          \
	X(vmovsd_xm, 0, "vmovsd xmm1, [rsi+1]")                              \
	X(movlps_xm, 0, "movlps xmm1, [rsi]")                                \
	X(movlps_mx, 0, "movlps [rsi], xmm1")                                \
	X(movhps_xm, 0, "movhps xmm1, [rsi+8]")                              \
	X(movhps_mx, 0, "movhps [rsi+8], xmm1")                              \
	X(movlpd_xm, 0, "movlpd xmm1, [rsi+2]")                              \
	X(movhpd_mx, 0, "movhpd [rsi+2], xmm1")                              \
	X(vmovlps_xxm, 0, "vmovlps xmm1, xmm2, [rsi]")                       \
	X(vmovhps_xxm, 0, "vmovhps xmm1, xmm2, [rsi]")                       \
	X(vmovhpd_mx, 0, "vmovhpd [rsi], xmm1")                              \
	X(movhlps_xx, 0, "movhlps xmm1, xmm2")                               \
	X(movlhps_xx, 0, "movlhps xmm1, xmm2")                               \
	X(vmovhlps_xxx, 0, "vmovhlps xmm1, xmm2, xmm3")                      \
	X(vmovlhps_xxx, 0, "vmovlhps xmm1, xmm2, xmm3")                      \
	X(movmskps, 0, "movmskps eax, xmm1")                                 \
	X(movmskps_r64, 0, "movmskps rdx, xmm1")                             \
	X(movmskpd, 0, "movmskpd ecx, xmm2")                                 \
	X(vmovmskps_y, 0, "vmovmskps eax, ymm2")                             \
	X(vmovmskpd_y, 0, "vmovmskpd eax, ymm2")                             \
	X(pmovmskb_x, 0, "pmovmskb eax, xmm1")                               \
	X(pmovmskb_mm, 0, "pmovmskb edx, mm1")                               \
	X(vpmovmskb_y, 0, "vpmovmskb eax, ymm1")                             \
	X(maskmovdqu, 0, "maskmovdqu xmm1, xmm2")                            \
	X(vmaskmovdqu, 0, "vmaskmovdqu xmm3, xmm4")                          \
	X(maskmovq, 0, "maskmovq mm1, mm2")                                  \
	X(vmaskmovps_ld, 0, "vmaskmovps ymm1, ymm2, [rsi+4]")                \
	X(vmaskmovps_st, 0, "vmaskmovps [rsi+4], ymm2, ymm3")                \
	X(vmaskmovpd_ld, 0, "vmaskmovpd xmm1, xmm2, [rsi]")                  \
	X(vmaskmovpd_st, 0, "vmaskmovpd [rsi], ymm2, ymm3")                  \
	X(vpmaskmovd_ld, 0, "vpmaskmovd ymm1, ymm2, [rsi]")                  \
	X(vpmaskmovq_st, 0, "vpmaskmovq [rsi+8], ymm2, ymm3")                \
	X(movddup_xx, 0, "movddup xmm1, xmm2")                               \
	X(movddup_xm, 0, "movddup xmm1, [rsi+8]")                            \
	X(vmovddup_ym, 0, "vmovddup ymm1, [rsi+1]")                          \
	X(movsldup_xm, 0, "movsldup xmm1, [rsi+16]")                         \
	X(movshdup_xx, 0, "movshdup xmm1, xmm2")                             \
	X(vmovshdup_yy, 0, "vmovshdup ymm1, ymm2")                           \
	X(vmovsldup_yy, 0, "vmovsldup ymm1, ymm2")                           \
	EXTEND(X, pmovzxbw, "qword") EXTEND(X, pmovzxbd, "dword")            \
	EXTEND(X, pmovzxbq, "word") EXTEND(X, pmovzxwd, "qword")             \
	EXTEND(X, pmovzxwq, "dword") EXTEND(X, pmovzxdq, "qword")            \
	EXTEND(X, pmovsxbw, "qword") EXTEND(X, pmovsxbd, "dword")            \
	EXTEND(X, pmovsxbq, "word") EXTEND(X, pmovsxwd, "qword")             \
	EXTEND(X, pmovsxwq, "dword") EXTEND(X, pmovsxdq, "qword")            \
	X(vbroadcastss_xm, 0, "vbroadcastss xmm1, [rsi+4]")                  \
	X(vbroadcastss_yx, 0, "vbroadcastss ymm1, xmm2")                     \
	X(vbroadcastsd_ym, 0, "vbroadcastsd ymm1, [rsi+8]")                  \
	X(vbroadcastsd_yx, 0, "vbroadcastsd ymm1, xmm2")                     \
	X(vbroadcastf128, 0, "vbroadcastf128 ymm1, [rsi+16]")                \
	X(vbroadcasti128, 0, "vbroadcasti128 ymm1, [rsi+3]")                 \
	X(vpbroadcastb_xx, 0, "vpbroadcastb xmm1, xmm2")                     \
	X(vpbroadcastb_ym, 0, "vpbroadcastb ymm1, [rsi+3]")                  \
	X(vpbroadcastw_yx, 0, "vpbroadcastw ymm1, xmm2")                     \
	X(vpbroadcastd_xm, 0, "vpbroadcastd xmm1, [rsi+4]")                  \
	X(vpbroadcastq_yx, 0, "vpbroadcastq ymm1, xmm2")                     \
	X(vinsertf128_yyx, VEC_IMM8, "vinsertf128 ymm1, ymm2, xmm3, 0")      \
	X(vinserti128_yym, VEC_IMM8, "vinserti128 ymm1, ymm2, [rsi+1], 0")   \
	X(vextractf128_xy, VEC_IMM8, "vextractf128 xmm1, ymm2, 0")           \
	X(vextracti128_my, VEC_IMM8, "vextracti128 [rsi+16], ymm2, 0")       \
	X(vperm2f128_yyy, VEC_IMM8, "vperm2f128 ymm1, ymm2, ymm3, 0")        \
	X(vperm2i128_yym, VEC_IMM8, "vperm2i128 ymm1, ymm2, [rsi+32], 0")    \
	X(vzeroupper, 0, "vzeroupper")                                       \
	X(vzeroall, 0, "vzeroall")

MOVE_CASES(VEC_DEFINE_CASE)
static const struct vec_case move_cases[] = { MOVE_CASES(VEC_CASE_ENTRY) };

START_TEST(test_move_differential)
{
	vec_run_cases("sse_move", move_cases, sizeof(move_cases) / sizeof(move_cases[0]),
		      200, 0x77aa5511ull);
}
END_TEST

/* Runs `code` in a fresh emulator with rsi = mem; returns the exit. */
static enum emu_exit emulate_at(struct vec_harness *h, const uint8_t *code, size_t len,
				uint64_t rsi)
{
	struct emu_regs *r = emu_regs(h->cpu);
	memcpy(h->code, code, len);
	emu_invalidate_code(h->cpu, 0, UINT64_MAX);
	r->gpr[EMU_RSI] = rsi;
	r->rip = (uint64_t)(uintptr_t)h->code;
	return emu_run(h->cpu, 1);
}

START_TEST(test_aligned_moves_fault_when_misaligned)
{
	static const uint8_t movdqa_load[] = { 0x66, 0x0f, 0x6f, 0x4e, 0x08 };  /* movdqa xmm1, [rsi+8] */
	static const uint8_t movdqu_load[] = { 0xf3, 0x0f, 0x6f, 0x4e, 0x08 };  /* movdqu xmm1, [rsi+8] */
	static const uint8_t vmovdqa_y[] = { 0xc5, 0xfd, 0x6f, 0x4e, 0x10 };    /* vmovdqa ymm1, [rsi+16] */
	struct vec_harness h;
	vec_harness_init(&h, 2);
	uint64_t mem = (uint64_t)(uintptr_t)h.mem;
	ck_assert_int_eq(emulate_at(&h, movdqa_load, sizeof(movdqa_load), mem), EMU_EXIT_FAULT);
	ck_assert_int_eq(emu_exit_info(h.cpu)->fault, EMU_FAULT_GP);
	ck_assert_int_eq(emulate_at(&h, movdqu_load, sizeof(movdqu_load), mem), EMU_EXIT_LIMIT);
	ck_assert_int_eq(emulate_at(&h, movdqa_load, sizeof(movdqa_load), mem + 8), EMU_EXIT_LIMIT);
	/* A 32-byte aligned move needs 32-byte alignment, not 16. */
	ck_assert_int_eq(emulate_at(&h, vmovdqa_y, sizeof(vmovdqa_y), mem), EMU_EXIT_FAULT);
	ck_assert_int_eq(emulate_at(&h, vmovdqa_y, sizeof(vmovdqa_y), mem + 16), EMU_EXIT_LIMIT);
	vec_harness_fini(&h);
}
END_TEST

START_TEST(test_masked_load_skips_unmapped_elements)
{
	/* vmaskmovps ymm1, ymm2, [rsi] with rsi 16 bytes before an unmapped
	 * page and only the low four elements selected: the CPU loads them
	 * without faulting; the emulator must not touch the others (the
	 * in-process memory would crash on them). */
	static const uint8_t code[] = { 0xc4, 0xe2, 0x6d, 0x2c, 0x0e };
	struct vec_harness h;
	vec_harness_init(&h, 3);
	uint8_t *pages = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(pages, MAP_FAILED);
	ck_assert_int_eq(mprotect(pages + 4096, 4096, PROT_NONE), 0);
	for (int i = 0; i < 16; i++)
		pages[4096 - 16 + i] = (uint8_t)(0x10 + i);

	struct vec_state in;
	vec_random_state(&h, &in);
	in.gpr[EMU_RSI] = (uint64_t)(uintptr_t)(pages + 4096 - 16);
	memset(in.ymm[2], 0, 32);
	for (int i = 0; i < 4; i++)
		in.ymm[2][i * 4 + 3] = 0x80;
	struct vec_state native = in, emulated = in;
	memcpy(h.code, code, sizeof(code));
	h.code[sizeof(code)] = 0xc3;
	vec_native_run(&native, h.code);
	ck_assert(vec_emulate(&h, &emulated, sizeof(code), "vmaskmovps near unmapped page"));
	ck_assert(memcmp(native.ymm[1], emulated.ymm[1], 32) == 0);
	ck_assert_uint_eq(emulated.ymm[1][0], 0x10);
	munmap(pages, 8192);
	vec_harness_fini(&h);
}
END_TEST

START_TEST(test_string_movsd_is_not_the_sse_move)
{
	/* a5 is the string movsd: it copies 4 bytes from [rsi] to [rdi] and
	 * must never run as the SSE2 scalar move. */
	static const uint8_t code[] = { 0xa5 };
	struct vec_harness h;
	vec_harness_init(&h, 4);
	struct emu_regs *r = emu_regs(h.cpu);
	memcpy(h.mem, "abcd", 4);
	memset(h.mem + 64, 0, 4);
	r->gpr[EMU_RDI] = (uint64_t)(uintptr_t)(h.mem + 64);
	r->rflags &= ~(uint64_t)EMU_DF;
	ck_assert_int_eq(emulate_at(&h, code, sizeof(code), (uint64_t)(uintptr_t)h.mem),
			 EMU_EXIT_LIMIT);
	ck_assert_mem_eq(h.mem + 64, "abcd", 4);
	ck_assert_uint_eq(r->gpr[EMU_RSI], (uint64_t)(uintptr_t)(h.mem + 4));
	ck_assert_uint_eq(r->gpr[EMU_RDI], (uint64_t)(uintptr_t)(h.mem + 68));
	vec_harness_fini(&h);
}
END_TEST

static Suite *sse_move_suite(void)
{
	Suite *s = suite_create("emu_sse_move");
	TCase *tc = tcase_create("move");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_move_differential);
	tcase_add_test(tc, test_aligned_moves_fault_when_misaligned);
	tcase_add_test(tc, test_masked_load_skips_unmapped_elements);
	tcase_add_test(tc, test_string_movsd_is_not_the_sse_move);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(sse_move_suite)
