/*
 * model_specific.c — which results of an instruction are the modelled
 * CPU's own choice rather than the architecture's (emu.h: "Model-specific
 * results"), so that a comparison with a CPU of another vendor can accept
 * that CPU's choice for exactly these and compare the rest.
 *
 * Each entry below names what Intel's SDM and AMD's APM say:
 *
 * - MXCSR_MASK: both manuals define the field as "the MXCSR bits this
 *   processor supports", a property of the processor; the values differ
 *   (the modelled CPU's 0000FFFFH; AMD's sets bit 17, MM, too).
 * - A rep string instruction with a zero count: both manuals' REP
 *   pseudocode runs no iteration and writes nothing. GenuineIntel's CPUs
 *   (and so the emulator) nonetheless write rcx and, for movs and stos,
 *   the pointers they store through, as 32-bit registers (upper halves
 *   zeroed) under a 32-bit address size; AMD's follow the pseudocode.
 *   With any other count the registers written and their values are
 *   defined, and compared.
 * - 0F 0D /r with a register operand: Intel's opcode map has the 0F 0D
 *   row as a (reserved) NOP for operands it does not prefetch; AMD's
 *   defines only its memory forms (PREFETCH/PREFETCHW) and raises #UD for
 *   the register form.
 *
 * And one choice the architecture leaves to every implementation, of any
 * vendor (emu_xstate_header): whether a state component in its initial
 * configuration counts as in use (XINUSE), which decides its XSTATE_BV bit
 * in what xsave, xsaveopt and xsavec store.
 */
#include <pthread.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "emulator/emu.h"

static ZydisDecoder decoder;
static pthread_once_t decoder_once = PTHREAD_ONCE_INIT;

static void init_decoder(void)
{
	ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

static uint32_t host_mask;
static pthread_once_t mask_once = PTHREAD_ONCE_INIT;

static void read_host_mask(void)
{
	static uint8_t fx[512] __attribute__((aligned(64)));
	__asm__ volatile("fxsave64 %0" : "=m"(fx));
	memcpy(&host_mask, fx + 28, 4);
	/* Zero: a CPU from before the field, whose mask the SDM gives. */
	if (!host_mask)
		host_mask = 0xffbf;
}

uint32_t emu_host_mxcsr_mask(void)
{
	pthread_once(&mask_once, read_host_mask);
	return host_mask;
}

/* The effective address of the memory operand `op`, segment base added. */
static bool operand_address(const ZydisDecodedInstruction *zi, const ZydisDecodedOperand *op,
			    const struct emu_regs *r, uint64_t *addr)
{
	ZydisRegisterContext ctx;
	memset(&ctx, 0, sizeof(ctx));
	for (unsigned i = 0; i < EMU_GPR_COUNT; i++) {
		ctx.values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR64, (ZyanU8)i)] = r->gpr[i];
		ctx.values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR32, (ZyanU8)i)] =
			(uint32_t)r->gpr[i];
	}
	ZyanU64 a;
	if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(zi, op, r->rip, &ctx, &a)))
		return false;
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		a += r->fs_base;
	else if (op->mem.segment == ZYDIS_REGISTER_GS)
		a += r->gs_base;
	*addr = a;
	return true;
}

/* The forms that write an XSAVE header, XSTATE_BV from XINUSE. */
static bool is_xsave(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_XSAVE: case ZYDIS_MNEMONIC_XSAVE64:
	case ZYDIS_MNEMONIC_XSAVEOPT: case ZYDIS_MNEMONIC_XSAVEOPT64:
	case ZYDIS_MNEMONIC_XSAVEC: case ZYDIS_MNEMONIC_XSAVEC64:
		return true;
	default:
		return false;
	}
}

static bool is_fpu_save(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_FXSAVE || m == ZYDIS_MNEMONIC_FXSAVE64 || is_xsave(m);
}

/* Decodes `bytes`; false when they are no instruction. */
static bool decode(const uint8_t *bytes, size_t len, ZydisDecodedInstruction *zi,
		   ZydisDecodedOperand *ops)
{
	pthread_once(&decoder_once, init_decoder);
	return ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, bytes, len, zi, ops));
}

/* The registers the emulator writes back for a rep string instruction
 * that runs no iteration (ops_string.c). */
static uint32_t zero_count_writes(ZydisMnemonic m)
{
	const uint32_t rcx = 1u << EMU_RCX, rsi = 1u << EMU_RSI, rdi = 1u << EMU_RDI;
	switch (m) {
	case ZYDIS_MNEMONIC_MOVSB: case ZYDIS_MNEMONIC_MOVSW:
	case ZYDIS_MNEMONIC_MOVSD: case ZYDIS_MNEMONIC_MOVSQ:
		return rcx | rsi | rdi;
	case ZYDIS_MNEMONIC_STOSB: case ZYDIS_MNEMONIC_STOSW:
	case ZYDIS_MNEMONIC_STOSD: case ZYDIS_MNEMONIC_STOSQ:
		return rcx | rdi;
	case ZYDIS_MNEMONIC_LODSB: case ZYDIS_MNEMONIC_LODSW:
	case ZYDIS_MNEMONIC_LODSD: case ZYDIS_MNEMONIC_LODSQ:
	case ZYDIS_MNEMONIC_CMPSB: case ZYDIS_MNEMONIC_CMPSW:
	case ZYDIS_MNEMONIC_CMPSD: case ZYDIS_MNEMONIC_CMPSQ:
	case ZYDIS_MNEMONIC_SCASB: case ZYDIS_MNEMONIC_SCASW:
	case ZYDIS_MNEMONIC_SCASD: case ZYDIS_MNEMONIC_SCASQ:
		return rcx;
	default:
		return 0;
	}
}

bool emu_model_specific(const uint8_t *bytes, size_t len, const struct emu_regs *before,
			struct emu_model_specific *out)
{
	memset(out, 0, sizeof(*out));
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!decode(bytes, len, &zi, ops))
		return false;

	if (is_fpu_save(zi.mnemonic) && zi.operand_count_visible >= 1 &&
	    ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY) {
		uint64_t area;
		if (!operand_address(&zi, &ops[0], before, &area))
			return false;
		out->store_addr = area + 28;
		out->store_size = 4;
		out->store_modelled = EMU_MODELLED_MXCSR_MASK;
		out->store_host = emu_host_mxcsr_mask();
		return true;
	}

	/* String forms have no visible operands (movsd/cmpsd are also SSE
	 * mnemonics, with operands). */
	uint32_t writes = zi.operand_count_visible == 0 ? zero_count_writes(zi.mnemonic) : 0;
	if (writes && zi.address_width == 32 && (uint32_t)before->gpr[EMU_RCX] == 0 &&
	    (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
			      ZYDIS_ATTRIB_HAS_REPNE))) {
		out->zero_extended_gprs = writes;
		return true;
	}

	if (zi.opcode_map == ZYDIS_OPCODE_MAP_0F && zi.opcode == 0x0d &&
	    zi.encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY && zi.raw.modrm.mod == 3) {
		out->nop_or_ud = true;
		return true;
	}
	return false;
}

bool emu_xstate_header(const uint8_t *bytes, size_t len, const struct emu_regs *before,
		       struct emu_xstate_header *out)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t area;
	if (!decode(bytes, len, &zi, ops) || !is_xsave(zi.mnemonic) ||
	    zi.operand_count_visible < 1 || ops[0].type != ZYDIS_OPERAND_TYPE_MEMORY ||
	    !operand_address(&zi, &ops[0], before, &area))
		return false;
	out->xstate_bv_addr = area + 512;
	out->requested = before->gpr[EMU_RDX] << 32 | (uint32_t)before->gpr[EMU_RAX];
	return true;
}
