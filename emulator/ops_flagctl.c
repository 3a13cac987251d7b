/*
 * ops_flagctl.c — instructions that only move flags: clc stc cmc cld std,
 * lahf sahf. One handler sets, clears or complements one flag (the op is
 * the flag and the action); lahf/sahf move SF ZF AF PF CF through ah.
 */
#include "binding.h"
#include "operand.h"

enum flag_action { FLAG_CLEAR, FLAG_SET, FLAG_COMPLEMENT };

/* op = action in the low 2 bits, flag bit number above. */
#define FLAG_OP(action, bit) ((uint8_t)((action) | ((bit) << 2)))

static int flag_change(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t bit = 1ull << (insn->op >> 2);
	emu_flags_materialise(cpu);
	switch (insn->op & 3) {
	case FLAG_CLEAR: cpu->regs.rflags &= ~bit; break;
	case FLAG_SET: cpu->regs.rflags |= bit; break;
	default: cpu->regs.rflags ^= bit; break;
	}
	return EMU_OK;
}

#define AH_FLAGS (EMU_SF | EMU_ZF | EMU_AF | EMU_PF | EMU_CF)
#define AH_OFF (EMU_GPR_OFF(EMU_RAX) + 1)

static int lahf(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)insn;
	emu_gpr_set(cpu, AH_OFF, 1, (emu_rflags(cpu) & AH_FLAGS) | 2);
	return EMU_OK;
}

static int sahf(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)insn;
	emu_set_flags_masked(cpu, emu_gpr_get(cpu, AH_OFF, 1), AH_FLAGS);
	return EMU_OK;
}

static const struct emu_binding flagctl_bindings[] = {
	{ ZYDIS_MNEMONIC_CLC, FLAG_OP(FLAG_CLEAR, 0), flag_change, NULL },
	{ ZYDIS_MNEMONIC_STC, FLAG_OP(FLAG_SET, 0), flag_change, NULL },
	{ ZYDIS_MNEMONIC_CMC, FLAG_OP(FLAG_COMPLEMENT, 0), flag_change, NULL },
	{ ZYDIS_MNEMONIC_CLD, FLAG_OP(FLAG_CLEAR, 10), flag_change, NULL },
	{ ZYDIS_MNEMONIC_STD, FLAG_OP(FLAG_SET, 10), flag_change, NULL },
	{ ZYDIS_MNEMONIC_LAHF, 0, lahf, NULL },
	{ ZYDIS_MNEMONIC_SAHF, 0, sahf, NULL },
};

EMU_FAMILY(emu_family_flagctl, flagctl_bindings);
