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

#include "tests/fuzz-index/fuzz_index.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct code_page_set *pages_of(uint64_t a, uint64_t b)
{
	struct code_page_set *s = code_page_set_new();
	if (!s || !code_page_set_add(s, a) || !code_page_set_add(s, b))
		abort();
	return s;
}

static void make_snapshot(struct replay_snapshot *snap, uint64_t time, struct memory_image *image)
{
	const struct replay_index_expect *e = &fuzz_index_expect;
	memset(snap, 0, sizeof(*snap));
	snap->icount = snap->state.time = time;
	snap->state.n_threads = e->n_threads;
	snap->state.threads = calloc(e->n_threads, sizeof(*snap->state.threads));
	uint8_t *cache = calloc(1, e->cache_bytes);
	if (!snap->state.threads || !cache)
		abort();
	cache[e->cache_bytes - 3] = (uint8_t)time;
	struct resim_thread_state *t = &snap->state.threads[0];
	t->started = true;
	t->regs.rip = 0x401000 + time;
	t->regs.zmm[3].q[1] = 7;
	t->icount = time;
	t->memory_pos = (struct cursor_position){ false, 1, 40 };
	t->events_pos = (struct cursor_position){ false, 2, 8 };
	if (sparse_copy_take(&t->cache, cache, e->cache_bytes) != 0)
		abort();
	free(cache);
	snap->state.threads[1].events_pos.ended = snap->state.threads[1].memory_pos.ended = true;
	snap->state.code_pages = pages_of(0x401, 0x402);
	snap->state.image = memory_image_snapshot(image);
	snap->written_pages = pages_of(0x7ffe0, 0x600);
	snap->code_pages = pages_of(0x401, 0x7f000);
}

static int seeds(const char *dir)
{
	struct replay_index_contents c = { .snapshot_interval = 1 << 22, .n_snapshots = 2 };
	c.summary = (struct replay_summary){ .instructions = 1000, .syscalls = 3, .have_exit = true,
					     .exit_consistent = true, .n_threads = 2, .seconds = 0.5 };
	c.summary.threads = calloc(2, sizeof(*c.summary.threads));
	c.snapshots = calloc(2, sizeof(*c.snapshots));
	struct memory_image *image = memory_image_new();
	c.future = memory_image_new();
	const char hello[] = "hello";
	if (!c.summary.threads || !c.snapshots || !image || !c.future ||
	    !memory_image_store(image, 0x600000, hello, sizeof(hello)))
		abort();
	c.summary.threads[0] = (struct replay_thread_summary){ 1, 1, 900, true, 0 };
	c.summary.threads[1] = (struct replay_thread_summary){ 7, 2, 100, true, 0 };
	memory_image_store_first_reads(image, c.future, 0x7ffe0000, hello, sizeof(hello), 5);
	make_snapshot(&c.snapshots[0], 0, image);
	memory_image_store(image, 0x601000, hello, 3); /* the second shares the first page */
	make_snapshot(&c.snapshots[1], 600, image);
	memory_image_free(image);
	char path[512];
	snprintf(path, sizeof(path), "%s/seed.idx", dir);
	FILE *f = fopen(path, "w+b");
	int rc = f && replay_index_write(f, &fuzz_index_expect.id, &c) == 0 ? 0 : 1;
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
	enum replay_index_verdict v = replay_index_read(fd, (uint64_t)size, &fuzz_index_expect, &c,
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
