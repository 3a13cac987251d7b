/*
 * test_emu_bmi.c — BMI1, BMI2 and ADX instructions in the emulator against
 * the real CPU: 32- and 64-bit forms, register and memory sources, edge
 * values, bextr/bzhi controls around and past the operand width, rorx
 * counts 0..70, random flags on entry.
 */
#include "native_stub.h"
#include "check_main.h"

#define SEED 0x626d69ull
#define ROUNDS 400

/* Where the r/m operand sits. */
enum shape {
	RM_LAST,          /* op r, r, r/m (andn pdep pext mulx) */
	RM_MIDDLE,        /* op r, r/m, r (bextr bzhi sarx shlx shrx) */
	RM_MIDDLE_IMM,    /* op r, r/m, imm8 (rorx) */
	RM_SECOND,        /* op r, r/m (blsi blsmsk blsr adcx adox) */
};

static const struct form {
	ZydisMnemonic mnemonic;
	enum shape shape;
} forms[] = {
	{ ZYDIS_MNEMONIC_ANDN, RM_LAST },    { ZYDIS_MNEMONIC_PDEP, RM_LAST },
	{ ZYDIS_MNEMONIC_PEXT, RM_LAST },    { ZYDIS_MNEMONIC_MULX, RM_LAST },
	{ ZYDIS_MNEMONIC_BEXTR, RM_MIDDLE }, { ZYDIS_MNEMONIC_BZHI, RM_MIDDLE },
	{ ZYDIS_MNEMONIC_SARX, RM_MIDDLE },  { ZYDIS_MNEMONIC_SHLX, RM_MIDDLE },
	{ ZYDIS_MNEMONIC_SHRX, RM_MIDDLE },  { ZYDIS_MNEMONIC_RORX, RM_MIDDLE_IMM },
	{ ZYDIS_MNEMONIC_BLSI, RM_SECOND },  { ZYDIS_MNEMONIC_BLSMSK, RM_SECOND },
	{ ZYDIS_MNEMONIC_BLSR, RM_SECOND },  { ZYDIS_MNEMONIC_ADCX, RM_SECOND },
	{ ZYDIS_MNEMONIC_ADOX, RM_SECOND },
};
#define N_FORMS (sizeof(forms) / sizeof(forms[0]))

/* Encodes the form with rbx as destination, rsi (or memory) as r/m, rcx as
 * the other register source (rdx doubles as mulx's second destination). */
static size_t encode_form(uint8_t *code, const struct form *f, unsigned size, bool mem,
			  uint64_t imm)
{
	ZydisEncoderOperand rm = mem ? stub_op_mem(-40, size) : stub_op_reg(EMU_RSI, size);
	ZydisEncoderOperand dst = stub_op_reg(EMU_RBX, size);
	ZydisEncoderOperand other = stub_op_reg(f->mnemonic == ZYDIS_MNEMONIC_MULX ? EMU_RDX
										    : EMU_RCX, size);
	switch (f->shape) {
	case RM_LAST: return STUB_ENCODE(code, f->mnemonic, 0, dst, other, rm);
	case RM_MIDDLE: return STUB_ENCODE(code, f->mnemonic, 0, dst, rm, other);
	case RM_MIDDLE_IMM: return STUB_ENCODE(code, f->mnemonic, 0, dst, rm, stub_op_imm(imm));
	default: return STUB_ENCODE(code, f->mnemonic, 0, dst, rm);
	}
}

/* Random state; rcx is often a bextr/bzhi control near the operand width. */
static void random_bmi_state(struct stub_ctx *c, struct stub_state *s)
{
	stub_random_state(c, s);
	if (stub_random(c) & 1) {
		uint64_t start = stub_random(c) % 72, len = stub_random(c) % 72;
		s->regs.gpr[EMU_RCX] = (stub_random(c) & ~0xffffull) | len << 8 | start;
	}
}

START_TEST(test_bmi_form)
{
	const struct form *f = &forms[_i];
	struct stub_ctx c;
	stub_init(&c, SEED + (uint64_t)_i);
	static struct stub_state in;
	uint8_t code[16];
	for (unsigned size = 4; size <= 8; size *= 2)
		for (int mem = 0; mem < 2; mem++) {
			unsigned imms = f->shape == RM_MIDDLE_IMM ? 71 : 1;
			for (unsigned imm = 0; imm < imms; imm++) {
				size_t len = encode_form(code, f, size, mem, imm);
				for (int i = 0; i < ROUNDS / (int)(imms > 1 ? 20 : 1); i++) {
					random_bmi_state(&c, &in);
					stub_compare(&c, code, len, &in);
				}
			}
		}
	stub_fini(&c);
}
END_TEST

/* mulx with both destinations the same register: it gets the high half. */
START_TEST(test_mulx_same_destinations)
{
	struct stub_ctx c;
	stub_init(&c, SEED + 100);
	static struct stub_state in;
	uint8_t code[16];
	for (unsigned size = 4; size <= 8; size *= 2) {
		size_t len = STUB_ENCODE(code, ZYDIS_MNEMONIC_MULX, 0, stub_op_reg(EMU_RBX, size),
					 stub_op_reg(EMU_RBX, size), stub_op_reg(EMU_RSI, size));
		for (int i = 0; i < ROUNDS; i++) {
			stub_random_state(&c, &in);
			stub_compare(&c, code, len, &in);
		}
	}
	stub_fini(&c);
}
END_TEST

static Suite *emu_bmi_suite(void)
{
	Suite *s = suite_create("emu_bmi");
	TCase *tc = tcase_create("bmi");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_bmi_form, 0, N_FORMS);
	tcase_add_test(tc, test_mulx_same_destinations);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_bmi_suite)
