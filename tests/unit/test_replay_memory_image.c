/*
 * test_replay_memory_image.c — the replay's memory image against a plain
 * model (a byte array with a known flag per byte and a valid-from time per
 * 8-byte word), under random stores, loads, forgets, snapshots and
 * first-read records over a few pages, accesses crossing page boundaries
 * included, and the integer forms (memory_image_store_word,
 * memory_image_read_word) wherever an access lies in one aligned word.
 * Snapshots must keep the contents they were taken with while the image
 * they came from changes. memory_image_overlay (the first pass's join of
 * ranges) against the same model: top's known bytes, else base's; pages
 * shared with the inputs, and with the previous overlay's result where
 * neither input changed; memory_image_run's runs of (un)known bytes.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "replayer/memory_image.h"
#include "check_main.h"

#define BASE 0x7000ull
#define SPAN (3 * 4096u) /* three pages */

struct model {
	uint8_t data[SPAN];
	bool known[SPAN];
	uint64_t valid_from[SPAN / 8];
};

static uint64_t rng_state = 0x243F6A8885A308D3ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* A range inside the span: short ones mostly, some crossing pages. */
static void random_range(uint64_t *off, size_t *len)
{
	size_t n = rng() % 4 == 0 ? 1 + rng() % 300 : 1 + rng() % 16;
	*off = rng() % (SPAN - n + 1);
	*len = n;
}

/* Whether an access may take the integer forms, and then half the time
 * whether it does; *value receives its bytes. */
static bool as_word(uint64_t off, size_t len, const uint8_t *b, uint64_t *value)
{
	if ((BASE + off) % 8 + len > 8 || rng() % 2)
		return false;
	*value = len < 8 ? rng() << 8 * len : 0; /* bits above the access: ignored */
	uint64_t low = 0;
	memcpy(&low, b, len);
	*value |= low;
	return true;
}

static void model_store(struct model *m, uint64_t off, const uint8_t *b, size_t len)
{
	memcpy(m->data + off, b, len);
	for (size_t i = 0; i < len; i++)
		m->known[off + i] = true;
}

/* What memory_image_load_at returns for the model at time now. */
static size_t model_load_at(const struct model *m, uint64_t off, uint8_t *out, size_t len,
			    uint64_t now)
{
	size_t done = 0;
	while (done < len && m->known[off + done] && m->valid_from[(off + done) / 8] <= now) {
		out[done] = m->data[off + done];
		done++;
	}
	return done;
}

static void check_load(const struct memory_image *image, const struct model *m, uint64_t now)
{
	uint64_t off;
	size_t len;
	random_range(&off, &len);
	uint8_t got[300], want[300];
	size_t n_got = now == UINT64_MAX ? memory_image_load(image, BASE + off, got, len)
					 : memory_image_load_at(image, BASE + off, got, len, now);
	size_t n_want = model_load_at(m, off, want, len, now);
	ck_assert_uint_eq(n_got, n_want);
	ck_assert_int_eq(memcmp(got, want, n_got), 0);
}

START_TEST(test_image_against_model)
{
	static struct model past, snap_model;
	memset(&past, 0, sizeof(past));
	struct memory_image *image = memory_image_new(), *snap = NULL;
	ck_assert_ptr_nonnull(image);
	for (int step = 0; step < 200000; step++) {
		uint64_t off;
		size_t len;
		uint8_t bytes[300];
		switch (rng() % 8) {
		case 0: case 1: case 2:
			random_range(&off, &len);
			for (size_t i = 0; i < len; i++)
				bytes[i] = (uint8_t)rng();
			uint64_t word;
			if (as_word(off, len, bytes, &word))
				ck_assert(memory_image_store_word(image, BASE + off, (unsigned)len, word));
			else
				ck_assert(memory_image_store(image, BASE + off, bytes, len));
			model_store(&past, off, bytes, len);
			break;
		case 3:
			random_range(&off, &len);
			memory_image_forget(image, BASE + off, len);
			for (size_t i = 0; i < len; i++)
				past.known[off + i] = false;
			break;
		case 4:
			if (rng() % 64 == 0) {
				memory_image_free(snap);
				snap = memory_image_snapshot(image);
				ck_assert_ptr_nonnull(snap);
				snap_model = past;
			}
			break;
		case 5:
			if (rng() % 512 == 0) { /* the walk over every page */
				memory_image_forget(image, 0, UINT64_MAX);
				memset(past.known, 0, sizeof(past.known));
			}
			break;
		default:
			check_load(image, &past, UINT64_MAX);
			if (snap)
				check_load(snap, &snap_model, UINT64_MAX);
			break;
		}
	}
	memory_image_free(snap);
	memory_image_free(image);
}
END_TEST

START_TEST(test_first_reads_against_model)
{
	static struct model past, future;
	memset(&past, 0, sizeof(past));
	memset(&future, 0, sizeof(future));
	struct memory_image *image = memory_image_new(), *later = memory_image_new();
	ck_assert_ptr_nonnull(image);
	ck_assert_ptr_nonnull(later);
	uint64_t now = 0;
	for (int step = 0; step < 200000; step++) {
		uint64_t off;
		size_t len;
		uint8_t bytes[300];
		random_range(&off, &len);
		for (size_t i = 0; i < len; i++)
			bytes[i] = (uint8_t)rng();
		switch (rng() % 4) {
		case 0: /* a write the replay makes: known from now on */
			ck_assert(memory_image_store(image, BASE + off, bytes, len));
			model_store(&past, off, bytes, len);
			break;
		case 1: { /* a read: first reads go to the future, then the past */
			uint64_t word;
			if (as_word(off, len, bytes, &word)) {
				memory_image_read_word(image, later, BASE + off, (unsigned)len, word, now);
			} else {
				memory_image_store_first_reads(image, later, BASE + off, bytes, len, now);
				ck_assert(memory_image_store(image, BASE + off, bytes, len));
			}
			for (size_t i = 0; i < len; i++) {
				uint64_t a = off + i;
				if (past.known[a] || future.known[a])
					continue;
				future.data[a] = bytes[i];
				future.known[a] = true;
				if (now > future.valid_from[a / 8])
					future.valid_from[a / 8] = now;
			}
			model_store(&past, off, bytes, len);
			break;
		}
		case 2:
			now += rng() % 3;
			break;
		default:
			check_load(later, &future, rng() % (now + 2));
			/* A read of known bytes with other values (memory changed
			 * behind the replay) updates them. */
			check_load(image, &past, UINT64_MAX);
			break;
		}
	}
	memory_image_free(later);
	memory_image_free(image);
}
END_TEST

/* A range the kernel changed: in the future image, the first reads before
 * the change stop showing and the words it touches are blocked until
 * read again; zeros go into the pages an image holds, no others. */
START_TEST(test_changed_ranges)
{
	struct memory_image *past = memory_image_new(), *later = memory_image_new();
	ck_assert_ptr_nonnull(past);
	ck_assert_ptr_nonnull(later);
	const uint8_t old[8] = "abcdefg";
	uint8_t got[8];
	memory_image_store_first_reads(past, later, BASE, old, 8, 5);
	ck_assert_uint_eq(memory_image_load_at(later, BASE, got, 8, 10), 8);
	ck_assert(!memory_image_blocked(later, BASE, 10));

	memory_image_block_future(later, BASE + 2, 3, 8, false);
	ck_assert_uint_eq(memory_image_load_at(later, BASE, got, 8, 10), 2);
	ck_assert(memory_image_blocked(later, BASE + 2, 10));
	ck_assert(!memory_image_blocked(later, BASE + 8, 10));
	/* Read again after the change: first reads again, from their time. */
	memory_image_store_first_reads(past, later, BASE + 2, "XYZ", 3, 20);
	ck_assert_uint_eq(memory_image_load_at(later, BASE + 2, got, 3, 25), 3);
	ck_assert_int_eq(memcmp(got, "XYZ", 3), 0);
	ck_assert_uint_eq(memory_image_load_at(later, BASE + 2, got, 3, 15), 0);

	/* A large range adds no page but blocks each byte, at every time
	 * (a small one at BASE + 0x100000 adds a page). */
	size_t pages = memory_image_page_count(later);
	memory_image_block_future(later, BASE + 0x100000, 1u << 30, 30, false);
	ck_assert_uint_eq(memory_image_page_count(later), pages);
	ck_assert(memory_image_blocked(later, BASE + 0x100000 + (1u << 29), 10));
	ck_assert(memory_image_blocked(later, BASE + 0x100000 + (1u << 29), 40));
	ck_assert(!memory_image_blocked(later, BASE + 0x100000 + (1u << 30), 40));
	memory_image_block_future(later, BASE + 0x100000, 4096, 31, false);
	ck_assert_uint_eq(memory_image_page_count(later), pages + 1);
	ck_assert(memory_image_blocked(later, BASE + 0x100000, 40));

	/* A large file mapping: a module file's bytes stand after it until a
	 * later change unmaps them; before it, and after that, unknown. */
	const uint64_t lib = BASE + 0x80000000ull, lib_len = 256 * 4096;
	memory_image_block_future(later, lib, lib_len, 50, true);
	memory_image_block_future(later, lib + 100 * 4096, 100 * 4096, 60, false);
	ck_assert(memory_image_blocked(later, lib + 150 * 4096, 50));
	ck_assert(!memory_image_blocked(later, lib + 150 * 4096, 51));
	ck_assert(!memory_image_blocked(later, lib + 150 * 4096, 60));
	ck_assert(memory_image_blocked(later, lib + 150 * 4096, 61));
	ck_assert(!memory_image_blocked(later, lib + 10 * 4096, 61));
	ck_assert(!memory_image_blocked(later, lib + lib_len, 61));

	/* Zeros into held pages only. */
	ck_assert(memory_image_store(past, BASE + 4096, "data", 4));
	memory_image_zero_held(past, BASE, 3 * 4096);
	ck_assert_uint_eq(memory_image_page_count(past), 1);
	ck_assert_uint_eq(memory_image_load(past, BASE + 4096, got, 8), 8);
	ck_assert_int_eq(memcmp(got, "\0\0\0\0\0\0\0\0", 8), 0);
	ck_assert_uint_eq(memory_image_load(past, BASE, got, 1), 0);
	memory_image_free(later);
	memory_image_free(past);
}
END_TEST

/* Random stores and forgets into m, mirrored in `known` and `data`. */
static void scribble(struct memory_image *m, bool *known, uint8_t *data, int rounds)
{
	for (int i = 0; i < rounds; i++) {
		uint64_t off;
		size_t len;
		random_range(&off, &len);
		if (rng() % 5 == 0) {
			memory_image_forget(m, BASE + off, len);
			memset(known + off, 0, len);
			continue;
		}
		uint8_t bytes[512];
		for (size_t k = 0; k < len; k++)
			bytes[k] = (uint8_t)rng();
		ck_assert(memory_image_store(m, BASE + off, bytes, len));
		memcpy(data + off, bytes, len);
		memset(known + off, 1, len);
	}
}

static const void *page_identity(const struct memory_image *m, uint64_t page_addr)
{
	struct memory_image_page_view v;
	return memory_image_page_at(m, page_addr, &v) ? v.identity : NULL;
}

START_TEST(test_overlay)
{
	static bool base_known[SPAN], top_known[SPAN];
	static uint8_t base_data[SPAN], top_data[SPAN];
	for (int trial = 0; trial < 50; trial++) {
		memset(base_known, 0, sizeof(base_known));
		memset(top_known, 0, sizeof(top_known));
		struct memory_image *base = memory_image_new(), *top = memory_image_new();
		/* Some trials leave a page to one side only. */
		scribble(base, base_known, base_data, 1 + trial % 20);
		scribble(top, top_known, top_data, 1 + trial % 7);
		struct memory_image *o = memory_image_overlay(base, top, NULL);
		ck_assert_ptr_nonnull(o);
		for (uint64_t off = 0; off < SPAN; off++) {
			uint8_t b;
			size_t n = memory_image_load(o, BASE + off, &b, 1);
			bool want = top_known[off] || base_known[off];
			ck_assert_uint_eq(n, want);
			if (want)
				ck_assert_uint_eq(b, top_known[off] ? top_data[off] : base_data[off]);
		}
		/* memory_image_run: the runs of known and unknown bytes. */
		for (int r = 0; r < 20; r++) {
			uint64_t at = rng() % SPAN;
			size_t len = 1 + rng() % (SPAN - at);
			bool known = rng() % 2;
			size_t want = 0;
			while (want < len && top_known[at + want] == known)
				want++;
			ck_assert_uint_eq(memory_image_run(top, BASE + at, len, known), want);
		}
		for (uint64_t pa = BASE; pa < BASE + SPAN; pa += 4096) {
			const void *ob = page_identity(o, pa), *bb = page_identity(base, pa),
				   *tb = page_identity(top, pa);
			ck_assert((ob != NULL) == (bb != NULL || tb != NULL));
			if (!tb)
				ck_assert_ptr_eq(ob, bb);
			if (!bb)
				ck_assert_ptr_eq(ob, tb);
		}
		/* A later overlay: the pages neither input changed since are
		 * the previous result's. */
		struct memory_image *top2 = memory_image_snapshot(top);
		struct memory_image *base2 = memory_image_snapshot(base);
		uint64_t off = rng() % SPAN;
		uint8_t v = 0x5a;
		memory_image_store(top2, BASE + off, &v, 1);
		struct memory_image_overlay_prev prev = { top, base, o };
		struct memory_image *o2 = memory_image_overlay(base2, top2, &prev);
		ck_assert_ptr_nonnull(o2);
		for (uint64_t pa = BASE; pa < BASE + SPAN; pa += 4096) {
			if (pa == ((BASE + off) & ~4095ull) || !page_identity(base, pa) ||
			    !page_identity(top, pa))
				continue;
			ck_assert_ptr_eq(page_identity(o2, pa), page_identity(o, pa));
		}
		uint8_t b;
		ck_assert_uint_eq(memory_image_load(o2, BASE + off, &b, 1), 1);
		ck_assert_uint_eq(b, 0x5a);
		memory_image_free(o2);
		memory_image_free(top2);
		memory_image_free(base2);
		memory_image_free(o);
		memory_image_free(top);
		memory_image_free(base);
	}
}
END_TEST

/* --- the watcher of page moves (the replay's inline table) --------------------- */

struct moves {
	uint64_t last;
	unsigned n;
};

static void note_move(void *ctx, uint64_t page_addr)
{
	struct moves *mv = ctx;
	mv->last = page_addr;
	mv->n++;
}

/* Data pointers stay the image's until it says otherwise: a snapshot makes
 * every page shared (told as MEMORY_IMAGE_ALL_PAGES), the next store to a
 * shared page moves it (told with its address), a store to a private
 * page moves nothing. */
START_TEST(test_page_moves)
{
	struct memory_image *m = memory_image_new();
	struct moves mv = { 0, 0 };
	ck_assert_ptr_nonnull(m);
	memory_image_on_move(m, note_move, &mv);
	uint64_t v = 0x1122334455667788ull;
	ck_assert(memory_image_store(m, 0x5008, &v, 8));
	uint8_t *data = memory_image_page_data(m, 0x5000, true);
	ck_assert_ptr_nonnull(data);
	ck_assert_mem_eq(data + 8, &v, 8);
	uint64_t known;
	memcpy(&known, data + memory_image_known_offset, 8);
	ck_assert_uint_eq(known, 0xff00);
	ck_assert(memory_image_store_word(m, 0x5010, 4, 7));
	ck_assert_uint_eq(mv.n, 0);
	ck_assert_ptr_eq(memory_image_page_data(m, 0x5000, true), data);

	struct memory_image *snap = memory_image_snapshot(m);
	ck_assert_ptr_nonnull(snap);
	ck_assert_uint_eq(mv.n, 1);
	ck_assert_uint_eq(mv.last, MEMORY_IMAGE_ALL_PAGES);
	ck_assert_ptr_null(memory_image_page_data(m, 0x5000, true));
	ck_assert_ptr_eq(memory_image_page_data(m, 0x5000, false), data);

	ck_assert(memory_image_store_word(m, 0x5010, 4, 8));
	ck_assert_uint_eq(mv.n, 2);
	ck_assert_uint_eq(mv.last, 0x5000);
	uint8_t *copy = memory_image_page_data(m, 0x5000, true);
	ck_assert_ptr_nonnull(copy);
	ck_assert_ptr_ne(copy, data);
	ck_assert_uint_eq(data[0x10], 7); /* the snapshot's bytes stay */
	ck_assert_uint_eq(copy[0x10], 8);

	memory_image_forget(snap, 0, UINT64_MAX); /* the snapshot tells nobody */
	ck_assert_uint_eq(mv.n, 2);
	memory_image_free(snap);
	memory_image_free(m);
}
END_TEST

/* A read's new value (a logged miss) stored right after a snapshot, and
 * in a page read in two intervals: each snapshot keeps what it had, the
 * page shared until the image writes it, and not after. */
START_TEST(test_read_word_after_snapshots)
{
	struct memory_image *m = memory_image_new();
	const uint64_t page = 0x7000, at = page + 0x18;
	ck_assert(memory_image_store_word(m, at, 8, 0x1111111111111111ull));
	memory_image_read_word(m, NULL, at, 8, 0x1111111111111111ull, 0); /* warms the lookup */
	struct memory_image *first = memory_image_snapshot(m);
	ck_assert_ptr_nonnull(first);
	/* The same value: nothing to store, the page stays shared. */
	memory_image_read_word(m, NULL, at, 8, 0x1111111111111111ull, 0);
	ck_assert_ptr_eq(page_identity(m, page), page_identity(first, page));
	/* Also when the page was not looked up lately (a page 2 MiB on
	 * takes its place in the image's small cache of lookups). */
	ck_assert(memory_image_store_word(m, page + 0x200000, 1, 0));
	memory_image_read_word(m, NULL, at, 8, 0x1111111111111111ull, 0);
	ck_assert_ptr_eq(page_identity(m, page), page_identity(first, page));
	/* A new value in 2 of its bytes: the live image's own copy takes it. */
	memory_image_read_word(m, NULL, at + 2, 2, 0x2222, 0);
	ck_assert_ptr_ne(page_identity(m, page), page_identity(first, page));
	uint64_t v;
	ck_assert_uint_eq(memory_image_load(first, at, &v, 8), 8);
	ck_assert_uint_eq(v, 0x1111111111111111ull);
	ck_assert_uint_eq(memory_image_load(m, at, &v, 8), 8);
	ck_assert_uint_eq(v, 0x1111111122221111ull);
	/* The next interval: written again after a second snapshot. */
	memory_image_read_word(m, NULL, at + 7, 1, 0x33, 0);
	struct memory_image *second = memory_image_snapshot(m);
	memory_image_read_word(m, NULL, at + 7, 1, 0x44, 0);
	ck_assert_uint_eq(memory_image_load(second, at, &v, 8), 8);
	ck_assert_uint_eq(v, 0x3311111122221111ull);
	ck_assert_uint_eq(memory_image_load(first, at, &v, 8), 8);
	ck_assert_uint_eq(v, 0x1111111111111111ull);
	ck_assert_uint_eq(memory_image_load(m, at, &v, 8), 8);
	ck_assert_uint_eq(v, 0x4411111122221111ull);
	memory_image_free(second);
	memory_image_free(first);
	memory_image_free(m);
}
END_TEST

static Suite *memory_image_suite(void)
{
	Suite *s = suite_create("replay_memory_image");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_image_against_model);
	tcase_add_test(tc, test_first_reads_against_model);
	tcase_add_test(tc, test_changed_ranges);
	tcase_add_test(tc, test_overlay);
	tcase_add_test(tc, test_page_moves);
	tcase_add_test(tc, test_read_word_after_snapshots);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(memory_image_suite)
