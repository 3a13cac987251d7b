/*
 * ops_system.c — instructions that are not computation: the special
 * instructions the caller executes (syscall, cpuid, rdtsc, ...), fences,
 * hints that do nothing in an emulator (nop forms, endbr, pause, prefetch),
 * cache-line flushes, and the instructions that always fault in user mode
 * (int3, ud0-2, hlt).
 */
#include "binding.h"
#include "operand.h"

/* Stops the run so the caller can execute the instruction; op is the
 * enum emu_special kind. */
static int special(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	cpu->exit.reason = EMU_EXIT_SPECIAL;
	cpu->exit.special = (enum emu_special)insn->op;
	return EMU_STOP;
}

/* rdrand, rdseed: the caller supplies the random number (a recorder from
 * the CPU, a replayer from the log) through emu_complete_random; the
 * destination register is noted for it. */
static int random_special(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	cpu->exit.operand_bits = (uint8_t)(insn->opnd[0].size * 8);
	cpu->random_dest = insn->opnd[0].reg;
	return special(cpu, insn);
}

void emu_complete_random(struct emu_cpu *cpu, uint64_t value, bool valid)
{
	emu_gpr_set(cpu, cpu->random_dest, cpu->exit.operand_bits / 8, valid ? value : 0);
	cpu->regs.rflags = (cpu->regs.rflags & ~(uint64_t)EMU_STATUS_FLAGS) | (valid ? EMU_CF : 0);
	emu_skip_insn(cpu);
}

static int nop(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)cpu;
	(void)insn;
	return EMU_OK;
}

static int fence(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_note_sync(cpu, EMU_SYNC_FENCE, insn->addr);
	return EMU_OK;
}

/* clflush, clflushopt, clwb: no cache the program can observe is
 * emulated, but the line's address must be mapped, so the instruction
 * faults where a one-byte read there would. (JIT compilers flush the code
 * they write this way: run natively, each was a step of the real process
 * and an invalidation of everything the recorder had cached.) */
static int flush_cache_line(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t ignored;
	return emu_mem_read_uint(cpu, emu_mem_addr(cpu, insn), 1, &ignored);
}

/* op is the vector: int3 is #BP, ud* #UD, hlt #GP (privileged). */
static int always_fault(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return emu_fault(cpu, (enum emu_fault_vector)insn->op);
}

static const struct emu_binding system_bindings[] = {
	{ ZYDIS_MNEMONIC_SYSCALL, EMU_SPECIAL_SYSCALL, special, NULL },
	{ ZYDIS_MNEMONIC_CPUID, EMU_SPECIAL_CPUID, special, NULL },
	{ ZYDIS_MNEMONIC_RDTSC, EMU_SPECIAL_RDTSC, special, NULL },
	{ ZYDIS_MNEMONIC_RDTSCP, EMU_SPECIAL_RDTSCP, special, NULL },
	{ ZYDIS_MNEMONIC_RDRAND, EMU_SPECIAL_RDRAND, random_special, NULL },
	{ ZYDIS_MNEMONIC_RDSEED, EMU_SPECIAL_RDSEED, random_special, NULL },
	{ ZYDIS_MNEMONIC_XGETBV, EMU_SPECIAL_XGETBV, special, NULL },
	{ ZYDIS_MNEMONIC_RDPID, EMU_SPECIAL_RDPID, special, NULL },
	{ ZYDIS_MNEMONIC_NOP, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_ENDBR64, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_ENDBR32, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_PAUSE, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_PREFETCHT0, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_PREFETCHT1, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_PREFETCHT2, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_PREFETCHNTA, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_PREFETCHW, 0, nop, NULL },
	{ ZYDIS_MNEMONIC_LFENCE, 0, fence, NULL },
	{ ZYDIS_MNEMONIC_MFENCE, 0, fence, NULL },
	{ ZYDIS_MNEMONIC_SFENCE, 0, fence, NULL },
	{ ZYDIS_MNEMONIC_CLFLUSH, 0, flush_cache_line, NULL },
	{ ZYDIS_MNEMONIC_CLFLUSHOPT, 0, flush_cache_line, NULL },
	{ ZYDIS_MNEMONIC_CLWB, 0, flush_cache_line, NULL },
	{ ZYDIS_MNEMONIC_INT3, EMU_FAULT_BP, always_fault, NULL },
	{ ZYDIS_MNEMONIC_UD0, EMU_FAULT_UD, always_fault, NULL },
	{ ZYDIS_MNEMONIC_UD1, EMU_FAULT_UD, always_fault, NULL },
	{ ZYDIS_MNEMONIC_UD2, EMU_FAULT_UD, always_fault, NULL },
	{ ZYDIS_MNEMONIC_HLT, EMU_FAULT_GP, always_fault, NULL },
};

EMU_FAMILY(emu_family_system, system_bindings);
