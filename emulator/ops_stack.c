/*
 * ops_stack.c — push, pop, pushfq, popfq, enter, leave.
 * Zydis describes push's memory operand as [rsp]; the write is really at
 * rsp - size (see emu_push), and pop into a memory operand addressed through
 * rsp uses the incremented rsp, as the CPU does.
 */
#include "binding.h"
#include "operand.h"

static int push(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	unsigned size = insn->opsize;
	int r = emu_opnd_read(cpu, insn, 0, &v);
	if (r != EMU_OK)
		return r;
	return emu_push(cpu, v, size);
}

static int pop(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opsize;
	uint64_t v, old_rsp = cpu->regs.gpr[EMU_RSP];
	int r = emu_pop(cpu, &v, size);
	if (r != EMU_OK)
		return r;
	if ((r = emu_opnd_write(cpu, insn, 0, v)) != EMU_OK)
		cpu->regs.gpr[EMU_RSP] = old_rsp;
	return r;
}

/* RF and VM are never pushed; user mode sees the rest. */
static int pushf(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return emu_push(cpu, emu_rflags(cpu) & 0xfcffff, insn->opsize);
}

/* In user mode (CPL 3, IOPL 0) popf changes only these flags; IF and IOPL
 * are silently kept. */
#define POPF_WRITABLE (EMU_STATUS_FLAGS | EMU_TF | EMU_DF | EMU_AC | EMU_ID | (1u << 14) /* NT */)

static int popf(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	int r = emu_pop(cpu, &v, insn->opsize);
	if (r != EMU_OK)
		return r;
	uint64_t mask = POPF_WRITABLE & emu_size_mask(insn->opsize);
	emu_set_flags_masked(cpu, v | 2, mask | 2);
	return EMU_OK;
}

static int leave(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	unsigned size = insn->opsize;
	int r = emu_mem_read_uint(cpu, cpu->regs.gpr[EMU_RBP], size, &v);
	if (r != EMU_OK)
		return r;
	cpu->regs.gpr[EMU_RSP] = cpu->regs.gpr[EMU_RBP] + size;
	emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RBP), size, v);
	return EMU_OK;
}

/* Writes one byte back over itself: faults as a write to addr would,
 * changes nothing. */
static int probe_writable(struct emu_cpu *cpu, uint64_t addr)
{
	uint8_t b;
	int r = emu_mem_read(cpu, addr, &b, 1);
	return r == EMU_OK ? emu_mem_write(cpu, addr, &b, 1) : r;
}

/* The nesting level is taken modulo 32, so at most 31 frame pointers are
 * on the new frame: level - 1 copied ones and the new one. */
#define ENTER_MAX_LEVEL 31

/* enter imm16, imm8: push rbp, copy (level - 1) outer frame pointers, push
 * the new frame pointer, reserve imm16 bytes. A fault leaves memory and
 * registers unchanged, as on the CPU: every outer frame pointer is read and
 * the stack's ends probed before the first write. */
static int enter(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opsize;
	unsigned level = insn->imm2 & ENTER_MAX_LEVEL;
	uint64_t frame_size = insn->imm & 0xffff;
	uint64_t rsp = cpu->regs.gpr[EMU_RSP], rbp = cpu->regs.gpr[EMU_RBP];
	uint64_t frame = rsp - size;
	uint64_t pointers_end = frame - level * size;
	uint64_t outer[ENTER_MAX_LEVEL];
	int r;
	for (unsigned i = 1; i < level; i++)
		if ((r = emu_mem_read_uint(cpu, rbp - i * size, size, &outer[i - 1])) != EMU_OK)
			return r;
	if ((r = probe_writable(cpu, pointers_end - frame_size)) != EMU_OK ||
	    (r = probe_writable(cpu, level ? pointers_end : frame)) != EMU_OK)
		return r;
	if ((r = emu_mem_write_uint(cpu, frame, size, rbp)) != EMU_OK)
		return r;
	uint64_t sp = frame;
	for (unsigned i = 1; i < level; i++) {
		sp -= size;
		if ((r = emu_mem_write_uint(cpu, sp, size, outer[i - 1])) != EMU_OK)
			return r;
	}
	if (level > 0) {
		sp -= size;
		if ((r = emu_mem_write_uint(cpu, sp, size, frame)) != EMU_OK)
			return r;
	}
	emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RBP), size, frame);
	cpu->regs.gpr[EMU_RSP] = sp - frame_size;
	return EMU_OK;
}

static const struct emu_binding stack_bindings[] = {
	{ ZYDIS_MNEMONIC_PUSH, 0, push, NULL },
	{ ZYDIS_MNEMONIC_POP, 0, pop, NULL },
	{ ZYDIS_MNEMONIC_PUSHFQ, 0, pushf, NULL },
	{ ZYDIS_MNEMONIC_PUSHF, 0, pushf, NULL },
	{ ZYDIS_MNEMONIC_POPFQ, 0, popf, NULL },
	{ ZYDIS_MNEMONIC_POPF, 0, popf, NULL },
	{ ZYDIS_MNEMONIC_LEAVE, 0, leave, NULL },
	{ ZYDIS_MNEMONIC_ENTER, 0, enter, NULL },
};

EMU_FAMILY(emu_family_stack, stack_bindings);
