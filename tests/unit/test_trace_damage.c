/*
 * test_trace_damage.c — bad input never crashes the reader: a trace cut
 * at every byte offset (a killed recorder) serves every complete chunk;
 * every byte flipped is caught by a checksum and what precedes the damage
 * is still served; empty files, garbage, a future version and absurd
 * sizes fail with a clear message.
 */
#include <fcntl.h>

#include "check_main.h"
#include "trace-format/bytes.h"
#include "trace-format/crc32c.h"
#include "trace-format/file_format.h"
#include "trace_sample.h"

static uint8_t *trace;
static size_t trace_size;
static char path[256];

/* A small trace of three streams, several chunks each, mostly cheap
 * compressible records so the file stays a few KiB. */
static void make_trace(void)
{
	char err[256];
	sample_temp_path(path, sizeof(path), "damage-src");
	struct idna_writer_options o = {.chunk_bytes = 66000};
	struct idna_writer *w = idna_writer_open(path, &o, NULL, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	uint8_t v[8] = {1, 2, 3, 4};
	for (uint32_t i = 0; i < 30000; i++) {
		struct idna_record rec = {.type = IDNA_REC_MISS};
		rec.u.miss.hits_before = i % 7;
		rec.u.miss.value = v;
		rec.u.miss.len = 8;
		v[0] = (uint8_t)(i / 64);
		ck_assert_int_eq(idna_writer_append(w, i % 3, &rec), 0);
	}
	ck_assert_int_eq(idna_writer_close(w, err, sizeof(err)), 0);
	int fd = open(path, O_RDONLY);
	trace_size = (size_t)lseek(fd, 0, SEEK_END);
	trace = malloc(trace_size);
	ck_assert_int_eq(pread(fd, trace, trace_size, 0), (ssize_t)trace_size);
	close(fd);
	unlink(path);
	sample_temp_path(path, sizeof(path), "damage");
}

static void write_file(const uint8_t *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, n), (ssize_t)n);
	close(fd);
}

/* Reads every stream; checks each record served is the one written (the
 * miss with hits_before == its index mod 7 within its stream). Returns
 * the records served. Plain comparisons in the loop: a Check assertion
 * costs a write to the test log. */
static uint64_t read_all(struct idna_reader *r, bool *saw_error)
{
	bool wrong = false;
	uint64_t total = 0;
	for (size_t s = 0; s < idna_reader_stream_count(r); s++) {
		uint32_t id = idna_reader_stream_id(r, s);
		char err[256];
		struct idna_iter *it = idna_iter_open(r, id, NULL, err, sizeof(err));
		if (!it) {
			*saw_error = true;
			continue;
		}
		struct idna_record rec;
		int rc;
		uint64_t k = 0;
		while ((rc = idna_iter_next(it, &rec)) == 1) {
			uint64_t i = 3 * k + id;
			wrong |= rec.type != IDNA_REC_MISS || rec.u.miss.hits_before != i % 7 ||
				 rec.u.miss.value[0] != (uint8_t)(i / 64);
			k++;
		}
		if (rc < 0)
			*saw_error = idna_iter_error(it) != NULL;
		total += k;
		idna_iter_close(it);
	}
	ck_assert_msg(!wrong, "a record was served with the wrong contents");
	return total;
}

START_TEST(truncated_at_every_offset)
{
	make_trace();
	char err[256];
	/* Where each chunk ends, from the intact file. */
	write_file(trace, trace_size);
	struct idna_reader *full = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(full != NULL, "%s", err);
	size_t n_chunks = idna_reader_chunk_count(full);
	ck_assert_uint_ge(n_chunks, 4);
	uint64_t ends[64], records_before[64], all = 0;
	ck_assert_uint_le(n_chunks, 64);
	for (size_t i = 0; i < n_chunks; i++) {
		const struct idna_chunk_info *c = idna_reader_chunk(full, i);
		records_before[i] = all;
		all += c->n_records;
		ends[i] = c->file_offset + CHUNK_HEADER_FIXED + 4 + c->compressed_size;
	}
	idna_reader_close(full);
	ck_assert_uint_eq(all, 30000);

	for (size_t cut = 0; cut < trace_size; cut++) {
		write_file(trace, cut);
		struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
		if (!r) {
			ck_assert(strlen(err) > 0);
			continue;
		}
		size_t complete = 0;
		while (complete < n_chunks && ends[complete] <= cut)
			complete++;
		ck_assert_uint_eq(idna_reader_chunk_count(r), complete);
		bool error = false;
		uint64_t got = read_all(r, &error);
		ck_assert(!error);
		ck_assert_uint_eq(got, complete ? records_before[complete - 1] +
							idna_reader_chunk(r, complete - 1)->n_records : 0);
		idna_reader_close(r);
	}
	unlink(path);
	free(trace);
}
END_TEST

START_TEST(every_byte_flipped)
{
	make_trace();
	uint8_t *copy = malloc(trace_size);
	char err[256];
	for (size_t at = 0; at < trace_size; at++) {
		memcpy(copy, trace, trace_size);
		copy[at] ^= (uint8_t)(1u << (at % 8));
		write_file(copy, trace_size);
		struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
		if (!r)
			continue; /* the header was hit: a clean refusal */
		bool error = false;
		uint64_t got = read_all(r, &error);
		/* Either the damage was caught, or it hit bytes nobody reads
		 * (the index, when scanning finds the same chunks). */
		bool caught = error || idna_reader_warning(r) || idna_reader_index_rebuilt(r);
		ck_assert_msg(caught || got == 30000, "flip at %zu went unnoticed", at);
		idna_reader_close(r);
	}
	free(copy);
	free(trace);
	unlink(path);
}
END_TEST

static void expect_refusal(const uint8_t *data, size_t n, const char *needle)
{
	char err[256] = "";
	write_file(data, n);
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r == NULL, "opened a bad file (%s)", needle);
	ck_assert_msg(strstr(err, needle) != NULL, "'%s' lacks '%s'", err, needle);
	ck_assert_ptr_null(strchr(err, '\n'));
}

START_TEST(bad_files_are_refused)
{
	make_trace();
	expect_refusal(trace, 0, "empty file");
	uint8_t garbage[4096];
	uint64_t seed = 42;
	for (size_t i = 0; i < sizeof(garbage); i++)
		garbage[i] = (uint8_t)sample_rand(&seed);
	expect_refusal(garbage, sizeof(garbage), "not an .idna trace");
	expect_refusal((const uint8_t *)"IDNATRC", 7, "not an .idna trace");

	uint8_t *copy = malloc(trace_size);
	memcpy(copy, trace, trace_size);
	copy[8] = 2; /* major version 2 */
	char refusal[64];
	snprintf(refusal, sizeof(refusal), "version 2.%d is not supported", IDNA_VERSION_MINOR);
	expect_refusal(copy, trace_size, refusal);

	/* A header claiming 2^31 arguments, with a correct checksum. */
	uint8_t h[64];
	struct byte_writer w = {h, h + sizeof(h), false};
	bw_bytes(&w, IDNA_FILE_MAGIC, 8);
	bw_le(&w, 1, 2);
	bw_le(&w, 0, 2);
	bw_le(&w, 0, 4);
	uint64_t fields[] = {0, 62, 17, 3, 0, 131072, 0, 0, 1u << 31};
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		bw_varint(&w, fields[i]);
	size_t len = (size_t)(w.p - h);
	store_le(h + 12, len + 4, 4);
	store_le(h + len, crc32c(0, h, len), 4);
	expect_refusal(h, len + 4, "bad argument count");
	/* A header size larger than the file. */
	store_le(h + 12, 1u << 19, 4);
	expect_refusal(h, len + 4, "truncated file header");
	expect_refusal(h, len + 4 - 1, "truncated file header");
	free(copy);
	free(trace);
	unlink(path);
}
END_TEST

START_TEST(absurd_chunk_sizes_are_skipped)
{
	make_trace();
	/* Rewrite the first chunk's header to claim 4 GiB of payload, with a
	 * valid header checksum: the reader must not trust it. */
	char err[256];
	write_file(trace, trace_size);
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	uint64_t off = idna_reader_chunk(r, 0)->file_offset;
	idna_reader_close(r);
	uint8_t *copy = malloc(trace_size);
	memcpy(copy, trace, trace_size);
	store_le(copy + off + 48, 0xffffffffu, 4); /* compressed size */
	store_le(copy + off + 52, 0xffffffffu, 4); /* uncompressed size */
	store_le(copy + off + 64, crc32c(0, copy + off, 64), 4);
	write_file(copy, trace_size);
	r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(idna_reader_index_rebuilt(r));
	ck_assert_ptr_nonnull(idna_reader_warning(r));
	bool error = false;
	read_all(r, &error);
	ck_assert(error); /* stream 0 lost its first chunk: a gap, reported */
	idna_reader_close(r);
	free(copy);
	free(trace);
	unlink(path);
}
END_TEST

static Suite *trace_damage_suite(void)
{
	Suite *s = suite_create("trace_damage");
	TCase *tc = tcase_create("damage");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, truncated_at_every_offset);
	tcase_add_test(tc, every_byte_flipped);
	tcase_add_test(tc, bad_files_are_refused);
	tcase_add_test(tc, absurd_chunk_sizes_are_skipped);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(trace_damage_suite)
