/*
 * test_recorder_mirror.c — the memory mirror and the mapping table, over a
 * fake process whose memory is a local buffer.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "recorder/mapping_table.h"
#include "recorder/memory_mirror.h"
#include "check_main.h"

#define BASE 0x10000u
#define SIZE (6 * 4096u)

/* The "process": 6 pages at BASE: r-x, r--, rw-p, rw-p, rw-s, then unmapped. */
static const char *const maps_text =
	"10000-11000 r-xp 00000000 08:01 42 /bin/prog\n"
	"11000-12000 r--p 00001000 08:01 42 /bin/prog\n"
	"12000-14000 rw-p 00000000 00:00 0 [heap]\n"
	"14000-15000 rw-s 00000000 00:05 7 /dev/shm/x\n";

struct fake_process {
	uint8_t mem[SIZE];
	int reads, writes;
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_process *p = ctx;
	if (addr < BASE || addr + len > BASE + 5 * 4096u)
		return -1;
	memcpy(buf, p->mem + (addr - BASE), len);
	p->reads++;
	return 0;
}

static int fake_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct fake_process *p = ctx;
	if (addr < BASE || addr + len > BASE + 5 * 4096u)
		return -1;
	memcpy(p->mem + (addr - BASE), buf, len);
	p->writes++;
	return 0;
}

static struct fake_process proc;
static struct mapping_table *maps;
static struct memory_mirror *mirror;

static void setup(void)
{
	for (unsigned i = 0; i < SIZE; i++)
		proc.mem[i] = (uint8_t)(i * 7);
	proc.reads = proc.writes = 0;
	maps = mapping_table_new();
	ck_assert_int_eq(mapping_table_parse(maps, maps_text), 0);
	struct mirror_backend b = { &proc, fake_read, fake_write, NULL }; /* a write per run */
	mirror = memory_mirror_new(&b, maps);
}

static void teardown(void)
{
	memory_mirror_free(mirror);
	mapping_table_free(maps);
}

START_TEST(test_maps_parse)
{
	ck_assert_uint_eq(mapping_table_count(maps), 4);
	const struct mapping *m = mapping_table_find(maps, 0x12fff);
	ck_assert_ptr_nonnull(m);
	ck_assert_str_eq(m->path, "[heap]");
	ck_assert_uint_eq(m->flags, MAPPING_READ | MAPPING_WRITE);
	ck_assert_ptr_null(mapping_table_find(maps, 0x15000));
	ck_assert(mapping_table_allows(maps, 0x12ff0, 0x20, MAPPING_WRITE));
	ck_assert(!mapping_table_allows(maps, 0x11ff0, 0x20, MAPPING_WRITE));
	struct mapping_table *bad = mapping_table_new();
	ck_assert_int_eq(mapping_table_parse(bad, "zz-10 r--p\n"), -1);
	ck_assert_int_eq(mapping_table_parse(bad, "2000-1000 r--p 0 0:0 0\n"), -1);
	mapping_table_free(bad);
}
END_TEST

START_TEST(test_read_caches_page)
{
	uint8_t b[8];
	ck_assert_int_eq(memory_mirror_ops.read(mirror, 0x12010, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(b[0], (uint8_t)(0x2010 * 7));
	int reads = proc.reads;
	proc.mem[0x2011] = 0xee; /* changed behind the mirror's back */
	ck_assert_int_eq(memory_mirror_ops.read(mirror, 0x12010, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(proc.reads, reads);
	ck_assert_int_ne(b[1], 0xee);
	memory_mirror_invalidate(mirror, 0x12011, 1);
	ck_assert_int_eq(memory_mirror_ops.read(mirror, 0x12010, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(b[1], 0xee);
}
END_TEST

START_TEST(test_write_flushes_only_dirty_bytes)
{
	uint8_t v[3] = { 1, 2, 3 };
	ck_assert_int_eq(memory_mirror_ops.write(mirror, 0x12ffe, v, 3), EMU_MEM_OK);
	ck_assert_int_eq(proc.writes, 0);
	ck_assert(memory_mirror_has_dirty(mirror));
	/* Another writer changes a neighbouring byte in the process. */
	proc.mem[0x2ffd] = 0x55;
	ck_assert_int_eq(memory_mirror_flush(mirror), 0);
	ck_assert(!memory_mirror_has_dirty(mirror));
	ck_assert_int_eq(proc.mem[0x2ffd], 0x55);
	ck_assert_int_eq(proc.mem[0x2ffe], 1);
	ck_assert_int_eq(proc.mem[0x2fff], 2);
	ck_assert_int_eq(proc.mem[0x3000], 3);
	ck_assert_int_eq(proc.writes, 2); /* one run per page */
}
END_TEST

START_TEST(test_protections_fault)
{
	uint8_t b[16] = { 0 };
	ck_assert_int_eq(memory_mirror_ops.write(mirror, 0x11000, b, 1), EMU_MEM_FAULT);
	ck_assert_int_eq(memory_mirror_ops.write(mirror, 0x10ff8, b, 16), EMU_MEM_FAULT);
	ck_assert_int_eq(memory_mirror_ops.read(mirror, 0x15000, b, 1), EMU_MEM_FAULT);
	/* A write straddling a writable and an unmapped page changes nothing. */
	uint8_t before = proc.mem[0x4ff8];
	ck_assert_int_eq(memory_mirror_ops.write(mirror, 0x14ff8, b, 16), EMU_MEM_FAULT);
	ck_assert_int_eq(proc.mem[0x4ff8], before);
	/* Fetch stops at the end of executable memory. */
	ck_assert_uint_eq(memory_mirror_ops.fetch(mirror, 0x10ffa, b, 15), 6);
	ck_assert_uint_eq(memory_mirror_ops.fetch(mirror, 0x11000, b, 15), 0);
}
END_TEST

START_TEST(test_write_back_leaves_the_process_alone)
{
	/* A failed compare-exchange read the copy's word; the kernel has
	 * written the real one since (another thread's futex call). Putting
	 * the read bytes back must not undo the kernel's write. */
	uint32_t seen;
	ck_assert_int_eq(memory_mirror_ops.read(mirror, 0x12010, &seen, 4), EMU_MEM_OK);
	proc.mem[0x2010] ^= 0x80;
	ck_assert_int_eq(memory_mirror_ops.write_back(mirror, 0x12010, &seen, 4), EMU_MEM_OK);
	ck_assert(!memory_mirror_has_dirty(mirror));
	ck_assert_int_eq(memory_mirror_flush(mirror), 0);
	uint32_t real;
	memcpy(&real, proc.mem + 0x2010, 4);
	ck_assert_uint_eq(real, seen ^ 0x80);
	/* It faults where a write would: read-only, unmapped, straddling. */
	ck_assert_int_eq(memory_mirror_ops.write_back(mirror, 0x11010, &seen, 4), EMU_MEM_FAULT);
	ck_assert_int_eq(memory_mirror_ops.write_back(mirror, 0x15000, &seen, 4), EMU_MEM_FAULT);
	ck_assert_int_eq(memory_mirror_ops.write_back(mirror, 0x11ffe, &seen, 4), EMU_MEM_FAULT);
	ck_assert_int_eq(proc.writes, 0);
}
END_TEST

START_TEST(test_shared_is_never_cached)
{
	uint8_t b = 0x77;
	ck_assert_int_eq(memory_mirror_ops.write(mirror, 0x14000, &b, 1), EMU_MEM_OK);
	ck_assert_int_eq(proc.mem[0x4000], 0x77); /* written through */
	proc.mem[0x4000] = 0x99;
	ck_assert_int_eq(memory_mirror_ops.read(mirror, 0x14000, &b, 1), EMU_MEM_OK);
	ck_assert_int_eq(b, 0x99);
	ck_assert(!memory_mirror_has_dirty(mirror));
}
END_TEST

/* Runs of dirty bytes across 64-byte bitmap words, and writes of many
 * sizes: a flush writes each maximal run once and nothing else. */
START_TEST(test_flush_writes_each_run_once)
{
	static const struct { unsigned off, len; } runs[] = {
		{ 0, 1 }, { 60, 10 }, { 127, 2 }, { 192, 64 }, { 300, 200 }, { 4088, 8 },
	};
	uint8_t expect[4096];
	memcpy(expect, proc.mem + 0x3000, sizeof(expect));
	for (unsigned r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		/* Each run is written as pieces of 1 to 64 bytes (integers and
		 * vectors: the inline path takes up to 64 within a page). */
		for (unsigned done = 0, k = 0; done < runs[r].len; k++) {
			static const unsigned sizes[] = { 1, 2, 4, 8, 16, 32, 64 };
			unsigned n = sizes[k % 7];
			if (n > runs[r].len - done)
				n = runs[r].len - done;
			uint8_t v[64];
			for (unsigned i = 0; i < n; i++)
				v[i] = expect[runs[r].off + done + i] = (uint8_t)(0xa0 + r + done + i);
			ck_assert_int_eq(memory_mirror_write(mirror, 0x13000 + runs[r].off + done, v, n),
					 EMU_MEM_OK);
			done += n;
		}
	}
	ck_assert_int_eq(proc.writes, 0);
	ck_assert_int_eq(memory_mirror_flush(mirror), 0);
	ck_assert_int_eq(proc.writes, (int)(sizeof(runs) / sizeof(runs[0])));
	ck_assert_mem_eq(proc.mem + 0x3000, expect, sizeof(expect));
	struct memory_mirror_stats st;
	memory_mirror_get_stats(mirror, &st);
	ck_assert_uint_eq(st.bytes_flushed, 1 + 10 + 2 + 64 + 200 + 8);
	/* A flushed page is clean: the next write dirties it again. */
	uint8_t x = 0x5a;
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13005, &x, 1), EMU_MEM_OK);
	ck_assert(memory_mirror_has_dirty(mirror));
	ck_assert_int_eq(memory_mirror_flush(mirror), 0);
	ck_assert_int_eq(proc.mem[0x3005], 0x5a);
	ck_assert_int_eq(proc.writes, (int)(sizeof(runs) / sizeof(runs[0])) + 1);
}
END_TEST

/* A backend that takes many runs per call, and refuses the call numbered
 * fail_at (from 1; 0: none). */
static int runs_calls, runs_total, fail_at;

static int fake_write_runs(void *ctx, const struct iovec *local, const struct iovec *remote,
			   size_t n)
{
	if (++runs_calls == fail_at)
		return -1;
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(local[i].iov_len, remote[i].iov_len);
		if (fake_write(ctx, (uint64_t)(uintptr_t)remote[i].iov_base, local[i].iov_base,
			       local[i].iov_len) != 0)
			return -1;
	}
	runs_total += (int)n;
	return 0;
}

/* One dirty byte in three over both heap pages: 2,731 runs, written in
 * batches of at most 1,024, each run once; a batch that fails leaves
 * dirty what it did not finish, and the next flush writes it. */
START_TEST(test_flush_batches_runs)
{
	struct mirror_backend b = { &proc, fake_read, fake_write, fake_write_runs };
	struct memory_mirror *mm = memory_mirror_new(&b, maps);
	ck_assert_ptr_nonnull(mm);
	uint8_t expect[2 * 4096];
	memcpy(expect, proc.mem + 0x2000, sizeof(expect));
	for (unsigned off = 0; off < sizeof(expect); off += 3) {
		uint8_t v = (uint8_t)~expect[off];
		expect[off] = v;
		ck_assert_int_eq(memory_mirror_write(mm, 0x12000 + off, &v, 1), EMU_MEM_OK);
	}
	runs_calls = runs_total = 0;
	fail_at = 3;
	ck_assert_int_eq(memory_mirror_flush(mm), -1);
	ck_assert(memory_mirror_has_dirty(mm));
	/* Batches 1 and 2 took one page's runs and some of the other's: that
	 * one page is written whole, the other not. */
	ck_assert_int_eq(runs_total, 2048);
	bool first = memcmp(proc.mem + 0x2000, expect, 4096) == 0;
	bool second = memcmp(proc.mem + 0x3000, expect + 4096, 4096) == 0;
	ck_assert(first != second);
	/* The next flush writes only the page left dirty, all its runs. */
	runs_calls = runs_total = 0;
	fail_at = 0;
	ck_assert_int_eq(memory_mirror_flush(mm), 0);
	ck_assert_int_eq(runs_calls, 2);
	ck_assert_int_eq(runs_total, first ? 1365 : 1366);
	ck_assert_mem_eq(proc.mem + 0x2000, expect, sizeof(expect));
	ck_assert(!memory_mirror_has_dirty(mm));
	ck_assert_int_eq(proc.writes, 2048 + runs_total); /* no write of its own */
	memory_mirror_free(mm);
}
END_TEST

/* Dirty runs at 0x100, 0x200 and 0x300 of both heap pages (the clean
 * bytes between them changed in the process behind the mirror's back,
 * to see which are written), flushed quiet or not. */
static void three_runs_per_page(struct memory_mirror *mm)
{
	for (unsigned page = 0; page < 2; page++)
		for (unsigned run = 1; run <= 3; run++) {
			uint8_t v[4] = { 0xd0, 0xd1, 0xd2, (uint8_t)run };
			uint64_t at = 0x12000 + 0x1000 * page + 0x100 * run;
			ck_assert_int_eq(memory_mirror_write(mm, at, v, sizeof(v)), EMU_MEM_OK);
		}
	proc.mem[0x2180] = proc.mem[0x3280] = 0xee;
	runs_calls = runs_total = 0;
	fail_at = 0;
}

/* A quiet process (memory_mirror_set_quiet): each anonymous page's dirty
 * bytes go back as one run, first to last, the clean bytes between with
 * them (0xee is overwritten by the mirror's byte: quiet promises that
 * cannot happen); not quiet, each run alone and nothing between. A
 * file's private page keeps its runs even when quiet. */
START_TEST(test_quiet_flush_one_run_per_page)
{
	struct mirror_backend b = { &proc, fake_read, fake_write, fake_write_runs };
	struct memory_mirror *mm = memory_mirror_new(&b, maps);
	ck_assert_ptr_nonnull(mm);
	three_runs_per_page(mm);
	ck_assert_int_eq(memory_mirror_flush(mm), 0);
	ck_assert_int_eq(runs_total, 6);
	ck_assert_int_eq(proc.mem[0x2180], 0xee);
	ck_assert_int_eq(proc.mem[0x2303], 3);

	three_runs_per_page(mm);
	memory_mirror_set_quiet(mm, true);
	ck_assert_int_eq(memory_mirror_flush(mm), 0);
	ck_assert_int_eq(runs_total, 2);
	ck_assert_int_ne(proc.mem[0x2180], 0xee);
	ck_assert_int_ne(proc.mem[0x3280], 0xee);
	ck_assert_int_eq(proc.mem[0x3303], 3);
	ck_assert_int_eq(proc.mem[0x3304], (uint8_t)(0x3304 * 7)); /* past the last run */
	ck_assert(!memory_mirror_has_dirty(mm));
	memory_mirror_free(mm);

	ck_assert_int_eq(mapping_table_parse(maps, "12000-14000 rw-p 00001000 08:01 9 /data/f\n"), 0);
	mm = memory_mirror_new(&b, maps);
	ck_assert_ptr_nonnull(mm);
	three_runs_per_page(mm);
	memory_mirror_set_quiet(mm, true);
	ck_assert_int_eq(memory_mirror_flush(mm), 0);
	ck_assert_int_eq(runs_total, 6);
	ck_assert_int_eq(proc.mem[0x2180], 0xee);
	memory_mirror_free(mm);
}
END_TEST

/* A range flush writes back the pages it overlaps and leaves the others
 * dirty, with either backend; a failed write keeps its pages dirty for
 * the next flush. */
static void check_range_flush(struct memory_mirror *mm)
{
	uint8_t a = 0xa1, b = 0xb2;
	ck_assert_int_eq(memory_mirror_write(mm, 0x12100, &a, 1), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_write(mm, 0x13100, &b, 1), EMU_MEM_OK);
	ck_assert(memory_mirror_dirty_at_least(mm, 2));
	ck_assert(!memory_mirror_dirty_at_least(mm, 3));
	/* The last byte of the first page: that page only. */
	ck_assert_int_eq(memory_mirror_flush_range(mm, 0x12fff, 1), 0);
	ck_assert_int_eq(proc.mem[0x2100], 0xa1);
	ck_assert_int_ne(proc.mem[0x3100], 0xb2);
	ck_assert(memory_mirror_dirty_at_least(mm, 1));
	ck_assert(!memory_mirror_dirty_at_least(mm, 2));
	/* A range that wraps the address space takes the rest. */
	ck_assert_int_eq(memory_mirror_flush_range(mm, 0x12800, UINT64_MAX), 0);
	ck_assert_int_eq(proc.mem[0x3100], 0xb2);
	ck_assert(!memory_mirror_has_dirty(mm));
}

START_TEST(test_flush_range_per_run)
{
	check_range_flush(mirror);
	uint8_t c = 0xc3;
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13200, &c, 1), EMU_MEM_OK);
	memory_mirror_invalidate(mirror, 0x12000, 4096); /* a clean page: nothing lost */
	ck_assert(memory_mirror_dirty_at_least(mirror, 1));
	ck_assert_int_eq(memory_mirror_flush(mirror), 0);
	ck_assert_int_eq(proc.mem[0x3200], 0xc3);
}
END_TEST

START_TEST(test_flush_range_batched)
{
	struct mirror_backend b = { &proc, fake_read, fake_write, fake_write_runs };
	struct memory_mirror *mm = memory_mirror_new(&b, maps);
	ck_assert_ptr_nonnull(mm);
	runs_calls = runs_total = fail_at = 0;
	check_range_flush(mm);
	uint8_t c = 0xc4;
	ck_assert_int_eq(memory_mirror_write(mm, 0x13300, &c, 1), EMU_MEM_OK);
	runs_calls = 0;
	fail_at = 1;
	ck_assert_int_eq(memory_mirror_flush_range(mm, 0x13000, 4096), -1);
	ck_assert(memory_mirror_dirty_at_least(mm, 1));
	fail_at = 0;
	ck_assert_int_eq(memory_mirror_flush(mm), 0);
	ck_assert_int_eq(proc.mem[0x3300], 0xc4);
	ck_assert(!memory_mirror_has_dirty(mm));
	memory_mirror_free(mm);
}
END_TEST

/* A process of 256 writable pages at 0x200000, counting the writes each
 * page takes. */
#define WIDE_BASE 0x200000ull
#define WIDE_PAGES 256u
static uint8_t *wide_mem;
static int wide_writes[WIDE_PAGES];
static int wide_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < WIDE_BASE || addr + len > WIDE_BASE + WIDE_PAGES * 4096ull)
		return -1;
	memcpy(buf, wide_mem + (addr - WIDE_BASE), len);
	return 0;
}

static int wide_write(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	(void)ctx;
	if (addr < WIDE_BASE || addr + len > WIDE_BASE + WIDE_PAGES * 4096ull)
		return -1;
	memcpy(wide_mem + (addr - WIDE_BASE), buf, len);
	wide_writes[(addr - WIDE_BASE) / 4096]++;
	return 0;
}

/* Whether exactly the pages [lo, hi) were written, once; the counts
 * start again. */
static bool wide_written(unsigned lo, unsigned hi)
{
	for (unsigned i = 0; i < WIDE_PAGES; i++)
		if (wide_writes[i] != (i >= lo && i < hi))
			return false;
	memset(wide_writes, 0, sizeof(wide_writes));
	return true;
}

/* A range flush finds its dirty pages page by page (a range of no more
 * pages than are dirty) or through the dirty list (a larger one), and
 * either way leaves the list whole: pages flushed, invalidated or left
 * dirty are each where they should be. */
START_TEST(test_flush_range_by_page_or_list)
{
	struct mapping_table *wm = mapping_table_new();
	ck_assert_int_eq(mapping_table_parse(wm, "200000-300000 rw-p 00000000 00:00 0\n"), 0);
	wide_mem = calloc(WIDE_PAGES, 4096);
	ck_assert_ptr_nonnull(wide_mem);
	memset(wide_writes, 0, sizeof(wide_writes));
	struct mirror_backend b = { NULL, wide_read, wide_write, NULL };
	struct memory_mirror *mm = memory_mirror_new(&b, wm);
	for (unsigned i = 0; i < 100; i++) {
		uint8_t v = (uint8_t)(i + 1);
		ck_assert_int_eq(memory_mirror_write(mm, WIDE_BASE + i * 4096ull + 8, &v, 1), EMU_MEM_OK);
	}
	/* 70 pages of 100 dirty: by page. */
	ck_assert_int_eq(memory_mirror_flush_range(mm, WIDE_BASE + 10 * 4096ull, 70 * 4096ull), 0);
	ck_assert(wide_written(10, 80));
	memory_mirror_invalidate(mm, WIDE_BASE + 5 * 4096ull, 4096);
	memory_mirror_invalidate(mm, WIDE_BASE + 150 * 4096ull, 4096);
	ck_assert(memory_mirror_dirty_at_least(mm, 29));
	ck_assert(!memory_mirror_dirty_at_least(mm, 30));
	/* 200 pages, 29 dirty: through the list. */
	ck_assert_int_eq(memory_mirror_flush_range(mm, WIDE_BASE, 200 * 4096ull), 0);
	for (unsigned i = 0; i < WIDE_PAGES; i++)
		ck_assert_int_eq(wide_writes[i], (i < 10 && i != 5) || (i >= 80 && i < 100));
	ck_assert(!memory_mirror_has_dirty(mm));
	ck_assert_int_eq(wide_mem[99 * 4096 + 8], 100);
	ck_assert_int_eq(wide_mem[5 * 4096 + 8], 0);
	memory_mirror_free(mm);
	mapping_table_free(wm);
	free(wide_mem);
}
END_TEST

/* A process of 20 MiB whose every byte is its address's low byte. */
#define BIG_BASE 0x100000000ull
#define BIG_PAGES 5120u
static int big_reads;
static int big_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < BIG_BASE || addr + len > BIG_BASE + BIG_PAGES * 4096ull)
		return -1;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(addr + i);
	big_reads++;
	return 0;
}

/* More pages than the table's first buckets: it grows, and every page is
 * still found (read once from the process), dropped and read again. */
START_TEST(test_many_pages_stay_found)
{
	struct mapping_table *bm = mapping_table_new();
	ck_assert_int_eq(mapping_table_parse(bm, "100000000-101400000 rw-p 00000000 00:00 0 [heap]\n"), 0);
	struct mirror_backend b = { NULL, big_read, fake_write, NULL };
	struct memory_mirror *mm = memory_mirror_new(&b, bm);
	ck_assert_ptr_nonnull(mm);
	big_reads = 0;
	for (int round = 0; round < 2; round++)
		for (uint64_t pg = 0; pg < BIG_PAGES; pg++) {
			uint64_t addr = BIG_BASE + pg * 4096 + pg % 4096;
			uint8_t v;
			ck_assert_int_eq(memory_mirror_read(mm, addr, &v, 1), EMU_MEM_OK);
			ck_assert_uint_eq(v, (uint8_t)addr);
		}
	ck_assert_int_eq(big_reads, BIG_PAGES);
	memory_mirror_invalidate(mm, BIG_BASE + 100 * 4096, 300 * 4096);
	for (uint64_t pg = 0; pg < BIG_PAGES; pg++) {
		uint8_t v;
		ck_assert_int_eq(memory_mirror_read(mm, BIG_BASE + pg * 4096, &v, 1), EMU_MEM_OK);
	}
	ck_assert_int_eq(big_reads, BIG_PAGES + 300);
	memory_mirror_free(mm);
	mapping_table_free(bm);
}
END_TEST

/* A page cached by a read stays read-only: the write fast path checks the
 * protection, and an invalidated page is read again. */
START_TEST(test_cached_read_only_page_refuses_writes)
{
	uint8_t b[8];
	ck_assert_int_eq(memory_mirror_read(mirror, 0x11008, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x11008, b, 8), EMU_MEM_FAULT);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x11008, b, 1), EMU_MEM_FAULT);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x12008, b, 8), EMU_MEM_OK);
	proc.mem[0x2008] = 0x42;
	memory_mirror_invalidate(mirror, 0, UINT64_MAX);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x12008, b, 1), EMU_MEM_OK);
	ck_assert_int_eq(b[0], 0x42);
}
END_TEST

/* Pages of a guard bitmap are never writable inline (translated code's
 * writes test only WRITABLE; the recorder guards the pages that may hold
 * logged code): a bit set before the page is cached, one set while it is
 * (for a page that aliases it: the same entry), then every bit cleared. */
static bool writable_inline(uint64_t addr)
{
	return memory_mirror_tlb_entry(mirror, addr)->tag == ((addr & ~4095ull) | MIRROR_TLB_WRITABLE);
}

START_TEST(test_guarded_pages_never_writable_inline)
{
	static uint64_t guard[1024]; /* 65,536 bits, as the code-page filter */
	uint8_t b[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	memset(guard, 0, sizeof(guard));
	memory_mirror_guard_writes(mirror, MIRROR_GUARD_LOGGED_CODE, guard, 65535);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x12008, b, 8), EMU_MEM_OK);
	ck_assert(writable_inline(0x12008));
	guard[0] |= 1ull << 0x13;
	memory_mirror_guard_changed(mirror, 0x13000);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13008, b, 8), EMU_MEM_OK);
	ck_assert(!writable_inline(0x13008));
	ck_assert_uint_eq(memory_mirror_tlb_entry(mirror, 0x13008)->tag, 0x13000u);
	guard[0] |= 1ull << 0x12;
	memory_mirror_guard_changed(mirror, 0x12000 + (65536ull << 12));
	ck_assert(!writable_inline(0x12008));
	ck_assert_int_eq(memory_mirror_write(mirror, 0x12010, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x12010, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(b[7], 8);
	memset(guard, 0, sizeof(guard));
	memory_mirror_guard_changed(mirror, UINT64_MAX);
	ck_assert(writable_inline(0x12008));
	ck_assert(writable_inline(0x13008));
	memory_mirror_guard_writes(mirror, MIRROR_GUARD_LOGGED_CODE, NULL, 0);
}
END_TEST

/* The emulator's filter of decoded code guards beside the logged-code
 * one: a page either guards is never writable inline. */
START_TEST(test_two_guards)
{
	static uint64_t logged[1024], decoded[1u << 14]; /* 65,536 and 2^20 bits */
	uint8_t b[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	memset(logged, 0, sizeof(logged));
	memset(decoded, 0, sizeof(decoded));
	memory_mirror_guard_writes(mirror, MIRROR_GUARD_LOGGED_CODE, logged, 65535);
	memory_mirror_guard_writes(mirror, MIRROR_GUARD_DECODED_CODE, decoded, (1u << 20) - 1);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x12008, b, 8), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13008, b, 8), EMU_MEM_OK);
	ck_assert(writable_inline(0x12008) && writable_inline(0x13008));
	decoded[0] |= 1ull << 0x12;
	memory_mirror_guard_changed(mirror, 0x12000);
	ck_assert(!writable_inline(0x12008));
	ck_assert(writable_inline(0x13008));
	logged[0] |= 1ull << 0x13;
	memory_mirror_guard_changed(mirror, 0x13000);
	ck_assert(!writable_inline(0x13008));
	/* One guard cleared: the other still holds its page. */
	memset(logged, 0, sizeof(logged));
	memory_mirror_guard_changed(mirror, UINT64_MAX);
	ck_assert(!writable_inline(0x12008));
	ck_assert(writable_inline(0x13008));
	memory_mirror_guard_writes(mirror, MIRROR_GUARD_DECODED_CODE, NULL, 0);
	ck_assert(writable_inline(0x12008));
	memory_mirror_guard_writes(mirror, MIRROR_GUARD_LOGGED_CODE, NULL, 0);
}
END_TEST

/* A grower that maps the page as the kernel would, by reparsing a table
 * whose [stack] starts one page lower. */
static int grower_calls;
static int fake_grow(void *ctx, uint64_t page_addr)
{
	(void)ctx;
	grower_calls++;
	ck_assert_uint_eq(page_addr, 0x13000u);
	ck_assert_int_eq(mapping_table_parse(maps, "10000-11000 r-xp 00000000 08:01 42 /bin/prog\n"
					     "13000-15000 rw-p 00000000 00:00 0 [stack]\n"), 0);
	return 1;
}

START_TEST(test_access_below_stack_grows_it)
{
	struct mapping_table *t = mapping_table_new();
	ck_assert_int_eq(mapping_table_parse(t, "10000-11000 r-xp 00000000 08:01 42 /bin/prog\n"
					       "12000-13000 rw-p 00000000 00:00 0\n"
					       "20000-21000 rw-p 00000000 00:00 0 [stack]\n"), 0);
	ck_assert_ptr_nonnull(mapping_table_stack_above(t, 0x13ff8));
	ck_assert_ptr_nonnull(mapping_table_stack_above(t, 0x13000));
	ck_assert_ptr_null(mapping_table_stack_above(t, 0x20000));  /* mapped */
	ck_assert_ptr_null(mapping_table_stack_above(t, 0x11000));  /* below another */
	ck_assert_ptr_null(mapping_table_stack_above(t, 0x21000));  /* above all */
	mapping_table_free(t);

	ck_assert_int_eq(mapping_table_parse(maps, "10000-11000 r-xp 00000000 08:01 42 /bin/prog\n"
					     "14000-15000 rw-p 00000000 00:00 0 [stack]\n"), 0);
	uint64_t v = 0x1122334455667788ull, back = 0;
	/* Without a grower the access faults, as before. */
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13ff8, &v, 8), EMU_MEM_FAULT);
	grower_calls = 0;
	memory_mirror_set_stack_grower(mirror, fake_grow, NULL);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13ff8, &v, 8), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x13ff8, &back, 8), EMU_MEM_OK);
	ck_assert_uint_eq(back, v);
	ck_assert_int_eq(grower_calls, 1);
	/* Not below the stack: no growth asked. */
	ck_assert_int_eq(memory_mirror_read(mirror, 0xf000, &back, 8), EMU_MEM_FAULT);
	ck_assert_int_eq(grower_calls, 1);
}
END_TEST

/* One file mapped MAP_PRIVATE (two pages, from offset 0x1000) and
 * MAP_SHARED (from offset 0): the private page's first write is held
 * back like the others, but goes to the process before a write through
 * the shared mapping (the kernel's copy of the page must not show it)
 * and at memory_mirror_flush_copies; a shared write forgets the private
 * page at its file offset unless the program wrote that page. */
START_TEST(test_private_file_page_aliases)
{
	ck_assert_int_eq(mapping_table_parse(maps, "12000-14000 rw-p 00001000 08:01 9 /data/f\n"
					     "14000-15000 rw-s 00000000 08:01 9 /data/f\n"), 0);
	ck_assert_uint_eq(mapping_table_find(maps, 0x12000)->flags,
			  MAPPING_READ | MAPPING_WRITE | MAPPING_FILE);
	uint8_t v = 0x5a, b = 0;
	ck_assert_int_eq(memory_mirror_write(mirror, 0x12010, &v, 1), EMU_MEM_OK);
	ck_assert_int_eq(proc.writes, 0);
	ck_assert_int_eq(memory_mirror_flush_copies(mirror), 0);
	ck_assert_int_eq(proc.mem[0x2010], 0x5a);
	int writes = proc.writes;
	ck_assert_int_eq(memory_mirror_flush_copies(mirror), 0);
	ck_assert_int_eq(proc.writes, writes);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x12011, &v, 1), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_flush_copies(mirror), 0);
	ck_assert_int_eq(proc.writes, writes);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x13020, &b, 1), EMU_MEM_OK);
	/* Now the shared page is the file's offset 0x1000: the private page
	 * at 0x13000 (read, not written) shows it. */
	ck_assert_int_eq(mapping_table_parse(maps, "12000-14000 rw-p 00000000 08:01 9 /data/f\n"
					     "14000-15000 rw-s 00001000 08:01 9 /data/f\n"), 0);
	proc.mem[0x3020] = 0x66; /* what the shared write makes the file show */
	ck_assert_int_eq(memory_mirror_write(mirror, 0x14020, &v, 1), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x13020, &b, 1), EMU_MEM_OK);
	ck_assert_int_eq(b, 0x66);
	/* Once written, the private page keeps the program's bytes; its
	 * first write reaches the process before the shared one. */
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13040, &v, 1), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13041, &v, 1), EMU_MEM_OK);
	ck_assert_int_ne(proc.mem[0x3040], 0x5a);
	ck_assert_int_eq(memory_mirror_write(mirror, 0x14041, &v, 1), EMU_MEM_OK);
	ck_assert_int_eq(proc.mem[0x3040], 0x5a);
	ck_assert_int_eq(memory_mirror_read(mirror, 0x13041, &b, 1), EMU_MEM_OK);
	ck_assert_int_eq(b, 0x5a);
	/* Later writes to it are held back as any. */
	ck_assert_int_eq(memory_mirror_write(mirror, 0x13042, &v, 1), EMU_MEM_OK);
	ck_assert_int_eq(memory_mirror_flush_copies(mirror), 0);
	ck_assert_int_ne(proc.mem[0x3042], 0x5a);
	ck_assert(memory_mirror_has_dirty(mirror));
}
END_TEST

/* The mappings of [lo, hi) in t, from the first one. */
static size_t window(const struct mapping_table *t, uint64_t lo, uint64_t hi, size_t *first)
{
	size_t n = 0;
	*first = 0;
	for (size_t i = 0; i < mapping_table_count(t); i++) {
		const struct mapping *m = mapping_table_at(t, i);
		if (m->end <= lo || m->start >= hi)
			continue;
		if (!n)
			*first = i;
		n++;
	}
	return n;
}

/* Around the region the test changes, the table a range refresh leaves
 * equals a full load of /proc/self/maps (elsewhere the process's
 * allocator, or a sanitizer's, may map memory meanwhile). */
static void assert_tables_equal(const struct mapping_table *a, const struct mapping_table *b,
				uint64_t lo, uint64_t hi)
{
	size_t ia, ib, n = window(a, lo, hi, &ia);
	ck_assert_uint_eq(n, window(b, lo, hi, &ib));
	for (size_t k = 0; k < n; k++) {
		const struct mapping *x = mapping_table_at(a, ia + k), *y = mapping_table_at(b, ib + k);
		ck_assert_uint_eq(x->start, y->start);
		ck_assert_uint_eq(x->end, y->end);
		ck_assert_uint_eq(x->flags, y->flags);
		ck_assert_uint_eq(x->offset, y->offset);
		ck_assert_str_eq(x->path ? x->path : "", y->path ? y->path : "");
	}
}

START_TEST(test_refresh_matches_reload)
{
	struct mapping_table *live = mapping_table_new(), *full = mapping_table_new();
	ck_assert_int_eq(mapping_table_load(live, getpid()), 0);
	size_t page = 4096, n = 64;
	uint8_t *base = mmap(NULL, n * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(base, MAP_FAILED);
	ck_assert_int_eq(mapping_table_refresh(live, getpid(), (uint64_t)(uintptr_t)base, n * page), 0);
	/* Split, merge back, unmap a hole, map into it, protect across two. */
	struct { uint8_t *at; size_t pages; int op; } steps[] = {
		{ base + 4 * page, 2, PROT_READ },
		{ base + 10 * page, 1, PROT_NONE },
		{ base + 4 * page, 2, PROT_READ | PROT_WRITE },
		{ base + 20 * page, 3, -1 },  /* munmap */
		{ base + 20 * page, 3, -2 },  /* mmap MAP_FIXED into the hole */
		{ base + 9 * page, 3, PROT_READ | PROT_EXEC },
		{ base + 63 * page, 1, -1 },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		uint8_t *at = steps[i].at;
		size_t len = steps[i].pages * page;
		if (steps[i].op == -1)
			ck_assert_int_eq(munmap(at, len), 0);
		else if (steps[i].op == -2)
			ck_assert_ptr_eq(mmap(at, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
					      -1, 0), at);
		else
			ck_assert_int_eq(mprotect(at, len, steps[i].op), 0);
		ck_assert_int_eq(mapping_table_refresh(live, getpid(), (uint64_t)(uintptr_t)at, len), 0);
		ck_assert_int_eq(mapping_table_load(full, getpid()), 0);
		assert_tables_equal(live, full, (uint64_t)(uintptr_t)base - page,
				    (uint64_t)(uintptr_t)base + (n + 1) * page);
	}
	munmap(base, n * page);
	mapping_table_free(live);
	mapping_table_free(full);
}
END_TEST

static Suite *mirror_suite(void)
{
	Suite *s = suite_create("recorder_mirror");
	TCase *tc = tcase_create("mirror");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_maps_parse);
	tcase_add_test(tc, test_read_caches_page);
	tcase_add_test(tc, test_write_flushes_only_dirty_bytes);
	tcase_add_test(tc, test_protections_fault);
	tcase_add_test(tc, test_write_back_leaves_the_process_alone);
	tcase_add_test(tc, test_shared_is_never_cached);
	tcase_add_test(tc, test_flush_writes_each_run_once);
	tcase_add_test(tc, test_flush_batches_runs);
	tcase_add_test(tc, test_quiet_flush_one_run_per_page);
	tcase_add_test(tc, test_flush_range_per_run);
	tcase_add_test(tc, test_flush_range_batched);
	tcase_add_test(tc, test_flush_range_by_page_or_list);
	tcase_add_test(tc, test_many_pages_stay_found);
	tcase_add_test(tc, test_cached_read_only_page_refuses_writes);
	tcase_add_test(tc, test_guarded_pages_never_writable_inline);
	tcase_add_test(tc, test_two_guards);
	tcase_add_test(tc, test_access_below_stack_grows_it);
	tcase_add_test(tc, test_refresh_matches_reload);
	tcase_add_test(tc, test_private_file_page_aliases);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(mirror_suite)
