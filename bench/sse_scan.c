/*
 * sse_scan.c — benchmark of SIMD-heavy emulation: the inner loops of an
 * SSE2 strlen, an AVX2 strlen, an SSE2 memcpy and an SSE float dot
 * product, run natively and in the
 * emulator (in-process) over the same buffers. Prints ns per byte and the
 * emulated/native ratio.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "emulator/emu.h"

/* The loops, as glibc's string functions shape them: aligned vector loads,
 * compare, mask extraction, test, branch. Each returns in rax. */
uint64_t scan_zero_sse2(const void *s);            /* address of the block holding the first 0 */
uint64_t scan_zero_avx2(const void *s);
uint64_t copy_sse2(void *dst, const void *src, uint64_t n); /* n multiple of 16 */
uint64_t dot_sse(const void *a, const void *b, uint64_t n); /* low two lanes of the sums */

__asm__(".pushsection .text\n.intel_syntax noprefix\n"
	"scan_zero_sse2:\n"
	"  mov rax, rdi\n  pxor xmm0, xmm0\n"
	"1: movdqa xmm1, [rax]\n  pcmpeqb xmm1, xmm0\n  pmovmskb ecx, xmm1\n"
	"  test ecx, ecx\n  jnz 2f\n  add rax, 16\n  jmp 1b\n"
	"2: ret\n"
	"scan_zero_avx2:\n"
	"  mov rax, rdi\n  vpxor xmm0, xmm0, xmm0\n"
	"1: vpcmpeqb ymm1, ymm0, [rax]\n  vpmovmskb ecx, ymm1\n"
	"  test ecx, ecx\n  jnz 2f\n  add rax, 32\n  jmp 1b\n"
	"2: vzeroupper\n  ret\n"
	"copy_sse2:\n"
	"  xor ecx, ecx\n"
	"1: movdqu xmm0, [rsi + rcx]\n  movdqu [rdi + rcx], xmm0\n"
	"  add rcx, 16\n  cmp rcx, rdx\n  jb 1b\n  mov rax, rcx\n  ret\n"
	"dot_sse:\n"
	"  xorps xmm0, xmm0\n  xor ecx, ecx\n"
	"1: movups xmm1, [rdi + rcx]\n  movups xmm2, [rsi + rcx]\n  mulps xmm1, xmm2\n"
	"  addps xmm0, xmm1\n  add rcx, 16\n  cmp rcx, rdx\n  jb 1b\n  movq rax, xmm0\n  ret\n"
	".att_syntax prefix\n.popsection\n");

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct emulated {
	struct emu_cpu *cpu;
	uint8_t *stack, *stop;
};

/* Calls fn(a, b, c) in the emulator; returns rax or exits on failure. */
static uint64_t emulate(struct emulated *e, const void *fn, uint64_t a, uint64_t b, uint64_t c)
{
	struct emu_regs *r = emu_regs(e->cpu);
	uint64_t sp = (uint64_t)(uintptr_t)(e->stack + 65536 - 64);
	uint64_t ret = (uint64_t)(uintptr_t)e->stop;
	memcpy((void *)(uintptr_t)sp, &ret, 8);
	r->gpr[EMU_RSP] = sp;
	r->gpr[EMU_RDI] = a;
	r->gpr[EMU_RSI] = b;
	r->gpr[EMU_RDX] = c;
	r->rip = (uint64_t)(uintptr_t)fn;
	enum emu_exit x = emu_run(e->cpu, UINT64_MAX);
	if (x != EMU_EXIT_FAULT || r->rip != ret) {
		const struct emu_exit_info *i = emu_exit_info(e->cpu);
		fprintf(stderr, "sse_scan: emulator stopped with %s (%s)\n", emu_exit_name(x),
			x == EMU_EXIT_UNIMPLEMENTED ? i->mnemonic : emu_fault_name(i->fault));
		exit(1);
	}
	return r->gpr[EMU_RAX];
}

int main(void)
{
	enum { SIZE = 1 << 22, ROUNDS = 20 };
	uint8_t *src = aligned_alloc(64, SIZE), *dst = aligned_alloc(64, SIZE);
	struct emulated e = { emu_new(&emu_self_memory_ops, NULL), malloc(65536), NULL };
	e.stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!src || !dst || !e.cpu || !e.stack || e.stop == MAP_FAILED) {
		fprintf(stderr, "sse_scan: out of memory\n");
		return 1;
	}
	e.stop[0] = 0x0f; /* ud2 */
	e.stop[1] = 0x0b;
	memset(src, 'a', SIZE);
	src[SIZE - 1] = 0;

	static const struct { const char *name; const void *fn; } loops[] = {
		{ "strlen-sse2", (const void *)scan_zero_sse2 },
		{ "strlen-avx2", (const void *)scan_zero_avx2 },
		{ "memcpy-sse2", (const void *)copy_sse2 },
		{ "dot-sse", (const void *)dot_sse },
	};
	printf("%-12s %12s %12s %8s\n", "loop", "native ns/B", "emu ns/B", "ratio");
	for (size_t l = 0; l < sizeof(loops) / sizeof(loops[0]); l++) {
		uint64_t (*native)(uint64_t, uint64_t, uint64_t) =
			(uint64_t (*)(uint64_t, uint64_t, uint64_t))loops[l].fn;
		uint64_t a = (uint64_t)(uintptr_t)(l >= 2 ? dst : src);
		uint64_t b = (uint64_t)(uintptr_t)src;
		uint64_t want = native(a, b, SIZE), got = 0;
		double t0 = now();
		for (int i = 0; i < ROUNDS; i++)
			native(a, b, SIZE);
		double tn = now() - t0;
		t0 = now();
		for (int i = 0; i < ROUNDS; i++)
			got = emulate(&e, loops[l].fn, a, b, SIZE);
		double te = now() - t0;
		if (got != want) {
			fprintf(stderr, "sse_scan: %s: emulated %#lx, native %#lx\n", loops[l].name,
				(unsigned long)got, (unsigned long)want);
			return 1;
		}
		double bytes = (double)SIZE * ROUNDS;
		printf("%-12s %12.4f %12.4f %8.1f\n", loops[l].name, tn * 1e9 / bytes,
		       te * 1e9 / bytes, te / tn);
	}
	emu_free(e.cpu);
	return 0;
}
