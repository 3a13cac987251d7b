/*
 * test_decode_fast.c — the decoder's common forms without Zydis
 * (emulator/decode_fast.c) against Zydis: for every opcode of the one-byte
 * and 0F maps with every ModRM byte under the prefixes it decodes (and
 * some it leaves to Zydis), with random SIB, displacement and immediate
 * bytes, whole and cut short, emu_decode gives field for field what it
 * gives asking Zydis only. The forms it is for are decoded without Zydis.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "emulator/internal.h"
#include "check_main.h"

#define INSN_MAX 15
#define ADDR 0x7f0012345ff0ull

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* The first field in which two decodings differ, or NULL. */
static const char *first_difference(const struct emu_insn *a, const struct emu_insn *b)
{
#define SAME(field) if (a->field != b->field) return #field
	SAME(handler); SAME(addr); SAME(imm); SAME(len); SAME(nopnd); SAME(opsize);
	SAME(op); SAME(cond); SAME(attr); SAME(imm2); SAME(vl); SAME(mnemonic);
	SAME(ends_block);
	SAME(mem.disp); SAME(mem.base); SAME(mem.index); SAME(mem.scale);
	SAME(mem.seg); SAME(mem.addr32);
	for (unsigned i = 0; i < 4; i++) {
		SAME(opnd[i].kind); SAME(opnd[i].size); SAME(opnd[i].reg);
	}
#undef SAME
	return NULL;
}

struct tally {
	unsigned long cases, decoded_fast;
};

/* Decodes bytes[0..len) both ways; fails the test with the bytes on any
 * difference. */
static void compare(const uint8_t *bytes, size_t len, struct tally *t)
{
	struct emu_insn zydis, fast, fields;
	bool ok_zydis = emu_decode_with_zydis_only(bytes, len, ADDR, &zydis);
	bool ok_fast = emu_decode(bytes, len, ADDR, &fast);
	memset(&fields, 0, sizeof(fields));
	fields.mem.base = fields.mem.index = EMU_NO_REG;
	bool took = emu_decode_fast(bytes, len, ADDR, &fields);
	t->cases++;
	t->decoded_fast += took;
	const char *field = first_difference(&zydis, &fast);
	if (ok_zydis == ok_fast && !field)
		return;
	char hex[3 * INSN_MAX + 1] = "";
	for (size_t i = 0; i < len; i++)
		snprintf(hex + 3 * i, 4, "%02x ", bytes[i]);
	ck_abort_msg("%s(%zu bytes): zydis %d, with the fast forms %d (decoded there: %d), "
		     "first difference: %s", hex, len, ok_zydis, ok_fast, took,
		     field ? field : "none");
}

/* The instruction whole and, for some, cut short at every length. */
static void compare_with_cuts(uint8_t *bytes, size_t prefix_len, struct tally *t)
{
	for (size_t i = prefix_len; i < INSN_MAX; i++)
		bytes[i] = (uint8_t)rng();
	compare(bytes, INSN_MAX, t);
	if (rng() % 16 == 0)
		for (size_t cut = 1; cut < INSN_MAX; cut++)
			compare(bytes, cut, t);
}

static const uint8_t prefix_sets[][4] = {
	{ 0 }, { 1, 0x66 }, { 1, 0x48 }, { 1, 0x40 }, { 1, 0x41 }, { 1, 0x44 },
	{ 1, 0x45 }, { 1, 0x4c }, { 1, 0x4d }, { 1, 0x4a }, { 1, 0x4f },
	{ 2, 0x66, 0x48 }, { 2, 0x66, 0x41 }, { 1, 0x64 }, { 1, 0x65 },
	{ 2, 0x64, 0x48 }, { 3, 0x66, 0x65, 0x4c }, { 2, 0x48, 0x66 },
	{ 1, 0xf0 }, { 1, 0xf3 }, { 1, 0xf2 }, { 1, 0x67 }, { 2, 0x66, 0x66 },
	{ 2, 0x64, 0x65 }, { 1, 0x2e }, { 2, 0x41, 0x48 },
};

START_TEST(test_every_opcode_and_modrm)
{
	struct tally t = { 0 };
	const uint8_t *ps = prefix_sets[_i];
	uint8_t bytes[INSN_MAX];
	memcpy(bytes, ps + 1, ps[0]);
	for (unsigned map = 0; map < 2; map++)
		for (unsigned op = 0; op < 256; op++)
			for (unsigned modrm = 0; modrm < 256; modrm++) {
				size_t at = ps[0];
				if (map)
					bytes[at++] = 0x0f;
				bytes[at++] = (uint8_t)op;
				bytes[at++] = (uint8_t)modrm;
				compare_with_cuts(bytes, at, &t);
			}
	/* Each set but those left to Zydis has hundreds of forms of its own. */
	if (ps[0] == 0 || (ps[0] == 1 && (ps[1] & 0xf0) == 0x40))
		ck_assert_uint_gt(t.decoded_fast, t.cases / 8);
}
END_TEST

/* Up to four prefixes of every kind in any order, then anything. */
START_TEST(test_random_prefixes)
{
	static const uint8_t prefixes[] = { 0x66, 0x64, 0x65, 0xf0, 0xf2, 0xf3, 0x67,
					    0x2e, 0x3e, 0x26, 0x36, 0x40, 0x41, 0x48,
					    0x4c, 0x4f, 0x0f };
	struct tally t = { 0 };
	uint8_t bytes[INSN_MAX];
	for (unsigned i = 0; i < 400000; i++) {
		size_t n = rng() % 5;
		for (size_t k = 0; k < n; k++)
			bytes[k] = prefixes[rng() % sizeof(prefixes)];
		compare_with_cuts(bytes, n, &t);
	}
	ck_assert_uint_gt(t.decoded_fast, t.cases / 10);
}
END_TEST

/* What compilers emit most, each decoded without Zydis. */
START_TEST(test_common_forms_are_fast)
{
	static const struct { uint8_t len, bytes[INSN_MAX]; } forms[] = {
		{ 1, { 0x55 } },                                   /* push rbp */
		{ 3, { 0x48, 0x89, 0xe5 } },                       /* mov rbp, rsp */
		{ 4, { 0x48, 0x8b, 0x45, 0xf8 } },                 /* mov rax, [rbp-8] */
		{ 7, { 0x48, 0x8b, 0x05, 1, 2, 3, 4 } },           /* mov rax, [rip+..] */
		{ 5, { 0x41, 0x8b, 0x44, 0x24, 0x10 } },           /* mov eax, [r12+16] */
		{ 8, { 0x48, 0x8d, 0x84, 0xc8, 1, 2, 3, 4 } },     /* lea rax, [rax+rcx*8+..] */
		{ 5, { 0xe8, 1, 2, 3, 4 } },                       /* call rel32 */
		{ 6, { 0x0f, 0x84, 1, 2, 3, 4 } },                 /* jz rel32 */
		{ 2, { 0x75, 0x10 } },                             /* jnz rel8 */
		{ 1, { 0xc3 } },                                   /* ret */
		{ 4, { 0x48, 0x83, 0xec, 0x18 } },                 /* sub rsp, 24 */
		{ 3, { 0x0f, 0xb6, 0x07 } },                       /* movzx eax, byte [rdi] */
		{ 3, { 0x48, 0x63, 0xd0 } },                       /* movsxd rdx, eax */
		{ 2, { 0x85, 0xc0 } },                             /* test eax, eax */
		{ 3, { 0x0f, 0x94, 0xc0 } },                       /* setz al */
		{ 4, { 0x48, 0x0f, 0x44, 0xc2 } },                 /* cmovz rax, rdx */
		{ 5, { 0xb8, 1, 0, 0, 0 } },                       /* mov eax, 1 */
		{ 4, { 0x48, 0xc1, 0xe8, 0x03 } },                 /* shr rax, 3 */
		{ 2, { 0xff, 0xe0 } },                             /* jmp rax */
		{ 6, { 0xff, 0x25, 1, 2, 3, 4 } },                 /* jmp [rip+..] (PLT) */
		{ 5, { 0x0f, 0x1f, 0x44, 0x00, 0x00 } },           /* nop dword [rax+rax] */
		{ 9, { 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0, 0, 0 } }, /* mov rax, fs:[0x28] */
	};
	struct tally t = { 0 };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		struct emu_insn insn;
		memset(&insn, 0, sizeof(insn));
		insn.mem.base = insn.mem.index = EMU_NO_REG;
		ck_assert_msg(emu_decode_fast(forms[i].bytes, forms[i].len, ADDR, &insn),
			      "form %zu left to Zydis", i);
		ck_assert_uint_eq(insn.len, forms[i].len);
		compare(forms[i].bytes, forms[i].len, &t);
	}
}
END_TEST

static Suite *decode_fast_suite(void)
{
	Suite *s = suite_create("decode_fast");
	TCase *tc = tcase_create("against_zydis");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_every_opcode_and_modrm, 0,
			    sizeof(prefix_sets) / sizeof(prefix_sets[0]));
	tcase_add_test(tc, test_random_prefixes);
	tcase_add_test(tc, test_common_forms_are_fast);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(decode_fast_suite)
