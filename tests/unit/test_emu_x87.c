/*
 * test_emu_x87.c — the x87 unit against the CPU: every x87 escape encoding
 * (D8..DF, all register forms and every memory form through [rbx]) and a
 * set of multi-instruction sequences, each run natively and in the
 * emulator from the same seeded random and edge states (registers, tags,
 * control and status words, memory operands), comparing the whole x87
 * state, the full tag word, rax, RFLAGS, memory and faults bit for bit.
 */
#include <check.h>
#include <stdlib.h>

#include "check_main.h"
#include "x87_stub.h"

#define SLOT 16
#define MEM_SIZE 512

/* Per-mnemonic tally for the report. */
struct tally {
	char name[64];
	unsigned cases, failures;
};
static struct tally tallies[160];
static unsigned ntallies;

static struct tally *tally_for(const char *name)
{
	for (unsigned i = 0; i < ntallies; i++)
		if (strcmp(tallies[i].name, name) == 0)
			return &tallies[i];
	ck_assert_uint_lt(ntallies, sizeof(tallies) / sizeof(tallies[0]));
	struct tally *t = &tallies[ntallies++];
	snprintf(t->name, sizeof(t->name), "%s", name);
	return t;
}

static void mnemonic_of(const uint8_t *code, char *name, size_t size)
{
	char text[96];
	if (!emu_disassemble((uint64_t)(uintptr_t)code, code, 15, text, sizeof(text))) {
		snprintf(name, size, "(invalid)");
		return;
	}
	size_t n = strcspn(text, " ");
	snprintf(name, size, "%.*s", (int)n, text);
}

struct sweep {
	struct native_ctx *c;
	struct emu_cpu *cpu;
	uint8_t *code;   /* slots */
	uint8_t *ret;    /* a bare ret */
	uint8_t *mem;    /* [rbx] */
	unsigned failures, unimplemented, cases;
	unsigned native_faults[32]; /* by signal number */
};

static void sweep_init(struct sweep *s, size_t slots)
{
	memset(s, 0, sizeof(*s));
	s->c = aligned_alloc(64, sizeof(*s->c));
	ck_assert_ptr_nonnull(s->c);
	memset(s->c, 0, sizeof(*s->c));
	s->cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(s->cpu);
	s->code = x87_code_page((slots + 1) * SLOT);
	s->ret = s->code + slots * SLOT;
	s->ret[0] = 0xc3;
	s->mem = aligned_alloc(64, MEM_SIZE);
	ck_assert_ptr_nonnull(s->mem);
	x87_install_handlers();
}

static void sweep_fini(struct sweep *s)
{
	emu_free(s->cpu);
	free(s->c);
	free(s->mem);
}

/* Runs the instructions in slot `code` (ninsns of them) natively and in the
 * emulator from one random state; returns true when they agree. */
static bool run_one(struct sweep *s, const uint8_t *code, unsigned ninsns,
		    bool fdp_by_model, char *diff, size_t diff_size)
{
	uint8_t mem_in[MEM_SIZE], mem_native[MEM_SIZE];
	struct x87_outcome in, native, emulated;
	x87_random_memory(mem_in, sizeof(mem_in));
	do {
		x87_random_state(s->c->fx_in);
	} while (!x87_normalise(s->c, s->ret, &in));
	s->c->rflags_in = 0x202 | (x87_rand() & EMU_STATUS_FLAGS);
	s->c->rax_in = x87_rand();
	s->c->rbx_in = (uint64_t)(uintptr_t)s->mem;
	s->c->code = (uint64_t)(uintptr_t)code;

	memcpy(s->mem, mem_in, MEM_SIZE);
	native_run(s->c, &native);
	memcpy(mem_native, s->mem, MEM_SIZE);
	s->native_faults[native.signal & 31]++;

	memcpy(s->mem, mem_in, MEM_SIZE);
	s->cases++;
	if (!emu_run_case(s->cpu, s->c, &in, ninsns, &emulated, diff, diff_size)) {
		s->unimplemented++;
		return false;
	}
	x87_compare_fdp(&native, &emulated, fdp_by_model, diff, diff_size);
	if (!diff[0] && memcmp(mem_native, s->mem, MEM_SIZE) != 0) {
		size_t i = 0;
		while (mem_native[i] == s->mem[i])
			i++;
		snprintf(diff, diff_size, "memory byte %zu native %#x emulator %#x",
			 i, mem_native[i], s->mem[i]);
	}
	return diff[0] == 0;
}

static void report_failure(struct sweep *s, const uint8_t *code, size_t len,
			   const char *diff)
{
	if (s->failures++ >= 25)
		return;
	char text[96];
	emu_disassemble((uint64_t)(uintptr_t)code, code, len, text, sizeof(text));
	fprintf(stderr, "  %-32s", text);
	for (size_t i = 0; i < len; i++)
		fprintf(stderr, " %02x", code[i]);
	fprintf(stderr, ": %s\n", diff);
}

static void print_tallies(const char *title)
{
	fprintf(stderr, "%s: cases / failures per mnemonic\n", title);
	for (unsigned i = 0; i < ntallies; i++)
		fprintf(stderr, "  %-14s %6u %4u%s", tallies[i].name, tallies[i].cases,
			tallies[i].failures, (i % 3 == 2) ? "\n" : "");
	fprintf(stderr, "\n");
	ntallies = 0;
}

/* Every encoding of the x87 escape space: for each escape byte, the eight
 * memory forms with operand [rbx] and the 64 register forms. */
START_TEST(test_every_escape_encoding)
{
	enum { ENCODINGS = 8 * 72, ROUNDS = 200 };
	struct sweep s;
	sweep_init(&s, ENCODINGS);
	x87_rand_state = 0x243f6a8885a308d3ull;
	for (unsigned e = 0; e < ENCODINGS; e++) {
		uint8_t *slot = s.code + e * SLOT;
		unsigned form = e % 72;
		slot[0] = (uint8_t)(0xd8 + e / 72);
		slot[1] = (uint8_t)(form < 8 ? (form << 3) | 3 : 0xc0 + (form - 8));
		slot[2] = 0xc3;
	}
	for (unsigned round = 0; round < ROUNDS; round++)
		for (unsigned e = 0; e < ENCODINGS; e++) {
			uint8_t *slot = s.code + e * SLOT;
			char name[24], diff[160];
			mnemonic_of(slot, name, sizeof(name));
			struct tally *t = tally_for(name);
			t->cases++;
			if (!run_one(&s, slot, 1, false, diff, sizeof(diff))) {
				t->failures++;
				report_failure(&s, slot, 2, diff);
			}
		}
	print_tallies("x87 escape encodings");
	fprintf(stderr, "x87 escape encodings: %u cases, %u failures (%u unimplemented); "
		"native #MF %u, #UD %u\n", s.cases, s.failures, s.unimplemented,
		s.native_faults[SIGFPE], s.native_faults[SIGILL]);
	/* The states must reach the pending-exception and invalid-opcode paths. */
	ck_assert_uint_gt(s.native_faults[SIGFPE], 100);
	ck_assert_uint_gt(s.native_faults[SIGILL], 100);
	ck_assert_uint_eq(s.failures, 0);
	sweep_fini(&s);
}
END_TEST

/* Sequences: exceptions raised at the next waiting instruction, status
 * word to ax after compares, environment round trips, fcomi flags,
 * fwait and emms. */
static const struct sequence {
	const char *what;
	unsigned ninsns;
	uint8_t len;
	uint8_t bytes[14];
	/* A register instruction that may raise an unmasked exception runs
	 * after a memory-operand instruction that does not: FDP then shows
	 * the CPU's update policy, which is model-specific. The modelled CPU
	 * updates FDP only at an unmasked exception (CPUID.7.EBX bit 6,
	 * FDP_EXCPTN_ONLY) and keeps the earlier value; AMD's holds the last
	 * memory operand's address. Compared on the modelled CPU only. */
	bool fdp_by_model;
} sequences[] = {
	{ "fld1; fldz; fdivp; fadd", 4, 8, { 0xd9, 0xe8, 0xd9, 0xee, 0xde, 0xf9, 0xd8, 0xc0 }, false },
	{ "fldz; fld1; fdivrp; fwait", 4, 7, { 0xd9, 0xee, 0xd9, 0xe8, 0xde, 0xf1, 0x9b }, false },
	{ "fld [rbx]; fsqrt; fnstsw ax", 3, 6, { 0xdb, 0x2b, 0xd9, 0xfa, 0xdf, 0xe0 }, true },
	{ "fucom st1; fnstsw ax; fwait", 3, 5, { 0xdd, 0xe1, 0xdf, 0xe0, 0x9b }, false },
	{ "fcomi st1; fcmovb st2", 2, 4, { 0xdb, 0xf1, 0xda, 0xc2 }, false },
	{ "fucomip st1; fcmovnbe st3", 2, 4, { 0xdf, 0xe9, 0xdb, 0xd3 }, false },
	{ "fnstenv [rbx]; fldenv [rbx]; fld1", 3, 6, { 0xd9, 0x33, 0xd9, 0x23, 0xd9, 0xe8 }, false },
	{ "fnsave [rbx]; frstor [rbx]; fsin", 3, 6, { 0xdd, 0x33, 0xdd, 0x23, 0xd9, 0xfe }, false },
	{ "fldcw [rbx]; fadd st0, st1", 2, 4, { 0xd9, 0x2b, 0xd8, 0xc1 }, false },
	{ "fnclex; fsincos; fptan", 3, 6, { 0xdb, 0xe2, 0xd9, 0xfb, 0xd9, 0xf2 }, false },
	{ "fninit; fld1; fldpi; fprem1; fprem", 5, 10, { 0xdb, 0xe3, 0xd9, 0xe8, 0xd9, 0xeb, 0xd9, 0xf5, 0xd9, 0xf8 }, false },
	{ "fxtract; fscale; fyl2x", 3, 6, { 0xd9, 0xf4, 0xd9, 0xfd, 0xd9, 0xf1 }, false },
	{ "fistp dword [rbx]; fisttp qword [rbx+8]; fbstp [rbx+16]", 3, 8, { 0xdb, 0x1b, 0xdd, 0x4b, 0x08, 0xdf, 0x73, 0x10 }, false },
	{ "emms; fld1", 2, 4, { 0x0f, 0x77, 0xd9, 0xe8 }, false },
	{ "fwait", 1, 1, { 0x9b }, false },
	{ "rex.w fadd dword [rbx+4]", 1, 4, { 0x48, 0xd8, 0x43, 0x04 }, false },
};

START_TEST(test_sequences)
{
	enum { ROUNDS = 2000 };
	size_t n = sizeof(sequences) / sizeof(sequences[0]);
	struct sweep s;
	sweep_init(&s, n);
	x87_rand_state = 0x13198a2e03707344ull;
	for (size_t i = 0; i < n; i++) {
		memcpy(s.code + i * SLOT, sequences[i].bytes, sequences[i].len);
		s.code[i * SLOT + sequences[i].len] = 0xc3;
	}
	for (unsigned round = 0; round < ROUNDS; round++)
		for (size_t i = 0; i < n; i++) {
			char diff[160];
			struct tally *t = tally_for(sequences[i].what);
			t->cases++;
			if (!run_one(&s, s.code + i * SLOT, sequences[i].ninsns,
				     sequences[i].fdp_by_model, diff, sizeof(diff))) {
				t->failures++;
				if (s.failures++ < 25)
					fprintf(stderr, "  %s: %s\n", sequences[i].what, diff);
			}
		}
	fprintf(stderr, "x87 sequences: %u cases, %u failures; native #MF %u\n",
		s.cases, s.failures, s.native_faults[SIGFPE]);
	for (unsigned i = 0; i < ntallies; i++)
		if (tallies[i].failures)
			fprintf(stderr, "  %s: %u of %u failed\n", tallies[i].name,
				tallies[i].failures, tallies[i].cases);
	ntallies = 0;
	ck_assert_uint_eq(s.failures, 0);
	sweep_fini(&s);
}
END_TEST

/* FIP/FDP/FOP as the modelled CPU keeps them, whatever the host's x87 unit
 * (which executes the arithmetic) does with its own: FIP follows every
 * non-control instruction; FDP and FOP change only at an instruction that
 * raises an unmasked exception. Emulator only, so that it holds on every
 * host. */
START_TEST(test_pointers_follow_the_model)
{
	/* fadd qword [rbx]; fdiv qword [rbx+8] */
	static const uint8_t code_bytes[] = { 0xdc, 0x03, 0xdc, 0x73, 0x08, 0xc3 };
	uint8_t *code = x87_code_page(SLOT);
	memcpy(code, code_bytes, sizeof(code_bytes));
	double mem[2] = { 3.0, 0.0 };
	struct emu_cpu *cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(cpu);
	struct emu_regs *r = emu_regs(cpu);
	r->fcw = 0x37b; /* all masked but zero-divide */
	r->fsw = 0x3800; /* TOP 7 */
	r->ftw = 0x3fff; /* st0 valid */
	memcpy(r->st[7].bytes, "\0\0\0\0\0\0\0\x80\xff\x3f", 10); /* 1.0 */
	r->fip = 0x1111;
	r->fdp = 0x2222;
	r->fop = 0x333;
	r->mxcsr = 0x1f80;
	r->gpr[EMU_RBX] = (uint64_t)(uintptr_t)mem;
	r->rip = (uint64_t)(uintptr_t)code;

	ck_assert_int_eq(emu_run(cpu, 1), EMU_EXIT_LIMIT);
	ck_assert_uint_eq(r->fsw & 0x80, 0);
	ck_assert_uint_eq(r->fip, (uint64_t)(uintptr_t)code);
	ck_assert_uint_eq(r->fdp, 0x2222);
	ck_assert_uint_eq(r->fop, 0x333);

	ck_assert_int_eq(emu_run(cpu, 1), EMU_EXIT_LIMIT);
	ck_assert_uint_eq(r->fsw & 0x84, 0x84); /* ZE, ES */
	ck_assert_uint_eq(r->fip, (uint64_t)(uintptr_t)code + 2);
	ck_assert_uint_eq(r->fdp, (uint64_t)(uintptr_t)&mem[1]);
	ck_assert_uint_eq(r->fop, 0x473);
	emu_free(cpu);
}
END_TEST

/*
 * Consecutive x87 instructions leave the guest's registers in the host's
 * x87 unit (ops_x87.c): whatever else reads them within the same run
 * (fxsave, an MMX instruction), or the caller after it, must see them.
 * Emulator only: the expected values are exact constants.
 */
static const uint8_t x87_one[10] = { 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f };
static const uint8_t x87_pi[10] = { 0x35, 0xc2, 0x68, 0x21, 0xa2, 0xda, 0x0f, 0xc9, 0x00, 0x40 };

static struct emu_cpu *x87_cpu_at(const uint8_t *code, const uint8_t *bytes, size_t len,
				  uint64_t rbx)
{
	memcpy((uint8_t *)code, bytes, len);
	struct emu_cpu *cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(cpu);
	struct emu_regs *r = emu_regs(cpu);
	r->gpr[EMU_RBX] = rbx;
	r->rip = (uint64_t)(uintptr_t)code;
	return cpu;
}

START_TEST(test_held_state_seen_by_fxsave_and_mmx)
{
	/* fninit; fld1; fldpi; fxsave [rbx]; fld1; movq rax, mm5 */
	static const uint8_t bytes[] = { 0xdb, 0xe3, 0xd9, 0xe8, 0xd9, 0xeb, 0x0f, 0xae, 0x03,
					 0xd9, 0xe8, 0x48, 0x0f, 0x7e, 0xe8 };
	uint8_t *code = x87_code_page(SLOT);
	static uint8_t area[512] __attribute__((aligned(16)));
	struct emu_cpu *cpu = x87_cpu_at(code, bytes, sizeof(bytes), (uint64_t)(uintptr_t)area);
	struct emu_regs *r = emu_regs(cpu);
	ck_assert_int_eq(emu_run(cpu, 6), EMU_EXIT_LIMIT);
	ck_assert_uint_eq(area[2 + 1] >> 3 & 7, 6); /* TOP */
	ck_assert_uint_eq(area[4], 0xc0);           /* abridged tags */
	ck_assert_mem_eq(area + 32, x87_pi, 10);    /* st0 */
	ck_assert_mem_eq(area + 48, x87_one, 10);   /* st1 */
	ck_assert_uint_eq(r->gpr[EMU_RAX], 0x8000000000000000ull);
	emu_free(cpu);
}
END_TEST

START_TEST(test_held_state_seen_after_the_run)
{
	/* fninit; fld1; fldpi; fxch st1; fsub st0, st1 */
	static const uint8_t bytes[] = { 0xdb, 0xe3, 0xd9, 0xe8, 0xd9, 0xeb, 0xd9, 0xc9, 0xd8, 0xe1 };
	uint8_t *code = x87_code_page(SLOT);
	struct emu_cpu *cpu = x87_cpu_at(code, bytes, sizeof(bytes), 0);
	struct emu_regs *r = emu_regs(cpu);
	ck_assert_int_eq(emu_run(cpu, 4), EMU_EXIT_LIMIT);
	ck_assert_uint_eq(r->fsw >> 11 & 7, 6);
	ck_assert_uint_eq(r->ftw, 0x0fff);
	ck_assert_mem_eq(r->st[6].bytes, x87_one, 10);
	ck_assert_mem_eq(r->st[7].bytes, x87_pi, 10);
	ck_assert_uint_eq(r->fip, (uint64_t)(uintptr_t)code + 6);
	/* The caller's change is what the next run starts from. */
	memcpy(r->st[6].bytes, x87_pi, 10);
	ck_assert_int_eq(emu_run(cpu, 1), EMU_EXIT_LIMIT);
	static const uint8_t zero[10];
	ck_assert_mem_eq(r->st[6].bytes, zero, 10);
	emu_free(cpu);
}
END_TEST

/* A store runs on the host before its memory write faults: the state
 * before it comes back, as the CPU leaves it. */
START_TEST(test_held_store_that_faults_changes_nothing)
{
	/* fninit; fld1; fstp qword [rbx] (rbx not canonical: #GP) */
	static const uint8_t bytes[] = { 0xdb, 0xe3, 0xd9, 0xe8, 0xdd, 0x1b };
	uint8_t *code = x87_code_page(SLOT);
	struct emu_cpu *cpu = x87_cpu_at(code, bytes, sizeof(bytes), 0x8000000000000000ull);
	struct emu_regs *r = emu_regs(cpu);
	ck_assert_int_eq(emu_run(cpu, 3), EMU_EXIT_FAULT);
	ck_assert_int_eq(emu_exit_info(cpu)->fault, EMU_FAULT_GP);
	ck_assert_uint_eq(r->rip, (uint64_t)(uintptr_t)code + 4);
	ck_assert_uint_eq(r->fsw, 0x3800);
	ck_assert_uint_eq(r->ftw, 0x3fff);
	ck_assert_mem_eq(r->st[7].bytes, x87_one, 10);
	ck_assert_uint_eq(r->fip, (uint64_t)(uintptr_t)code + 2);
	emu_free(cpu);
}
END_TEST

/* The emulator claims every x87 mnemonic only for forms the CPU has; the
 * 16-bit environment formats are left to the native fallback. */
START_TEST(test_sixteen_bit_environment_is_unimplemented)
{
	static const uint8_t fnstenv16[] = { 0x66, 0xd9, 0x33 };
	static const uint8_t fnstenv32[] = { 0xd9, 0x33 };
	ck_assert(!emu_implements(fnstenv16, sizeof(fnstenv16)));
	ck_assert(emu_implements(fnstenv32, sizeof(fnstenv32)));
}
END_TEST

static Suite *x87_suite(void)
{
	Suite *s = suite_create("emu_x87");
	TCase *tc = tcase_create("differential");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, test_every_escape_encoding);
	tcase_add_test(tc, test_sequences);
	tcase_add_test(tc, test_pointers_follow_the_model);
	tcase_add_test(tc, test_sixteen_bit_environment_is_unimplemented);
	tcase_add_test(tc, test_held_state_seen_by_fxsave_and_mmx);
	tcase_add_test(tc, test_held_state_seen_after_the_run);
	tcase_add_test(tc, test_held_store_that_faults_changes_nothing);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(x87_suite)
