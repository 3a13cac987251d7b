/*
 * test_replay_threads.c — the replayer on a two-thread trace made by
 * mini_recorder.h, which follows man/idna.5's thread contract. The replay
 * must reach every recorded time with the same thread running, the same
 * rip and the same shared memory, going forward and back; threads live
 * from their first slice to their recorded exit, and hold a prediction
 * cache only meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check_main.h"
#include "emulator/emu.h"
#include "trace-format/trace_regs.h"
#include "replayer/replay_session.h"
#include "trace-format/predict_cache.h"

#define MINI_REQUIRE(cond, ...) ck_assert_msg(cond, __VA_ARGS__)
#include "mini_recorder.h"

static char trace_path[512];

static void make_trace(void)
{
	const char *dir = getenv("TMPDIR");
	snprintf(trace_path, sizeof(trace_path), "%s/replay-threads-%d.idna",
		 dir && *dir ? dir : P_tmpdir, (int)getpid());
}

static void remove_trace(void)
{
	unlink(trace_path);
}

static void check_moment(struct replay_session *s, const struct mini_recorder *r, uint64_t t)
{
	const struct moment *m = &r->moments[t];
	ck_assert_msg(replay_session_goto(s, t) == 0, "%s", s->error);
	ck_assert_uint_eq(replay_session_now(s), t);
	struct resim *sim = &s->sim;
	ck_assert_msg(sim->current == (size_t)m->thread, "time %llu: thread %zu runs, not %d",
		      (unsigned long long)t, sim->current, m->thread);
	ck_assert_uint_eq(emu_regs(sim->cpu)->rip, m->rip);
	uint64_t counter = 0;
	ck_assert_uint_eq(replay_session_read_memory(s, DATA, &counter, 8), 8);
	ck_assert_uint_eq(counter, m->counter);
}

START_TEST(replays_two_threads_at_every_time)
{
	struct mini_recorder *r = mini_record(trace_path);
	struct replay_session s;
	ck_assert_msg(replay_session_open(&s, trace_path, NULL) == 0, "%s", s.error);
	ck_assert_msg(replay_session_finish_pass(&s) == 0, "%s", s.error);
	ck_assert_msg(replay_session_goto(&s, r->time) == 0, "%s", s.error);
	ck_assert_uint_eq(s.summary.instructions, r->time);
	ck_assert(s.summary.have_exit);
	ck_assert(s.summary.exit_consistent);
	ck_assert_uint_eq(s.sim.n_threads, 2);
	ck_assert_int_eq(s.sim.threads[0].tid, RESIM_INITIAL_TID);
	ck_assert_int_eq(s.sim.threads[1].tid, B_TID);
	ck_assert_uint_eq(resim_thread_icount(&s.sim, 1), r->threads[1].icount);
	/* The global clock is every thread's instructions together. */
	ck_assert_uint_eq(s.summary.n_threads, 2);
	ck_assert_uint_eq(s.summary.threads[0].instructions + s.summary.threads[1].instructions,
			  s.summary.instructions);
	ck_assert(!s.summary.threads[0].exited);
	ck_assert(s.summary.threads[1].exited);
	uint64_t final = 0;
	ck_assert_uint_eq(replay_session_read_memory(&s, DATA, &final, 8), 8);
	uint64_t recorded;
	memcpy(&recorded, r->data, 8);
	ck_assert_uint_eq(final, recorded);
	ck_assert_msg(r->threads[1].exited, "the recording ended before thread B did");
	/* Slices end between a load and its store: updates are lost, as
	 * they were when recording. */
	ck_assert_uint_lt(final, A_ITERATIONS + 16 * 25);
	/* Forward from the start, then backward (from the snapshot). */
	for (uint64_t t = 0; t < r->time; t++)
		if (r->moments[t].valid)
			check_moment(&s, r, t);
	for (uint64_t t = r->time; t-- > 0;)
		if (r->moments[t].valid && t % 5 == 0)
			check_moment(&s, r, t);
	replay_session_close(&s);
	free(r);
}
END_TEST

START_TEST(threads_live_between_create_and_exit)
{
	struct mini_recorder *r = mini_record(trace_path);
	struct replay_session s;
	ck_assert_msg(replay_session_open(&s, trace_path, NULL) == 0, "%s", s.error);
	size_t alive_max = 0, alive_end;
	uint64_t first_b = UINT64_MAX;
	for (uint64_t t = 0; t < r->time; t++) {
		if (!r->moments[t].valid)
			continue;
		if (r->moments[t].thread == 1 && first_b == UINT64_MAX)
			first_b = t;
		ck_assert_msg(replay_session_goto(&s, t) == 0, "%s", s.error);
		size_t alive = resim_thread_alive(&s.sim, 0) + resim_thread_alive(&s.sim, 1);
		if (t < first_b) {
			ck_assert_uint_eq(alive, 1);
			/* A thread holds a prediction cache from its first
			 * slice to the end of its stream, no longer. */
			ck_assert(!replay_memory_cache_held(&s.sim.threads[1].mem));
		}
		ck_assert(replay_memory_cache_held(&s.sim.threads[s.sim.current].mem));
		if (alive > alive_max)
			alive_max = alive;
	}
	ck_assert_uint_eq(alive_max, 2);
	ck_assert_msg(replay_session_goto(&s, r->time) == 0, "%s", s.error);
	alive_end = resim_thread_alive(&s.sim, 0) + resim_thread_alive(&s.sim, 1);
	ck_assert_uint_eq(alive_end, 1); /* B's exit was recorded */
	ck_assert(!replay_memory_cache_held(&s.sim.threads[1].mem));
	replay_session_close(&s);
	free(r);
}
END_TEST

static Suite *replay_threads_suite(void)
{
	Suite *s = suite_create("replay_threads");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, make_trace, remove_trace);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, replays_two_threads_at_every_time);
	tcase_add_test(tc, threads_live_between_create_and_exit);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(replay_threads_suite)
