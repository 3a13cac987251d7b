/*
 * test_replay_memory_paths.c — when the replay's memory lets translated
 * code make accesses without calling it (replay_memory.c, emu.h's inline
 * tables): reads right after a logged miss, up to the next one; writes
 * to a page the program writes before it ever reads it. Outcomes do not
 * depend on it (test_replay_jit compares replays with and without
 * translation); the first pass's speed does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "check_main.h"
#include "replayer/memory_image.h"
#include "replayer/replay_memory.h"
#include "trace-format/idna.h"

#define LOG2 12
#define DATA 0x20000u

static char trace_path[512];

/* A stream whose memory records are two misses of 4 bytes: the first
 * read's, then one 7 hits later. */
static void write_misses(void)
{
	const char *dir = getenv("TMPDIR");
	snprintf(trace_path, sizeof(trace_path), "%s/replay-memory-paths-%d.idna",
		 dir && *dir ? dir : P_tmpdir, (int)getpid());
	char err[256];
	const char *argv[] = { "misses" };
	struct idna_header_info info = { .argc = 1, .argv = argv, .cwd = "/" };
	struct idna_writer_options opt = { .cache_log2_entries = LOG2 };
	struct idna_writer *w = idna_writer_open(trace_path, &opt, &info, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	static const uint8_t first[4] = { 1, 2, 3, 4 }, second[4] = { 5, 6, 7, 8 };
	struct idna_record r = { .type = IDNA_REC_MISS };
	r.u.miss.hits_before = 0;
	r.u.miss.value = first;
	r.u.miss.len = 4;
	ck_assert_int_eq(idna_writer_append(w, 1, &r), 0);
	r.u.miss.hits_before = 7;
	r.u.miss.value = second;
	ck_assert_int_eq(idna_writer_append(w, 1, &r), 0);
	ck_assert_msg(idna_writer_close(w, err, sizeof(err)) == 0, "%s", err);
}

static void remove_trace(void)
{
	unlink(trace_path);
}

/* A thread's memory whose translated code is told of its cache. */
static void open_memory(struct process_memory *proc, struct replay_memory *m)
{
	ck_assert_int_eq(process_memory_init(proc, memory_image_new()), 0);
	ck_assert_int_eq(replay_memory_init(m, LOG2, PREDICT_CACHE_GROUP_LOG2 + 3, proc), 0);
	ck_assert_int_eq(replay_memory_cache_acquire(m), 0);
	ck_assert_ptr_nonnull(replay_memory_ops.inline_memory(m));
}

START_TEST(reads_after_a_miss_are_inline_up_to_the_next)
{
	write_misses();
	char err[256];
	struct idna_reader *reader = idna_reader_open(trace_path, err, sizeof(err));
	ck_assert_msg(reader != NULL, "%s", err);
	struct process_memory proc;
	struct replay_memory m;
	open_memory(&proc, &m);
	ck_assert_int_eq(cursor_open(&m.cursor, reader, 1, NULL, CURSOR_MEMORY), 0);
	struct emu_mem_uint got = replay_memory_ops.read_uint_sized[2](&m, DATA);
	ck_assert_int_eq(got.status, EMU_MEM_OK);
	ck_assert_uint_eq(got.value, 0x04030201);
	/* The next miss is known already: the 7 hits before it need no
	 * call (0 would send the next read to the memory, to load it). */
	ck_assert_uint_eq(m.hits_limit, 7);
	ck_assert(!m.diverged);
	replay_memory_fini(&m);
	process_memory_fini(&proc);
	idna_reader_close(reader);
	remove_trace();
}
END_TEST

START_TEST(a_page_written_before_it_is_read_takes_inline_writes)
{
	struct process_memory proc;
	struct replay_memory m;
	open_memory(&proc, &m);
	struct code_page_set *read = code_page_set_new(), *written = code_page_set_new();
	ck_assert(read && written);
	process_memory_note_reads(&proc, read);
	process_memory_note_writes(&proc, written);
	uint64_t page = DATA + 3 * 4096;
	ck_assert_int_eq(replay_memory_ops.write_uint_sized[2](&m, page + 8, 0x11223344), EMU_MEM_OK);
	const struct emu_inline_page *e = &proc.inline_pages[(page >> 12) % INLINE_PAGES];
	ck_assert_uint_eq(e->tag, page | EMU_INLINE_PAGE_WRITABLE);
	ck_assert_ptr_eq(e->data, memory_image_page_data(proc.image, page, true));
	ck_assert_uint_eq(e->read_tag, page);
	ck_assert_uint_eq(e->delta, (uintptr_t)e->data - page);
	/* Counted as read: its reads are made inline too, unseen. */
	ck_assert(code_page_set_contains(read, page >> 12));
	ck_assert(code_page_set_contains(written, page >> 12));
	uint8_t back[4];
	ck_assert_uint_eq(memory_image_load(proc.image, page + 8, back, 4), 4);
	ck_assert_uint_eq(back[0], 0x44);
	replay_memory_fini(&m);
	process_memory_fini(&proc);
	code_page_set_free(read);
	code_page_set_free(written);
}
END_TEST

/* A snapshot shares the page, a store then gives the image a copy (as a
 * kernel write's record does, with no read or write of the replay's to
 * offer the page again): the entry reads (read_tag, delta) the image's
 * bytes or none, never the snapshot's. */
START_TEST(a_page_copied_after_a_snapshot_is_not_read_where_it_was)
{
	struct process_memory proc;
	struct replay_memory m;
	open_memory(&proc, &m);
	uint64_t page = DATA + 4 * 4096;
	ck_assert_int_eq(replay_memory_ops.write_uint_sized[3](&m, page, 1), EMU_MEM_OK);
	const struct emu_inline_page *e = &proc.inline_pages[(page >> 12) % INLINE_PAGES];
	ck_assert_uint_eq(e->read_tag, page);
	uint8_t *before = e->data;
	struct memory_image *snap = memory_image_snapshot(proc.image);
	ck_assert(snap);
	const uint8_t two[8] = { 2 };
	ck_assert(memory_image_store(proc.image, page + 8, two, sizeof(two)));
	uint8_t *now = memory_image_page_data(proc.image, page, false);
	ck_assert_ptr_ne(now, before);
	if (e->read_tag == page)
		ck_assert_uint_eq(e->delta, (uintptr_t)now - page);
	else
		ck_assert_uint_eq(e->read_tag, UINT64_MAX);
	memory_image_free(snap);
	replay_memory_fini(&m);
	process_memory_fini(&proc);
}
END_TEST

/* A page the emulator decoded code on (emu.h, decoded_code_page) loses
 * its inline writes and does not take them again: translated code's
 * inline writes skip the check for self-modifying code. */
START_TEST(a_page_of_decoded_code_never_takes_inline_writes)
{
	struct process_memory proc;
	struct replay_memory m;
	open_memory(&proc, &m);
	uint64_t page = DATA + 5 * 4096, other = DATA + 6 * 4096;
	const struct emu_inline_page *e = &proc.inline_pages[(page >> 12) % INLINE_PAGES];
	const struct emu_inline_page *o = &proc.inline_pages[(other >> 12) % INLINE_PAGES];
	ck_assert_int_eq(replay_memory_ops.write_uint_sized[3](&m, page, 1), EMU_MEM_OK);
	ck_assert_uint_eq(e->tag, page | EMU_INLINE_PAGE_WRITABLE);
	replay_memory_ops.decoded_code_page(&m, page);
	ck_assert_uint_eq(e->tag, page);
	ck_assert_int_eq(replay_memory_ops.write_uint_sized[3](&m, page + 8, 2), EMU_MEM_OK);
	ck_assert_uint_eq(e->tag, page);
	/* Told before the page is in the table: the same. */
	replay_memory_ops.decoded_code_page(&m, other);
	ck_assert_int_eq(replay_memory_ops.write_uint_sized[3](&m, other, 3), EMU_MEM_OK);
	ck_assert_uint_eq(o->tag & EMU_INLINE_PAGE_WRITABLE, 0);
	uint8_t back[8];
	ck_assert_uint_eq(memory_image_load(proc.image, page + 8, back, 8), 8);
	ck_assert_uint_eq(back[0], 2);
	replay_memory_fini(&m);
	process_memory_fini(&proc);
}
END_TEST

static Suite *replay_memory_paths_suite(void)
{
	Suite *s = suite_create("replay_memory_paths");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, reads_after_a_miss_are_inline_up_to_the_next);
	tcase_add_test(tc, a_page_written_before_it_is_read_takes_inline_writes);
	tcase_add_test(tc, a_page_of_decoded_code_never_takes_inline_writes);
	tcase_add_test(tc, a_page_copied_after_a_snapshot_is_not_read_where_it_was);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(replay_memory_paths_suite)
