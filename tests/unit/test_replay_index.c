/*
 * test_replay_index.c — the replay index's codec (replayer/replay_index_*.c)
 * on the hand-made sample of tests/fuzz-index/sample_index.h: what is
 * written reads back the same, snapshots' shared pages stay shared (and
 * are stored once), and every truncation, every flipped byte and an
 * index of another trace are refused, never loaded.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "tests/fuzz-index/sample_index.h"

/* Contents written to a file: its bytes. */
static uint8_t *written_from(const struct replay_index_contents *c, size_t *size)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(replay_index_write(f, &sample_index_expect.id, c), 0);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	uint8_t *bytes = malloc(*size);
	ck_assert_ptr_nonnull(bytes);
	rewind(f);
	ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
	fclose(f);
	return bytes;
}

/* The sample written to a file. */
static uint8_t *written(size_t *size)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	uint8_t *bytes = written_from(&c, size);
	replay_index_contents_free(&c);
	return bytes;
}

static uint64_t payload_size(const uint8_t *bytes)
{
	uint64_t payload = 0;
	for (unsigned i = 0; i < 8; i++)
		payload |= (uint64_t)bytes[40 + i] << (8 * i);
	return payload;
}

static enum replay_index_verdict read_bytes(const uint8_t *bytes, size_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
	fflush(f);
	char why[160];
	enum replay_index_verdict v = replay_index_read(fileno(f), size, e, out, why, sizeof(why));
	fclose(f);
	return v;
}

struct identities {
	const void *ids[8];
	size_t n;
};

static void note_identity(void *ctx, const struct memory_image_page_view *p)
{
	struct identities *ids = ctx;
	if (ids->n < 8)
		ids->ids[ids->n++] = p->identity;
}

START_TEST(reads_back_what_was_written)
{
	size_t size;
	uint8_t *bytes = written(&size);
	struct replay_index_contents c;
	ck_assert_int_eq(read_bytes(bytes, size, &sample_index_expect, &c), REPLAY_INDEX_LOADED);
	ck_assert_uint_eq(c.summary.instructions, 1000);
	ck_assert_uint_eq(c.summary.syscalls, 3);
	ck_assert(c.summary.exit_consistent);
	ck_assert_uint_eq(c.summary.threads[1].tid, 7);
	ck_assert_uint_eq(c.snapshot_interval, 1 << 22);
	ck_assert_uint_eq(c.n_snapshots, 2);
	const struct resim_thread_state *t = &c.snapshots[1].state.threads[0];
	ck_assert_uint_eq(c.snapshots[1].icount, 600);
	ck_assert_uint_eq(t->regs.rip, 0x401000 + 600);
	ck_assert_uint_eq(t->regs.zmm[3].q[1], 7);
	ck_assert_uint_eq(t->memory_pos.offset, 40);
	ck_assert(!t->declared_end_known); /* the trace's to say */
	ck_assert_ptr_null(t->cache.blocks[0]); /* sparse: the zero block is not stored */
	ck_assert_uint_eq(t->cache.blocks[1][SPARSE_BLOCK - 3], 600 & 0xff);
	ck_assert(c.snapshots[1].state.threads[1].memory_pos.ended);
	ck_assert(code_page_set_contains(c.snapshots[0].written_pages, 0x7ffe0));
	ck_assert(code_page_set_contains(c.snapshots[0].read_pages, 0x7ffe1));
	ck_assert(!code_page_set_contains(c.snapshots[0].read_pages, 0x7ffe0));
	ck_assert(code_page_set_contains(c.snapshots[0].state.code_pages, 0x402));
	char buf[6];
	ck_assert_uint_eq(memory_image_load(c.snapshots[1].state.image, 0x601000, buf, 3), 3);
	ck_assert_uint_eq(memory_image_load(c.snapshots[0].state.image, 0x601000, buf, 3), 0);
	ck_assert_uint_eq(memory_image_load(c.snapshots[0].state.image, 0x600000, buf, 6), 6);
	ck_assert_str_eq(buf, "hello");
	/* The future image keeps its times. */
	ck_assert_uint_eq(memory_image_load_at(c.future, 0x7ffe0000, buf, 6, 4), 0);
	ck_assert_uint_eq(memory_image_load_at(c.future, 0x7ffe0000, buf, 6, 5), 6);
	/* The page both snapshots had is one page again. */
	struct identities a = { { 0 }, 0 }, b = { { 0 }, 0 };
	memory_image_for_each_page(c.snapshots[0].state.image, note_identity, &a);
	memory_image_for_each_page(c.snapshots[1].state.image, note_identity, &b);
	ck_assert_uint_eq(a.n, 1);
	ck_assert_uint_eq(b.n, 2);
	ck_assert(a.ids[0] == b.ids[0] || a.ids[0] == b.ids[1]);
	replay_index_contents_free(&c);
	free(bytes);
}
END_TEST

/* Each distinct page is stored once: the sample's second snapshot shares
 * its first page with the first snapshot; the same contents with that
 * page copied instead take a whole page more. */
START_TEST(stores_shared_pages_once)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	size_t size;
	uint8_t *shared = written_from(&c, &size);
	struct memory_image *copy = memory_image_new();
	char buf[8];
	size_t n = memory_image_load(c.snapshots[1].state.image, 0x600000, buf, sizeof(buf));
	ck_assert(copy && n == 6 && memory_image_store(copy, 0x600000, buf, n));
	n = memory_image_load(c.snapshots[1].state.image, 0x601000, buf, sizeof(buf));
	ck_assert(n == 3 && memory_image_store(copy, 0x601000, buf, n));
	memory_image_free(c.snapshots[1].state.image);
	c.snapshots[1].state.image = copy;
	uint8_t *apart = written_from(&c, &size);
	uint64_t page = MEMORY_IMAGE_PAGE / 8 + MEMORY_IMAGE_PAGE;
	ck_assert_uint_ge(payload_size(apart), payload_size(shared) + page - 8);
	replay_index_contents_free(&c);
	free(shared);
	free(apart);
}
END_TEST

START_TEST(refuses_every_truncation)
{
	size_t size;
	uint8_t *bytes = written(&size);
	for (size_t n = 0; n < size; n++) {
		struct replay_index_contents c;
		ck_assert_msg(read_bytes(bytes, n, &sample_index_expect, &c) == REPLAY_INDEX_DAMAGED,
			      "%zu of %zu bytes loaded", n, size);
	}
	free(bytes);
}
END_TEST

START_TEST(refuses_every_flipped_byte)
{
	size_t size;
	uint8_t *bytes = written(&size);
	for (size_t i = 0; i < size; i++)
		for (unsigned mask = 0x01; mask <= 0x80; mask <<= 7) {
			bytes[i] ^= (uint8_t)mask;
			struct replay_index_contents c;
			enum replay_index_verdict v = read_bytes(bytes, size, &sample_index_expect, &c);
			ck_assert_msg(v != REPLAY_INDEX_LOADED, "byte %zu ^ %#x loaded", i, mask);
			bytes[i] ^= (uint8_t)mask;
		}
	free(bytes);
}
END_TEST

START_TEST(refuses_another_traces_index)
{
	size_t size;
	uint8_t *bytes = written(&size);
	struct replay_index_contents c;
	struct replay_index_expect other = sample_index_expect;
	other.id.digest ^= 1;
	ck_assert_int_eq(read_bytes(bytes, size, &other, &c), REPLAY_INDEX_OTHER_TRACE);
	other = sample_index_expect;
	other.id.trace_size++;
	ck_assert_int_eq(read_bytes(bytes, size, &other, &c), REPLAY_INDEX_OTHER_TRACE);
	/* Same identity, another thread table or cache size: inconsistent. */
	other = sample_index_expect;
	other.n_threads = 3;
	ck_assert_int_eq(read_bytes(bytes, size, &other, &c), REPLAY_INDEX_DAMAGED);
	other = sample_index_expect;
	other.cache_bytes *= 2;
	ck_assert_int_eq(read_bytes(bytes, size, &other, &c), REPLAY_INDEX_DAMAGED);
	free(bytes);
}
END_TEST

static Suite *replay_index_suite(void)
{
	Suite *s = suite_create("replay_index");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, reads_back_what_was_written);
	tcase_add_test(tc, stores_shared_pages_once);
	tcase_add_test(tc, refuses_every_truncation);
	tcase_add_test(tc, refuses_every_flipped_byte);
	tcase_add_test(tc, refuses_another_traces_index);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(replay_index_suite)
