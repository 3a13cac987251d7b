/*
 * test_emu_bitops.c — bt, bts, btr, btc, bsf, bsr, lzcnt, tzcnt, popcnt in
 * the emulator against the real CPU: register and immediate bit offsets,
 * memory operands addressed far outside the operand by signed register
 * offsets, LOCK forms (and their sync event), zero sources, random flags.
 */
#include "native_stub.h"
#include "check_main.h"

#define SEED 0x6269746f7073ull
#define ROUNDS 300

static const unsigned sizes[] = { 2, 4, 8 };

static const ZydisMnemonic bit_tests[] = {
	ZYDIS_MNEMONIC_BT, ZYDIS_MNEMONIC_BTS, ZYDIS_MNEMONIC_BTR, ZYDIS_MNEMONIC_BTC,
};

static const ZydisMnemonic bit_counts[] = {
	ZYDIS_MNEMONIC_BSF, ZYDIS_MNEMONIC_BSR, ZYDIS_MNEMONIC_TZCNT,
	ZYDIS_MNEMONIC_LZCNT, ZYDIS_MNEMONIC_POPCNT,
};

/* Random state with rsi a bit offset: small, around the operand width, or
 * signed up to +-(mem_span) bits, so memory forms stay in the stub area. */
static void random_offset_state(struct stub_ctx *c, struct stub_state *s, int64_t mem_span)
{
	stub_random_state(c, s);
	uint64_t r = stub_random(c);
	int64_t off;
	switch (r % 3) {
	case 0: off = (int64_t)(r >> 8) % 70; break;
	case 1: off = -(int64_t)((r >> 8) % 70); break;
	default: off = (int64_t)((r >> 8) % (2 * (uint64_t)mem_span)) - mem_span; break;
	}
	s->regs.gpr[EMU_RSI] = (uint64_t)off;
}

START_TEST(test_bit_test_registers)
{
	struct stub_ctx c;
	stub_init(&c, SEED + (uint64_t)_i);
	static struct stub_state in;
	uint8_t code[16];
	ZydisMnemonic m = bit_tests[_i];
	for (unsigned s = 0; s < 3; s++) {
		unsigned size = sizes[s];
		size_t len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_RBX, size),
					 stub_op_reg(EMU_RSI, size));
		for (int i = 0; i < ROUNDS; i++) {
			random_offset_state(&c, &in, 1000);
			in.regs.gpr[EMU_RSI] ^= stub_random(&c) << 16;
			stub_compare(&c, code, len, &in);
		}
		for (unsigned imm = 0; imm < 70; imm++) {
			len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_RDX, size), stub_op_imm(imm));
			for (int i = 0; i < 8; i++) {
				stub_random_state(&c, &in);
				stub_compare(&c, code, len, &in);
			}
			len = STUB_ENCODE(code, m, 0, stub_op_mem(32, size), stub_op_imm(imm));
			for (int i = 0; i < 8; i++) {
				stub_random_state(&c, &in);
				stub_compare(&c, code, len, &in);
			}
		}
	}
	stub_fini(&c);
}
END_TEST

/* Memory operand, register offset: the address moves by the signed offset
 * in operand-size units; with LOCK (not for bt) it is one sync event. */
START_TEST(test_bit_test_memory_far)
{
	struct stub_ctx c;
	stub_init(&c, SEED + 10 + (uint64_t)_i);
	static struct stub_state in;
	uint8_t code[16];
	ZydisMnemonic m = bit_tests[_i];
	for (unsigned s = 0; s < 3; s++) {
		unsigned size = sizes[s];
		for (int locked = 0; locked < (m == ZYDIS_MNEMONIC_BT ? 1 : 2); locked++) {
			size_t len = STUB_ENCODE(code, m, locked ? ZYDIS_ATTRIB_HAS_LOCK : 0,
						 stub_op_mem(-24, size), stub_op_reg(EMU_RSI, size));
			for (int i = 0; i < ROUNDS; i++) {
				random_offset_state(&c, &in, 30000);
				stub_compare(&c, code, len, &in);
				ck_assert_uint_eq(c.sync_events, (unsigned)locked);
			}
		}
	}
	stub_fini(&c);
}
END_TEST

START_TEST(test_bit_count)
{
	struct stub_ctx c;
	stub_init(&c, SEED + 20 + (uint64_t)_i);
	static struct stub_state in;
	uint8_t code[16];
	ZydisMnemonic m = bit_counts[_i];
	for (unsigned s = 0; s < 3; s++) {
		unsigned size = sizes[s];
		size_t reg_len = STUB_ENCODE(code, m, 0, stub_op_reg(EMU_RBX, size),
					     stub_op_reg(EMU_RSI, size));
		uint8_t mem_code[16];
		size_t mem_len = STUB_ENCODE(mem_code, m, 0, stub_op_reg(EMU_R12, size),
					     stub_op_mem(40, size));
		for (int i = 0; i < ROUNDS; i++) {
			stub_random_state(&c, &in);
			if (i % 4 == 0)
				in.regs.gpr[EMU_RSI] &= ~(size == 8 ? ~0ull : (1ull << (size * 8)) - 1);
			stub_compare(&c, code, reg_len, &in);
			if (i % 4 == 0)
				memset(in.mem + STUB_MEM_SIZE / 2 + 40, 0, size);
			stub_compare(&c, mem_code, mem_len, &in);
		}
	}
	stub_fini(&c);
}
END_TEST

static Suite *emu_bitops_suite(void)
{
	Suite *s = suite_create("emu_bitops");
	TCase *tc = tcase_create("bitops");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_bit_test_registers, 0, 4);
	tcase_add_loop_test(tc, test_bit_test_memory_far, 0, 4);
	tcase_add_loop_test(tc, test_bit_count, 0, 5);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_bitops_suite)
