/*
 * native.c — runs the instruction under test on the real CPU.
 *
 * A generated stub in a code page of our own loads the complete input state
 * (x87 and SSE through fxrstor, YMM when the CPU has AVX, RFLAGS, every GPR
 * including rsp, which points into the scratch stack), executes the
 * instruction, and stores everything back. The instruction is followed by
 * two exits that record which one execution reached: the fall-through exit
 * directly after it, and the branch exit DIFF_EXIT_SIZE bytes further, where
 * branches under test are aimed. The stub's data (input and output images)
 * sits in the pages after the code, addressed rip-relative, so no register is
 * needed to reach it.
 *
 * Exceptions: SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGTRAP raised by the
 * instruction are caught on an alternate stack and turned into the CPU's
 * vector (the kernel's trap number) with siglongjmp; the host's x87/SSE
 * state is then restored from the image the stub saved on entry.
 *
 * The stub itself is assembled with Zydis's encoder, one request per
 * instruction, addresses absolute.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <cpuid.h>

#include "diff.h"

#define PAGE 4096u

/* The standard xsave format through Hi16_ZMM (offset 1664, 1024 bytes). */
#define XSTATE_AREA_SIZE 2688

/* The data pages: what the stub reads and writes. */
struct stub_data {
	uint8_t fx_in[512] __attribute__((aligned(64)));
	uint8_t fx_out[512] __attribute__((aligned(64)));
	uint8_t fx_host[512] __attribute__((aligned(64)));
	uint8_t ymm_in[DIFF_VECS][32];
	uint8_t ymm_out[DIFF_VECS][32];
	uint64_t gpr_in[DIFF_GPRS], gpr_out[DIFF_GPRS];
	uint64_t rflags_in, rflags_out;
	uint64_t host_rsp, host_rflags;
	uint32_t exit_id;
	uint8_t fenv_out[28];
	/* An xsave area with an all-zero header: xrstor from it puts the
	 * requested components in their initial configuration. The CPU
	 * accesses the whole standard-format area of the requested components
	 * even when the header says none is loaded (it faults when the end of
	 * Hi16_ZMM is unmapped), so the area runs through component 7. */
	uint8_t xstate_init[XSTATE_AREA_SIZE] __attribute__((aligned(64)));
};
#define DATA_PAGES 2
_Static_assert(sizeof(struct stub_data) <= DATA_PAGES * PAGE, "stub data fits its pages");

static struct stub_data *data;
static size_t prologue_len;        /* from the page start to the instruction */
static void (*recover)(void);      /* restores host flags and FP state */
static void (*stub)(void);

/* --- assembling the stub --------------------------------------------------- */

struct assembler {
	uint8_t *buf;
	size_t pos, cap;
	bool failed;
};

static uint64_t here(const struct assembler *a)
{
	return (uint64_t)(uintptr_t)(a->buf + a->pos);
}

static void emit(struct assembler *a, ZydisEncoderRequest *rq)
{
	ZyanUSize n = a->cap - a->pos;
	if (a->failed || !ZYAN_SUCCESS(ZydisEncoderEncodeInstructionAbsolute(
			rq, a->buf + a->pos, &n, here(a))))
		a->failed = true;
	else
		a->pos += n;
}

static void request(ZydisEncoderRequest *rq, ZydisMnemonic mn, unsigned count)
{
	memset(rq, 0, sizeof(*rq));
	rq->machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	rq->mnemonic = mn;
	rq->operand_count = (ZyanU8)count;
}

static void reg_operand(ZydisEncoderOperand *o, ZydisRegister r)
{
	o->type = ZYDIS_OPERAND_TYPE_REGISTER;
	o->reg.value = r;
}

/* [rip + (p - next rip)]: a field of the stub's data. */
static void data_operand(ZydisEncoderOperand *o, const void *p, unsigned size)
{
	o->type = ZYDIS_OPERAND_TYPE_MEMORY;
	o->mem.base = ZYDIS_REGISTER_RIP;
	o->mem.displacement = (int64_t)(uintptr_t)p;
	o->mem.size = (ZyanU16)size;
}

static void op_none(struct assembler *a, ZydisMnemonic mn)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 0);
	emit(a, &rq);
}

static void op_reg(struct assembler *a, ZydisMnemonic mn, ZydisRegister r)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 1);
	reg_operand(&rq.operands[0], r);
	emit(a, &rq);
}

static void op_mem(struct assembler *a, ZydisMnemonic mn, const void *p, unsigned size)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 1);
	data_operand(&rq.operands[0], p, size);
	emit(a, &rq);
}

static void op_reg_mem(struct assembler *a, ZydisMnemonic mn, ZydisRegister r,
		       const void *p, unsigned size)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 2);
	reg_operand(&rq.operands[0], r);
	data_operand(&rq.operands[1], p, size);
	emit(a, &rq);
}

static void op_mem_reg(struct assembler *a, ZydisMnemonic mn, const void *p,
		       unsigned size, ZydisRegister r)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 2);
	data_operand(&rq.operands[0], p, size);
	reg_operand(&rq.operands[1], r);
	emit(a, &rq);
}

static void op_reg_imm(struct assembler *a, ZydisMnemonic mn, ZydisRegister r, uint64_t imm)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 2);
	reg_operand(&rq.operands[0], r);
	rq.operands[1].type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
	rq.operands[1].imm.u = imm;
	emit(a, &rq);
}

static void op_mem_imm(struct assembler *a, ZydisMnemonic mn, const void *p,
		       unsigned size, uint64_t imm)
{
	ZydisEncoderRequest rq;
	request(&rq, mn, 2);
	data_operand(&rq.operands[0], p, size);
	rq.operands[1].type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
	rq.operands[1].imm.u = imm;
	emit(a, &rq);
}

/* jmp rel32 to an absolute target (fixed width: exits have a fixed size). */
static void jump_near(struct assembler *a, uint64_t target)
{
	ZydisEncoderRequest rq;
	request(&rq, ZYDIS_MNEMONIC_JMP, 1);
	rq.branch_type = ZYDIS_BRANCH_TYPE_NEAR;
	rq.branch_width = ZYDIS_BRANCH_WIDTH_32;
	rq.operands[0].type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
	rq.operands[0].imm.u = target;
	emit(a, &rq);
}

static const ZydisRegister callee_saved[] = {
	ZYDIS_REGISTER_RBX, ZYDIS_REGISTER_RBP, ZYDIS_REGISTER_R12,
	ZYDIS_REGISTER_R13, ZYDIS_REGISTER_R14, ZYDIS_REGISTER_R15,
};
#define CALLEE_SAVED 6

static ZydisRegister gpr64(unsigned i)
{
	return (ZydisRegister)(ZYDIS_REGISTER_RAX + i);
}

/* Entry to the instruction: the host's registers saved, the input loaded.
 * rsp is loaded last (the data is rip-relative, so no register is needed
 * after that); popfq runs on the host stack before the GPRs are loaded,
 * and mov does not change flags. `avx512`: the XCR0 components 5..7
 * (opmask, ZMM_Hi256, Hi16_ZMM) the OS enables; the input does not
 * describe them, so they start in their initial configuration (not with
 * whatever the host's library code left there), as they do in the
 * emulator; xsave shows them.
 * The CPU's "in use" bits (XINUSE, which xsave* report in XSTATE_BV) are
 * hidden state: after this prologue x87, SSE and AVX are in use whatever
 * their values (fxrstor and a VEX load set the bits; measured), while the
 * emulator models "in use" as "differs from the initial configuration".
 * The two agree because inputs never hold those components in their
 * initial configuration (random vectors and x87 state); xsave* of such a
 * state is left uncompared rather than given a harness-side excuse. */
static void emit_prologue(struct assembler *a, bool avx, uint32_t avx512)
{
	for (unsigned i = 0; i < CALLEE_SAVED; i++)
		op_reg(a, ZYDIS_MNEMONIC_PUSH, callee_saved[i]);
	op_none(a, ZYDIS_MNEMONIC_PUSHFQ);
	op_mem(a, ZYDIS_MNEMONIC_POP, &data->host_rflags, 8);
	op_mem_reg(a, ZYDIS_MNEMONIC_MOV, &data->host_rsp, 8, ZYDIS_REGISTER_RSP);
	op_mem(a, ZYDIS_MNEMONIC_FXSAVE64, data->fx_host, 512);
	if (avx512) {
		op_reg_imm(a, ZYDIS_MNEMONIC_MOV, ZYDIS_REGISTER_EAX, avx512);
		op_reg_imm(a, ZYDIS_MNEMONIC_MOV, ZYDIS_REGISTER_EDX, 0);
		op_mem(a, ZYDIS_MNEMONIC_XRSTOR64, data->xstate_init, 0);
	}
	op_mem(a, ZYDIS_MNEMONIC_FXRSTOR64, data->fx_in, 512);
	if (avx)
		for (unsigned i = 0; i < DIFF_VECS; i++)
			op_reg_mem(a, ZYDIS_MNEMONIC_VMOVDQU,
				   (ZydisRegister)(ZYDIS_REGISTER_YMM0 + i), data->ymm_in[i], 32);
	op_mem(a, ZYDIS_MNEMONIC_PUSH, &data->rflags_in, 8);
	op_none(a, ZYDIS_MNEMONIC_POPFQ);
	for (unsigned i = 0; i < DIFF_GPRS; i++)
		if (i != DIFF_RSP)
			op_reg_mem(a, ZYDIS_MNEMONIC_MOV, gpr64(i), &data->gpr_in[i], 8);
	op_reg_mem(a, ZYDIS_MNEMONIC_MOV, ZYDIS_REGISTER_RSP, &data->gpr_in[DIFF_RSP], 8);
}

/* After an exception in the stub: the host's flags (DF, and AC that a popf
 * under test may have set) and FP state, as the epilogue restores them. */
static void emit_recover(struct assembler *a, bool avx)
{
	op_mem(a, ZYDIS_MNEMONIC_PUSH, &data->host_rflags, 8);
	op_none(a, ZYDIS_MNEMONIC_POPFQ);
	op_mem(a, ZYDIS_MNEMONIC_FXRSTOR64, data->fx_host, 512);
	if (avx)
		op_none(a, ZYDIS_MNEMONIC_VZEROUPPER);
	op_none(a, ZYDIS_MNEMONIC_RET);
}

/* Both exits, then the common path that stores the results. */
static void emit_exits_and_epilogue(struct assembler *a, bool avx, uint64_t *fallthrough,
				    uint64_t *branch)
{
	*fallthrough = here(a);
	op_mem_imm(a, ZYDIS_MNEMONIC_MOV, &data->exit_id, 4, 0);
	uint64_t jump_at = here(a);
	jump_near(a, jump_at + 5 + 10); /* over the branch exit's one mov */
	*branch = here(a);
	op_mem_imm(a, ZYDIS_MNEMONIC_MOV, &data->exit_id, 4, 1);
	if (*branch - *fallthrough != DIFF_EXIT_SIZE || here(a) != jump_at + 15)
		a->failed = true;

	op_mem_reg(a, ZYDIS_MNEMONIC_MOV, &data->gpr_out[DIFF_RSP], 8, ZYDIS_REGISTER_RSP);
	op_reg_mem(a, ZYDIS_MNEMONIC_MOV, ZYDIS_REGISTER_RSP, &data->host_rsp, 8);
	for (unsigned i = 0; i < DIFF_GPRS; i++)
		if (i != DIFF_RSP)
			op_mem_reg(a, ZYDIS_MNEMONIC_MOV, &data->gpr_out[i], 8, gpr64(i));
	op_none(a, ZYDIS_MNEMONIC_PUSHFQ);
	op_mem(a, ZYDIS_MNEMONIC_POP, &data->rflags_out, 8);
	op_mem(a, ZYDIS_MNEMONIC_FXSAVE64, data->fx_out, 512);
	/* The full tag word (fxsave has only the abridged one); fnstenv masks
	 * exceptions afterwards, which the fxrstor below undoes. */
	op_mem(a, ZYDIS_MNEMONIC_FNSTENV, data->fenv_out, 28);
	if (avx)
		for (unsigned i = 0; i < DIFF_VECS; i++)
			op_mem_reg(a, ZYDIS_MNEMONIC_VMOVDQU, data->ymm_out[i], 32,
				   (ZydisRegister)(ZYDIS_REGISTER_YMM0 + i));
	op_mem(a, ZYDIS_MNEMONIC_FXRSTOR64, data->fx_host, 512);
	if (avx)
		op_none(a, ZYDIS_MNEMONIC_VZEROUPPER);
	/* The host's flags: DF clear as the ABI wants, and AC (which popf
	 * under test may set) clear so host code does not fault. */
	op_mem(a, ZYDIS_MNEMONIC_PUSH, &data->host_rflags, 8);
	op_none(a, ZYDIS_MNEMONIC_POPFQ);
	for (unsigned i = CALLEE_SAVED; i-- > 0;)
		op_reg(a, ZYDIS_MNEMONIC_POP, callee_saved[i]);
	op_none(a, ZYDIS_MNEMONIC_RET);
}

static bool set_code_writable(struct diff_machine *m, bool writable)
{
	return mprotect(m->code, PAGE, writable ? PROT_READ | PROT_WRITE
						: PROT_READ | PROT_EXEC) == 0;
}

void diff_native_load(struct diff_machine *m, const uint8_t *bytes, size_t len)
{
	if (!set_code_writable(m, true)) {
		perror("diff: mprotect");
		exit(2);
	}
	memcpy((uint8_t *)(uintptr_t)m->insn_addr, bytes, len);
	struct assembler a = { m->code, prologue_len + len, PAGE, false };
	uint64_t fallthrough, branch;
	emit_exits_and_epilogue(&a, m->has_avx, &fallthrough, &branch);
	if (a.failed || fallthrough != m->insn_addr + len) {
		fprintf(stderr, "diff: cannot assemble the stub's exits\n");
		exit(2);
	}
	m->exit_fallthrough = fallthrough;
	m->exit_branch = branch;
	if (!set_code_writable(m, false)) {
		perror("diff: mprotect");
		exit(2);
	}
}

/* --- exceptions --------------------------------------------------------------- */

static sigjmp_buf native_jump;
static volatile sig_atomic_t in_native;
static volatile int fault_trapno;
static volatile uint64_t fault_rip;

static const int caught_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP };

static void on_signal(int sig, siginfo_t *info, void *uc_void)
{
	(void)info;
	if (!in_native) {
		/* Not ours: let the default action report it. */
		signal(sig, SIG_DFL);
		return;
	}
	ucontext_t *uc = uc_void;
	fault_trapno = (int)uc->uc_mcontext.gregs[REG_TRAPNO];
	fault_rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	in_native = 0;
	siglongjmp(native_jump, 1);
}

static bool install_handlers(void)
{
	static uint8_t *alt_stack;
	alt_stack = malloc(64 * 1024);
	if (!alt_stack)
		return false;
	stack_t ss = { .ss_sp = alt_stack, .ss_size = 64 * 1024, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) != 0)
		return false;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(caught_signals) / sizeof(caught_signals[0]); i++)
		if (sigaction(caught_signals[i], &sa, NULL) != 0)
			return false;
	return true;
}

/* --- state images ----------------------------------------------------------- */

static bool cpu_has_avx(void)
{
	unsigned a, b, c, d;
	if (!__get_cpuid(1, &a, &b, &c, &d))
		return false;
	const unsigned osxsave = 1u << 27, avx = 1u << 28;
	if ((c & (osxsave | avx)) != (osxsave | avx))
		return false;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return (lo & 6) == 6; /* the OS saves XMM and YMM state */
}

/* The AVX-512 components (5..7) XCR0 enables, 0 without AVX. */
static uint32_t avx512_components(bool avx)
{
	if (!avx)
		return 0;
	uint32_t lo, hi;
	__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	return lo & 0xe0;
}

static unsigned x87_top(uint16_t fsw)
{
	return (fsw >> 11) & 7;
}

/* fxsave layout: FCW 0, FSW 2, abridged FTW 4, MXCSR 24, ST(i) at 32+16i
 * (stack order), XMMi at 160+16i. */
static void state_to_fxsave(const struct diff_state *s, uint8_t *fx)
{
	memset(fx, 0, 512);
	memcpy(fx + 0, &s->x87.fcw, 2);
	memcpy(fx + 2, &s->x87.fsw, 2);
	uint8_t abridged = 0;
	for (unsigned i = 0; i < 8; i++)
		if (((s->x87.ftw >> (2 * i)) & 3) != 3)
			abridged |= (uint8_t)(1u << i);
	fx[4] = abridged;
	memcpy(fx + 24, &s->mxcsr, 4);
	unsigned top = x87_top(s->x87.fsw);
	for (unsigned i = 0; i < 8; i++)
		memcpy(fx + 32 + 16 * i, s->x87.reg[(top + i) & 7], 10);
	for (unsigned i = 0; i < DIFF_VECS; i++)
		memcpy(fx + 160 + 16 * i, s->vec[i], 16);
}

static void fxsave_to_state(const uint8_t *fx, const uint8_t *fenv, struct diff_state *s)
{
	memcpy(&s->x87.fcw, fx + 0, 2);
	memcpy(&s->x87.fsw, fx + 2, 2);
	memcpy(&s->x87.ftw, fenv + 8, 2);
	memcpy(&s->mxcsr, fx + 24, 4);
	unsigned top = x87_top(s->x87.fsw);
	for (unsigned i = 0; i < 8; i++)
		memcpy(s->x87.reg[(top + i) & 7], fx + 32 + 16 * i, 10);
	for (unsigned i = 0; i < DIFF_VECS; i++)
		memcpy(s->vec[i], fx + 160 + 16 * i, 16);
}

/* --- setup and runs ----------------------------------------------------------- */

static void *map_low(size_t size, int prot)
{
	/* Below 2 GiB, so absolute and rip-relative operands reach it; anywhere
	 * if the kernel refuses (those addressing modes are then skipped). */
	void *p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
	if (p == MAP_FAILED)
		p = mmap(NULL, size, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

bool diff_native_init(struct diff_machine *m)
{
	m->has_avx = cpu_has_avx();
	uint8_t *region = map_low(DIFF_SCRATCH_SIZE + 2 * PAGE, PROT_NONE);
	uint8_t *code = map_low((1 + DATA_PAGES) * PAGE, PROT_READ | PROT_WRITE);
	m->initial_memory = malloc(DIFF_SCRATCH_SIZE);
	m->native_memory = malloc(DIFF_SCRATCH_SIZE);
	if (!region || !code || !m->initial_memory || !m->native_memory ||
	    mprotect(region + PAGE, DIFF_SCRATCH_SIZE, PROT_READ | PROT_WRITE) != 0) {
		perror("diff: cannot map the scratch and stub pages");
		return false;
	}
	m->scratch = region + PAGE;
	m->guard_after = m->scratch + DIFF_SCRATCH_SIZE;
	m->code = code;
	data = (struct stub_data *)(code + PAGE);

	struct assembler a = { code, 0, PAGE, false };
	recover = (void (*)(void))(uintptr_t)here(&a);
	emit_recover(&a, m->has_avx);
	stub = (void (*)(void))(uintptr_t)here(&a);
	emit_prologue(&a, m->has_avx, avx512_components(m->has_avx));
	if (a.failed) {
		fprintf(stderr, "diff: cannot assemble the stub\n");
		return false;
	}
	prologue_len = a.pos;
	m->insn_addr = here(&a);
	m->exit_fallthrough = m->insn_addr;
	if (!set_code_writable(m, false) || !install_handlers()) {
		perror("diff: cannot set up native execution");
		return false;
	}
	static const uint8_t nop = 0x90;
	diff_native_load(m, &nop, 1);
	return true;
}

void diff_native_run(struct diff_machine *m, const struct diff_state *in,
		     struct diff_result *out)
{
	memset(out, 0, sizeof(*out));
	state_to_fxsave(in, data->fx_in);
	memcpy(data->ymm_in, in->vec, sizeof(data->ymm_in));
	memcpy(data->gpr_in, in->gpr, sizeof(data->gpr_in));
	data->rflags_in = in->rflags;
	data->exit_id = ~0u;
	memcpy(m->scratch, m->initial_memory, DIFF_SCRATCH_SIZE);

	if (sigsetjmp(native_jump, 1) == 0) {
		in_native = 1;
		stub();
		in_native = 0;
		out->outcome = DIFF_RAN;
		memcpy(out->state.gpr, data->gpr_out, sizeof(data->gpr_out));
		out->state.rflags = data->rflags_out;
		out->state.rip = data->exit_id == 1 ? m->exit_branch : m->exit_fallthrough;
		fxsave_to_state(data->fx_out, data->fenv_out, &out->state);
		if (m->has_avx)
			memcpy(out->state.vec, data->ymm_out, sizeof(data->ymm_out));
	} else {
		recover();
		/* An exception of the instruction itself (int3 reports the
		 * address after it), not of the stub around it. */
		if (fault_rip >= m->insn_addr && fault_rip <= m->exit_fallthrough) {
			out->outcome = DIFF_FAULTED;
			out->vector = fault_trapno;
		} else {
			out->outcome = DIFF_CRASHED;
			out->vector = fault_trapno;
		}
		out->state = *in;
	}
	memcpy(m->native_memory, m->scratch, DIFF_SCRATCH_SIZE);
}
