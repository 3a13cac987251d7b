/*
 * ops_extend.c — sign extension within rax and into rdx:
 * cbw/cwde/cdqe (rax half into rax) and cwd/cdq/cqo (rax into rdx).
 * The operand size selects the width; op selects the destination.
 */
#include "binding.h"
#include "operand.h"

enum extend_op { EXTEND_IN_RAX, EXTEND_INTO_RDX };

static int extend(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opsize;
	uint64_t rax = cpu->regs.gpr[EMU_RAX];
	if (insn->op == EXTEND_IN_RAX) {
		uint64_t v = (uint64_t)emu_sign_extend(rax, size / 2);
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), size, v);
	} else {
		uint64_t v = emu_sign_extend(rax, size) < 0 ? ~0ull : 0;
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RDX), size, v);
	}
	return EMU_OK;
}

static const struct emu_binding extend_bindings[] = {
	{ ZYDIS_MNEMONIC_CBW, EXTEND_IN_RAX, extend, NULL },
	{ ZYDIS_MNEMONIC_CWDE, EXTEND_IN_RAX, extend, NULL },
	{ ZYDIS_MNEMONIC_CDQE, EXTEND_IN_RAX, extend, NULL },
	{ ZYDIS_MNEMONIC_CWD, EXTEND_INTO_RDX, extend, NULL },
	{ ZYDIS_MNEMONIC_CDQ, EXTEND_INTO_RDX, extend, NULL },
	{ ZYDIS_MNEMONIC_CQO, EXTEND_INTO_RDX, extend, NULL },
};

EMU_FAMILY(emu_family_extend, extend_bindings);
