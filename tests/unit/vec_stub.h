/*
 * vec_stub.h — differential scaffolding for the SSE/AVX instruction
 * suites: runs one instruction natively on this CPU and in the emulator
 * from the same register and memory state, and compares every YMM
 * register, MMX register, general-purpose register, the status flags and a
 * memory buffer bit for bit.
 *
 * A suite lists its instruction forms as assembler text (the assembler
 * encodes them, so the bytes are the CPU's own encoding):
 *
 *   #define MY_CASES(X) X(paddb_xx, 0, "paddb xmm1, xmm2") ...
 *   MY_CASES(VEC_DEFINE_CASE)
 *   static const struct vec_case my_cases[] = { MY_CASES(VEC_CASE_ENTRY) };
 *
 * and calls vec_run_cases(). In every run rsi points at a 64-byte aligned
 * scratch buffer and rdi 128 bytes into it, so memory operands are written
 * [rsi+disp] or [rdi]; every other register holds seeded random or edge
 * values. Include this header in one file per program (it defines the
 * native runner).
 */
#ifndef TTREC_TEST_VEC_STUB_H
#define TTREC_TEST_VEC_STUB_H

#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "emulator/emu.h"

/* The state a run starts from and ends with. Offsets are fixed: the
 * native runner below addresses the fields by number. */
struct vec_state {
	uint8_t ymm[16][32]; /* 0 */
	uint64_t mm[8];      /* 512 */
	uint64_t gpr[16];    /* 576 */
	uint64_t rflags;     /* 704 */
};

_Static_assert(__builtin_offsetof(struct vec_state, mm) == 512, "layout");
_Static_assert(__builtin_offsetof(struct vec_state, gpr) == 576, "layout");
_Static_assert(__builtin_offsetof(struct vec_state, rflags) == 704, "layout");

/* Runs `code` (ending in ret) with the registers of *s and stores the
 * registers it ends with back into *s. rsp is the runner's own. */
void vec_native_run(struct vec_state *s, const void *code);

__asm__(
	".pushsection .text\n"
	".intel_syntax noprefix\n"
	".p2align 4\n"
	"vec_native_run:\n"
	"  push rbx\n push rbp\n push r12\n push r13\n push r14\n push r15\n"
	"  mov [rip + vec_native_state], rdi\n"
	"  mov [rip + vec_native_code], rsi\n"
	"  .irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"    vmovdqu ymm\\n, [rdi + \\n * 32]\n"
	"  .endr\n"
	"  .irp n,0,1,2,3,4,5,6,7\n"
	"    movq mm\\n, [rdi + 512 + \\n * 8]\n"
	"  .endr\n"
	"  push qword ptr [rdi + 704]\n"
	"  popfq\n"
	"  mov rax, [rdi + 576]\n mov rcx, [rdi + 584]\n mov rdx, [rdi + 592]\n"
	"  mov rbx, [rdi + 600]\n mov rbp, [rdi + 616]\n mov rsi, [rdi + 624]\n"
	"  mov r8, [rdi + 640]\n mov r9, [rdi + 648]\n mov r10, [rdi + 656]\n"
	"  mov r11, [rdi + 664]\n mov r12, [rdi + 672]\n mov r13, [rdi + 680]\n"
	"  mov r14, [rdi + 688]\n mov r15, [rdi + 696]\n"
	"  mov rdi, [rdi + 632]\n"
	"  call [rip + vec_native_code]\n"
	"  push rdi\n"
	"  pushfq\n"
	"  mov rdi, [rip + vec_native_state]\n"
	"  pop qword ptr [rdi + 704]\n"
	"  pop qword ptr [rdi + 632]\n"
	"  mov [rdi + 576], rax\n mov [rdi + 584], rcx\n mov [rdi + 592], rdx\n"
	"  mov [rdi + 600], rbx\n mov [rdi + 616], rbp\n mov [rdi + 624], rsi\n"
	"  mov [rdi + 640], r8\n mov [rdi + 648], r9\n mov [rdi + 656], r10\n"
	"  mov [rdi + 664], r11\n mov [rdi + 672], r12\n mov [rdi + 680], r13\n"
	"  mov [rdi + 688], r14\n mov [rdi + 696], r15\n"
	"  .irp n,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15\n"
	"    vmovdqu [rdi + \\n * 32], ymm\\n\n"
	"  .endr\n"
	"  .irp n,0,1,2,3,4,5,6,7\n"
	"    movq [rdi + 512 + \\n * 8], mm\\n\n"
	"  .endr\n"
	"  emms\n"
	"  vzeroupper\n"
	"  cld\n"
	"  pop r15\n pop r14\n pop r13\n pop r12\n pop rbp\n pop rbx\n"
	"  ret\n"
	".att_syntax prefix\n"
	".popsection\n"
	".pushsection .bss\n"
	".p2align 3\n"
	"vec_native_state: .zero 8\n"
	"vec_native_code: .zero 8\n"
	".popsection\n");

/* Flags of a case. */
enum {
	VEC_IMM8 = 1u << 0, /* the last byte is an imm8: each run draws a new one */
};

struct vec_case {
	const char *name;
	const uint8_t *start, *end;
	unsigned flags;
};

#define VEC_DEFINE_CASE(id, flags, text)                                       \
	extern const uint8_t vc_##id##_start[], vc_##id##_end[];               \
	__asm__(".pushsection .rodata\n"                                       \
		"vc_" #id "_start:\n"                                          \
		".intel_syntax noprefix\n" text "\n.att_syntax prefix\n"       \
		"vc_" #id "_end:\n"                                            \
		".popsection\n");
#define VEC_CASE_ENTRY(id, flags, text) { text, vc_##id##_start, vc_##id##_end, flags },

/* --- inputs ----------------------------------------------------------------- */

static inline uint64_t vec_rand(uint64_t *seed)
{
	/* xorshift64*: deterministic and good enough for operand values. */
	uint64_t x = *seed;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*seed = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* Fills buf 8 bytes at a time with random values or values at the edges of
 * signed and unsigned bytes, words, dwords and quadwords, and small counts. */
static inline void vec_fill(uint64_t *seed, void *buf, size_t n)
{
	static const uint64_t edges[] = {
		0, ~0ull, 0x8080808080808080ull, 0x7f7f7f7f7f7f7f7full,
		0x8000800080008000ull, 0x7fff7fff7fff7fffull, 0x8000000080000000ull,
		0x7fffffff7fffffffull, 0x8000000000000000ull, 0x7fffffffffffffffull,
		0x0101010101010101ull, 0x00ff00ff00ff00ffull, 0xff00ff00ff00ff00ull,
		0x0001000100010001ull, 0xffff0000ffff0000ull, 0x8001800180018001ull,
	};
	uint8_t *p = buf;
	for (size_t i = 0; i + 8 <= n; i += 8) {
		uint64_t v, mode = vec_rand(seed) % 8;
		if (mode < 3)
			v = vec_rand(seed);
		else if (mode < 5)
			v = edges[vec_rand(seed) % (sizeof(edges) / sizeof(edges[0]))];
		else if (mode == 5)
			v = vec_rand(seed) % 70; /* shift counts around the widths */
		else if (mode == 6)
			v = vec_rand(seed) & 0x8f8f8f8f8f8f8f8full; /* pshufb indices */
		else /* repeated bytes: equal elements for compares and min/max */
			v = 0x0101010101010101ull * (vec_rand(seed) % 4);
		memcpy(p + i, &v, 8);
	}
}

/* --- the harness ---------------------------------------------------------- */

#define VEC_MEM_SIZE 512

struct vec_harness {
	struct emu_cpu *cpu;
	uint8_t *code;  /* RWX page: the instruction, then ret */
	uint8_t *mem;   /* the scratch buffer rsi points at */
	uint64_t seed;
	unsigned runs, failures;
};

static inline void vec_harness_init(struct vec_harness *h, uint64_t seed)
{
	h->cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(h->cpu);
	h->code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->code, MAP_FAILED);
	h->mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->mem, MAP_FAILED);
	h->seed = seed;
	h->runs = h->failures = 0;
}

static inline void vec_harness_fini(struct vec_harness *h)
{
	emu_free(h->cpu);
	munmap(h->code, 4096);
	munmap(h->mem, 4096);
}

static inline void vec_random_state(struct vec_harness *h, struct vec_state *s)
{
	vec_fill(&h->seed, s->ymm, sizeof(s->ymm));
	vec_fill(&h->seed, s->mm, sizeof(s->mm));
	vec_fill(&h->seed, s->gpr, sizeof(s->gpr));
	s->gpr[EMU_RSI] = (uint64_t)(uintptr_t)h->mem;
	s->gpr[EMU_RDI] = (uint64_t)(uintptr_t)h->mem + 128;
	s->gpr[EMU_RSP] = 0;
	/* Status flags random, DF clear, IF and the reserved bit 1 set. */
	s->rflags = 0x202 | (vec_rand(&h->seed) & EMU_STATUS_FLAGS);
	vec_fill(&h->seed, h->mem, VEC_MEM_SIZE);
}

/* Runs the bytes in h->code in the emulator from state *s; false (with a
 * message) when the emulator did not execute exactly that instruction. */
static inline bool vec_emulate(struct vec_harness *h, struct vec_state *s,
			       size_t len, const char *name)
{
	struct emu_regs *r = emu_regs(h->cpu);
	emu_invalidate_code(h->cpu, 0, UINT64_MAX);
	for (int i = 0; i < 16; i++) {
		memset(r->zmm[i].b, 0, sizeof(r->zmm[i]));
		memcpy(r->zmm[i].b, s->ymm[i], 32);
	}
	for (int i = 0; i < 8; i++) {
		memset(&r->st[i], 0, sizeof(r->st[i]));
		r->st[i].mmx = s->mm[i];
	}
	memcpy(r->gpr, s->gpr, sizeof(r->gpr));
	r->rflags = s->rflags;
	r->rip = (uint64_t)(uintptr_t)h->code;
	enum emu_exit e = emu_run(h->cpu, 1);
	const struct emu_exit_info *x = emu_exit_info(h->cpu);
	if (e != EMU_EXIT_LIMIT || r->rip != (uint64_t)(uintptr_t)h->code + len) {
		fprintf(stderr, "%s: emulator stopped with %s (%s)\n", name,
			emu_exit_name(e),
			e == EMU_EXIT_UNIMPLEMENTED ? x->mnemonic : emu_fault_name(x->fault));
		return false;
	}
	for (int i = 0; i < 16; i++)
		memcpy(s->ymm[i], r->zmm[i].b, 32);
	for (int i = 0; i < 8; i++)
		s->mm[i] = r->st[i].mmx;
	memcpy(s->gpr, r->gpr, sizeof(r->gpr));
	s->rflags = r->rflags;
	return true;
}

static inline void vec_dump(const char *what, const void *p, size_t n)
{
	fprintf(stderr, "  %-8s", what);
	for (size_t i = n; i-- > 0;)
		fprintf(stderr, "%02x%s", ((const uint8_t *)p)[i], i && i % 8 == 0 ? "_" : "");
	fputc('\n', stderr);
}

/* Compares native and emulated results; prints every difference. */
static inline bool vec_compare(const char *name, const uint8_t *insn, size_t len,
			       const struct vec_state *n, const struct vec_state *e,
			       const uint8_t *mem_n, const uint8_t *mem_e,
			       const struct vec_state *in)
{
	bool same = true;
	char label[16];
#define VEC_DIFF(cond, lbl, pn, pe, pi, sz)                                      \
	if (cond) {                                                              \
		if (same) {                                                      \
			fprintf(stderr, "%s: emulator differs from the CPU; bytes", name); \
			for (size_t k = 0; k < len; k++)                         \
				fprintf(stderr, " %02x", insn[k]);               \
			fputc('\n', stderr);                                     \
		}                                                                \
		same = false;                                                    \
		fprintf(stderr, " %s:\n", lbl);                                  \
		if (pi)                                                          \
			vec_dump("input", pi, sz);                               \
		vec_dump("cpu", pn, sz);                                         \
		vec_dump("emu", pe, sz);                                         \
	}
	for (int i = 0; i < 16; i++) {
		snprintf(label, sizeof(label), "ymm%d", i);
		VEC_DIFF(memcmp(n->ymm[i], e->ymm[i], 32), label, n->ymm[i], e->ymm[i], in->ymm[i], 32)
	}
	for (int i = 0; i < 8; i++) {
		snprintf(label, sizeof(label), "mm%d", i);
		VEC_DIFF(n->mm[i] != e->mm[i], label, &n->mm[i], &e->mm[i], &in->mm[i], 8)
	}
	for (int i = 0; i < 16; i++) {
		if (i == EMU_RSP)
			continue;
		snprintf(label, sizeof(label), "gpr%d", i);
		VEC_DIFF(n->gpr[i] != e->gpr[i], label, &n->gpr[i], &e->gpr[i], &in->gpr[i], 8)
	}
	uint64_t fn = n->rflags & EMU_STATUS_FLAGS, fe = e->rflags & EMU_STATUS_FLAGS;
	VEC_DIFF(fn != fe, "flags", &fn, &fe, &in->rflags, 8)
	for (size_t off = 0; off < VEC_MEM_SIZE; off += 32) {
		snprintf(label, sizeof(label), "mem+%zu", off);
		VEC_DIFF(memcmp(mem_n + off, mem_e + off, 32), label, mem_n + off, mem_e + off,
			 (const void *)NULL, 32)
	}
#undef VEC_DIFF
	return same;
}

/* One run of one case: the same random state natively and emulated. */
static inline bool vec_run_once(struct vec_harness *h, const struct vec_case *c)
{
	size_t len = (size_t)(c->end - c->start);
	struct vec_state in, native, emulated;
	static uint8_t mem_in[VEC_MEM_SIZE], mem_native[VEC_MEM_SIZE];

	memcpy(h->code, c->start, len);
	if (c->flags & VEC_IMM8)
		h->code[len - 1] = (uint8_t)vec_rand(&h->seed);
	h->code[len] = 0xc3; /* ret, for the native run */
	vec_random_state(h, &in);
	memcpy(mem_in, h->mem, VEC_MEM_SIZE);

	native = in;
	vec_native_run(&native, h->code);
	memcpy(mem_native, h->mem, VEC_MEM_SIZE);

	memcpy(h->mem, mem_in, VEC_MEM_SIZE);
	emulated = in;
	h->runs++;
	if (!vec_emulate(h, &emulated, len, c->name))
		return false;
	return vec_compare(c->name, h->code, len, &native, &emulated, mem_native, h->mem, &in);
}

/* Runs every case `runs` times; fails the test on the first failing case
 * after reporting it. Prints one summary line. */
static inline void vec_run_cases(const char *suite, const struct vec_case *cases,
				 size_t ncases, unsigned runs, uint64_t seed)
{
	struct vec_harness h;
	vec_harness_init(&h, seed);
	unsigned failed_cases = 0;
	for (size_t i = 0; i < ncases; i++) {
		for (unsigned k = 0; k < runs; k++)
			if (!vec_run_once(&h, &cases[i])) {
				failed_cases++;
				break;
			}
	}
	printf("%s: %zu forms, %u runs, %u forms failing\n", suite, ncases, h.runs,
	       failed_cases);
	vec_harness_fini(&h);
	ck_assert_msg(failed_cases == 0, "%u of %zu forms differ from the CPU",
		      failed_cases, ncases);
}

#endif
