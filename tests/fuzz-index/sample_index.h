/*
 * sample_index.h — a small replay index's contents, made by hand, for the
 * index fuzzer's seed and the codec's unit test (test_replay_index.c):
 * two threads (one live, with a sparse prediction cache), two snapshots
 * whose images share a page, a future image with times and wide
 * address-space changes, page sets.
 * Header-only, like tests/unit/mini_recorder.h, so both can include it.
 */
#ifndef TTREC_SAMPLE_INDEX_H
#define TTREC_SAMPLE_INDEX_H

#include <stdlib.h>
#include <string.h>

#include "replayer/replay_index.h"

/* The trace every sample (and fuzzed) index is read as the index of. */
static const struct replay_index_expect sample_index_expect = {
	.id = { .trace_size = 100000, .chunks = 8, .digest = 0x5eed1d },
	.n_threads = 2,
	.cache_bytes = 2 * SPARSE_BLOCK,
};

static inline struct code_page_set *sample_pages_of(uint64_t a, uint64_t b)
{
	struct code_page_set *s = code_page_set_new();
	if (!s || !code_page_set_add(s, a) || !code_page_set_add(s, b))
		abort();
	return s;
}

static inline void sample_snapshot(struct replay_snapshot *snap, uint64_t time, struct memory_image *image)
{
	const struct replay_index_expect *e = &sample_index_expect;
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
	snap->state.code_pages = sample_pages_of(0x401, 0x402);
	snap->state.image = memory_image_snapshot(image);
	snap->written_pages = sample_pages_of(0x7ffe0, 0x600);
	snap->code_pages = sample_pages_of(0x401, 0x7f000);
	snap->read_pages = sample_pages_of(0x601, 0x7ffe1);
}

/* The sample's contents (free with replay_index_contents_free). */
static inline void sample_index_contents(struct replay_index_contents *c)
{
	memset(c, 0, sizeof(*c));
	c->snapshot_interval = 1 << 22;
	c->n_snapshots = 2;
	c->summary = (struct replay_summary){ .instructions = 1000, .syscalls = 3, .have_exit = true,
					      .exit_consistent = true, .n_threads = 2, .seconds = 0.5 };
	c->summary.threads = calloc(2, sizeof(*c->summary.threads));
	c->snapshots = calloc(2, sizeof(*c->snapshots));
	struct memory_image *image = memory_image_new();
	c->future = memory_image_new();
	const char hello[] = "hello";
	if (!c->summary.threads || !c->snapshots || !image || !c->future ||
	    !memory_image_store(image, 0x600000, hello, sizeof(hello)))
		abort();
	c->summary.threads[0] = (struct replay_thread_summary){ 1, 1, 900, true, 0 };
	c->summary.threads[1] = (struct replay_thread_summary){ 7, 2, 100, true, 0 };
	memory_image_store_first_reads(image, c->future, 0x7ffe0000, hello, sizeof(hello), 5);
	/* A file mapped over 128 pages at 300, 100 of them unmapped at 400. */
	memory_image_block_future(c->future, 0x7f0000000000, 128 * 4096, 300, true);
	memory_image_block_future(c->future, 0x7f0000010000, 100 * 4096, 400, false);
	sample_snapshot(&c->snapshots[0], 0, image);
	memory_image_store(image, 0x601000, hello, 3); /* the second shares the first page */
	sample_snapshot(&c->snapshots[1], 600, image);
	memory_image_free(image);
}

#endif
