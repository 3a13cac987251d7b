/*
 * test_trace_ring.c — ring (flight-recorder) mode: the file stays within
 * its bound, the newest records are all there, every thread stream
 * replays from its first kept checkpoint to its end, and the threads and
 * modules that outlived the evicted chunks are still listed.
 */
#include <sys/stat.h>

#include "check_main.h"
#include "trace-format/file_format.h"
#include "trace_sample.h"

enum { THREADS = 3, PER_THREAD = 60000, CP_EVERY = 997 };

static const uint64_t ring = 1u << 20;

/* Thread record i: a checkpoint every CP_EVERY records, else a miss of
 * barely compressible bytes so the ring wraps several times. */
static void thread_record(struct sample *s, uint32_t stream, uint64_t i)
{
	memset(&s->rec, 0, sizeof(s->rec));
	if (i % CP_EVERY == 0) {
		memset(&s->regs, 0, sizeof(s->regs));
		s->regs.rip = i;
		s->regs.gpr[0] = stream;
		s->rec.type = IDNA_REC_CHECKPOINT;
		s->rec.u.checkpoint.icount = i * 10;
		s->rec.u.checkpoint.global_seq = i;
		s->rec.u.checkpoint.regs = &s->regs;
		return;
	}
	uint64_t seed = i * 7919 + stream;
	for (int k = 0; k < 16; k++)
		s->bytes[k] = (uint8_t)sample_rand(&seed);
	s->rec.type = IDNA_REC_MISS;
	s->rec.u.miss.hits_before = i;
	s->rec.u.miss.value = s->bytes;
	s->rec.u.miss.len = 16;
}

static void write_ring(const char *path, bool close_it, bool live[64])
{
	char err[256];
	struct idna_writer_options o = {.chunk_bytes = 66000, .ring_bytes = ring};
	struct idna_writer *w = idna_writer_open(path, &o, NULL, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct sample *s = malloc(sizeof(*s));
	struct idna_record g = {0};
	for (uint64_t i = 0; i < PER_THREAD; i++) {
		for (uint32_t t = 1; t <= THREADS; t++) {
			thread_record(s, t, i);
			ck_assert_msg(idna_writer_append(w, t, &s->rec) == 0, "%s", idna_writer_error(w));
		}
		if (i % 1000 == 0) {
			/* Module m = i/1000 is loaded; module m-3 unmapped. */
			uint64_t m = i / 1000;
			snprintf(s->path, sizeof(s->path), "/lib/m%llu.so", (unsigned long long)m);
			g = (struct idna_record){.type = IDNA_REC_MODULE_LOAD};
			g.u.module_load.addr = 0x10000000 * (m + 1);
			g.u.module_load.size = 0x1000;
			g.u.module_load.path = s->path;
			ck_assert_int_eq(idna_writer_append(w, 0, &g), 0);
			live[m] = true;
			if (m >= 3 && m % 2) {
				g = (struct idna_record){.type = IDNA_REC_MODULE_UNMAP};
				g.u.module_unmap.addr = 0x10000000 * (m - 2);
				g.u.module_unmap.size = 0x1000;
				ck_assert_int_eq(idna_writer_append(w, 0, &g), 0);
				live[m - 3] = false;
			}
			/* End the global chunk so it takes part in the ring. */
			ck_assert_int_eq(idna_writer_flush(w), 0);
		}
	}
	free(s);
	if (close_it)
		ck_assert_msg(idna_writer_close(w, err, sizeof(err)) == 0, "%s", err);
	else
		idna_writer_abandon(w);
}

static void check_ring(const char *path, const bool live[64])
{
	char err[256];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	/* The newest records of every thread, from its first kept checkpoint. */
	struct sample *s = malloc(sizeof(*s));
	for (uint32_t t = 1; t <= THREADS; t++) {
		const struct idna_checkpoint *first = NULL;
		for (size_t i = 0; i < idna_reader_checkpoint_count(r) && !first; i++)
			if (idna_reader_checkpoint(r, i)->stream == t)
				first = idna_reader_checkpoint(r, i);
		ck_assert_ptr_nonnull(first);
		ck_assert_uint_gt(first->icount, 0); /* the oldest were evicted */
		struct idna_iter *it = idna_iter_open(r, t, first, err, sizeof(err));
		ck_assert_msg(it != NULL, "%s", err);
		struct idna_record rec;
		uint64_t i = first->global_seq;
		int rc;
		bool same = true;
		while ((rc = idna_iter_next(it, &rec)) == 1) {
			thread_record(s, t, i++);
			same &= rec.type == s->rec.type &&
				(rec.type != IDNA_REC_MISS || (rec.u.miss.hits_before == s->rec.u.miss.hits_before &&
							       !memcmp(rec.u.miss.value, s->bytes, 16)));
		}
		ck_assert_msg(rc == 0, "%s", idna_iter_error(it));
		ck_assert(same);
		/* Chunks still open when the writer died are lost with it. */
		ck_assert_uint_gt(i, PER_THREAD - 2 * 66000 / 20);
		idna_iter_close(it);
	}
	free(s);
	/* Modules: exactly those the program still had mapped. */
	size_t mapped = 0;
	for (size_t i = 0; i < idna_reader_module_count(r); i++) {
		const struct idna_module_info *m = idna_reader_module(r, i);
		if (m->unmapped)
			continue;
		unsigned idx = (unsigned)(m->addr / 0x10000000 - 1);
		ck_assert_msg(idx < 64 && live[idx], "module %u listed but unmapped", idx);
		mapped++;
	}
	size_t want = 0;
	for (int i = 0; i < 64; i++)
		want += live[i];
	ck_assert_uint_eq(mapped, want);
	idna_reader_close(r);
}

START_TEST(ring_keeps_the_newest)
{
	char path[256];
	sample_temp_path(path, sizeof(path), "ring");
	bool live[64] = {0};
	write_ring(path, true, live);
	struct stat st;
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_le((uint64_t)st.st_size, ring + 4096 + 64 * 1024);
	check_ring(path, live);
	unlink(path);
}
END_TEST

START_TEST(killed_ring_recorder_leaves_a_readable_file)
{
	char path[256];
	sample_temp_path(path, sizeof(path), "ring-killed");
	bool live[64] = {0};
	write_ring(path, false, live);
	check_ring(path, live);
	unlink(path);
}
END_TEST

START_TEST(ring_too_small_is_refused)
{
	char path[256], err[256];
	sample_temp_path(path, sizeof(path), "ring-small");
	struct idna_writer_options o = {.ring_bytes = 100000};
	ck_assert_ptr_null(idna_writer_open(path, &o, NULL, err, sizeof(err)));
	ck_assert(strstr(err, "ring") != NULL);
	unlink(path);
}
END_TEST

static Suite *trace_ring_suite(void)
{
	Suite *s = suite_create("trace_ring");
	TCase *tc = tcase_create("ring");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, ring_keeps_the_newest);
	tcase_add_test(tc, killed_ring_recorder_leaves_a_readable_file);
	tcase_add_test(tc, ring_too_small_is_refused);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(trace_ring_suite)
