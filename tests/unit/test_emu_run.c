/*
 * test_emu_run.c — the interpreter runs real compiled functions of this
 * program in-process and gets the same answers as the CPU.
 */
#include <check.h>
#include <string.h>
#include <sys/mman.h>

#include "emulator/emu.h"
#include "check_main.h"

/* Functions the emulator runs; noinline and noclone so the compiler keeps
 * them as real calls with their own code. */
__attribute__((noinline, noclone)) static long sum_to(long n)
{
	volatile long s = 0;
	for (long i = 1; i <= n; i++)
		s += i;
	return s;
}

__attribute__((noinline, noclone)) static unsigned long fib(unsigned n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

struct harness {
	struct emu_cpu *cpu;
	uint8_t *stack;
	uint8_t *stop_code; /* a ud2 the emulated function returns to */
};

static void harness_init(struct harness *h)
{
	h->cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(h->cpu);
	h->stack = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->stack, MAP_FAILED);
	h->stop_code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->stop_code, MAP_FAILED);
	h->stop_code[0] = 0x0f; /* ud2 */
	h->stop_code[1] = 0x0b;
}

static void harness_fini(struct harness *h)
{
	emu_free(h->cpu);
	munmap(h->stack, 1 << 20);
	munmap(h->stop_code, 4096);
}

/* Calls fn(arg) in the emulator; returns rax. */
static uint64_t emulate_call(struct harness *h, const void *fn, uint64_t arg)
{
	struct emu_regs *r = emu_regs(h->cpu);
	uint64_t sp = (uint64_t)(uintptr_t)(h->stack + (1 << 20) - 64);
	sp -= 8;
	uint64_t ret = (uint64_t)(uintptr_t)h->stop_code;
	memcpy((void *)(uintptr_t)sp, &ret, 8);
	r->gpr[EMU_RSP] = sp;
	r->gpr[EMU_RDI] = arg;
	r->rip = (uint64_t)(uintptr_t)fn;
	enum emu_exit e = emu_run(h->cpu, 100000000);
	const struct emu_exit_info *x = emu_exit_info(h->cpu);
	ck_assert_msg(e == EMU_EXIT_FAULT && x->fault == EMU_FAULT_UD &&
		      r->rip == ret,
		      "stopped with %s (%s) at %#lx", emu_exit_name(e),
		      e == EMU_EXIT_UNIMPLEMENTED ? x->mnemonic : emu_fault_name(x->fault),
		      (unsigned long)r->rip);
	return r->gpr[EMU_RAX];
}

START_TEST(test_loop)
{
	struct harness h;
	harness_init(&h);
	ck_assert_uint_eq(emulate_call(&h, (const void *)sum_to, 1000), (uint64_t)sum_to(1000));
	harness_fini(&h);
}
END_TEST

START_TEST(test_recursion)
{
	struct harness h;
	harness_init(&h);
	ck_assert_uint_eq(emulate_call(&h, (const void *)fib, 20), fib(20));
	ck_assert_uint_gt(emu_icount(h.cpu), 10000);
	harness_fini(&h);
}
END_TEST

START_TEST(test_special_stops)
{
	/* cpuid; ud2: the run stops before cpuid, the caller completes it. */
	struct harness h;
	harness_init(&h);
	static const uint8_t code[] = { 0x0f, 0xa2, 0x0f, 0x0b };
	memcpy(h.stop_code + 16, code, sizeof(code));
	struct emu_regs *r = emu_regs(h.cpu);
	r->rip = (uint64_t)(uintptr_t)(h.stop_code + 16);
	ck_assert_int_eq(emu_run(h.cpu, 10), EMU_EXIT_SPECIAL);
	ck_assert_int_eq(emu_exit_info(h.cpu)->special, EMU_SPECIAL_CPUID);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)(h.stop_code + 16));
	emu_skip_insn(h.cpu);
	ck_assert_int_eq(emu_run(h.cpu, 10), EMU_EXIT_FAULT);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)(h.stop_code + 18));
	harness_fini(&h);
}
END_TEST

START_TEST(test_random_numbers)
{
	/* rdrand ax; rdseed r9d; rdrand rbx; ud2: each stops for the
	 * caller's number, which lands in the destination at its width (16
	 * bits keep the rest of rax, 32 bits clear the upper half), with CF
	 * saying whether it is valid and the other status flags clear. */
	struct harness h;
	harness_init(&h);
	static const uint8_t code[] = { 0x66, 0x0f, 0xc7, 0xf0, 0x41, 0x0f, 0xc7, 0xf9,
					0x48, 0x0f, 0xc7, 0xf3, 0x0f, 0x0b };
	memcpy(h.stop_code + 16, code, sizeof(code));
	struct emu_regs *r = emu_regs(h.cpu);
	r->rip = (uint64_t)(uintptr_t)(h.stop_code + 16);
	r->gpr[EMU_RAX] = 0x1111222233334444;
	r->gpr[EMU_R9] = 0x5555666677778888;
	r->rflags = 0x2 | EMU_ZF | EMU_SF | EMU_OF | EMU_PF | EMU_AF;
	ck_assert_int_eq(emu_run(h.cpu, 10), EMU_EXIT_SPECIAL);
	ck_assert_int_eq(emu_exit_info(h.cpu)->special, EMU_SPECIAL_RDRAND);
	ck_assert_uint_eq(emu_exit_info(h.cpu)->operand_bits, 16);
	emu_complete_random(h.cpu, 0xabcd, true);
	r = emu_regs(h.cpu);
	ck_assert_uint_eq(r->gpr[EMU_RAX], 0x111122223333abcd);
	ck_assert_uint_eq(r->rflags & EMU_STATUS_FLAGS, EMU_CF);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)(h.stop_code + 20));
	ck_assert_int_eq(emu_run(h.cpu, 10), EMU_EXIT_SPECIAL);
	ck_assert_int_eq(emu_exit_info(h.cpu)->special, EMU_SPECIAL_RDSEED);
	ck_assert_uint_eq(emu_exit_info(h.cpu)->operand_bits, 32);
	emu_complete_random(h.cpu, 0x12345678, false);
	r = emu_regs(h.cpu);
	ck_assert_uint_eq(r->gpr[EMU_R9], 0);
	ck_assert_uint_eq(r->rflags & EMU_STATUS_FLAGS, 0);
	ck_assert_int_eq(emu_run(h.cpu, 10), EMU_EXIT_SPECIAL);
	ck_assert_uint_eq(emu_exit_info(h.cpu)->operand_bits, 64);
	emu_complete_random(h.cpu, 0xfedcba9876543210, true);
	r = emu_regs(h.cpu);
	ck_assert_uint_eq(r->gpr[EMU_RBX], 0xfedcba9876543210);
	ck_assert_int_eq(emu_run(h.cpu, 10), EMU_EXIT_FAULT);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)(h.stop_code + 28));
	ck_assert_uint_eq(emu_icount(h.cpu), 3);
	harness_fini(&h);
}
END_TEST

START_TEST(test_self_modifying_code)
{
	/* mov byte [rip+1], 0x05 rewrites the immediate of the following
	 * "mov eax, imm32" before it runs; the emulator must see the new byte
	 * and count each instruction once. Rounds 0 and 1 run the block whole
	 * (a limit past its end; round 1 after an invalidation), round 2 one
	 * instruction per run (the stepping path). */
	struct harness h;
	harness_init(&h);
	static const uint8_t code[] = {
		0xc6, 0x05, 0x01, 0x00, 0x00, 0x00, 0x05, /* mov byte [rip+1], 5 */
		0xb8, 0x01, 0x00, 0x00, 0x00,             /* mov eax, 1 */
		0x90,                                     /* nop */
		0x0f, 0x0b,                               /* ud2 */
	};
	for (int round = 0; round < 3; round++) {
		memcpy(h.stop_code + 64, code, sizeof(code));
		struct emu_regs *r = emu_regs(h.cpu);
		r->rip = (uint64_t)(uintptr_t)(h.stop_code + 64);
		uint64_t before = emu_icount(h.cpu);
		enum emu_exit e;
		do
			e = emu_run(h.cpu, round == 2 ? 1 : 1000);
		while (e == EMU_EXIT_LIMIT);
		ck_assert_int_eq(e, EMU_EXIT_FAULT);
		ck_assert_uint_eq(r->gpr[EMU_RAX], 5);
		ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)(h.stop_code + 64 + 13));
		ck_assert_uint_eq(emu_icount(h.cpu) - before, 3);
		emu_invalidate_code(h.cpu, (uint64_t)(uintptr_t)h.stop_code, 4096);
	}
	harness_fini(&h);
}
END_TEST

START_TEST(test_cache_line_flush)
{
	/* clflush, clflushopt and clwb of a mapped line run in the emulator
	 * (not handed back as unimplemented) and change no register. */
	struct harness h;
	harness_init(&h);
	static const uint8_t code[] = {
		0x0f, 0xae, 0x38,       /* clflush [rax] */
		0x66, 0x0f, 0xae, 0x38, /* clflushopt [rax] */
		0x66, 0x0f, 0xae, 0x30, /* clwb [rax] */
		0x0f, 0x0b,             /* ud2 */
	};
	memcpy(h.stop_code + 128, code, sizeof(code));
	struct emu_regs *r = emu_regs(h.cpu);
	r->gpr[EMU_RAX] = (uint64_t)(uintptr_t)h.stack;
	r->rip = (uint64_t)(uintptr_t)(h.stop_code + 128);
	struct emu_regs before = *r;
	uint64_t count = emu_icount(h.cpu);
	ck_assert_int_eq(emu_run(h.cpu, 100), EMU_EXIT_FAULT);
	ck_assert_int_eq(emu_exit_info(h.cpu)->fault, EMU_FAULT_UD);
	ck_assert_uint_eq(emu_icount(h.cpu) - count, 3);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)(h.stop_code + 128 + 11));
	before.rip = r->rip;
	ck_assert_int_eq(memcmp(r->gpr, before.gpr, sizeof(r->gpr)), 0);
	ck_assert_uint_eq(r->rflags, before.rflags);
	harness_fini(&h);
}
END_TEST

/* The fetches the emulator makes, for test_refetch. */
static struct fetch_log {
	uint64_t addr[64];
	size_t size[64];
	unsigned count;
} fetches;

static size_t logging_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	if (fetches.count < 64) {
		fetches.addr[fetches.count] = addr;
		fetches.size[fetches.count] = size;
	}
	fetches.count++;
	return emu_self_memory_ops.fetch(ctx, addr, buf, size);
}

/* Runs the code at rip to its ud2 and returns the fetches it made. */
static struct fetch_log run_logging_fetches(struct harness *h, uint64_t rip)
{
	memset(&fetches, 0, sizeof(fetches));
	emu_regs(h->cpu)->rip = rip;
	ck_assert_int_eq(emu_run(h->cpu, 100), EMU_EXIT_FAULT);
	ck_assert_int_eq(emu_exit_info(h->cpu)->fault, EMU_FAULT_UD);
	return fetches;
}

/* A harness whose memory logs fetches, with two blocks at the returned
 * address (a jump ends the first): mov eax, 1; inc eax; jmp +2; (two
 * skipped bytes); add rax, rax; ud2. rax is 4 after a run. */
static uint64_t two_logged_blocks(struct harness *h)
{
	harness_init(h);
	/* The CPU keeps a pointer to its memory's operations. */
	static struct emu_memory_ops ops;
	ops = emu_self_memory_ops;
	ops.fetch = logging_fetch;
	emu_free(h->cpu);
	h->cpu = emu_new(&ops, NULL);
	ck_assert_ptr_nonnull(h->cpu);
	static const uint8_t code[] = {
		0xb8, 0x01, 0x00, 0x00, 0x00, /* mov eax, 1 */
		0xff, 0xc0,                   /* inc eax */
		0xeb, 0x02,                   /* jmp +2 */
		0x90, 0x90,                   /* (skipped) */
		0x48, 0x01, 0xc0,             /* add rax, rax */
		0x0f, 0x0b,                   /* ud2 */
	};
	memcpy(h->stop_code + 256, code, sizeof(code));
	return (uint64_t)(uintptr_t)(h->stop_code + 256);
}

START_TEST(test_refetch)
{
	/* emu_refetch_code keeps decoded blocks but makes their next run
	 * fetch exactly what decoding them fetched, in the same order: a
	 * recorder that logs code pages on fetch then writes the records a
	 * decoding anew would have. Two blocks: a jump ends the first. */
	struct harness h;
	uint64_t rip = two_logged_blocks(&h);
	struct fetch_log decoded = run_logging_fetches(&h, rip);
	/* At least one fetch per block: each block's bytes in its page are
	 * fetched at once, an instruction that passes them alone. */
	ck_assert_uint_ge(decoded.count, 2);
	ck_assert_uint_le(decoded.count, 64);
	ck_assert_uint_eq(emu_regs(h.cpu)->gpr[EMU_RAX], 4);
	ck_assert_uint_eq(run_logging_fetches(&h, rip).count, 0); /* cached */
	emu_refetch_code(h.cpu);
	struct fetch_log again = run_logging_fetches(&h, rip);
	ck_assert_uint_eq(again.count, decoded.count);
	for (unsigned i = 0; i < decoded.count; i++) {
		ck_assert_uint_eq(again.addr[i], decoded.addr[i]);
		ck_assert_uint_eq(again.size[i], decoded.size[i]);
	}
	ck_assert_uint_eq(emu_regs(h.cpu)->gpr[EMU_RAX], 4);
	ck_assert_uint_eq(run_logging_fetches(&h, rip).count, 0); /* once per epoch */
	emu_invalidate_code(h.cpu, 0, UINT64_MAX);
	struct fetch_log fresh = run_logging_fetches(&h, rip);
	ck_assert_uint_eq(fresh.count, decoded.count);
	harness_fini(&h);
}
END_TEST

START_TEST(test_invalidate_many_blocks)
{
	/* More blocks than the decode cache lists its filled buckets for
	 * (it walks the whole table then): emptying it still drops every
	 * block, twice over, and freeing it frees them all (SAN=1). A chain
	 * of `jmp` to the next instruction is one block per jump. */
	enum { JUMPS = 20000 };
	struct harness h;
	two_logged_blocks(&h); /* (for its fetch-counting memory) */
	size_t len = 2 * JUMPS + 2;
	uint8_t *code = mmap(NULL, len, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(code, MAP_FAILED);
	for (size_t i = 0; i < JUMPS; i++) {
		code[2 * i] = 0xeb; /* jmp +0 */
		code[2 * i + 1] = 0x00;
	}
	code[2 * JUMPS] = 0x0f; /* ud2 */
	code[2 * JUMPS + 1] = 0x0b;
	uint64_t start = (uint64_t)(uintptr_t)code;
	size_t counts[3];
	for (int round = 0; round < 3; round++) {
		memset(&fetches, 0, sizeof(fetches));
		emu_regs(h.cpu)->rip = start;
		ck_assert_int_eq(emu_run(h.cpu, 10 * JUMPS), EMU_EXIT_FAULT);
		counts[round] = fetches.count;
		ck_assert_uint_ge(counts[round], JUMPS);
		memset(&fetches, 0, sizeof(fetches));
		emu_regs(h.cpu)->rip = start;
		ck_assert_int_eq(emu_run(h.cpu, 10 * JUMPS), EMU_EXIT_FAULT);
		ck_assert_uint_eq(fetches.count, 0); /* all decoded */
		emu_invalidate_code(h.cpu, 0, UINT64_MAX);
	}
	ck_assert_uint_eq(counts[1], counts[0]);
	ck_assert_uint_eq(counts[2], counts[0]);
	munmap(code, len);
	harness_fini(&h);
}
END_TEST

START_TEST(test_fetch_window_page_end)
{
	/* Decoding fetches a block's bytes in its first page at once, and
	 * fetches alone each instruction whose 15 bytes would pass them: the
	 * pages fetched are those instruction-by-instruction fetches reach,
	 * so a recorder logs the same code pages. 59 one-byte nops up to a
	 * page's last three bytes, a mov eax, 1 across the page's end, a ud2
	 * after it. */
	struct harness h;
	two_logged_blocks(&h); /* (for its fetch-counting memory) */
	uint8_t *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(code, MAP_FAILED);
	static const uint8_t tail[] = { 0xb8, 0x01, 0x00, 0x00, 0x00, 0x0f, 0x0b };
	uint8_t *start = code + 4096 - 62;
	memset(start, 0x90, 59);
	memcpy(start + 59, tail, sizeof(tail));
	uint64_t page_end = (uint64_t)(uintptr_t)(code + 4096);
	emu_regs(h.cpu)->gpr[EMU_RAX] = 0;
	struct fetch_log log = run_logging_fetches(&h, (uint64_t)(uintptr_t)start);
	ck_assert_uint_eq(emu_regs(h.cpu)->rip, page_end + 2);
	ck_assert_uint_eq(emu_regs(h.cpu)->gpr[EMU_RAX], 1);
	ck_assert_uint_le(log.count, 64);
	bool next_page = false;
	for (unsigned i = 0; i < log.count; i++) {
		uint64_t end = log.addr[i] + log.size[i];
		ck_assert_uint_ge(log.addr[i], (uint64_t)(uintptr_t)start);
		if (log.addr[i] < page_end && end > page_end) {
			/* Only an instruction's own window reaches over. */
			ck_assert_uint_eq(log.size[i], 15);
			ck_assert_uint_gt(log.addr[i], page_end - 15);
			next_page = true;
		}
	}
	ck_assert(next_page); /* the instructions' own windows reach it */
	/* Fewer fetches than instructions. */
	ck_assert_uint_lt(log.count, 61);
	munmap(code, 8192);
	harness_fini(&h);
}
END_TEST

/* What emu_report_code reported, for test_report_code. */
static struct code_reports {
	uint64_t addr[8], len[8];
	unsigned count;
} reports;

static void note_report(void *ctx, uint64_t addr, uint64_t len)
{
	(void)ctx;
	if (reports.count < 8) {
		reports.addr[reports.count] = addr;
		reports.len[reports.count] = len;
	}
	reports.count++;
}

START_TEST(test_report_code)
{
	/* emu_report_code has each decoded block report the bytes its
	 * instructions span the first time it runs after the call, without
	 * fetching anything again. Two blocks: a jump ends the first. */
	struct harness h;
	uint64_t rip = two_logged_blocks(&h);
	run_logging_fetches(&h, rip);
	memset(&reports, 0, sizeof(reports));
	emu_report_code(h.cpu, note_report, NULL);
	ck_assert_uint_eq(run_logging_fetches(&h, rip).count, 0);
	ck_assert_uint_eq(emu_regs(h.cpu)->gpr[EMU_RAX], 4);
	ck_assert_uint_eq(reports.count, 2);
	ck_assert_uint_eq(reports.addr[0], rip);
	ck_assert_uint_eq(reports.len[0], 9);  /* mov, inc, jmp */
	ck_assert_uint_eq(reports.addr[1], rip + 11);
	ck_assert_uint_ge(reports.len[1], 5);  /* add, ud2 and what follows */
	run_logging_fetches(&h, rip);
	ck_assert_uint_eq(reports.count, 2); /* once per call */
	emu_report_code(h.cpu, note_report, NULL);
	run_logging_fetches(&h, rip);
	ck_assert_uint_eq(reports.count, 4);
	emu_report_code(h.cpu, NULL, NULL);
	run_logging_fetches(&h, rip);
	ck_assert_uint_eq(reports.count, 4);
	harness_fini(&h);
}
END_TEST

/* The accesses a compare-exchange makes, for test_failed_cmpxchg. */
static unsigned writes_seen, write_backs_seen;

static int counting_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	writes_seen++;
	return emu_self_memory_ops.write(ctx, addr, buf, size);
}

static int counting_write_back(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	write_backs_seen++;
	return emu_self_memory_ops.write(ctx, addr, buf, size);
}

/* Runs one instruction (then ud2) on a memory that counts writes and
 * write-backs, rdi pointing at mem and rax, rcx, rdx as given; returns
 * the registers after it. */
static struct emu_regs run_counting(struct harness *h, const uint8_t *insn, size_t len,
				    void *mem, uint64_t rax, uint64_t rcx, uint64_t rdx)
{
	static struct emu_memory_ops ops;
	ops = emu_self_memory_ops;
	ops.write = counting_write;
	ops.write_back = counting_write_back;
	/* Every access through the counted calls. */
	ops.write_uint = NULL;
	ops.read_uint = NULL;
	memset(ops.write_uint_sized, 0, sizeof(ops.write_uint_sized));
	memset(ops.read_uint_sized, 0, sizeof(ops.read_uint_sized));
	ops.inline_memory = NULL;
	emu_free(h->cpu);
	h->cpu = emu_new(&ops, NULL);
	ck_assert_ptr_nonnull(h->cpu);
	memcpy(h->stop_code + 512, insn, len);
	h->stop_code[512 + len] = 0x0f; /* ud2 */
	h->stop_code[512 + len + 1] = 0x0b;
	writes_seen = write_backs_seen = 0;
	struct emu_regs *r = emu_regs(h->cpu);
	r->gpr[EMU_RDI] = (uint64_t)(uintptr_t)mem;
	r->gpr[EMU_RAX] = rax;
	r->gpr[EMU_RCX] = rcx;
	r->gpr[EMU_RDX] = rdx;
	r->rip = (uint64_t)(uintptr_t)(h->stop_code + 512);
	ck_assert_int_eq(emu_run(h->cpu, 2), EMU_EXIT_FAULT);
	return *r;
}

START_TEST(test_failed_cmpxchg)
{
	/* A failed compare-exchange's write cycle puts back what it read,
	 * through write_back (a memory whose copy may be older than the real
	 * one must not write it); a successful one writes. */
	static const uint8_t cmpxchg[] = { 0xf0, 0x0f, 0xb1, 0x0f };           /* lock cmpxchg [rdi], ecx */
	static const uint8_t cmpxchg16b[] = { 0xf0, 0x48, 0x0f, 0xc7, 0x0f }; /* lock cmpxchg16b [rdi] */
	struct harness h;
	harness_init(&h);
	_Alignas(16) uint64_t mem[2] = { 7, 9 };
	struct emu_regs r = run_counting(&h, cmpxchg, sizeof(cmpxchg), mem, 5, 6, 0);
	ck_assert_uint_eq(write_backs_seen, 1);
	ck_assert_uint_eq(writes_seen, 0);
	ck_assert_uint_eq(r.gpr[EMU_RAX], 7);
	ck_assert_uint_eq(mem[0], 7);
	run_counting(&h, cmpxchg, sizeof(cmpxchg), mem, 7, 6, 0);
	ck_assert_uint_eq(write_backs_seen, 0);
	ck_assert_uint_eq(writes_seen, 1);
	ck_assert_uint_eq(mem[0], 6);
	r = run_counting(&h, cmpxchg16b, sizeof(cmpxchg16b), mem, 1, 0, 2);
	ck_assert_uint_eq(write_backs_seen, 1);
	ck_assert_uint_eq(writes_seen, 0);
	ck_assert_uint_eq(r.gpr[EMU_RAX], 6);
	ck_assert_uint_eq(r.gpr[EMU_RDX], 9);
	harness_fini(&h);
}
END_TEST

START_TEST(test_limit)
{
	struct harness h;
	harness_init(&h);
	struct emu_regs *r = emu_regs(h.cpu);
	r->gpr[EMU_RDI] = 1000;
	r->rip = (uint64_t)(uintptr_t)sum_to;
	r->gpr[EMU_RSP] = (uint64_t)(uintptr_t)(h.stack + (1 << 19));
	ck_assert_int_eq(emu_run(h.cpu, 7), EMU_EXIT_LIMIT);
	ck_assert_uint_eq(emu_icount(h.cpu), 7);
	harness_fini(&h);
}
END_TEST

static Suite *emu_run_suite(void)
{
	Suite *s = suite_create("emu_run");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_loop);
	tcase_add_test(tc, test_recursion);
	tcase_add_test(tc, test_special_stops);
	tcase_add_test(tc, test_random_numbers);
	tcase_add_test(tc, test_self_modifying_code);
	tcase_add_test(tc, test_cache_line_flush);
	tcase_add_test(tc, test_refetch);
	tcase_add_test(tc, test_fetch_window_page_end);
	tcase_add_test(tc, test_invalidate_many_blocks);
	tcase_add_test(tc, test_report_code);
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_failed_cmpxchg);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_run_suite)
