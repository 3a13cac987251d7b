/*
 * test_trace_predict.c — the prediction cache: hits and misses as
 * specified, every size 1..64 at every alignment, accesses crossing
 * entries, and the replay side reproducing the record side's values from
 * the miss log alone on a long random access sequence, and the inline
 * fast paths agreeing with the general forms.
 */
#include "check_main.h"
#include "trace-format/predict_cache.h"
#include "trace_sample.h"

START_TEST(starts_zero_hits_and_misses)
{
	struct predict_cache pc;
	ck_assert(predict_cache_init(&pc, 10));
	uint8_t zeros[64] = {0}, v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	uint64_t hb = 99;
	ck_assert(predict_cache_record_read(&pc, 0x1000, zeros, 8, &hb));
	ck_assert(predict_cache_record_read(&pc, 0x2003, zeros, 3, &hb));
	ck_assert(!predict_cache_record_read(&pc, 0x1000, v, 8, &hb));
	ck_assert_uint_eq(hb, 2);
	ck_assert(predict_cache_record_read(&pc, 0x1000, v, 8, &hb));
	ck_assert(predict_cache_record_read(&pc, 0x1002, v + 2, 4, &hb));
	/* A write updates it: the next read hits. */
	predict_cache_update(&pc, 0x1004, zeros, 4);
	uint8_t w[8] = {1, 2, 3, 4, 0, 0, 0, 0};
	ck_assert(predict_cache_record_read(&pc, 0x1000, w, 8, &hb));
	ck_assert_uint_eq(predict_cache_hits(&pc), 5);
	ck_assert_uint_eq(pc.misses, 1);
	ck_assert_uint_eq(pc.hits_since_miss, 3);
	predict_cache_flush(&pc);
	ck_assert_uint_eq(pc.hits_since_miss, 0);
	/* The flush ends the run of hits but keeps them counted. */
	ck_assert_uint_eq(predict_cache_hits(&pc), 5);
	ck_assert(predict_cache_record_read(&pc, 0x1000, zeros, 8, &hb));
	ck_assert(!predict_cache_init(&pc, 3) && !predict_cache_init(&pc, 25));
	predict_cache_fini(&pc);
}
END_TEST

/* Where byte address a lives (man/idna.5): H(x) = (x * 0x9E3779B97F4A7C15)
 * >> (64 - k + g), the entry 2^g * H(a >> (3 + g)) + ((a >> 3) mod 2^g),
 * and H = 0 when g = k. A fresh cache is direct-mapped (g = k: the entry
 * (a >> 3) mod 2^k, format 1.6); g = 3 for format 1.5 (the 8 entries of
 * a 64-byte block in one 64-byte piece of the cache); g = 0, for traces
 * of format 1.4 and older, each 8-byte line alone. */
static size_t entry_by_formula(uint64_t a, unsigned k, unsigned g)
{
	uint64_t h = g == k ? 0 : ((a >> (3 + g)) * 0x9E3779B97F4A7C15ull) >> (64 - k + g);
	return (size_t)((h << g) + ((a >> 3) & ((1u << g) - 1)));
}

START_TEST(entries_by_each_hash)
{
	struct predict_cache pc;
	ck_assert(predict_cache_init(&pc, 10));
	ck_assert_uint_eq(pc.group_log2, 10);
	ck_assert(predict_cache_direct(&pc) && predict_cache_blocks_consecutive(&pc));
	ck_assert_uint_eq((uintptr_t)pc.bytes % 64, 0); /* a block's entries: one host cache line */
	/* The header's cache_log2_line values: 3, 6 and 3 + k, no other
	 * (which leaves the hash as it was). */
	for (unsigned line = 0; line < 20; line++) {
		bool known = line == 3 || line == 6 || line == 13;
		ck_assert(predict_cache_set_line_log2(&pc, 6));
		ck_assert_int_eq(predict_cache_set_line_log2(&pc, line), known);
		ck_assert_uint_eq(pc.group_log2, (known ? line : 6) - 3);
	}
	uint64_t seed = 11;
	static const unsigned lines[] = { 13, 6, 3 };
	for (unsigned l = 0; l < 3; l++) {
		ck_assert(predict_cache_set_line_log2(&pc, lines[l]));
		unsigned g = lines[l] - 3;
		ck_assert_int_eq(predict_cache_direct(&pc), g == 10);
		ck_assert_int_eq(predict_cache_blocks_consecutive(&pc), g != 0);
		for (unsigned i = 0; i < 4096; i++) {
			uint64_t a = sample_rand(&seed) & 0x7fffffffffffull;
			size_t at = (size_t)(predict_cache_slot(&pc, a) - pc.bytes);
			ck_assert_uint_eq(at, 8 * entry_by_formula(a, 10, g));
			if (g >= 3) /* the block's entries share its 64 bytes */
				ck_assert_uint_eq(at / 64, (size_t)(predict_cache_slot(&pc, a & ~63ull) - pc.bytes) / 64);
		}
	}
	/* Direct: lines 2^k apart share an entry. */
	ck_assert(predict_cache_set_line_log2(&pc, 13));
	ck_assert_ptr_eq(predict_cache_slot(&pc, 0x7ffe1238), predict_cache_slot(&pc, 0x7ffe1238 + (8u << 10)));
	/* Another geometry, other entries: a value read under one is not
	 * predicted under another where their entries differ. */
	uint8_t v[8] = {9, 8, 7, 6, 5, 4, 3, 2}, out[8];
	uint64_t a = 0x7ffe1238, hb;
	for (unsigned l = 0; l < 3; l++) {
		unsigned other = lines[(l + 1) % 3];
		ck_assert(entry_by_formula(a, 10, lines[l] - 3) != entry_by_formula(a, 10, other - 3));
		ck_assert(predict_cache_set_line_log2(&pc, lines[l]));
		predict_cache_flush(&pc);
		ck_assert(!predict_cache_record_read(&pc, a, v, 8, &hb));
		ck_assert(predict_cache_set_line_log2(&pc, other));
		predict_cache_predict(&pc, a, out, 8);
		ck_assert_int_ne(memcmp(out, v, 8), 0);
	}
	predict_cache_fini(&pc);
}
END_TEST

/* Every size at every alignment within two entries, crossing included:
 * after a miss stores a value, reading it back hits and predicts it, and
 * a neighbouring byte untouched by the access keeps its old value. */
START_TEST(every_size_and_alignment)
{
	struct predict_cache pc;
	ck_assert(predict_cache_init(&pc, 12));
	uint8_t v[64], out[64];
	uint64_t hb, seed = 7;
	for (unsigned n = 1; n <= 64; n++)
		for (unsigned align = 0; align < 16; align++) {
			uint64_t a = 0x10000 + 4096 * n + align;
			predict_cache_flush(&pc);
			for (unsigned i = 0; i < n; i++)
				v[i] = (uint8_t)(sample_rand(&seed) | 1);
			ck_assert(!predict_cache_record_read(&pc, a, v, n, &hb));
			ck_assert(predict_cache_record_read(&pc, a, v, n, &hb));
			predict_cache_predict(&pc, a, out, n);
			ck_assert_int_eq(memcmp(out, v, n), 0);
			predict_cache_predict(&pc, a + n, out, 1);
			ck_assert_uint_eq(out[0], 0);
			/* Every sub-range of the access hits too. */
			for (unsigned k = 0; k < n; k += 7)
				ck_assert(predict_cache_record_read(&pc, a + k, v + k, n - k, &hb));
		}
	predict_cache_fini(&pc);
}
END_TEST

/* Addresses 2^k apart map to different entries (the hash), and one entry
 * shared by two lines is overwritten: a conflict miss, not a wrong hit. */
START_TEST(conflicts_are_misses)
{
	struct predict_cache pc;
	ck_assert(predict_cache_init(&pc, 4)); /* 16 entries: conflicts guaranteed */
	uint8_t v[8], zeros[8] = {0};
	uint64_t hb;
	int misses = 0;
	for (uint64_t line = 0; line < 64; line++) {
		memcpy(v, &line, 8);
		v[7] = 0xee;
		misses += !predict_cache_record_read(&pc, line * 8, v, 8, &hb);
	}
	ck_assert_int_eq(misses, 64);
	for (uint64_t line = 0; line < 64; line++) {
		memcpy(v, &line, 8);
		v[7] = 0xee;
		uint8_t out[8];
		predict_cache_predict(&pc, line * 8, out, 8);
		/* Whatever is predicted, a read of the true value is a hit
		 * exactly when the prediction equals it. */
		ck_assert_int_eq(predict_cache_record_read(&pc, line * 8, v, 8, &hb), memcmp(out, v, 8) == 0);
	}
	(void)zeros;
	predict_cache_fini(&pc);
}
END_TEST

struct access {
	uint64_t addr;
	uint8_t n;
	bool write;
	uint8_t value[64];
};

/* The recorder's view: memory changes behind the cache's back now and
 * then; replay sees only the miss log and must produce the same values. */
/* The inline fast paths (one entry, sizes 1/2/4/8; whole aligned entries
 * of vectors) and the general forms must leave the cache in the same
 * state and give the same answers: the replayer reads through the general
 * form where the recorder took a fast path. Random reads and writes over
 * a few lines, so values recur. */
START_TEST(fast_paths_agree_with_general_forms)
{
	struct predict_cache fast, any;
	ck_assert(predict_cache_init(&fast, 6) && predict_cache_init(&any, 6));
	uint64_t seed = 0x243f6a8885a308d3ull;
	static const unsigned sizes[] = { 1, 2, 4, 8, 3, 16, 32, 64 };
	unsigned fast_taken = 0, whole_taken = 0;
	for (int i = 0; i < 200000; i++) {
		seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
		unsigned n = sizes[(seed >> 8) % 8];
		uint64_t addr = 0x7000 + (seed >> 16) % 256;
		uint8_t v[64];
		for (unsigned k = 0; k < n; k++)
			v[k] = (uint8_t)((seed >> (24 + k % 4)) & 3);
		if ((addr & 7) + n <= 8 && (n & (n - 1)) == 0)
			fast_taken++;
		if ((addr & 7) == 0 && n >= 16)
			whole_taken++;
		if (seed & 1) {
			predict_cache_update(&fast, addr, v, n);
			predict_cache_update_any(&any, addr, v, n);
		} else {
			uint64_t hb_fast = 1, hb_any = 2;
			bool hit_fast = predict_cache_record_read(&fast, addr, v, n, &hb_fast);
			bool hit_any = predict_cache_record_read_any(&any, addr, v, n, &hb_any);
			ck_assert_int_eq(hit_fast, hit_any);
			if (!hit_fast)
				ck_assert_uint_eq(hb_fast, hb_any);
		}
		ck_assert_mem_eq(fast.bytes, any.bytes, 64 * PREDICT_CACHE_LINE);
	}
	ck_assert_uint_eq(predict_cache_hits(&fast), predict_cache_hits(&any));
	ck_assert_uint_eq(fast.misses, any.misses);
	ck_assert_uint_gt(predict_cache_hits(&fast), 1000);
	ck_assert_uint_gt(fast.misses, 1000);
	ck_assert_uint_gt(fast_taken, 40000);
	ck_assert_uint_gt(whole_taken, 5000);
	predict_cache_fini(&fast);
	predict_cache_fini(&any);
}
END_TEST

/* The integer forms (the recorder's register path) against the general
 * forms, across entries too. A write's value carries garbage above its n
 * bytes, as a byte store of a full register does: the cache must ignore
 * it. A try_hit that says no must change nothing. */
START_TEST(integer_forms_agree_with_general_forms)
{
	struct predict_cache uint_pc, any;
	ck_assert(predict_cache_init(&uint_pc, 6) && predict_cache_init(&any, 6));
	uint64_t seed = 0x13198a2e03707344ull;
	static const unsigned sizes[] = { 1, 2, 4, 8, 3, 7 };
	unsigned tried = 0, crossing = 0;
	for (int i = 0; i < 200000; i++) {
		seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
		unsigned n = sizes[(seed >> 8) % 6];
		uint64_t addr = 0x7000 + (seed >> 16) % 256;
		uint8_t v[8] = { 0 };
		for (unsigned k = 0; k < n; k++)
			v[k] = (uint8_t)((seed >> (24 + k % 4)) & 3);
		uint64_t value;
		memcpy(&value, v, 8);
		crossing += (addr & 7) + n > 8;
		if (seed & 1) {
			uint64_t garbage = n == 8 ? 0 : ~0ull << (8 * n);
			predict_cache_update_uint(&uint_pc, addr, value | garbage, n);
			predict_cache_update_any(&any, addr, v, n);
		} else if (seed & 2) {
			uint64_t hits = predict_cache_hits(&uint_pc);
			uint8_t before[64 * PREDICT_CACHE_LINE];
			memcpy(before, uint_pc.bytes, sizeof(before));
			bool hit = predict_cache_try_hit_uint(&uint_pc, addr, value, n);
			if (!hit) {
				ck_assert_uint_eq(predict_cache_hits(&uint_pc), hits);
				ck_assert_mem_eq(uint_pc.bytes, before, sizeof(before));
			}
			uint64_t hb_uint = 1, hb_any = 2;
			if (hit)
				tried++;
			else
				hit = predict_cache_record_read_uint(&uint_pc, addr, value, n, &hb_uint);
			bool hit_any = predict_cache_record_read_any(&any, addr, v, n, &hb_any);
			ck_assert_int_eq(hit, hit_any);
			if (!hit)
				ck_assert_uint_eq(hb_uint, hb_any);
		} else {
			uint64_t hb_uint = 1, hb_any = 2;
			bool hit = predict_cache_record_read_uint(&uint_pc, addr, value, n, &hb_uint);
			bool hit_any = predict_cache_record_read_any(&any, addr, v, n, &hb_any);
			ck_assert_int_eq(hit, hit_any);
			if (!hit)
				ck_assert_uint_eq(hb_uint, hb_any);
		}
		ck_assert_mem_eq(uint_pc.bytes, any.bytes, 64 * PREDICT_CACHE_LINE);
	}
	ck_assert_uint_eq(predict_cache_hits(&uint_pc), predict_cache_hits(&any));
	ck_assert_uint_eq(uint_pc.misses, any.misses);
	ck_assert_uint_eq(uint_pc.hits_since_miss, any.hits_since_miss);
	ck_assert_uint_gt(tried, 1000);
	ck_assert_uint_gt(crossing, 10000);
	ck_assert_uint_gt(uint_pc.misses, 1000);
	predict_cache_fini(&uint_pc);
	predict_cache_fini(&any);
}
END_TEST

START_TEST(replay_agrees_with_record)
{
	enum { N = 200000 };
	struct access *acc = malloc(N * sizeof(*acc));
	static uint8_t memory[1 << 16];
	uint64_t seed = 12345;
	for (size_t i = 0; i < sizeof(memory); i++)
		memory[i] = (uint8_t)(sample_rand(&seed) % 4);
	struct predict_cache rec_pc, rep_pc;
	ck_assert(predict_cache_init(&rec_pc, 12) && predict_cache_init(&rep_pc, 12));
	/* Record: the log is the miss records and the checkpoints (n == 0). */
	struct logged {
		uint64_t hits_before;
		uint8_t n, value[64];
	} *log = malloc(N * sizeof(*log));
	size_t n_log = 0;
	for (size_t i = 0; i < N; i++) {
		struct access *a = &acc[i];
		if (i % 50000 == 49999) {
			/* A checkpoint: both sides flush at the same point. */
			predict_cache_flush(&rec_pc);
			log[n_log++].n = 0; /* the checkpoint record's place in the log */
			a->n = 0;
			continue;
		}
		a->n = (uint8_t)(1 + sample_rand(&seed) % 64);
		a->addr = sample_rand(&seed) % 2048; /* a hot working set */
		a->write = sample_rand(&seed) % 4 == 0;
		if (sample_rand(&seed) % 10 == 0) /* another thread writes */
			memory[sample_rand(&seed) % 2112] ^= 0x5a;
		if (a->write) {
			for (unsigned k = 0; k < a->n; k++)
				a->value[k] = (uint8_t)sample_rand(&seed);
			memcpy(memory + a->addr, a->value, a->n);
			predict_cache_update(&rec_pc, a->addr, a->value, a->n);
			continue;
		}
		memcpy(a->value, memory + a->addr, a->n);
		uint64_t hb;
		if (!predict_cache_record_read(&rec_pc, a->addr, a->value, a->n, &hb)) {
			log[n_log].hits_before = hb;
			log[n_log].n = a->n;
			memcpy(log[n_log].value, a->value, a->n);
			n_log++;
		}
	}
	ck_assert_uint_gt(n_log, 1000);
	ck_assert_uint_gt(predict_cache_hits(&rec_pc), 10000);
	/* Replay. */
	struct predict_miss next = {0};
	size_t used = 0;
	for (size_t i = 0; i < N; i++) {
		struct access *a = &acc[i];
		if (a->n == 0) {
			/* The log must be at the checkpoint: no miss pending. */
			ck_assert(!next.valid && used < n_log && log[used].n == 0);
			used++;
			predict_cache_flush(&rep_pc);
			continue;
		}
		if (a->write) {
			predict_cache_update(&rep_pc, a->addr, a->value, a->n);
			continue;
		}
		if (!next.valid && used < n_log && log[used].n != 0) {
			next = (struct predict_miss){true, log[used].hits_before, log[used].value, log[used].n};
			used++;
		}
		uint8_t out[64];
		int rc = predict_cache_replay_read(&rep_pc, a->addr, out, a->n, &next);
		ck_assert_int_ge(rc, 0);
		if (memcmp(out, a->value, a->n) != 0)
			ck_abort_msg("replay read %zu differs", i);
	}
	ck_assert_uint_eq(used, n_log);
	ck_assert(!next.valid);
	ck_assert_uint_eq(predict_cache_hits(&rep_pc), predict_cache_hits(&rec_pc));
	ck_assert_uint_eq(rep_pc.misses, rec_pc.misses);
	predict_cache_fini(&rec_pc);
	predict_cache_fini(&rep_pc);
	free(acc);
	free(log);
}
END_TEST

START_TEST(replay_detects_a_size_mismatch)
{
	struct predict_cache pc;
	ck_assert(predict_cache_init(&pc, 8));
	uint8_t v[8] = {9}, out[8];
	struct predict_miss next = {true, 0, v, 8};
	ck_assert_int_eq(predict_cache_replay_read(&pc, 0x100, out, 4, &next), -1);
	ck_assert_int_eq(predict_cache_replay_read(&pc, 0x100, out, 8, &next), 1);
	ck_assert_uint_eq(out[0], 9);
	ck_assert(!next.valid);
	predict_cache_fini(&pc);
}
END_TEST

static Suite *trace_predict_suite(void)
{
	Suite *s = suite_create("trace_predict");
	TCase *tc = tcase_create("predict");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, starts_zero_hits_and_misses);
	tcase_add_test(tc, every_size_and_alignment);
	tcase_add_test(tc, entries_by_each_hash);
	tcase_add_test(tc, conflicts_are_misses);
	tcase_add_test(tc, fast_paths_agree_with_general_forms);
	tcase_add_test(tc, integer_forms_agree_with_general_forms);
	tcase_add_test(tc, replay_agrees_with_record);
	tcase_add_test(tc, replay_detects_a_size_mismatch);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(trace_predict_suite)
