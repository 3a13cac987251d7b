/*
 * native_stub.h — differential test scaffolding for the emulator's integer
 * families: runs a few instructions of machine code on the real CPU and in
 * the emulator from the same register, flag and memory state, and compares
 * every GPR (but rsp), the status flags, the memory area and faults.
 *
 * Instructions are encoded with Zydis's encoder (or given as raw bytes),
 * placed in an executable page and followed by a `ret`. Natively, a small
 * trampoline loads the registers and flags, calls the page and saves the
 * outcome; a #DE is caught with SIGFPE. In the emulator the same bytes run
 * in-process over emu_self_memory_ops until rip reaches the `ret`.
 *
 * One test program includes this header (it defines functions and a
 * top-level assembly trampoline).
 */
#ifndef TTREC_TESTS_NATIVE_STUB_H
#define TTREC_TESTS_NATIVE_STUB_H

#include <check.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <Zydis/Zydis.h>

#include "emulator/emu.h"
#include "encode_operands.h"

/* The memory area instructions under test address through STUB_MEM_BASE,
 * which points at its middle so negative offsets stay inside. */
#define STUB_MEM_SIZE 8192
#define STUB_MEM_BASE EMU_R15

struct stub_regs {
	uint64_t gpr[EMU_GPR_COUNT]; /* rsp is neither loaded nor compared */
	uint64_t rflags;
};

struct stub_state {
	struct stub_regs regs;
	uint8_t mem[STUB_MEM_SIZE];
	int fault; /* -1, or the exception vector the code raised */
};

struct stub_ctx {
	struct emu_cpu *cpu;
	uint8_t *code;
	uint8_t *mem;
	uint64_t rng;
	unsigned sync_events; /* LOCK events the last emulated run reported */
};

/* --- the native side --------------------------------------------------- */

void stub_native_enter(struct stub_regs *regs, const void *code);

/* rdi = regs, rsi = code. The offsets are those of struct stub_regs:
 * gpr[n] at 8n, rflags at 128. */
__asm__(
	".text\n"
	".type stub_native_enter, @function\n"
	"stub_native_enter:\n"
	"	push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
	"	push %rdi\n"
	"	push %rsi\n"
	"	pushq 128(%rdi)\n popfq\n"
	"	mov 0(%rdi), %rax\n mov 8(%rdi), %rcx\n mov 16(%rdi), %rdx\n"
	"	mov 24(%rdi), %rbx\n mov 40(%rdi), %rbp\n mov 48(%rdi), %rsi\n"
	"	mov 64(%rdi), %r8\n mov 72(%rdi), %r9\n mov 80(%rdi), %r10\n"
	"	mov 88(%rdi), %r11\n mov 96(%rdi), %r12\n mov 104(%rdi), %r13\n"
	"	mov 112(%rdi), %r14\n mov 120(%rdi), %r15\n mov 56(%rdi), %rdi\n"
	"	call *(%rsp)\n"
	"	pushfq\n"
	"	push %rdi\n"
	"	mov 24(%rsp), %rdi\n"
	"	mov %rax, 0(%rdi)\n mov %rcx, 8(%rdi)\n mov %rdx, 16(%rdi)\n"
	"	mov %rbx, 24(%rdi)\n mov %rbp, 40(%rdi)\n mov %rsi, 48(%rdi)\n"
	"	mov %r8, 64(%rdi)\n mov %r9, 72(%rdi)\n mov %r10, 80(%rdi)\n"
	"	mov %r11, 88(%rdi)\n mov %r12, 96(%rdi)\n mov %r13, 104(%rdi)\n"
	"	mov %r14, 112(%rdi)\n mov %r15, 120(%rdi)\n"
	"	pop %rax\n mov %rax, 56(%rdi)\n"
	"	pop %rax\n mov %rax, 128(%rdi)\n"
	"	add $16, %rsp\n"
	"	pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
	"	ret\n"
	".size stub_native_enter, .-stub_native_enter\n");

static sigjmp_buf stub_fault_jmp;
static volatile int stub_fault_vector;

static void stub_on_sigfpe(int sig)
{
	(void)sig;
	stub_fault_vector = EMU_FAULT_DE;
	siglongjmp(stub_fault_jmp, 1);
}

static void stub_place_code(struct stub_ctx *c, const uint8_t *bytes, size_t len)
{
	memcpy(c->code, bytes, len);
	c->code[len] = 0xc3; /* ret */
	emu_invalidate_code(c->cpu, (uint64_t)(uintptr_t)c->code, 4096);
}

/* Runs the code natively from `in`; the outcome goes to `out`. */
static void stub_run_native(struct stub_ctx *c, const uint8_t *bytes, size_t len,
			    const struct stub_state *in, struct stub_state *out)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = stub_on_sigfpe;
	sa.sa_flags = SA_NODEFER;
	sigaction(SIGFPE, &sa, &old);

	stub_place_code(c, bytes, len);
	memcpy(c->mem, in->mem, STUB_MEM_SIZE);
	/* static: the registers are not preserved across siglongjmp. */
	static struct stub_regs regs;
	regs = in->regs;
	stub_fault_vector = -1;
	if (sigsetjmp(stub_fault_jmp, 1) == 0)
		stub_native_enter(&regs, c->code);
	sigaction(SIGFPE, &old, NULL);

	out->fault = stub_fault_vector;
	out->regs = out->fault >= 0 ? in->regs : regs;
	memcpy(out->mem, c->mem, STUB_MEM_SIZE);
}

/* --- the emulated side --------------------------------------------------- */

static void stub_on_sync(void *ctx, enum emu_sync kind, uint64_t rip)
{
	(void)rip;
	if (kind == EMU_SYNC_LOCK)
		((struct stub_ctx *)ctx)->sync_events++;
}

static void stub_run_emulated(struct stub_ctx *c, const uint8_t *bytes, size_t len,
			      const struct stub_state *in, struct stub_state *out)
{
	stub_place_code(c, bytes, len);
	memcpy(c->mem, in->mem, STUB_MEM_SIZE);
	struct emu_regs *r = emu_regs(c->cpu);
	memcpy(r->gpr, in->regs.gpr, sizeof(r->gpr));
	r->rflags = in->regs.rflags | 0x202;
	uint64_t start = (uint64_t)(uintptr_t)c->code, end = start + len;
	r->rip = start;
	c->sync_events = 0;
	out->fault = -1;
	for (int steps = 0; r->rip != end; steps++) {
		ck_assert_msg(steps < 64, "emulated stub does not reach its end");
		enum emu_exit e = emu_run(c->cpu, 1);
		if (e == EMU_EXIT_LIMIT)
			continue;
		const struct emu_exit_info *x = emu_exit_info(c->cpu);
		ck_assert_msg(e == EMU_EXIT_FAULT, "emulator stopped: %s %s",
			      emu_exit_name(e), x->mnemonic ? x->mnemonic : "");
		ck_assert_msg(r->rip == start, "fault not at the stub's start");
		out->fault = x->fault;
		break;
	}
	memcpy(out->regs.gpr, r->gpr, sizeof(r->gpr));
	out->regs.rflags = r->rflags;
	memcpy(out->mem, c->mem, STUB_MEM_SIZE);
}

/* --- setup ------------------------------------------------------------- */

static void stub_init(struct stub_ctx *c, uint64_t seed)
{
	memset(c, 0, sizeof(*c));
	c->cpu = emu_new(&emu_self_memory_ops, NULL);
	ck_assert_ptr_nonnull(c->cpu);
	c->code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(c->code, MAP_FAILED);
	c->mem = mmap(NULL, STUB_MEM_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(c->mem, MAP_FAILED);
	c->rng = seed ? seed : 1;
	static const struct emu_observer obs_template = { .sync = stub_on_sync };
	struct emu_observer obs = obs_template;
	obs.ctx = c;
	emu_set_observer(c->cpu, &obs);
}

static void stub_fini(struct stub_ctx *c)
{
	emu_free(c->cpu);
	munmap(c->code, 4096);
	munmap(c->mem, STUB_MEM_SIZE);
}

/* xorshift64*: reproducible from the seed each test prints on failure. */
static uint64_t stub_random(struct stub_ctx *c)
{
	c->rng ^= c->rng >> 12;
	c->rng ^= c->rng << 25;
	c->rng ^= c->rng >> 27;
	return c->rng * 0x2545f4914f6cdd1dull;
}

/* A value that is often at an edge: 0, 1, -1, around a sign boundary of
 * some operand size, a single bit, or anything. */
static uint64_t stub_edge_value(struct stub_ctx *c)
{
	uint64_t r = stub_random(c);
	unsigned bits = 8u << (r % 4);
	uint64_t sign = 1ull << (bits - 1);
	switch ((r >> 8) % 12) {
	case 0: return 0;
	case 1: return 1;
	case 2: return ~0ull;
	case 3: return sign;
	case 4: return sign - 1;
	case 5: return ~(sign - 1); /* the sign boundary, sign-extended */
	case 6: return 1ull << ((r >> 16) % 64);
	case 7: return ~(1ull << ((r >> 16) % 64));
	case 8: return (r >> 16) & 0xff;
	default: return stub_random(c);
	}
}

/* All six status flags at random, nothing else. */
static uint64_t stub_random_flags(struct stub_ctx *c)
{
	return stub_random(c) & EMU_STATUS_FLAGS;
}

/* Random registers, flags and memory; STUB_MEM_BASE points at the middle
 * of the memory area. */
static void stub_random_state(struct stub_ctx *c, struct stub_state *s)
{
	for (unsigned i = 0; i < EMU_GPR_COUNT; i++)
		s->regs.gpr[i] = stub_edge_value(c);
	s->regs.gpr[STUB_MEM_BASE] = (uint64_t)(uintptr_t)(c->mem + STUB_MEM_SIZE / 2);
	s->regs.rflags = stub_random_flags(c);
	for (unsigned i = 0; i < STUB_MEM_SIZE; i += 8) {
		uint64_t v = stub_edge_value(c);
		memcpy(s->mem + i, &v, 8);
	}
	s->fault = -1;
}

/* --- encoding ------------------------------------------------------------ */

/* [STUB_MEM_BASE + disp], `size` bytes. */
static ZydisEncoderOperand stub_op_mem(int64_t disp, unsigned size)
{
	ZydisEncoderOperand o;
	memset(&o, 0, sizeof(o));
	o.type = ZYDIS_OPERAND_TYPE_MEMORY;
	o.mem.base = stub_gpr(STUB_MEM_BASE, 8);
	o.mem.displacement = disp;
	o.mem.size = (ZyanU16)size;
	return o;
}

/* Encodes one instruction into buf (at least 16 bytes); returns its length.
 * prefixes: ZYDIS_ATTRIB_HAS_LOCK or 0. */
static size_t stub_encode(uint8_t *buf, ZydisMnemonic mnemonic, uint64_t prefixes,
			  unsigned nops, const ZydisEncoderOperand *ops)
{
	ZydisEncoderRequest req;
	memset(&req, 0, sizeof(req));
	req.machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	req.mnemonic = mnemonic;
	req.prefixes = prefixes;
	req.operand_count = (ZyanU8)nops;
	for (unsigned i = 0; i < nops; i++)
		req.operands[i] = ops[i];
	ZyanUSize len = 16;
	ZyanStatus st = ZydisEncoderEncodeInstruction(&req, buf, &len);
	ck_assert_msg(ZYAN_SUCCESS(st), "cannot encode %s with %u operands",
		      ZydisMnemonicGetString(mnemonic), nops);
	return len;
}

#define STUB_ENCODE(buf, mnemonic, prefixes, ...)                                   \
	stub_encode(buf, mnemonic, prefixes,                                        \
		    sizeof((ZydisEncoderOperand[]){ __VA_ARGS__ }) / sizeof(ZydisEncoderOperand), \
		    (ZydisEncoderOperand[]){ __VA_ARGS__ })

/* --- comparison ---------------------------------------------------------- */

static void stub_describe(const uint8_t *bytes, size_t len, char *buf, size_t size)
{
	char text[128];
	size_t off = 0;
	int n = snprintf(buf, size, "[");
	off = n > 0 ? (size_t)n : 0;
	while (off < size && len) {
		size_t l = emu_disassemble(0x1000, bytes, len, text, sizeof(text));
		if (!l)
			break;
		n = snprintf(buf + off, size - off, "%s; ", text);
		off += n > 0 ? (size_t)n : 0;
		bytes += l;
		len -= l;
	}
	if (off < size)
		snprintf(buf + off, size - off, "]");
}

/*
 * The status flags that `bytes` run from `in` leave architecturally
 * undefined, when the host is not of the vendor whose choices the emulator
 * models (emu_host_is_modelled_vendor); 0 on such a host, where the
 * comparison stays complete.
 */
static uint64_t stub_undefined_flags(const uint8_t *bytes, size_t len,
				     const struct stub_state *in)
{
	static int modelled = -1;
	if (modelled < 0)
		modelled = emu_host_is_modelled_vendor();
	if (modelled)
		return 0;
	static struct emu_regs before;
	memcpy(before.gpr, in->regs.gpr, sizeof(before.gpr));
	before.rflags = in->regs.rflags;
	uint64_t undefined = 0;
	char text[128];
	/* Registers are known before the first instruction only. */
	for (bool first = true; len; first = false) {
		size_t l = emu_disassemble(0x1000, bytes, len, text, sizeof(text));
		if (!l)
			break;
		undefined = emu_undefined_flags_after(bytes, l, first ? &before : NULL, undefined);
		bytes += l;
		len -= l;
	}
	return undefined;
}

/* The bits of the destination that the first instruction of `bytes` leaves
 * undefined when run from `in` (emu_undefined_result: shld/shrd of 16
 * bits by more than 16), on a host of another vendor than the modelled one:
 * *gpr_bits of GPR *gpr, or *mem_size bytes at *mem_off in the memory
 * area. Nothing (0 and 0) otherwise. */
static void stub_undefined_destination(const struct stub_ctx *c, const uint8_t *bytes,
				       size_t len, const struct stub_state *in, unsigned *gpr,
				       uint64_t *gpr_bits, size_t *mem_off, size_t *mem_size)
{
	*gpr_bits = 0;
	*mem_size = 0;
	if (emu_host_is_modelled_vendor())
		return;
	static struct emu_regs before;
	memcpy(before.gpr, in->regs.gpr, sizeof(before.gpr));
	if (!emu_undefined_result(bytes, len, &before))
		return;
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ck_assert(ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, bytes, len, &zi, ops)));
	unsigned size = ops[0].size / 8;
	uint64_t bits = size == 8 ? ~0ull : (1ull << (size * 8)) - 1;
	if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER) {
		ZydisRegister r64 = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
								     ops[0].reg.value);
		*gpr = (unsigned)ZydisRegisterGetId(r64);
		*gpr_bits = bits;
		return;
	}
	ck_assert(ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY &&
		  ops[0].mem.base == stub_gpr(STUB_MEM_BASE, 8) &&
		  ops[0].mem.index == ZYDIS_REGISTER_NONE);
	uint64_t addr = in->regs.gpr[STUB_MEM_BASE] + (uint64_t)ops[0].mem.disp.value;
	*mem_off = (size_t)(addr - (uint64_t)(uintptr_t)c->mem);
	*mem_size = size;
}

/*
 * Runs `bytes` natively and emulated from `in` and fails the test on any
 * difference in GPRs (but rsp), the flags in flag_mask, memory, or fault.
 * On a host of another vendor than the one the emulator models, flags the
 * code leaves undefined are left out (a faulting run changes no flag, so
 * all of flag_mask is compared then), and so is a destination the
 * instruction leaves undefined (stub_undefined_destination).
 * The native outcome is stored in *native_out when it is not NULL.
 */
static void stub_compare_masked(struct stub_ctx *c, const uint8_t *bytes, size_t len,
				const struct stub_state *in, uint64_t flag_mask,
				struct stub_state *native_out)
{
	static struct stub_state native, emulated;
	stub_run_native(c, bytes, len, in, &native);
	stub_run_emulated(c, bytes, len, in, &emulated);
	char what[256];
	stub_describe(bytes, len, what, sizeof(what));
	ck_assert_msg(native.fault == emulated.fault, "%s: fault native %d emulated %d",
		      what, native.fault, emulated.fault);
	unsigned dest_gpr = 0;
	uint64_t dest_bits;
	size_t dest_off = 0, dest_size;
	stub_undefined_destination(c, bytes, len, in, &dest_gpr, &dest_bits, &dest_off, &dest_size);
	if (native.fault < 0 && dest_bits)
		emulated.regs.gpr[dest_gpr] = (emulated.regs.gpr[dest_gpr] & ~dest_bits) |
					      (native.regs.gpr[dest_gpr] & dest_bits);
	if (native.fault < 0 && dest_size)
		memcpy(emulated.mem + dest_off, native.mem + dest_off, dest_size);
	for (unsigned i = 0; i < EMU_GPR_COUNT; i++) {
		if (i == EMU_RSP)
			continue;
		ck_assert_msg(native.regs.gpr[i] == emulated.regs.gpr[i],
			      "%s: gpr %u native %#lx emulated %#lx (in %#lx, flags in %#lx; "
			      "rax %#lx rcx %#lx rdx %#lx rbx %#lx rsi %#lx)",
			      what, i, (unsigned long)native.regs.gpr[i],
			      (unsigned long)emulated.regs.gpr[i],
			      (unsigned long)in->regs.gpr[i], (unsigned long)in->regs.rflags,
			      (unsigned long)in->regs.gpr[EMU_RAX], (unsigned long)in->regs.gpr[EMU_RCX],
			      (unsigned long)in->regs.gpr[EMU_RDX], (unsigned long)in->regs.gpr[EMU_RBX],
			      (unsigned long)in->regs.gpr[EMU_RSI]);
	}
	if (native.fault < 0)
		flag_mask &= ~stub_undefined_flags(bytes, len, in);
	uint64_t nf = native.regs.rflags & flag_mask, ef = emulated.regs.rflags & flag_mask;
	ck_assert_msg(nf == ef,
		      "%s: flags native %#lx emulated %#lx (compared %#lx; flags in %#lx; rax %#lx "
		      "rcx %#lx rdx %#lx rbx %#lx rsi %#lx)",
		      what, (unsigned long)nf, (unsigned long)ef, (unsigned long)flag_mask,
		      (unsigned long)in->regs.rflags,
		      (unsigned long)in->regs.gpr[EMU_RAX], (unsigned long)in->regs.gpr[EMU_RCX],
		      (unsigned long)in->regs.gpr[EMU_RDX], (unsigned long)in->regs.gpr[EMU_RBX],
		      (unsigned long)in->regs.gpr[EMU_RSI]);
	for (unsigned i = 0; memcmp(native.mem, emulated.mem, STUB_MEM_SIZE) && i < STUB_MEM_SIZE; i++)
		ck_assert_msg(native.mem[i] == emulated.mem[i],
			      "%s: memory at base%+d native %#x emulated %#x", what,
			      (int)i - STUB_MEM_SIZE / 2, native.mem[i], emulated.mem[i]);
	if (native_out)
		*native_out = native;
}

static void stub_compare(struct stub_ctx *c, const uint8_t *bytes, size_t len,
			 const struct stub_state *in)
{
	stub_compare_masked(c, bytes, len, in, EMU_STATUS_FLAGS, NULL);
}

#endif
