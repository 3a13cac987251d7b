/*
 * fuzz_index_tool.c — the index fuzzer's companion (build/tests/bin/
 * fuzz-index, and the seed tool of tests/fuzz/run.sh):
 *   fuzz-index seeds DIR    writes a seed: a small valid index (two
 *                           threads, shared and timed pages, a sparse
 *                           prediction cache, page sets) of the fuzzer's trace;
 *   fuzz-index run FILE...  runs the target once on each file, without
 *                           libFuzzer, and checks that the seed loads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz-index/sample_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int seeds(const char *dir)
{
	struct replay_index_contents c;
	sample_index_contents(&c);
	char path[512];
	snprintf(path, sizeof(path), "%s/seed.idx", dir);
	FILE *f = fopen(path, "w+b");
	int rc = f && replay_index_write(f, &sample_index_expect.id, &c, 1) == 0 ? 0 : 1;
	if (f)
		fclose(f);
	if (rc)
		fprintf(stderr, "fuzz-index: cannot write %s\n", path);
	replay_index_contents_free(&c);
	return rc;
}

/* The seed must load: a reader that refused everything would fuzz nothing. */
static int check_loads(const char *file)
{
	FILE *f = fopen(file, "rb");
	if (!f)
		return 1;
	int fd = fileno(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	struct replay_index_contents c;
	char why[160];
	enum replay_index_verdict v = replay_index_read(fd, (uint64_t)size, &sample_index_expect, &c,
							why, sizeof(why));
	fclose(f);
	if (v != REPLAY_INDEX_LOADED) {
		fprintf(stderr, "fuzz-index: %s does not load: %s\n", file, why);
		return 1;
	}
	replay_index_contents_free(&c);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "seeds") == 0)
		return seeds(argv[2]);
	if (argc >= 3 && strcmp(argv[1], "check") == 0) {
		int rc = 0;
		for (int i = 2; i < argc; i++)
			rc |= check_loads(argv[i]);
		return rc;
	}
	if (argc >= 3 && strcmp(argv[1], "run") == 0) {
		for (int i = 2; i < argc; i++) {
			FILE *f = fopen(argv[i], "rb");
			if (!f)
				return 1;
			static uint8_t buf[1 << 20];
			size_t n = fread(buf, 1, sizeof(buf), f);
			fclose(f);
			LLVMFuzzerTestOneInput(buf, n);
		}
		return 0;
	}
	fprintf(stderr, "usage: fuzz-index seeds DIR | check FILE... | run FILE...\n");
	return 2;
}
