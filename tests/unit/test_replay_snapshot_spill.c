/*
 * test_replay_snapshot_spill.c — the spill file of snapshots beyond the
 * memory budget (replayer/snapshot_spill.c), on the snapshots of
 * tests/fuzz-index/sample_index.h: what is written reads back the same,
 * on its base's pages; only the pages the base does not share are
 * written; a record cut short, two read as one or one read from the
 * wrong place is refused; a record copied to another file with a patch
 * reads back as the state the patch was written from; records read
 * ahead on a thread come in their order, and so do records written on
 * one (spill_writer.c), those after a failed one failing too.
 */
#include <stdlib.h>
#include <string.h>

#include "check_main.h"
#include "replayer/snapshot_spill.h"
#include "replayer/spill_read_ahead.h"
#include "replayer/spill_writer.h"
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

/* A range's record adopted by another file as it is, with a patch: read
 * back on the completed base (an equal copy, as the session reads it),
 * then patched, it is the completed state; the patch carries only the
 * pages that differ from what the record reads back to, and the numbers
 * but not the caches. */
START_TEST(adopts_a_record_with_its_patch)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	const struct memory_image *top_base = c.snapshots[0].state.image;
	struct snapshot_spill *range = snapshot_spill_open(NULL), *session = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(range);
	ck_assert_ptr_nonnull(session);
	struct spill_ref rec, other, patch, copied;
	ck_assert_int_eq(snapshot_spill_put(range, &c.snapshots[1].state, top_base, &rec), 0);
	ck_assert_int_eq(snapshot_spill_put(session, &c.snapshots[0].state, NULL, &other), 0);
	/* The range's snapshot as the join has it, then completed: the
	 * base's completed image knows a page the range did not touch, and
	 * the byte after "hel" the range did not learn. */
	struct resim_state top;
	ck_assert_int_eq(snapshot_spill_get(range, &rec, top_base, &top), 0);
	struct memory_image *done_base = memory_image_snapshot(top_base);
	ck_assert(memory_image_store(done_base, 0x602000, "base", 5));
	struct resim_state done;
	ck_assert_int_eq(snapshot_spill_get(range, &rec, top_base, &done), 0);
	memory_image_free(done.image);
	done.image = memory_image_snapshot(done_base);
	ck_assert(memory_image_store(done.image, 0x601000, "help", 4));
	done.counts.syscalls += 1000;
	done.threads[0].cache_hits += 5;
	done.transition_time = 77;
	struct spill_under u = { done_base, top.image, top_base };
	ck_assert_int_eq(snapshot_spill_put_patch(session, &done, &u, &patch), 0);
	ck_assert_int_eq(snapshot_spill_copy(session, range, &rec, &copied), 0);
	ck_assert_uint_eq(copied.offset, other.length + patch.length);
	ck_assert_uint_eq(copied.length, rec.length);
	ck_assert_uint_eq(snapshot_spill_bytes(session), other.length + patch.length + rec.length);

	/* Read back as the session does, on an equal copy of the base. */
	struct memory_image *copy = memory_image_new();
	ck_assert(memory_image_store(copy, 0x600000, "hello", 6));
	ck_assert(memory_image_store(copy, 0x602000, "base", 5));
	struct resim_state st;
	ck_assert_int_eq(snapshot_spill_get(session, &copied, copy, &st), 0);
	ck_assert_int_eq(snapshot_spill_patch(session, &patch, &st), 0);
	char buf[6];
	ck_assert_uint_eq(memory_image_load(st.image, 0x601000, buf, 5), 4);
	ck_assert_int_eq(memcmp(buf, "help", 4), 0);
	ck_assert_uint_eq(memory_image_load(st.image, 0x602000, buf, 5), 5);
	ck_assert_str_eq(buf, "base");
	ck_assert_uint_eq(memory_image_load(st.image, 0x600000, buf, 6), 6);
	ck_assert_str_eq(buf, "hello");
	ck_assert_uint_eq(st.counts.syscalls, done.counts.syscalls);
	ck_assert_uint_eq(st.threads[0].cache_hits, done.threads[0].cache_hits);
	ck_assert_uint_eq(st.transition_time, 77);
	ck_assert_uint_eq(st.threads[0].cache.blocks[1][SPARSE_BLOCK - 3], 600 & 0xff);
	resim_state_free(&st);
	/* The pages equal to the base's are not in the patch: on a base that
	 * differs there, they stay the base's. */
	ck_assert(memory_image_store(copy, 0x602000, "BASE", 5));
	ck_assert_int_eq(snapshot_spill_get(session, &copied, copy, &st), 0);
	ck_assert_int_eq(snapshot_spill_patch(session, &patch, &st), 0);
	ck_assert_uint_eq(memory_image_load(st.image, 0x602000, buf, 5), 5);
	ck_assert_str_eq(buf, "BASE");
	resim_state_free(&st);
	/* A patch is not a record, nor a record a patch. */
	ck_assert_int_eq(snapshot_spill_get(session, &patch, copy, &st), -1);
	ck_assert_int_eq(snapshot_spill_get(session, &copied, copy, &st), 0);
	ck_assert_int_eq(snapshot_spill_patch(session, &copied, &st), -1);
	resim_state_free(&st);
	/* A completed image lacking a page of the base cannot be patched to. */
	struct memory_image *lacking = done.image;
	done.image = memory_image_snapshot(top.image);
	ck_assert_int_eq(snapshot_spill_put_patch(session, &done, &u, &patch), -1);
	memory_image_free(lacking);

	memory_image_free(copy);
	memory_image_free(done_base);
	resim_state_free(&done);
	resim_state_free(&top);
	snapshot_spill_close(range);
	snapshot_spill_close(session);
	replay_index_contents_free(&c);
}
END_TEST

/* Records read ahead come in the order listed, each the record at its
 * place (one that cannot be read as NULL, the others still), however
 * small the window; past the last, NULL; closing early frees the rest. */
START_TEST(reads_records_ahead_in_order)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	struct resim_state *st = &c.snapshots[1].state;
	struct snapshot_spill *f = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(f);
	enum { N = 7, BAD = 4 };
	struct spill_ref refs[N];
	for (size_t i = 0; i < N; i++) {
		st->time = 1000 + i;
		ck_assert_int_eq(snapshot_spill_put(f, st, NULL, &refs[i]), 0);
	}
	refs[BAD].offset = snapshot_spill_bytes(f); /* past the file's end */
	for (size_t window = 1; window <= 3; window++) {
		struct spill_read_ahead *r = spill_read_ahead_start(f, refs, N, window);
		ck_assert_ptr_nonnull(r);
		for (size_t i = 0; i < N; i++) {
			size_t len = 0;
			uint8_t *record = spill_read_ahead_take(r, &len);
			struct resim_state back;
			if (i == BAD) {
				ck_assert_ptr_null(record);
				continue;
			}
			ck_assert_int_eq(snapshot_spill_decode(record, len, NULL, &back), 0);
			ck_assert_uint_eq(back.time, 1000 + i);
			resim_state_free(&back);
		}
		size_t len;
		ck_assert_ptr_null(spill_read_ahead_take(r, &len));
		spill_read_ahead_close(r);
	}
	struct spill_read_ahead *r = spill_read_ahead_start(f, refs, N, 3);
	size_t len;
	free(spill_read_ahead_take(r, &len));
	spill_read_ahead_close(r);
	spill_read_ahead_close(NULL);
	snapshot_spill_close(f);
	replay_index_contents_free(&c);
}
END_TEST

struct reaped {
	uint64_t tags[16];
	struct spill_ref refs[16];
	bool ok[16];
	size_t n;
};

static void note_reaped(void *ctx, uint64_t tag, const struct spill_ref *ref)
{
	struct reaped *r = ctx;
	ck_assert_uint_lt(r->n, 16);
	r->tags[r->n] = tag;
	r->ok[r->n] = ref != NULL;
	if (ref)
		r->refs[r->n] = *ref;
	r->n++;
}

/* Records queued for the writer thread are written in their order, each
 * the state as it was queued (a shallow copy: the caller's struct may
 * change); a job that cannot be written fails the ones queued after it
 * in the same round, untried; once all are reaped, a new round writes
 * again. */
START_TEST(writes_queued_records_in_order)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	struct resim_state *st = &c.snapshots[1].state;
	struct snapshot_spill *f = snapshot_spill_open(NULL);
	ck_assert_ptr_nonnull(f);
	struct spill_writer *w = spill_writer_start(f);
	ck_assert_ptr_nonnull(w);
	enum { N = 9, BAD = 6 };
	uint64_t time = st->time;
	for (uint64_t i = 0; i < N; i++) {
		st->time = 2000 + i;
		if (i == BAD) /* its base holds a page it does not */
			ck_assert_int_eq(spill_writer_queue(w, &c.snapshots[0].state, st->image, i), 0);
		else
			ck_assert_int_eq(spill_writer_queue(w, st, NULL, i), 0);
	}
	st->time = time;
	struct reaped r = { 0 };
	ck_assert_uint_eq(spill_writer_reap(w, true, note_reaped, &r), 0);
	ck_assert_uint_eq(r.n, N);
	for (size_t i = 0; i < N; i++) {
		ck_assert_uint_eq(r.tags[i], i);
		ck_assert(r.ok[i] == (i < BAD));
		if (!r.ok[i])
			continue;
		struct resim_state back;
		ck_assert_int_eq(snapshot_spill_get(f, &r.refs[i], NULL, &back), 0);
		ck_assert_uint_eq(back.time, 2000 + i);
		resim_state_free(&back);
	}
	r.n = 0;
	ck_assert_uint_eq(spill_writer_reap(w, false, note_reaped, &r), 0);
	ck_assert_uint_eq(r.n, 0);
	ck_assert_int_eq(spill_writer_queue(w, st, NULL, 77), 0);
	ck_assert_uint_eq(spill_writer_reap(w, true, note_reaped, &r), 0);
	ck_assert_uint_eq(r.n, 1);
	ck_assert_uint_eq(r.tags[0], 77);
	ck_assert(r.ok[0]);
	/* Stopping with jobs queued writes them first. */
	uint64_t before = snapshot_spill_bytes(f);
	ck_assert_int_eq(spill_writer_queue(w, st, NULL, 78), 0);
	spill_writer_stop(w);
	ck_assert_uint_eq(snapshot_spill_bytes(f), before + r.refs[0].length);
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
	tcase_add_test(tc, adopts_a_record_with_its_patch);
	tcase_add_test(tc, reads_records_ahead_in_order);
	tcase_add_test(tc, writes_queued_records_in_order);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(snapshot_spill_suite)
