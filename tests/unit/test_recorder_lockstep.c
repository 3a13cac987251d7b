/*
 * test_recorder_lockstep.c — the lockstep verifier's ends: a bounded run
 * hands the program back to native execution with CPUID faulting off (the
 * dynamic loader's later cpuid calls would kill it otherwise) and reports
 * the program's own status; a whole run ends with the program.
 */
#include <check.h>
#include <stdio.h>

#include "check_main.h"
#include "recorder/lockstep.h"

static enum lockstep_result run(char **argv, uint64_t max, struct lockstep_stats *st)
{
	struct lockstep_options opt = { max, &cpuid_policy_default };
	/* Messages (a missing CPUID faulting) go to stderr; nothing else. */
	enum lockstep_result r = lockstep_run(argv, &opt, st);
	fallback_counts_free(&st->natives);
	return r;
}

START_TEST(test_limit_hands_back)
{
	/* 2000 instructions are well inside the dynamic loader, before its
	 * cpuid calls: those run natively after the hand-back. */
	char *argv[] = { "/bin/sh", "-c", "exit 7", NULL };
	struct lockstep_stats st;
	ck_assert_int_eq(run(argv, 2000, &st), LOCKSTEP_OK);
	ck_assert(st.limit_reached);
	ck_assert(st.exited);
	ck_assert_int_eq(st.killed_by, 0);
	ck_assert_int_eq(st.exit_status, 7);
	ck_assert_uint_eq(st.emulated + st.native, 2000);
}
END_TEST

START_TEST(test_killed_after_hand_back)
{
	char *argv[] = { "/bin/sh", "-c", "kill -TERM $$", NULL };
	struct lockstep_stats st;
	ck_assert_int_eq(run(argv, 1000, &st), LOCKSTEP_OK);
	ck_assert(st.exited);
	ck_assert_int_eq(st.killed_by, SIGTERM);
}
END_TEST

START_TEST(test_whole_run)
{
	char *argv[] = { "/bin/true", NULL };
	struct lockstep_stats st;
	ck_assert_int_eq(run(argv, UINT64_MAX, &st), LOCKSTEP_OK);
	ck_assert(!st.limit_reached);
	ck_assert(st.exited);
	ck_assert_int_eq(st.exit_status, 0);
	ck_assert_uint_gt(st.emulated, 10000);
}
END_TEST

START_TEST(test_missing_program)
{
	char *argv[] = { "/nonexistent/program", NULL };
	struct lockstep_stats st;
	ck_assert_int_eq(run(argv, 10, &st), LOCKSTEP_ERROR);
	ck_assert_int_eq(st.start_error, TRACEE_START_NOT_FOUND);
}
END_TEST

static Suite *lockstep_suite(void)
{
	Suite *s = suite_create("recorder_lockstep");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_limit_hands_back);
	tcase_add_test(tc, test_killed_after_hand_back);
	tcase_add_test(tc, test_whole_run);
	tcase_add_test(tc, test_missing_program);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(lockstep_suite)
