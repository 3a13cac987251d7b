/*
 * test_emu_fpu_state.c — fxsave/fxrstor, xsave/xsaveopt/xsavec/xrstor and
 * ldmxcsr/stmxcsr (legacy and VEX) against the CPU. Each case loads a
 * random x87/SSE/AVX/AVX-512 state (AVX-512's on a CPU that has it:
 * host_held) into the CPU with xrstor, runs one
 * instruction natively and in the emulator over the same memory, and
 * compares the memory the instruction wrote byte for byte, the faults, and
 * the whole state afterwards.
 */
#include <check.h>
#include <cpuid.h>
#include <stdlib.h>

#include "check_main.h"
#include "tests/shared/model_specific.h"
#include "x87_stub.h"

#define AREA 4096
#define HELD 0xe7u /* x87 SSE AVX opmask ZMM_Hi256 Hi16_ZMM */

/* The held components this CPU's XSAVE has (XCR0): the CPU is the oracle
 * for those only. One without AVX-512 can neither load a state that has
 * its components nor show what saving them writes, so the cases ask for
 * the others alone (the modelled CPU's behaviour for AVX-512's is then
 * compared on CPUs that have it). */
static unsigned host_held(void)
{
	return HELD & (unsigned)host_xcr0();
}

/* Native run: xrstor64 the input state (all held components), run the
 * code with edx:eax and rbx set, then xsave64 the state and fnstenv. */
struct xctx {
	uint8_t in[AREA];
	uint8_t out[AREA];
	uint8_t host[AREA];
	uint8_t env[32];
	uint64_t rax, rdx, rbx, code;
} __attribute__((aligned(64)));

__attribute__((noinline)) static void xnative_call(struct xctx *c)
{
	__asm__ volatile(
		"mov $0xe7, %%eax\n\txor %%edx, %%edx\n\t"
		"xsave64 %c[host](%[c])\n\t"
		"sub $128, %%rsp\n\t"
		"push %%rbx\n\tpush %%rbp\n\tpush %%r15\n\t"
		"mov %[c], %%r15\n\t"
		"mov $0xe7, %%eax\n\txor %%edx, %%edx\n\t"
		"xrstor64 (%%r15)\n\t"
		"mov %c[rax](%%r15), %%rax\n\tmov %c[rdx](%%r15), %%rdx\n\t"
		"mov %c[rbx](%%r15), %%rbx\n\t"
		"call *%c[code](%%r15)\n\t"
		"mov $0xe7, %%eax\n\txor %%edx, %%edx\n\t"
		"xsave64 %c[out](%%r15)\n\t"
		"fnstenv %c[env](%%r15)\n\t"
		"fninit\n\t"
		"mov $0xe7, %%eax\n\txor %%edx, %%edx\n\t"
		"xrstor64 %c[host](%%r15)\n\t"
		"pop %%r15\n\tpop %%rbp\n\tpop %%rbx\n\t"
		"add $128, %%rsp\n\t"
		:
		: [c] "r"(c), [host] "i"(offsetof(struct xctx, host)),
		  [out] "i"(offsetof(struct xctx, out)), [env] "i"(offsetof(struct xctx, env)),
		  [rax] "i"(offsetof(struct xctx, rax)), [rdx] "i"(offsetof(struct xctx, rdx)),
		  [rbx] "i"(offsetof(struct xctx, rbx)), [code] "i"(offsetof(struct xctx, code))
		: "rax", "rdx", "memory", "cc");
}

static uint8_t xhost_state[AREA] __attribute__((aligned(64)));

/* The standard-format XSAVE layout is model-specific: images are
 * translated between the model's layout and the host's
 * (tests/shared/model_specific.h). */
static void std_model_to_host(uint8_t *img)
{
	ck_assert(xsave_std_layout_init());
	xsave_std_model_to_host(img);
}

static void std_host_to_model(uint8_t *img)
{
	ck_assert(xsave_std_layout_init());
	xsave_std_host_to_model(img);
}

/* Returns the signal the code raised (0 if none). c->in and c->out are in
 * the model's layout. */
static int xnative_run(struct xctx *c, struct x87_outcome *sig)
{
	std_model_to_host(c->in);
	memset(sig, 0, sizeof(*sig));
	memset(c->out, 0, AREA);
	__asm__ volatile("xsave64 %0" : "=m"(xhost_state) : "a"(HELD), "d"(0) : "memory");
	x87_sig_out = sig;
	x87_in_test = 1;
	if (sigsetjmp(x87_jmp, 1) == 0) {
		xnative_call(c);
		x87_in_test = 0;
	} else {
		x87_in_test = 0;
		__asm__ volatile("fninit\n\txrstor64 %0" : : "m"(xhost_state), "a"(HELD), "d"(0) : "memory");
	}
	std_host_to_model(c->in);
	std_host_to_model(c->out);
	return sig->signal;
}

/*
 * MXCSR_MASK (bytes 28..31 of the legacy area) is model-specific
 * (emu_model_specific): the MXCSR bits the CPU supports. The modelled
 * CPU's is EMU_MODELLED_MXCSR_MASK; AMD's also has bit 17 (MM, the
 * misaligned-exception mask), which makes the modelled CPU's reserved bit
 * 17 loadable there. On another vendor's CPU the suite expects the host's
 * mask (emu_host_mxcsr_mask) where the emulator stores its own, and, where
 * ldmxcsr loads a bit only the host supports, the modelled CPU's #GP from
 * the emulator instead of the host's outcome.
 */
#define MODEL_MXCSR_MASK EMU_MODELLED_MXCSR_MASK

/* Whether the native image's MXCSR_MASK at `native` stands for the
 * emulator's at `emulated`: equal, or the host's own mask where the
 * emulator stored the model's, on another vendor's CPU. */
static bool same_mxcsr_mask(const uint8_t *native, const uint8_t *emulated)
{
	uint32_t n, e;
	memcpy(&n, native, 4);
	memcpy(&e, emulated, 4);
	return n == e || (!emu_host_is_modelled_vendor() && e == MODEL_MXCSR_MASK &&
			  n == emu_host_mxcsr_mask());
}

/* Emulator registers from a standard-format area written by xsave64 over
 * zeros (components in their initial configuration read as zeros). */
static void regs_from_area(struct emu_regs *r, const uint8_t *a, uint16_t full_tag)
{
	emu_load_state(r, a, full_tag);
	for (unsigned i = 0; i < 16; i++) {
		memcpy(r->zmm[i].b + 16, a + 576 + 16 * i, 16);
		memcpy(r->zmm[i].b + 32, a + 1152 + 32 * i, 32);
		memcpy(&r->zmm[16 + i], a + 1664 + 64 * i, 64);
	}
	memcpy(r->k, a + 1088, 64);
}

/* The emulator's state in the same layout, for comparison. */
static void regs_to_area(const struct emu_regs *r, uint8_t *a)
{
	uint16_t tag;
	memset(a, 0, AREA);
	emu_store_state(r, a, &tag);
	/* The emulator has no MXCSR_MASK register: the CPU's, as xsave
	 * stores it (the host's own on another vendor's CPU, see above). */
	uint32_t mask = emu_host_is_modelled_vendor() ? MODEL_MXCSR_MASK : emu_host_mxcsr_mask();
	memcpy(a + FX_MXCSR + 4, &mask, 4);
	for (unsigned i = 0; i < 16; i++) {
		memcpy(a + FX_XMM + 16 * i, &r->zmm[i], 16);
		memcpy(a + 576 + 16 * i, r->zmm[i].b + 16, 16);
		memcpy(a + 1152 + 32 * i, r->zmm[i].b + 32, 32);
		memcpy(a + 1664 + 64 * i, &r->zmm[16 + i], 64);
	}
	memcpy(a + 1088, r->k, 64);
}

/* Compares the register state parts of two areas (not the header). */
static bool same_state(const uint8_t *n, const uint8_t *e, char *diff, size_t size)
{
	static const struct { const char *name; unsigned off, len; } parts[] = {
		{ "x87", 0, 24 }, { "mxcsr", 24, 8 }, { "st", 32, 128 }, { "xmm", 160, 256 },
		{ "ymm_hi", 576, 256 }, { "k", 1088, 64 }, { "zmm_hi256", 1152, 512 },
		{ "hi16_zmm", 1664, 1024 },
	};
	for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		for (unsigned j = 0; j < parts[i].len; j++)
			if (n[parts[i].off + j] != e[parts[i].off + j]) {
				snprintf(diff, size, "state %s byte %u native %#x emulator %#x",
					 parts[i].name, j, n[parts[i].off + j], e[parts[i].off + j]);
				return false;
			}
	return true;
}

/* A random input area: x87 from x87_random_state, each vector component
 * either random (in use) or absent (initial configuration). */
static void random_area(uint8_t *a)
{
	memset(a, 0, AREA);
	x87_random_state(a);
	uint64_t bv = 1;
	for (unsigned i = 160; i < 416; i++)
		a[i] = (uint8_t)x87_rand();
	if (x87_rand() % 4)
		bv |= 2;
	static const struct { unsigned bit, off, len; } comps[] = {
		{ 2, 576, 256 }, { 5, 1088, 64 }, { 6, 1152, 512 }, { 7, 1664, 1024 },
	};
	for (size_t c = 0; c < 4; c++) {
		if (x87_rand() % 3 == 0 || !(host_held() & (1u << comps[c].bit)))
			continue;
		bv |= 1ull << comps[c].bit;
		for (unsigned i = 0; i < comps[c].len; i++)
			a[comps[c].off + i] = (uint8_t)x87_rand();
	}
	if (!(bv & 2))
		memset(a + 160, 0, 256);
	if (x87_rand() % 2) {
		uint32_t mxcsr = (uint32_t)(x87_rand() & 0xffff);
		memcpy(a + FX_MXCSR, &mxcsr, 4);
	}
	memcpy(a + 512, &bv, 8);
}

/* Clears the XSTATE_BV bit of every vector component whose saved contents
 * are all zero, so that restoring the area leaves the CPU tracking it as
 * not in use: the emulator's model of in-use. */
static void canonical_xstate_bv(uint8_t *a)
{
	static const struct { unsigned bit, off, len; } comps[] = {
		{ 1, 160, 256 }, { 2, 576, 256 }, { 5, 1088, 64 }, { 6, 1152, 512 },
		{ 7, 1664, 1024 },
	};
	uint64_t bv;
	memcpy(&bv, a + 512, 8);
	for (size_t c = 0; c < sizeof(comps) / sizeof(comps[0]); c++) {
		bool zero = true;
		for (unsigned i = 0; i < comps[c].len && zero; i++)
			zero = a[comps[c].off + i] == 0;
		if (zero)
			bv &= ~(1ull << comps[c].bit);
	}
	memcpy(a + 512, &bv, 8);
}

static const struct fcase {
	const char *what;
	uint8_t len;
	uint8_t bytes[8];
	uint8_t kind; /* what the memory at [rbx] holds before */
	bool standard; /* reads or writes a standard-format XSAVE image */
} cases[] = {
#define M_RANDOM 0
#define M_SAVED 1   /* an xsave64 image of another random state */
#define M_COMPACT 2 /* an xsavec64 image */
#define M_MXCSR 3   /* a 32-bit MXCSR value, sometimes invalid */
	{ "fxsave", 3, { 0x0f, 0xae, 0x03 }, M_RANDOM, false },
	{ "fxsave64", 4, { 0x48, 0x0f, 0xae, 0x03 }, M_RANDOM, false },
	{ "fxrstor", 3, { 0x0f, 0xae, 0x0b }, M_SAVED, false },
	{ "fxrstor64", 4, { 0x48, 0x0f, 0xae, 0x0b }, M_SAVED, false },
	{ "xsave", 3, { 0x0f, 0xae, 0x23 }, M_RANDOM, true },
	{ "xsave64", 4, { 0x48, 0x0f, 0xae, 0x23 }, M_SAVED, true },
	{ "xsaveopt64", 4, { 0x48, 0x0f, 0xae, 0x33 }, M_SAVED, true },
	{ "xsavec64", 4, { 0x48, 0x0f, 0xc7, 0x23 }, M_RANDOM, false },
	{ "xsavec", 3, { 0x0f, 0xc7, 0x23 }, M_COMPACT, false },
	{ "xrstor64", 4, { 0x48, 0x0f, 0xae, 0x2b }, M_SAVED, true },
	{ "xrstor64 (compacted)", 4, { 0x48, 0x0f, 0xae, 0x2b }, M_COMPACT, false },
	{ "xrstor (compacted)", 3, { 0x0f, 0xae, 0x2b }, M_COMPACT, false },
	{ "ldmxcsr", 3, { 0x0f, 0xae, 0x13 }, M_MXCSR, false },
	{ "stmxcsr", 3, { 0x0f, 0xae, 0x1b }, M_RANDOM, false },
	{ "vldmxcsr", 4, { 0xc5, 0xf8, 0xae, 0x13 }, M_MXCSR, false },
	{ "vstmxcsr", 4, { 0xc5, 0xf8, 0xae, 0x1b }, M_RANDOM, false },
};

/* Fills [rbx] as the case needs, using the CPU to produce save images. */
static void prepare_memory(struct xctx *c, uint8_t *mem, unsigned kind,
			   const uint8_t *save_code, const uint8_t *savec_code)
{
	for (unsigned i = 0; i < AREA; i++)
		mem[i] = (uint8_t)x87_rand();
	if (kind == M_MXCSR) {
		uint32_t v = (uint32_t)(x87_rand() & (x87_rand() % 4 ? 0xffff : 0x3ffff));
		memcpy(mem, &v, 4);
	} else if (kind == M_SAVED || kind == M_COMPACT) {
		struct x87_outcome sig;
		uint8_t keep[AREA];
		memcpy(keep, c->in, AREA);
		random_area(c->in);
		memset(mem, 0, AREA);
		c->rax = host_held();
		c->rdx = 0;
		c->rbx = (uint64_t)(uintptr_t)mem;
		c->code = (uint64_t)(uintptr_t)(kind == M_SAVED ? save_code : savec_code);
		ck_assert_int_eq(xnative_run(c, &sig), 0);
		memcpy(c->in, keep, AREA);
		if (kind == M_SAVED)
			std_host_to_model(mem);
	}
}

START_TEST(test_state_instructions)
{
	enum { ROUNDS = 400 };
	size_t n = sizeof(cases) / sizeof(cases[0]);
	struct xctx *c = aligned_alloc(64, sizeof(*c));
	uint8_t *mem = aligned_alloc(64, 2 * AREA), *mem_native = malloc(2 * AREA);
	uint8_t *mem_in = malloc(2 * AREA);
	uint8_t *code = x87_code_page((n + 2) * 16);
	uint8_t *save_code = code + n * 16, *savec_code = code + (n + 1) * 16;
	static const uint8_t xsave64[] = { 0x48, 0x0f, 0xae, 0x23, 0xc3 };
	static const uint8_t xsavec64[] = { 0x48, 0x0f, 0xc7, 0x23, 0xc3 };
	struct emu_cpu *cpu = emu_new(&emu_self_memory_ops, NULL);
	unsigned failures = 0, total = 0, faults = 0, counts[32] = { 0 }, fails[32] = { 0 };
	ck_assert_ptr_nonnull(cpu);
	memcpy(save_code, xsave64, sizeof(xsave64));
	memcpy(savec_code, xsavec64, sizeof(xsavec64));
	for (size_t i = 0; i < n; i++) {
		memcpy(code + 16 * i, cases[i].bytes, cases[i].len);
		code[16 * i + cases[i].len] = 0xc3;
	}
	x87_install_handlers();
	x87_rand_state = 0xa4093822299f31d0ull;

	for (unsigned round = 0; round < ROUNDS; round++)
		for (size_t i = 0; i < n; i++) {
			struct x87_outcome sig;
			char diff[160] = "";
			uint8_t before[AREA], native_after[AREA], emu_after[AREA];
			/* The CPU's view of a random state. */
			random_area(c->in);
			prepare_memory(c, mem, cases[i].kind, save_code, savec_code);
			/* Offsets 0 (aligned), 16 and 8 (misaligned for xsave/fxsave). */
			unsigned misalign = x87_rand() % 8 == 0 ? (x87_rand() % 2 ? 16 : 8) : 0;
			memmove(mem + misalign, mem, AREA);
			memcpy(mem_in, mem, 2 * AREA);
			uint32_t loaded;
			memcpy(&loaded, mem + misalign, 4);
			bool loads_host_only_bit = cases[i].kind == M_MXCSR && !emu_host_is_modelled_vendor() &&
						   (loaded & ~MODEL_MXCSR_MASK) &&
						   !(loaded & ~emu_host_mxcsr_mask());
			c->rax = x87_rand() % 4 ? host_held() : (x87_rand() & host_held());
			c->rdx = 0;
			c->rbx = (uint64_t)(uintptr_t)(mem + misalign);
			total++;
			counts[i]++;
			/* The CPU's in-use tracking also changes behind the
			 * program's back (a context switch restores state with
			 * the kernel's own xrstor), which shows in XSTATE_BV and
			 * the init optimisation for components holding their
			 * initial values. A case counts as failed only when it
			 * differs on three attempts. */
			for (int attempt = 0; attempt < 3; attempt++) {
				diff[0] = 0;
				/* Normalise: the state the CPU holds after xrstor of the
				 * input, through the bare ret that follows the case. */
				c->code = (uint64_t)(uintptr_t)(code + 16 * i + cases[i].len);
				ck_assert_int_eq(xnative_run(c, &sig), 0);
				memcpy(before, c->out, AREA);
				canonical_xstate_bv(before);
				uint16_t tag_before;
				memcpy(&tag_before, c->env + 8, 2);
				memcpy(c->in, before, AREA);

				c->code = (uint64_t)(uintptr_t)(code + 16 * i);
				memcpy(mem, mem_in, 2 * AREA);
				if (cases[i].standard)
					std_model_to_host(mem + misalign);
				int nsig = xnative_run(c, &sig);
				if (cases[i].standard)
					std_host_to_model(mem + misalign);
				memcpy(native_after, c->out, AREA);
				memcpy(mem_native, mem, 2 * AREA);
				faults += nsig != 0;

				memcpy(mem, mem_in, 2 * AREA);
				struct emu_regs *r = emu_regs(cpu);
				regs_from_area(r, before, tag_before);
				r->gpr[EMU_RAX] = c->rax;
				r->gpr[EMU_RDX] = c->rdx;
				r->gpr[EMU_RBX] = c->rbx;
				r->rip = c->code;
				enum emu_exit e = emu_run(cpu, 1);
				int esig = e == EMU_EXIT_FAULT ? emu_fault_signal(emu_exit_info(cpu)->fault) : 0;
				if (e == EMU_EXIT_UNIMPLEMENTED)
					snprintf(diff, sizeof(diff), "unimplemented");
				else if (loads_host_only_bit) {
					/* Model-specific (MXCSR_MASK above): the
					 * modelled CPU's #GP, not the host's load. */
					if (esig != SIGSEGV)
						snprintf(diff, sizeof(diff),
							 "reserved MXCSR bit: emulator signal %d", esig);
				} else if (esig != nsig)
					snprintf(diff, sizeof(diff), "signal native %d emulator %d", nsig, esig);
				else if (memcmp(mem, mem_native, misalign + 28) != 0 ||
					 !same_mxcsr_mask(mem_native + misalign + 28, mem + misalign + 28) ||
					 memcmp(mem + misalign + 32, mem_native + misalign + 32,
						2 * AREA - misalign - 32) != 0) {
					unsigned j = 0;
					while (mem[j] == mem_native[j] ||
					       (j - misalign - 28 < 4 &&
						same_mxcsr_mask(mem_native + misalign + 28, mem + misalign + 28)))
						j++;
					snprintf(diff, sizeof(diff), "memory byte %d native %#x emulator %#x",
						 (int)j - (int)misalign, mem_native[j], mem[j]);
				} else if (!nsig) {
					regs_to_area(r, emu_after);
					uint16_t ntag;
					memcpy(&ntag, c->env + 8, 2);
					if (same_state(native_after, emu_after, diff, sizeof(diff)) &&
					    ntag != r->ftw)
						snprintf(diff, sizeof(diff), "tag word native %#x emulator %#x",
							 ntag, r->ftw);
				}
				if (!diff[0])
					break;
			}
			if (diff[0]) {
				fails[i]++;
				if (failures++ < 20)
					fprintf(stderr, "  %s (rfbm %#lx, offset %u): %s\n", cases[i].what,
						(unsigned long)c->rax, misalign, diff);
			}
		}
	fprintf(stderr, "fpu state: %u cases, %u failures, %u native faults\n",
		total, failures, faults);
	for (size_t i = 0; i < n; i++)
		fprintf(stderr, "  %-22s %5u %4u\n", cases[i].what, counts[i], fails[i]);
	ck_assert_uint_gt(faults, 50);
	ck_assert_uint_eq(failures, 0);
	emu_free(cpu);
	free(c);
	free(mem);
	free(mem_native);
	free(mem_in);
}
END_TEST

/* emu_xstate_header: where xsave, xsaveopt and xsavec (plain and REX.W)
 * store XSTATE_BV, and their request; fxsave stores no header. */
START_TEST(test_xstate_header)
{
	static const struct { uint8_t len, bytes[8]; } with[] = {
		{ 4, { 0x0f, 0xae, 0x63, 0x40 } },       /* xsave [rbx+0x40] */
		{ 5, { 0x48, 0x0f, 0xae, 0x73, 0x40 } }, /* xsaveopt64 [rbx+0x40] */
		{ 4, { 0x0f, 0xc7, 0x63, 0x40 } },       /* xsavec [rbx+0x40] */
		{ 5, { 0x48, 0x0f, 0xc7, 0x63, 0x40 } }, /* xsavec64 [rbx+0x40] */
	};
	static const uint8_t fxsave[] = { 0x0f, 0xae, 0x43, 0x40 }, xrstor[] = { 0x0f, 0xae, 0x6b, 0x40 };
	struct emu_regs r;
	memset(&r, 0, sizeof(r));
	r.gpr[EMU_RBX] = 0x10000;
	r.gpr[EMU_RAX] = 0xffffffff00000003ull; /* the upper half is not edx */
	r.gpr[EMU_RDX] = 0x5;
	struct emu_xstate_header h;
	for (size_t i = 0; i < sizeof(with) / sizeof(with[0]); i++) {
		ck_assert(emu_xstate_header(with[i].bytes, with[i].len, &r, &h));
		ck_assert_uint_eq(h.xstate_bv_addr, 0x10000 + 0x40 + 512);
		ck_assert_uint_eq(h.requested, 0x500000003ull);
	}
	ck_assert(!emu_xstate_header(fxsave, sizeof(fxsave), &r, &h));
	ck_assert(!emu_xstate_header(xrstor, sizeof(xrstor), &r, &h));
}
END_TEST

static Suite *fpu_state_suite(void)
{
	Suite *s = suite_create("emu_fpu_state");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_state_instructions);
	tcase_add_test(tc, test_xstate_header);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(fpu_state_suite)
