/*
 * ops_atomic.c — exchanges and compare-exchanges: xchg, xadd, cmpxchg,
 * cmpxchg8b, cmpxchg16b. Threads are emulated one at a time, so atomicity
 * is free; what matters is reporting the synchronisation event (LOCK prefix,
 * or xchg with memory, which is locked implicitly) and the CPU's exact
 * write-back behaviour.
 */
#include "binding.h"
#include "operand.h"

static void note_sync(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	if (insn->opnd[0].kind == EMU_OPND_MEM && insn->mnemonic == ZYDIS_MNEMONIC_XCHG)
		emu_note_sync(cpu, EMU_SYNC_XCHG, insn->addr);
	else if (insn->attr & EMU_ATTR_LOCK)
		emu_note_sync(cpu, EMU_SYNC_LOCK, insn->addr);
}

static int xchg(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t a, b;
	int r;
	note_sync(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK ||
	    (r = emu_opnd_read(cpu, insn, 1, &b)) != EMU_OK)
		return r;
	if ((r = emu_opnd_write(cpu, insn, 0, b)) != EMU_OK)
		return r;
	return emu_opnd_write(cpu, insn, 1, a);
}

/* xadd dst, src: dst = dst + src, src = old dst; flags of the addition. */
static int xadd(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t a, b;
	int r;
	note_sync(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 0, &a)) != EMU_OK ||
	    (r = emu_opnd_read(cpu, insn, 1, &b)) != EMU_OK)
		return r;
	uint64_t sum = (a + b) & emu_size_mask(size);
	if ((r = emu_opnd_write(cpu, insn, 0, sum)) != EMU_OK)
		return r;
	/* Source written after the destination: xadd reg, reg with the same
	 * register leaves the old value there, as the CPU does. */
	emu_opnd_write(cpu, insn, 1, a);
	emu_set_status_flags(cpu, emu_flags_add(a, b, sum, 0, size));
	return EMU_OK;
}

/*
 * cmpxchg dst, src: compares the accumulator with dst (flags of acc - dst).
 * Equal: dst = src, the accumulator untouched. Not equal: the accumulator
 * is loaded (a 32-bit load zero-extends rax) and a register dst is left
 * untouched, while a memory dst is written back with its old value (the CPU
 * always performs the write cycle, so a read-only page faults either way:
 * emu_mem_write_back).
 */
static int cmpxchg(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size;
	uint64_t dst, src, acc = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RAX), size);
	int r;
	note_sync(cpu, insn);
	if ((r = emu_opnd_read(cpu, insn, 0, &dst)) != EMU_OK ||
	    (r = emu_opnd_read(cpu, insn, 1, &src)) != EMU_OK)
		return r;
	bool equal = acc == dst;
	if (equal)
		r = emu_opnd_write(cpu, insn, 0, src);
	else if (emu_opnd_is_mem(insn, 0))
		r = emu_mem_write_back(cpu, emu_mem_addr(cpu, insn), &dst, size);
	if (r != EMU_OK)
		return r;
	if (!equal)
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), size, dst);
	emu_set_status_flags(cpu, emu_flags_sub(acc, dst, acc - dst, 0, size));
	return EMU_OK;
}

/*
 * cmpxchg8b m64 / cmpxchg16b m128: compares edx:eax (rdx:rax) with memory;
 * equal: memory = ecx:ebx (rcx:rbx), ZF=1; otherwise the pair is loaded from
 * memory (32-bit halves zero-extended), the memory written back unchanged,
 * ZF=0. Other flags are kept. cmpxchg16b needs a 16-byte aligned operand.
 */
static int cmpxchg_pair(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned half = insn->opnd[0].size / 2;
	uint64_t addr = emu_mem_addr(cpu, insn);
	uint64_t mem[2] = { 0, 0 };
	int r;
	note_sync(cpu, insn);
	if (half == 8 && (addr & 15))
		return emu_fault(cpu, EMU_FAULT_GP);
	if ((r = emu_mem_read(cpu, addr, mem, 2 * half)) != EMU_OK)
		return r;
	uint64_t lo = mem[0], hi = mem[1];
	if (half == 4) {
		lo = mem[0] & 0xffffffffu;
		hi = mem[0] >> 32;
	}
	uint64_t m = emu_size_mask(half);
	bool equal = lo == (cpu->regs.gpr[EMU_RAX] & m) &&
		     hi == (cpu->regs.gpr[EMU_RDX] & m);
	uint64_t out[2];
	if (equal) {
		uint64_t nlo = cpu->regs.gpr[EMU_RBX] & m, nhi = cpu->regs.gpr[EMU_RCX] & m;
		if (half == 4)
			out[0] = nlo | (nhi << 32);
		else {
			out[0] = nlo;
			out[1] = nhi;
		}
	} else {
		out[0] = mem[0];
		out[1] = mem[1];
	}
	r = equal ? emu_mem_write(cpu, addr, out, 2 * half)
		  : emu_mem_write_back(cpu, addr, out, 2 * half);
	if (r != EMU_OK)
		return r;
	if (!equal) {
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), half, lo);
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RDX), half, hi);
	}
	emu_set_flags_masked(cpu, equal ? EMU_ZF : 0, EMU_ZF);
	return EMU_OK;
}

static emu_handler *bind_pair(struct emu_insn *insn)
{
	return insn->nopnd == 1 && insn->opnd[0].kind == EMU_OPND_MEM ? cmpxchg_pair : NULL;
}

static const struct emu_binding atomic_bindings[] = {
	{ ZYDIS_MNEMONIC_XCHG, 0, xchg, NULL },
	{ ZYDIS_MNEMONIC_XADD, 0, xadd, NULL },
	{ ZYDIS_MNEMONIC_CMPXCHG, 0, cmpxchg, NULL },
	{ ZYDIS_MNEMONIC_CMPXCHG8B, 0, NULL, bind_pair },
	{ ZYDIS_MNEMONIC_CMPXCHG16B, 0, NULL, bind_pair },
};

EMU_FAMILY(emu_family_atomic, atomic_bindings);
