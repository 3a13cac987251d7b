/*
 * test_emu_rep_string.c — emu_rep_string: which instructions are rep
 * string instructions a debugger steps one iteration at a time, and what
 * it is told about each (length, address and element size, whether an
 * iteration writes, what ends it early, what it reads); the prefixes that
 * look alike on other instructions (rep ret, pause, popcnt, movsd of SSE) are not.
 */
#include <check.h>
#include <string.h>

#include "check_main.h"
#include "emulator/emu.h"

struct rep_case {
	const char *name;
	uint8_t bytes[6];
	size_t len;
	bool is_rep;
	struct emu_rep_string want;
};

static const struct rep_case cases[] = {
	{ "rep movsb", { 0xf3, 0xa4 }, 2, true, { 2, 8, 1, true, EMU_REP_COUNT, true, false, EMU_REP_SRC_FLAT } },
	{ "rep movsw", { 0x66, 0xf3, 0xa5 }, 3, true, { 3, 8, 2, true, EMU_REP_COUNT, true, false, EMU_REP_SRC_FLAT } },
	{ "rep stosq", { 0xf3, 0x48, 0xab }, 3, true, { 3, 8, 8, true, EMU_REP_COUNT, false, false, EMU_REP_SRC_FLAT } },
	{ "addr32 rep stosb", { 0x67, 0xf3, 0xaa }, 3, true, { 3, 4, 1, true, EMU_REP_COUNT, false, false, EMU_REP_SRC_FLAT } },
	{ "rep lodsb", { 0xf3, 0xac }, 2, true, { 2, 8, 1, false, EMU_REP_COUNT, true, false, EMU_REP_SRC_FLAT } },
	{ "repe cmpsb", { 0xf3, 0xa6 }, 2, true, { 2, 8, 1, false, EMU_REP_WHILE_EQUAL, true, true, EMU_REP_SRC_FLAT } },
	{ "repne scasb", { 0xf2, 0xae }, 2, true, { 2, 8, 1, false, EMU_REP_WHILE_NOT_EQUAL, false, true, EMU_REP_SRC_FLAT } },
	{ "repne scasd", { 0xf2, 0xaf }, 2, true, { 2, 8, 4, false, EMU_REP_WHILE_NOT_EQUAL, false, true, EMU_REP_SRC_FLAT } },
	{ "fs rep movsb", { 0x64, 0xf3, 0xa4 }, 3, true, { 3, 8, 1, true, EMU_REP_COUNT, true, false, EMU_REP_SRC_FS } },
	{ "gs rep lodsq", { 0x65, 0xf3, 0x48, 0xad }, 4, true, { 4, 8, 8, false, EMU_REP_COUNT, true, false, EMU_REP_SRC_GS } },
	{ "movsb", { 0xa4 }, 1, false, { 0 } },
	{ "rep ret", { 0xf3, 0xc3 }, 2, false, { 0 } },
	{ "pause", { 0xf3, 0x90 }, 2, false, { 0 } },
	{ "popcnt", { 0xf3, 0x0f, 0xb8, 0xc0 }, 4, false, { 0 } },
	{ "movsd xmm", { 0xf2, 0x0f, 0x10, 0xc1 }, 4, false, { 0 } },
	{ "a lone prefix", { 0xf3 }, 1, false, { 0 } },
};

START_TEST(test_rep_string)
{
	const struct rep_case *c = &cases[_i];
	struct emu_rep_string got;
	memset(&got, 0xee, sizeof got);
	bool is_rep = emu_rep_string(c->bytes, c->len, &got);
	ck_assert_msg(is_rep == c->is_rep, "%s: %d", c->name, is_rep);
	if (!is_rep)
		return;
	ck_assert_msg(got.len == c->want.len && got.addr_bytes == c->want.addr_bytes &&
			      got.elem_bytes == c->want.elem_bytes && got.writes == c->want.writes &&
			      got.until == c->want.until && got.reads_src == c->want.reads_src &&
			      got.reads_dst == c->want.reads_dst && got.src_base == c->want.src_base,
		      "%s: len %u addr %u elem %u writes %d until %d reads %d %d base %d", c->name, got.len,
		      got.addr_bytes, got.elem_bytes, got.writes, got.until, got.reads_src, got.reads_dst,
		      got.src_base);
}
END_TEST

static Suite *rep_string_suite(void)
{
	Suite *s = suite_create("emu_rep_string");
	TCase *tc = tcase_create("core");
	tcase_add_loop_test(tc, test_rep_string, 0, sizeof cases / sizeof cases[0]);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(rep_string_suite)
