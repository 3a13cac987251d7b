/*
 * test_emu_sse_string.c — pcmpestri/pcmpestrm/pcmpistri/pcmpistrm in every
 * imm8 mode and crc32 at every width, run natively and in the emulator on
 * the same bytes and states (fp_stub.h), over structured strings (small
 * alphabets, embedded terminators, lengths around and beyond the element
 * count, negative lengths) and random ones.
 */
#include "check_main.h"
#include "fp_stub.h"

#define STRING_CASES 24

/* Bytes from a small alphabet, so that matches and ranges hit often, with
 * sometimes a terminator at a random place. */
static void structured_string(uint8_t *p)
{
	static const uint8_t alphabet[] = { 'a', 'b', 'c', 'z', 0x80, 0xff, 0x7f, 0x01 };
	unsigned mode = (unsigned)(fp_rand() % 4);
	for (int i = 0; i < 16; i++)
		p[i] = mode == 0 ? (uint8_t)fp_rand() : alphabet[fp_rand() % (mode == 1 ? 2 : 8)];
	if (fp_rand() % 2)
		p[fp_rand() % 16] = 0;
	if (fp_rand() % 4 == 0) /* a word terminator too */
		p[(fp_rand() % 8) * 2] = p[(fp_rand() % 8) * 2 + 1] = 0;
}

static uint64_t random_length(void)
{
	static const int64_t edges[] = { 0, 1, 7, 8, 9, 15, 16, 17, -1, -8, -9, -16, -17,
					 INT32_MIN, INT32_MAX, INT64_MIN, 0x100000003ll };
	if (fp_rand() % 2)
		return (uint64_t)edges[fp_rand() % (sizeof(edges) / sizeof(edges[0]))];
	return fp_rand() % 20;
}

static void string_state(struct fp_state *s)
{
	fp_random_state(s, FP_BYTES);
	structured_string(s->ymm[1]);
	structured_string(s->ymm[3]);
	structured_string(s->mem);
	if (fp_rand() % 4 == 0) /* the needle taken from the text */
		memcpy(s->ymm[1], s->ymm[3] + fp_rand() % 8, 8);
	s->gpr[0] = random_length();
	s->gpr[2] = random_length();
}

static unsigned check_strings(struct fp_harness *h, struct fp_insn in)
{
	unsigned failed = 0;
	struct fp_state s;
	fp_begin_form(h, &in);
	for (int c = 0; c < STRING_CASES; c++) {
		string_state(&s);
		failed += !fp_check(h, &s);
	}
	return failed;
}

/* The legacy encoding with REX.W inserted after the 0x66 prefix: 64-bit
 * explicit lengths. */
static struct fp_insn with_rex_w(struct fp_insn in)
{
	memmove(in.bytes + 2, in.bytes + 1, in.len - 1);
	in.bytes[1] = 0x48;
	in.len++;
	emu_disassemble(0, in.bytes, in.len, in.text, sizeof(in.text));
	return in;
}

START_TEST(test_pcmpstr_all_modes)
{
	static const ZydisMnemonic ops[][2] = {
		{ ZYDIS_MNEMONIC_PCMPESTRI, ZYDIS_MNEMONIC_VPCMPESTRI },
		{ ZYDIS_MNEMONIC_PCMPESTRM, ZYDIS_MNEMONIC_VPCMPESTRM },
		{ ZYDIS_MNEMONIC_PCMPISTRI, ZYDIS_MNEMONIC_VPCMPISTRI },
		{ ZYDIS_MNEMONIC_PCMPISTRM, ZYDIS_MNEMONIC_VPCMPISTRM },
	};
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(21);
	unsigned failed = 0;
	for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
		for (unsigned imm = 0; imm < 256; imm++) {
			/* imm8 bit 7 is ignored: cover it for one instruction. */
			if (imm >= 128 && k != 0)
				break;
			for (int mem = 0; mem < 2; mem++) {
				ZydisEncoderOperand o[3] = {
					fp_reg(ZYDIS_REGISTER_XMM1),
					mem ? fp_mem(16) : fp_reg(ZYDIS_REGISTER_XMM3), fp_imm(imm),
				};
				struct fp_insn legacy = fp_encode(ops[k][0], false, 3, o);
				failed += check_strings(&h, legacy);
				failed += check_strings(&h, fp_encode(ops[k][1], true, 3, o));
				if (k < 2)
					failed += check_strings(&h, with_rex_w(legacy));
			}
		}
	fp_begin_form(&h, NULL);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

START_TEST(test_crc32)
{
	static const ZydisRegister dst[] = { ZYDIS_REGISTER_EBX, ZYDIS_REGISTER_RBX };
	static const ZydisRegister src[] = { ZYDIS_REGISTER_CL, ZYDIS_REGISTER_CX,
					     ZYDIS_REGISTER_ECX, ZYDIS_REGISTER_RCX };
	struct fp_harness h;
	fp_harness_init(&h);
	fp_seed(22);
	unsigned failed = 0;
	for (int d = 0; d < 2; d++)
		for (int s = 0; s < 4; s++) {
			/* The 64-bit destination takes 8- and 64-bit sources. */
			if (d == 1 && (s == 1 || s == 2))
				continue;
			if (d == 0 && s == 3)
				continue;
			unsigned size = 1u << s;
			ZydisEncoderOperand reg[2] = { fp_reg(dst[d]), fp_reg(src[s]) };
			ZydisEncoderOperand mem[2] = { fp_reg(dst[d]), fp_mem(size) };
			struct fp_insn forms[2] = {
				fp_encode(ZYDIS_MNEMONIC_CRC32, false, 2, reg),
				fp_encode(ZYDIS_MNEMONIC_CRC32, false, 2, mem),
			};
			for (int f = 0; f < 2; f++) {
				fp_begin_form(&h, &forms[f]);
				struct fp_state st;
				for (int c = 0; c < 500; c++) {
					fp_random_state(&st, FP_BYTES);
					failed += !fp_check(&h, &st);
				}
			}
		}
	fp_begin_form(&h, NULL);
	fp_harness_fini(&h);
	ck_assert_uint_eq(failed, 0);
}
END_TEST

static Suite *emu_sse_string_suite(void)
{
	Suite *s = suite_create("emu_sse_string");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_pcmpstr_all_modes);
	tcase_add_test(tc, test_crc32);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_sse_string_suite)
