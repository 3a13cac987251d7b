/*
 * test_trace_code_pages.c — the code-page set against a plain reference
 * array over random adds, removes and clears, with pages that share
 * filter bits and hash slots: membership always agrees, and the inline
 * filter never says "no" for a member.
 */
#include <stdint.h>
#include <string.h>

#include "check_main.h"
#include "trace-format/code_page_set.h"

enum { PAGES = 4096 };

/* Page numbers that collide in the filter (same low 16 bits) and spread
 * over the address space, as code and data pages do. */
static uint64_t page_of(unsigned i)
{
	return (uint64_t)(i % 64) + ((uint64_t)(i / 64) << 16) + 0x7f0000000ull;
}

static void check_agrees(const struct code_page_set *s, const bool *ref)
{
	size_t count = 0;
	for (unsigned i = 0; i < PAGES; i++) {
		ck_assert_int_eq(code_page_set_contains(s, page_of(i)), ref[i]);
		if (ref[i]) {
			ck_assert(code_page_set_may_contain(s, page_of(i)));
			count++;
		}
	}
	ck_assert_uint_eq(code_page_set_count(s), count);
}

START_TEST(agrees_with_a_reference)
{
	static bool ref[PAGES];
	memset(ref, 0, sizeof(ref));
	struct code_page_set *s = code_page_set_new();
	ck_assert_ptr_nonnull(s);
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	unsigned filtered_out = 0;
	for (int step = 0; step < 200000; step++) {
		seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
		unsigned i = (unsigned)(seed >> 20) % PAGES;
		if ((seed & 0xfff) == 0) {
			code_page_set_clear(s);
			memset(ref, 0, sizeof(ref));
		} else if (seed & 1) {
			ck_assert(code_page_set_add(s, page_of(i)));
			ref[i] = true;
		} else {
			code_page_set_remove(s, page_of(i));
			ref[i] = false;
		}
		if (!code_page_set_may_contain(s, page_of((unsigned)seed % PAGES)))
			filtered_out++;
		if (step % 20000 == 0)
			check_agrees(s, ref);
	}
	check_agrees(s, ref);
	/* The filter does answer "no" (after clears), not only "maybe". */
	ck_assert_uint_gt(filtered_out, 100);
	code_page_set_free(s);
}
END_TEST

START_TEST(filter_rejects_pages_never_added)
{
	struct code_page_set *s = code_page_set_new();
	ck_assert_ptr_nonnull(s);
	ck_assert(code_page_set_add(s, 0x400));
	ck_assert(code_page_set_may_contain(s, 0x400));
	ck_assert(!code_page_set_may_contain(s, 0x401));
	ck_assert(!code_page_set_contains(s, 0x401));
	/* Same filter bit, another page: "maybe", and the set says no. */
	ck_assert(code_page_set_may_contain(s, 0x400 + CODE_PAGE_SET_FILTER_BITS));
	ck_assert(!code_page_set_contains(s, 0x400 + CODE_PAGE_SET_FILTER_BITS));
	code_page_set_clear(s);
	ck_assert(!code_page_set_may_contain(s, 0x400));
	code_page_set_free(s);
}
END_TEST

/* Ranges of any size, the whole address space included (a watchpoint
 * over all memory): answered from the set, not by looking at each page
 * (2^52 of them would never end). */
START_TEST(any_in_ranges_of_every_size)
{
	struct code_page_set *s = code_page_set_new();
	ck_assert_ptr_nonnull(s);
	ck_assert(!code_page_set_any_in(s, 0, UINT64_MAX));
	ck_assert(code_page_set_add(s, 0x7ffff000));
	ck_assert(code_page_set_any_in(s, 0, UINT64_MAX));
	ck_assert(code_page_set_any_in(s, 0x7ffff000, 0x7ffff000));
	ck_assert(code_page_set_any_in(s, 0x7fff0000, 0x7ffff010));
	ck_assert(!code_page_set_any_in(s, 0x7ffff001, UINT64_MAX));
	ck_assert(!code_page_set_any_in(s, 0, 0x7fffefff));
	ck_assert(!code_page_set_any_in(s, 0x7ffff001, 0x7ffff000)); /* empty */
	ck_assert(code_page_set_add(s, UINT64_MAX >> 12)); /* the top page */
	ck_assert(code_page_set_any_in(s, (UINT64_MAX >> 12) - 3, UINT64_MAX >> 12));
	code_page_set_free(s);
}
END_TEST

static Suite *trace_code_pages_suite(void)
{
	Suite *s = suite_create("trace_code_pages");
	TCase *tc = tcase_create("set");
	tcase_add_test(tc, agrees_with_a_reference);
	tcase_add_test(tc, filter_rejects_pages_never_added);
	tcase_add_test(tc, any_in_ranges_of_every_size);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(trace_code_pages_suite)
