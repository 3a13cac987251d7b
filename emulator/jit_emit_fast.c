/*
 * jit_emit_fast.c — the host instructions the translator emits most
 * (mov, lea, the eight ALU operations, test, shifts by an immediate, push,
 * pop, call and jmp through a register or memory, ret, bt, the
 * extensions), encoded by hand: Zydis's encoder spends about 100 ns on
 * each, and a JIT-compiled guest program (a JVM, node) has its blocks
 * translated again and again as it patches its code, some 140 host
 * instructions each. The bytes are the ones Zydis's encoder makes of the
 * same request (tests/unit/test_jit_emit_fast.c compares every form over
 * every register, size, and edge values of displacements and
 * immediates); any other form, or an operand this file does not take
 * (no base register, rsp as an index, an immediate outside the signed
 * range of its size), is left to Zydis.
 */
#include <string.h>

#include "jit_emit_fast.h"

/* What one instruction is made of before it is laid out. */
struct form {
	bool p66, rex_w, rex_force; /* rex_force: a byte register spl..dil */
	uint8_t op[2], n_op;
	int reg;                    /* the ModRM reg field: a register or /digit; -1: none */
	const struct jit_opnd *rm;  /* the ModRM r/m operand; NULL: none */
	int plus_reg;               /* the register added to the opcode; -1: none */
	int64_t imm;
	unsigned imm_bytes;
};

static bool fits8(int64_t v)
{
	return v >= INT8_MIN && v <= INT8_MAX;
}

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

/* Whether an immediate is in the signed range of `size` bytes. */
static bool fits_size(int64_t v, unsigned size)
{
	switch (size) {
	case 1: return fits8(v);
	case 2: return v >= INT16_MIN && v <= INT16_MAX;
	default: return fits32(v);
	}
}

/* spl, bpl, sil, dil: only reachable with a REX prefix. */
static bool byte_needs_rex(const struct jit_opnd *o)
{
	return o->kind == JIT_REG && o->size == 1 && o->reg >= 4 && o->reg <= 7;
}

/* Whether a memory operand is one this file lays out. */
static bool mem_ok(const struct jit_opnd *m)
{
	if (m->base < 0 || !fits32(m->value))
		return false;
	if (m->index < 0)
		return true;
	return m->index != 4 && (m->scale == 1 || m->scale == 2 || m->scale == 4 || m->scale == 8);
}

static size_t lay_out(const struct form *f, uint8_t *out)
{
	size_t n = 0;
	if (f->p66)
		out[n++] = 0x66;
	unsigned rex = (f->rex_w ? 8 : 0) | (f->reg >= 8 ? 4 : 0);
	if (f->rm && f->rm->kind == JIT_REG && f->rm->reg >= 8)
		rex |= 1;
	if (f->rm && f->rm->kind == JIT_MEM) {
		rex |= f->rm->base >= 8 ? 1 : 0;
		rex |= f->rm->index >= 8 ? 2 : 0;
	}
	if (f->plus_reg >= 8)
		rex |= 1;
	if (rex || f->rex_force)
		out[n++] = (uint8_t)(0x40 | rex);
	for (unsigned i = 0; i < f->n_op; i++)
		out[n++] = f->op[i];
	if (f->plus_reg >= 0)
		out[n - 1] = (uint8_t)(out[n - 1] + (f->plus_reg & 7));
	if (f->rm) {
		unsigned reg = (unsigned)(f->reg < 0 ? 0 : f->reg) & 7;
		const struct jit_opnd *m = f->rm;
		if (m->kind == JIT_REG) {
			out[n++] = (uint8_t)(0xc0 | reg << 3 | (m->reg & 7));
		} else {
			unsigned base = (unsigned)m->base & 7;
			bool sib = m->index >= 0 || base == 4;
			unsigned mod = m->value == 0 && base != 5 ? 0 : fits8(m->value) ? 1 : 2;
			out[n++] = (uint8_t)(mod << 6 | reg << 3 | (sib ? 4 : base));
			if (sib) {
				unsigned ss = m->index < 0 ? 0 : m->scale == 8 ? 3 : m->scale == 4 ? 2 : m->scale == 2 ? 1 : 0;
				unsigned idx = m->index < 0 ? 4 : (unsigned)m->index & 7;
				out[n++] = (uint8_t)(ss << 6 | idx << 3 | base);
			}
			if (mod == 1) {
				out[n++] = (uint8_t)m->value;
			} else if (mod == 2) {
				int32_t d = (int32_t)m->value;
				memcpy(out + n, &d, 4);
				n += 4;
			}
		}
	}
	memcpy(out + n, &f->imm, f->imm_bytes); /* little-endian */
	return n + f->imm_bytes;
}

/* The operand-size prefixes of an instruction of `size` bytes. */
static void sized(struct form *f, unsigned size)
{
	f->p66 = size == 2;
	f->rex_w = size == 8;
}

static void one_opcode(struct form *f, unsigned op)
{
	f->op[0] = (uint8_t)op;
	f->n_op = 1;
}

static void two_opcodes(struct form *f, unsigned op)
{
	f->op[0] = 0x0f;
	f->op[1] = (uint8_t)op;
	f->n_op = 2;
}

/* The ALU operations by their /digit (and opcode row). */
static int alu_digit(ZydisMnemonic mn)
{
	switch (mn) {
	case ZYDIS_MNEMONIC_ADD: return 0;
	case ZYDIS_MNEMONIC_OR: return 1;
	case ZYDIS_MNEMONIC_ADC: return 2;
	case ZYDIS_MNEMONIC_SBB: return 3;
	case ZYDIS_MNEMONIC_AND: return 4;
	case ZYDIS_MNEMONIC_SUB: return 5;
	case ZYDIS_MNEMONIC_XOR: return 6;
	case ZYDIS_MNEMONIC_CMP: return 7;
	default: return -1;
	}
}

static int shift_digit(ZydisMnemonic mn)
{
	switch (mn) {
	case ZYDIS_MNEMONIC_ROL: return 0;
	case ZYDIS_MNEMONIC_ROR: return 1;
	case ZYDIS_MNEMONIC_SHL: return 4;
	case ZYDIS_MNEMONIC_SHR: return 5;
	case ZYDIS_MNEMONIC_SAR: return 7;
	default: return -1;
	}
}

/* r/m, reg or reg, r/m with the usual 8-bit opcode one below. */
static bool rm_reg(struct form *f, unsigned op8, const struct jit_opnd *rm, const struct jit_opnd *r)
{
	if (r->size != rm->size)
		return false;
	sized(f, r->size);
	one_opcode(f, r->size == 1 ? op8 : op8 + 1);
	f->reg = r->reg;
	f->rm = rm;
	f->rex_force = byte_needs_rex(r) || byte_needs_rex(rm);
	return true;
}

/* op r/m, imm of the ALU group; the accumulator's short form when it is
 * shorter. */
static bool alu_imm(struct form *f, int digit, const struct jit_opnd *x, int64_t imm)
{
	unsigned size = x->size;
	if (!fits_size(imm, size))
		return false;
	sized(f, size);
	f->imm = imm;
	f->rex_force = byte_needs_rex(x);
	if (size != 1 && fits8(imm)) {
		one_opcode(f, 0x83);
		f->imm_bytes = 1;
	} else if (x->kind == JIT_REG && x->reg == 0) {
		one_opcode(f, (unsigned)digit * 8 + (size == 1 ? 4 : 5));
		f->imm_bytes = size == 1 ? 1 : size == 2 ? 2 : 4;
		return true;
	} else {
		one_opcode(f, size == 1 ? 0x80 : 0x81);
		f->imm_bytes = size == 1 ? 1 : size == 2 ? 2 : 4;
	}
	f->reg = digit;
	f->rm = x;
	return true;
}

static bool mov(struct form *f, const struct jit_opnd *x, const struct jit_opnd *y)
{
	if (y->kind == JIT_REG)
		return rm_reg(f, 0x88, x, y);
	if (x->kind == JIT_REG && y->kind == JIT_MEM)
		return rm_reg(f, 0x8a, y, x);
	if (y->kind != JIT_IMM)
		return false;
	unsigned size = x->size;
	sized(f, size);
	f->imm = y->value;
	f->rex_force = byte_needs_rex(x);
	if (x->kind == JIT_REG && size != 8) {
		if (!fits_size(y->value, size))
			return false;
		one_opcode(f, size == 1 ? 0xb0 : 0xb8);
		f->plus_reg = x->reg;
		f->imm_bytes = size;
		return true;
	}
	if (x->kind == JIT_REG && !fits32(y->value)) {
		one_opcode(f, 0xb8); /* mov r64, imm64 */
		f->plus_reg = x->reg;
		f->imm_bytes = 8;
		return true;
	}
	if (!fits_size(y->value, size))
		return false;
	one_opcode(f, size == 1 ? 0xc6 : 0xc7);
	f->reg = 0;
	f->rm = x;
	f->imm_bytes = size == 1 ? 1 : size == 2 ? 2 : 4;
	return true;
}

/* movzx/movsx r, r/m8 or r/m16; movsxd r64, r/m32. */
static bool extend(struct form *f, ZydisMnemonic mn, const struct jit_opnd *x, const struct jit_opnd *y)
{
	if (x->kind != JIT_REG || x->size == 1 || y->size >= x->size)
		return false;
	sized(f, x->size);
	if (mn == ZYDIS_MNEMONIC_MOVSXD) {
		if (y->size != 4)
			return false;
		one_opcode(f, 0x63);
	} else if (y->size == 4) {
		return false;
	} else {
		unsigned op = mn == ZYDIS_MNEMONIC_MOVZX ? 0xb6 : 0xbe;
		two_opcodes(f, y->size == 1 ? op : op + 1);
	}
	f->reg = x->reg;
	f->rm = y;
	f->rex_force = byte_needs_rex(y);
	return true;
}

static bool build(struct form *f, ZydisMnemonic mn, const struct jit_opnd *x,
		  const struct jit_opnd *y)
{
	bool x_rm = x->kind == JIT_REG || x->kind == JIT_MEM;
	int digit;
	if ((digit = alu_digit(mn)) >= 0 && x_rm) {
		if (y->kind == JIT_IMM)
			return alu_imm(f, digit, x, y->value);
		if (y->kind == JIT_REG)
			return rm_reg(f, (unsigned)digit * 8, x, y);
		if (x->kind == JIT_REG && y->kind == JIT_MEM)
			return rm_reg(f, (unsigned)digit * 8 + 2, y, x);
		return false;
	}
	if ((digit = shift_digit(mn)) >= 0 && x_rm && y->kind == JIT_IMM) {
		if (y->value < 0 || y->value > 255)
			return false;
		sized(f, x->size);
		f->rex_force = byte_needs_rex(x);
		if (y->value == 1) {
			one_opcode(f, x->size == 1 ? 0xd0 : 0xd1);
		} else {
			one_opcode(f, x->size == 1 ? 0xc0 : 0xc1);
			f->imm = y->value;
			f->imm_bytes = 1;
		}
		f->reg = digit;
		f->rm = x;
		return true;
	}
	switch (mn) {
	case ZYDIS_MNEMONIC_MOV:
		return x_rm && mov(f, x, y);
	case ZYDIS_MNEMONIC_TEST:
		if (x_rm && y->kind == JIT_REG)
			return rm_reg(f, 0x84, x, y);
		if (!x_rm || y->kind != JIT_IMM || !fits_size(y->value, x->size))
			return false;
		sized(f, x->size);
		f->imm = y->value;
		f->imm_bytes = x->size == 1 ? 1 : x->size == 2 ? 2 : 4;
		f->rex_force = byte_needs_rex(x);
		if (x->kind == JIT_REG && x->reg == 0) {
			one_opcode(f, x->size == 1 ? 0xa8 : 0xa9);
			return true;
		}
		one_opcode(f, x->size == 1 ? 0xf6 : 0xf7);
		f->reg = 0;
		f->rm = x;
		return true;
	case ZYDIS_MNEMONIC_LEA: /* Zydis's memory operand: 8 bytes, the address */
		if (x->kind != JIT_REG || y->kind != JIT_MEM || x->size < 2 || y->size != 8)
			return false;
		sized(f, x->size);
		one_opcode(f, 0x8d);
		f->reg = x->reg;
		f->rm = y;
		return true;
	case ZYDIS_MNEMONIC_BT:
		if (!x_rm || y->kind != JIT_REG || x->size == 1 || y->size != x->size)
			return false;
		sized(f, x->size);
		two_opcodes(f, 0xa3);
		f->reg = y->reg;
		f->rm = x;
		return true;
	case ZYDIS_MNEMONIC_MOVZX:
	case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD:
		return y->kind != JIT_IMM && y->kind != JIT_NONE && extend(f, mn, x, y);
	case ZYDIS_MNEMONIC_CALL:
	case ZYDIS_MNEMONIC_JMP:
		if (!x_rm || x->size != 8 || y->kind != JIT_NONE)
			return false;
		one_opcode(f, 0xff);
		f->reg = mn == ZYDIS_MNEMONIC_CALL ? 2 : 4;
		f->rm = x;
		return true;
	case ZYDIS_MNEMONIC_PUSH:
	case ZYDIS_MNEMONIC_POP:
		if (x->kind != JIT_REG || x->size != 8 || y->kind != JIT_NONE)
			return false;
		one_opcode(f, mn == ZYDIS_MNEMONIC_PUSH ? 0x50 : 0x58);
		f->plus_reg = x->reg;
		return true;
	case ZYDIS_MNEMONIC_RET:
		if (x->kind != JIT_NONE)
			return false;
		one_opcode(f, 0xc3);
		return true;
	default:
		return false;
	}
}

static bool sizes_ok(const struct jit_opnd *o)
{
	if (o->kind == JIT_MEM && !mem_ok(o))
		return false;
	if (o->kind == JIT_REG || o->kind == JIT_MEM)
		return o->size == 1 || o->size == 2 || o->size == 4 || o->size == 8;
	return true;
}

size_t jit_encode_fast(uint8_t out[JIT_FAST_MAX], ZydisMnemonic mn, struct jit_opnd x,
		       struct jit_opnd y, struct jit_opnd z)
{
	if (z.kind != JIT_NONE || !sizes_ok(&x) || !sizes_ok(&y))
		return 0;
	struct form f = { .reg = -1, .plus_reg = -1 };
	if (!build(&f, mn, &x, &y))
		return 0;
	return lay_out(&f, out);
}
