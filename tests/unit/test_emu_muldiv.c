/*
 * test_emu_muldiv.c — mul, imul, div and idiv in the emulator against the
 * real CPU: every form and operand size, register and memory operands,
 * edge values and seeded random operands with random flags on entry;
 * division faults (#DE) must leave the state untouched.
 */
#include "native_stub.h"
#include "check_main.h"

#define SEED 0x6d756c646976ull
#define ROUNDS 400

static const unsigned sizes[] = { 1, 2, 4, 8 };

/* Operand registers worth trying: ordinary ones, the implicit operands
 * themselves, an extended one; EMU_GPR_COUNT + 3 is bh for bytes. */
static const unsigned operand_regs[] = { EMU_RBX, EMU_RCX, EMU_RAX, EMU_RDX, EMU_R9,
					 EMU_GPR_COUNT + 3 };

/* Random state; for divisions, a high half that is often small enough for
 * the quotient to fit, so both outcomes are well covered. */
static void random_operands(struct stub_ctx *c, struct stub_state *s, bool division)
{
	stub_random_state(c, s);
	if (division && (stub_random(c) & 1))
		s->regs.gpr[EMU_RDX] = stub_random(c) & 0xf;
	if (division && (stub_random(c) & 1))
		s->regs.gpr[EMU_RAX] &= 0x7fff; /* AH small for byte divisions */
}

static void compare_rounds(struct stub_ctx *c, const uint8_t *code, size_t len,
			   bool division)
{
	static struct stub_state in;
	for (int i = 0; i < ROUNDS; i++) {
		random_operands(c, &in, division);
		stub_compare(c, code, len, &in);
	}
}

static void one_operand_forms(ZydisMnemonic mnemonic, bool division)
{
	struct stub_ctx c;
	stub_init(&c, SEED + mnemonic);
	uint8_t code[16];
	for (unsigned s = 0; s < 4; s++) {
		unsigned size = sizes[s];
		for (unsigned r = 0; r < sizeof(operand_regs) / sizeof(operand_regs[0]); r++) {
			if (operand_regs[r] >= EMU_GPR_COUNT && size != 1)
				continue;
			size_t len = STUB_ENCODE(code, mnemonic, 0, stub_op_reg(operand_regs[r], size));
			compare_rounds(&c, code, len, division);
		}
		size_t len = STUB_ENCODE(code, mnemonic, 0, stub_op_mem(8, size));
		compare_rounds(&c, code, len, division);
	}
	stub_fini(&c);
}

START_TEST(test_mul) { one_operand_forms(ZYDIS_MNEMONIC_MUL, false); }
END_TEST
START_TEST(test_imul_one_operand) { one_operand_forms(ZYDIS_MNEMONIC_IMUL, false); }
END_TEST
START_TEST(test_div) { one_operand_forms(ZYDIS_MNEMONIC_DIV, true); }
END_TEST
START_TEST(test_idiv) { one_operand_forms(ZYDIS_MNEMONIC_IDIV, true); }
END_TEST

START_TEST(test_imul_two_and_three_operands)
{
	struct stub_ctx c;
	stub_init(&c, SEED + 2);
	uint8_t code[16];
	static const int64_t imms[] = { 0, 1, 127, -128, -1, 0x1234, -0x1234, 0x7fff, -0x8000,
					0x7fffffff, -0x7fffffff - 1 };
	for (unsigned s = 1; s < 4; s++) {
		unsigned size = sizes[s];
		size_t len = STUB_ENCODE(code, ZYDIS_MNEMONIC_IMUL, 0, stub_op_reg(EMU_RCX, size),
					 stub_op_reg(EMU_RBX, size));
		compare_rounds(&c, code, len, false);
		len = STUB_ENCODE(code, ZYDIS_MNEMONIC_IMUL, 0, stub_op_reg(EMU_RCX, size),
				  stub_op_reg(EMU_RCX, size));
		compare_rounds(&c, code, len, false);
		len = STUB_ENCODE(code, ZYDIS_MNEMONIC_IMUL, 0, stub_op_reg(EMU_R10, size),
				  stub_op_mem(-16, size));
		compare_rounds(&c, code, len, false);
		for (unsigned i = 0; i < sizeof(imms) / sizeof(imms[0]); i++) {
			int64_t imm = imms[i];
			if (size == 2 && (imm > 0x7fff || imm < -0x8000))
				continue;
			len = STUB_ENCODE(code, ZYDIS_MNEMONIC_IMUL, 0, stub_op_reg(EMU_RDX, size),
					  stub_op_reg(EMU_RSI, size), stub_op_imm((uint64_t)imm));
			compare_rounds(&c, code, len, false);
			len = STUB_ENCODE(code, ZYDIS_MNEMONIC_IMUL, 0, stub_op_reg(EMU_RDX, size),
					  stub_op_mem(24, size), stub_op_imm((uint64_t)imm));
			compare_rounds(&c, code, len, false);
		}
	}
	stub_fini(&c);
}
END_TEST

/* A divide error changes nothing, and the emulator reports it as #DE at
 * the instruction. */
START_TEST(test_divide_errors)
{
	struct stub_ctx c;
	stub_init(&c, SEED + 3);
	uint8_t code[16];
	static struct stub_state in, native;
	for (unsigned s = 0; s < 4; s++) {
		unsigned size = sizes[s];
		ZydisMnemonic m[2] = { ZYDIS_MNEMONIC_DIV, ZYDIS_MNEMONIC_IDIV };
		for (unsigned k = 0; k < 2; k++) {
			size_t len = STUB_ENCODE(code, m[k], 0, stub_op_reg(EMU_RBX, size));
			/* Zero divisor. */
			stub_random_state(&c, &in);
			in.regs.gpr[EMU_RBX] = 0;
			stub_compare_masked(&c, code, len, &in, EMU_STATUS_FLAGS, &native);
			ck_assert_int_eq(native.fault, EMU_FAULT_DE);
			/* Quotients that do not fit: a high half of 1 over 1
			 * unsigned, the most negative dividend over -1 signed. */
			stub_random_state(&c, &in);
			bool is_signed = m[k] == ZYDIS_MNEMONIC_IDIV;
			uint64_t high = is_signed ? 1ull << (size * 8 - 1) : 1;
			in.regs.gpr[EMU_RBX] = is_signed ? ~0ull : 1;
			if (size == 1) {
				in.regs.gpr[EMU_RAX] = high << 8;
			} else {
				in.regs.gpr[EMU_RAX] = 0;
				in.regs.gpr[EMU_RDX] = high;
			}
			stub_compare_masked(&c, code, len, &in, EMU_STATUS_FLAGS, &native);
			ck_assert_int_eq(native.fault, EMU_FAULT_DE);
		}
	}
	stub_fini(&c);
}
END_TEST

static Suite *emu_muldiv_suite(void)
{
	Suite *s = suite_create("emu_muldiv");
	TCase *tc = tcase_create("muldiv");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_mul);
	tcase_add_test(tc, test_imul_one_operand);
	tcase_add_test(tc, test_imul_two_and_three_operands);
	tcase_add_test(tc, test_div);
	tcase_add_test(tc, test_idiv);
	tcase_add_test(tc, test_divide_errors);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_muldiv_suite)
