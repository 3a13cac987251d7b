/*
 * test_recorder_step_affinity.c — binding a thread to one CPU for a step
 * and giving it its own affinity back, on this test's own thread.
 */
#include <check.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/step_affinity.h"
#include "check_main.h"

static cpu_set_t current(void)
{
	cpu_set_t s;
	ck_assert_int_eq(sched_getaffinity(0, sizeof(s), &s), 0);
	return s;
}

START_TEST(test_bind_and_release)
{
	cpu_set_t before = current();
	int cpu = sched_getcpu();
	struct step_affinity a = { .bound = false };
	step_affinity_bind(&a, 0, cpu);
	ck_assert(a.bound);
	cpu_set_t bound = current();
	ck_assert_int_eq(CPU_COUNT(&bound), 1);
	ck_assert(CPU_ISSET(cpu, &bound));
	step_affinity_bind(&a, 0, cpu); /* already there: no change */
	ck_assert(a.bound);
	step_affinity_release(&a, 0);
	ck_assert(!a.bound);
	cpu_set_t after = current();
	ck_assert(CPU_EQUAL(&before, &after));
	step_affinity_release(&a, 0); /* not bound: nothing to do */
	after = current();
	ck_assert(CPU_EQUAL(&before, &after));
}
END_TEST

/* A CPU outside the thread's affinity, or none, binds nothing. */
START_TEST(test_bind_outside_the_affinity)
{
	cpu_set_t before = current();
	int outside = -1;
	for (int c = 0; c < CPU_SETSIZE && outside < 0; c++)
		if (!CPU_ISSET(c, &before))
			outside = c;
	struct step_affinity a = { .bound = false };
	step_affinity_bind(&a, 0, outside);
	ck_assert(!a.bound);
	step_affinity_bind(&a, 0, -1);
	ck_assert(!a.bound);
	cpu_set_t after = current();
	ck_assert(CPU_EQUAL(&before, &after));
}
END_TEST

START_TEST(test_home_is_chosen_once)
{
	cpu_set_t before = current();
	struct step_affinity home = { .bound = false };
	int cpu = step_affinity_home(&home);
	ck_assert_int_ge(cpu, 0);
	ck_assert_int_eq(step_affinity_home(&home), cpu);
	ck_assert_int_eq(sched_getcpu(), cpu);
	step_affinity_release(&home, 0);
	cpu_set_t after = current();
	ck_assert(CPU_EQUAL(&before, &after));
}
END_TEST

START_TEST(test_steps_that_run_unbound)
{
	ck_assert(step_affinity_allowed(SYS_getppid));
	ck_assert(step_affinity_allowed(SYS_read));
	ck_assert(step_affinity_allowed(-1));
	ck_assert(!step_affinity_allowed(SYS_sched_getaffinity));
	ck_assert(!step_affinity_allowed(SYS_sched_setaffinity));
	ck_assert(!step_affinity_allowed(SYS_clone));
	ck_assert(!step_affinity_allowed(SYS_clone3));
	ck_assert(!step_affinity_allowed(SYS_fork));
	ck_assert(!step_affinity_allowed(SYS_vfork));
	ck_assert(!step_affinity_allowed(SYS_execve));
	ck_assert(!step_affinity_allowed(SYS_execveat));
}
END_TEST

static Suite *step_affinity_suite(void)
{
	Suite *s = suite_create("recorder_step_affinity");
	TCase *tc = tcase_create("binding");
	tcase_add_test(tc, test_bind_and_release);
	tcase_add_test(tc, test_bind_outside_the_affinity);
	tcase_add_test(tc, test_home_is_chosen_once);
	tcase_add_test(tc, test_steps_that_run_unbound);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(step_affinity_suite)
