/*
 * x87_exec.c — the stub table and the host x87 execution primitive
 * (x87_exec.h explains the approach).
 *
 * The stubs are assembled at build time: for each escape byte D8..DF, the
 * eight memory forms (ModRM reg field 0..7, operand [rax]) and the 64
 * register forms (ModRM C0..FF), each as "escape, modrm, ret, int3" in four
 * bytes. Encodings that are invalid on the CPU are never called: the table
 * of stub descriptions is built by decoding every stub with Zydis, and only
 * what decodes is reachable from a guest instruction.
 */
#include <pthread.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "internal.h"
#include "x87_exec.h"

/* escape: 8 memory forms then 64 register forms, 4 bytes each. */
__asm__(
	".pushsection .text.emu_x87_stubs,\"ax\",@progbits\n"
	".balign 64\n"
	"emu_x87_stubs:\n"
	".irp esc, 0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf\n"
	".irp reg, 0, 1, 2, 3, 4, 5, 6, 7\n"
	".byte \\esc, (\\reg << 3), 0xc3, 0xcc\n"
	".endr\n"
	".set emu_x87_modrm, 0xc0\n"
	".rept 64\n"
	".byte \\esc, emu_x87_modrm, 0xc3, 0xcc\n"
	".set emu_x87_modrm, emu_x87_modrm + 1\n"
	".endr\n"
	".endr\n"
	".popsection\n");

extern const uint8_t emu_x87_stubs[];

static struct x87_stub_info stub_info[X87_STUB_COUNT];
static struct {
	bool valid;
	uint8_t nopnd;
	struct x87_operand_sig opnd[4];
} stub_sig[X87_STUB_COUNT];
static pthread_once_t stubs_once = PTHREAD_ONCE_INIT;

static const uint8_t *stub_code(unsigned stub)
{
	return emu_x87_stubs + stub * 4;
}

uint32_t x87_stub_ip32(unsigned stub)
{
	return (uint32_t)(uintptr_t)stub_code(stub);
}

const struct x87_stub_info *x87_stub_info(unsigned stub)
{
	return &stub_info[stub];
}

/* The non-waiting forms: they never raise a pending exception (the 8087
 * and 287 leftovers are the no-wait fneni/fndisi/fnsetpm encodings). */
static bool is_non_waiting(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_FNCLEX || m == ZYDIS_MNEMONIC_FNINIT ||
	       m == ZYDIS_MNEMONIC_FENI8087_NOP || m == ZYDIS_MNEMONIC_FDISI8087_NOP ||
	       m == ZYDIS_MNEMONIC_FSETPM287_NOP ||
	       m == ZYDIS_MNEMONIC_FNSTCW || m == ZYDIS_MNEMONIC_FNSTSW ||
	       m == ZYDIS_MNEMONIC_FNSTENV || m == ZYDIS_MNEMONIC_FNSAVE;
}

/* Translates a decoded operand like decode.c does, for the fields the
 * signature compares. */
static bool operand_signature(const ZydisDecodedOperand *zo,
			      struct x87_operand_sig *s)
{
	s->size = (uint8_t)(zo->size / 8);
	s->reg = 0;
	if (zo->type == ZYDIS_OPERAND_TYPE_MEMORY) {
		s->kind = EMU_OPND_MEM;
		return true;
	}
	if (zo->type != ZYDIS_OPERAND_TYPE_REGISTER)
		return false;
	switch (ZydisRegisterGetClass(zo->reg.value)) {
	case ZYDIS_REGCLASS_X87:
		s->kind = EMU_OPND_X87;
		s->reg = (uint8_t)ZydisRegisterGetId(zo->reg.value);
		return true;
	case ZYDIS_REGCLASS_GPR16:
		/* Only fnstsw ax has a GPR operand: offset 0 in regs.gpr. */
		s->kind = EMU_OPND_GPR;
		return zo->reg.value == ZYDIS_REGISTER_AX;
	default:
		return false;
	}
}

static void describe_stub(const ZydisDecoder *dec, unsigned stub)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand zops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(dec, stub_code(stub), 4, &zi, zops)) ||
	    zi.length != 2 || zi.operand_count_visible > 4)
		return;
	struct x87_stub_info *info = &stub_info[stub];
	const uint8_t *code = stub_code(stub);
	info->mnemonic = (uint16_t)zi.mnemonic;
	info->fop = (uint16_t)(((code[0] & 7u) << 8) | code[1]);
	info->waits = !is_non_waiting(zi.mnemonic);
	info->env_store = zi.mnemonic == ZYDIS_MNEMONIC_FNSTENV ||
			  zi.mnemonic == ZYDIS_MNEMONIC_FNSAVE;
	info->env_load = zi.mnemonic == ZYDIS_MNEMONIC_FNINIT ||
			 zi.mnemonic == ZYDIS_MNEMONIC_FLDENV ||
			 zi.mnemonic == ZYDIS_MNEMONIC_FRSTOR;
	/* The control instructions that wait: fldcw (the others are the
	 * non-waiting ones and the environment loads). */
	info->may_stay = info->waits && !info->env_store && !info->env_load &&
			 zi.mnemonic != ZYDIS_MNEMONIC_FLDCW;
	for (unsigned i = 0; i < zi.operand_count; i++) {
		const ZydisDecodedOperand *zo = &zops[i];
		if (zo->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			unsigned bytes = zo->size / 8;
			if (bytes > X87_MEM_MAX)
				return;
			if (zo->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
				info->mem_read = (uint8_t)bytes;
			if (zo->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				info->mem_write = (uint8_t)bytes;
		} else if (zo->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			if (zo->reg.value == ZYDIS_REGISTER_RFLAGS ||
			    zo->reg.value == ZYDIS_REGISTER_EFLAGS)
				info->uses_rflags = true;
			if (zo->reg.value == ZYDIS_REGISTER_AX)
				info->writes_ax = true;
		}
	}
	stub_sig[stub].nopnd = zi.operand_count_visible;
	for (unsigned i = 0; i < zi.operand_count_visible; i++)
		if (!operand_signature(&zops[i], &stub_sig[stub].opnd[i]))
			return;
	stub_sig[stub].valid = true;
}

static void describe_stubs(void)
{
	ZydisDecoder dec;
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	for (unsigned s = 0; s < X87_STUB_COUNT; s++)
		describe_stub(&dec, s);
}

static bool signature_matches(unsigned stub, uint16_t mnemonic, unsigned nopnd,
			      const struct x87_operand_sig *opnd)
{
	if (!stub_sig[stub].valid || stub_info[stub].mnemonic != mnemonic ||
	    stub_sig[stub].nopnd != nopnd)
		return false;
	for (unsigned i = 0; i < nopnd; i++) {
		const struct x87_operand_sig *a = &stub_sig[stub].opnd[i], *b = &opnd[i];
		if (a->kind != b->kind || a->size != b->size || a->reg != b->reg)
			return false;
	}
	return true;
}

int x87_stub_find(uint16_t mnemonic, unsigned nopnd,
		  const struct x87_operand_sig *opnd)
{
	pthread_once(&stubs_once, describe_stubs);
	for (unsigned s = 0; s < X87_STUB_COUNT; s++)
		if (signature_matches(s, mnemonic, nopnd, opnd))
			return (int)s;
	return -1;
}

/*
 * The host unit's lifetime around stubs: x87_host_load keeps the host's
 * control word and loads a guest image with frstor; x87_host_run runs one
 * stub with rax = the operand buffer and the guest's status flags in
 * RFLAGS, below the red zone (which the compiler may be using);
 * x87_host_store saves the state with fnsave (which reinitialises the
 * unit) and gives the host its control word back. frstor/fnsave move only
 * x87 state: SSE state is untouched. Nothing of the emulator's own code
 * uses the x87 unit, so the guest's state may stay loaded between these.
 */
void x87_host_load(const uint8_t *image, uint16_t *host_cw)
{
	__asm__ volatile("fnstcw %[cw]\n\t"
			 "frstor %[img]\n\t"
			 : [cw] "=m"(*host_cw)
			 : [img] "m"(*(const uint8_t(*)[X87_IMG_SIZE])image)
			 : "memory", "st", "st(1)", "st(2)", "st(3)", "st(4)",
			   "st(5)", "st(6)", "st(7)");
}

void x87_host_store(uint8_t *image, uint16_t host_cw)
{
	__asm__ volatile("fnsave %[img]\n\t"
			 "fldcw %[cw]\n\t"
			 : [img] "=m"(*(uint8_t(*)[X87_IMG_SIZE])image)
			 : [cw] "m"(host_cw)
			 : "memory", "st", "st(1)", "st(2)", "st(3)", "st(4)",
			   "st(5)", "st(6)", "st(7)");
}

uint16_t x87_host_run(unsigned stub, struct x87_exec_frame *f)
{
	uint64_t rax = (uint64_t)(uintptr_t)f->mem;
	uint64_t flags = f->status_flags & EMU_STATUS_FLAGS;
	const void *code = stub_code(stub);
	uint16_t fsw;
	__asm__ volatile(
		"sub $128, %%rsp\n\t"
		"pushfq\n\t"
		"andq %[keep], (%%rsp)\n\t"
		"orq %[fl], (%%rsp)\n\t"
		"popfq\n\t"
		"call *%[code]\n\t"
		"pushfq\n\t"
		"popq %[fl]\n\t"
		"add $128, %%rsp\n\t"
		"fnstsw %[sw]\n\t"
		: [fl] "+r"(flags), "+a"(rax), [sw] "=m"(fsw)
		: [code] "r"(code), [keep] "i"(~(long)EMU_STATUS_FLAGS)
		: "memory", "cc", "st", "st(1)", "st(2)", "st(3)", "st(4)",
		  "st(5)", "st(6)", "st(7)");
	f->rax = rax;
	f->status_flags = flags & EMU_STATUS_FLAGS;
	return fsw;
}

void x87_exec_stub(unsigned stub, struct x87_exec_frame *f)
{
	uint16_t host_cw;
	x87_host_load(f->image, &host_cw);
	x87_host_run(stub, f);
	x87_host_store(f->image, host_cw);
}
