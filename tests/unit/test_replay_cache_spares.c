/*
 * test_replay_cache_spares.c — prediction-cache tables carried from a
 * replaced replay to the next (replay_memory.h, predict_spares): a thread
 * taking a spare table for itself finds it empty, as a new one is; a
 * restore taking one to write over gets it as it is; spares of another
 * size, or beyond the limit, are freed, not kept.
 */
#include <string.h>

#include "check_main.h"
#include "replayer/memory_image.h"
#include "replayer/replay_memory.h"

#define LOG2 12

static size_t table_bytes(void)
{
	return (size_t)PREDICT_CACHE_LINE << LOG2;
}

/* A cache of an earlier replay: bytes here and there in its table. */
static struct predict_cache used_table(void)
{
	struct predict_cache pc;
	ck_assert(predict_cache_init(&pc, LOG2));
	for (size_t at = 0; at < table_bytes(); at += 4096 + 8)
		pc.bytes[at] = 0x5a;
	pc.bytes[table_bytes() - 1] = 0xa5;
	return pc;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

START_TEST(a_spare_taken_for_a_thread_is_empty)
{
	struct process_memory proc;
	ck_assert_int_eq(process_memory_init(&proc, memory_image_new()), 0);
	struct predict_cache old = used_table();
	uint8_t *spare = old.bytes;
	predict_spares_keep(&proc.spares, &old);
	ck_assert_ptr_null(old.bytes); /* the spares have it now */
	struct replay_memory m;
	ck_assert_int_eq(replay_memory_init(&m, LOG2, PREDICT_CACHE_GROUP_LOG2 + 3, &proc), 0);
	ck_assert_int_eq(replay_memory_cache_acquire(&m), 0);
	ck_assert_ptr_eq(m.cache.bytes, spare); /* reused, not allocated */
	ck_assert_uint_eq(proc.spares.n, 0);
	ck_assert(all_zero(m.cache.bytes, table_bytes()));
	replay_memory_fini(&m);
	process_memory_fini(&proc);
}
END_TEST

START_TEST(a_spare_taken_to_write_over_is_as_it_was)
{
	struct process_memory proc;
	ck_assert_int_eq(process_memory_init(&proc, memory_image_new()), 0);
	struct predict_cache old = used_table();
	uint8_t *spare = old.bytes;
	predict_spares_keep(&proc.spares, &old);
	ck_assert_ptr_null(old.bytes); /* the spares have it now */
	struct replay_memory m;
	ck_assert_int_eq(replay_memory_init(&m, LOG2, PREDICT_CACHE_GROUP_LOG2 + 3, &proc), 0);
	ck_assert_int_eq(replay_memory_cache_acquire_to_overwrite(&m), 0);
	ck_assert_ptr_eq(m.cache.bytes, spare);
	ck_assert_uint_eq(m.cache.bytes[0], 0x5a);
	replay_memory_fini(&m);
	process_memory_fini(&proc);
}
END_TEST

START_TEST(spares_of_another_size_or_too_many_are_freed)
{
	struct predict_spares sp = { .n = 0 };
	for (int i = 0; i < PREDICT_SPARES_MAX + 3; i++) {
		struct predict_cache old = used_table();
		predict_spares_keep(&sp, &old);
	}
	ck_assert_uint_eq(sp.n, PREDICT_SPARES_MAX);
	struct predict_cache other;
	ck_assert(predict_cache_init(&other, LOG2 + 1));
	predict_spares_keep(&sp, &other);
	ck_assert_uint_eq(sp.n, PREDICT_SPARES_MAX);
	struct predict_cache none = { .bytes = NULL, .log2_entries = LOG2 };
	predict_spares_keep(&sp, &none);
	ck_assert_uint_eq(sp.n, PREDICT_SPARES_MAX);
	/* (Under SAN=1, a table neither kept nor freed shows as a leak.) */
	predict_spares_free(&sp);
	ck_assert_uint_eq(sp.n, 0);
	/* A thread of a replay with no spare gets a new, empty table. */
	struct process_memory proc;
	ck_assert_int_eq(process_memory_init(&proc, memory_image_new()), 0);
	struct replay_memory m;
	ck_assert_int_eq(replay_memory_init(&m, LOG2, PREDICT_CACHE_GROUP_LOG2 + 3, &proc), 0);
	ck_assert_int_eq(replay_memory_cache_acquire_to_overwrite(&m), 0);
	ck_assert(all_zero(m.cache.bytes, table_bytes()));
	replay_memory_fini(&m);
	process_memory_fini(&proc);
}
END_TEST

static Suite *cache_spares_suite(void)
{
	Suite *s = suite_create("replay_cache_spares");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, a_spare_taken_for_a_thread_is_empty);
	tcase_add_test(tc, a_spare_taken_to_write_over_is_as_it_was);
	tcase_add_test(tc, spares_of_another_size_or_too_many_are_freed);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(cache_spares_suite)
