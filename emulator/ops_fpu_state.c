/*
 * ops_fpu_state.c — saving and restoring the floating-point and vector
 * state: fxsave/fxrstor (and their REX.W forms), xsave, xsavec, xsaveopt
 * and xrstor (standard and compacted formats, and their REX.W forms),
 * ldmxcsr/stmxcsr and their VEX forms. xsaves/xrstors are privileged: #GP.
 *
 * XSAVE components handled: x87 (0), SSE (1), AVX (2), opmask (5),
 * ZMM_Hi256 (6), Hi16_ZMM (7), at the architectural standard-format
 * offsets; the requested-feature bitmap is edx:eax AND the XCR0 of the
 * machine the emulator runs on, read once with xgetbv. The recorder's CPUID
 * policy (leaf 0xD sizes, xgetbv results) must describe that same XCR0. A
 * request that includes a component the emulator does not hold (AMX tile
 * state) stops the run as unimplemented, so it is executed natively.
 *
 * The CPU's "in use" tracking (XINUSE, which decides XSTATE_BV and what the
 * init optimisation skips) is modelled as "differs from the component's
 * initial configuration" (for SSE: an XMM register is not zero; xsavec
 * also keeps SSE when MXCSR is not 1F80H). The architecture lets a CPU
 * count a component in its initial configuration as in use (some do after
 * movaps loads a zero into an XMM register): there the CPU's XSTATE_BV has
 * bits the emulator's lacks, the same state (emu_xstate_header in emu.h,
 * which `ttrec run --verify` uses to accept it). xsaveopt is xsave with the init optimisation; the
 * modified optimisation (skipping components unchanged since an xrstor
 * from the same area) is not modelled: it only ever skips writing bytes
 * that already hold the value written.
 */
#include <pthread.h>
#include <string.h>

#include "binding.h"
#include "operand.h"
#include "x87.h"

enum { FX_SIZE = 512, XSAVE_HEADER = 512, XSAVE_EXTENDED = 576 };

/* Standard-format offsets and sizes of the extended components. */
static const struct { uint16_t offset, size; } xcomponent[8] = {
	[2] = { 576, 256 }, [5] = { 1088, 64 }, [6] = { 1152, 512 }, [7] = { 1664, 1024 },
};
#define XFEATURES_HELD 0xe7ull  /* components 0 1 2 5 6 7 */
#define XSAVE_AREA_MAX 2688     /* standard format through component 7 */

/* MXCSR bits this CPU lets software set (the MXCSR_MASK fxsave stores). */
#define MXCSR_MASK EMU_MODELLED_MXCSR_MASK

static uint64_t machine_xcr0;
static pthread_once_t xcr0_once = PTHREAD_ONCE_INIT;

static void read_xcr0(void)
{
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	machine_xcr0 = ((uint64_t)hi << 32) | lo;
}

static uint64_t xcr0(void)
{
	pthread_once(&xcr0_once, read_xcr0);
	return machine_xcr0;
}

/* --- the legacy region (fxsave layout) ------------------------------------ */

static void put(uint8_t *b, unsigned off, const void *v, unsigned n) { memcpy(b + off, v, n); }

/* Bytes 0..159 but MXCSR: the x87 part. `wide`: 64-bit FIP/FDP (REX.W),
 * else 32-bit offsets with zero selectors (FCS/FDS are deprecated). */
static void x87_store(const struct emu_regs *r, uint8_t *b, bool wide)
{
	memset(b, 0, 24);
	put(b, 0, &r->fcw, 2);
	put(b, 2, &r->fsw, 2);
	b[4] = x87_abridged_tag(r->ftw);
	put(b, 6, &r->fop, 2);
	if (wide) {
		put(b, 8, &r->fip, 8);
		put(b, 16, &r->fdp, 8);
	} else {
		put(b, 8, &r->fip, 4);
		put(b, 16, &r->fdp, 4);
	}
	unsigned top = x87_top(r->fsw);
	for (unsigned i = 0; i < 8; i++) {
		memset(b + 32 + 16 * i, 0, 16);
		memcpy(b + 32 + 16 * i, r->st[(top + i) & 7].bytes, 10);
	}
}

static void x87_load(struct emu_regs *r, const uint8_t *b, bool wide)
{
	uint16_t cw, sw;
	memcpy(&cw, b, 2);
	memcpy(&sw, b + 2, 2);
	r->fcw = x87_loaded_cw(cw);
	r->fsw = x87_loaded_sw(sw, r->fcw);
	memcpy(&r->fop, b + 6, 2);
	r->fop &= 0x7ff;
	r->fip = r->fdp = 0;
	memcpy(&r->fip, b + 8, wide ? 8 : 4);
	memcpy(&r->fdp, b + 16, wide ? 8 : 4);
	unsigned top = x87_top(r->fsw);
	for (unsigned i = 0; i < 8; i++)
		memcpy(r->st[(top + i) & 7].bytes, b + 32 + 16 * i, 10);
	r->ftw = x87_full_tag(r, b[4]);
}

static void x87_init(struct emu_regs *r)
{
	r->fcw = 0x37f;
	r->fsw = 0;
	r->ftw = 0xffff;
	r->fop = 0;
	r->fip = r->fdp = 0;
	memset(r->st, 0, sizeof(r->st));
}

static bool x87_in_use(const struct emu_regs *r)
{
	static const emu_x87_reg zero[8];
	return r->fcw != 0x37f || r->fsw != 0 || r->ftw != 0xffff || r->fop ||
	       r->fip || r->fdp || memcmp(r->st, zero, sizeof(zero)) != 0;
}

static void mxcsr_store(const struct emu_regs *r, uint8_t *b)
{
	uint32_t mask = MXCSR_MASK;
	put(b, 24, &r->mxcsr, 4);
	put(b, 28, &mask, 4);
}

static uint32_t mxcsr_of(const uint8_t *b)
{
	uint32_t v;
	memcpy(&v, b + 24, 4);
	return v;
}

/* --- vector components ------------------------------------------------------ */

/* The bytes of component i (2, 5, 6, 7) inside the register file: `n`
 * pieces of `len` bytes, piece j at regs + first + j * stride. */
struct component_map {
	size_t first, stride;
	unsigned n, len;
};

static struct component_map component_in_regs(unsigned i)
{
	const size_t zmm0 = offsetof(struct emu_regs, zmm), zsize = sizeof(emu_vec);
	switch (i) {
	case 2: return (struct component_map){ zmm0 + 16, zsize, 16, 16 };
	case 5: return (struct component_map){ offsetof(struct emu_regs, k), 8, 8, 8 };
	case 6: return (struct component_map){ zmm0 + 32, zsize, 16, 32 };
	default: return (struct component_map){ zmm0 + 16 * zsize, zsize, 16, 64 };
	}
}

static void component_copy(struct emu_regs *r, unsigned i, uint8_t *area, bool to_regs)
{
	if (i == 1) {
		for (unsigned j = 0; j < 16; j++) {
			if (to_regs)
				memcpy(&r->zmm[j], area + 160 + 16 * j, 16);
			else
				memcpy(area + 160 + 16 * j, &r->zmm[j], 16);
		}
		return;
	}
	struct component_map m = component_in_regs(i);
	for (unsigned j = 0; j < m.n; j++) {
		uint8_t *reg = (uint8_t *)r + m.first + j * m.stride;
		if (to_regs)
			memcpy(reg, area + j * m.len, m.len);
		else
			memcpy(area + j * m.len, reg, m.len);
	}
}

static bool component_in_use(const struct emu_regs *r, unsigned i)
{
	if (i == 0)
		return x87_in_use(r);
	uint8_t buf[1024];
	unsigned size = i == 1 ? 256 : xcomponent[i].size;
	memset(buf, 0, sizeof(buf));
	if (i == 1) {
		for (unsigned j = 0; j < 16; j++)
			memcpy(buf + 16 * j, &r->zmm[j], 16);
	} else {
		component_copy((struct emu_regs *)r, i, buf, false);
	}
	for (unsigned j = 0; j < size; j++)
		if (buf[j])
			return true;
	return false;
}

static void component_init(struct emu_regs *r, unsigned i)
{
	static const uint8_t zeros[1024];
	if (i == 0)
		x87_init(r);
	else if (i == 1)
		for (unsigned j = 0; j < 16; j++)
			memset(&r->zmm[j], 0, 16);
	else
		component_copy(r, i, (uint8_t *)zeros, true);
}

/* --- fxsave / fxrstor ------------------------------------------------------- */

/* op: 1 for the REX.W (64-bit pointer) forms. */
static int fxsave(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_x87_settle(cpu);
	uint64_t addr = emu_mem_addr(cpu, insn);
	if (addr & 15)
		return emu_fault(cpu, EMU_FAULT_GP);
	uint8_t b[416];
	x87_store(&cpu->regs, b, insn->op);
	mxcsr_store(&cpu->regs, b);
	component_copy(&cpu->regs, 1, b, false);
	return emu_mem_write(cpu, addr, b, sizeof(b));
}

static int fxrstor(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_x87_settle(cpu);
	uint64_t addr = emu_mem_addr(cpu, insn);
	if (addr & 15)
		return emu_fault(cpu, EMU_FAULT_GP);
	uint8_t b[416];
	int rc = emu_mem_read(cpu, addr, b, sizeof(b));
	if (rc != EMU_OK)
		return rc;
	if (mxcsr_of(b) & ~MXCSR_MASK)
		return emu_fault(cpu, EMU_FAULT_GP);
	x87_load(&cpu->regs, b, insn->op);
	cpu->regs.mxcsr = mxcsr_of(b);
	component_copy(&cpu->regs, 1, b, true);
	return EMU_OK;
}

/* --- xsave family ------------------------------------------------------------ */

enum xsave_kind { XSAVE_STANDARD, XSAVE_OPT, XSAVE_COMPACTED };

/* op: kind * 2 + wide. */
static uint64_t requested(const struct emu_cpu *cpu)
{
	uint64_t edx_eax = (cpu->regs.gpr[EMU_RDX] << 32) | (uint32_t)cpu->regs.gpr[EMU_RAX];
	return edx_eax & xcr0();
}

static uint64_t in_use_mask(const struct emu_regs *r, uint64_t rfbm)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < 8; i++)
		if ((rfbm >> i & 1) && component_in_use(r, i))
			m |= 1ull << i;
	return m;
}

/* Offsets of the extended components in the compacted format for xcomp_bv. */
static unsigned compacted_offset(uint64_t xcomp_bv, unsigned i)
{
	unsigned off = XSAVE_EXTENDED;
	for (unsigned j = 2; j < i; j++)
		if (xcomp_bv >> j & 1)
			off += xcomponent[j].size;
	return off;
}

static int xsave(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_x87_settle(cpu);
	enum xsave_kind kind = (enum xsave_kind)(insn->op >> 1);
	bool wide = insn->op & 1;
	uint64_t addr = emu_mem_addr(cpu, insn);
	uint64_t rfbm = requested(cpu);
	const struct emu_regs *r = &cpu->regs;
	int rc;
	if (addr & 63)
		return emu_fault(cpu, EMU_FAULT_GP);
	if (rfbm & ~XFEATURES_HELD)
		return emu_handler_unimplemented(cpu, insn);

	uint64_t inuse = in_use_mask(r, rfbm);
	/* The compacted xrstor sets MXCSR to 1F80H when SSE is absent, so
	 * xsavec keeps SSE whenever MXCSR differs from that. */
	if (kind == XSAVE_COMPACTED && (rfbm & 2) && r->mxcsr != 0x1f80)
		inuse |= 2;
	/* What is written: xsave writes every requested component; the init
	 * optimisation of xsaveopt and xsavec skips those not in use. */
	uint64_t written = kind == XSAVE_STANDARD ? rfbm : inuse;
	uint8_t area[XSAVE_AREA_MAX];
	uint8_t header[16];
	uint64_t xstate_bv;
	if (kind == XSAVE_COMPACTED) {
		uint64_t xcomp_bv = rfbm | (1ull << 63);
		xstate_bv = inuse;
		memcpy(header + 8, &xcomp_bv, 8);
	} else {
		/* Bits outside the request keep their value in memory. */
		uint64_t old;
		if ((rc = emu_mem_read_uint(cpu, addr + XSAVE_HEADER, 8, &old)) != EMU_OK)
			return rc;
		xstate_bv = (old & ~rfbm) | inuse;
	}
	memcpy(header, &xstate_bv, 8);

	/* Legacy region pieces first, in address order, then the header and
	 * the extended components. */
	x87_store(r, area, wide);
	mxcsr_store(r, area);
	component_copy((struct emu_regs *)r, 1, area, false);
	if (written & 1) {
		if ((rc = emu_mem_write(cpu, addr, area, 24)) != EMU_OK ||
		    (rc = emu_mem_write(cpu, addr + 32, area + 32, 128)) != EMU_OK)
			return rc;
	}
	bool mxcsr = kind == XSAVE_COMPACTED ? (written & 2) : (rfbm & 6);
	if (mxcsr && (rc = emu_mem_write(cpu, addr + 24, area + 24, 8)) != EMU_OK)
		return rc;
	if ((written & 2) &&
	    (rc = emu_mem_write(cpu, addr + 160, area + 160, 256)) != EMU_OK)
		return rc;
	if ((rc = emu_mem_write(cpu, addr + XSAVE_HEADER, header,
				kind == XSAVE_COMPACTED ? 16 : 8)) != EMU_OK)
		return rc;
	for (unsigned i = 2; i < 8; i++) {
		if (!(written >> i & 1))
			continue;
		unsigned off = kind == XSAVE_COMPACTED ? compacted_offset(rfbm, i)
						       : xcomponent[i].offset;
		component_copy((struct emu_regs *)r, i, area + off, false);
		if ((rc = emu_mem_write(cpu, addr + off, area + off,
					xcomponent[i].size)) != EMU_OK)
			return rc;
	}
	return EMU_OK;
}

static int xrstor(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	emu_x87_settle(cpu);
	bool wide = insn->op & 1;
	uint64_t addr = emu_mem_addr(cpu, insn);
	uint64_t rfbm = requested(cpu);
	int rc;
	if (addr & 63)
		return emu_fault(cpu, EMU_FAULT_GP);
	if (rfbm & ~XFEATURES_HELD)
		return emu_handler_unimplemented(cpu, insn);

	uint8_t header[64];
	if ((rc = emu_mem_read(cpu, addr + XSAVE_HEADER, header, 64)) != EMU_OK)
		return rc;
	uint64_t xstate_bv, xcomp_bv;
	memcpy(&xstate_bv, header, 8);
	memcpy(&xcomp_bv, header + 8, 8);
	bool compacted = xcomp_bv >> 63;
	static const uint8_t zeros[48];
	if (compacted) {
		uint64_t comp = xcomp_bv & ~(1ull << 63);
		if ((comp & ~xcr0()) || (xstate_bv & ~comp) ||
		    memcmp(header + 16, zeros, 48) != 0)
			return emu_fault(cpu, EMU_FAULT_GP);
	} else if ((xstate_bv & ~xcr0()) || xcomp_bv ||
		   memcmp(header + 16, zeros, 48) != 0) {
		return emu_fault(cpu, EMU_FAULT_GP);
	}

	/* Read everything before changing anything. */
	uint8_t area[XSAVE_AREA_MAX];
	if ((rc = emu_mem_read(cpu, addr, area, FX_SIZE)) != EMU_OK)
		return rc;
	uint64_t load = rfbm & xstate_bv;
	for (unsigned i = 2; i < 8; i++) {
		if (!(load >> i & 1))
			continue;
		unsigned off = compacted ? compacted_offset(xcomp_bv, i) : xcomponent[i].offset;
		if ((rc = emu_mem_read(cpu, addr + off, area + off, xcomponent[i].size)) != EMU_OK)
			return rc;
	}
	bool load_mxcsr = compacted ? (load & 2) : (rfbm & 6);
	if (load_mxcsr && (mxcsr_of(area) & ~MXCSR_MASK))
		return emu_fault(cpu, EMU_FAULT_GP);

	struct emu_regs *r = &cpu->regs;
	for (unsigned i = 0; i < 8; i++) {
		if (!(rfbm >> i & 1))
			continue;
		if (!(load >> i & 1)) {
			component_init(r, i);
		} else if (i == 0) {
			x87_load(r, area, wide);
		} else {
			unsigned off = i == 1 ? 0 : compacted ? compacted_offset(xcomp_bv, i)
							       : xcomponent[i].offset;
			component_copy(r, i, area + off, true);
		}
	}
	if (load_mxcsr)
		r->mxcsr = mxcsr_of(area);
	else if (compacted && (rfbm & 2))
		r->mxcsr = 0x1f80;
	return EMU_OK;
}

/* --- mxcsr ------------------------------------------------------------------- */

static int ldmxcsr(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint64_t v;
	int rc = emu_mem_read_uint(cpu, emu_mem_addr(cpu, insn), 4, &v);
	if (rc != EMU_OK)
		return rc;
	if (v & ~(uint64_t)MXCSR_MASK)
		return emu_fault(cpu, EMU_FAULT_GP);
	cpu->regs.mxcsr = (uint32_t)v;
	return EMU_OK;
}

static int stmxcsr(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return emu_mem_write_uint(cpu, emu_mem_addr(cpu, insn), 4, cpu->regs.mxcsr);
}

static int privileged(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)insn;
	return emu_fault(cpu, EMU_FAULT_GP);
}

static emu_handler *bind_memory(struct emu_insn *insn, emu_handler *h)
{
	return insn->nopnd >= 1 && insn->opnd[0].kind == EMU_OPND_MEM ? h : NULL;
}

static emu_handler *bind_fxsave(struct emu_insn *insn) { return bind_memory(insn, fxsave); }
static emu_handler *bind_fxrstor(struct emu_insn *insn) { return bind_memory(insn, fxrstor); }
static emu_handler *bind_xsave(struct emu_insn *insn) { return bind_memory(insn, xsave); }
static emu_handler *bind_xrstor(struct emu_insn *insn) { return bind_memory(insn, xrstor); }
static emu_handler *bind_ldmxcsr(struct emu_insn *insn) { return bind_memory(insn, ldmxcsr); }
static emu_handler *bind_stmxcsr(struct emu_insn *insn) { return bind_memory(insn, stmxcsr); }

#define XS(kind, wide) (uint8_t)((kind) * 2 + (wide))

static const struct emu_binding fpu_state_bindings[] = {
	{ ZYDIS_MNEMONIC_FXSAVE, 0, NULL, bind_fxsave },
	{ ZYDIS_MNEMONIC_FXSAVE64, 1, NULL, bind_fxsave },
	{ ZYDIS_MNEMONIC_FXRSTOR, 0, NULL, bind_fxrstor },
	{ ZYDIS_MNEMONIC_FXRSTOR64, 1, NULL, bind_fxrstor },
	{ ZYDIS_MNEMONIC_XSAVE, XS(XSAVE_STANDARD, 0), NULL, bind_xsave },
	{ ZYDIS_MNEMONIC_XSAVE64, XS(XSAVE_STANDARD, 1), NULL, bind_xsave },
	{ ZYDIS_MNEMONIC_XSAVEOPT, XS(XSAVE_OPT, 0), NULL, bind_xsave },
	{ ZYDIS_MNEMONIC_XSAVEOPT64, XS(XSAVE_OPT, 1), NULL, bind_xsave },
	{ ZYDIS_MNEMONIC_XSAVEC, XS(XSAVE_COMPACTED, 0), NULL, bind_xsave },
	{ ZYDIS_MNEMONIC_XSAVEC64, XS(XSAVE_COMPACTED, 1), NULL, bind_xsave },
	{ ZYDIS_MNEMONIC_XRSTOR, 0, NULL, bind_xrstor },
	{ ZYDIS_MNEMONIC_XRSTOR64, 1, NULL, bind_xrstor },
	{ ZYDIS_MNEMONIC_XSAVES, 0, privileged, NULL },
	{ ZYDIS_MNEMONIC_XSAVES64, 0, privileged, NULL },
	{ ZYDIS_MNEMONIC_XRSTORS, 0, privileged, NULL },
	{ ZYDIS_MNEMONIC_XRSTORS64, 0, privileged, NULL },
	{ ZYDIS_MNEMONIC_LDMXCSR, 0, NULL, bind_ldmxcsr },
	{ ZYDIS_MNEMONIC_VLDMXCSR, 0, NULL, bind_ldmxcsr },
	{ ZYDIS_MNEMONIC_STMXCSR, 0, NULL, bind_stmxcsr },
	{ ZYDIS_MNEMONIC_VSTMXCSR, 0, NULL, bind_stmxcsr },
};

EMU_FAMILY(emu_family_fpu_state, fpu_state_bindings);
