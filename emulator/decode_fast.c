/*
 * decode_fast.c — the common general-purpose instruction forms decoded
 * without Zydis.
 *
 * Zydis decodes every form, at about 1,300 host instructions each; a
 * program's start-up decodes some 10^5 blocks once (python3: 420,000
 * instructions, 13% of its recording and of its first replay). Most of
 * them are a few one-byte-opcode forms with at most an operand-size
 * prefix, a segment override and a REX prefix. This file decodes exactly
 * those into the fields decode.c makes of Zydis's answer and declines
 * everything else, which decode.c then hands to Zydis.
 * tests/unit/test_decode_fast.c holds it to Zydis's answer form by form.
 */
#include <Zydis/Zydis.h>

#include "internal.h"

#define MAX_INSN_BYTES 15

/* How the operands of a form are laid out. */
enum shape {
	SHAPE_DECLINE,
	SHAPE_NONE,      /* no visible operand: ret, leave, nop, cdq */
	SHAPE_RM_REG,    /* r/m, reg */
	SHAPE_REG_RM,    /* reg, r/m (movzx, movsx: the r/m's own size) */
	SHAPE_AGEN,      /* reg, address (lea) */
	SHAPE_ACC_IMM,   /* al/ax/eax/rax, imm */
	SHAPE_RM_IMM,    /* r/m, imm */
	SHAPE_RM,        /* r/m alone */
	SHAPE_RM_ONE,    /* r/m, 1 (shifts by one) */
	SHAPE_RM_CL,     /* r/m, cl */
	SHAPE_REG_RM_IMM, /* imul reg, r/m, imm */
	SHAPE_OPREG,     /* register in the opcode's low bits */
	SHAPE_OPREG_IMM, /* mov reg, imm: register in the opcode */
	SHAPE_IMM,       /* push imm */
	SHAPE_REL,       /* jcc, jmp, call: a relative target */
};

/* Operand sizes a form uses. */
enum width {
	WIDTH_BYTE,      /* 8-bit form */
	WIDTH_OPERAND,   /* 16/32/64 by 0x66 and REX.W */
	WIDTH_STACK,     /* 64 bits, no 0x66 (push, pop, near branches) */
};

struct form {
	uint16_t mnemonic;
	uint8_t shape;
	uint8_t width;
	uint8_t imm_bytes;  /* 0, 1, 4 (2 under 0x66), or 8 for mov r64, imm64 */
	bool imm_signed;    /* Zydis's immediate is sign-extended */
	bool ends_block;
	uint8_t rm_size;    /* movzx/movsx/movsxd: the r/m's size in bytes */
};

struct prefixes {
	uint8_t rex;
	bool opsize;
	uint8_t seg;        /* EMU_SEG_* */
};

static const uint16_t alu_mnemonics[8] = {
	ZYDIS_MNEMONIC_ADD, ZYDIS_MNEMONIC_OR, ZYDIS_MNEMONIC_ADC, ZYDIS_MNEMONIC_SBB,
	ZYDIS_MNEMONIC_AND, ZYDIS_MNEMONIC_SUB, ZYDIS_MNEMONIC_XOR, ZYDIS_MNEMONIC_CMP,
};

/* /6 is an alias Zydis names shl too; declined so that nothing rests on it. */
static const uint16_t shift_mnemonics[8] = {
	ZYDIS_MNEMONIC_ROL, ZYDIS_MNEMONIC_ROR, ZYDIS_MNEMONIC_RCL, ZYDIS_MNEMONIC_RCR,
	ZYDIS_MNEMONIC_SHL, ZYDIS_MNEMONIC_SHR, ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_SAR,
};

static const uint16_t group3_mnemonics[8] = {
	ZYDIS_MNEMONIC_TEST, ZYDIS_MNEMONIC_INVALID, ZYDIS_MNEMONIC_NOT, ZYDIS_MNEMONIC_NEG,
	ZYDIS_MNEMONIC_MUL, ZYDIS_MNEMONIC_IMUL, ZYDIS_MNEMONIC_DIV, ZYDIS_MNEMONIC_IDIV,
};

static const uint16_t jcc_mnemonics[16] = CONDITION_MNEMONICS(J);
static const uint16_t setcc_mnemonics[16] = CONDITION_MNEMONICS(SET);
static const uint16_t cmov_mnemonics[16] = CONDITION_MNEMONICS(CMOV);

static struct form make(uint16_t mnemonic, enum shape shape, enum width width)
{
	return (struct form){ .mnemonic = mnemonic, .shape = (uint8_t)shape,
			      .width = (uint8_t)width };
}

static struct form with_imm(struct form f, uint8_t bytes, bool is_signed)
{
	f.imm_bytes = bytes;
	f.imm_signed = is_signed;
	return f;
}

static struct form ending(struct form f)
{
	f.ends_block = true;
	return f;
}

/* Forms of the one-byte opcode map; reg is ModRM's reg field where the
 * opcode is a group (the caller reads it only for those). */
static struct form one_byte_form(uint8_t op, uint8_t reg)
{
	if (op < 0x40 && (op & 7) < 6) {
		uint16_t mn = alu_mnemonics[op >> 3];
		enum width w = (op & 1) ? WIDTH_OPERAND : WIDTH_BYTE;
		switch (op & 7) {
		case 0: case 1: return make(mn, SHAPE_RM_REG, w);
		case 2: case 3: return make(mn, SHAPE_REG_RM, w);
		case 4: return with_imm(make(mn, SHAPE_ACC_IMM, w), 1, true);
		default: return with_imm(make(mn, SHAPE_ACC_IMM, w), 4, true);
		}
	}
	if (op >= 0x50 && op <= 0x57)
		return make(ZYDIS_MNEMONIC_PUSH, SHAPE_OPREG, WIDTH_STACK);
	if (op >= 0x58 && op <= 0x5f)
		return make(ZYDIS_MNEMONIC_POP, SHAPE_OPREG, WIDTH_STACK);
	if (op >= 0x70 && op <= 0x7f)
		return ending(with_imm(make(jcc_mnemonics[op & 15], SHAPE_REL, WIDTH_STACK), 1, true));
	if (op >= 0xb0 && op <= 0xb7)
		return with_imm(make(ZYDIS_MNEMONIC_MOV, SHAPE_OPREG_IMM, WIDTH_BYTE), 1, true);
	if (op >= 0xb8)
		switch (op) {
		case 0xb8: case 0xb9: case 0xba: case 0xbb:
		case 0xbc: case 0xbd: case 0xbe: case 0xbf:
			return with_imm(make(ZYDIS_MNEMONIC_MOV, SHAPE_OPREG_IMM, WIDTH_OPERAND), 4, true);
		default:
			break;
		}
	switch (op) {
	case 0x63: {
		struct form f = make(ZYDIS_MNEMONIC_MOVSXD, SHAPE_REG_RM, WIDTH_OPERAND);
		f.rm_size = 4;
		return f;
	}
	case 0x68: return with_imm(make(ZYDIS_MNEMONIC_PUSH, SHAPE_IMM, WIDTH_STACK), 4, true);
	case 0x6a: return with_imm(make(ZYDIS_MNEMONIC_PUSH, SHAPE_IMM, WIDTH_STACK), 1, true);
	case 0x69: return with_imm(make(ZYDIS_MNEMONIC_IMUL, SHAPE_REG_RM_IMM, WIDTH_OPERAND), 4, true);
	case 0x6b: return with_imm(make(ZYDIS_MNEMONIC_IMUL, SHAPE_REG_RM_IMM, WIDTH_OPERAND), 1, true);
	case 0x80: return with_imm(make(alu_mnemonics[reg], SHAPE_RM_IMM, WIDTH_BYTE), 1, true);
	case 0x81: return with_imm(make(alu_mnemonics[reg], SHAPE_RM_IMM, WIDTH_OPERAND), 4, true);
	case 0x83: return with_imm(make(alu_mnemonics[reg], SHAPE_RM_IMM, WIDTH_OPERAND), 1, true);
	case 0x84: return make(ZYDIS_MNEMONIC_TEST, SHAPE_RM_REG, WIDTH_BYTE);
	case 0x85: return make(ZYDIS_MNEMONIC_TEST, SHAPE_RM_REG, WIDTH_OPERAND);
	case 0x88: return make(ZYDIS_MNEMONIC_MOV, SHAPE_RM_REG, WIDTH_BYTE);
	case 0x89: return make(ZYDIS_MNEMONIC_MOV, SHAPE_RM_REG, WIDTH_OPERAND);
	case 0x8a: return make(ZYDIS_MNEMONIC_MOV, SHAPE_REG_RM, WIDTH_BYTE);
	case 0x8b: return make(ZYDIS_MNEMONIC_MOV, SHAPE_REG_RM, WIDTH_OPERAND);
	case 0x8d: return make(ZYDIS_MNEMONIC_LEA, SHAPE_AGEN, WIDTH_OPERAND);
	case 0x90: return make(ZYDIS_MNEMONIC_NOP, SHAPE_NONE, WIDTH_OPERAND);
	/* cdqe and cqo stand for their family; the size picks the name. */
	case 0x98: return make(ZYDIS_MNEMONIC_CDQE, SHAPE_NONE, WIDTH_OPERAND);
	case 0x99: return make(ZYDIS_MNEMONIC_CQO, SHAPE_NONE, WIDTH_OPERAND);
	case 0xa8: return with_imm(make(ZYDIS_MNEMONIC_TEST, SHAPE_ACC_IMM, WIDTH_BYTE), 1, true);
	case 0xa9: return with_imm(make(ZYDIS_MNEMONIC_TEST, SHAPE_ACC_IMM, WIDTH_OPERAND), 4, true);
	case 0xc0: return with_imm(make(shift_mnemonics[reg], SHAPE_RM_IMM, WIDTH_BYTE), 1, false);
	case 0xc1: return with_imm(make(shift_mnemonics[reg], SHAPE_RM_IMM, WIDTH_OPERAND), 1, false);
	case 0xc3: return ending(make(ZYDIS_MNEMONIC_RET, SHAPE_NONE, WIDTH_STACK));
	case 0xc6: return reg ? make(ZYDIS_MNEMONIC_INVALID, SHAPE_DECLINE, WIDTH_BYTE)
			      : with_imm(make(ZYDIS_MNEMONIC_MOV, SHAPE_RM_IMM, WIDTH_BYTE), 1, true);
	case 0xc7: return reg ? make(ZYDIS_MNEMONIC_INVALID, SHAPE_DECLINE, WIDTH_BYTE)
			      : with_imm(make(ZYDIS_MNEMONIC_MOV, SHAPE_RM_IMM, WIDTH_OPERAND), 4, true);
	case 0xc9: return make(ZYDIS_MNEMONIC_LEAVE, SHAPE_NONE, WIDTH_STACK);
	case 0xd0: return make(shift_mnemonics[reg], SHAPE_RM_ONE, WIDTH_BYTE);
	case 0xd1: return make(shift_mnemonics[reg], SHAPE_RM_ONE, WIDTH_OPERAND);
	case 0xd2: return make(shift_mnemonics[reg], SHAPE_RM_CL, WIDTH_BYTE);
	case 0xd3: return make(shift_mnemonics[reg], SHAPE_RM_CL, WIDTH_OPERAND);
	case 0xe8: return ending(with_imm(make(ZYDIS_MNEMONIC_CALL, SHAPE_REL, WIDTH_STACK), 4, true));
	case 0xe9: return ending(with_imm(make(ZYDIS_MNEMONIC_JMP, SHAPE_REL, WIDTH_STACK), 4, true));
	case 0xeb: return ending(with_imm(make(ZYDIS_MNEMONIC_JMP, SHAPE_REL, WIDTH_STACK), 1, true));
	case 0xf6:
		if (reg == 0)
			return with_imm(make(ZYDIS_MNEMONIC_TEST, SHAPE_RM_IMM, WIDTH_BYTE), 1, true);
		return make(group3_mnemonics[reg], SHAPE_RM, WIDTH_BYTE);
	case 0xf7:
		if (reg == 0)
			return with_imm(make(ZYDIS_MNEMONIC_TEST, SHAPE_RM_IMM, WIDTH_OPERAND), 4, true);
		return make(group3_mnemonics[reg], SHAPE_RM, WIDTH_OPERAND);
	case 0xfe:
		if (reg < 2)
			return make(reg ? ZYDIS_MNEMONIC_DEC : ZYDIS_MNEMONIC_INC, SHAPE_RM, WIDTH_BYTE);
		break;
	case 0xff:
		switch (reg) {
		case 0: return make(ZYDIS_MNEMONIC_INC, SHAPE_RM, WIDTH_OPERAND);
		case 1: return make(ZYDIS_MNEMONIC_DEC, SHAPE_RM, WIDTH_OPERAND);
		case 2: return ending(make(ZYDIS_MNEMONIC_CALL, SHAPE_RM, WIDTH_STACK));
		case 4: return ending(make(ZYDIS_MNEMONIC_JMP, SHAPE_RM, WIDTH_STACK));
		case 6: return make(ZYDIS_MNEMONIC_PUSH, SHAPE_RM, WIDTH_STACK);
		default: break;
		}
		break;
	default:
		break;
	}
	return make(ZYDIS_MNEMONIC_INVALID, SHAPE_DECLINE, WIDTH_BYTE);
}

/* Forms of the 0F map. */
static struct form two_byte_form(uint8_t op)
{
	if (op >= 0x40 && op <= 0x4f)
		return make(cmov_mnemonics[op & 15], SHAPE_REG_RM, WIDTH_OPERAND);
	if (op >= 0x80 && op <= 0x8f)
		return ending(with_imm(make(jcc_mnemonics[op & 15], SHAPE_REL, WIDTH_STACK), 4, true));
	if (op >= 0x90 && op <= 0x9f)
		return make(setcc_mnemonics[op & 15], SHAPE_RM, WIDTH_BYTE);
	struct form f;
	switch (op) {
	case 0x1f: /* every reg field: Zydis shows it as a second operand */
		return make(ZYDIS_MNEMONIC_NOP, SHAPE_RM_REG, WIDTH_OPERAND);
	case 0xaf:
		return make(ZYDIS_MNEMONIC_IMUL, SHAPE_REG_RM, WIDTH_OPERAND);
	case 0xb6: case 0xb7: case 0xbe: case 0xbf:
		f = make(op < 0xb8 ? ZYDIS_MNEMONIC_MOVZX : ZYDIS_MNEMONIC_MOVSX,
			 SHAPE_REG_RM, WIDTH_OPERAND);
		f.rm_size = (op & 1) ? 2 : 1;
		return f;
	default:
		break;
	}
	return make(ZYDIS_MNEMONIC_INVALID, SHAPE_DECLINE, WIDTH_BYTE);
}

/* Does the opcode take a ModRM byte? (Only asked of forms decoded here.) */
static bool one_byte_has_modrm(uint8_t op)
{
	if (op < 0x40)
		return (op & 7) < 4;
	switch (op) {
	case 0x63: case 0x69: case 0x6b: case 0x80: case 0x81: case 0x83:
	case 0x84: case 0x85: case 0x88: case 0x89: case 0x8a: case 0x8b: case 0x8d:
	case 0xc0: case 0xc1: case 0xc6: case 0xc7:
	case 0xd0: case 0xd1: case 0xd2: case 0xd3:
	case 0xf6: case 0xf7: case 0xfe: case 0xff:
		return true;
	default:
		return false;
	}
}

static bool two_byte_has_modrm(uint8_t op)
{
	return !(op >= 0x80 && op <= 0x8f);
}

/* Byte offset in regs.gpr of register n of size bytes (decode.c's
 * gpr_offset): without REX, 8-bit registers 4..7 are ah..bh. */
static uint8_t gpr_offset(unsigned n, unsigned size, uint8_t rex)
{
	if (size == 1 && !rex && n >= 4 && n < 8)
		return (uint8_t)((n - 4) * 8 + 1);
	return (uint8_t)(n * 8);
}

static void set_gpr(struct emu_operand *o, unsigned n, unsigned size, uint8_t rex)
{
	o->kind = EMU_OPND_GPR;
	o->size = (uint8_t)size;
	o->reg = gpr_offset(n, size, rex);
}

/* Reads little-endian n bytes (1, 2, 4 or 8) at *at, sign- or
 * zero-extended; false past the end. */
static bool take(const uint8_t *bytes, size_t len, size_t *at, unsigned n, bool is_signed,
		 uint64_t *out)
{
	if (*at + n > len)
		return false;
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)bytes[*at + i] << (8 * i);
	*at += n;
	if (is_signed && n < 8) {
		unsigned shift = 64 - 8 * n;
		v = (uint64_t)((int64_t)(v << shift) >> shift);
	}
	*out = v;
	return true;
}

/* The memory operand of ModRM (mod != 3) and its SIB and displacement.
 * A rip-relative displacement is resolved by the caller once the length
 * is known: *rip_relative says so. */
static bool take_memory(const uint8_t *bytes, size_t len, size_t *at, uint8_t modrm,
			uint8_t rex, struct emu_mem_operand *m, bool *rip_relative)
{
	unsigned mod = modrm >> 6, rm = modrm & 7;
	unsigned disp_bytes = mod == 1 ? 1 : mod == 2 ? 4 : 0;
	*rip_relative = false;
	m->scale = 1;
	if (rm == 4) {
		if (*at >= len)
			return false;
		uint8_t sib = bytes[(*at)++];
		unsigned index = ((rex & 2u) << 2) | ((sib >> 3) & 7);
		unsigned base = sib & 7;
		if (index != 4) {
			m->index = (uint8_t)index;
			m->scale = (uint8_t)(1u << (sib >> 6));
		}
		if (base == 5 && mod == 0)
			disp_bytes = 4;
		else
			m->base = (uint8_t)(((rex & 1u) << 3) | base);
	} else if (rm == 5 && mod == 0) {
		disp_bytes = 4;
		*rip_relative = true;
	} else {
		m->base = (uint8_t)(((rex & 1u) << 3) | rm);
	}
	uint64_t disp = 0;
	if (disp_bytes && !take(bytes, len, at, disp_bytes, true, &disp))
		return false;
	m->disp = (int64_t)disp;
	return true;
}

/* The accumulator forms of cbw/cwde/cdqe (0x98) and cwd/cdq/cqo (0x99). */
static uint16_t convert_mnemonic(uint8_t op, unsigned opsize)
{
	static const uint16_t widen[3] = { ZYDIS_MNEMONIC_CBW, ZYDIS_MNEMONIC_CWDE,
					   ZYDIS_MNEMONIC_CDQE };
	static const uint16_t split[3] = { ZYDIS_MNEMONIC_CWD, ZYDIS_MNEMONIC_CDQ,
					   ZYDIS_MNEMONIC_CQO };
	unsigned i = opsize == 2 ? 0 : opsize == 4 ? 1 : 2;
	return op == 0x98 ? widen[i] : split[i];
}

/* Legacy prefixes decoded here: one 0x66, one fs/gs override, then at
 * most a REX right before the opcode. Anything else (lock, rep, 0x67,
 * other segments, repeats) is Zydis's. */
static bool take_prefixes(const uint8_t *bytes, size_t len, size_t *at, struct prefixes *p)
{
	for (;;) {
		if (*at >= len)
			return false;
		uint8_t b = bytes[*at];
		if (b == 0x66 && !p->opsize)
			p->opsize = true;
		else if ((b == 0x64 || b == 0x65) && p->seg == EMU_SEG_NONE)
			p->seg = b == 0x64 ? EMU_SEG_FS : EMU_SEG_GS;
		else
			break;
		(*at)++;
	}
	if ((bytes[*at] & 0xf0) == 0x40) {
		p->rex = bytes[(*at)++];
		if (*at >= len)
			return false;
	}
	return true;
}

static unsigned operand_size(const struct form *f, const struct prefixes *p)
{
	switch (f->width) {
	case WIDTH_BYTE: return 1;
	case WIDTH_STACK: return 8;
	default: return (p->rex & 8) ? 8 : p->opsize ? 2 : 4;
	}
}

/* Declines what it does not decode exactly as decode.c makes Zydis's
 * answer; see the top of the file. */
bool emu_decode_fast(const uint8_t *bytes, size_t len, uint64_t addr, struct emu_insn *insn)
{
	struct prefixes p = { 0 };
	size_t at = 0;
	if (len > MAX_INSN_BYTES)
		len = MAX_INSN_BYTES;
	if (!take_prefixes(bytes, len, &at, &p))
		return false;
	uint8_t op = bytes[at++];
	bool two_byte = op == 0x0f;
	if (two_byte) {
		if (at >= len)
			return false;
		op = bytes[at++];
	}
	bool has_modrm = two_byte ? two_byte_has_modrm(op) : one_byte_has_modrm(op);
	uint8_t modrm = 0;
	if (has_modrm) {
		if (at >= len)
			return false;
		modrm = bytes[at++];
	}
	unsigned reg = (modrm >> 3) & 7;
	struct form f = two_byte ? two_byte_form(op) : one_byte_form(op, reg);
	if (f.shape == SHAPE_DECLINE || f.mnemonic == ZYDIS_MNEMONIC_INVALID)
		return false;
	/* What Zydis reads differently or this file leaves to it: 0x66 on
	 * 64-bit-default forms, a REX.B nop (xchg r8, rax), lea of a register
	 * (#UD), movsxd without REX.W, segment overrides without memory. */
	if (p.opsize && f.width == WIDTH_STACK)
		return false;
	if (!two_byte && op == 0x90 && (p.rex || p.opsize))
		return false;
	bool memory = has_modrm && (modrm >> 6) != 3;
	if (f.shape == SHAPE_AGEN && !memory)
		return false;
	if (!two_byte && op == 0x63 && !(p.rex & 8))
		return false;
	if (p.seg != EMU_SEG_NONE && (!memory || f.shape == SHAPE_AGEN))
		return false;

	unsigned opsize = operand_size(&f, &p);
	if (!two_byte && (op == 0x98 || op == 0x99))
		f.mnemonic = convert_mnemonic(op, opsize);
	struct emu_mem_operand *m = &insn->mem;
	bool rip_relative = false;
	if (memory && !take_memory(bytes, len, &at, modrm, p.rex, m, &rip_relative))
		return false;
	m->seg = p.seg;

	unsigned imm_bytes = f.imm_bytes;
	if (imm_bytes == 4 && f.width == WIDTH_OPERAND) {
		if (opsize == 2)
			imm_bytes = 2;
		else if (f.shape == SHAPE_OPREG_IMM && (p.rex & 8))
			imm_bytes = 8;
	}
	uint64_t imm = 0;
	if (imm_bytes && !take(bytes, len, &at, imm_bytes, f.imm_signed, &imm))
		return false;

	/* The r/m operand: a register (REX.B) or the memory just read. */
	unsigned rm_size = f.rm_size ? f.rm_size : opsize;
	struct emu_operand rm_opnd = { 0 };
	if (memory) {
		rm_opnd.kind = f.shape == SHAPE_AGEN ? EMU_OPND_AGEN : EMU_OPND_MEM;
		/* Zydis sizes an address by the address size. */
		rm_opnd.size = (uint8_t)(f.shape == SHAPE_AGEN ? 8 : rm_size);
	} else {
		set_gpr(&rm_opnd, ((p.rex & 1u) << 3) | (modrm & 7), rm_size, p.rex);
	}
	struct emu_operand reg_opnd = { 0 };
	set_gpr(&reg_opnd, ((p.rex & 4u) << 1) | reg, opsize, p.rex);
	struct emu_operand imm_opnd = { .kind = EMU_OPND_IMM, .size = (uint8_t)imm_bytes };

	struct emu_operand *o = insn->opnd;
	unsigned n = 0;
	switch ((enum shape)f.shape) {
	case SHAPE_NONE:
		break;
	case SHAPE_RM_REG:
		o[n++] = rm_opnd;
		o[n++] = reg_opnd;
		break;
	case SHAPE_REG_RM: case SHAPE_AGEN:
		o[n++] = reg_opnd;
		o[n++] = rm_opnd;
		break;
	case SHAPE_ACC_IMM:
		set_gpr(&o[n++], 0, opsize, p.rex);
		o[n++] = imm_opnd;
		break;
	case SHAPE_RM_IMM:
		o[n++] = rm_opnd;
		o[n++] = imm_opnd;
		break;
	case SHAPE_RM:
		o[n++] = rm_opnd;
		break;
	case SHAPE_RM_ONE:
		o[n++] = rm_opnd;
		o[n].kind = EMU_OPND_IMM;
		o[n++].size = 1;
		imm = 1;
		break;
	case SHAPE_RM_CL:
		o[n++] = rm_opnd;
		set_gpr(&o[n++], 1, 1, 0);
		break;
	case SHAPE_REG_RM_IMM:
		o[n++] = reg_opnd;
		o[n++] = rm_opnd;
		o[n++] = imm_opnd;
		break;
	case SHAPE_OPREG:
		set_gpr(&o[n++], ((p.rex & 1u) << 3) | (op & 7), opsize, p.rex);
		break;
	case SHAPE_OPREG_IMM:
		set_gpr(&o[n++], ((p.rex & 1u) << 3) | (op & 7), opsize, p.rex);
		o[n++] = imm_opnd;
		break;
	case SHAPE_IMM:
		o[n++] = imm_opnd;
		break;
	case SHAPE_REL:
		o[n].kind = EMU_OPND_IMM;
		o[n++].size = 8;
		imm = addr + at + imm;
		break;
	case SHAPE_DECLINE:
		return false;
	}
	insn->nopnd = (uint8_t)n;
	insn->imm = imm;
	if (rip_relative)
		m->disp += (int64_t)(addr + at);
	insn->len = (uint8_t)at;
	insn->mnemonic = f.mnemonic;
	insn->opsize = (uint8_t)opsize;
	insn->attr = p.opsize ? EMU_ATTR_OPSIZE : 0;
	insn->ends_block = f.ends_block;
	return true;
}
