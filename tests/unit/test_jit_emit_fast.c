/*
 * test_jit_emit_fast.c — the hand encoder of the translator's common host
 * instructions (emulator/jit_emit_fast.c) against Zydis's encoder: every
 * form it takes, over every register, every operand size, memory
 * operands with every base and index, each scale, and displacements and
 * immediates at the edges of their short forms, must give Zydis's bytes;
 * what it refuses must be something Zydis encodes anyway (jit_op then
 * asks Zydis). A form the hand encoder lays out differently fails here
 * with both encodings printed.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "emulator/jit_emit.h"
#include "emulator/jit_emit_fast.h"
#include "check_main.h"

/* Zydis's bytes of mn x, y, z through jit_op3 with the hand encoder out of
 * the way: jit_op3 tries it first, so the request is made here the same
 * way jit_emit.c makes it. */
static size_t zydis_bytes(uint8_t *out, ZydisMnemonic mn, const struct jit_opnd *ops)
{
	static const ZydisRegister r8[16] = {
		ZYDIS_REGISTER_AL, ZYDIS_REGISTER_CL, ZYDIS_REGISTER_DL, ZYDIS_REGISTER_BL,
		ZYDIS_REGISTER_SPL, ZYDIS_REGISTER_BPL, ZYDIS_REGISTER_SIL, ZYDIS_REGISTER_DIL,
		ZYDIS_REGISTER_R8B, ZYDIS_REGISTER_R9B, ZYDIS_REGISTER_R10B, ZYDIS_REGISTER_R11B,
		ZYDIS_REGISTER_R12B, ZYDIS_REGISTER_R13B, ZYDIS_REGISTER_R14B, ZYDIS_REGISTER_R15B,
	};
	ZydisEncoderRequest rq;
	memset(&rq, 0, sizeof(rq));
	rq.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	rq.mnemonic = mn;
	for (int i = 0; i < 3; i++) {
		const struct jit_opnd *x = &ops[i];
		ZydisEncoderOperand *o = &rq.operands[i];
		if (x->kind == JIT_NONE)
			continue;
		rq.operand_count++;
		if (x->kind == JIT_REG) {
			o->type = ZYDIS_OPERAND_TYPE_REGISTER;
			o->reg.value = x->size == 1   ? r8[x->reg]
				       : x->size == 2 ? (ZydisRegister)(ZYDIS_REGISTER_AX + x->reg)
				       : x->size == 4 ? (ZydisRegister)(ZYDIS_REGISTER_EAX + x->reg)
						      : (ZydisRegister)(ZYDIS_REGISTER_RAX + x->reg);
		} else if (x->kind == JIT_MEM) {
			o->type = ZYDIS_OPERAND_TYPE_MEMORY;
			o->mem.base = x->base < 0 ? ZYDIS_REGISTER_NONE : (ZydisRegister)(ZYDIS_REGISTER_RAX + x->base);
			o->mem.index = x->index < 0 ? ZYDIS_REGISTER_NONE : (ZydisRegister)(ZYDIS_REGISTER_RAX + x->index);
			o->mem.scale = x->index < 0 ? 0 : x->scale;
			o->mem.displacement = x->value;
			o->mem.size = x->size;
		} else {
			o->type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
			o->imm.s = x->value;
		}
	}
	ZyanUSize n = 16;
	if (!ZYAN_SUCCESS(ZydisEncoderEncodeInstruction(&rq, out, &n)))
		return 0;
	return n;
}

static unsigned compared, refused;

static void hex(char *s, const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		s += sprintf(s, "%02x ", b[i]);
	*s = 0;
}

static void compare(ZydisMnemonic mn, struct jit_opnd x, struct jit_opnd y)
{
	struct jit_opnd ops[3] = { x, y, jit_none() };
	uint8_t fast[JIT_FAST_MAX], slow[16];
	size_t nf = jit_encode_fast(fast, mn, x, y, jit_none());
	size_t ns = zydis_bytes(slow, mn, ops);
	if (!nf) {
		refused++;
		return;
	}
	compared++;
	if (nf != ns || memcmp(fast, slow, nf) != 0) {
		char a[64], b[64];
		hex(a, fast, nf);
		hex(b, slow, ns);
		ck_abort_msg("%s x(kind %d size %d reg %d base %d index %d scale %d value %lld) "
			     "y(kind %d size %d reg %d value %lld): hand %s, Zydis %s",
			     ZydisMnemonicGetString(mn), x.kind, x.size, x.reg, x.base, x.index, x.scale,
			     (long long)x.value, y.kind, y.size, y.reg, (long long)y.value, a, b);
	}
}

static const unsigned sizes[] = { 1, 2, 4, 8 };
static const int64_t disps[] = { 0, 1, -1, 127, -128, 128, -129, 0x1234, INT32_MAX, INT32_MIN };
static const int64_t imms[] = { 0, 1, 2, -1, 5, 127, -128, 128, -129, 255, 0x7fff, -0x8000,
				0x8000, 0x12345, INT32_MAX, INT32_MIN, (int64_t)INT32_MAX + 1,
				0x123456789ll, -0x123456789ll, INT64_MIN };

/* A few memory operands of every base (and every index with a few). */
static void each_mem(unsigned size, void (*f)(ZydisMnemonic, struct jit_opnd, struct jit_opnd),
		     ZydisMnemonic mn, struct jit_opnd other, bool mem_first)
{
	for (int base = 0; base < 16; base++)
		for (size_t d = 0; d < sizeof(disps) / sizeof(disps[0]); d++) {
			struct jit_opnd m = jit_m(base, JR_NONE, 0, disps[d], size);
			mem_first ? f(mn, m, other) : f(mn, other, m);
			if (d > 3)
				continue;
			for (int index = 0; index < 16; index++)
				for (unsigned sc = 1; sc <= 8; sc *= 2) {
					m = jit_m(base, index, sc, disps[d], size);
					mem_first ? f(mn, m, other) : f(mn, other, m);
				}
		}
}

/* Two-operand forms: r,r; r,m; m,r; r,imm; m,imm over all sizes. */
static void two_operand(ZydisMnemonic mn)
{
	for (size_t s = 0; s < 4; s++) {
		unsigned size = sizes[s];
		for (int a = 0; a < 16; a++) {
			for (int b = 0; b < 16; b++)
				compare(mn, jit_r(a, size), jit_r(b, size));
			for (size_t i = 0; i < sizeof(imms) / sizeof(imms[0]); i++)
				compare(mn, jit_r(a, size), jit_i(imms[i]));
			each_mem(size, compare, mn, jit_r(a, size), false);
			each_mem(size, compare, mn, jit_r(a, size), true);
		}
		for (size_t i = 0; i < sizeof(imms) / sizeof(imms[0]); i++)
			each_mem(size, compare, mn, jit_i(imms[i]), true);
	}
}

START_TEST(test_alu_mov_test)
{
	static const ZydisMnemonic mns[] = {
		ZYDIS_MNEMONIC_ADD, ZYDIS_MNEMONIC_OR, ZYDIS_MNEMONIC_ADC, ZYDIS_MNEMONIC_SBB,
		ZYDIS_MNEMONIC_AND, ZYDIS_MNEMONIC_SUB, ZYDIS_MNEMONIC_XOR, ZYDIS_MNEMONIC_CMP,
		ZYDIS_MNEMONIC_MOV, ZYDIS_MNEMONIC_TEST,
	};
	for (size_t i = 0; i < sizeof(mns) / sizeof(mns[0]); i++)
		two_operand(mns[i]);
}
END_TEST

START_TEST(test_shifts)
{
	static const ZydisMnemonic mns[] = { ZYDIS_MNEMONIC_ROL, ZYDIS_MNEMONIC_ROR, ZYDIS_MNEMONIC_SHL,
					     ZYDIS_MNEMONIC_SHR, ZYDIS_MNEMONIC_SAR };
	for (size_t i = 0; i < sizeof(mns) / sizeof(mns[0]); i++)
		for (size_t s = 0; s < 4; s++)
			for (int64_t c = -1; c <= 256; c++) {
				for (int a = 0; a < 16; a++)
					compare(mns[i], jit_r(a, sizes[s]), jit_i(c));
				if (c < 3)
					each_mem(sizes[s], compare, mns[i], jit_i(c), true);
			}
}
END_TEST

START_TEST(test_lea_bt_extend)
{
	for (size_t s = 0; s < 4; s++)
		for (int a = 0; a < 16; a++) {
			each_mem(sizes[s], compare, ZYDIS_MNEMONIC_LEA, jit_r(a, sizes[s]), false);
			for (int b = 0; b < 16; b++)
				compare(ZYDIS_MNEMONIC_BT, jit_r(a, sizes[s]), jit_r(b, sizes[s]));
			each_mem(sizes[s], compare, ZYDIS_MNEMONIC_BT, jit_r(a, sizes[s]), true);
			for (size_t t = 0; t < 4; t++) {
				static const ZydisMnemonic ext[] = { ZYDIS_MNEMONIC_MOVZX, ZYDIS_MNEMONIC_MOVSX,
								     ZYDIS_MNEMONIC_MOVSXD };
				for (size_t e = 0; e < 3; e++) {
					for (int b = 0; b < 16; b++)
						compare(ext[e], jit_r(a, sizes[s]), jit_r(b, sizes[t]));
					each_mem(sizes[t], compare, ext[e], jit_r(a, sizes[s]), false);
				}
			}
		}
}
END_TEST

START_TEST(test_one_operand)
{
	static const ZydisMnemonic mns[] = { ZYDIS_MNEMONIC_CALL, ZYDIS_MNEMONIC_JMP, ZYDIS_MNEMONIC_PUSH,
					     ZYDIS_MNEMONIC_POP };
	for (size_t i = 0; i < sizeof(mns) / sizeof(mns[0]); i++)
		for (size_t s = 0; s < 4; s++) {
			for (int a = 0; a < 16; a++)
				compare(mns[i], jit_r(a, sizes[s]), jit_none());
			each_mem(sizes[s], compare, mns[i], jit_none(), true);
		}
	compare(ZYDIS_MNEMONIC_RET, jit_none(), jit_none());
}
END_TEST

/* The forms the translator emits most are taken by the hand encoder, not
 * all left to Zydis (which would pass every comparison above). */
START_TEST(test_common_forms_taken)
{
	uint8_t out[JIT_FAST_MAX];
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 8),
					  jit_m(JR_R15, JR_NONE, 0, 0x40, 8), jit_none()), 4);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 4), jit_i(7), jit_none()), 5);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_CALL, jit_r(JR_RAX, 8), jit_none(), jit_none()), 2);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_PUSH, jit_r(JR_R12, 8), jit_none(), jit_none()), 2);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_ADD, jit_m(JR_RBX, JR_NONE, 0, 8, 8), jit_i(1),
					  jit_none()), 5);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_RET, jit_none(), jit_none(), jit_none()), 1);
	/* Forms and operands it leaves to Zydis. */
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RAX, 8), jit_r(JR_RCX, 8),
					  jit_i(3)), 0);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 8),
					  jit_m(JR_NONE, JR_NONE, 0, 0x1000, 8), jit_none()), 0);
	ck_assert_uint_eq(jit_encode_fast(out, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 8),
					  jit_m(JR_RAX, JR_RSP, 1, 0, 8), jit_none()), 0);
}
END_TEST

/* Not vacuous: most comparisons were of hand-encoded bytes. */
START_TEST(test_counts)
{
	compared = refused = 0;
	two_operand(ZYDIS_MNEMONIC_ADD);
	ck_assert_uint_gt(compared, 3 * refused);
}
END_TEST

static Suite *jit_emit_fast_suite(void)
{
	Suite *s = suite_create("jit_emit_fast");
	TCase *tc = tcase_create("against_zydis");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_alu_mov_test);
	tcase_add_test(tc, test_shifts);
	tcase_add_test(tc, test_lea_bt_extend);
	tcase_add_test(tc, test_one_operand);
	tcase_add_test(tc, test_common_forms_taken);
	tcase_add_test(tc, test_counts);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(jit_emit_fast_suite)
