/*
 * ops_move.c — data movement between registers and memory that does not
 * compute: mov, movzx, movsx, movsxd, lea, cmovcc, setcc, bswap, movbe,
 * xlat.
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
	if (!emu_cond(cpu, insn->op))
		v = emu_gpr_get(cpu, insn->opnd[0].reg, insn->opnd[0].size);
	emu_gpr_set(cpu, insn->opnd[0].reg, insn->opnd[0].size, v);
	return EMU_OK;
}

static int setcc(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return emu_opnd_write(cpu, insn, 0, emu_cond(cpu, insn->op));
}

static uint64_t byte_swap(uint64_t v, unsigned size)
{
	switch (size) {
	case 2: return __builtin_bswap16((uint16_t)v);
	case 4: return __builtin_bswap32((uint32_t)v);
	default: return __builtin_bswap64(v);
	}
}

/* bswap reg (one operand, swapped in place) and movbe (dst = swapped src). */
static int swap_bytes(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned src = insn->nopnd - 1;
	uint64_t v;
	int r = emu_opnd_read(cpu, insn, src, &v);
	if (r != EMU_OK)
		return r;
	return emu_opnd_write(cpu, insn, 0, byte_swap(v, insn->opnd[0].size));
}

/* bswap of a 16-bit register is undefined; compilers never emit it. */
static emu_handler *bind_swap(struct emu_insn *insn)
{
	return insn->opnd[0].size == 2 && insn->nopnd == 1 ? NULL : swap_bytes;
}

/* xlat: al = [rbx + al], with the segment override if any. */
static int xlat(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t base = cpu->regs.gpr[EMU_RBX];
	if (insn->mem.addr32)
		base = (uint32_t)base;
	uint64_t a = base + (cpu->regs.gpr[EMU_RAX] & 0xff);
	if (insn->mem.addr32)
		a = (uint32_t)a;
	uint64_t v;
	int r = emu_mem_read_uint(cpu, emu_seg_addr(cpu, insn, a), 1, &v);
	if (r == EMU_OK)
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 1, v);
	return r;
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
	{ ZYDIS_MNEMONIC_BSWAP, 0, NULL, bind_swap },
	{ ZYDIS_MNEMONIC_MOVBE, 0, swap_bytes, NULL },
	{ ZYDIS_MNEMONIC_XLAT, 0, xlat, NULL },
	EMU_CONDITION_BINDINGS(CMOV, cmov, NULL),
	EMU_CONDITION_BINDINGS(SET, setcc, NULL),
};

EMU_FAMILY(emu_family_move, move_bindings);
