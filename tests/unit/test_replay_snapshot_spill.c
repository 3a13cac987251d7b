/*
 * test_replay_snapshot_spill.c — the spill file of snapshots beyond the
 * memory budget (replayer/snapshot_spill.c), on the snapshots of
 * tests/fuzz-index/sample_index.h: what is written reads back the same,
 * on its base's pages; only the pages the base does not share are
 * written; a record cut short, two read as one or one read from the
 * wrong place is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "replayer/snapshot_spill.h"
#include "trace-format/predict_cache.h"
#include "tests/fuzz-index/sample_index.h"

struct pages {
	const void *ids[8];
	uint64_t addrs[8];
	size_t n;
};

static void note_page(void *ctx, const struct memory_image_page_view *p)
{
	struct pages *l = ctx;
	if (l->n < 8) {
		l->ids[l->n] = p->identity;
		l->addrs[l->n++] = p->page_addr;
	}
}

static const void *identity_at(const struct memory_image *m, uint64_t addr)
{
	struct memory_image_page_view v;
	return memory_image_page_at(m, addr, &v) ? v.identity : NULL;
}

START_TEST(reads_back_what_was_written)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	const struct resim_state *first = &c.snapshots[0].state, *second = &c.snapshots[1].state;
	struct snapshot_spill *f = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(f);
	struct spill_ref whole, based;
	ck_assert_int_eq(snapshot_spill_put(f, second, NULL, &whole), 0);
	ck_assert_int_eq(snapshot_spill_put(f, second, first->image, &based), 0);
	ck_assert_uint_eq(snapshot_spill_bytes(f), whole.length + based.length);
	/* The page the second shares with the first is not written again:
	 * read on another base, it is that base's. */
	struct memory_image *other = memory_image_new();
	ck_assert(memory_image_store(other, 0x600000, "world", 6));
	struct resim_state on_other;
	char text[6];
	ck_assert_int_eq(snapshot_spill_get(f, &based, other, &on_other), 0);
	ck_assert_uint_eq(memory_image_load(on_other.image, 0x600000, text, 6), 6);
	ck_assert_str_eq(text, "world");
	ck_assert_uint_eq(memory_image_load(on_other.image, 0x601000, text, 3), 3);
	resim_state_free(&on_other);
	ck_assert_int_eq(snapshot_spill_get(f, &whole, other, &on_other), 0);
	ck_assert_uint_eq(memory_image_load(on_other.image, 0x600000, text, 6), 6);
	ck_assert_str_eq(text, "hello");
	resim_state_free(&on_other);
	memory_image_free(other);

	struct resim_state st;
	ck_assert_int_eq(snapshot_spill_get(f, &based, first->image, &st), 0);
	ck_assert_uint_eq(st.time, 600);
	ck_assert_uint_eq(st.n_threads, 2);
	const struct resim_thread_state *t = &st.threads[0];
	ck_assert_uint_eq(t->regs.rip, 0x401000 + 600);
	ck_assert_uint_eq(t->regs.zmm[3].q[1], 7);
	ck_assert_uint_eq(t->memory_pos.offset, 40);
	ck_assert_uint_eq(t->events_pos.chunk, 2);
	ck_assert_ptr_null(t->cache.blocks[0]);
	ck_assert_uint_eq(t->cache.blocks[1][SPARSE_BLOCK - 3], 600 & 0xff);
	ck_assert_ptr_null(st.threads[1].cache.blocks);
	ck_assert(st.threads[1].memory_pos.ended);
	ck_assert(code_page_set_contains(st.code_pages, 0x402));
	ck_assert_uint_eq(code_page_set_count(st.code_pages), 2);
	char buf[6];
	ck_assert_uint_eq(memory_image_load(st.image, 0x600000, buf, 6), 6);
	ck_assert_str_eq(buf, "hello");
	ck_assert_uint_eq(memory_image_load(st.image, 0x601000, buf, 4), 3);
	ck_assert_int_eq(memcmp(buf, "hel", 3), 0);
	/* The base's page is shared, not copied; the image has no other. */
	ck_assert_ptr_eq(identity_at(st.image, 0x600000), identity_at(first->image, 0x600000));
	struct pages l = { { 0 }, { 0 }, 0 };
	memory_image_for_each_page(st.image, note_page, &l);
	ck_assert_uint_eq(l.n, 2);
	resim_state_free(&st);

	/* Without a base: every page from the record. */
	ck_assert_int_eq(snapshot_spill_get(f, &whole, NULL, &st), 0);
	ck_assert_uint_eq(memory_image_load(st.image, 0x600000, buf, 6), 6);
	ck_assert_str_eq(buf, "hello");
	ck_assert_uint_eq(memory_image_load(st.image, 0x601000, buf, 4), 3);
	resim_state_free(&st);
	snapshot_spill_close(f);
	replay_index_contents_free(&c);
}
END_TEST

/* A thread's prediction cache is as large as its table but stored
 * sparse: a record holding a whole-size cache with one block in it, and
 * little else, reads back (its size is not bounded by the bytes left). */
START_TEST(reads_back_a_large_sparse_cache)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	struct resim_state *second = &c.snapshots[1].state;
	struct sparse_copy *cache = &second->threads[0].cache;
	sparse_copy_free(cache);
	size_t size = (size_t)PREDICT_CACHE_LINE << 17;
	ck_assert_int_eq(sparse_copy_init(cache, size), 0);
	uint8_t block[SPARSE_BLOCK];
	memset(block, 0x77, sizeof(block));
	size_t last = sparse_copy_blocks(size) - 1;
	ck_assert_int_eq(sparse_copy_set_block(cache, last, block), 0);
	struct snapshot_spill *f = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(f);
	struct spill_ref based;
	ck_assert_int_eq(snapshot_spill_put(f, second, c.snapshots[0].state.image, &based), 0);
	ck_assert_uint_lt(based.length, size / 4);
	struct resim_state st;
	ck_assert_int_eq(snapshot_spill_get(f, &based, c.snapshots[0].state.image, &st), 0);
	ck_assert_uint_eq(st.threads[0].cache.size, size);
	ck_assert_ptr_null(st.threads[0].cache.blocks[0]);
	ck_assert_uint_eq(st.threads[0].cache.blocks[last][SPARSE_BLOCK - 1], 0x77);
	resim_state_free(&st);
	snapshot_spill_close(f);
	replay_index_contents_free(&c);
}
END_TEST

/* A base with a page the image lacks cannot stand for it. */
START_TEST(refuses_a_base_with_other_pages)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	struct snapshot_spill *f = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(f);
	struct spill_ref ref;
	ck_assert_int_eq(snapshot_spill_put(f, &c.snapshots[0].state, c.snapshots[1].state.image, &ref),
			 -1);
	ck_assert_uint_eq(snapshot_spill_bytes(f), 0);
	snapshot_spill_close(f);
	replay_index_contents_free(&c);
}
END_TEST

START_TEST(refuses_every_cut_and_shift)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	struct snapshot_spill *f = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(f);
	struct spill_ref first, second;
	ck_assert_int_eq(snapshot_spill_put(f, &c.snapshots[0].state, NULL, &first), 0);
	ck_assert_int_eq(snapshot_spill_put(f, &c.snapshots[1].state, NULL, &second), 0);
	struct resim_state st;
	for (uint64_t len = 0; len < second.length; len++) {
		struct spill_ref cut = { second.offset, len };
		ck_assert_msg(snapshot_spill_get(f, &cut, NULL, &st) == -1, "cut at %llu read",
			      (unsigned long long)len);
	}
	/* Two records read as one, a record read from inside, past the end. */
	struct spill_ref both = { 0, first.length + second.length };
	ck_assert_int_eq(snapshot_spill_get(f, &both, NULL, &st), -1);
	for (uint64_t shift = 8; shift < 4096; shift += 8) {
		struct spill_ref inside = { shift, first.length };
		ck_assert_int_eq(snapshot_spill_get(f, &inside, NULL, &st), -1);
	}
	struct spill_ref past = { second.offset + 8, second.length };
	ck_assert_int_eq(snapshot_spill_get(f, &past, NULL, &st), -1);
	ck_assert_int_eq(snapshot_spill_get(f, &second, NULL, &st), 0);
	resim_state_free(&st);
	snapshot_spill_close(f);
	replay_index_contents_free(&c);
}
END_TEST

static Suite *snapshot_spill_suite(void)
{
	Suite *s = suite_create("replay_snapshot_spill");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, reads_back_what_was_written);
	tcase_add_test(tc, reads_back_a_large_sparse_cache);
	tcase_add_test(tc, refuses_a_base_with_other_pages);
	tcase_add_test(tc, refuses_every_cut_and_shift);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(snapshot_spill_suite)
