/*
 * test_emu_shift.c — shifts, rotates and double shifts in the emulator
 * against the real CPU: every operation and operand size, counts 0..70 by
 * cl and by imm8, the by-1 encoding, register (including ah..bh) and memory
 * destinations, edge values and random flags on entry.
 */
#include "native_stub.h"
#include "check_main.h"

#define SEED 0x7368696674ull
#define MAX_COUNT 70
#define STATES_PER_COUNT 16

static const unsigned sizes[] = { 1, 2, 4, 8 };

static const ZydisMnemonic shifts[] = {
	ZYDIS_MNEMONIC_SHL, ZYDIS_MNEMONIC_SHR, ZYDIS_MNEMONIC_SAR, ZYDIS_MNEMONIC_ROL,
	ZYDIS_MNEMONIC_ROR, ZYDIS_MNEMONIC_RCL, ZYDIS_MNEMONIC_RCR,
};
#define N_SHIFTS (sizeof(shifts) / sizeof(shifts[0]))

/* Compares `code` from several random states with cl = count. */
static void compare_with_count(struct stub_ctx *c, const uint8_t *code, size_t len,
			       unsigned count)
{
	static struct stub_state in;
	for (int i = 0; i < STATES_PER_COUNT; i++) {
		stub_random_state(c, &in);
		in.regs.gpr[EMU_RCX] = (stub_random(c) & ~0xffull) | count;
		stub_compare(c, code, len, &in);
	}
}

/* _i: index into shifts[] (the loop test runs once per operation). */
START_TEST(test_shift_by_cl)
{
	struct stub_ctx c;
	stub_init(&c, SEED + (uint64_t)_i);
	uint8_t code[16];
	ZydisMnemonic m = shifts[_i];
	for (unsigned s = 0; s < 4; s++) {
		size_t reg_len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_RBX, sizes[s]),
					     stub_op_reg(EMU_RCX, 1));
		for (unsigned count = 0; count <= MAX_COUNT; count++)
			compare_with_count(&c, code, reg_len, count);
		size_t mem_len = STUB_ENCODE(code, m, 0, stub_op_mem(-8, sizes[s]),
					     stub_op_reg(EMU_RCX, 1));
		for (unsigned count = 0; count <= MAX_COUNT; count++)
			compare_with_count(&c, code, mem_len, count);
	}
	/* A high-byte destination. */
	size_t len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_GPR_COUNT + 2, 1),
				 stub_op_reg(EMU_RCX, 1));
	for (unsigned count = 0; count <= 40; count++)
		compare_with_count(&c, code, len, count);
	stub_fini(&c);
}
END_TEST

START_TEST(test_shift_by_imm)
{
	struct stub_ctx c;
	stub_init(&c, SEED + 100 + (uint64_t)_i);
	uint8_t code[16];
	ZydisMnemonic m = shifts[_i];
	for (unsigned s = 0; s < 4; s++)
		for (unsigned count = 0; count <= MAX_COUNT; count++) {
			size_t len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_RSI, sizes[s]),
						 stub_op_imm(count));
			compare_with_count(&c, code, len, 0);
		}
	stub_fini(&c);
}
END_TEST

/* The three encodings of a count of 1: D1 /r, C1 /r ib 1, and D3 /r with
 * cl = 1, on 32-bit ebx; /r is the operation's ModRM reg field. */
START_TEST(test_shift_count_one_encodings)
{
	static const uint8_t reg_field[N_SHIFTS] = { 4, 5, 7, 0, 1, 2, 3 };
	struct stub_ctx c;
	stub_init(&c, SEED + 200);
	for (unsigned k = 0; k < N_SHIFTS; k++) {
		uint8_t modrm = (uint8_t)(0xc0 | reg_field[k] << 3 | EMU_RBX);
		const uint8_t by_one[] = { 0xd1, modrm };
		const uint8_t by_imm[] = { 0xc1, modrm, 1 };
		const uint8_t by_cl[] = { 0xd3, modrm };
		compare_with_count(&c, by_one, sizeof(by_one), 0);
		compare_with_count(&c, by_imm, sizeof(by_imm), 0);
		compare_with_count(&c, by_cl, sizeof(by_cl), 1);
	}
	stub_fini(&c);
}
END_TEST

/* shld (_i = 0) and shrd (_i = 1) by cl and by imm8, 16/32/64-bit, register
 * and memory destinations. */
START_TEST(test_double_shift)
{
	ZydisMnemonic m = _i ? ZYDIS_MNEMONIC_SHRD : ZYDIS_MNEMONIC_SHLD;
	struct stub_ctx c;
	stub_init(&c, SEED + 300 + (uint64_t)_i);
	uint8_t code[16];
	for (unsigned s = 1; s < 4; s++) {
		unsigned size = sizes[s];
		size_t len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_RBX, size),
					 stub_op_reg(EMU_RSI, size), stub_op_reg(EMU_RCX, 1));
		for (unsigned count = 0; count <= MAX_COUNT; count++)
			compare_with_count(&c, code, len, count);
		len = STUB_ENCODE(code, m, 0, stub_op_mem(16, size), stub_op_reg(EMU_RDX, size),
				  stub_op_reg(EMU_RCX, 1));
		for (unsigned count = 0; count <= MAX_COUNT; count++)
			compare_with_count(&c, code, len, count);
		for (unsigned count = 0; count <= MAX_COUNT; count++) {
			len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_R11, size),
					  stub_op_reg(EMU_RAX, size), stub_op_imm(count));
			compare_with_count(&c, code, len, 0);
		}
	}
	stub_fini(&c);
}
END_TEST

static Suite *emu_shift_suite(void)
{
	Suite *s = suite_create("emu_shift");
	TCase *tc = tcase_create("shift");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_shift_by_cl, 0, N_SHIFTS);
	tcase_add_loop_test(tc, test_shift_by_imm, 0, N_SHIFTS);
	tcase_add_test(tc, test_shift_count_one_encodings);
	tcase_add_loop_test(tc, test_double_shift, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_shift_suite)
