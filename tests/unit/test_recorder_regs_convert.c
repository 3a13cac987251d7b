/*
 * test_recorder_regs_convert.c — emu_regs <-> kernel register conversion:
 * round trips in memory, through a live process's registers, and against
 * values the real CPU put in its registers.
 */
#include <check.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "recorder/regs_convert.h"
#include "recorder/tracee.h"
#include "tests/shared/model_specific.h"

/* An 80-bit value with a non-zero exponent and the integer bit: tag "valid". */
static void set_normal(emu_x87_reg *r, uint64_t mantissa_low, uint16_t exp)
{
	memset(r, 0, sizeof(*r));
	uint64_t m = mantissa_low | (1ull << 63);
	memcpy(r->bytes, &m, 8);
	r->bytes[8] = (uint8_t)exp;
	r->bytes[9] = (uint8_t)(exp >> 8);
}

/* A state with every field set to something recognisable. Registers 2 and
 * 5 are empty, register 3 holds zero (tag 01), the rest normal numbers. */
static void fill_state(struct emu_regs *r, unsigned seed)
{
	memset(r, 0, sizeof(*r));
	srand(seed);
	for (unsigned i = 0; i < EMU_GPR_COUNT; i++)
		r->gpr[i] = ((uint64_t)rand() << 32) ^ (uint64_t)rand();
	r->rip = 0x401000 + seed;
	r->rflags = 0x246;
	r->fs_base = 0x7f0000001000;
	r->gs_base = 0;
	r->seg_cs = 0x33;
	r->seg_ss = 0x2b;
	for (unsigned i = 0; i < 8; i++)
		set_normal(&r->st[i], (uint64_t)rand(), (uint16_t)(0x3fff + i));
	memset(&r->st[3], 0, sizeof(r->st[3]));
	memset(&r->st[2], 0, sizeof(r->st[2]));
	memset(&r->st[5], 0, sizeof(r->st[5]));
	r->ftw = (uint16_t)((3u << 4) | (1u << 6) | (3u << 10));
	r->fcw = 0x27f;
	r->fsw = 5u << 11; /* TOP = 5 */
	r->fop = 0x1d9;
	r->fip = 0x401234;
	r->fdp = 0x7ffd0000;
	for (unsigned i = 0; i < 32; i++)
		for (unsigned j = 0; j < 64; j++)
			r->zmm[i].b[j] = (uint8_t)(rand() ^ i);
	for (unsigned i = 0; i < 8; i++)
		r->k[i] = (uint64_t)rand() * 0x10001;
	r->mxcsr = 0x1f80 | 0x6000; /* round toward zero */
}

/* r with only what this machine's XSAVE area holds (its XCR0): on a CPU
 * without AVX-512, say, no opmask, no upper halves of zmm0-15 and no
 * zmm16-31, which a conversion through that area cannot carry. */
static void keep_host_components(struct emu_regs *r)
{
	uint64_t xcr0 = host_xcr0();
	for (unsigned i = 0; i < 32; i++) {
		if (i >= 16 && !(xcr0 & (1u << 7))) /* Hi16_ZMM */
			memset(&r->zmm[i], 0, sizeof(r->zmm[i]));
		if (!(xcr0 & (1u << 6))) /* ZMM_Hi256 */
			memset(r->zmm[i].b + 32, 0, 32);
		if (!(xcr0 & (1u << 2))) /* AVX */
			memset(r->zmm[i].b + 16, 0, 16);
	}
	if (!(xcr0 & (1u << 5))) /* opmask */
		memset(r->k, 0, sizeof(r->k));
}

START_TEST(test_round_trip_in_memory)
{
	static uint8_t xstate[TRACEE_XSTATE_MAX];
	struct emu_regs in, out;
	struct user_regs_struct k;
	memset(&k, 0, sizeof(k));
	fill_state(&in, 1);
	keep_host_components(&in);
	regs_to_kernel(&in, &k, xstate, sizeof(xstate));
	regs_from_kernel(&k, xstate, sizeof(xstate), &out);
	ck_assert_uint_eq(out.ftw, in.ftw);
	ck_assert_uint_eq(out.rip, in.rip);
	ck_assert_uint_eq(out.fip, in.fip);
	ck_assert_mem_eq(out.st, in.st, sizeof(in.st));
	ck_assert_mem_eq(out.zmm, in.zmm, sizeof(in.zmm));
	ck_assert_mem_eq(&out, &in, sizeof(in));
}
END_TEST

/* Components marked as initial in XSTATE_BV read as their initial values,
 * whatever bytes the buffer holds. */
START_TEST(test_init_components)
{
	static uint8_t xstate[TRACEE_XSTATE_MAX];
	struct emu_regs in, out;
	struct user_regs_struct k;
	memset(&k, 0, sizeof(k));
	fill_state(&in, 2);
	regs_to_kernel(&in, &k, xstate, sizeof(xstate));
	memset(xstate + 512, 0, 8); /* XSTATE_BV: everything in init state */
	regs_from_kernel(&k, xstate, sizeof(xstate), &out);
	ck_assert_uint_eq(out.fcw, 0x37f);
	ck_assert_uint_eq(out.ftw, 0xffff);
	ck_assert_uint_eq(out.mxcsr, in.mxcsr); /* never init-overridden */
	for (unsigned i = 0; i < 32; i++)
		for (unsigned j = 0; j < 8; j++)
			ck_assert_uint_eq(out.zmm[i].q[j], 0);
	ck_assert_uint_eq(out.k[3], 0);
	ck_assert_uint_eq(out.gpr[EMU_RBX], in.gpr[EMU_RBX]);
}
END_TEST

/* Set the state into a stopped process and read it back: the kernel must
 * accept the buffer and give back every bit. */
START_TEST(test_round_trip_through_kernel)
{
	static uint8_t xstate[TRACEE_XSTATE_MAX];
	char *argv[] = { "true", NULL };
	struct tracee t;
	enum tracee_start_error err;
	int e;
	ck_assert_int_eq(tracee_start(&t, argv, &err, &e), 0);
	struct user_regs_struct k;
	ck_assert_int_eq(tracee_get_regs(&t, &k), 0);
	ck_assert_int_eq(tracee_get_xstate(&t, xstate), 0);
	struct emu_regs live, want, got;
	regs_from_kernel(&k, xstate, t.xstate_size, &live);
	ck_assert_uint_eq(live.rip, k.rip);
	ck_assert_uint_eq(live.fcw, 0x37f);
	ck_assert_uint_eq(live.mxcsr, 0x1f80);

	fill_state(&want, 3);
	/* Keep what the kernel checks or owns: segments, fs base, rip. */
	want.rip = live.rip;
	want.seg_cs = live.seg_cs; want.seg_ss = live.seg_ss;
	want.seg_ds = live.seg_ds; want.seg_es = live.seg_es;
	want.seg_fs = live.seg_fs; want.seg_gs = live.seg_gs;
	want.fs_base = live.fs_base;
	want.gs_base = live.gs_base;
	if (t.xstate_size < 2688) { /* no AVX-512 here: those registers stay zero */
		memset(want.k, 0, sizeof(want.k));
		for (unsigned i = 0; i < 32; i++)
			memset(want.zmm[i].b + (i < 16 ? 32 : 0), 0, i < 16 ? 32 : 64);
	}
	regs_to_kernel(&want, &k, xstate, t.xstate_size);
	ck_assert_int_eq(tracee_set_regs(&t, &k), 0);
	ck_assert_int_eq(tracee_set_xstate(&t, xstate), 0);
	memset(xstate, 0, sizeof(xstate));
	memset(&k, 0, sizeof(k));
	ck_assert_int_eq(tracee_get_regs(&t, &k), 0);
	ck_assert_int_eq(tracee_get_xstate(&t, xstate), 0);
	regs_from_kernel(&k, xstate, t.xstate_size, &got);
	ck_assert_mem_eq(got.gpr, want.gpr, sizeof(want.gpr));
	ck_assert_uint_eq(got.rflags, want.rflags);
	ck_assert_mem_eq(got.st, want.st, sizeof(want.st));
	ck_assert_uint_eq(got.ftw, want.ftw);
	ck_assert_uint_eq(got.fsw, want.fsw);
	ck_assert_uint_eq(got.fip, want.fip);
	ck_assert_mem_eq(got.zmm, want.zmm, sizeof(want.zmm));
	ck_assert_mem_eq(got.k, want.k, sizeof(want.k));
	ck_assert_uint_eq(got.mxcsr, want.mxcsr);
	ck_assert_mem_eq(&got, &want, sizeof(want));
	tracee_kill(&t);
}
END_TEST

/* Values the real CPU holds, read through the kernel: checks the layout
 * (XMM/YMM halves, x87 stack order and tags) against the hardware. */
START_TEST(test_matches_cpu)
{
	static const uint8_t pattern[32] = {
		1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
		17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32,
	};
	bool avx = __builtin_cpu_supports("avx");
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		__asm__ volatile("movdqu (%0), %%xmm7\n\t"
				 "fld1\n\t"
				 "fldpi\n\t" :: "r"(pattern) : "xmm7", "st", "st(1)");
		if (avx)
			__asm__ volatile("vmovdqu (%0), %%ymm9" :: "r"(pattern) : "xmm9");
		__asm__ volatile("int3");
		_exit(0);
	}
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP);
	struct tracee t = { .pid = pid, .alive = true, .xstate_size = TRACEE_XSTATE_MAX };
	static uint8_t xstate[TRACEE_XSTATE_MAX];
	struct iovec iov = { xstate, sizeof(xstate) };
	ck_assert_int_eq(ptrace(PTRACE_GETREGSET, pid, (void *)NT_X86_XSTATE, &iov), 0);
	t.xstate_size = iov.iov_len;
	struct user_regs_struct k;
	ck_assert_int_eq(tracee_get_regs(&t, &k), 0);
	struct emu_regs r;
	regs_from_kernel(&k, xstate, t.xstate_size, &r);
	ck_assert_mem_eq(r.zmm[7].b, pattern, 16);
	if (avx)
		ck_assert_mem_eq(r.zmm[9].b, pattern, 32);
	/* Two pushes from TOP 0: TOP = 6; 1.0 in R7, pi in R6. */
	ck_assert_uint_eq((r.fsw >> 11) & 7, 6);
	static const uint8_t one[10] = { 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f };
	static const uint8_t pi[10] = { 0x35, 0xc2, 0x68, 0x21, 0xa2, 0xda, 0x0f, 0xc9, 0x00, 0x40 };
	ck_assert_mem_eq(r.st[7].bytes, one, 10);
	ck_assert_mem_eq(r.st[6].bytes, pi, 10);
	ck_assert_uint_eq(r.ftw, 0x0fff); /* R6, R7 valid; the rest empty */
	t.alive = true;
	tracee_kill(&t);
}
END_TEST

static Suite *regs_convert_suite(void)
{
	Suite *s = suite_create("recorder_regs_convert");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_round_trip_in_memory);
	tcase_add_test(tc, test_init_components);
	tcase_add_test(tc, test_round_trip_through_kernel);
	tcase_add_test(tc, test_matches_cpu);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(regs_convert_suite)
