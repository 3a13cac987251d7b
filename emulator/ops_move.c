/*
 * ops_move.c — data movement between registers and memory that does not
 * compute: mov, movzx, movsx, movsxd, lea, cmovcc, setcc.
 * The op of the extending moves says whether to sign-extend.
 */
#include "binding.h"
#include "operand.h"

enum move_op { MOVE_PLAIN, MOVE_SIGN_EXTEND };

/* mov, movzx, movsx, movsxd, lea: dst = (extended) src. */
static int move(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	int r = emu_opnd_read(cpu, insn, 1, &v);
	if (r != EMU_OK)
		return r;
	if (insn->op == MOVE_SIGN_EXTEND)
		v = (uint64_t)emu_sign_extend(v, insn->opnd[1].size);
	return emu_opnd_write(cpu, insn, 0, v);
}

static int move_reg_reg(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size,
		    emu_gpr_get(cpu, insn->opnd[1].reg, insn->opnd[1].size));
	return EMU_OK;
}

/* cmovcc reads its source even when the condition is false (a bad address
 * faults either way), and a 32-bit destination is zero-extended either way. */
static int cmov(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	int r = emu_opnd_read(cpu, insn, 1, &v);
	if (r != EMU_OK)
		return r;
	if (!emu_condition(cpu->regs.rflags, insn->op))
		v = emu_gpr_get(cpu, insn->opnd[0].reg, insn->opnd[0].size);
	emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size, v);
	return EMU_OK;
}

static int setcc(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return emu_opnd_write(cpu, insn, 0, emu_condition(cpu->regs.rflags, insn->op));
}

static bool is_integer_operand(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR || o->kind == EMU_OPND_MEM ||
	       o->kind == EMU_OPND_IMM || o->kind == EMU_OPND_AGEN;
}

static emu_handler *bind_move(struct emu_insn *insn)
{
	if (insn->nopnd != 2 || !is_integer_operand(&insn->opnd[0]) ||
	    !is_integer_operand(&insn->opnd[1]))
		return NULL;
	if (insn->opnd[0].kind == EMU_OPND_GPR && insn->opnd[1].kind == EMU_OPND_GPR &&
	    insn->op == MOVE_PLAIN)
		return move_reg_reg;
	return move;
}

static const struct emu_binding move_bindings[] = {
	{ ZYDIS_MNEMONIC_MOV, MOVE_PLAIN, NULL, bind_move },
	{ ZYDIS_MNEMONIC_MOVZX, MOVE_PLAIN, NULL, bind_move },
	{ ZYDIS_MNEMONIC_MOVSX, MOVE_SIGN_EXTEND, NULL, bind_move },
	{ ZYDIS_MNEMONIC_MOVSXD, MOVE_SIGN_EXTEND, NULL, bind_move },
	{ ZYDIS_MNEMONIC_LEA, MOVE_PLAIN, NULL, bind_move },
	EMU_CONDITION_BINDINGS(CMOV, cmov, NULL),
	EMU_CONDITION_BINDINGS(SET, setcc, NULL),
};

EMU_FAMILY(emu_family_move, move_bindings);
