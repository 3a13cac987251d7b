/*
 * test_emu_lazy_flags.c — status flags that one instruction leaves and a
 * later one of the same run reads, against the CPU. The emulator computes
 * the flags of add/sub/logic only when read (and decides jcc/setcc/cmovcc
 * from the operands); the differential harness runs one instruction per
 * run, so these sequences are what test that path: an arithmetic
 * or shift instruction, optionally a flag consumer (adc sbb inc dec rol), then setcc of
 * every condition or pushf, each run natively and emulated in-process.
 * On a CPU of another vendor than the one the emulator models, the flags
 * the sequence leaves undefined, and conditions of them, are left out.
 */
#include <check.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "emulator/emu.h"
#include "check_main.h"

/* Register-register forms "op rax, rcx" (modrm 0xc8): 8-bit opcode; the
 * wider one is opcode + 1. */
static const uint8_t binary_opcodes[] = {
	0x00 /* add */, 0x08 /* or */, 0x10 /* adc */, 0x18 /* sbb */,
	0x20 /* and */, 0x28 /* sub */, 0x30 /* xor */, 0x38 /* cmp */,
	0x84 /* test */,
};

/* One-operand forms on rax: opcode (8-bit; wider + 1), modrm and an
 * immediate byte (imm < 0: none). The shifts by cl take rcx, the second
 * argument, as their count: counts of 0 (flags unchanged) included. */
struct unary_form { uint8_t opcode, modrm; int imm; };
static const struct unary_form unary_forms[] = {
	{ 0xfe, 0xc0, -1 } /* inc */, { 0xfe, 0xc8, -1 } /* dec */, { 0xf6, 0xd8, -1 } /* neg */,
	{ 0xd2, 0xe0, -1 } /* shl cl */, { 0xd2, 0xe8, -1 } /* shr cl */,
	{ 0xd2, 0xf8, -1 } /* sar cl */, { 0xd0, 0xe0, -1 } /* shl 1 */,
	{ 0xc0, 0xe0, 3 } /* shl 3 */, { 0xc0, 0xe8, 7 } /* shr 7 */, { 0xc0, 0xf8, 5 } /* sar 5 */,
	{ 0xd0, 0xf8, -1 } /* sar 1 */,
};

static const unsigned sizes[] = { 1, 2, 4, 8 };

static const uint64_t values[] = {
	0, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fffffff,
	0x80000000, 0xffffffff, 0x7fffffffffffffff, 0x8000000000000000,
	0xffffffffffffffff, 0x123456789abcdef0, 0xfedcba9876543210, 0x10,
};

struct code { uint8_t bytes[64]; size_t len; };

static void put(struct code *c, const uint8_t *b, size_t n)
{
	memcpy(c->bytes + c->len, b, n);
	c->len += n;
}

static void put_size_prefix(struct code *c, unsigned size)
{
	if (size == 2)
		put(c, (const uint8_t[]){ 0x66 }, 1);
	else if (size == 8)
		put(c, (const uint8_t[]){ 0x48 }, 1);
}

static void put_binary(struct code *c, uint8_t opcode, unsigned size)
{
	put_size_prefix(c, size);
	uint8_t b[2] = { (uint8_t)(opcode + (size > 1)), 0xc8 };
	put(c, b, 2);
}

static void put_unary(struct code *c, const struct unary_form *f, unsigned size)
{
	put_size_prefix(c, size);
	uint8_t b[3] = { (uint8_t)(f->opcode + (size > 1)), f->modrm, (uint8_t)f->imm };
	put(c, b, f->imm < 0 ? 2 : 3);
}

/* xor edx, edx (known flags: CF = 0 for inc and dec to keep); mov rax,
 * rdi; mov rcx, rsi: the operands are the function's arguments. */
static void put_prologue(struct code *c)
{
	put(c, (const uint8_t[]){ 0x31, 0xd2, 0x48, 0x89, 0xf8, 0x48, 0x89, 0xf1 }, 8);
}

/* setcc dl; movzx eax, dl; ret */
static void put_setcc_epilogue(struct code *c, unsigned cc)
{
	put(c, (const uint8_t[]){ 0x0f, (uint8_t)(0x90 + cc), 0xc2, 0x0f, 0xb6, 0xc2, 0xc3 }, 7);
}

/* pushfq; pop rax; ret */
static void put_pushf_epilogue(struct code *c)
{
	put(c, (const uint8_t[]){ 0x9c, 0x58, 0xc3 }, 3);
}

struct harness {
	struct emu_cpu *cpu;
	uint8_t *stack, *code, *stop;
	bool stepwise; /* emulate one instruction per run */
};

static void harness_init(struct harness *h)
{
	h->cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(h->cpu);
	h->stack = mmap(NULL, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	h->code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(h->stack, MAP_FAILED);
	ck_assert_ptr_ne(h->code, MAP_FAILED);
	h->stepwise = false;
	h->stop = h->code + 4096;
	h->stop[0] = 0x0f; /* ud2: where the emulated function returns to */
	h->stop[1] = 0x0b;
}

static void harness_fini(struct harness *h)
{
	emu_free(h->cpu);
	munmap(h->stack, 1 << 16);
	munmap(h->code, 8192);
}

/* Runs the code natively and emulated with (a, b); checks rax agrees. */
static void compare(struct harness *h, const struct code *c, uint64_t a, uint64_t b,
		    uint64_t result_mask)
{
	memcpy(h->code, c->bytes, c->len);
	/* New code at the same address: the emulator must decode it again. */
	emu_invalidate_code(h->cpu, (uint64_t)(uintptr_t)h->code, c->len);
	uint64_t (*fn)(uint64_t, uint64_t) = (uint64_t (*)(uint64_t, uint64_t))(void *)h->code;
	uint64_t native = fn(a, b);

	struct emu_regs *r = emu_regs(h->cpu);
	uint64_t sp = (uint64_t)(uintptr_t)(h->stack + (1 << 16) - 64);
	uint64_t ret = (uint64_t)(uintptr_t)h->stop;
	memcpy((void *)(uintptr_t)sp, &ret, 8);
	r->gpr[EMU_RSP] = sp;
	r->gpr[EMU_RDI] = a;
	r->gpr[EMU_RSI] = b;
	/* Every status flag set: the code's first instruction replaces them. */
	r->rflags = 0x202 | 0x8d5;
	r->rip = (uint64_t)(uintptr_t)h->code;
	enum emu_exit e;
	if (h->stepwise)
		for (int n = 0; (e = emu_run(h->cpu, 1)) == EMU_EXIT_LIMIT && n < 100; n++)
			;
	else
		e = emu_run(h->cpu, 100);
	ck_assert_msg(e == EMU_EXIT_FAULT && r->rip == ret, "stopped with %s at %#lx",
		      emu_exit_name(e), (unsigned long)r->rip);
	uint64_t emulated = r->gpr[EMU_RAX];
	if ((native ^ emulated) & result_mask) {
		char hex[3 * sizeof(c->bytes) + 1] = "";
		for (size_t i = 0; i < c->len; i++)
			snprintf(hex + 3 * i, 4, "%02x ", c->bytes[i]);
		ck_abort_msg("code %sa=%#lx b=%#lx: native %#lx emulated %#lx", hex,
			     (unsigned long)a, (unsigned long)b, (unsigned long)native,
			     (unsigned long)emulated);
	}
}

/*
 * The status flags the code leaves undefined when run with (a, b), on a
 * host of another vendor than the one whose choices the emulator models;
 * 0 on such a host, where everything is compared. rcx holds b throughout
 * (the code writes only rax, rdx and flags), which resolves shift counts.
 */
static uint64_t undefined_flags(const struct code *c, uint64_t a, uint64_t b)
{
	if (emu_host_is_modelled_vendor())
		return 0;
	static struct emu_regs r;
	r.gpr[EMU_RDI] = a;
	r.gpr[EMU_RSI] = b;
	r.gpr[EMU_RCX] = b;
	uint64_t undefined = 0;
	char text[128];
	for (size_t off = 0, l; off < c->len; off += l) {
		l = emu_disassemble(0x1000, c->bytes + off, c->len - off, text, sizeof(text));
		ck_assert_uint_ne(l, 0);
		undefined = emu_undefined_flags_after(c->bytes + off, l, &r, undefined);
	}
	return undefined;
}

/* The status flags condition cc (the low nibble of setcc/jcc) reads. */
static uint64_t condition_flags(unsigned cc)
{
	static const uint64_t flags[8] = {
		EMU_OF, EMU_CF, EMU_ZF, EMU_CF | EMU_ZF, EMU_SF, EMU_PF,
		EMU_SF | EMU_OF, EMU_ZF | EMU_SF | EMU_OF,
	};
	return flags[(cc >> 1) & 7];
}

/* The first instruction: binary op i, or unary op i - count of binary. */
static void put_first(struct code *c, unsigned i, unsigned size)
{
	unsigned nb = sizeof(binary_opcodes);
	if (i < nb)
		put_binary(c, binary_opcodes[i], size);
	else
		put_unary(c, &unary_forms[i - nb], size);
}

#define FIRST_COUNT (sizeof(binary_opcodes) + sizeof(unary_forms) / sizeof(unary_forms[0]))

/* A second instruction that reads flags the first left and sets flags
 * itself: none, adc, sbb, inc, dec (CF), rol by cl (keeps SF ZF AF PF). */
static const struct unary_form rotate_left_by_cl = { 0xd2, 0xc0, -1 };
#define SECOND_COUNT 6

static void put_second(struct code *c, unsigned j, unsigned size)
{
	switch (j) {
	case 1: put_binary(c, 0x10, size); break;
	case 2: put_binary(c, 0x18, size); break;
	case 3: put_unary(c, &unary_forms[0], size); break;
	case 4: put_unary(c, &unary_forms[1], size); break;
	case 5: put_unary(c, &rotate_left_by_cl, size); break;
	default: break;
	}
}

START_TEST(test_conditions_after_arithmetic)
{
	struct harness h;
	harness_init(&h);
	for (unsigned i = 0; i < FIRST_COUNT; i++)
		for (unsigned j = 0; j < SECOND_COUNT; j++)
			for (unsigned s = 0; s < 4; s++)
				for (unsigned cc = 0; cc < 16; cc++) {
					struct code c = { .len = 0 };
					put_prologue(&c);
					put_first(&c, i, sizes[s]);
					put_second(&c, j, sizes[s]);
					put_setcc_epilogue(&c, cc);
					/* A condition of an undefined flag is
					 * undefined itself (other hosts only). */
					for (size_t x = 0; x < sizeof(values) / 8; x++)
						for (size_t y = 0; y < sizeof(values) / 8; y += 3)
							compare(&h, &c, values[x], values[y],
								undefined_flags(&c, values[x], values[y]) &
								condition_flags(cc) ? 0 : 1);
				}
	harness_fini(&h);
}
END_TEST

START_TEST(test_pushf_after_arithmetic)
{
	struct harness h;
	harness_init(&h);
	/* CF PF AF ZF SF OF: every status flag (on another vendor's CPU than
	 * the modelled one, those the code leaves undefined excepted). */
	const uint64_t status = 0x8d5;
	for (unsigned i = 0; i < FIRST_COUNT; i++)
		for (unsigned j = 0; j < SECOND_COUNT; j++)
			for (unsigned s = 0; s < 4; s++) {
				struct code c = { .len = 0 };
				put_prologue(&c);
				put_first(&c, i, sizes[s]);
				put_second(&c, j, sizes[s]);
				put_pushf_epilogue(&c);
				for (size_t x = 0; x < sizeof(values) / 8; x++)
					for (size_t y = 0; y < sizeof(values) / 8; y++)
						compare(&h, &c, values[x], values[y],
							status & ~undefined_flags(&c, values[x],
										  values[y]));
			}
	harness_fini(&h);
}
END_TEST

/*
 * A compare and the conditional jump after it are run as one handler when
 * nothing observes the run, and one by one when stepping: both against
 * the CPU, for cmp and test in each operand shape and every condition.
 * The jump skips "xor eax, eax; ret" to "mov eax, 1; ret".
 */
static const uint8_t store_rcx_below_stack[] = { 0x48, 0x89, 0x4c, 0x24, 0xf8 };
static const struct { uint8_t bytes[8]; size_t len; } compare_forms[] = {
	{ { 0x48, 0x39, 0xc8 }, 3 },                   /* cmp rax, rcx */
	{ { 0x38, 0xc8 }, 2 },                         /* cmp al, cl */
	{ { 0x85, 0xc8 }, 2 },                         /* test eax, ecx */
	{ { 0x66, 0x85, 0xc8 }, 3 },                   /* test ax, cx */
	{ { 0x48, 0x83, 0xf8, 0x7f }, 4 },             /* cmp rax, 0x7f */
	{ { 0x48, 0x83, 0xf8, 0x80 }, 4 },             /* cmp rax, -0x80 */
	{ { 0x3c, 0x00 }, 2 },                         /* cmp al, 0 */
	{ { 0x48, 0xa9, 0x00, 0x00, 0x00, 0x80 }, 6 }, /* test rax, -0x80000000 */
	{ { 0x48, 0x3b, 0x44, 0x24, 0xf8 }, 5 },       /* cmp rax, [rsp-8] */
	{ { 0x48, 0x83, 0x7c, 0x24, 0xf8, 0x01 }, 6 }, /* cmp qword [rsp-8], 1 */
	{ { 0x48, 0x85, 0x44, 0x24, 0xf8 }, 5 },       /* test [rsp-8], rax */
	{ { 0x39, 0x44, 0x24, 0xf8 }, 4 },             /* cmp [rsp-8], eax */
};

START_TEST(test_conditional_jump_after_compare)
{
	struct harness h;
	harness_init(&h);
	for (int stepwise = 0; stepwise < 2; stepwise++) {
		h.stepwise = stepwise;
		for (size_t f = 0; f < sizeof(compare_forms) / sizeof(compare_forms[0]); f++)
			for (unsigned cc = 0; cc < 16; cc++) {
				struct code c = { .len = 0 };
				put_prologue(&c);
				put(&c, store_rcx_below_stack, sizeof(store_rcx_below_stack));
				put(&c, compare_forms[f].bytes, compare_forms[f].len);
				put(&c, (const uint8_t[]){ (uint8_t)(0x70 + cc), 0x03, 0x31, 0xc0, 0xc3,
							   0xb8, 0x01, 0x00, 0x00, 0x00, 0xc3 }, 11);
				for (size_t x = 0; x < sizeof(values) / 8; x++)
					for (size_t y = 0; y < sizeof(values) / 8; y++)
						compare(&h, &c, values[x], values[y], ~0ull);
			}
	}
	harness_fini(&h);
}
END_TEST

static Suite *emu_lazy_flags_suite(void)
{
	Suite *s = suite_create("emu_lazy_flags");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_conditions_after_arithmetic);
	tcase_add_test(tc, test_pushf_after_arithmetic);
	tcase_add_test(tc, test_conditional_jump_after_compare);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(emu_lazy_flags_suite)
