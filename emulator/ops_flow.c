/*
 * ops_flow.c — near control transfers: jmp, jcc, call, ret, loop family,
 * jrcxz/jecxz. Relative targets were resolved to absolute addresses by the
 * decoder (insn->imm).
 */
#include "binding.h"
#include "operand.h"

static int jump_to(struct emu_cpu *cpu, const struct emu_insn *insn,
		   enum emu_flow kind, uint64_t target)
{
	cpu->regs.rip = target;
	emu_note_flow(cpu, kind, insn->addr, target);
	return EMU_OK;
}

static int jmp(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t target;
	int r = emu_opnd_read(cpu, insn, 0, &target);
	if (r != EMU_OK)
		return r;
	return jump_to(cpu, insn, EMU_FLOW_JUMP, target);
}

static inline __attribute__((always_inline)) int jcc(struct emu_cpu *cpu,
							 const struct emu_insn *insn, unsigned cc)
{
	if (emu_cond(cpu, cc))
		return jump_to(cpu, insn, EMU_FLOW_BRANCH_TAKEN, insn->imm);
	return EMU_OK;
}
EMU_CONDITION_HANDLERS(jcc, jcc)

static emu_handler *bind_jcc(struct emu_insn *insn)
{
	return jcc_by_condition[insn->op & 15];
}

int emu_jcc_condition(const struct emu_insn *insn)
{
	unsigned cc = insn->op & 15;
	return insn->handler == jcc_by_condition[cc] ? (int)cc : -1;
}

static int call(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t target;
	int r = emu_opnd_read(cpu, insn, 0, &target);
	if (r != EMU_OK)
		return r;
	if ((r = emu_push(cpu, cpu->regs.rip, 8)) != EMU_OK)
		return r;
	return jump_to(cpu, insn, EMU_FLOW_CALL, target);
}

/* ret and ret imm16 (the immediate releases that many extra stack bytes). */
static int ret(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t target;
	int r = emu_pop(cpu, &target, 8);
	if (r != EMU_OK)
		return r;
	if (insn->nopnd == 1)
		cpu->regs.gpr[EMU_RSP] += insn->imm & 0xffff;
	return jump_to(cpu, insn, EMU_FLOW_RET, target);
}

/* Near transfers only: far ones change cs and are left to the CPU. */
static emu_handler *bind_near(struct emu_insn *insn)
{
	if (insn->attr & EMU_ATTR_FAR)
		return NULL;
	if (insn->nopnd >= 1 && insn->opnd[0].kind != EMU_OPND_IMM && insn->opnd[0].size != 8)
		return NULL;
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_JMP: return jmp;
	case ZYDIS_MNEMONIC_CALL: return call;
	default: return ret;
	}
}

enum loop_op { LOOP_ALWAYS, LOOP_WHILE_EQUAL, LOOP_WHILE_NOT_EQUAL, JUMP_IF_COUNT_ZERO };

/* loop/loope/loopne decrement the count register (rcx, or ecx with a 0x67
 * prefix) without touching flags; jrcxz/jecxz only test it. */
static int loop_family(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned width = insn->mem.addr32 ? 4 : 8;
	uint64_t count = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RCX), width);
	bool taken;
	if (insn->op == JUMP_IF_COUNT_ZERO) {
		taken = count == 0;
	} else {
		count = (count - 1) & emu_size_mask(width);
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RCX), width, count);
		bool zf = emu_rflags(cpu) & EMU_ZF;
		taken = count != 0 &&
			(insn->op == LOOP_ALWAYS ||
			 (insn->op == LOOP_WHILE_EQUAL && zf) ||
			 (insn->op == LOOP_WHILE_NOT_EQUAL && !zf));
	}
	if (taken)
		return jump_to(cpu, insn, EMU_FLOW_BRANCH_TAKEN, insn->imm);
	return EMU_OK;
}

static const struct emu_binding flow_bindings[] = {
	{ ZYDIS_MNEMONIC_JMP, 0, NULL, bind_near },
	{ ZYDIS_MNEMONIC_CALL, 0, NULL, bind_near },
	{ ZYDIS_MNEMONIC_RET, 0, NULL, bind_near },
	EMU_CONDITION_BINDINGS(J, NULL, bind_jcc),
	{ ZYDIS_MNEMONIC_LOOP, LOOP_ALWAYS, loop_family, NULL },
	{ ZYDIS_MNEMONIC_LOOPE, LOOP_WHILE_EQUAL, loop_family, NULL },
	{ ZYDIS_MNEMONIC_LOOPNE, LOOP_WHILE_NOT_EQUAL, loop_family, NULL },
	{ ZYDIS_MNEMONIC_JRCXZ, JUMP_IF_COUNT_ZERO, loop_family, NULL },
	{ ZYDIS_MNEMONIC_JECXZ, JUMP_IF_COUNT_ZERO, loop_family, NULL },
};

EMU_FAMILY(emu_family_flow, flow_bindings);
