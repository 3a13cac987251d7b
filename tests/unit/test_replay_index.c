/*
 * test_replay_index.c — the replay index's codec (replayer/replay_index_*.c)
 * on the hand-made sample of tests/fuzz-index/sample_index.h: what is
 * written reads back the same, snapshots' shared pages stay shared (and
 * are stored once), snapshots are read one at a time (a whole one every
 * REPLAY_INDEX_WHOLE_EVERY), and every truncation, every flipped byte and
 * an index of another trace are refused: on opening, or (a snapshot's
 * frame) when that snapshot is read.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check_main.h"
#include "trace-format/crc32c.h"
#include "replayer/replay_index_pool.h"
#include "tests/fuzz-index/sample_index.h"

/* Contents written to a file, its frames compressed on `jobs` threads:
 * its bytes. */
static uint8_t *written_on(const struct replay_index_contents *c, unsigned jobs, size_t *size)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(replay_index_write(f, &sample_index_expect.id, c, jobs), 0);
	fseek(f, 0, SEEK_END);
	*size = (size_t)ftell(f);
	uint8_t *bytes = malloc(*size);
	ck_assert_ptr_nonnull(bytes);
	rewind(f);
	ck_assert_uint_eq(fread(bytes, 1, *size, f), *size);
	fclose(f);
	return bytes;
}

static uint8_t *written_from(const struct replay_index_contents *c, size_t *size)
{
	return written_on(c, 1, size);
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

/* bytes as a file (to fclose). */
static FILE *file_of(const uint8_t *bytes, size_t size)
{
	FILE *f = tmpfile();
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(bytes, 1, size, f), size);
	fflush(f);
	return f;
}

static uint64_t directory_offset(const uint8_t *bytes)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)bytes[40 + i] << (8 * i);
	return v;
}

static enum replay_index_verdict read_bytes(const uint8_t *bytes, size_t size,
					    const struct replay_index_expect *e,
					    struct replay_index_contents *out)
{
	FILE *f = file_of(bytes, size);
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
	/* And its wide changes: the file's bytes after its mapping, until
	 * the unmapping of part of it. */
	ck_assert(memory_image_blocked(c.future, 0x7f0000020000, 300));
	ck_assert(!memory_image_blocked(c.future, 0x7f0000020000, 301));
	ck_assert(memory_image_blocked(c.future, 0x7f0000020000, 401));
	ck_assert(!memory_image_blocked(c.future, 0x7f0000000000, 401));
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

/* A snapshot's page that did not change since the snapshot before is
 * stored once, whether the two images share it or (a snapshot read back
 * from the spill file) hold equal copies. */
START_TEST(stores_unchanged_pages_once)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	size_t shared_size, apart_size;
	uint8_t *shared = written_from(&c, &shared_size);
	struct memory_image *copy = memory_image_new();
	char buf[8];
	size_t n = memory_image_load(c.snapshots[1].state.image, 0x600000, buf, sizeof(buf));
	ck_assert(copy && n == 6 && memory_image_store(copy, 0x600000, buf, n));
	n = memory_image_load(c.snapshots[1].state.image, 0x601000, buf, sizeof(buf));
	ck_assert(n == 3 && memory_image_store(copy, 0x601000, buf, n));
	memory_image_free(c.snapshots[1].state.image);
	c.snapshots[1].state.image = copy;
	uint8_t *apart = written_from(&c, &apart_size);
	ck_assert_uint_eq(apart_size, shared_size);
	ck_assert_mem_eq(apart, shared, shared_size);
	replay_index_contents_free(&c);
	free(shared);
	free(apart);
}
END_TEST

/* n snapshots 100 instructions apart, each writing one more page. */
static void long_contents(struct replay_index_contents *c, size_t n)
{
	sample_index_contents(c);
	for (size_t i = 0; i < c->n_snapshots; i++) {
		resim_state_free(&c->snapshots[i].state);
		code_page_set_free(c->snapshots[i].written_pages);
		code_page_set_free(c->snapshots[i].code_pages);
		code_page_set_free(c->snapshots[i].read_pages);
	}
	free(c->snapshots);
	c->snapshots = calloc(n, sizeof(*c->snapshots));
	struct memory_image *image = memory_image_new();
	ck_assert(c->snapshots && image);
	c->n_snapshots = n;
	for (size_t i = 0; i < n; i++) {
		uint64_t v = i;
		ck_assert(memory_image_store(image, 0x600000 + 0x1000 * i, &v, sizeof(v)));
		sample_snapshot(&c->snapshots[i], 100 * i, image);
		c->snapshots[i].state.counts.syscalls = i;
	}
	memory_image_free(image);
}

/* Opening reads the table only; each snapshot is read from its frame,
 * from the snapshot before it or, every REPLAY_INDEX_WHOLE_EVERY, alone. */
START_TEST(reads_snapshots_one_at_a_time)
{
	const size_t n = REPLAY_INDEX_WHOLE_EVERY + 2;
	struct replay_index_contents w;
	long_contents(&w, n);
	size_t size;
	uint8_t *bytes = written_from(&w, &size);
	replay_index_contents_free(&w);
	FILE *f = file_of(bytes, size);
	struct replay_index_contents c;
	struct replay_index_file *file;
	char why[160];
	ck_assert_int_eq(replay_index_open(fileno(f), size, &sample_index_expect, &c, &file, why,
					   sizeof(why)),
			 REPLAY_INDEX_LOADED);
	ck_assert_uint_eq(c.n_snapshots, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert(c.snapshots[i].indexed);
		ck_assert_ptr_null(c.snapshots[i].state.image); /* not read yet */
		ck_assert_uint_eq(c.snapshots[i].icount, 100 * i);
		ck_assert_uint_eq(c.snapshots[i].state.counts.syscalls, i);
		ck_assert(code_page_set_contains(c.snapshots[i].written_pages, 0x7ffe0));
	}
	struct resim_state a, b;
	/* Not stored whole: it needs the one before. */
	ck_assert_int_ne(replay_index_read_snapshot(file, 1, NULL, &a, why, sizeof(why)), 0);
	ck_assert(!replay_index_snapshot_whole(1));
	ck_assert(replay_index_snapshot_whole(REPLAY_INDEX_WHOLE_EVERY));
	ck_assert_int_eq(replay_index_read_snapshot(file, REPLAY_INDEX_WHOLE_EVERY, NULL, &a, why,
						    sizeof(why)),
			 0);
	ck_assert_int_eq(replay_index_read_snapshot(file, REPLAY_INDEX_WHOLE_EVERY + 1, &a, &b, why,
						    sizeof(why)),
			 0);
	uint64_t v;
	ck_assert_uint_eq(memory_image_load(b.image, 0x600000 + 0x1000 * (n - 1), &v, 8), 8);
	ck_assert_uint_eq(v, n - 1);
	ck_assert_uint_eq(b.time, 100 * (n - 1));
	ck_assert_uint_eq(b.counts.syscalls, n - 1);
	ck_assert_uint_eq(b.threads[0].regs.rip, 0x401000 + 100 * (n - 1));
	ck_assert_uint_eq(memory_image_page_count(b.image), n);
	resim_state_free(&a);
	resim_state_free(&b);
	ck_assert_int_ne(replay_index_read_snapshot(file, n, NULL, &a, why, sizeof(why)), 0);
	replay_index_file_close(file);
	replay_index_contents_free(&c);
	fclose(f);
	free(bytes);
}
END_TEST

/* Frames compressed on several threads come out in order and the same:
 * an index of more frames than the threads have in flight, whole
 * snapshots of more than 32 pages (payloads over zstd's input chunk), is
 * the same file with 1, 2 and 3 jobs, and reads back. */
START_TEST(writes_the_same_on_several_threads)
{
	const size_t n = 5 * REPLAY_INDEX_WHOLE_EVERY;
	struct replay_index_contents w;
	long_contents(&w, n);
	w.summary.instructions = 100 * n;
	size_t size1;
	uint8_t *one = written_on(&w, 1, &size1);
	for (unsigned jobs = 2; jobs <= 3; jobs++) {
		size_t size;
		uint8_t *more = written_on(&w, jobs, &size);
		ck_assert_uint_eq(size, size1);
		ck_assert_msg(memcmp(one, more, size) == 0, "%u jobs wrote another file", jobs);
		free(more);
	}
	replay_index_contents_free(&w);
	struct replay_index_contents c;
	ck_assert_int_eq(read_bytes(one, size1, &sample_index_expect, &c), REPLAY_INDEX_LOADED);
	ck_assert_uint_eq(c.n_snapshots, n);
	ck_assert_uint_eq(memory_image_page_count(c.snapshots[n - 1].state.image), n);
	replay_index_contents_free(&c);
	free(one);
}
END_TEST

/* States the writer takes (read back from a spill file, they are freed
 * once the frames reading them are made) write the same file as states
 * the caller keeps, mixed in any order, on 1 to 3 jobs: each one stays
 * until the frame after it, which reads it as its base, is made. */
START_TEST(writes_states_it_owns_the_same)
{
	const size_t n = 5 * REPLAY_INDEX_WHOLE_EVERY + 3;
	struct replay_index_contents w;
	long_contents(&w, n);
	w.summary.instructions = 100 * n;
	size_t size1;
	uint8_t *one = written_on(&w, 1, &size1);
	for (unsigned jobs = 1; jobs <= 3; jobs++) {
		struct replay_index_contents given;
		long_contents(&given, n);
		given.summary.instructions = 100 * n;
		FILE *f = tmpfile();
		ck_assert_ptr_nonnull(f);
		struct replay_index_writer *iw = replay_index_writer_open(f, jobs);
		ck_assert_ptr_nonnull(iw);
		for (size_t i = 0; i < n; i++) {
			struct resim_state *st = &given.snapshots[i].state;
			if (i % 3 == 2) { /* the caller's */
				ck_assert_int_eq(replay_index_writer_add(iw, st), 0);
				continue;
			}
			struct resim_state moved = *st;
			*st = (struct resim_state){ .time = moved.time, .counts = moved.counts };
			ck_assert_int_eq(replay_index_writer_add_owned(iw, &moved), 0);
		}
		ck_assert_int_eq(replay_index_writer_close(iw, &sample_index_expect.id, &given), 0);
		replay_index_contents_free(&given);
		fseek(f, 0, SEEK_END);
		ck_assert_uint_eq((size_t)ftell(f), size1);
		uint8_t *bytes = malloc(size1);
		ck_assert_ptr_nonnull(bytes);
		rewind(f);
		ck_assert_uint_eq(fread(bytes, 1, size1, f), size1);
		fclose(f);
		ck_assert_msg(memcmp(one, bytes, size1) == 0, "%u jobs wrote another file", jobs);
		free(bytes);
	}
	replay_index_contents_free(&w);
	free(one);
}
END_TEST

/* Frames for the pool: frame 0 is made only once every later one given is
 * (a snapshot stored whole, slow, before a group of small ones). */
static pthread_mutex_t slow_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t slow_cond = PTHREAD_COND_INITIALIZER;
static size_t slow_made, slow_others;

static int slow_first_frame(const void *a, const void *b, uint8_t **raw, size_t *n)
{
	(void)b;
	size_t k = (size_t)(uintptr_t)a;
	pthread_mutex_lock(&slow_mu);
	if (k == 0)
		while (slow_made < slow_others)
			pthread_cond_wait(&slow_cond, &slow_mu);
	else
		slow_made++;
	pthread_cond_broadcast(&slow_cond);
	pthread_mutex_unlock(&slow_mu);
	*n = k + 1;
	*raw = calloc(1, *n);
	return *raw ? 0 : -1;
}

/* While one thread makes a slow frame, the others make the frames after
 * it: `ahead` of them per thread are in flight (with jobs + 1, the writer
 * had to wait for the slow one before giving the fourth). Frames come
 * back in the order given. */
START_TEST(makes_frames_past_a_slow_one)
{
	const unsigned jobs = 2, ahead = REPLAY_INDEX_WHOLE_EVERY;
	struct index_pool *p = index_pool_open(jobs, ahead);
	ck_assert_ptr_nonnull(p);
	slow_made = 0;
	slow_others = jobs * ahead;
	for (size_t k = 0; k <= slow_others; k++) {
		ck_assert_msg(!index_pool_full(p), "full after %zu frames", k);
		index_pool_give(p, slow_first_frame, (const void *)(uintptr_t)k, NULL);
	}
	ck_assert(index_pool_full(p));
	for (size_t k = 0; k <= slow_others; k++) {
		struct index_frame z;
		ck_assert_int_eq(index_pool_take(p, &z), 0);
		ck_assert_uint_eq(z.payload, k + 1);
		index_frame_free(&z);
	}
	ck_assert(!index_pool_pending(p));
	index_pool_close(p);
}
END_TEST

/* A flipped bit in a snapshot's frame: the index opens (its table is
 * good), and reading the snapshots fails at that frame, with a reason. */
START_TEST(refuses_a_damaged_frame_when_read)
{
	struct replay_index_contents w;
	long_contents(&w, 3);
	size_t size;
	uint8_t *bytes = written_from(&w, &size);
	replay_index_contents_free(&w);
	uint64_t dir = directory_offset(bytes);
	ck_assert(dir > REPLAY_INDEX_HEADER && dir < size);
	for (size_t i = REPLAY_INDEX_HEADER; i < dir; i++) {
		bytes[i] ^= 0x10;
		FILE *f = file_of(bytes, size);
		struct replay_index_contents c;
		struct replay_index_file *file;
		char why[160];
		ck_assert_int_eq(replay_index_open(fileno(f), size, &sample_index_expect, &c, &file,
						   why, sizeof(why)),
				 REPLAY_INDEX_LOADED);
		struct resim_state st[3];
		size_t k = 0;
		while (k < 3 && replay_index_read_snapshot(file, k, k ? &st[k - 1] : NULL, &st[k], why,
							   sizeof(why)) == 0)
			k++;
		ck_assert_msg(k < 3, "byte %zu flipped: every snapshot read", i);
		ck_assert_msg(why[0], "byte %zu flipped: no reason", i);
		while (k--)
			resim_state_free(&st[k]);
		replay_index_file_close(file);
		replay_index_contents_free(&c);
		fclose(f);
		bytes[i] ^= 0x10;
	}
	free(bytes);
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
		/* The directory is last: opening alone finds any truncation. */
		FILE *f = file_of(bytes, n);
		struct replay_index_file *file;
		char why[160];
		ck_assert_msg(replay_index_open(fileno(f), n, &sample_index_expect, &c, &file, why,
						sizeof(why)) == REPLAY_INDEX_DAMAGED,
			      "%zu of %zu bytes opened", n, size);
		fclose(f);
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

/* A directory that declares far more than its compressed bytes can hold
 * (a good header CRC over a lying size): refused before its counts ask for
 * memory (under ASan, the count once asked calloc for 2^54 bytes). */
START_TEST(refuses_a_payload_its_frame_cannot_hold)
{
	size_t size;
	uint8_t *bytes = written(&size);
	uint64_t payload = 1ull << 50;
	for (unsigned i = 0; i < 8; i++)
		bytes[48 + i] = (uint8_t)(payload >> (8 * i));
	uint32_t crc = crc32c(0, bytes, 60);
	for (unsigned i = 0; i < 4; i++)
		bytes[60 + i] = (uint8_t)(crc >> (8 * i));
	FILE *f = file_of(bytes, size);
	struct replay_index_contents c;
	struct replay_index_file *file;
	char why[160] = "";
	ck_assert_int_eq(replay_index_open(fileno(f), size, &sample_index_expect, &c, &file, why,
					   sizeof(why)),
			 REPLAY_INDEX_DAMAGED);
	ck_assert_msg(strstr(why, "declares more than"), "why: %s", why);
	fclose(f);
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
	tcase_add_test(tc, stores_unchanged_pages_once);
	tcase_add_test(tc, reads_snapshots_one_at_a_time);
	tcase_add_test(tc, writes_the_same_on_several_threads);
	tcase_add_test(tc, writes_states_it_owns_the_same);
	tcase_add_test(tc, makes_frames_past_a_slow_one);
	tcase_add_test(tc, refuses_a_damaged_frame_when_read);
	tcase_add_test(tc, refuses_every_truncation);
	tcase_add_test(tc, refuses_every_flipped_byte);
	tcase_add_test(tc, refuses_a_payload_its_frame_cannot_hold);
	tcase_add_test(tc, refuses_another_traces_index);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(replay_index_suite)
