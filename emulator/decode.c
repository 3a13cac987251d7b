/*
 * decode.c — Zydis's decoded instruction into the emulator's compact form.
 *
 * Runs once per static instruction (the decode cache keeps the result).
 * The common general-purpose forms are decoded by decode_fast.c into the
 * same fields; Zydis decodes the rest. Operands are translated
 * generically; the family that implements the mnemonic then chooses the
 * handler (binding.h).
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <Zydis/Zydis.h>

#include "binding.h"

static const struct emu_family *const families[] = {
#define EMU_FAMILY_ENTRY(name) &emu_family_##name,
#include "families.def"
#undef EMU_FAMILY_ENTRY
};

/* A few mnemonics belong to two families (movsd and cmpsd are both string
 * and SSE instructions): each family's binder refuses the other's forms. */
#define MAX_BINDINGS_PER_MNEMONIC 3
static const struct emu_binding *by_mnemonic[ZYDIS_MNEMONIC_MAX_VALUE + 1]
					    [MAX_BINDINGS_PER_MNEMONIC];
static ZydisDecoder decoder;
static ZydisFormatter formatter;
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (size_t i = 0; i < families[f]->count; i++) {
			const struct emu_binding *b = &families[f]->bindings[i];
			if (b->mnemonic > ZYDIS_MNEMONIC_MAX_VALUE)
				continue;
			for (unsigned k = 0; k < MAX_BINDINGS_PER_MNEMONIC; k++)
				if (!by_mnemonic[b->mnemonic][k]) {
					by_mnemonic[b->mnemonic][k] = b;
					break;
				}
		}
	ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&formatter, ZYDIS_FORMATTER_STYLE_INTEL);
}

static void ensure_tables(void)
{
	pthread_once(&tables_once, build_tables);
}

/* Byte offset into regs.gpr of a Zydis general-purpose register. */
static bool gpr_offset(ZydisRegister r, uint8_t *off)
{
	ZydisRegisterClass cls = ZydisRegisterGetClass(r);
	int id = ZydisRegisterGetId(r);
	if (id < 0)
		return false;
	switch (cls) {
	case ZYDIS_REGCLASS_GPR8:
		/* Zydis numbers al cl dl bl ah ch dh bh spl bpl sil dil r8b..:
		 * ids 4..7 are the high-byte registers ah..bh. */
		if (r >= ZYDIS_REGISTER_AH && r <= ZYDIS_REGISTER_BH) {
			*off = (uint8_t)((r - ZYDIS_REGISTER_AH) * 8 + 1);
			return true;
		}
		if (r >= ZYDIS_REGISTER_SPL && r <= ZYDIS_REGISTER_DIL) {
			*off = (uint8_t)((r - ZYDIS_REGISTER_SPL + 4) * 8);
			return true;
		}
		if (r >= ZYDIS_REGISTER_AL && r <= ZYDIS_REGISTER_BL) {
			*off = (uint8_t)((r - ZYDIS_REGISTER_AL) * 8);
			return true;
		}
		*off = (uint8_t)((r - ZYDIS_REGISTER_R8B + 8) * 8);
		return true;
	case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64:
		*off = (uint8_t)(id * 8);
		return true;
	default:
		return false;
	}
}

static uint8_t gpr_number(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return EMU_NO_REG;
	ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	int id = ZydisRegisterGetId(full);
	ZydisRegisterClass cls = ZydisRegisterGetClass(full);
	if (cls != ZYDIS_REGCLASS_GPR64 || id < 0)
		return EMU_NO_REG;
	return (uint8_t)id;
}

static bool translate_register(ZydisRegister r, struct emu_operand *o)
{
	ZydisRegisterClass cls = ZydisRegisterGetClass(r);
	int id = ZydisRegisterGetId(r);
	switch (cls) {
	case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16:
	case ZYDIS_REGCLASS_GPR32: case ZYDIS_REGCLASS_GPR64:
		o->kind = EMU_OPND_GPR;
		return gpr_offset(r, &o->reg);
	case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM:
		o->kind = EMU_OPND_VEC;
		break;
	case ZYDIS_REGCLASS_MMX:
		o->kind = EMU_OPND_MMX;
		break;
	case ZYDIS_REGCLASS_X87:
		o->kind = EMU_OPND_X87;
		break;
	case ZYDIS_REGCLASS_MASK:
		o->kind = EMU_OPND_MASK;
		break;
	case ZYDIS_REGCLASS_SEGMENT:
		o->kind = EMU_OPND_SEG;
		break;
	default:
		o->kind = EMU_OPND_OTHER;
		break;
	}
	o->reg = id < 0 ? EMU_NO_REG : (uint8_t)id;
	return true;
}

static bool translate_memory(const ZydisDecodedInstruction *zi,
			     const ZydisDecodedOperand *zo, uint64_t addr,
			     struct emu_insn *insn, struct emu_operand *o)
{
	struct emu_mem_operand *m = &insn->mem;
	o->kind = zo->mem.type == ZYDIS_MEMOP_TYPE_AGEN ? EMU_OPND_AGEN : EMU_OPND_MEM;
	m->disp = zo->mem.disp.value;
	m->scale = zo->mem.scale ? zo->mem.scale : 1;
	if (zo->mem.base == ZYDIS_REGISTER_RIP || zo->mem.base == ZYDIS_REGISTER_EIP) {
		m->base = EMU_NO_REG;
		m->disp += (int64_t)(addr + zi->length);
	} else {
		m->base = gpr_number(zo->mem.base);
		if (zo->mem.base != ZYDIS_REGISTER_NONE && m->base == EMU_NO_REG)
			return false;
	}
	if (zo->mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
		m->index = (uint8_t)ZydisRegisterGetId(zo->mem.index);
	} else {
		m->index = gpr_number(zo->mem.index);
		if (zo->mem.index != ZYDIS_REGISTER_NONE && m->index == EMU_NO_REG)
			return false;
	}
	if (zo->mem.segment == ZYDIS_REGISTER_FS)
		m->seg = EMU_SEG_FS;
	else if (zo->mem.segment == ZYDIS_REGISTER_GS)
		m->seg = EMU_SEG_GS;
	return true;
}

static bool translate_operands(const ZydisDecodedInstruction *zi,
			       const ZydisDecodedOperand *zops, uint64_t addr,
			       struct emu_insn *insn)
{
	unsigned n = 0;
	bool have_imm = false;
	for (unsigned i = 0; i < zi->operand_count_visible && n < 4; i++) {
		const ZydisDecodedOperand *zo = &zops[i];
		struct emu_operand *o = &insn->opnd[n];
		o->size = (uint8_t)(zo->size / 8);
		switch (zo->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			if (!translate_register(zo->reg.value, o))
				return false;
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY:
			if (!translate_memory(zi, zo, addr, insn, o))
				return false;
			break;
		case ZYDIS_OPERAND_TYPE_IMMEDIATE:
			if (zo->imm.is_relative) {
				o->kind = EMU_OPND_IMM;
				insn->imm = addr + zi->length + (uint64_t)zo->imm.value.s;
				o->size = 8;
			} else if (!have_imm) {
				o->kind = EMU_OPND_IMM;
				insn->imm = zo->imm.value.u;
				have_imm = true;
			} else {
				o->kind = EMU_OPND_IMM;
				insn->imm2 = (uint8_t)zo->imm.value.u;
			}
			break;
		default:
			return false;
		}
		n++;
	}
	insn->nopnd = (uint8_t)n;
	return true;
}

static uint8_t translate_attributes(const ZydisDecodedInstruction *zi)
{
	uint8_t a = 0;
	if (zi->attributes & ZYDIS_ATTRIB_HAS_LOCK)
		a |= EMU_ATTR_LOCK;
	if (zi->attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE))
		a |= EMU_ATTR_REP;
	if (zi->attributes & ZYDIS_ATTRIB_HAS_REPNE)
		a |= EMU_ATTR_REPNE;
	if (zi->attributes & ZYDIS_ATTRIB_HAS_VEX)
		a |= EMU_ATTR_VEX;
	if (zi->attributes & ZYDIS_ATTRIB_HAS_EVEX)
		a |= EMU_ATTR_EVEX;
	if (zi->attributes & ZYDIS_ATTRIB_HAS_OPERANDSIZE)
		a |= EMU_ATTR_OPSIZE;
	if (zi->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
		a |= EMU_ATTR_FAR;
	return a;
}

static bool ends_block(const ZydisDecodedInstruction *zi)
{
	switch (zi->meta.category) {
	case ZYDIS_CATEGORY_COND_BR: case ZYDIS_CATEGORY_UNCOND_BR:
	case ZYDIS_CATEGORY_CALL: case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_SYSCALL: case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_SYSTEM:
		return true;
	default:
		return false;
	}
}

static void reset_insn(struct emu_insn *insn, uint64_t addr)
{
	memset(insn, 0, sizeof(*insn));
	insn->addr = addr;
	insn->mem.base = insn->mem.index = EMU_NO_REG;
	insn->handler = emu_handler_undefined;
	insn->ends_block = 1;
}

/* Zydis's answer into insn's fields; false if Zydis refuses the bytes or
 * decode.c cannot express an operand (insn->len says which). */
static bool decode_with_zydis(const uint8_t *bytes, size_t len, uint64_t addr,
			      struct emu_insn *insn)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand zops[ZYDIS_MAX_OPERAND_COUNT];

	/* The visible operands only: the emulator reads no other, and
	 * Zydis's implicit ones (flags, rsp, ...) were a third of its work. */
	ZydisDecoderContext context;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&decoder, &context, bytes, len, &zi)) ||
	    !ZYAN_SUCCESS(ZydisDecoderDecodeOperands(&decoder, &context, &zi, zops,
						     zi.operand_count_visible)))
		return false;

	insn->len = zi.length;
	insn->mnemonic = (uint16_t)zi.mnemonic;
	insn->opsize = (uint8_t)(zi.operand_width / 8);
	insn->attr = translate_attributes(&zi);
	insn->vl = (uint8_t)(zi.avx.vector_length / 8);
	/* Also read by instructions without a memory operand (loop, jecxz,
	 * string instructions) for the width of rcx/rsi/rdi. */
	insn->mem.addr32 = zi.address_width == 32;
	/* Likewise the segment override, for string instructions and xlat. */
	if (zi.attributes & ZYDIS_ATTRIB_HAS_SEGMENT_FS)
		insn->mem.seg = EMU_SEG_FS;
	else if (zi.attributes & ZYDIS_ATTRIB_HAS_SEGMENT_GS)
		insn->mem.seg = EMU_SEG_GS;
	insn->ends_block = ends_block(&zi);
	insn->handler = emu_handler_unimplemented;
	if (!translate_operands(&zi, zops, addr, insn)) {
		insn->ends_block = 1;
		return false;
	}
	return true;
}

/* The family that owns the decoded mnemonic picks the handler. */
static bool bind_handler(struct emu_insn *insn)
{
	insn->handler = emu_handler_unimplemented;
	const struct emu_binding *const *candidates = by_mnemonic[insn->mnemonic];
	emu_handler *h = NULL;
	for (unsigned k = 0; k < MAX_BINDINGS_PER_MNEMONIC && !h && candidates[k]; k++) {
		insn->op = candidates[k]->op;
		h = candidates[k]->bind ? candidates[k]->bind(insn) : candidates[k]->handler;
	}
	if (!h) {
		insn->ends_block = 1;
		return false;
	}
	insn->handler = h;
	return true;
}

static bool decode(const uint8_t *bytes, size_t len, uint64_t addr, struct emu_insn *insn,
		   bool fast_first)
{
	ensure_tables();
	reset_insn(insn, addr);
	if (fast_first && emu_decode_fast(bytes, len, addr, insn))
		return bind_handler(insn);
	if (fast_first)
		reset_insn(insn, addr); /* what the declined attempt left */
	if (!decode_with_zydis(bytes, len, addr, insn))
		return false;
	return bind_handler(insn);
}

bool emu_decode(const uint8_t *bytes, size_t len, uint64_t addr,
		struct emu_insn *insn)
{
	return decode(bytes, len, addr, insn, true);
}

bool emu_decode_with_zydis_only(const uint8_t *bytes, size_t len, uint64_t addr,
				struct emu_insn *insn)
{
	return decode(bytes, len, addr, insn, false);
}

const char *emu_mnemonic_name(uint16_t mnemonic)
{
	const char *s = ZydisMnemonicGetString((ZydisMnemonic)mnemonic);
	return s ? s : "(bad)";
}

size_t emu_disassemble(uint64_t addr, const uint8_t *bytes, size_t len,
		       char *buf, size_t buf_size)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand zops[ZYDIS_MAX_OPERAND_COUNT];

	ensure_tables();
	if (buf_size)
		buf[0] = 0;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, bytes, len, &zi, zops))) {
		if (buf_size)
			snprintf(buf, buf_size, "(bad)");
		return 0;
	}
	if (!ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&formatter, &zi, zops,
			zi.operand_count_visible, buf, buf_size, addr, NULL)) && buf_size)
		snprintf(buf, buf_size, "(unformattable)");
	return zi.length;
}

bool emu_implements(const uint8_t *bytes, size_t len)
{
	struct emu_insn insn;
	return emu_decode(bytes, len, 0x1000, &insn);
}

void emu_for_each_mnemonic(void (*fn)(void *ctx, const char *family,
				      unsigned zydis_mnemonic), void *ctx)
{
	for (size_t f = 0; f < sizeof(families) / sizeof(families[0]); f++)
		for (size_t i = 0; i < families[f]->count; i++)
			fn(ctx, families[f]->name + strlen("emu_family_"),
			   families[f]->bindings[i].mnemonic);
}
