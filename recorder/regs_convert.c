/*
 * regs_convert.c — user_regs_struct + XSAVE area <-> struct emu_regs.
 *
 * The XSAVE area is in the standard (non-compacted) format the kernel uses
 * for ptrace: the 512-byte FXSAVE legacy region, the 64-byte header whose
 * first word is XSTATE_BV, then each component at the offset CPUID leaf 0xD
 * gives for it. Offsets are taken from this machine's CPUID, which is the
 * CPU the tracee runs on.
 */
#include <cpuid.h>
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "recorder/regs_convert.h"

/* Legacy region (FXSAVE64 layout). */
enum {
	FX_FCW = 0, FX_FSW = 2, FX_FTW = 4, FX_FOP = 6, FX_FIP = 8, FX_FDP = 16,
	FX_MXCSR = 24, FX_ST = 32, FX_XMM = 160, XSAVE_HEADER = 512,
};

/* XSAVE state components the emulator holds. */
enum {
	XC_X87 = 0, XC_SSE = 1, XC_AVX = 2, XC_OPMASK = 5, XC_ZMM_HI256 = 6,
	XC_HI16_ZMM = 7, XC_COUNT = 8,
};

static struct {
	uint32_t offset[XC_COUNT]; /* 0 when the CPU lacks the component */
	uint32_t size[XC_COUNT];
} layout;
static pthread_once_t layout_once = PTHREAD_ONCE_INIT;

static void layout_init(void)
{
	unsigned a, b, c, d;
	if (__get_cpuid_max(0, NULL) < 0xd)
		return;
	__cpuid_count(1, 0, a, b, c, d);
	if (!(c & bit_OSXSAVE))
		return;
	/* The components the kernel enabled (XCR0), not merely those the CPU
	 * has: the kernel rejects XSTATE_BV bits outside them. */
	uint32_t xcr0_lo, xcr0_hi;
	__asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
	uint64_t supported = xcr0_lo | ((uint64_t)xcr0_hi << 32);
	for (unsigned i = XC_AVX; i < XC_COUNT; i++) {
		if (!(supported & (1ull << i)))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		layout.size[i] = a;
		layout.offset[i] = b;
	}
}

/* Where component i lives in a buffer of xstate_size bytes, or NULL. */
static uint8_t *component(const void *xstate, size_t xstate_size, unsigned i)
{
	pthread_once(&layout_once, layout_init);
	uint32_t off = layout.offset[i], size = layout.size[i];
	if (off == 0 || off + size > xstate_size)
		return NULL;
	return (uint8_t *)xstate + off;
}

static uint64_t xstate_bv(const void *xstate, size_t xstate_size)
{
	uint64_t bv = 0;
	if (xstate_size >= XSAVE_HEADER + 8)
		memcpy(&bv, (const uint8_t *)xstate + XSAVE_HEADER, 8);
	else if (xstate_size >= XSAVE_HEADER)
		bv = (1u << XC_X87) | (1u << XC_SSE); /* a bare FXSAVE image */
	return bv;
}

/* The tag FSTENV reports for a non-empty register: 00 valid, 01 zero,
 * 10 special (NaN, infinity, denormal, unnormal). */
static unsigned x87_tag_for(const emu_x87_reg *r)
{
	uint16_t exp = (uint16_t)(r->bytes[8] | (r->bytes[9] << 8)) & 0x7fff;
	uint64_t mant;
	memcpy(&mant, r->bytes, 8);
	if (exp == 0x7fff)
		return 2;
	if (exp == 0)
		return mant == 0 ? 1 : 2;
	return (mant >> 63) ? 0 : 2;
}

uint8_t regs_abridged_tag(uint16_t ftw)
{
	uint8_t t = 0;
	for (unsigned i = 0; i < 8; i++)
		if (((ftw >> (2 * i)) & 3) != 3)
			t |= (uint8_t)(1u << i);
	return t;
}

static void x87_from_legacy(const uint8_t *fx, struct emu_regs *r)
{
	memcpy(&r->fcw, fx + FX_FCW, 2);
	memcpy(&r->fsw, fx + FX_FSW, 2);
	memcpy(&r->fop, fx + FX_FOP, 2);
	memcpy(&r->fip, fx + FX_FIP, 8);
	memcpy(&r->fdp, fx + FX_FDP, 8);
	unsigned top = (r->fsw >> 11) & 7;
	/* The legacy region holds ST(0)..ST(7) in stack order; emu_regs is
	 * indexed by physical register. */
	for (unsigned slot = 0; slot < 8; slot++) {
		emu_x87_reg *p = &r->st[(top + slot) & 7];
		memset(p, 0, sizeof(*p));
		memcpy(p->bytes, fx + FX_ST + 16 * slot, 10);
	}
	uint8_t abridged = fx[FX_FTW];
	r->ftw = 0;
	for (unsigned i = 0; i < 8; i++) {
		unsigned tag = (abridged >> i) & 1 ? x87_tag_for(&r->st[i]) : 3;
		r->ftw |= (uint16_t)(tag << (2 * i));
	}
}

static void x87_to_legacy(const struct emu_regs *r, uint8_t *fx)
{
	memcpy(fx + FX_FCW, &r->fcw, 2);
	memcpy(fx + FX_FSW, &r->fsw, 2);
	fx[FX_FTW] = regs_abridged_tag(r->ftw);
	fx[FX_FTW + 1] = 0;
	memcpy(fx + FX_FOP, &r->fop, 2);
	memcpy(fx + FX_FIP, &r->fip, 8);
	memcpy(fx + FX_FDP, &r->fdp, 8);
	unsigned top = (r->fsw >> 11) & 7;
	for (unsigned slot = 0; slot < 8; slot++) {
		memset(fx + FX_ST + 16 * slot, 0, 16);
		memcpy(fx + FX_ST + 16 * slot, r->st[(top + slot) & 7].bytes, 10);
	}
}

static void x87_init(struct emu_regs *r)
{
	r->fcw = 0x37f;
	r->fsw = r->fop = 0;
	r->fip = r->fdp = 0;
	r->ftw = 0xffff;
	memset(r->st, 0, sizeof(r->st));
}

static void gprs_from_kernel(const struct user_regs_struct *k, struct emu_regs *r)
{
	r->gpr[EMU_RAX] = k->rax; r->gpr[EMU_RCX] = k->rcx;
	r->gpr[EMU_RDX] = k->rdx; r->gpr[EMU_RBX] = k->rbx;
	r->gpr[EMU_RSP] = k->rsp; r->gpr[EMU_RBP] = k->rbp;
	r->gpr[EMU_RSI] = k->rsi; r->gpr[EMU_RDI] = k->rdi;
	r->gpr[EMU_R8] = k->r8;   r->gpr[EMU_R9] = k->r9;
	r->gpr[EMU_R10] = k->r10; r->gpr[EMU_R11] = k->r11;
	r->gpr[EMU_R12] = k->r12; r->gpr[EMU_R13] = k->r13;
	r->gpr[EMU_R14] = k->r14; r->gpr[EMU_R15] = k->r15;
	r->rip = k->rip;
	r->rflags = k->eflags;
	r->fs_base = k->fs_base;
	r->gs_base = k->gs_base;
	r->seg_cs = (uint16_t)k->cs; r->seg_ss = (uint16_t)k->ss;
	r->seg_ds = (uint16_t)k->ds; r->seg_es = (uint16_t)k->es;
	r->seg_fs = (uint16_t)k->fs; r->seg_gs = (uint16_t)k->gs;
}

static void gprs_to_kernel(const struct emu_regs *r, struct user_regs_struct *k)
{
	k->rax = r->gpr[EMU_RAX]; k->rcx = r->gpr[EMU_RCX];
	k->rdx = r->gpr[EMU_RDX]; k->rbx = r->gpr[EMU_RBX];
	k->rsp = r->gpr[EMU_RSP]; k->rbp = r->gpr[EMU_RBP];
	k->rsi = r->gpr[EMU_RSI]; k->rdi = r->gpr[EMU_RDI];
	k->r8 = r->gpr[EMU_R8];   k->r9 = r->gpr[EMU_R9];
	k->r10 = r->gpr[EMU_R10]; k->r11 = r->gpr[EMU_R11];
	k->r12 = r->gpr[EMU_R12]; k->r13 = r->gpr[EMU_R13];
	k->r14 = r->gpr[EMU_R14]; k->r15 = r->gpr[EMU_R15];
	k->rip = r->rip;
	k->eflags = r->rflags;
	k->fs_base = r->fs_base;
	k->gs_base = r->gs_base;
	k->cs = r->seg_cs; k->ss = r->seg_ss;
	k->ds = r->seg_ds; k->es = r->seg_es;
	k->fs = r->seg_fs; k->gs = r->seg_gs;
}

void regs_from_kernel(const struct user_regs_struct *kregs, const void *xstate,
		      size_t xstate_size, struct emu_regs *out)
{
	memset(out, 0, sizeof(*out));
	gprs_from_kernel(kregs, out);
	const uint8_t *fx = xstate;
	uint64_t bv = xstate_bv(xstate, xstate_size);
	bool legacy = xstate_size >= XSAVE_HEADER;

	if (legacy && (bv & (1u << XC_X87)))
		x87_from_legacy(fx, out);
	else
		x87_init(out);
	/* MXCSR is saved with either the SSE or the AVX component and has no
	 * init-state override: it is always what the buffer says. */
	out->mxcsr = 0x1f80;
	if (legacy)
		memcpy(&out->mxcsr, fx + FX_MXCSR, 4);
	if (legacy && (bv & (1u << XC_SSE)))
		for (unsigned i = 0; i < 16; i++)
			memcpy(out->zmm[i].b, fx + FX_XMM + 16 * i, 16);

	const uint8_t *c;
	if ((bv & (1u << XC_AVX)) && (c = component(xstate, xstate_size, XC_AVX)))
		for (unsigned i = 0; i < 16; i++)
			memcpy(out->zmm[i].b + 16, c + 16 * i, 16);
	if ((bv & (1u << XC_OPMASK)) && (c = component(xstate, xstate_size, XC_OPMASK)))
		memcpy(out->k, c, sizeof(out->k));
	if ((bv & (1u << XC_ZMM_HI256)) && (c = component(xstate, xstate_size, XC_ZMM_HI256)))
		for (unsigned i = 0; i < 16; i++)
			memcpy(out->zmm[i].b + 32, c + 32 * i, 32);
	if ((bv & (1u << XC_HI16_ZMM)) && (c = component(xstate, xstate_size, XC_HI16_ZMM)))
		for (unsigned i = 0; i < 16; i++)
			memcpy(out->zmm[16 + i].b, c + 64 * i, 64);
}

void regs_to_kernel(const struct emu_regs *in, struct user_regs_struct *kregs,
		    void *xstate, size_t xstate_size)
{
	gprs_to_kernel(in, kregs);
	if (xstate_size < XSAVE_HEADER)
		return;
	uint8_t *fx = xstate;
	x87_to_legacy(in, fx);
	memcpy(fx + FX_MXCSR, &in->mxcsr, 4);
	for (unsigned i = 0; i < 16; i++)
		memcpy(fx + FX_XMM + 16 * i, in->zmm[i].b, 16);
	uint64_t written = (1u << XC_X87) | (1u << XC_SSE);

	uint8_t *c;
	if ((c = component(xstate, xstate_size, XC_AVX))) {
		for (unsigned i = 0; i < 16; i++)
			memcpy(c + 16 * i, in->zmm[i].b + 16, 16);
		written |= 1u << XC_AVX;
	}
	if ((c = component(xstate, xstate_size, XC_OPMASK))) {
		memcpy(c, in->k, sizeof(in->k));
		written |= 1u << XC_OPMASK;
	}
	if ((c = component(xstate, xstate_size, XC_ZMM_HI256))) {
		for (unsigned i = 0; i < 16; i++)
			memcpy(c + 32 * i, in->zmm[i].b + 32, 32);
		written |= 1u << XC_ZMM_HI256;
	}
	if ((c = component(xstate, xstate_size, XC_HI16_ZMM))) {
		for (unsigned i = 0; i < 16; i++)
			memcpy(c + 64 * i, in->zmm[16 + i].b, 64);
		written |= 1u << XC_HI16_ZMM;
	}
	if (xstate_size >= XSAVE_HEADER + 8) {
		uint64_t bv = xstate_bv(xstate, xstate_size) | written;
		memcpy(fx + XSAVE_HEADER, &bv, 8);
	}
}
