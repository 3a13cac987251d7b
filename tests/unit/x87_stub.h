/*
 * x87_stub.h — the scaffolding the x87 and FPU-state differential suites
 * share: run a few instruction bytes on the real CPU and in the emulator,
 * from the same x87/SSE state and memory, and capture both results.
 *
 * The code under test lives in an executable page, one slot per case,
 * followed by ret. Natively it runs with the input state loaded by
 * fxrstor64, rax/rbx/rflags set, and the result captured by fxsave64 and
 * fnstenv (for the full tag word); a signal it raises (SIGFPE for #MF,
 * SIGILL for #UD, SIGSEGV for #GP) is caught, with the state the kernel
 * saved. In the emulator the same bytes run at the same address over the
 * process's own memory (emu_self_memory_ops).
 */
#ifndef TTREC_TEST_X87_STUB_H
#define TTREC_TEST_X87_STUB_H

#include <check.h>
#include <setjmp.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "emulator/emu.h"

/* fxsave64 layout offsets. */
enum {
	FX_FCW = 0, FX_FSW = 2, FX_FTW = 4, FX_FOP = 6, FX_FIP = 8, FX_FDP = 16,
	FX_MXCSR = 24, FX_ST = 32, FX_XMM = 160, FX_SIZE = 512,
};

/* One native run's input and output; the layout is what the runner's
 * assembly addresses. */
struct native_ctx {
	uint8_t fx_in[FX_SIZE];
	uint8_t fx_out[FX_SIZE];
	uint8_t env_out[32];
	uint64_t rflags_in, rax_in, rbx_in, code;
	uint64_t rflags_out, rax_out;
	uint8_t host_fx[FX_SIZE];
} __attribute__((aligned(64)));

/* The outcome of one run, native or emulated. */
struct x87_outcome {
	int signal;          /* 0, or SIGFPE/SIGILL/SIGSEGV/SIGBUS */
	uint64_t fault_rip;  /* where the signal/fault happened */
	uint8_t fx[FX_SIZE]; /* x87/SSE state in fxsave64 layout */
	uint16_t full_tag;   /* as fnstenv shows it (not for signals) */
	uint64_t rax, rflags;
};

static sigjmp_buf x87_jmp;
static volatile sig_atomic_t x87_in_test;
static struct x87_outcome *x87_sig_out;

static inline void x87_on_signal(int sig, siginfo_t *si, void *uc_)
{
	(void)si;
	ucontext_t *uc = uc_;
	if (!x87_in_test) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	x87_sig_out->signal = sig;
	x87_sig_out->fault_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	memcpy(x87_sig_out->fx, uc->uc_mcontext.fpregs, FX_SIZE);
	siglongjmp(x87_jmp, 1);
}

static inline void x87_install_handlers(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = x87_on_signal;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigaction(SIGFPE, &sa, NULL);
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);
}

__attribute__((noinline, unused)) static void native_call(struct native_ctx *c)
{
	__asm__ volatile(
		"fxsave64 %c[host](%[c])\n\t"
		"sub $128, %%rsp\n\t"
		"push %%rbx\n\tpush %%rbp\n\tpush %%r12\n\tpush %%r13\n\tpush %%r14\n\tpush %%r15\n\t"
		"mov %[c], %%r15\n\t"
		"fxrstor64 (%%r15)\n\t"
		"pushq %c[fl_in](%%r15)\n\tpopfq\n\t"
		"mov %c[rax_in](%%r15), %%rax\n\t"
		"mov %c[rbx_in](%%r15), %%rbx\n\t"
		"call *%c[code](%%r15)\n\t"
		"pushfq\n\tpopq %c[fl_out](%%r15)\n\t"
		"mov %%rax, %c[rax_out](%%r15)\n\t"
		"fxsave64 %c[fx_out](%%r15)\n\t"
		"fnstenv %c[env](%%r15)\n\t"
		"fninit\n\t"
		"fxrstor64 %c[host](%%r15)\n\t"
		"pop %%r15\n\tpop %%r14\n\tpop %%r13\n\tpop %%r12\n\tpop %%rbp\n\tpop %%rbx\n\t"
		"add $128, %%rsp\n\t"
		:
		: [c] "r"(c), [host] "i"(offsetof(struct native_ctx, host_fx)),
		  [fl_in] "i"(offsetof(struct native_ctx, rflags_in)),
		  [rax_in] "i"(offsetof(struct native_ctx, rax_in)),
		  [rbx_in] "i"(offsetof(struct native_ctx, rbx_in)),
		  [code] "i"(offsetof(struct native_ctx, code)),
		  [fl_out] "i"(offsetof(struct native_ctx, rflags_out)),
		  [rax_out] "i"(offsetof(struct native_ctx, rax_out)),
		  [fx_out] "i"(offsetof(struct native_ctx, fx_out)),
		  [env] "i"(offsetof(struct native_ctx, env_out))
		: "rax", "memory", "cc");
}

/* Host x87/SSE state to come back to after a signal left the CPU in the
 * handler's state. */
static uint8_t x87_host_state[FX_SIZE] __attribute__((aligned(16)));

/* Runs the code at `code` natively from the given state. */
static inline void native_run(struct native_ctx *c, struct x87_outcome *out)
{
	memset(out, 0, sizeof(*out));
	__asm__ volatile("fxsave64 %0" : "=m"(x87_host_state));
	x87_sig_out = out;
	x87_in_test = 1;
	if (sigsetjmp(x87_jmp, 1) == 0) {
		native_call(c);
		x87_in_test = 0;
		memcpy(out->fx, c->fx_out, FX_SIZE);
		memcpy(&out->full_tag, c->env_out + 8, 2);
		out->rax = c->rax_out;
		out->rflags = c->rflags_out;
	} else {
		x87_in_test = 0;
		__asm__ volatile("fninit\n\tfxrstor64 %0" : : "m"(x87_host_state));
	}
}

static inline uint16_t fx_get16(const uint8_t *fx, unsigned off) { uint16_t v; memcpy(&v, fx + off, 2); return v; }
static inline uint64_t fx_get64(const uint8_t *fx, unsigned off) { uint64_t v; memcpy(&v, fx + off, 8); return v; }

/* Loads the emulator's registers from a CPU-normalised state: the
 * fxsave64 image and the full tag word fnstenv showed for it. */
static inline void emu_load_state(struct emu_regs *r, const uint8_t *fx, uint16_t full_tag)
{
	r->fcw = fx_get16(fx, FX_FCW);
	r->fsw = fx_get16(fx, FX_FSW);
	r->ftw = full_tag;
	r->fop = fx_get16(fx, FX_FOP);
	r->fip = fx_get64(fx, FX_FIP);
	r->fdp = fx_get64(fx, FX_FDP);
	memcpy(&r->mxcsr, fx + FX_MXCSR, 4);
	unsigned top = (r->fsw >> 11) & 7;
	for (unsigned i = 0; i < 8; i++) {
		memset(&r->st[(top + i) & 7], 0, sizeof(r->st[0]));
		memcpy(r->st[(top + i) & 7].bytes, fx + FX_ST + 16 * i, 10);
	}
	for (unsigned i = 0; i < 16; i++)
		memcpy(&r->zmm[i], fx + FX_XMM + 16 * i, 16);
}

/* The emulator's x87 state in fxsave64 layout (x87 part and MXCSR; the
 * abridged tag derived from the full one). */
static inline void emu_store_state(const struct emu_regs *r, uint8_t *fx, uint16_t *full_tag)
{
	memset(fx, 0, 160);
	memcpy(fx + FX_FCW, &r->fcw, 2);
	memcpy(fx + FX_FSW, &r->fsw, 2);
	uint8_t abridged = 0;
	for (unsigned i = 0; i < 8; i++)
		if (((r->ftw >> (2 * i)) & 3) != 3)
			abridged |= (uint8_t)(1u << i);
	fx[FX_FTW] = abridged;
	memcpy(fx + FX_FOP, &r->fop, 2);
	memcpy(fx + FX_FIP, &r->fip, 8);
	memcpy(fx + FX_FDP, &r->fdp, 8);
	memcpy(fx + FX_MXCSR, &r->mxcsr, 4);
	unsigned top = (r->fsw >> 11) & 7;
	for (unsigned i = 0; i < 8; i++)
		memcpy(fx + FX_ST + 16 * i, r->st[(top + i) & 7].bytes, 10);
	*full_tag = r->ftw;
}

static inline int emu_fault_signal(enum emu_fault_vector v)
{
	switch (v) {
	case EMU_FAULT_MF: return SIGFPE;
	case EMU_FAULT_UD: return SIGILL;
	case EMU_FAULT_GP: case EMU_FAULT_PF: return SIGSEGV;
	case EMU_FAULT_AC: return SIGBUS;
	default: return -1;
	}
}

/*
 * Runs `ninsns` instructions at c->code in the emulator from the state of
 * `in` (a CPU-normalised native outcome). Returns false, with a reason in
 * `why`, when the emulator stopped for something the CPU cannot show
 * (unimplemented instruction).
 */
static inline bool emu_run_case(struct emu_cpu *cpu, const struct native_ctx *c,
			 const struct x87_outcome *in, unsigned ninsns,
			 struct x87_outcome *out, char *why, size_t why_size)
{
	struct emu_regs *r = emu_regs(cpu);
	memset(out, 0, sizeof(*out));
	emu_load_state(r, in->fx, in->full_tag);
	r->gpr[EMU_RAX] = c->rax_in;
	r->gpr[EMU_RBX] = c->rbx_in;
	r->rflags = c->rflags_in;
	r->rip = c->code;
	x87_sig_out = out;
	x87_in_test = 1;
	if (sigsetjmp(x87_jmp, 1) != 0) {
		x87_in_test = 0;
		__asm__ volatile("fninit\n\tfxrstor64 %0" : : "m"(x87_host_state));
		snprintf(why, why_size, "emulator raised signal %d", out->signal);
		return false;
	}
	enum emu_exit e = emu_run(cpu, ninsns);
	x87_in_test = 0;
	const struct emu_exit_info *x = emu_exit_info(cpu);
	if (e == EMU_EXIT_UNIMPLEMENTED) {
		snprintf(why, why_size, "unimplemented %s", x->mnemonic);
		return false;
	}
	if (e == EMU_EXIT_FAULT) {
		out->signal = emu_fault_signal(x->fault);
		out->fault_rip = r->rip;
	}
	emu_store_state(r, out->fx, &out->full_tag);
	out->rax = r->gpr[EMU_RAX];
	out->rflags = r->rflags;
	return true;
}

/* Whether the native fxsave image's FIP/FDP/FOP can be compared. They are
 * model-specific: a CPU other than the modelled one (AMD's) leaves them
 * out of fxsave/xsave images (stores zeros) unless an unmasked exception
 * is pending (FSW.ES), which the modelled CPU stores always. */
static inline bool x87_pointers_saved(const uint8_t *native_fx)
{
	return emu_host_is_modelled_vendor() || (fx_get16(native_fx, FX_FSW) & 0x80);
}

/* Describes the first difference between two outcomes; "" when equal.
 * The full tag word is compared only when neither run was interrupted.
 * `fdp_by_model`: the code's FDP depends on the CPU's FDP update policy
 * (see the caller), so on another vendor's CPU it is not compared. */
static inline void x87_compare_fdp(const struct x87_outcome *n, const struct x87_outcome *e,
				   bool fdp_by_model, char *diff, size_t size)
{
	static const struct { const char *name; unsigned off, len; } fields[] = {
		{ "fcw", FX_FCW, 2 }, { "fsw", FX_FSW, 2 }, { "ftw(abridged)", FX_FTW, 1 },
		{ "fop", FX_FOP, 2 }, { "fip", FX_FIP, 8 }, { "fdp", FX_FDP, 8 },
		{ "mxcsr", FX_MXCSR, 4 },
	};
	diff[0] = 0;
	if (n->signal != e->signal) {
		snprintf(diff, size, "signal native %d emulator %d", n->signal, e->signal);
		return;
	}
	if (n->signal && n->fault_rip != e->fault_rip) {
		snprintf(diff, size, "fault rip native %#lx emulator %#lx",
			 (unsigned long)n->fault_rip, (unsigned long)e->fault_rip);
		return;
	}
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		uint64_t a = 0, b = 0;
		memcpy(&a, n->fx + fields[i].off, fields[i].len);
		memcpy(&b, e->fx + fields[i].off, fields[i].len);
		bool pointer = fields[i].off == FX_FOP || fields[i].off == FX_FIP ||
			       fields[i].off == FX_FDP;
		if (pointer && !x87_pointers_saved(n->fx))
			continue;
		if (fields[i].off == FX_FDP && fdp_by_model && !emu_host_is_modelled_vendor())
			continue;
		if (a != b) {
			snprintf(diff, size, "%s native %#lx emulator %#lx", fields[i].name,
				 (unsigned long)a, (unsigned long)b);
			return;
		}
	}
	for (unsigned i = 0; i < 8; i++)
		if (memcmp(n->fx + FX_ST + 16 * i, e->fx + FX_ST + 16 * i, 10) != 0) {
			uint64_t nm, em;
			uint16_t nx, ex;
			memcpy(&nm, n->fx + FX_ST + 16 * i, 8);
			memcpy(&nx, n->fx + FX_ST + 16 * i + 8, 2);
			memcpy(&em, e->fx + FX_ST + 16 * i, 8);
			memcpy(&ex, e->fx + FX_ST + 16 * i + 8, 2);
			snprintf(diff, size, "st(%u) native %04x:%016lx emulator %04x:%016lx",
				 i, nx, (unsigned long)nm, ex, (unsigned long)em);
			return;
		}
	if (n->signal)
		return;
	if (n->full_tag != e->full_tag) {
		snprintf(diff, size, "tag word native %#x emulator %#x", n->full_tag, e->full_tag);
		return;
	}
	if (n->rax != e->rax) {
		snprintf(diff, size, "rax native %#lx emulator %#lx",
			 (unsigned long)n->rax, (unsigned long)e->rax);
		return;
	}
	if ((n->rflags ^ e->rflags) & EMU_STATUS_FLAGS)
		snprintf(diff, size, "rflags native %#lx emulator %#lx",
			 (unsigned long)n->rflags, (unsigned long)e->rflags);
}

static inline void x87_compare(const struct x87_outcome *n, const struct x87_outcome *e,
			       char *diff, size_t size)
{
	x87_compare_fdp(n, e, false, diff, size);
}

/* --- inputs ---------------------------------------------------------------- */

/* xorshift64*: deterministic, seeded per suite. */
static uint64_t x87_rand_state = 0x9e3779b97f4a7c15ull;
static inline uint64_t x87_rand(void)
{
	uint64_t x = x87_rand_state;
	x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
	x87_rand_state = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* An 80-bit value from sign/exponent and significand. */
static inline void x87_make80(uint8_t *dst, uint16_t se, uint64_t mant)
{
	memcpy(dst, &mant, 8);
	memcpy(dst + 8, &se, 2);
}

/* Edge and random extended values: zeros, denormals, pseudo-denormals,
 * unnormals, infinities, pseudo-infinities, NaNs, huge and tiny
 * exponents, integers, and ordinary numbers. */
static inline void x87_random80(uint8_t *dst)
{
	static const struct { uint16_t se; uint64_t m; } edges[] = {
		{ 0x0000, 0 }, { 0x8000, 0 },                          /* +-0 */
		{ 0x3fff, 1ull << 63 }, { 0xbfff, 1ull << 63 },        /* +-1 */
		{ 0x0000, 1 }, { 0x8000, 0x7fffffffffffffffull },      /* denormals */
		{ 0x0000, 0x8000000000000001ull },                     /* pseudo-denormal */
		{ 0x4000, 0x4000000000000000ull },                     /* unnormal */
		{ 0x7fff, 1ull << 63 }, { 0xffff, 1ull << 63 },        /* +-inf */
		{ 0x7fff, 0 },                                         /* pseudo-infinity */
		{ 0x7fff, 0xc000000000000000ull }, { 0xffff, 0xc000000000000001ull }, /* QNaN */
		{ 0x7fff, 0x8000000000000001ull }, { 0xffff, 0xa000000000000000ull }, /* SNaN */
		{ 0x7fff, 0x4000000000000000ull },                     /* pseudo-NaN */
		{ 0x7ffe, ~0ull }, { 0xfffe, ~0ull },                  /* largest */
		{ 0x0001, 1ull << 63 },                                /* smallest normal */
		{ 0x403e, 1ull << 63 }, { 0x403d, ~0ull },             /* 2^63, int64 range */
		{ 0x401e, 0x8000000080000000ull },                     /* near 2^31 */
		{ 0x400e, 0xffff000000000000ull },                     /* near 2^16 */
		{ 0x3ffe, 0x8000000000000000ull }, { 0xbffe, 0xc000000000000000ull }, /* 0.5, -0.75 */
		{ 0x4000, 0xc90fdaa22168c235ull },                     /* pi */
		{ 0x4040, 0xc90fdaa22168c235ull },                     /* pi * 2^64 */
		{ 0x3c00, 0x8000000000000000ull }, { 0x4400, 0xa000000000000000ull },
		{ 0x3f80, 0xffffff0000000000ull }, { 0x3c01, 0x8000000000000000ull }, /* float/double limits */
		{ 0x43fe, 0xfffffffffffff800ull }, { 0x407e, 0xffffff8000000000ull },
	};
	uint64_t pick = x87_rand() % 4;
	if (pick == 0) {
		unsigned i = (unsigned)(x87_rand() % (sizeof(edges) / sizeof(edges[0])));
		x87_make80(dst, edges[i].se, edges[i].m);
	} else if (pick == 1) {
		uint16_t se = (uint16_t)x87_rand();
		x87_make80(dst, se, x87_rand() | (1ull << 63));
	} else {
		/* Ordinary numbers near 1, sometimes with short significands so
		 * that rounding and integer conversions are exact or halfway. */
		uint16_t se = (uint16_t)(0x3fff - 70 + x87_rand() % 140) | (uint16_t)((x87_rand() & 1) << 15);
		uint64_t m = x87_rand() | (1ull << 63);
		if (x87_rand() & 1)
			m &= ~0ull << (x87_rand() % 64);
		x87_make80(dst, se, m);
	}
}

/* Memory operand contents: random bytes, or an edge value of one of the
 * memory formats at the start. */
static inline void x87_random_memory(uint8_t *mem, size_t size)
{
	for (size_t i = 0; i < size; i++)
		mem[i] = (uint8_t)x87_rand();
	switch (x87_rand() % 8) {
	case 0: x87_random80(mem); break;
	case 1: { /* float: edge exponents */
		static const uint32_t f[] = { 0, 0x80000000u, 1, 0x807fffffu, 0x7f800000u,
			0xff800000u, 0x7fc00000u, 0x7f800001u, 0x3f800000u, 0x7f7fffffu };
		memcpy(mem, &f[x87_rand() % 10], 4);
		break;
	}
	case 2: { /* double */
		static const uint64_t d[] = { 0, 1ull << 63, 1, 0x800fffffffffffffull,
			0x7ff0000000000000ull, 0x7ff8000000000000ull, 0x7ff0000000000001ull,
			0x3ff0000000000000ull, 0x7fefffffffffffffull, 0xbff8000000000000ull };
		memcpy(mem, &d[x87_rand() % 10], 8);
		break;
	}
	case 3: { /* integers: small, extreme */
		static const uint64_t v[] = { 0, 1, ~0ull, 0x8000, 0x7fff, 0x80000000u,
			0x7fffffffu, 1ull << 63, 0x7fffffffffffffffull, 12345 };
		memcpy(mem, &v[x87_rand() % 10], 8);
		break;
	}
	case 4: /* packed BCD: valid digits, random sign */
		for (int i = 0; i < 9; i++)
			mem[i] = (uint8_t)((x87_rand() % 10) << 4 | (x87_rand() % 10));
		mem[9] = (x87_rand() & 1) ? 0x80 : 0;
		break;
	default:
		break;
	}
}

/* A random x87 state in fxsave64 layout: control word with every
 * precision and rounding control and (mostly masked) exception masks,
 * status word with random TOP, condition codes and sometimes flags,
 * random tags and registers. */
static inline void x87_random_state(uint8_t *fx)
{
	memset(fx, 0, FX_SIZE);
	uint16_t masks = (x87_rand() % 4) ? 0x3f : (uint16_t)(x87_rand() & 0x3f);
	uint16_t fcw = (uint16_t)(0x40 | masks | (x87_rand() % 4) << 8 | (x87_rand() % 4) << 10);
	uint16_t fsw = (uint16_t)(x87_rand() & 0x4700);   /* C0..C3 */
	fsw |= (uint16_t)((x87_rand() % 8) << 11);         /* TOP */
	if (x87_rand() % 4 == 0)
		fsw |= (uint16_t)(x87_rand() & 0x7f);
	memcpy(fx + FX_FCW, &fcw, 2);
	memcpy(fx + FX_FSW, &fsw, 2);
	fx[FX_FTW] = (uint8_t)(x87_rand() % 3 ? x87_rand() : (x87_rand() % 2 ? 0xff : 0));
	uint16_t fop = (uint16_t)(x87_rand() & 0x7ff);
	memcpy(fx + FX_FOP, &fop, 2);
	uint64_t fip = x87_rand(), fdp = x87_rand();
	memcpy(fx + FX_FIP, &fip, 8);
	memcpy(fx + FX_FDP, &fdp, 8);
	uint32_t mxcsr = 0x1f80;
	memcpy(fx + FX_MXCSR, &mxcsr, 4);
	uint32_t mxcsr_mask = 0xffff;
	memcpy(fx + FX_MXCSR + 4, &mxcsr_mask, 4);
	for (unsigned i = 0; i < 8; i++)
		x87_random80(fx + FX_ST + 16 * i);
}

/* An executable page for test code. */
static inline uint8_t *x87_code_page(size_t size)
{
	uint8_t *p = mmap(NULL, size, PROT_READ | PROT_WRITE | PROT_EXEC,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	memset(p, 0xcc, size);
	return p;
}

/*
 * Normalises `fx` through the CPU (fxrstor64 then fxsave64/fnstenv around a
 * bare ret), so both runs start from a state the CPU can hold. Returns
 * false if the CPU refused it.
 */
static inline bool x87_normalise(struct native_ctx *c, const uint8_t *ret_code,
			  struct x87_outcome *state)
{
	c->code = (uint64_t)(uintptr_t)ret_code;
	native_run(c, state);
	if (state->signal)
		return false;
	memcpy(c->fx_in, state->fx, FX_SIZE);
	return true;
}

#endif
