/*
 * jit_runtime.c — the C functions translated code calls: memory accesses
 * and conditions, each the very code a handler runs (operand.h, flags.h),
 * so a translation cannot differ from the interpreter in what it asks of
 * the memory interface.
 */
#include "jit.h"
#include "operand.h"

struct emu_mem_uint emu_jit_read(struct emu_cpu *cpu, uint64_t addr, unsigned size)
{
	uint64_t value;
	int r = emu_mem_read_uint(cpu, addr, size, &value);
	return (struct emu_mem_uint){ .value = value, .status = r };
}

int emu_jit_write(struct emu_cpu *cpu, uint64_t addr, unsigned size, uint64_t value,
		  const struct emu_block *running)
{
	int r = emu_mem_write_uint(cpu, addr, size, value);
	if (r != EMU_OK)
		return r;
	return running->retired ? EMU_JIT_RETIRED : EMU_OK;
}

void emu_jit_raise_gp(struct emu_cpu *cpu)
{
	emu_fault(cpu, EMU_FAULT_GP);
}

void emu_jit_raise_pf(struct emu_cpu *cpu, uint64_t addr, int write)
{
	emu_page_fault(cpu, addr, write != 0);
}

int emu_jit_note_write(struct emu_cpu *cpu, uint64_t addr, unsigned size,
		       const struct emu_block *running)
{
	emu_decode_cache_note_write(cpu, addr, size);
	return running->retired ? EMU_JIT_RETIRED : EMU_OK;
}

int emu_jit_condition(struct emu_cpu *cpu, unsigned cc)
{
	return emu_condition(emu_rflags_of(cpu), cc);
}
