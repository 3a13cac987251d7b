/*
 * test_jit_encode_cache.c — the translator's cache of encoded host
 * instructions (emulator/jit_encode_cache.c): a request found gives the
 * bytes stored for exactly that request, a request that differs in any
 * field of its mnemonic or operands is not found, an entry another
 * request takes is lost, and code assembled through the cache is
 * byte for byte the code assembled without it.
 */
#include <check.h>
#include <string.h>

#include "emulator/jit_emit.h"
#include "emulator/jit_encode_cache.h"
#include "check_main.h"

static const uint8_t stored[3] = { 0x48, 0x8b, 0x07 };

/* The requests that differ from mov rax, [r15 + 0x20] (8 bytes) in one
 * field each. */
static void each_neighbour(void (*fn)(struct jit_encode_cache *, ZydisMnemonic,
				      struct jit_opnd, struct jit_opnd, struct jit_opnd),
			   struct jit_encode_cache *c)
{
	struct jit_opnd r = jit_r(JR_RAX, 8), m = jit_m(JR_R15, JR_NONE, 0, 0x20, 8);
	fn(c, ZYDIS_MNEMONIC_ADD, r, m, jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, jit_r(JR_RCX, 8), m, jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 4), jit_m(JR_R15, JR_NONE, 0, 0x20, 4), jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, r, jit_m(JR_R14, JR_NONE, 0, 0x20, 8), jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, r, jit_m(JR_R15, JR_RCX, 1, 0x20, 8), jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, r, jit_m(JR_R15, JR_RCX, 2, 0x20, 8), jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, r, jit_m(JR_R15, JR_NONE, 0, 0x28, 8), jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, r, jit_i(0x20), jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, m, r, jit_none());
	fn(c, ZYDIS_MNEMONIC_MOV, r, m, jit_i(0));
}

static void not_found(struct jit_encode_cache *c, ZydisMnemonic mn, struct jit_opnd x,
		      struct jit_opnd y, struct jit_opnd z)
{
	uint8_t out[JIT_ENCODED_MAX];
	ck_assert_uint_eq(jit_encode_cache_find(c, mn, &x, &y, &z, out), 0);
}

START_TEST(test_found_exactly)
{
	struct jit_encode_cache *c = jit_encode_cache_new();
	ck_assert_ptr_nonnull(c);
	struct jit_opnd r = jit_r(JR_RAX, 8), m = jit_m(JR_R15, JR_NONE, 0, 0x20, 8),
			n = jit_none();
	uint8_t out[JIT_ENCODED_MAX];
	ck_assert_uint_eq(jit_encode_cache_find(c, ZYDIS_MNEMONIC_MOV, &r, &m, &n, out), 0);
	jit_encode_cache_store(c, ZYDIS_MNEMONIC_MOV, &r, &m, &n, stored, sizeof(stored));
	ck_assert_uint_eq(jit_encode_cache_find(c, ZYDIS_MNEMONIC_MOV, &r, &m, &n, out),
			  sizeof(stored));
	ck_assert_mem_eq(out, stored, sizeof(stored));
	each_neighbour(not_found, c);
	/* Three operands: the third's value is part of the request too,
	 * also for the requests that share its entry (some of 100,000). */
	struct jit_opnd rcx = jit_r(JR_RCX, 8), three = jit_i(3);
	jit_encode_cache_store(c, ZYDIS_MNEMONIC_IMUL, &r, &rcx, &three, stored, sizeof(stored));
	ck_assert_uint_eq(jit_encode_cache_find(c, ZYDIS_MNEMONIC_IMUL, &r, &rcx, &three, out),
			  sizeof(stored));
	for (int64_t v = 4; v < 100000; v++)
		not_found(c, ZYDIS_MNEMONIC_IMUL, r, rcx, jit_i(v));
	jit_encode_cache_free(c);
}
END_TEST

/* Every entry taken by other requests: the first one is gone (the table
 * is far smaller than 100,000 requests). */
START_TEST(test_entries_taken)
{
	struct jit_encode_cache *c = jit_encode_cache_new();
	ck_assert_ptr_nonnull(c);
	struct jit_opnd r = jit_r(JR_RAX, 8), n = jit_none();
	struct jit_opnd m = jit_m(JR_R15, JR_NONE, 0, 0, 8);
	jit_encode_cache_store(c, ZYDIS_MNEMONIC_MOV, &r, &m, &n, stored, sizeof(stored));
	for (int64_t d = 1; d <= 100000; d++) {
		struct jit_opnd o = jit_m(JR_R15, JR_NONE, 0, d, 8);
		jit_encode_cache_store(c, ZYDIS_MNEMONIC_MOV, &r, &o, &n, stored, 2);
	}
	uint8_t out[JIT_ENCODED_MAX];
	ck_assert_uint_eq(jit_encode_cache_find(c, ZYDIS_MNEMONIC_MOV, &r, &m, &n, out), 0);
	jit_encode_cache_free(c);
}
END_TEST

/* The same instructions, many of them twice, assembled with and without
 * the cache. */
static size_t assemble(struct jit_encode_cache *c, uint8_t *buf, size_t cap)
{
	struct jit_asm a = { .buf = buf, .cap = cap, .cache = c };
	for (int round = 0; round < 2; round++)
		for (int reg = 0; reg < 16; reg++)
			for (unsigned size = 1; size <= 8; size *= 2) {
				jit_op(&a, ZYDIS_MNEMONIC_MOV, jit_r(reg, size),
				       jit_m(JR_R15, JR_NONE, 0, 8 * reg + round, size));
				jit_op(&a, ZYDIS_MNEMONIC_ADD, jit_r(reg, size), jit_i(reg - 8));
				jit_op3(&a, ZYDIS_MNEMONIC_IMUL, jit_r(reg, size == 1 ? 2 : size),
					jit_r(15 - reg, size == 1 ? 2 : size), jit_i(reg * 3));
				jit_op(&a, ZYDIS_MNEMONIC_MOVDQU, jit_m(JR_RSP, JR_NONE, 0, reg, 16),
				       jit_x(reg));
				jit_mov_imm(&a, reg, 0x123456789ull << reg);
			}
	ck_assert(!a.failed);
	return a.pos;
}

START_TEST(test_same_code)
{
	static uint8_t with[1 << 16], without[1 << 16];
	struct jit_encode_cache *c = jit_encode_cache_new();
	ck_assert_ptr_nonnull(c);
	size_t n = assemble(c, with, sizeof(with));
	ck_assert_uint_eq(assemble(NULL, without, sizeof(without)), n);
	ck_assert_mem_eq(with, without, n);
	jit_encode_cache_free(c);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("jit_encode_cache");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_found_exactly);
	tcase_add_test(tc, test_entries_taken);
	tcase_add_test(tc, test_same_code);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(suite)
