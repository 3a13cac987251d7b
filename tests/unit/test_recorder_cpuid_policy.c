/*
 * test_recorder_cpuid_policy.c — the default policy hides what the emulator
 * lacks and keeps the rest; a traced program's cpuid faults and gets the
 * policy's answer.
 */
#include <asm/prctl.h>
#include <check.h>
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "recorder/cpuid_policy.h"

#define B(n) (1u << (n))

static struct cpuid_result all_ones(void)
{
	return (struct cpuid_result){ ~0u, ~0u, ~0u, ~0u };
}

START_TEST(test_leaf1)
{
	struct cpuid_result r = all_ones();
	cpuid_policy_mask(&cpuid_policy_default, 1, 0, &r);
	/* Hidden: PCLMULQDQ 1, FMA 12, AES 25, XSAVE 26, OSXSAVE 27, AVX 28,
	 * F16C 29. */
	static const unsigned hidden[] = { 1, 12, 25, 26, 27, 28, 29 };
	for (unsigned i = 0; i < sizeof(hidden) / sizeof(hidden[0]); i++)
		ck_assert_msg(!(r.ecx & B(hidden[i])), "leaf 1 ecx bit %u visible", hidden[i]);
	/* Kept: SSE3 0, SSSE3 9, SSE4.1 19, SSE4.2 20 (emulated), CMPXCHG16B
	 * 13, POPCNT 23, MOVBE 22; edx (SSE2 26, FXSR 24) whole. */
	ck_assert(r.ecx & B(0));
	ck_assert(r.ecx & B(9));
	ck_assert(r.ecx & B(19));
	ck_assert(r.ecx & B(20));
	ck_assert(r.ecx & B(13));
	ck_assert(r.ecx & B(22));
	ck_assert(r.ecx & B(23));
	ck_assert_uint_eq(r.edx, ~0u);
	ck_assert_uint_eq(r.eax, ~0u);
	ck_assert_uint_eq(r.ebx, ~0u);
}
END_TEST

START_TEST(test_leaf7)
{
	struct cpuid_result r = all_ones();
	cpuid_policy_mask(&cpuid_policy_default, 7, 0, &r);
	ck_assert(!(r.ebx & B(5)));   /* AVX2 */
	ck_assert(!(r.ebx & B(16)));  /* AVX512F */
	ck_assert(!(r.ebx & B(30)));  /* AVX512BW */
	ck_assert(!(r.ebx & B(31)));  /* AVX512VL */
	ck_assert(!(r.ecx & B(1)));   /* AVX512_VBMI */
	ck_assert(!(r.edx & B(24)));  /* AMX-TILE */
	ck_assert(r.ebx & B(3));      /* BMI1 */
	ck_assert(r.ebx & B(8));      /* BMI2 */
	ck_assert(r.ebx & B(19));     /* ADX */
	ck_assert(r.ebx & B(9));      /* ERMS */
	ck_assert_uint_eq(r.eax, ~0u); /* max subleaf */
	/* Subleaf 1 is another table: subleaf-0 entries do not touch it. */
	r = all_ones();
	cpuid_policy_mask(&cpuid_policy_default, 7, 1, &r);
	ck_assert_uint_eq(r.ebx, ~0u);
	ck_assert(!(r.eax & B(4)));   /* AVX-VNNI */
	ck_assert(r.eax & B(0));
	/* XSAVE enumeration is empty. */
	r = all_ones();
	cpuid_policy_mask(&cpuid_policy_default, 0xd, 1, &r);
	ck_assert_uint_eq(r.eax | r.ebx | r.ecx | r.edx, 0);
}
END_TEST

START_TEST(test_native_and_names)
{
	struct cpuid_result r = all_ones();
	cpuid_policy_mask(&cpuid_policy_native, 1, 0, &r);
	cpuid_policy_mask(&cpuid_policy_native, 7, 0, &r);
	ck_assert_uint_eq(r.eax & r.ebx & r.ecx & r.edx, ~0u);
	ck_assert_ptr_eq(cpuid_policy_by_name("default"), &cpuid_policy_default);
	ck_assert_ptr_eq(cpuid_policy_by_name("native"), &cpuid_policy_native);
	ck_assert_ptr_null(cpuid_policy_by_name("avx512"));
	/* Answers are the real CPU's outside the hidden bits. */
	unsigned a, b, c, d;
	__cpuid_count(0, 0, a, b, c, d);
	cpuid_policy_answer(&cpuid_policy_default, 0, 0, &r);
	ck_assert_uint_eq(r.eax, a);
	ck_assert_uint_eq(r.ebx, b);
}
END_TEST

/* Whether this machine has CPUID faulting (Intel CPUs since Ivy Bridge
 * and hypervisors that pass it on; AMD CPUs do not): a child asks for it
 * itself. */
static bool host_has_cpuid_faulting(void)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0 ? 0 : 1);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/* A child runs cpuid(1) under the policy; its registers at the following
 * int3 hold the answer it got. */
/* A traced child in its first stop, which then runs cpuid(1) and int3. */
static struct tracee stopped_child(struct remote_memory *rm)
{
	pid_t pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		raise(SIGSTOP);
		__asm__ volatile("mov $1, %%eax\n\txor %%ecx, %%ecx\n\tcpuid\n\tint3"
				 ::: "eax", "ebx", "ecx", "edx");
		_exit(0);
	}
	remote_memory_init(rm, pid);
	int status;
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	return (struct tracee){ .pid = pid, .alive = true };
}

static struct cpuid_result cpuid_in_child(const struct cpuid_policy *p)
{
	struct remote_memory rm;
	struct tracee t = stopped_child(&rm);
	ck_assert_int_eq(cpuid_policy_enable_faulting(&t, &rm), 0);

	struct tracee_stop stop;
	ck_assert_int_eq(tracee_cont(&t, 0, &stop), 0);
	ck_assert_int_eq(stop.kind, TRACEE_STOP_SIGNAL);
	ck_assert_int_eq(stop.info.si_signo, SIGSEGV);
	ck_assert_int_eq(cpuid_policy_handle_fault(p, &t, &rm, &stop), 1);
	ck_assert_int_eq(tracee_cont(&t, 0, &stop), 0);
	ck_assert_int_eq(stop.kind, TRACEE_STOP_SIGNAL);
	ck_assert_int_eq(stop.info.si_signo, SIGTRAP); /* the int3, not a second cpuid fault */
	/* Any other signal is not ours to answer. */
	ck_assert_int_eq(cpuid_policy_handle_fault(p, &t, &rm, &stop), 0);
	struct user_regs_struct regs;
	ck_assert_int_eq(tracee_get_regs(&t, &regs), 0);
	tracee_kill(&t);
	remote_memory_reset(&rm);
	return (struct cpuid_result){ (uint32_t)regs.rax, (uint32_t)regs.rbx,
				      (uint32_t)regs.rcx, (uint32_t)regs.rdx };
}

/* Without CPUID faulting the recorder is told so (ENODEV) and goes on
 * without it (lockstep.c); the rest of this test needs the fault. */
START_TEST(test_traced_program)
{
	if (!host_has_cpuid_faulting()) {
		struct remote_memory rm;
		struct tracee t = stopped_child(&rm);
		errno = 0;
		ck_assert_int_eq(cpuid_policy_enable_faulting(&t, &rm), -1);
		ck_assert_int_eq(errno, ENODEV);
		tracee_kill(&t);
		remote_memory_reset(&rm);
		fprintf(stderr, "test_traced_program: this CPU has no CPUID faulting: "
				"only its refusal was checked\n");
		return;
	}
	unsigned a, b, c, d;
	__cpuid_count(1, 0, a, b, c, d);
	struct cpuid_result r = cpuid_in_child(&cpuid_policy_default);
	ck_assert_uint_eq(r.eax, a);
	ck_assert_uint_eq(r.edx, d);
	ck_assert_uint_eq(r.ecx, c & ~(B(1) | B(12) | B(25) | B(26) | B(27) | B(28) | B(29)));
	r = cpuid_in_child(&cpuid_policy_native);
	ck_assert_uint_eq(r.ecx, c);
}
END_TEST

static Suite *cpuid_policy_suite(void)
{
	Suite *s = suite_create("recorder_cpuid_policy");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_leaf1);
	tcase_add_test(tc, test_leaf7);
	tcase_add_test(tc, test_native_and_names);
	tcase_add_test(tc, test_traced_program);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cpuid_policy_suite)
