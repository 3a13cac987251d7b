/*
 * test_recorder_syscall_inject.c — syscalls injected into a stopped program
 * return what the program itself would get, and leave it as it was.
 */
#include <check.h>
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "check_main.h"
#include "recorder/syscall_inject.h"

static void start(struct tracee *t, struct remote_memory *rm)
{
	char *argv[] = { "true", NULL };
	enum tracee_start_error err;
	int e;
	ck_assert_int_eq(tracee_start(t, argv, &err, &e), 0);
	remote_memory_init(rm, t->pid);
}

START_TEST(test_getpid)
{
	struct tracee t;
	struct remote_memory rm;
	start(&t, &rm);
	struct user_regs_struct before, after;
	ck_assert_int_eq(tracee_get_regs(&t, &before), 0);
	uint8_t code_before[2], code_after[2];
	ck_assert_int_eq(remote_memory_read(&rm, before.rip, code_before, 2), EMU_MEM_OK);

	const uint64_t args[6] = { 0 };
	struct syscall_inject_result res;
	ck_assert_int_eq(syscall_inject(&t, &rm, SYS_getpid, args, &res), 0);
	ck_assert_int_eq(res.ret, t.pid);
	ck_assert_int_eq(syscall_inject(&t, &rm, SYS_getppid, args, &res), 0);
	ck_assert_int_eq(res.ret, getpid());

	ck_assert_int_eq(tracee_get_regs(&t, &after), 0);
	ck_assert_mem_eq(&after, &before, sizeof(before));
	ck_assert_int_eq(remote_memory_read(&rm, before.rip, code_after, 2), EMU_MEM_OK);
	ck_assert_mem_eq(code_after, code_before, 2);

	/* The program then runs normally to its end. */
	struct tracee_stop stop;
	ck_assert_int_eq(tracee_cont(&t, 0, &stop), 0);
	ck_assert_int_eq(stop.kind, TRACEE_STOP_EXITED);
	ck_assert_int_eq(stop.exit_status, 0);
	remote_memory_reset(&rm);
}
END_TEST

/* Failures come back as -errno; arguments arrive in the right registers. */
START_TEST(test_errors_and_arguments)
{
	struct tracee t;
	struct remote_memory rm;
	start(&t, &rm);
	struct syscall_inject_result res;
	const uint64_t none[6] = { 0 };
	ck_assert_int_eq(syscall_inject(&t, &rm, 100000, none, &res), 0);
	ck_assert_int_eq(res.ret, -ENOSYS);
	/* mmap(NULL, 8192, PROT_READ, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0): six arguments. */
	const uint64_t margs[6] = { 0, 8192, 1, 0x22, (uint64_t)-1, 0 };
	ck_assert_int_eq(syscall_inject(&t, &rm, SYS_mmap, margs, &res), 0);
	ck_assert_int_gt(res.ret, 0);
	ck_assert_int_eq(res.ret & 4095, 0);
	uint8_t b;
	ck_assert_int_eq(remote_memory_read(&rm, (uint64_t)res.ret + 8191, &b, 1), EMU_MEM_OK);
	ck_assert_uint_eq(b, 0);
	ck_assert_int_eq(remote_memory_write(&rm, (uint64_t)res.ret, &b, 1), EMU_MEM_FAULT);
	/* A bad offset argument (not page aligned) is rejected. */
	const uint64_t bad[6] = { 0, 8192, 1, 0x22, (uint64_t)-1, 1 };
	ck_assert_int_eq(syscall_inject(&t, &rm, SYS_mmap, bad, &res), 0);
	ck_assert_int_eq(res.ret, -EINVAL);
	tracee_kill(&t);
	remote_memory_reset(&rm);
}
END_TEST

START_TEST(test_dead_tracee)
{
	struct tracee t;
	struct remote_memory rm;
	start(&t, &rm);
	tracee_kill(&t);
	struct syscall_inject_result res;
	const uint64_t none[6] = { 0 };
	ck_assert_int_eq(syscall_inject(&t, &rm, SYS_getpid, none, &res), -1);
}
END_TEST

static Suite *syscall_inject_suite(void)
{
	Suite *s = suite_create("recorder_syscall_inject");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_getpid);
	tcase_add_test(tc, test_errors_and_arguments);
	tcase_add_test(tc, test_dead_tracee);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(syscall_inject_suite)
