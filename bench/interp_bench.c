/*
 * interp_bench.c — the interpreter's throughput on integer-heavy code.
 *
 * Each workload is a function of this program. It runs natively, then in
 * the emulator inside this process (memory interface over the process's own
 * memory), in the same run; the report gives emulated instructions per
 * second and the slowdown against native. Workloads avoid SIMD so that the
 * integer interpreter alone is measured.
 *
 *   build/bench/interp_bench [--repeat N]
 */
#pragma GCC optimize("no-tree-vectorize")

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "emulator/emu.h"

#define NOINLINE __attribute__((noinline, noclone))

/* Arithmetic and branches: xorshift PRNG folded into a checksum. */
NOINLINE static uint64_t work_alu(uint64_t n)
{
	uint64_t x = 88172645463325252ull, acc = 0;
	for (uint64_t i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		acc += (x & 0xff) > 0x7f ? x >> 3 : x * 3;
	}
	return acc;
}

/* Memory: insertion sort of a pseudo-random array, then a checksum. */
static uint32_t sort_buf[2048];
NOINLINE static uint64_t work_memory(uint64_t n)
{
	uint32_t seed = 12345;
	if (n > 2048)
		n = 2048;
	for (uint64_t i = 0; i < n; i++) {
		seed = seed * 1103515245u + 12345u;
		sort_buf[i] = seed >> 8;
	}
	for (uint64_t i = 1; i < n; i++) {
		uint32_t v = sort_buf[i];
		uint64_t j = i;
		while (j > 0 && sort_buf[j - 1] > v) {
			sort_buf[j] = sort_buf[j - 1];
			j--;
		}
		sort_buf[j] = v;
	}
	uint64_t sum = 0;
	for (uint64_t i = 0; i < n; i++)
		sum = sum * 31 + sort_buf[i];
	return sum;
}

/* Calls: naive recursive Fibonacci. */
NOINLINE static uint64_t work_calls(uint64_t n)
{
	return n < 2 ? n : work_calls(n - 1) + work_calls(n - 2);
}

struct workload {
	const char *name;
	uint64_t (*fn)(uint64_t);
	uint64_t arg;
};

static const struct workload workloads[] = {
	{ "alu (xorshift loop)", work_alu, 20000000 },
	{ "memory (insertion sort)", work_memory, 2048 },
	{ "calls (recursive fib)", work_calls, 30 },
};

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct emulated_run {
	uint64_t result, insns;
	double seconds;
	int ok;
};

static bool use_jit;

static struct emulated_run emulate(const struct workload *w, uint8_t *stack,
				   size_t stack_size, uint8_t *stop)
{
	struct emulated_run out = { 0, 0, 0, 0 };
	struct emu_cpu *cpu = emu_new(&emu_self_memory_ops, NULL);
	if (!cpu)
		return out;
	if (use_jit && !emu_set_jit(cpu, true)) {
		emu_free(cpu);
		return out;
	}
	struct emu_regs *r = emu_regs(cpu);
	uint64_t sp = (uint64_t)(uintptr_t)(stack + stack_size - 64) - 8;
	uint64_t ret = (uint64_t)(uintptr_t)stop;
	memcpy((void *)(uintptr_t)sp, &ret, 8);
	r->gpr[EMU_RSP] = sp;
	r->gpr[EMU_RDI] = w->arg;
	r->rip = (uint64_t)(uintptr_t)w->fn;
	double t0 = now();
	enum emu_exit e = emu_run(cpu, UINT64_MAX);
	out.seconds = now() - t0;
	const struct emu_exit_info *x = emu_exit_info(cpu);
	out.ok = e == EMU_EXIT_FAULT && x->fault == EMU_FAULT_UD && r->rip == ret;
	if (!out.ok)
		fprintf(stderr, "  emulation stopped: %s %s at %#llx\n", emu_exit_name(e),
			e == EMU_EXIT_UNIMPLEMENTED ? x->mnemonic : emu_fault_name(x->fault),
			(unsigned long long)r->rip);
	out.result = r->gpr[EMU_RAX];
	out.insns = emu_icount(cpu);
	emu_free(cpu);
	return out;
}

int main(int argc, char **argv)
{
	int repeat = 3;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--jit") == 0) {
			use_jit = true;
		} else if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
			repeat = atoi(argv[i + 1]) > 0 ? atoi(argv[i + 1]) : 1;
			i++;
		} else {
			fprintf(stderr, "usage: interp_bench [--jit] [--repeat N]\n");
			return 2;
		}
	}

	size_t stack_size = 8 << 20;
	uint8_t *stack = mmap(NULL, stack_size, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint8_t *stop = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED || stop == MAP_FAILED) {
		perror("interp_bench: mmap");
		return 1;
	}
	stop[0] = 0x0f; /* ud2: where emulated workloads return to */
	stop[1] = 0x0b;

	int failed = 0;
	uint64_t total_insns = 0;
	double total_emu = 0, total_native = 0;
	printf("%-26s %12s %10s %10s %10s %8s\n", "workload", "instructions",
	       "native s", "emulated s", "M insn/s", "slowdown");
	for (size_t i = 0; i < sizeof(workloads) / sizeof(workloads[0]); i++) {
		const struct workload *w = &workloads[i];
		double best_native = 1e9, best_emu = 1e9;
		uint64_t native_result = 0;
		struct emulated_run er = { 0, 0, 0, 0 };
		for (int k = 0; k < repeat; k++) {
			double t0 = now();
			native_result = w->fn(w->arg);
			double t = now() - t0;
			if (t < best_native)
				best_native = t;
			er = emulate(w, stack, stack_size, stop);
			if (!er.ok)
				break;
			if (er.seconds < best_emu)
				best_emu = er.seconds;
		}
		if (!er.ok || er.result != native_result) {
			printf("%-26s FAILED (emulated result %llu, native %llu)\n", w->name,
			       (unsigned long long)er.result, (unsigned long long)native_result);
			failed = 1;
			continue;
		}
		printf("%-26s %12llu %10.4f %10.4f %10.1f %7.1fx\n", w->name,
		       (unsigned long long)er.insns, best_native, best_emu,
		       er.insns / best_emu / 1e6, best_emu / best_native);
		total_insns += er.insns;
		total_emu += best_emu;
		total_native += best_native;
	}
	if (total_emu > 0)
		printf("%-26s %12llu %10.4f %10.4f %10.1f %7.1fx\n", "total",
		       (unsigned long long)total_insns, total_native, total_emu,
		       total_insns / total_emu / 1e6, total_emu / total_native);
	munmap(stack, stack_size);
	munmap(stop, 4096);
	return failed;
}
