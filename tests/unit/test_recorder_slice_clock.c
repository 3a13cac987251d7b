/*
 * test_recorder_slice_clock.c — a thread's turn is measured in the
 * recorder's CPU time: time spent waiting (for a CPU on a busy machine;
 * here, asleep) does not end it, time spent running does.
 */
#include <check.h>
#include <time.h>

#include "recorder/slice_clock.h"
#include "check_main.h"

#define MS 1000000ull

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	ck_assert_int_eq(clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts), 0);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Runs on this thread for at least ns of its CPU time. */
static void run_for(uint64_t ns)
{
	uint64_t start = cpu_ns();
	volatile uint64_t sink = 0;
	while (cpu_ns() - start < ns)
		for (int i = 0; i < 1000; i++)
			sink += (uint64_t)i;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * (long)MS };
	while (nanosleep(&ts, &ts) != 0)
		;
}

START_TEST(test_fresh_turn_is_not_over)
{
	struct slice_clock c;
	slice_clock_start(&c, 10000 * MS);
	ck_assert(!slice_clock_over(&c));
}
END_TEST

/* Three turns' worth of wall-clock time asleep: the turn goes on. */
START_TEST(test_time_waited_does_not_count)
{
	struct slice_clock c;
	slice_clock_start(&c, 10 * MS);
	sleep_ms(30);
	ck_assert(!slice_clock_over(&c));
	ck_assert(!slice_clock_over(&c)); /* the next look is put off */
}
END_TEST

START_TEST(test_time_run_ends_the_turn)
{
	struct slice_clock c;
	slice_clock_start(&c, 10 * MS);
	run_for(10 * MS);
	ck_assert(slice_clock_over(&c));
}
END_TEST

/* After a wait, the turn still ends once the thread has run its length. */
START_TEST(test_run_after_a_wait_ends_the_turn)
{
	struct slice_clock c;
	slice_clock_start(&c, 10 * MS);
	sleep_ms(30);
	ck_assert(!slice_clock_over(&c));
	run_for(10 * MS);
	ck_assert(slice_clock_over(&c));
}
END_TEST

static Suite *slice_clock_suite(void)
{
	Suite *s = suite_create("recorder_slice_clock");
	TCase *tc = tcase_create("turns");
	tcase_add_test(tc, test_fresh_turn_is_not_over);
	tcase_add_test(tc, test_time_waited_does_not_count);
	tcase_add_test(tc, test_time_run_ends_the_turn);
	tcase_add_test(tc, test_run_after_a_wait_ends_the_turn);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(slice_clock_suite)
