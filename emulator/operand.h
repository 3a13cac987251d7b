/*
 * operand.h — access to registers, memory and decoded operands for handlers.
 *
 * All memory traffic of the emulator passes through emu_mem_read /
 * emu_mem_write (and their integer forms, which use the interface's
 * read_uint / write_uint when it has them), which call the caller's memory
 * interface; writes also tell the decode cache, so self-modifying code is
 * seen.
 */
#ifndef TTREC_EMU_OPERAND_H
#define TTREC_EMU_OPERAND_H

#include <string.h>
#include "internal.h"
#include "flags.h"

/* --- general-purpose registers ------------------------------------------ */

/* Reads `size` bytes of the GPR at byte offset `off` (see EMU_OPND_GPR). */
static inline uint64_t emu_gpr_get(const struct emu_cpu *cpu, unsigned off,
				   unsigned size)
{
	const uint8_t *p = (const uint8_t *)cpu->regs.gpr + off;
	switch (size) {
	case 1: return *p;
	case 2: { uint16_t v; memcpy(&v, p, 2); return v; }
	case 4: { uint32_t v; memcpy(&v, p, 4); return v; }
	default: { uint64_t v; memcpy(&v, p, 8); return v; }
	}
}

/* Writes a GPR with the architecture's rule: 32-bit writes zero the upper
 * half, 8- and 16-bit writes leave the rest alone. */
static inline void emu_gpr_set(struct emu_cpu *cpu, unsigned off, unsigned size,
			       uint64_t v)
{
	uint8_t *p = (uint8_t *)cpu->regs.gpr + off;
	switch (size) {
	case 1: *p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: cpu->regs.gpr[off / 8] = (uint32_t)v; break;
	default: memcpy(p, &v, 8); break;
	}
}

/* Byte offset of full register n, for emu_gpr_get/set. */
#define EMU_GPR_OFF(n) ((unsigned)(n) * 8u)

/* --- memory --------------------------------------------------------------- */

/* Effective (linear) address of the instruction's memory operand. */
static inline uint64_t emu_mem_addr(const struct emu_cpu *cpu,
				    const struct emu_insn *insn)
{
	const struct emu_mem_operand *m = &insn->mem;
	uint64_t a = (uint64_t)m->disp;
	if (m->base != EMU_NO_REG)
		a += cpu->regs.gpr[m->base];
	if (m->index != EMU_NO_REG)
		a += cpu->regs.gpr[m->index] * m->scale;
	if (EMU_UNLIKELY(m->addr32))
		a = (uint32_t)a;
	if (m->seg == EMU_SEG_FS)
		a += cpu->regs.fs_base;
	else if (m->seg == EMU_SEG_GS)
		a += cpu->regs.gs_base;
	return a;
}

/* Applies the instruction's segment override to an address the handler
 * computed itself (string instructions' rsi, xlat). */
static inline uint64_t emu_seg_addr(const struct emu_cpu *cpu,
				    const struct emu_insn *insn, uint64_t a)
{
	if (insn->mem.seg == EMU_SEG_FS)
		return a + cpu->regs.fs_base;
	if (insn->mem.seg == EMU_SEG_GS)
		return a + cpu->regs.gs_base;
	return a;
}

/* Non-canonical addresses raise #GP, not #PF. */
static inline bool emu_addr_canonical(uint64_t addr, size_t size)
{
	uint64_t last = addr + size - 1;
	return (uint64_t)((int64_t)(addr << 16) >> 16) == addr &&
	       (uint64_t)((int64_t)(last << 16) >> 16) == last;
}

static inline int emu_mem_read(struct emu_cpu *cpu, uint64_t addr, void *buf,
			       size_t size)
{
	if (EMU_UNLIKELY(!emu_addr_canonical(addr, size)))
		return emu_fault(cpu, EMU_FAULT_GP);
	if (EMU_UNLIKELY(cpu->mem->read(cpu->mem_ctx, addr, buf, size) != EMU_MEM_OK))
		return emu_page_fault(cpu, addr, false);
	return EMU_OK;
}

static inline int emu_mem_write(struct emu_cpu *cpu, uint64_t addr,
				const void *buf, size_t size)
{
	if (EMU_UNLIKELY(!emu_addr_canonical(addr, size)))
		return emu_fault(cpu, EMU_FAULT_GP);
	if (EMU_UNLIKELY(cpu->mem->write(cpu->mem_ctx, addr, buf, size) != EMU_MEM_OK))
		return emu_page_fault(cpu, addr, true);
	emu_decode_cache_note_write(cpu, addr, size);
	return EMU_OK;
}

/* A locked instruction's write of the size bytes it read at addr, unchanged
 * (emu.h, write_back). */
static inline int emu_mem_write_back(struct emu_cpu *cpu, uint64_t addr,
				     const void *buf, size_t size)
{
	if (!cpu->mem->write_back)
		return emu_mem_write(cpu, addr, buf, size);
	if (EMU_UNLIKELY(!emu_addr_canonical(addr, size)))
		return emu_fault(cpu, EMU_FAULT_GP);
	if (EMU_UNLIKELY(cpu->mem->write_back(cpu->mem_ctx, addr, buf, size) != EMU_MEM_OK))
		return emu_page_fault(cpu, addr, true);
	emu_decode_cache_note_write(cpu, addr, size);
	return EMU_OK;
}

/* Little-endian integer of 1, 2, 4 or 8 bytes: through the interface's
 * read_uint when it has one (the value comes back in a register), else
 * through a buffer. The buffer is loaded back with the width the memory
 * interface stored it with: a wider load over a narrower store (say, 8
 * bytes zeroed, 1 byte read into them) cannot be forwarded from the store
 * buffer and stalls every such read. The loads are volatile so that the
 * compiler does not merge them into one 8-byte load and a mask, which
 * would bring the stall back. */
static inline __attribute__((always_inline)) int emu_mem_read_uint(struct emu_cpu *cpu,
								     uint64_t addr, unsigned size,
								     uint64_t *out)
{
	if (cpu->mem->read_uint) {
		if (EMU_UNLIKELY(!emu_addr_canonical(addr, size))) {
			*out = 0;
			return emu_fault(cpu, EMU_FAULT_GP);
		}
		struct emu_mem_uint got = cpu->mem->read_uint(cpu->mem_ctx, addr, size);
		*out = got.value;
		if (EMU_UNLIKELY(got.status != EMU_MEM_OK))
			return emu_page_fault(cpu, addr, false);
		return EMU_OK;
	}
	union { uint8_t u8; uint16_t u16; uint32_t u32; uint64_t u64; } v;
	int r = emu_mem_read(cpu, addr, &v, size);
	if (r != EMU_OK) {
		*out = 0;
		return r;
	}
	switch (size) {
	case 1: *out = *(volatile uint8_t *)&v.u8; break;
	case 2: *out = *(volatile uint16_t *)&v.u16; break;
	case 4: *out = *(volatile uint32_t *)&v.u32; break;
	default: *out = *(volatile uint64_t *)&v.u64; break;
	}
	return EMU_OK;
}

static inline __attribute__((always_inline)) int emu_mem_write_uint(struct emu_cpu *cpu,
								      uint64_t addr, unsigned size,
								      uint64_t v)
{
	if (cpu->mem->write_uint) {
		if (EMU_UNLIKELY(!emu_addr_canonical(addr, size)))
			return emu_fault(cpu, EMU_FAULT_GP);
		if (EMU_UNLIKELY(cpu->mem->write_uint(cpu->mem_ctx, addr, size, v) != EMU_MEM_OK))
			return emu_page_fault(cpu, addr, true);
		emu_decode_cache_note_write(cpu, addr, size);
		return EMU_OK;
	}
	return emu_mem_write(cpu, addr, &v, size);
}

/* --- decoded operands -------------------------------------------------- */

/* Reads integer operand i (GPR, memory, immediate, address). */
static inline int emu_opnd_read(struct emu_cpu *cpu, const struct emu_insn *insn,
				unsigned i, uint64_t *out)
{
	const struct emu_operand *o = &insn->opnd[i];
	switch (o->kind) {
	case EMU_OPND_GPR:
		*out = emu_gpr_get(cpu, o->reg, o->size);
		return EMU_OK;
	case EMU_OPND_MEM:
		return emu_mem_read_uint(cpu, emu_mem_addr(cpu, insn), o->size, out);
	case EMU_OPND_IMM:
		/* Sign-extended to 64 bits as decoded; the handler truncates. */
		*out = insn->imm;
		return EMU_OK;
	case EMU_OPND_AGEN:
		*out = emu_mem_addr(cpu, insn);
		return EMU_OK;
	default:
		*out = 0;
		return EMU_OK;
	}
}

/* Writes integer operand i (GPR or memory). */
static inline int emu_opnd_write(struct emu_cpu *cpu, const struct emu_insn *insn,
				 unsigned i, uint64_t v)
{
	const struct emu_operand *o = &insn->opnd[i];
	if (o->kind == EMU_OPND_GPR) {
		emu_gpr_set(cpu, o->reg, o->size, v);
		return EMU_OK;
	}
	return emu_mem_write_uint(cpu, emu_mem_addr(cpu, insn), o->size, v);
}

static inline bool emu_opnd_is_mem(const struct emu_insn *insn, unsigned i)
{
	return insn->opnd[i].kind == EMU_OPND_MEM;
}

/* --- stack ---------------------------------------------------------------- */

static inline int emu_push(struct emu_cpu *cpu, uint64_t v, unsigned size)
{
	uint64_t sp = cpu->regs.gpr[EMU_RSP] - size;
	int r = emu_mem_write_uint(cpu, sp, size, v);
	if (r == EMU_OK)
		cpu->regs.gpr[EMU_RSP] = sp;
	return r;
}

static inline int emu_pop(struct emu_cpu *cpu, uint64_t *v, unsigned size)
{
	uint64_t sp = cpu->regs.gpr[EMU_RSP];
	int r = emu_mem_read_uint(cpu, sp, size, v);
	if (r == EMU_OK)
		cpu->regs.gpr[EMU_RSP] = sp + size;
	return r;
}

/* --- events ---------------------------------------------------------------- */

static inline void emu_note_flow(struct emu_cpu *cpu, enum emu_flow kind,
				 uint64_t from, uint64_t to)
{
	if (EMU_UNLIKELY(cpu->has_observer) && cpu->obs.flow)
		cpu->obs.flow(cpu->obs.ctx, kind, from, to);
}

static inline void emu_note_sync(struct emu_cpu *cpu, enum emu_sync kind,
				 uint64_t rip)
{
	if (EMU_UNLIKELY(cpu->has_observer) && cpu->obs.sync)
		cpu->obs.sync(cpu->obs.ctx, kind, rip);
}

#endif
