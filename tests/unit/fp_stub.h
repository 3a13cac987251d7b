/*
 * fp_stub.h — the differential harness the SSE/AVX floating-point,
 * conversion and string suites share: one instruction runs natively in this
 * process (a machine-code stub loads a full register state, executes it and
 * saves the state back) and in the emulator on the same bytes and the same
 * state; the two results must agree bit for bit: GPRs, RFLAGS status
 * flags, MXCSR, ymm0-15, mm0-7 and the memory operand.
 *
 * Instructions are encoded with the Zydis encoder. Memory operands are
 * [rsi], which points at the state's own `mem` buffer; rdi holds the state
 * while the stub runs, so tested instructions must not use rdi or rsp.
 * An unmasked SIMD exception natively is a SIGFPE, caught here; the emulator
 * must then report #XM and leave the state unchanged.
 *
 * Tallies count cases and failures per instruction form, printed at the end
 * of each test, the harness's report.
 */
#ifndef TTREC_TESTS_FP_STUB_H
#define TTREC_TESTS_FP_STUB_H

#include <check.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <Zydis/Zydis.h>

#include "emulator/emu.h"

struct fp_state {
	uint64_t gpr[16];          /* 0 */
	uint64_t rflags;           /* 128 */
	uint32_t mxcsr;            /* 136 */
	uint32_t unused;           /* 140 */
	uint64_t code;             /* 144: where the stub calls */
	uint32_t host_mxcsr;       /* 152: the stub's scratch */
	uint8_t pad[36];
	uint8_t ymm[16][32];       /* 192 */
	uint8_t mem[64];           /* 704 */
	uint64_t mm[8];            /* 768 */
} __attribute__((aligned(64)));

_Static_assert(offsetof(struct fp_state, rflags) == 128, "stub layout");
_Static_assert(offsetof(struct fp_state, mxcsr) == 136, "stub layout");
_Static_assert(offsetof(struct fp_state, code) == 144, "stub layout");
_Static_assert(offsetof(struct fp_state, host_mxcsr) == 152, "stub layout");
_Static_assert(offsetof(struct fp_state, ymm) == 192, "stub layout");
_Static_assert(offsetof(struct fp_state, mem) == 704, "stub layout");
_Static_assert(offsetof(struct fp_state, mm) == 768, "stub layout");

/* void fp_native_run(struct fp_state *s): loads s, calls s->code (the
 * instruction followed by ret), stores the state back into s. */
void fp_native_run(struct fp_state *s);
#define FP_YMM(i) "vmovdqu " #i "*32+192(%rdi), %ymm" #i "\n"
#define FP_YMM_OUT(i) "vmovdqu %ymm" #i ", " #i "*32+192(%rdi)\n"
#define FP_MM(i) "movq " #i "*8+768(%rdi), %mm" #i "\n"
#define FP_MM_OUT(i) "movq %mm" #i ", " #i "*8+768(%rdi)\n"
__asm__(".text\n.globl fp_native_run\n.type fp_native_run, @function\n"
	"fp_native_run:\n"
	"push %rbp\npush %rbx\npush %r12\npush %r13\npush %r14\npush %r15\n"
	"sub $8, %rsp\n"
	"stmxcsr 152(%rdi)\n"
	FP_YMM(0) FP_YMM(1) FP_YMM(2) FP_YMM(3) FP_YMM(4) FP_YMM(5) FP_YMM(6) FP_YMM(7)
	FP_YMM(8) FP_YMM(9) FP_YMM(10) FP_YMM(11) FP_YMM(12) FP_YMM(13) FP_YMM(14) FP_YMM(15)
	FP_MM(0) FP_MM(1) FP_MM(2) FP_MM(3) FP_MM(4) FP_MM(5) FP_MM(6) FP_MM(7)
	"mov 0(%rdi), %rax\nmov 8(%rdi), %rcx\nmov 16(%rdi), %rdx\nmov 24(%rdi), %rbx\n"
	"mov 40(%rdi), %rbp\nmov 48(%rdi), %rsi\nmov 64(%rdi), %r8\nmov 72(%rdi), %r9\n"
	"mov 80(%rdi), %r10\nmov 88(%rdi), %r11\nmov 96(%rdi), %r12\nmov 104(%rdi), %r13\n"
	"mov 112(%rdi), %r14\nmov 120(%rdi), %r15\n"
	"pushq 128(%rdi)\npopfq\n"
	"ldmxcsr 136(%rdi)\n"
	"call *144(%rdi)\n"
	"pushfq\npopq 128(%rdi)\n"
	"stmxcsr 136(%rdi)\n"
	"ldmxcsr 152(%rdi)\n"
	"mov %rax, 0(%rdi)\nmov %rcx, 8(%rdi)\nmov %rdx, 16(%rdi)\nmov %rbx, 24(%rdi)\n"
	"mov %rbp, 40(%rdi)\nmov %rsi, 48(%rdi)\nmov %r8, 64(%rdi)\nmov %r9, 72(%rdi)\n"
	"mov %r10, 80(%rdi)\nmov %r11, 88(%rdi)\nmov %r12, 96(%rdi)\nmov %r13, 104(%rdi)\n"
	"mov %r14, 112(%rdi)\nmov %r15, 120(%rdi)\n"
	FP_YMM_OUT(0) FP_YMM_OUT(1) FP_YMM_OUT(2) FP_YMM_OUT(3) FP_YMM_OUT(4) FP_YMM_OUT(5)
	FP_YMM_OUT(6) FP_YMM_OUT(7) FP_YMM_OUT(8) FP_YMM_OUT(9) FP_YMM_OUT(10) FP_YMM_OUT(11)
	FP_YMM_OUT(12) FP_YMM_OUT(13) FP_YMM_OUT(14) FP_YMM_OUT(15)
	FP_MM_OUT(0) FP_MM_OUT(1) FP_MM_OUT(2) FP_MM_OUT(3) FP_MM_OUT(4) FP_MM_OUT(5)
	FP_MM_OUT(6) FP_MM_OUT(7)
	"emms\nvzeroupper\n"
	"add $8, %rsp\n"
	"pop %r15\npop %r14\npop %r13\npop %r12\npop %rbx\npop %rbp\n"
	"ret\n.size fp_native_run, .-fp_native_run\n");

/* --- deterministic random numbers ------------------------------------- */

static uint64_t fp_rng_state = 0x9e3779b97f4a7c15ull;

static inline void fp_seed(uint64_t seed)
{
	fp_rng_state = seed ? seed : 1;
}

static inline uint64_t fp_rand(void)
{
	uint64_t x = fp_rng_state;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return fp_rng_state = x;
}

/* --- edge values ---------------------------------------------------- */

static const uint32_t fp_edge_f32[] = {
	0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007fffff, 0x00400000,
	0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
	0x7fc00000, 0xffc00000, 0x7fc12345, 0x7f800001, 0xff812345, 0x7fbfffff,
	0x3f800000, 0xbf800000, 0x3fc00000, 0x40200000, 0xc0200000, 0x3f000000,
	0xbf000000, 0x4b000001, 0x4afffffe, 0x4affffff, 0x4f000000, 0xcf000000,
	0x4effffff, 0xceffffff, 0x5f000000, 0xdf000000, 0x5effffff, 0x3effffff,
	0x40400000, 0x3eaaaaab, 0x00000010, 0x0ff00000, 0x70000000, 0x10000000,
};

static const uint64_t fp_edge_f64[] = {
	0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
	0x800fffffffffffffull, 0x0008000000000000ull, 0x0010000000000000ull,
	0x8010000000000000ull, 0x7fefffffffffffffull, 0xffefffffffffffffull,
	0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
	0xfff8000000000000ull, 0x7ff8000000012345ull, 0x7ff0000000000001ull,
	0xfff4000000000000ull, 0x3ff0000000000000ull, 0xbff0000000000000ull,
	0x3ff8000000000000ull, 0x4004000000000000ull, 0xc004000000000000ull,
	0x3fe0000000000000ull, 0xbfe0000000000000ull, 0x4330000000000001ull,
	0x432fffffffffffffull, 0x41e0000000000000ull, 0xc1e0000000000000ull,
	0x41dfffffffffffffull, 0x41dfffffffc00000ull, 0xc1e0000000100000ull,
	0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43dfffffffffffffull,
	0x47efffffe0000000ull, 0x47efffff00000000ull, 0x380fffffffffffffull,
	0x36a0000000000000ull, 0x3810000000000000ull, 0x3fd5555555555555ull,
	0x4008000000000000ull, 0x7fe0000000000000ull, 0x0020000000000000ull,
};

static const uint64_t fp_edge_int[] = {
	0, 1, 0xffffffffffffffffull, 0x7fffffff, 0x80000000, 0xffffffff80000000ull,
	0x7fffffffffffffffull, 0x8000000000000000ull, 0x00ffffff, 0x01000001,
	0x0020000000000001ull, 0x001fffffffffffffull, 0xffffffff, 12345, 0x7fffffc0,
};

/* A float likely to interact with another: moderate exponent, few bits. */
static inline uint32_t fp_random_f32(void)
{
	uint64_t r = fp_rand();
	switch (r % 8) {
	case 0: case 1:
		return fp_edge_f32[(r >> 8) % (sizeof(fp_edge_f32) / 4)];
	case 2:
		return (uint32_t)(r >> 16);
	case 3: /* tiny: near the denormal range */
		return (uint32_t)((r >> 32) & 0x80ffffff);
	case 4: /* huge */
		return (uint32_t)(((r >> 32) & 0x80ffffff) | 0x7e000000);
	default: {
		uint32_t sign = (uint32_t)(r >> 63) << 31;
		uint32_t exp = 120 + (uint32_t)((r >> 8) % 16);
		uint32_t frac = (uint32_t)(r >> 20) & 0x7fffff;
		if (r & 0x10000)
			frac &= 0x7ff000; /* short fractions: exact sums, ties */
		return sign | exp << 23 | frac;
	}
	}
}

static inline uint64_t fp_random_f64(void)
{
	uint64_t r = fp_rand();
	switch (r % 8) {
	case 0: case 1:
		return fp_edge_f64[(r >> 8) % (sizeof(fp_edge_f64) / 8)];
	case 2:
		return fp_rand();
	case 3:
		return fp_rand() & 0x801fffffffffffffull;
	case 4:
		return (fp_rand() & 0x801fffffffffffffull) | 0x7fc0000000000000ull;
	default: {
		uint64_t sign = r & (1ull << 63);
		uint64_t exp = 1016 + (r >> 8) % 16;
		uint64_t frac = fp_rand() & ((1ull << 52) - 1);
		if (r & 0x10000)
			frac &= 0xffffff0000000ull;
		return sign | exp << 52 | frac;
	}
	}
}

static inline uint64_t fp_random_int(void)
{
	uint64_t r = fp_rand();
	switch (r % 4) {
	case 0:
		return fp_edge_int[(r >> 8) % (sizeof(fp_edge_int) / 8)];
	case 1:
		return (uint64_t)(int64_t)(int32_t)fp_rand();
	case 2:
		return fp_rand() >> (fp_rand() % 64);
	default:
		return fp_rand();
	}
}

enum fp_elem { FP_F32, FP_F64, FP_INT, FP_BYTES };

/* Fills n bytes with elements of the given kind. */
static inline void fp_fill(uint8_t *p, size_t n, enum fp_elem kind)
{
	for (size_t i = 0; i < n;) {
		if (kind == FP_F32) {
			uint32_t v = fp_random_f32();
			memcpy(p + i, &v, 4);
			i += 4;
		} else {
			uint64_t v = kind == FP_F64 ? fp_random_f64() :
				     kind == FP_INT ? fp_random_int() : fp_rand();
			size_t k = n - i < 8 ? n - i : 8;
			memcpy(p + i, &v, k);
			i += k;
		}
	}
}

/* A random state: vector registers and memory of the given element kind,
 * random GPRs (never rsp/rdi), every status flag random. */
static inline void fp_random_state(struct fp_state *s, enum fp_elem kind)
{
	memset(s, 0, sizeof(*s));
	for (int i = 0; i < 16; i++)
		s->gpr[i] = fp_random_int();
	s->gpr[4] = s->gpr[7] = 0;
	s->gpr[6] = 0; /* rsi: offset from the state's memory buffer */
	s->rflags = 0x202 | (fp_rand() & 0x8d5);
	s->mxcsr = 0x1f80;
	for (int i = 0; i < 16; i++)
		fp_fill(s->ymm[i], 32, kind);
	fp_fill(s->mem, 64, kind);
	for (int i = 0; i < 8; i++)
		s->mm[i] = fp_rand();
}

/* --- encoding ---------------------------------------------------------- */

struct fp_insn {
	uint8_t bytes[16];
	uint8_t len;
	char text[80];
};

static inline ZydisEncoderOperand fp_reg(ZydisRegister r)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_REGISTER;
	o.reg.value = r;
	return o;
}

/* [rsi] of `size` bytes. */
static inline ZydisEncoderOperand fp_mem(unsigned size)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_MEMORY;
	o.mem.base = ZYDIS_REGISTER_RSI;
	o.mem.size = (ZyanU16)size;
	return o;
}

static inline ZydisEncoderOperand fp_imm(uint64_t v)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
	o.imm.u = v;
	return o;
}

/* Encodes an instruction (VEX or legacy); fails the test if Zydis cannot. */
static inline struct fp_insn fp_encode(ZydisMnemonic m, bool vex, unsigned n,
				       const ZydisEncoderOperand *ops)
{
	ZydisEncoderRequest req;
	memset(&req, 0, sizeof(req));
	req.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	req.allowed_encodings = vex ? ZYDIS_ENCODABLE_ENCODING_VEX
				    : ZYDIS_ENCODABLE_ENCODING_LEGACY;
	req.mnemonic = m;
	req.operand_count = (ZyanU8)n;
	for (unsigned i = 0; i < n; i++)
		req.operands[i] = ops[i];
	struct fp_insn in;
	memset(&in, 0, sizeof(in));
	ZyanUSize len = sizeof(in.bytes);
	ZyanStatus st = ZydisEncoderEncodeInstruction(&req, in.bytes, &len);
	ck_assert_msg(ZYAN_SUCCESS(st), "cannot encode %s (%u operands, vex %d)",
		      ZydisMnemonicGetString(m), n, vex);
	in.len = (uint8_t)len;
	emu_disassemble(0, in.bytes, in.len, in.text, sizeof(in.text));
	return in;
}

/* --- running and comparing ----------------------------------------------- */

struct fp_harness {
	struct emu_cpu *cpu;
	uint8_t *native_code;
	uint8_t *emu_code;
	/* Per-form tally for the report. */
	char form[80];
	unsigned cases, failures, faults;
	/* Set by a suite whose forms have model-specific results: on a host
	 * other than the modelled CPU, called before comparing a case the
	 * CPU completed, it gives `emulated` the native value of each
	 * element whose difference is model-specific (and only those). */
	void (*model_specific)(const struct fp_harness *h, const struct fp_state *in,
			       const struct fp_state *native, struct fp_state *emulated);
};

static sigjmp_buf fp_sigfpe_jump;

static void fp_on_sigfpe(int sig)
{
	(void)sig;
	siglongjmp(fp_sigfpe_jump, 1);
}

static inline void fp_harness_init(struct fp_harness *h)
{
	memset(h, 0, sizeof(*h));
	h->cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(h->cpu);
	h->native_code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->native_code, MAP_FAILED);
	h->emu_code = h->native_code + 4096;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fp_on_sigfpe;
	sigaction(SIGFPE, &sa, NULL);
}

static inline void fp_harness_fini(struct fp_harness *h)
{
	emu_free(h->cpu);
	munmap(h->native_code, 8192);
}

/* Prints the tally of the current form and starts a new one. */
static inline void fp_begin_form(struct fp_harness *h, const struct fp_insn *in)
{
	if (h->cases)
		printf("  %-44s cases %6u  #XM %5u  failures %u\n", h->form, h->cases,
		       h->faults, h->failures);
	h->cases = h->failures = h->faults = 0;
	snprintf(h->form, sizeof(h->form), "%s", in ? in->text : "");
	if (in) {
		memcpy(h->native_code, in->bytes, in->len);
		h->native_code[in->len] = 0xc3; /* ret */
		memcpy(h->emu_code, in->bytes, in->len);
		h->emu_code[in->len] = 0x0f; /* ud2 */
		h->emu_code[in->len + 1] = 0x0b;
		emu_invalidate_code(h->cpu, 0, UINT64_MAX);
	}
}

/* Runs natively; false when the instruction raised SIGFPE (#XM). */
static inline bool fp_run_native(struct fp_harness *h, struct fp_state *s)
{
	s->gpr[6] = (uint64_t)(uintptr_t)s->mem;
	s->code = (uint64_t)(uintptr_t)h->native_code;
	if (sigsetjmp(fp_sigfpe_jump, 1)) {
		/* The stub never finished: restore the host's FP state. */
		uint32_t def = 0x1f80;
		__asm__ volatile("ldmxcsr %0\n\temms\n\tvzeroupper" : : "m"(def));
		return false;
	}
	fp_native_run(s);
	s->gpr[6] -= (uint64_t)(uintptr_t)s->mem;
	return true;
}

/* Runs in the emulator; returns the exit and the fault vector. */
static inline enum emu_exit fp_run_emulated(struct fp_harness *h, struct fp_state *s,
					    enum emu_fault_vector *fault)
{
	struct emu_regs *r = emu_regs(h->cpu);
	s->gpr[6] = (uint64_t)(uintptr_t)s->mem;
	memcpy(r->gpr, s->gpr, sizeof(r->gpr));
	r->rflags = s->rflags;
	r->mxcsr = s->mxcsr;
	for (int i = 0; i < 16; i++) {
		memset(&r->zmm[i], 0, sizeof(r->zmm[i]));
		memcpy(r->zmm[i].b, s->ymm[i], 32);
	}
	for (int i = 0; i < 8; i++)
		r->st[i].mmx = s->mm[i];
	r->rip = (uint64_t)(uintptr_t)h->emu_code;
	enum emu_exit e = emu_run(h->cpu, 1);
	*fault = emu_exit_info(h->cpu)->fault;
	memcpy(s->gpr, r->gpr, sizeof(r->gpr));
	s->rflags = r->rflags;
	s->gpr[6] -= (uint64_t)(uintptr_t)s->mem;
	s->mxcsr = r->mxcsr;
	for (int i = 0; i < 16; i++)
		memcpy(s->ymm[i], r->zmm[i].b, 32);
	for (int i = 0; i < 8; i++)
		s->mm[i] = r->st[i].mmx;
	return e;
}

/* First difference between two result states, as text; "" when equal.
 * rsi holds the offset from each state's own memory buffer. */
static inline void fp_diff(const struct fp_state *want, const struct fp_state *got,
			   char *out, size_t size)
{
	out[0] = 0;
	for (int i = 0; i < 16; i++) {
		uint64_t w = want->gpr[i], g = got->gpr[i];
		if (i != 4 && i != 7 && w != g) {
			snprintf(out, size, "gpr%d want %#llx got %#llx", i,
				 (unsigned long long)w, (unsigned long long)g);
			return;
		}
	}
	if ((want->rflags ^ got->rflags) & 0x8d5) {
		snprintf(out, size, "rflags want %#llx got %#llx",
			 (unsigned long long)want->rflags, (unsigned long long)got->rflags);
		return;
	}
	if (want->mxcsr != got->mxcsr) {
		snprintf(out, size, "mxcsr want %#x got %#x", want->mxcsr, got->mxcsr);
		return;
	}
	for (int i = 0; i < 16; i++)
		if (memcmp(want->ymm[i], got->ymm[i], 32)) {
			uint64_t w[4], g[4];
			memcpy(w, want->ymm[i], 32);
			memcpy(g, got->ymm[i], 32);
			snprintf(out, size, "ymm%d want %016llx:%016llx:%016llx:%016llx "
				 "got %016llx:%016llx:%016llx:%016llx", i,
				 (unsigned long long)w[3], (unsigned long long)w[2],
				 (unsigned long long)w[1], (unsigned long long)w[0],
				 (unsigned long long)g[3], (unsigned long long)g[2],
				 (unsigned long long)g[1], (unsigned long long)g[0]);
			return;
		}
	if (memcmp(want->mem, got->mem, 64)) {
		snprintf(out, size, "memory differs");
		return;
	}
	for (int i = 0; i < 8; i++)
		if (want->mm[i] != got->mm[i]) {
			snprintf(out, size, "mm%d want %#llx got %#llx", i,
				 (unsigned long long)want->mm[i], (unsigned long long)got->mm[i]);
			return;
		}
}

/* Describes the inputs of a failing case. */
static inline void fp_print_inputs(const struct fp_state *s)
{
	uint64_t q[4];
	printf("    mxcsr %#x rflags %#llx\n", s->mxcsr, (unsigned long long)s->rflags);
	for (int i = 0; i < 4; i++) {
		memcpy(q, s->ymm[i], 32);
		printf("    ymm%d %016llx:%016llx:%016llx:%016llx\n", i,
		       (unsigned long long)q[3], (unsigned long long)q[2],
		       (unsigned long long)q[1], (unsigned long long)q[0]);
	}
	memcpy(q, s->mem, 32);
	printf("    mem  %016llx:%016llx:%016llx:%016llx\n", (unsigned long long)q[3],
	       (unsigned long long)q[2], (unsigned long long)q[1], (unsigned long long)q[0]);
	printf("    rax %#llx rcx %#llx rdx %#llx\n", (unsigned long long)s->gpr[0],
	       (unsigned long long)s->gpr[1], (unsigned long long)s->gpr[2]);
}

/* Runs the current form on `in` both ways; returns true when they agree. */
static inline bool fp_check(struct fp_harness *h, const struct fp_state *in)
{
	struct fp_state native = *in, emulated = *in, expect;
	bool completed = fp_run_native(h, &native);
	enum emu_fault_vector fault;
	enum emu_exit e = fp_run_emulated(h, &emulated, &fault);
	char diff[200];
	h->cases++;
	if (completed) {
		expect = native;
		if (e != EMU_EXIT_LIMIT) {
			snprintf(diff, sizeof(diff), "emulator stopped: %s %s", emu_exit_name(e),
				 e == EMU_EXIT_UNIMPLEMENTED ? emu_exit_info(h->cpu)->mnemonic
							     : emu_fault_name(fault));
			goto fail;
		}
	} else {
		h->faults++;
		expect = *in;
		if (e != EMU_EXIT_FAULT || fault != EMU_FAULT_XM) {
			snprintf(diff, sizeof(diff), "native #XM, emulator %s %s",
				 emu_exit_name(e), emu_fault_name(fault));
			goto fail;
		}
	}
	if (completed && h->model_specific && !emu_host_is_modelled_vendor())
		h->model_specific(h, in, &native, &emulated);
	fp_diff(&expect, &emulated, diff, sizeof(diff));
	if (!diff[0])
		return true;
fail:
	if (h->failures++ < 3) {
		printf("FAIL %s: %s\n", h->form, diff);
		fp_print_inputs(in);
	}
	return false;
}

/* The MXCSR values a case runs under: every rounding mode with every
 * DAZ/FTZ combination, all exceptions masked, sticky flags clear. */
static inline uint32_t fp_mxcsr_mode(unsigned i)
{
	uint32_t rc = (i & 3) << 13, daz = (i & 4) ? 0x40 : 0, ftz = (i & 8) ? 0x8000 : 0;
	return 0x1f80 | rc | daz | ftz;
}
#define FP_MXCSR_MODES 16

/* A random MXCSR with some exceptions unmasked and some flags already set. */
static inline uint32_t fp_mxcsr_unmasked(void)
{
	uint64_t r = fp_rand();
	return (fp_mxcsr_mode((unsigned)r) & ~0x1f80u) |
	       (uint32_t)(((r >> 8) | (r >> 16)) & 0x1f80) | (uint32_t)((r >> 24) & 0x3f);
}

/* Runs `cases` random states of `kind` through the current form under every
 * MXCSR mode, and some under unmasked exceptions. Returns the failures. */
static inline unsigned fp_check_random(struct fp_harness *h, enum fp_elem kind,
				       unsigned cases)
{
	unsigned failed = 0;
	struct fp_state s;
	for (unsigned c = 0; c < cases; c++) {
		fp_random_state(&s, kind);
		for (unsigned m = 0; m < FP_MXCSR_MODES; m++) {
			s.mxcsr = fp_mxcsr_mode(m);
			failed += !fp_check(h, &s);
		}
		s.mxcsr = fp_mxcsr_unmasked();
		failed += !fp_check(h, &s);
	}
	return failed;
}

#endif
