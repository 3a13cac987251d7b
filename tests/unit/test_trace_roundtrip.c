/*
 * test_trace_roundtrip.c — every record type written and read back
 * unchanged; many streams interleaved; iteration from checkpoints; the
 * thread and module lists; unknown record types skipped; writer errors
 * reported, not fatal; the header's pid, and headers without it (format
 * 1.1) or with fields after it (a newer minor version); the writer's
 * thread takes none of the process's signals.
 */
#include <dirent.h>
#include <signal.h>
#include <sys/syscall.h>

#include "check_main.h"
#include "trace_sample.h"
#include "trace-format/crc32c.h"
#include "trace-format/file_format.h"
#include "trace-format/miss_cursor.h"

static const struct idna_writer_options small_chunks = {.chunk_bytes = 70000};

/* How MISS records are appended: idna_writer_append, or the direct
 * paths (a value of up to 8 bytes as an integer, with miss_uint, or put
 * by the stream's cursor while it has room, as the recorder does). */
enum miss_path { MISS_GENERAL, MISS_BYTES, MISS_UINT, MISS_CURSOR };

static int append_sample(struct idna_writer *w, uint32_t stream, const struct idna_record *rec,
			 enum miss_path path)
{
	if (path == MISS_GENERAL || rec->type != IDNA_REC_MISS)
		return idna_writer_append(w, stream, rec);
	const struct idna_record *m = rec;
	if ((path == MISS_UINT || path == MISS_CURSOR) && m->u.miss.len <= 8) {
		uint64_t value = 0;
		memcpy(&value, m->u.miss.value, m->u.miss.len);
		/* Bytes past len in the integer must not reach the file. */
		value |= m->u.miss.len < 8 ? ~0ull << (8 * m->u.miss.len) : 0;
		if (path == MISS_CURSOR &&
		    idna_miss_cursor_put_uint(idna_writer_miss_cursor(w, stream),
					      m->u.miss.hits_before, value, m->u.miss.len))
			return 0;
		return idna_writer_append_miss_uint(w, stream, m->u.miss.hits_before, value,
						    m->u.miss.len);
	}
	return idna_writer_append_miss(w, stream, m->u.miss.hits_before, m->u.miss.value,
				       m->u.miss.len);
}

/* per_stream sample records in each stream, then tail_misses MISS
 * records in each (a file that ends with records a cursor put). */
static void write_streams_via(const char *path, uint32_t n_streams, uint64_t per_stream,
			      const struct idna_writer_options *opt, enum miss_path miss_path,
			      unsigned tail_misses)
{
	char err[256] = "";
	const char *argv[] = {"prog", "--flag", "x y"};
	struct idna_cpuid_entry cpuid[] = {{0, 0, 0xd, 0x756e6547, 0x6c65746e, 0x49656e69}, {7, 0, 0, 1, 2, 3}};
	struct idna_header_info info = {3, argv, "/home/user", 1700000000123456789ll, 2, cpuid, 0};
	struct idna_writer *w = idna_writer_open(path, opt, &info, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct sample *s = malloc(sizeof(*s));
	/* Round-robin with a stride so chunks of different streams interleave. */
	for (uint64_t i = 0; i < per_stream; i++)
		for (uint32_t st = 0; st < n_streams; st++) {
			sample_record(s, st, i);
			ck_assert_msg(append_sample(w, st, &s->rec, miss_path) == 0, "%s",
				      idna_writer_error(w));
		}
	free(s);
	/* The tail in two halves: counted after the first (statistics settle
	 * the cursor's records), the second left for close to settle. */
	for (unsigned half = 0; half < 2; half++) {
		for (uint32_t st = 0; st < n_streams; st++)
			for (unsigned i = half * tail_misses / 2; i < (half + 1) * tail_misses / 2; i++) {
				uint8_t value[4] = { (uint8_t)st, (uint8_t)i, 0x5a, 0xa5 };
				struct idna_record miss = { .type = IDNA_REC_MISS };
				miss.u.miss.hits_before = 1000 + i;
				miss.u.miss.value = value;
				miss.u.miss.len = sizeof(value);
				ck_assert_int_eq(append_sample(w, st, &miss, miss_path), 0);
			}
		if (half == 0) {
			struct idna_writer_stats stats;
			idna_writer_get_stats(w, &stats);
			ck_assert_uint_eq(stats.records, n_streams * (per_stream + tail_misses / 2));
		}
	}
	ck_assert_msg(idna_writer_close(w, err, sizeof(err)) == 0, "%s", err);
}

static void write_streams(const char *path, uint32_t n_streams, uint64_t per_stream,
			  const struct idna_writer_options *opt)
{
	write_streams_via(path, n_streams, per_stream, opt, MISS_GENERAL, 0);
}

static uint8_t *read_whole(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	ck_assert_ptr_nonnull(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	ck_assert_int_gt(n, 0);
	rewind(f);
	uint8_t *bytes = malloc((size_t)n);
	ck_assert_uint_eq(fread(bytes, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return bytes;
}

static uint64_t read_stream(struct idna_reader *r, uint32_t stream, const struct idna_checkpoint *from,
			    uint64_t first)
{
	char err[256];
	struct idna_iter *it = idna_iter_open(r, stream, from, err, sizeof(err));
	ck_assert_msg(it != NULL, "%s", err);
	struct sample *s = malloc(sizeof(*s));
	struct idna_record rec;
	uint64_t i = first;
	int rc;
	while ((rc = idna_iter_next(it, &rec)) == 1) {
		sample_record(s, stream, i++);
		assert_sample_equal(s, &rec);
	}
	ck_assert_msg(rc == 0, "%s", idna_iter_error(it));
	free(s);
	idna_iter_close(it);
	return i - first;
}

START_TEST(every_record_type_round_trips)
{
	char path[256], err[256];
	sample_temp_path(path, sizeof(path), "types");
	write_streams(path, 1, 3 * (IDNA_REC_TYPE_COUNT - 1), NULL);
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert(!idna_reader_index_rebuilt(r));
	ck_assert_ptr_null(idna_reader_warning(r));
	const struct idna_header *h = idna_reader_header(r);
	ck_assert_uint_eq(h->info.argc, 3);
	ck_assert_str_eq(h->info.argv[2], "x y");
	ck_assert_str_eq(h->info.cwd, "/home/user");
	ck_assert_int_eq(h->info.start_time_ns, 1700000000123456789ll);
	ck_assert_uint_eq(h->info.n_cpuid, 2);
	ck_assert_uint_eq(h->info.cpuid[0].ebx, 0x756e6547);
	ck_assert_uint_eq(read_stream(r, 0, NULL, 0), 3 * (IDNA_REC_TYPE_COUNT - 1));
	idna_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(interleaved_streams_and_checkpoints)
{
	char path[256], err[256];
	sample_temp_path(path, sizeof(path), "streams");
	enum { STREAMS = 6, PER = 3000 };
	write_streams(path, STREAMS, PER, &small_chunks);
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	ck_assert_uint_eq(idna_reader_stream_count(r), STREAMS);
	ck_assert_uint_gt(idna_reader_chunk_count(r), STREAMS * 2);
	for (uint32_t st = 0; st < STREAMS; st++)
		ck_assert_uint_eq(read_stream(r, st, NULL, 0), PER);

	/* Checkpoints: sample i is a checkpoint when i % TYPES == 2, icount 50 i. */
	uint64_t want_i = 2 + SAMPLE_TYPES * 100;
	const struct idna_checkpoint *cp = idna_reader_find_checkpoint(r, 3, 50 * want_i + 49);
	ck_assert_ptr_nonnull(cp);
	ck_assert_uint_eq(cp->icount, 50 * want_i);
	ck_assert_uint_eq(read_stream(r, 3, cp, want_i), PER - want_i);
	ck_assert_ptr_null(idna_reader_find_checkpoint(r, 3, 99));
	size_t n_cp = 0;
	for (size_t i = 0; i < idna_reader_checkpoint_count(r); i++)
		n_cp += idna_reader_checkpoint(r, i)->stream == 3;
	ck_assert_uint_eq(n_cp, samples_of_type(PER, IDNA_REC_CHECKPOINT));

	/* Threads and modules come from the global stream (stream 0). */
	ck_assert_uint_eq(idna_reader_thread_count(r), samples_of_type(PER, IDNA_REC_THREAD_CREATE));
	ck_assert_uint_eq(idna_reader_module_count(r), samples_of_type(PER, IDNA_REC_MODULE_LOAD));
	const struct idna_module_info *m = idna_reader_module(r, 0);
	ck_assert_str_eq(m->path, "/lib/module9.so");
	ck_assert(m->unmapped); /* sample 10 unmaps module 9 */
	ck_assert(idna_reader_thread(r, 0)->exited);
	idna_reader_close(r);
	unlink(path);
}
END_TEST

/* Reaching a record's position with the records before it skipped
 * (idna_iter_skip_regs_before, as a replay restoring a saved position
 * does) gives that record whole, registers included. */
START_TEST(skipping_to_a_position_keeps_its_record_whole)
{
	char path[256], err[256];
	sample_temp_path(path, sizeof(path), "skip");
	enum { PER = 600 };
	write_streams(path, 1, PER, &small_chunks);
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	struct { uint32_t chunk, offset; } *where = calloc(PER, sizeof(*where));
	struct idna_iter *it = idna_iter_open(r, 0, NULL, err, sizeof(err));
	ck_assert_msg(it != NULL, "%s", err);
	struct idna_record rec;
	uint32_t size;
	for (size_t i = 0; i < PER; i++) {
		ck_assert_int_eq(idna_iter_next(it, &rec), 1);
		idna_iter_position(it, &where[i].chunk, &where[i].offset, &size);
	}
	idna_iter_close(it);
	struct sample *smp = malloc(sizeof(*smp));
	for (size_t i = 0; i < PER; i++) {
		struct idna_checkpoint start = { .stream = 0, .chunk = where[i].chunk, .offset = 0 };
		it = idna_iter_open(r, 0, &start, err, sizeof(err));
		ck_assert_msg(it != NULL, "%s", err);
		idna_iter_skip_regs_before(it, where[i].offset);
		uint32_t chunk, offset;
		do {
			ck_assert_int_eq(idna_iter_next(it, &rec), 1);
			idna_iter_position(it, &chunk, &offset, &size);
		} while (offset != where[i].offset);
		sample_record(smp, 0, i);
		assert_sample_equal(smp, &rec);
		idna_iter_close(it);
	}
	free(smp);
	free(where);
	idna_reader_close(r);
	unlink(path);
}
END_TEST

START_TEST(unknown_record_types_are_skipped)
{
	char path[256], err[256];
	sample_temp_path(path, sizeof(path), "unknown");
	struct idna_writer *w = idna_writer_open(path, NULL, NULL, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct sample *s = malloc(sizeof(*s));
	uint8_t payload[300];
	memset(payload, 0xab, sizeof(payload));
	struct idna_record future = {.type = 4000};
	future.u.unknown.payload = payload;
	future.u.unknown.len = sizeof(payload);
	for (uint64_t i = 0; i < 40; i++) {
		sample_record(s, 1, i);
		ck_assert_int_eq(idna_writer_append(w, 1, &s->rec), 0);
		ck_assert_int_eq(idna_writer_append(w, 1, &future), 0);
	}
	ck_assert_int_eq(idna_writer_close(w, err, sizeof(err)), 0);
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	ck_assert_msg(r != NULL, "%s", err);
	struct idna_iter *it = idna_iter_open(r, 1, NULL, err, sizeof(err));
	struct idna_record rec;
	for (uint64_t i = 0; i < 40; i++) {
		ck_assert_int_eq(idna_iter_next(it, &rec), 1);
		sample_record(s, 1, i);
		assert_sample_equal(s, &rec);
		ck_assert_int_eq(idna_iter_next(it, &rec), 1);
		ck_assert_uint_eq(rec.type, 4000);
		ck_assert_str_eq(idna_record_type_name(rec.type), "unknown");
		ck_assert_uint_eq(rec.u.unknown.len, sizeof(payload));
		ck_assert_int_eq(memcmp(rec.u.unknown.payload, payload, sizeof(payload)), 0);
	}
	ck_assert_int_eq(idna_iter_next(it, &rec), 0);
	idna_iter_close(it);
	idna_reader_close(r);
	free(s);
	unlink(path);
}
END_TEST

START_TEST(writer_errors_are_returned)
{
	char err[256] = "";
	ck_assert_ptr_null(idna_writer_open("no-such-dir/x.idna", NULL, NULL, err, sizeof(err)));
	ck_assert(strstr(err, "No such file") != NULL);

	char path[256];
	sample_temp_path(path, sizeof(path), "badrec");
	struct idna_writer *w = idna_writer_open(path, NULL, NULL, err, sizeof(err));
	uint8_t v[65] = {0};
	struct idna_record bad = {.type = IDNA_REC_MISS};
	bad.u.miss.value = v;
	bad.u.miss.len = 65;
	ck_assert_int_eq(idna_writer_append(w, 0, &bad), -1);
	ck_assert(strstr(idna_writer_error(w), "1..64") != NULL);
	ck_assert_int_eq(idna_writer_close(w, err, sizeof(err)), -1);
	unlink(path);

	/* A full disk: the compression thread's write fails, the producer
	 * learns it at the next chunk or at close. */
	w = idna_writer_open("/dev/full", NULL, NULL, err, sizeof(err));
	if (!w)
		return; /* the header write itself failed: also an error, not a crash */
	struct sample *s = malloc(sizeof(*s));
	int rc = 0;
	for (uint64_t i = 0; i < 20000 && rc == 0; i++) {
		sample_record(s, 0, i);
		rc = idna_writer_append(w, 0, &s->rec);
	}
	free(s);
	rc |= idna_writer_close(w, err, sizeof(err));
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err, "No space") != NULL, "%s", err);
}
END_TEST

/* The recorder's path for MISS records writes the file the general one
 * writes, byte for byte, across chunk boundaries and streams. */
START_TEST(miss_path_writes_the_same_file)
{
	char general[256], direct[256];
	sample_temp_path(general, sizeof(general), "miss-general");
	sample_temp_path(direct, sizeof(direct), "miss-direct");
	write_streams_via(general, 3, 4000, &small_chunks, MISS_GENERAL, 6);
	size_t a_len;
	uint8_t *a = read_whole(general, &a_len);
	for (enum miss_path path = MISS_BYTES; path <= MISS_CURSOR; path++) {
		write_streams_via(direct, 3, 4000, &small_chunks, path, 6);
		size_t b_len;
		uint8_t *b = read_whole(direct, &b_len);
		ck_assert_uint_eq(a_len, b_len);
		ck_assert_int_eq(memcmp(a, b, a_len), 0);
		free(b);
		unlink(direct);
	}
	free(a);
	unlink(general);
}
END_TEST

/* A value longer than an integer's 8 bytes is refused, not read past. */
START_TEST(miss_uint_refuses_more_than_8_bytes)
{
	char path[256], err[256] = "";
	sample_temp_path(path, sizeof(path), "miss-uint-long");
	const char *argv[] = {"prog"};
	struct idna_header_info info = {1, argv, "/", 1700000000123456789ll, 0, NULL, 0};
	struct idna_writer *w = idna_writer_open(path, &small_chunks, &info, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(idna_writer_append_miss_uint(w, 1, 3, 0x1122334455667788ull, 8), 0);
	ck_assert_int_ne(idna_writer_append_miss_uint(w, 1, 3, 0x1122334455667788ull, 9), 0);
	ck_assert_ptr_nonnull(idna_writer_error(w));
	idna_writer_close(w, err, sizeof(err));
	unlink(path);
}
END_TEST

/* The header of `h` with its last field's `drop` bytes removed (drop 0:
 * with `extra` appended instead), checksum and size made right again. */
static uint8_t *header_edited(const struct idna_header *h, size_t drop, uint8_t extra,
			      uint16_t minor, size_t *size)
{
	size_t n;
	uint8_t *enc = file_header_encode(h, &n);
	ck_assert_ptr_nonnull(enc);
	uint8_t *buf = malloc(n + 1);
	size_t body = n - 4 - drop;
	memcpy(buf, enc, body);
	if (drop == 0)
		buf[body++] = extra;
	free(enc);
	buf[10] = (uint8_t)minor;
	buf[11] = (uint8_t)(minor >> 8);
	uint32_t total = (uint32_t)body + 4;
	for (int i = 0; i < 4; i++)
		buf[12 + i] = (uint8_t)(total >> (8 * i));
	uint32_t crc = crc32c(0, buf, body);
	for (int i = 0; i < 4; i++)
		buf[body + i] = (uint8_t)(crc >> (8 * i));
	*size = total;
	return buf;
}

START_TEST(the_pid_and_older_headers)
{
	const char *argv[] = {"prog"};
	struct idna_header h = {
		.version_major = 1, .version_minor = IDNA_VERSION_MINOR, .arch = IDNA_ARCH_X86_64,
		.cache_log2_entries = 17, .cache_log2_line = 3, .max_chunk_bytes = 1u << 17,
		.info = {1, argv, "/w", 5, 0, NULL, 0x1234},
	};
	char err[256];
	struct idna_header got;
	size_t n;
	uint8_t *buf = file_header_encode(&h, &n);
	ck_assert_uint_eq(file_header_decode(buf, n, n, &got, err, sizeof(err)), n);
	ck_assert_int_eq(got.info.pid, 0x1234);
	file_header_free(&got);
	free(buf);
	/* Format 1.1: the fields end before the pid (a 2-byte varint here). */
	buf = header_edited(&h, 2, 0, 1, &n);
	ck_assert_msg(file_header_decode(buf, n, n, &got, err, sizeof(err)) == n, "%s", err);
	ck_assert_int_eq(got.info.pid, 0);
	ck_assert_str_eq(got.info.cwd, "/w");
	file_header_free(&got);
	free(buf);
	/* A newer minor version's field after the pid is ignored. */
	buf = header_edited(&h, 0, 0x7f, 3, &n);
	ck_assert_msg(file_header_decode(buf, n, n, &got, err, sizeof(err)) == n, "%s", err);
	ck_assert_int_eq(got.info.pid, 0x1234);
	file_header_free(&got);
	free(buf);
	/* A pid no Linux has is refused. */
	h.info.pid = (int64_t)1 << 40;
	buf = file_header_encode(&h, &n);
	ck_assert_uint_eq(file_header_decode(buf, n, n, &got, err, sizeof(err)), 0);
	ck_assert(strstr(err, "bad pid") != NULL);
	free(buf);
}
END_TEST

/* The prediction cache's hashes a header may name (man/idna.5,
 * cache_log2_line): 3, 6 and 3 + cache_log2_entries are read, any other
 * is refused with one line; the writer refuses to write another. */
START_TEST(cache_line_values)
{
	const char *argv[] = {"prog"};
	struct idna_header h = {
		.version_major = 1, .version_minor = IDNA_VERSION_MINOR, .arch = IDNA_ARCH_X86_64,
		.cache_log2_entries = 17, .max_chunk_bytes = 1u << 17,
		.info = {1, argv, "/w", 5, 0, NULL, 1},
	};
	char err[256];
	for (unsigned line = 0; line < 24; line++) {
		struct idna_header got;
		size_t n;
		h.cache_log2_line = line;
		uint8_t *buf = file_header_encode(&h, &n);
		bool known = line == 3 || line == 6 || line == 20;
		size_t used = file_header_decode(buf, n, n, &got, err, sizeof(err));
		ck_assert_msg((used == n) == known, "cache_log2_line %u: %s", line, err);
		if (known) {
			ck_assert_uint_eq(got.cache_log2_line, line);
			file_header_free(&got);
		} else {
			ck_assert(strstr(err, "prediction cache geometry") != NULL);
		}
		free(buf);
	}
	char path[] = "/tmp/ttrec-roundtrip-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	struct idna_writer_options o = {.cache_log2_entries = 10, .cache_log2_line = 5};
	ck_assert_ptr_null(idna_writer_open(path, &o, NULL, err, sizeof(err)));
	ck_assert(strstr(err, "prediction cache line") != NULL);
	o.cache_log2_line = 13;
	struct idna_writer *w = idna_writer_open(path, &o, NULL, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	ck_assert_int_eq(idna_writer_close(w, err, sizeof(err)), 0);
	unlink(path);
}
END_TEST

START_TEST(build_id_of_an_elf_file)
{
	uint8_t id[64];
	char err[256];
	int n = idna_read_build_id("/proc/self/exe", id, sizeof(id), err, sizeof(err));
	ck_assert_msg(n >= 0, "%s", err);
	ck_assert_int_eq(idna_read_build_id("/proc/self/status", id, sizeof(id), err, sizeof(err)), -1);
	ck_assert(strstr(err, "not an ELF") != NULL);
}
END_TEST

/* The signal mask of thread tid ("SigBlk:" in its status file). */
static unsigned long long blocked_mask(long tid)
{
	char path[64], line[256];
	snprintf(path, sizeof(path), "/proc/self/task/%ld/status", tid);
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	unsigned long long mask = 0;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "SigBlk: %llx", &mask) == 1;
	fclose(f);
	ck_assert(found);
	return mask;
}

/* The process's signals (a recorder's SIGCONT, say) must run their
 * handlers on the thread that uses the writer, not late on its
 * compression thread. */
START_TEST(writer_thread_blocks_signals)
{
	char path[256], err[256];
	sample_temp_path(path, sizeof(path), "sigmask");
	struct idna_writer *w = idna_writer_open(path, NULL, NULL, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	long self = syscall(SYS_gettid);
	DIR *d = opendir("/proc/self/task");
	ck_assert_ptr_nonnull(d);
	int others = 0;
	for (struct dirent *e; (e = readdir(d));) {
		long tid = strtol(e->d_name, NULL, 10);
		if (tid <= 0 || tid == self)
			continue;
		others++;
		unsigned long long mask = blocked_mask(tid);
		static const int sigs[] = { SIGCONT, SIGINT, SIGTERM, SIGCHLD, SIGUSR1 };
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			ck_assert_msg((mask >> (sigs[i] - 1)) & 1, "signal %d not blocked", sigs[i]);
	}
	closedir(d);
	ck_assert_int_eq(others, 1);
	ck_assert_int_eq(blocked_mask(self) >> (SIGCONT - 1) & 1, 0);
	ck_assert_msg(idna_writer_close(w, err, sizeof(err)) == 0, "%s", err);
	unlink(path);
}
END_TEST

static Suite *trace_roundtrip_suite(void)
{
	Suite *s = suite_create("trace_roundtrip");
	TCase *tc = tcase_create("roundtrip");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_record_type_round_trips);
	tcase_add_test(tc, interleaved_streams_and_checkpoints);
	tcase_add_test(tc, skipping_to_a_position_keeps_its_record_whole);
	tcase_add_test(tc, unknown_record_types_are_skipped);
	tcase_add_test(tc, writer_errors_are_returned);
	tcase_add_test(tc, miss_path_writes_the_same_file);
	tcase_add_test(tc, miss_uint_refuses_more_than_8_bytes);
	tcase_add_test(tc, build_id_of_an_elf_file);
	tcase_add_test(tc, the_pid_and_older_headers);
	tcase_add_test(tc, cache_line_values);
	tcase_add_test(tc, writer_thread_blocks_signals);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(trace_roundtrip_suite)
