/*
 * test_recorder_clocks.c — which time syscalls the recorder answers from
 * its own clocks, and that the answers are what the kernel gives.
 */
#include <check.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "recorder/clock_syscalls.h"
#include "check_main.h"

static bool answer(long nr, uint64_t a0, uint64_t a1, struct clock_answer *a)
{
	uint64_t args[6] = { a0, a1, 0, 0, 0, 0 };
	return clock_syscall_answer(nr, args, a);
}

static int64_t field(const struct clock_answer *a, unsigned i)
{
	int64_t v;
	memcpy(&v, a->out + 8 * i, 8);
	return v;
}

START_TEST(test_shared_clocks_are_answered)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_MONOTONIC_RAW,
					     CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
					     CLOCK_BOOTTIME, CLOCK_TAI };
	for (size_t i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++) {
		struct timespec before, after;
		struct clock_answer a;
		clock_gettime(clocks[i], &before);
		ck_assert(answer(SYS_clock_gettime, (uint64_t)clocks[i], 0x1000, &a));
		clock_gettime(clocks[i], &after);
		ck_assert_int_eq(a.result, 0);
		ck_assert_uint_eq(a.out_addr, 0x1000);
		ck_assert_uint_eq(a.out_len, 16);
		int64_t ns = field(&a, 0) * 1000000000 + field(&a, 1);
		ck_assert_int_ge(ns, (int64_t)before.tv_sec * 1000000000 + before.tv_nsec);
		ck_assert_int_le(ns, (int64_t)after.tv_sec * 1000000000 + after.tv_nsec);
		ck_assert_int_lt(field(&a, 1), 1000000000);
	}
}
END_TEST

/* CPU-time clocks measure the program; unknown ids and a NULL buffer get
 * the kernel's error: all go to the kernel. */
START_TEST(test_other_cases_go_to_the_kernel)
{
	struct clock_answer a;
	ck_assert(!answer(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, 0x1000, &a));
	ck_assert(!answer(SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, 0x1000, &a));
	ck_assert(!answer(SYS_clock_gettime, (uint64_t)(int64_t)-6 /* a pid's CPU clock */,
			  0x1000, &a));
	ck_assert(!answer(SYS_clock_gettime, 12345, 0x1000, &a));
	ck_assert(!answer(SYS_clock_gettime, CLOCK_MONOTONIC, 0, &a));
	ck_assert(!answer(SYS_clock_getres, CLOCK_PROCESS_CPUTIME_ID, 0x1000, &a));
	ck_assert(!answer(SYS_gettimeofday, 0x1000, 0x2000, &a)); /* a time zone */
	ck_assert(!answer(SYS_read, 0, 0x1000, &a));
	ck_assert(!answer(SYS_getcpu, 0x1000, 0, &a));
}
END_TEST

START_TEST(test_getres_gettimeofday_time)
{
	struct clock_answer a;
	struct timespec res;
	clock_getres(CLOCK_MONOTONIC_COARSE, &res);
	ck_assert(answer(SYS_clock_getres, CLOCK_MONOTONIC_COARSE, 0x1000, &a));
	ck_assert_int_eq(field(&a, 0), res.tv_sec);
	ck_assert_int_eq(field(&a, 1), res.tv_nsec);
	ck_assert(answer(SYS_clock_getres, CLOCK_MONOTONIC, 0, &a));
	ck_assert_uint_eq(a.out_len, 0);
	ck_assert_int_eq(a.result, 0);

	/* Bracketed by the same clock: time() reads the coarse one, which
	 * may still show the last second a tick after gettimeofday's
	 * rolled over. */
	struct timeval tv_before, tv_after;
	gettimeofday(&tv_before, NULL);
	ck_assert(answer(SYS_gettimeofday, 0x3000, 0, &a));
	gettimeofday(&tv_after, NULL);
	ck_assert_uint_eq(a.out_len, 16);
	ck_assert_int_lt(field(&a, 1), 1000000);
	ck_assert_int_ge(field(&a, 0), tv_before.tv_sec);
	ck_assert_int_le(field(&a, 0), tv_after.tv_sec);
	ck_assert(answer(SYS_gettimeofday, 0, 0, &a));
	ck_assert_uint_eq(a.out_len, 0);

	time_t before = syscall(SYS_time, NULL);
	ck_assert(answer(SYS_time, 0x4000, 0, &a));
	time_t after = syscall(SYS_time, NULL);
	ck_assert_int_ge(a.result, before);
	ck_assert_int_le(a.result, after);
	ck_assert_uint_eq(a.out_len, 8);
	ck_assert_int_eq(field(&a, 0), a.result);
	ck_assert(answer(SYS_time, 0, 0, &a));
	ck_assert_uint_eq(a.out_len, 0);
}
END_TEST

START_TEST(test_own_namespace_is_shared)
{
	ck_assert(clock_namespace_shared(getpid()));
	ck_assert(!clock_namespace_shared(0x3fffffff)); /* no such process */
}
END_TEST

static Suite *clocks_suite(void)
{
	Suite *s = suite_create("recorder_clocks");
	TCase *tc = tcase_create("answers");
	tcase_add_test(tc, test_shared_clocks_are_answered);
	tcase_add_test(tc, test_other_cases_go_to_the_kernel);
	tcase_add_test(tc, test_getres_gettimeofday_time);
	tcase_add_test(tc, test_own_namespace_is_shared);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(clocks_suite)
