/*
 * test_trace_ttdump.c — runs the ttdump program built next to this suite
 * on traces made here: the summary agrees with what was written, --json
 * and --records produce what the man page promises, and bad or damaged
 * files give one line on stderr and a non-zero status.
 */
#include <fcntl.h>
#include <libgen.h>
#include <sys/wait.h>

#include "check_main.h"
#include "trace_sample.h"

static char ttdump[4096];
static char out[1 << 20], errout[4096];

/* Runs ttdump with args; captures stdout and stderr; returns the status. */
static int run_ttdump(const char *const *args)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	ck_assert_int_gt(n, 0);
	exe[n] = 0;
	snprintf(ttdump, sizeof(ttdump), "%s/../ttdump", dirname(exe));
	char out_path[256], err_path[256];
	sample_temp_path(out_path, sizeof(out_path), "ttdump-out");
	sample_temp_path(err_path, sizeof(err_path), "ttdump-err");
	pid_t pid = fork();
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		dup2(o, 1);
		dup2(e, 2);
		const char *argv[16] = {ttdump};
		for (int i = 0; args[i] && i < 14; i++)
			argv[i + 1] = args[i];
		execv(ttdump, (char *const *)argv);
		_exit(127);
	}
	int status;
	waitpid(pid, &status, 0);
	int fd = open(out_path, O_RDONLY);
	ssize_t k = read(fd, out, sizeof(out) - 1);
	out[k > 0 ? k : 0] = 0;
	close(fd);
	fd = open(err_path, O_RDONLY);
	k = read(fd, errout, sizeof(errout) - 1);
	errout[k > 0 ? k : 0] = 0;
	close(fd);
	unlink(out_path);
	unlink(err_path);
	ck_assert(WIFEXITED(status));
	ck_assert_int_ne(WEXITSTATUS(status), 127);
	return WEXITSTATUS(status);
}

static void make_trace(const char *path, uint64_t n)
{
	char err[256];
	const char *argv[] = {"./app", "arg"};
	struct idna_header_info info = {2, argv, "/src", 5, 0, NULL, 0};
	struct idna_writer *w = idna_writer_open(path, NULL, &info, err, sizeof(err));
	ck_assert_msg(w != NULL, "%s", err);
	struct sample *s = malloc(sizeof(*s));
	for (uint64_t i = 0; i < n; i++) {
		sample_record(s, 1, i);
		ck_assert_int_eq(idna_writer_append(w, 1, &s->rec), 0);
	}
	struct idna_record stats = {.type = IDNA_REC_CACHE_STATS};
	stats.u.cache_stats.hits = 999;
	stats.u.cache_stats.misses = 1;
	ck_assert_int_eq(idna_writer_append(w, 1, &stats), 0);
	free(s);
	ck_assert_int_eq(idna_writer_close(w, err, sizeof(err)), 0);
}

START_TEST(summary_and_records)
{
	char path[256];
	sample_temp_path(path, sizeof(path), "ttdump");
	make_trace(path, SAMPLE_TYPES * 4);
	ck_assert_int_eq(run_ttdump((const char *[]){path, NULL}), 0);
	ck_assert_msg(strstr(out, "command: \"./app\" \"arg\"") != NULL, "%s", out);
	ck_assert(strstr(out, "checkpoints: 4") != NULL);
	/* 4 samples of each type, plus the cache-stats record written last. */
	ck_assert_msg(strstr(out, "  miss                      4") != NULL, "%s", out);
	ck_assert(strstr(out, "  cache-stats               5") != NULL);
	char total[64];
	snprintf(total, sizeof(total), "  total                    %d", SAMPLE_TYPES * 4 + 1);
	ck_assert(strstr(out, total) != NULL);
	/* The last cache-stats record gives the hit rate. */
	ck_assert(strstr(out, "999 hits, 1 misses, hit rate 99.900%") != NULL);
	ck_assert_str_eq(errout, "");

	ck_assert_int_eq(run_ttdump((const char *[]){"--records", path, NULL}), 0);
	ck_assert(strstr(out, "1:0+0 miss hits_before=") != NULL);
	ck_assert(strstr(out, "module-load addr=0x7f0000900000") != NULL);
	ck_assert_msg(strstr(out, "kernel-write addr=0x7ffd00f8 len=31 of=\"syscall\" bytes=") != NULL,
		      "%s", out);
	ck_assert(strstr(out, "kernel-write addr=0x7ffd0078 len=0 of=\"undescribed\"") != NULL);
	ck_assert_msg(strstr(out, "kernel-write addr=0x7ffd0178 len=8590127104 of=\"zero\"") != NULL,
		      "%s", out);

	/* --from/--to select by global sequence number (sample 2 is the first
	 * checkpoint, seq 1002; key frames and checkpoints carry 1000 + i). */
	char from[16], to[16], cp_seq[32], key_seq[32];
	snprintf(from, sizeof(from), "%d", 1000 + SAMPLE_TYPES + 1);
	snprintf(to, sizeof(to), "%d", 1000 + SAMPLE_TYPES + 2);
	snprintf(key_seq, sizeof(key_seq), "key-frame seq=%s", from);
	snprintf(cp_seq, sizeof(cp_seq), "checkpoint seq=%s", to);
	ck_assert_int_eq(run_ttdump((const char *[]){"--records", "--from", from, "--to", to, path, NULL}), 0);
	ck_assert(strstr(out, cp_seq) != NULL);
	ck_assert(strstr(out, key_seq) != NULL);
	ck_assert(strstr(out, "seq=1002") == NULL);

	ck_assert_int_eq(run_ttdump((const char *[]){"--json", "--records", "--stream", "1", path, NULL}), 0);
	ck_assert(out[0] == '{');
	ck_assert(strstr(out, "\"records\": [") != NULL);
	ck_assert(strstr(out, "\"type\":\"thread-create\"") != NULL);
	ck_assert(strstr(out, "\"hit_rate_percent\": 99.900") != NULL);
	ck_assert(strstr(out, "\"argv\": [\"./app\", \"arg\"]") != NULL);

	ck_assert_int_eq(run_ttdump((const char *[]){"--stream", "7", path, NULL}), 1);
	ck_assert(strstr(errout, "no stream 7") != NULL);
	unlink(path);
}
END_TEST

START_TEST(bad_files_and_usage)
{
	char path[256];
	sample_temp_path(path, sizeof(path), "ttdump-bad");
	ck_assert_int_eq(run_ttdump((const char *[]){NULL}), 2);
	ck_assert_int_eq(run_ttdump((const char *[]){"--stream", "x", path, NULL}), 2);
	ck_assert_int_eq(run_ttdump((const char *[]){path, NULL}), 1);
	ck_assert(strstr(errout, "No such file") != NULL);

	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_eq(write(fd, "hello, world\n", 13), 13);
	close(fd);
	ck_assert_int_eq(run_ttdump((const char *[]){path, NULL}), 1);
	ck_assert(strstr(errout, "not an .idna trace") != NULL);
	ck_assert_ptr_eq(strchr(errout, '\n'), errout + strlen(errout) - 1);

	/* Damage the middle of the trace: ttdump prints what it can and fails. */
	make_trace(path, 3000);
	fd = open(path, O_RDWR);
	off_t size = lseek(fd, 0, SEEK_END);
	uint8_t b;
	ck_assert_int_eq(pread(fd, &b, 1, size / 2), 1);
	b ^= 0x10;
	ck_assert_int_eq(pwrite(fd, &b, 1, size / 2), 1);
	close(fd);
	ck_assert_int_eq(run_ttdump((const char *[]){path, NULL}), 1);
	ck_assert_msg(strstr(errout, "damaged") != NULL, "%s", errout);
	ck_assert(strstr(out, "DAMAGED") != NULL);
	unlink(path);
}
END_TEST

static Suite *trace_ttdump_suite(void)
{
	Suite *s = suite_create("trace_ttdump");
	TCase *tc = tcase_create("ttdump");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, summary_and_records);
	tcase_add_test(tc, bad_files_and_usage);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(trace_ttdump_suite)
