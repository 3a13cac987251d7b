/*
 * fp_forms.h — the encodings an SSE/AVX instruction is tested in: its legacy
 * form with a register and a memory source, and its VEX forms at 128 and
 * (packed only) 256 bits, each with a register and a memory source.
 * Registers: destination xmm1/ymm1, first source xmm2/ymm2 (VEX), last
 * source xmm3/ymm3 or [rsi].
 */
#ifndef TTREC_TESTS_FP_FORMS_H
#define TTREC_TESTS_FP_FORMS_H

#include "fp_stub.h"

enum { FP_MAX_FORMS = 8, FP_NO_IMM = -1 };

struct fp_form_spec {
	ZydisMnemonic legacy, vex; /* ZYDIS_MNEMONIC_INVALID: no such form */
	unsigned src_size;         /* bytes of the last source at 128 bits */
	bool has_256;              /* a VEX.256 form exists */
	bool two_operand_vex;      /* VEX form without a separate first source */
	int imm;                   /* an immediate operand, or FP_NO_IMM */
};

static inline ZydisRegister fp_vreg(unsigned width, unsigned n)
{
	return (width == 32 ? ZYDIS_REGISTER_YMM0 : ZYDIS_REGISTER_XMM0) + n;
}

/* Fills out[] with the forms of spec; returns how many. */
static inline unsigned fp_forms(const struct fp_form_spec *spec, struct fp_insn *out)
{
	unsigned n = 0;
	for (int mem = 0; mem < 2; mem++) {
		ZydisEncoderOperand ops[4];
		unsigned k = 0;
		if (spec->legacy != ZYDIS_MNEMONIC_INVALID) {
			ops[k++] = fp_reg(ZYDIS_REGISTER_XMM1);
			ops[k++] = mem ? fp_mem(spec->src_size) : fp_reg(ZYDIS_REGISTER_XMM3);
			if (spec->imm != FP_NO_IMM)
				ops[k++] = fp_imm((uint64_t)spec->imm);
			out[n++] = fp_encode(spec->legacy, false, k, ops);
		}
		if (spec->vex == ZYDIS_MNEMONIC_INVALID)
			continue;
		for (unsigned width = 16; width <= (spec->has_256 ? 32u : 16u); width += 16) {
			k = 0;
			ops[k++] = fp_reg(fp_vreg(width, 1));
			if (!spec->two_operand_vex)
				ops[k++] = fp_reg(fp_vreg(width, 2));
			ops[k++] = mem ? fp_mem(spec->src_size * (width / 16))
				       : fp_reg(fp_vreg(width, 3));
			if (spec->imm != FP_NO_IMM)
				ops[k++] = fp_imm((uint64_t)spec->imm);
			out[n++] = fp_encode(spec->vex, true, k, ops);
		}
	}
	return n;
}

/* Runs every form of spec over `cases` random states; returns failures. */
static inline unsigned fp_check_spec(struct fp_harness *h, const struct fp_form_spec *spec,
				     enum fp_elem kind, unsigned cases)
{
	struct fp_insn forms[FP_MAX_FORMS];
	unsigned n = fp_forms(spec, forms), failed = 0;
	for (unsigned i = 0; i < n; i++) {
		fp_begin_form(h, &forms[i]);
		failed += fp_check_random(h, kind, cases);
	}
	fp_begin_form(h, NULL);
	return failed;
}

#endif
