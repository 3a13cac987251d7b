/*
 * ops_x87.c — the x87 floating-point unit: every escape instruction
 * (D8..DF: loads and stores of all formats, arithmetic, transcendentals,
 * compares, fcmovcc, control and environment instructions), fwait and
 * emms.
 *
 * One handler serves all escape instructions: it moves the guest's x87
 * state into a host state image, lets the host x87 unit execute the same
 * instruction (x87_exec.h), and moves the result back. What stays here is
 * what the host cannot see: guest memory (read into and written from a
 * private buffer), the pending-exception check that raises #MF, and the
 * guest addresses recorded in FIP/FDP/FOP.
 *
 * FIP/FDP/FOP are maintained as this CPU family does (CPUID.7.EBX bit 6,
 * FDP_EXCPTN_ONLY, and FOP compatibility mode off): FIP is the address of
 * the last non-control x87 instruction; FDP (the linear address of its
 * memory operand) and FOP (the low three bits of the escape byte and the
 * ModRM byte) change only when an instruction raises an unmasked
 * exception. FCS/FDS are always zero (deprecated by the CPU).
 *
 * The host's x87 unit computes the pointers by its own policy (AMD's
 * updates FDP and FOP at every non-control instruction), so the host's
 * changes to FDP and FOP are taken only for an instruction that raised an
 * unmasked exception: the guest sees this CPU's pointers on any host.
 */
#include <string.h>

#include "binding.h"
#include "operand.h"
#include "x87.h"
#include "x87_exec.h"

/* --- guest state <-> host image ------------------------------------------ */

static void put16(uint8_t *img, unsigned off, uint16_t v) { memcpy(img + off, &v, 2); }
static void put32(uint8_t *img, unsigned off, uint32_t v) { memcpy(img + off, &v, 4); }
static uint16_t get16(const uint8_t *img, unsigned off) { uint16_t v; memcpy(&v, img + off, 2); return v; }
static uint32_t get32(const uint8_t *img, unsigned off) { uint32_t v; memcpy(&v, img + off, 4); return v; }

static void state_to_image(const struct emu_regs *r, uint8_t *img)
{
	memset(img, 0, X87_IMG_SIZE);
	put16(img, X87_IMG_FCW, r->fcw);
	put16(img, X87_IMG_FSW, r->fsw);
	put16(img, X87_IMG_FTW, r->ftw);
	put32(img, X87_IMG_FIP, (uint32_t)r->fip);
	put16(img, X87_IMG_FOP, r->fop & 0x7ff);
	put32(img, X87_IMG_FDP, (uint32_t)r->fdp);
	unsigned top = x87_top(r->fsw);
	for (unsigned i = 0; i < 8; i++)
		memcpy(img + X87_IMG_REGS + 10 * i, r->st[(top + i) & 7].bytes, 10);
}

/* Everything but FIP/FDP/FOP, which the caller maps to guest addresses. */
static void image_to_state(const uint8_t *img, struct emu_regs *r)
{
	r->fcw = get16(img, X87_IMG_FCW);
	r->fsw = get16(img, X87_IMG_FSW);
	r->ftw = get16(img, X87_IMG_FTW);
	unsigned top = x87_top(r->fsw);
	for (unsigned i = 0; i < 8; i++)
		memcpy(r->st[(top + i) & 7].bytes, img + X87_IMG_REGS + 10 * i, 10);
}

/* FOP of the guest instruction: escape low bits and ModRM, read from the
 * code only when an unmasked exception makes the CPU record it. */
static uint16_t guest_fop(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint8_t code[15];
	size_t n = cpu->mem->fetch(cpu->mem_ctx, insn->addr, code,
				   insn->len < sizeof(code) ? insn->len : sizeof(code));
	for (size_t i = 0; i + 1 < n; i++)
		if (code[i] >= 0xd8 && code[i] <= 0xdf)
			return (uint16_t)(((code[i] & 7u) << 8) | code[i + 1]);
	return x87_stub_info((unsigned)insn->imm)->fop;
}

/* --- the escape instructions ---------------------------------------------- */

/*
 * Values the host image carries in FIP/FDP/FOP. An environment store must
 * see the guest's own values; any other instruction gets values that
 * differ from what the stub would record, so that a change shows.
 */
static void prepare_pointers(uint8_t *img, const struct x87_stub_info *info,
			     unsigned stub, uint32_t mem32)
{
	if (info->env_store)
		return;
	if (get32(img, X87_IMG_FIP) == x87_stub_ip32(stub))
		put32(img, X87_IMG_FIP, x87_stub_ip32(stub) ^ 1);
	if (get32(img, X87_IMG_FDP) == mem32)
		put32(img, X87_IMG_FDP, mem32 ^ 1);
	if (get16(img, X87_IMG_FOP) == info->fop)
		put16(img, X87_IMG_FOP, info->fop ^ 1);
}

static void commit_pointers(struct emu_cpu *cpu, const struct emu_insn *insn,
			    const uint8_t *in, const uint8_t *out,
			    unsigned stub, uint32_t mem32, uint64_t mem_addr)
{
	const struct x87_stub_info *info = x87_stub_info(stub);
	struct emu_regs *r = &cpu->regs;
	uint32_t fip = get32(out, X87_IMG_FIP), fdp = get32(out, X87_IMG_FDP);
	uint16_t fop = get16(out, X87_IMG_FOP);
	if (info->env_load) {
		r->fip = fip;
		r->fdp = fdp;
		r->fop = fop;
		return;
	}
	if (fip != get32(in, X87_IMG_FIP))
		r->fip = fip == x87_stub_ip32(stub) ? insn->addr : fip;
	/* A waiting instruction starts with no exception pending (else it
	 * raised #MF), so ES afterwards means this one raised it. */
	bool raised = info->waits && (get16(out, X87_IMG_FSW) & X87_SW_ES);
	if (!raised)
		return;
	if (fdp != get32(in, X87_IMG_FDP))
		r->fdp = fdp == mem32 ? mem_addr : fdp;
	if (fop != get16(in, X87_IMG_FOP))
		r->fop = fop == info->fop ? guest_fop(cpu, insn) : fop;
}

/*
 * Whether the stub stored to memory: after an unmasked exception the CPU
 * may leave the destination alone. Ran once over a zeroed buffer; a second
 * run over a buffer of ones tells a stored zero from no store.
 */
static bool stub_stored(unsigned stub, const struct x87_exec_frame *first,
			const uint8_t *image_in, unsigned size)
{
	static const uint8_t zeros[X87_MEM_MAX];
	if (memcmp(first->mem, zeros, size) != 0)
		return true;
	uint8_t ones[X87_MEM_MAX];
	memset(ones, 0xff, sizeof(ones));
	struct x87_exec_frame again = *first;
	memcpy(again.image, image_in, X87_IMG_SIZE);
	again.mem = ones;
	x87_exec_stub(stub, &again);
	for (unsigned i = 0; i < size; i++)
		if (ones[i] != 0xff)
			return true;
	return false;
}

/* --- the guest's state kept in the host unit ---------------------------- */

/*
 * Loading the whole unit (frstor) and saving it back (fnsave) cost about
 * fourteen times what a typical instruction does on it, so consecutive
 * instructions share one load: between them the host unit holds the
 * guest's registers and tags (cpu->regs.st and ftw are stale), while
 * fcw, fsw and the pointers in cpu->regs stay current. The unit belongs
 * to the host thread, hence a thread-local holder. Everything that reads
 * or writes the registers or tags otherwise settles first (x87.h); emu_run
 * settles before it returns, so outside a run cpu->regs is whole.
 */
__thread struct emu_cpu *emu_x87_holder;
static __thread uint16_t holder_host_cw;

void emu_x87_release(struct emu_cpu *cpu)
{
	uint8_t img[X87_IMG_SIZE];
	x87_host_store(img, holder_host_cw);
	emu_x87_holder = NULL;
	image_to_state(img, &cpu->regs);
}

static void x87_hold(struct emu_cpu *cpu)
{
	if (emu_x87_holder == cpu)
		return;
	if (emu_x87_holder)
		emu_x87_release(emu_x87_holder);
	uint8_t img[X87_IMG_SIZE];
	state_to_image(&cpu->regs, img);
	x87_host_load(img, &holder_host_cw);
	emu_x87_holder = cpu;
}

/*
 * Whether the instruction may run on the held state: a non-control
 * instruction while every exception is masked, when nothing observes the
 * run. It then raises no unmasked exception, so it sets FIP to its own
 * address, leaves FDP and FOP alone and always stores its result.
 */
static bool x87_may_hold(const struct emu_cpu *cpu, const struct x87_stub_info *info)
{
	return info->may_stay && !cpu->has_observer &&
	       (cpu->regs.fcw & X87_CW_MASKS) == X87_CW_MASKS;
}

/* A store only faults on its memory write, after the host ran it: the
 * state before it is kept (fnsave, which empties the unit, and frstor)
 * and put back when the write faults. */
static int x87_escape_held(struct emu_cpu *cpu, const struct emu_insn *insn,
			   unsigned stub, const struct x87_stub_info *info)
{
	struct emu_regs *r = &cpu->regs;
	uint8_t buf[X87_MEM_MAX] = { 0 };
	uint64_t mem_addr = 0;
	int rc;
	if (info->mem_read || info->mem_write)
		mem_addr = emu_mem_addr(cpu, insn);
	if (info->mem_read &&
	    (rc = emu_mem_read(cpu, mem_addr, buf, info->mem_read)) != EMU_OK)
		return rc;

	x87_hold(cpu);
	uint8_t before[X87_IMG_SIZE];
	if (info->mem_write) {
		uint16_t cw;
		x87_host_store(before, holder_host_cw);
		x87_host_load(before, &cw);
	}
	struct x87_exec_frame f = { .mem = buf, .status_flags = emu_rflags(cpu) };
	uint16_t fsw = x87_host_run(stub, &f);
	if (info->mem_write &&
	    (rc = emu_mem_write(cpu, mem_addr, buf, info->mem_write)) != EMU_OK) {
		uint8_t after[X87_IMG_SIZE];
		uint16_t cw;
		x87_host_store(after, holder_host_cw);
		x87_host_load(before, &cw);
		return rc;
	}
	r->fsw = fsw;
	r->fip = insn->addr;
	if (info->uses_rflags)
		emu_set_status_flags(cpu, f.status_flags);
	if (info->writes_ax)
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 2, f.rax);
	return EMU_OK;
}

/* --- one instruction on a freshly loaded unit ---------------------------- */

static int x87_escape(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	unsigned stub = (unsigned)insn->imm;
	const struct x87_stub_info *info = x87_stub_info(stub);
	struct emu_regs *r = &cpu->regs;
	int rc;

	if (info->waits && x87_pending(r))
		return emu_fault(cpu, EMU_FAULT_MF);
	if (x87_may_hold(cpu, info))
		return x87_escape_held(cpu, insn, stub, info);
	emu_x87_settle(cpu);

	uint8_t buf[X87_MEM_MAX] = { 0 };
	uint64_t mem_addr = 0;
	if (info->mem_read || info->mem_write)
		mem_addr = emu_mem_addr(cpu, insn);
	if (info->mem_read &&
	    (rc = emu_mem_read(cpu, mem_addr, buf, info->mem_read)) != EMU_OK)
		return rc;

	struct x87_exec_frame f = { .mem = buf, .status_flags = emu_rflags(cpu) };
	uint32_t mem32 = (uint32_t)(uintptr_t)buf;
	state_to_image(r, f.image);
	prepare_pointers(f.image, info, stub, mem32);
	uint8_t image_in[X87_IMG_SIZE];
	memcpy(image_in, f.image, sizeof(image_in));
	x87_exec_stub(stub, &f);

	if (info->mem_write) {
		bool stored = true;
		if (info->waits && (get16(f.image, X87_IMG_FSW) & X87_SW_ES))
			stored = stub_stored(stub, &f, image_in, info->mem_write);
		if (stored &&
		    (rc = emu_mem_write(cpu, mem_addr, buf, info->mem_write)) != EMU_OK)
			return rc;
	}
	image_to_state(f.image, r);
	commit_pointers(cpu, insn, image_in, f.image, stub, mem32, mem_addr);
	if (info->uses_rflags)
		emu_set_status_flags(cpu, f.status_flags);
	if (info->writes_ax)
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 2, f.rax);
	return EMU_OK;
}

/* Finds the stub of the decoded instruction and keeps its number in imm
 * (x87 instructions have no immediate). The 16-bit environment formats
 * (operand-size prefix on fldenv/fnstenv/frstor/fnsave) have no stub. */
static emu_handler *bind_escape(struct emu_insn *insn)
{
	struct x87_operand_sig sig[4];
	for (unsigned i = 0; i < insn->nopnd; i++) {
		sig[i].kind = insn->opnd[i].kind;
		sig[i].size = insn->opnd[i].size;
		sig[i].reg = insn->opnd[i].kind == EMU_OPND_MEM ? 0 : insn->opnd[i].reg;
	}
	int stub = x87_stub_find(insn->mnemonic, insn->nopnd, sig);
	if (stub < 0)
		return NULL;
	insn->imm = (uint64_t)stub;
	return x87_escape;
}

/* --- fnstsw and fnstcw ---------------------------------------------------- */

/*
 * Stores of the status or control word, without the host unit: they
 * never wait, raise nothing and leave FIP/FDP/FOP alone, so the word as
 * the guest state holds it is all there is to store. Loading and saving
 * the whole unit around them cost more than everything else they do: a
 * JIT's float modulo (V8's fprem loop) runs fnstsw ax once a turn.
 */
enum { X87_STORE_FSW, X87_STORE_FCW };

static int x87_store_word(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	uint16_t word = insn->op == X87_STORE_FCW ? cpu->regs.fcw : cpu->regs.fsw;
	if (insn->opnd[0].kind == EMU_OPND_GPR) {
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), 2, word);
		return EMU_OK;
	}
	uint8_t bytes[2];
	memcpy(bytes, &word, sizeof(bytes));
	return emu_mem_write(cpu, emu_mem_addr(cpu, insn), bytes, sizeof(bytes));
}

/* The 16-bit forms only (a stray operand-size prefix keeps them 16-bit). */
static emu_handler *bind_store_word(struct emu_insn *insn)
{
	const struct emu_operand *o = &insn->opnd[0];
	if (insn->nopnd < 1 || o->size != 2 ||
	    (o->kind != EMU_OPND_MEM && (o->kind != EMU_OPND_GPR || o->reg != EMU_GPR_OFF(EMU_RAX))))
		return bind_escape(insn);
	return x87_store_word;
}

/* --- fwait and emms ------------------------------------------------------- */

static int x87_wait(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)insn;
	if (x87_pending(&cpu->regs))
		return emu_fault(cpu, EMU_FAULT_MF);
	return EMU_OK;
}

/* Leaves MMX mode: every register empty and, as this CPU does, TOP = 0. */
static int x87_emms(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)insn;
	if (x87_pending(&cpu->regs))
		return emu_fault(cpu, EMU_FAULT_MF);
	emu_x87_settle(cpu);
	cpu->regs.ftw = 0xffff;
	cpu->regs.fsw &= (uint16_t)~0x3800;
	return EMU_OK;
}

#define ESC(m) { ZYDIS_MNEMONIC_##m, 0, NULL, bind_escape }

static const struct emu_binding x87_bindings[] = {
	ESC(F2XM1), ESC(FABS), ESC(FADD), ESC(FADDP), ESC(FBLD), ESC(FBSTP),
	ESC(FCHS), ESC(FCMOVB), ESC(FCMOVBE), ESC(FCMOVE), ESC(FCMOVNB),
	ESC(FCMOVNBE), ESC(FCMOVNE), ESC(FCMOVNU), ESC(FCMOVU), ESC(FCOM),
	ESC(FCOMI), ESC(FCOMIP), ESC(FCOMP), ESC(FCOMPP), ESC(FCOS),
	ESC(FDECSTP), ESC(FDISI8087_NOP), ESC(FDIV), ESC(FDIVP), ESC(FDIVR),
	ESC(FDIVRP), ESC(FENI8087_NOP), ESC(FFREE), ESC(FFREEP), ESC(FIADD),
	ESC(FICOM), ESC(FICOMP), ESC(FIDIV), ESC(FIDIVR), ESC(FILD), ESC(FIMUL),
	ESC(FINCSTP), ESC(FIST), ESC(FISTP), ESC(FISTTP), ESC(FISUB),
	ESC(FISUBR), ESC(FLD), ESC(FLD1), ESC(FLDCW), ESC(FLDENV), ESC(FLDL2E),
	ESC(FLDL2T), ESC(FLDLG2), ESC(FLDLN2), ESC(FLDPI), ESC(FLDZ), ESC(FMUL),
	ESC(FMULP), ESC(FNCLEX), ESC(FNINIT), ESC(FNOP), ESC(FNSAVE),
	ESC(FNSTENV), ESC(FPATAN), ESC(FPREM),
	ESC(FPREM1), ESC(FPTAN), ESC(FRNDINT), ESC(FRSTOR), ESC(FSCALE),
	ESC(FSETPM287_NOP), ESC(FSIN), ESC(FSINCOS), ESC(FSQRT), ESC(FST),
	ESC(FSTP), ESC(FSTPNCE), ESC(FSUB), ESC(FSUBP), ESC(FSUBR), ESC(FSUBRP),
	ESC(FTST), ESC(FUCOM), ESC(FUCOMI), ESC(FUCOMIP), ESC(FUCOMP),
	ESC(FUCOMPP), ESC(FXAM), ESC(FXCH), ESC(FXTRACT), ESC(FYL2X),
	ESC(FYL2XP1),
	{ ZYDIS_MNEMONIC_FNSTSW, X87_STORE_FSW, NULL, bind_store_word },
	{ ZYDIS_MNEMONIC_FNSTCW, X87_STORE_FCW, NULL, bind_store_word },
	{ ZYDIS_MNEMONIC_FWAIT, 0, x87_wait, NULL },
	{ ZYDIS_MNEMONIC_EMMS, 0, x87_emms, NULL },
};

EMU_FAMILY(emu_family_x87, x87_bindings);
