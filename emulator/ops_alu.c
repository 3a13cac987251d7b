/*
 * ops_alu.c — two-operand arithmetic and logic (add adc sub sbb and or xor
 * cmp test) and the one-operand forms (inc dec neg not). The operation is
 * the binding's `op`; one handler serves each shape.
 */
#include "binding.h"
#include "operand.h"

enum alu_op { ALU_ADD, ALU_ADC, ALU_SUB, ALU_SBB, ALU_AND, ALU_OR, ALU_XOR,
	      ALU_CMP, ALU_TEST, ALU_INC, ALU_DEC, ALU_NEG, ALU_NOT };

/* Computes a op b; returns the result and stores the new status flags. */
static uint64_t alu_compute(enum alu_op op, uint64_t a, uint64_t b,
			    uint64_t old_flags, unsigned size, uint64_t *flags)
{
	unsigned cf = (old_flags & EMU_CF) != 0;
	uint64_t r;
	switch (op) {
	case ALU_ADD: r = a + b; *flags = emu_flags_add(a, b, r, 0, size); break;
	case ALU_ADC: r = a + b + cf; *flags = emu_flags_add(a, b, r, cf, size); break;
	case ALU_SUB:
	case ALU_CMP: r = a - b; *flags = emu_flags_sub(a, b, r, 0, size); break;
	case ALU_SBB: r = a - b - cf; *flags = emu_flags_sub(a, b, r, cf, size); break;
	case ALU_AND:
	case ALU_TEST: r = a & b; *flags = emu_flags_logic(r, size); break;
	case ALU_OR: r = a | b; *flags = emu_flags_logic(r, size); break;
	case ALU_XOR: r = a ^ b; *flags = emu_flags_logic(r, size); break;
	/* inc and dec leave CF alone. */
	case ALU_INC:
		r = a + 1;
		*flags = (emu_flags_add(a, 1, r, 0, size) & ~(uint64_t)EMU_CF) | (old_flags & EMU_CF);
		break;
	case ALU_DEC:
		r = a - 1;
		*flags = (emu_flags_sub(a, 1, r, 0, size) & ~(uint64_t)EMU_CF) | (old_flags & EMU_CF);
		break;
	case ALU_NEG: r = 0 - a; *flags = emu_flags_sub(0, a, r, 0, size); break;
	default: /* ALU_NOT: no flags */
		r = ~a; *flags = old_flags; break;
	}
	return r & emu_size_mask(size);
}

static bool alu_writes_result(enum alu_op op)
{
	return op != ALU_CMP && op != ALU_TEST;
}

static void note_lock(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	if (insn->attr & EMU_ATTR_LOCK)
		emu_note_sync(cpu, EMU_SYNC_LOCK, insn->addr);
}

/* dst op= src, for every operand shape (r/m, r/m; r/m, imm). */
static int alu_binary(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, b, flags;
	int r;
	note_lock(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK)
		return r;
	if ((r = emu_opnd_read(cpu, insn, 1, &b)) != EMU_OK)
		return r;
	uint64_t res = alu_compute(insn->op, a, b & emu_size_mask(size),
				   cpu->regs.rflags, size, &flags);
	if (alu_writes_result(insn->op) &&
	    (r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK)
		return r;
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

/* Register-register forms of the common operations, without the operand
 * kind dispatch: they dominate compiled code. */
static int alu_binary_reg_reg(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t flags;
	uint64_t a = emu_gpr_get(cpu, insn->opnd[0].reg, size);
	uint64_t b = emu_gpr_get(cpu, insn->opnd[1].reg, size);
	uint64_t res = alu_compute(insn->op, a, b, cpu->regs.rflags, size, &flags);
	if (alu_writes_result(insn->op))
		emu_gpr_set(cpu, insn->opnd[0].reg, size, res);
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

static int alu_unary(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, flags;
	int r;
	note_lock(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK)
		return r;
	uint64_t res = alu_compute(insn->op, a, 0, cpu->regs.rflags, size, &flags);
	if ((r = emu_opnd_write(cpu, insn, 0, res)) != EMU_OK)
		return r;
	emu_set_status_flags(cpu, flags);
	return EMU_OK;
}

static emu_handler *bind_binary(struct emu_insn *insn)
{
	if (insn->nopnd != 2)
		return NULL;
	if (insn->opnd[0].kind == EMU_OPND_GPR && insn->opnd[1].kind == EMU_OPND_GPR)
		return alu_binary_reg_reg;
	return alu_binary;
}

static emu_handler *bind_unary(struct emu_insn *insn)
{
	return insn->nopnd == 1 ? alu_unary : NULL;
}

static const struct emu_binding alu_bindings[] = {
	{ ZYDIS_MNEMONIC_ADD, ALU_ADD, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_ADC, ALU_ADC, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_SUB, ALU_SUB, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_SBB, ALU_SBB, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_AND, ALU_AND, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_OR, ALU_OR, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_XOR, ALU_XOR, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_CMP, ALU_CMP, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_TEST, ALU_TEST, NULL, bind_binary },
	{ ZYDIS_MNEMONIC_INC, ALU_INC, NULL, bind_unary },
	{ ZYDIS_MNEMONIC_DEC, ALU_DEC, NULL, bind_unary },
	{ ZYDIS_MNEMONIC_NEG, ALU_NEG, NULL, bind_unary },
	{ ZYDIS_MNEMONIC_NOT, ALU_NOT, NULL, bind_unary },
};

EMU_FAMILY(emu_family_alu, alu_bindings);
