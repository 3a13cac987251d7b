/*
 * test_trace_pair.c — reading a stream by types (idna_iter_want) and two
 * iterators of one stream sharing its decompressed chunks
 * (idna_iter_pair), as a replay's memory and event cursors do: every
 * record served is the one a full read serves, however far apart the two
 * are, and a damaged chunk ends each of them at its own place; and the
 * misses' own decoding path (record_decode_miss).
 */
#include <fcntl.h>

#include "check_main.h"
#include "trace_sample.h"
#include "trace-format/bytes.h"
#include "trace-format/record_codec.h"

#define N_RECORDS 3000

/* The memory cursor's types and the event cursor's (record_cursor.c). */
#define MEMORY_TYPES (idna_type_bit(IDNA_REC_MISS) | idna_type_bit(IDNA_REC_CODE_PAGE) | \
		      idna_type_bit(IDNA_REC_CHECKPOINT))
#define EVENT_TYPES (~(idna_type_bit(IDNA_REC_MISS) | idna_type_bit(IDNA_REC_CODE_PAGE)) | \
		     idna_type_bit(IDNA_REC_CHECKPOINT))

static char path[256];

/* Record j of the stream: two of three are misses (runs of them, as in a
 * real stream), the others every type in turn. */
static uint64_t sample_of(uint64_t j)
{
	return j % 3 == 0 ? j : 16 * j; /* sample 16k is a MISS */
}

/* A stream of several chunks (code pages fill them). */
static void make_trace(void)
{
	char err[256];
	sample_temp_path(path, sizeof(path), "pair");
	struct idna_writer_options o = {.chunk_bytes = 66000};
	struct idna_writer *w = idna_writer_open(path, &o, NULL, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	static struct sample s;
	for (uint64_t j = 0; j < N_RECORDS; j++) {
		sample_record(&s, 0, sample_of(j));
		ck_assert_int_eq(idna_writer_append(w, 0, &s.rec), 0);
	}
	ck_assert_int_eq(idna_writer_close(w, err, sizeof(err)), 0);
}

/* One reader of some types, and the full stream's index of its next. */
struct typed_reader {
	struct idna_iter *it;
	uint32_t types;
	uint64_t j;
	uint64_t served;
	/* Misses asked for first (idna_iter_next_miss), as a replay's
	 * memory cursor does. */
	bool misses_first;
};

static struct idna_iter *open_typed(struct idna_reader *r, struct typed_reader *t, uint32_t types)
{
	char err[256];
	t->it = idna_iter_open(r, 0, NULL, err, sizeof(err));
	ck_assert_msg(t->it != NULL, "%s", err);
	t->types = types;
	t->j = 0;
	t->served = 0;
	t->misses_first = false;
	idna_iter_want(t->it, types);
	return t->it;
}

static uint32_t type_of(uint64_t j)
{
	return 1 + (uint32_t)(sample_of(j) % (IDNA_REC_TYPE_COUNT - 1));
}

/* Reads one record and checks it is the next of its types; at the end of
 * the stream, that none is left. Returns idna_iter_next's answer. */
static int step(struct typed_reader *t)
{
	while (t->j < N_RECORDS && !(t->types & idna_type_bit(type_of(t->j))))
		t->j++;
	struct idna_record rec;
	int rc = t->misses_first ? idna_iter_next_miss(t->it, &rec) : 0;
	if (rc == 1)
		ck_assert_uint_eq(rec.type, IDNA_REC_MISS);
	else
		rc = idna_iter_next(t->it, &rec);
	if (rc == 1) {
		ck_assert_uint_lt(t->j, N_RECORDS);
		static struct sample s;
		sample_record(&s, 0, sample_of(t->j));
		assert_sample_equal(&s, &rec);
		t->j++;
		t->served++;
	} else if (rc == 0) {
		ck_assert_uint_eq(t->j, N_RECORDS);
	}
	return rc;
}

static void read_to_end(struct typed_reader *t)
{
	int rc;
	while ((rc = step(t)) == 1)
		;
	ck_assert_msg(rc == 0, "%s", idna_iter_error(t->it));
}

static struct idna_reader *open_trace(void)
{
	char err[256];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_ge(idna_reader_chunk_count(r), 4);
	return r;
}

/* KERNEL and NATIVE registers and KEY_FRAME times are deltas from records
 * of other types: a reader of those alone must still decode what they
 * build on. */
START_TEST(a_reader_of_some_types_sees_what_a_full_read_sees)
{
	make_trace();
	struct idna_reader *r = open_trace();
	const uint32_t sets[] = {
		MEMORY_TYPES,
		EVENT_TYPES,
		idna_type_bit(IDNA_REC_KERNEL),
		idna_type_bit(IDNA_REC_NATIVE) | idna_type_bit(IDNA_REC_MISS),
		idna_type_bit(IDNA_REC_KEY_FRAME),
		idna_type_bit(IDNA_REC_CODE_PAGE),
		~0u,
	};
	for (size_t k = 0; k < sizeof(sets) / sizeof(sets[0]); k++) {
		/* Alone, and beside one asking for misses first: the same
		 * records from the same places. */
		struct typed_reader t, u;
		open_typed(r, &t, sets[k]);
		read_to_end(&t);
		ck_assert_uint_gt(t.served, 0);
		idna_iter_close(t.it);
		open_typed(r, &t, sets[k]);
		open_typed(r, &u, sets[k]);
		u.misses_first = true;
		int rc;
		while ((rc = step(&t)) == 1) {
			ck_assert_int_eq(step(&u), 1);
			uint32_t at[3], au[3];
			idna_iter_position(t.it, &at[0], &at[1], &at[2]);
			idna_iter_position(u.it, &au[0], &au[1], &au[2]);
			ck_assert_int_eq(memcmp(at, au, sizeof(at)), 0);
		}
		ck_assert_int_eq(rc, 0);
		ck_assert_int_eq(step(&u), 0);
		idna_iter_close(t.it);
		idna_iter_close(u.it);
	}
	idna_reader_close(r);
	unlink(path);
}
END_TEST

/* The memory reader runs to the end before the events reader starts, the
 * other way round, and the two in step at different paces: each sees its
 * records as if it were alone, whichever loaded a chunk first. */
START_TEST(a_pair_far_apart_reads_as_two_alone)
{
	make_trace();
	struct idna_reader *r = open_trace();
	for (int order = 0; order < 3; order++) {
		struct typed_reader mem, ev;
		idna_iter_pair(open_typed(r, &mem, MEMORY_TYPES), open_typed(r, &ev, EVENT_TYPES));
		mem.misses_first = ev.misses_first = true;
		if (order == 0) {
			read_to_end(&mem);
			read_to_end(&ev);
		} else if (order == 1) {
			read_to_end(&ev);
			read_to_end(&mem);
		} else {
			int a = 1, b = 1;
			while (a == 1 || b == 1) {
				for (int i = 0; i < 7 && a == 1; i++)
					a = step(&mem);
				if (b == 1)
					b = step(&ev);
			}
			ck_assert_int_eq(a, 0);
			ck_assert_int_eq(b, 0);
		}
		idna_iter_close(mem.it);
		idna_iter_close(ev.it);
	}
	/* One closed halfway: the other reads on alone. */
	struct typed_reader mem, ev;
	idna_iter_pair(open_typed(r, &mem, MEMORY_TYPES), open_typed(r, &ev, EVENT_TYPES));
	for (int i = 0; i < N_RECORDS / 2; i++)
		ck_assert_int_eq(step(&mem), 1);
	for (int i = 0; i < 20; i++)
		ck_assert_int_eq(step(&ev), 1);
	idna_iter_close(mem.it);
	read_to_end(&ev);
	idna_iter_close(ev.it);
	idna_reader_close(r);
	unlink(path);
}
END_TEST

/* Records of chunks before `chunk` of the given types. */
static uint64_t typed_records_before(uint64_t records_before, uint32_t types)
{
	uint64_t n = 0;
	for (uint64_t j = 0; j < records_before; j++)
		n += !!(types & idna_type_bit(type_of(j)));
	return n;
}

/* A damaged chunk in the middle: the reader ahead stops there first; the
 * one behind still gets every record before it, then the same error. */
START_TEST(a_damaged_chunk_seen_first_by_the_one_ahead)
{
	make_trace();
	struct idna_reader *r = open_trace();
	const struct idna_chunk_info *c = idna_reader_chunk(r, 2);
	uint64_t before = idna_reader_chunk(r, 0)->n_records + idna_reader_chunk(r, 1)->n_records;
	uint64_t at = c->file_offset + c->compressed_size; /* inside its payload */
	idna_reader_close(r);
	int fd = open(path, O_RDWR);
	ck_assert_int_ge(fd, 0);
	uint8_t b;
	ck_assert_int_eq(pread(fd, &b, 1, (off_t)at), 1);
	b ^= 0x40;
	ck_assert_int_eq(pwrite(fd, &b, 1, (off_t)at), 1);
	close(fd);

	char err[256];
	r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(idna_reader_chunk(r, 2)->damaged);
	struct typed_reader mem, ev;
	idna_iter_pair(open_typed(r, &mem, MEMORY_TYPES), open_typed(r, &ev, EVENT_TYPES));
	int rc;
	while ((rc = step(&mem)) == 1)
		;
	ck_assert_int_eq(rc, -1);
	ck_assert_ptr_nonnull(strstr(idna_iter_error(mem.it), "damaged"));
	ck_assert_uint_eq(mem.served, typed_records_before(before, MEMORY_TYPES));
	while ((rc = step(&ev)) == 1)
		;
	ck_assert_int_eq(rc, -1);
	ck_assert_str_eq(idna_iter_error(ev.it), idna_iter_error(mem.it));
	ck_assert_uint_eq(ev.served, typed_records_before(before, EVENT_TYPES));
	idna_iter_close(mem.it);
	idna_iter_close(ev.it);
	idna_reader_close(r);
	unlink(path);
}
END_TEST

/* Every miss length and hits_before of every varint size decodes on the
 * misses' path as on the general one; malformed misses are left to the
 * general path, which names what is wrong. */
START_TEST(misses_decode_alike_on_their_own_path)
{
	static const uint64_t hits[] = {0, 1, 127, 128, 16383, 16384, 1ull << 40, UINT64_MAX};
	uint8_t value[IDNA_MAX_READ], buf[RECORD_MAX_ENCODED];
	for (int k = 0; k < IDNA_MAX_READ; k++)
		value[k] = (uint8_t)(7 * k + 1);
	char err[160];
	for (size_t h = 0; h < sizeof(hits) / sizeof(hits[0]); h++)
		for (uint32_t len = 1; len <= IDNA_MAX_READ; len++) {
			struct record_codec_state st;
			record_codec_reset(&st);
			struct idna_record w = {.type = IDNA_REC_MISS};
			w.u.miss.hits_before = hits[h];
			w.u.miss.value = value;
			w.u.miss.len = len;
			size_t n = record_encode(&st, &w, buf, err, sizeof(err));
			ck_assert_uint_gt(n, 0);
			struct byte_reader r = {buf, buf + n, false};
			struct idna_record got;
			ck_assert_int_eq(record_decode_miss(&r, &got), 1);
			ck_assert(r.p == buf + n);
			ck_assert_uint_eq(got.type, IDNA_REC_MISS);
			ck_assert_uint_eq(got.u.miss.hits_before, hits[h]);
			ck_assert_uint_eq(got.u.miss.len, len);
			ck_assert_int_eq(memcmp(got.u.miss.value, value, len), 0);
		}
	/* No value; 65 bytes; a hits_before running past the payload; a
	 * record running past its chunk. */
	uint8_t empty[] = {IDNA_REC_MISS, 1, 0};
	uint8_t long_value[2 + 1 + 65] = {IDNA_REC_MISS, 66, 0};
	uint8_t cut_varint[] = {IDNA_REC_MISS, 1, 0x80};
	uint8_t no_value_after_two[] = {IDNA_REC_MISS, 2, 0x80, 0x01};
	uint8_t long_value_after_two[2 + 2 + 65] = {IDNA_REC_MISS, 67, 0x80, 0x01};
	uint8_t cut_record[8] = {IDNA_REC_MISS, 9, 0, 1, 2}; /* 9 bytes declared, 3 read */
	struct { uint8_t *b; size_t n; const char *why; } bad[] = {
		{empty, sizeof(empty), "miss value must be 1..64 bytes"},
		{long_value, sizeof(long_value), "miss value must be 1..64 bytes"},
		{cut_varint, sizeof(cut_varint), "malformed miss record"},
		{no_value_after_two, sizeof(no_value_after_two), "miss value must be 1..64 bytes"},
		{long_value_after_two, sizeof(long_value_after_two), "miss value must be 1..64 bytes"},
		{cut_record, 5, "malformed record header"},
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		struct byte_reader r = {bad[k].b, bad[k].b + bad[k].n, false};
		struct idna_record got;
		ck_assert_int_eq(record_decode_miss(&r, &got), 0);
		ck_assert(r.p == bad[k].b);
		struct record_decoder *d = calloc(1, sizeof(*d));
		ck_assert_int_eq(record_decode(d, &r, &got, err, sizeof(err)), -1);
		ck_assert_msg(strstr(err, bad[k].why) != NULL, "%zu: %s", k, err);
		free(d);
	}
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("trace_pair");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, a_reader_of_some_types_sees_what_a_full_read_sees);
	tcase_add_test(tc, a_pair_far_apart_reads_as_two_alone);
	tcase_add_test(tc, a_damaged_chunk_seen_first_by_the_one_ahead);
	tcase_add_test(tc, misses_decode_alike_on_their_own_path);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite)
