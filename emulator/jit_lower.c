/*
 * jit_lower.c — one guest instruction as host code, for the forms that
 * make up most of what compilers emit: mov/movzx/movsx/movsxd/lea, the
 * two-operand arithmetic (add sub and or xor cmp test, adc and sbb),
 * shl/shr/sar by an immediate, neg, not, inc, dec, imul with two or three
 * operands, cbw..cqo, cmovcc, setcc, push/pop of a register, and the
 * block-ending jmp, jcc, call and ret; ah..bh as sources. Everything else
 * keeps its handler (jit_translate.c calls it).
 *
 * Each lowering does what the handler does, in the handler's order: the
 * same memory accesses through the memory interface (its functions for
 * one access size when it has them, else emu_jit_read and emu_jit_write,
 * which wrap operand.h's), registers written only once every access
 * succeeded, and the flags left pending in cpu->lazy exactly as flags.h's
 * writers leave them. Arithmetic runs on the host's own instruction of
 * the same width, whose flags a conditional jump, cmov or setcc after it
 * may use directly; flags the architecture leaves undefined are computed
 * as the handler computes them, never taken from the host.
 */
#include <Zydis/Zydis.h>

#include "flags.h"
#include "jit_xlate.h"

#define MOV ZYDIS_MNEMONIC_MOV

static void emit(struct jit_xlate *x, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(&x->a, mn, a, b);
}

static bool is_gpr(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR && o->reg % 8 == 0; /* not ah..bh */
}

static unsigned gpr_of(const struct emu_operand *o)
{
	return o->reg / 8u;
}

/* A register the lowering can read: any, ah..bh included (source_in). */
static bool is_gpr_source(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_GPR;
}

/* A register source's value in a host register: its guest register's
 * (the operation uses the low bytes), or for ah..bh that byte moved down
 * into rcx, zero-extended, without touching the host flags. */
static int source_in(struct jit_xlate *x, const struct emu_operand *o)
{
	int v = jit_guest_in(x, gpr_of(o), JR_RCX);
	if (o->reg % 8 == 0)
		return v;
	if (v != JR_RCX)
		jit_op(&x->a, ZYDIS_MNEMONIC_MOV, jit_r(JR_RCX, 8), jit_r(v, 8));
	/* movzx ecx, ch: the one form of a high byte the encoder is not
	 * asked for (its register numbering has no ah..bh) */
	static const uint8_t movzx_ecx_ch[] = { 0x0f, 0xb6, 0xcd };
	jit_bytes(&x->a, movzx_ecx_ch, sizeof(movzx_ecx_ch));
	return JR_RCX;
}

/* --- which forms ------------------------------------------------------ */

enum lowering { LOWER_NONE, LOWER_MOVE, LOWER_ALU, LOWER_CARRY, LOWER_SHIFT, LOWER_UNARY,
		LOWER_STEP, LOWER_EXTEND,
		LOWER_MULTIPLY, LOWER_CMOV, LOWER_SETCC, LOWER_PUSH, LOWER_POP, LOWER_CALL,
		LOWER_RET, LOWER_JMP, LOWER_JCC, LOWER_NOTHING };

static const ZydisMnemonic cmov_mnemonics[16] = CONDITION_MNEMONICS(CMOV);
static const ZydisMnemonic setcc_mnemonics[16] = CONDITION_MNEMONICS(SET);

static bool in_condition_family(unsigned mnemonic, const ZydisMnemonic family[16])
{
	for (unsigned cc = 0; cc < 16; cc++)
		if (family[cc] == mnemonic)
			return true;
	return false;
}

static bool imm_fits_op(const struct emu_insn *insn, unsigned size)
{
	return size < 8 || (int64_t)insn->imm == (int32_t)insn->imm;
}

static bool alu_form(const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	if (insn->nopnd != 2)
		return false;
	if (s->kind == EMU_OPND_IMM && !imm_fits_op(insn, d->size))
		return false;
	if (is_gpr(d))
		return is_gpr_source(s) || s->kind == EMU_OPND_IMM || s->kind == EMU_OPND_MEM;
	return d->kind == EMU_OPND_MEM && (is_gpr_source(s) || s->kind == EMU_OPND_IMM);
}

static bool move_form(const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	if (insn->nopnd != 2)
		return false;
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_MOV:
		if (is_gpr(d))
			return is_gpr_source(s) || s->kind == EMU_OPND_IMM || s->kind == EMU_OPND_MEM;
		return d->kind == EMU_OPND_MEM && (is_gpr_source(s) || s->kind == EMU_OPND_IMM);
	case ZYDIS_MNEMONIC_LEA:
		return is_gpr(d) && s->kind == EMU_OPND_AGEN;
	default: /* movzx, movsx, movsxd */
		return is_gpr(d) && (is_gpr_source(s) || s->kind == EMU_OPND_MEM) &&
		       s->size < d->size;
	}
}

/* A jump or call target: relative (an immediate), or an 8-byte register
 * or memory operand. */
static bool target_form(const struct emu_insn *insn)
{
	const struct emu_operand *t = &insn->opnd[0];
	return insn->nopnd == 1 && !(insn->attr & EMU_ATTR_FAR) &&
	       (t->kind == EMU_OPND_IMM || (t->size == 8 && (is_gpr(t) || t->kind == EMU_OPND_MEM)));
}

static enum lowering lowering_of(const struct emu_insn *insn)
{
	if (insn->attr & (EMU_ATTR_LOCK | EMU_ATTR_REP | EMU_ATTR_REPNE | EMU_ATTR_FAR) ||
	    insn->handler == emu_handler_unimplemented || insn->handler == emu_handler_undefined)
		return LOWER_NONE;
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_MOV: case ZYDIS_MNEMONIC_MOVZX: case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD: case ZYDIS_MNEMONIC_LEA:
		return move_form(insn) ? LOWER_MOVE : LOWER_NONE;
	case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_AND:
	case ZYDIS_MNEMONIC_OR: case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_CMP:
	case ZYDIS_MNEMONIC_TEST:
		return alu_form(insn) ? LOWER_ALU : LOWER_NONE;
	case ZYDIS_MNEMONIC_ADC: case ZYDIS_MNEMONIC_SBB:
		/* Of registers and immediates only: a memory access between
		 * taking the carry and using it would change the host flags. */
		return alu_form(insn) && is_gpr(&insn->opnd[0]) &&
		       insn->opnd[1].kind != EMU_OPND_MEM ? LOWER_CARRY : LOWER_NONE;
	case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
		return insn->nopnd == 2 && is_gpr(&insn->opnd[0]) &&
		       insn->opnd[1].kind == EMU_OPND_IMM ? LOWER_SHIFT : LOWER_NONE;
	case ZYDIS_MNEMONIC_NEG: case ZYDIS_MNEMONIC_NOT:
		return insn->nopnd == 1 && is_gpr(&insn->opnd[0]) ? LOWER_UNARY : LOWER_NONE;
	case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC:
		return insn->nopnd == 1 && is_gpr(&insn->opnd[0]) ? LOWER_STEP : LOWER_NONE;
	case ZYDIS_MNEMONIC_CBW: case ZYDIS_MNEMONIC_CWDE: case ZYDIS_MNEMONIC_CDQE:
	case ZYDIS_MNEMONIC_CWD: case ZYDIS_MNEMONIC_CDQ: case ZYDIS_MNEMONIC_CQO:
		return LOWER_EXTEND;
	case ZYDIS_MNEMONIC_IMUL:
		return is_gpr(&insn->opnd[0]) &&
		       (is_gpr(&insn->opnd[1]) || insn->opnd[1].kind == EMU_OPND_MEM) &&
		       (insn->nopnd == 2 ||
			(insn->nopnd == 3 && insn->opnd[2].kind == EMU_OPND_IMM &&
			 imm_fits_op(insn, insn->opnd[0].size)))
		       ? LOWER_MULTIPLY : LOWER_NONE;
	case ZYDIS_MNEMONIC_PUSH:
		return insn->nopnd == 1 && insn->opsize == 8 &&
		       ((is_gpr(&insn->opnd[0]) && insn->opnd[0].size == 8) ||
			insn->opnd[0].kind == EMU_OPND_IMM) ? LOWER_PUSH : LOWER_NONE;
	case ZYDIS_MNEMONIC_POP:
		return insn->nopnd == 1 && insn->opsize == 8 && is_gpr(&insn->opnd[0]) &&
		       insn->opnd[0].size == 8 ? LOWER_POP : LOWER_NONE;
	case ZYDIS_MNEMONIC_CALL: return target_form(insn) ? LOWER_CALL : LOWER_NONE;
	case ZYDIS_MNEMONIC_JMP: return target_form(insn) ? LOWER_JMP : LOWER_NONE;
	case ZYDIS_MNEMONIC_RET: return insn->nopnd == 0 ? LOWER_RET : LOWER_NONE;
	case ZYDIS_MNEMONIC_NOP: case ZYDIS_MNEMONIC_ENDBR64: return LOWER_NOTHING;
	default:
		break;
	}
	if (in_condition_family(insn->mnemonic, cmov_mnemonics))
		return insn->nopnd == 2 && is_gpr(&insn->opnd[0]) &&
		       (is_gpr(&insn->opnd[1]) || insn->opnd[1].kind == EMU_OPND_MEM)
		       ? LOWER_CMOV : LOWER_NONE;
	if (in_condition_family(insn->mnemonic, setcc_mnemonics))
		return insn->nopnd == 1 && is_gpr(&insn->opnd[0]) ? LOWER_SETCC : LOWER_NONE;
	return emu_jcc_condition(insn) >= 0 ? LOWER_JCC : LOWER_NONE;
}

bool jit_lowerable(const struct emu_insn *insn)
{
	return lowering_of(insn) != LOWER_NONE || jit_shift_count_lowerable(insn) ||
	       jit_bit_count_lowerable(insn) || jit_divide_lowerable(insn);
}

struct alu_lowering {
	ZydisMnemonic host; /* run on the host: cmp as sub, test as and */
	enum emu_lazy_kind lazy;
	bool writes;
};
static struct alu_lowering alu_lowering_of(unsigned mnemonic);

static bool touches_memory(const struct emu_insn *insn)
{
	for (unsigned i = 0; i < insn->nopnd && i < 4; i++)
		if (insn->opnd[i].kind == EMU_OPND_MEM)
			return true;
	return false;
}

/* The count of a shift by an immediate, as the instruction masks it. */
static unsigned shift_count(const struct emu_insn *insn)
{
	return (unsigned)(insn->imm & (insn->opnd[0].size == 8 ? 63 : 31));
}

/* Whether instructions from `first` on replace every status flag before
 * anything can see them: a lowered add/sub/cmp/and/or/xor/test or neg of
 * registers, or shift of one by a count other than 0 (its pending flags
 * replace all six), comes with only instructions of registers before it
 * that neither read the flags (whose value anything could see) nor can
 * leave the block: moves, not, sign extensions, nops, and inc and dec
 * (which keep CF, but their own flags are then overwritten too, so
 * they do not take it: lower_step). */
static bool overwritten_from(const struct emu_block *b, const bool *lowered, unsigned first)
{
	for (unsigned j = first; j < b->count; j++) {
		const struct emu_insn *insn = &b->insns[j];
		/* An access may fault or miss and leave the block: the
		 * flags must be in cpu->lazy by then. */
		if (!lowered[j] || touches_memory(insn))
			return false;
		/* Lowered, a rotate's own flags are overwritten unseen, by
		 * what this scan reaches next. */
		if (jit_rotate_lowerable(insn))
			continue;
		switch (lowering_of(insn)) {
		case LOWER_ALU: /* writes all six, reads none */
			return true;
		case LOWER_SHIFT: /* by 0: leaves them */
			if (shift_count(insn) != 0)
				return true;
			continue;
		case LOWER_UNARY: /* neg writes all six; not, none */
			if (insn->mnemonic == ZYDIS_MNEMONIC_NEG)
				return true;
			continue;
		case LOWER_MOVE: case LOWER_EXTEND: case LOWER_NOTHING: /* leave them */
		case LOWER_STEP: /* all but CF, taken only when its flags live */
			continue;
		default:
			return false;
		}
	}
	return false;
}

bool jit_flags_overwritten(const struct emu_block *b, const bool *lowered, unsigned i)
{
	return overwritten_from(b, lowered, i + 1);
}

bool jit_block_overwrites_flags(const struct emu_block *b, const bool *lowered)
{
	return overwritten_from(b, lowered, 0);
}

bool jit_flags_deferrable(const struct emu_block *b, const bool *lowered, unsigned i)
{
	const struct emu_insn *insn = &b->insns[i];
	if (!lowered[i] || lowering_of(insn) != LOWER_ALU ||
	    (insn->opnd[0].kind == EMU_OPND_MEM && alu_lowering_of(insn->mnemonic).writes))
		return false;
	if (i + 1 == b->count) /* a block cut short: it falls through */
		return !insn->ends_block;
	if (i + 2 != b->count || !lowered[i + 1])
		return false;
	const struct emu_insn *end = &b->insns[i + 1];
	enum lowering l = lowering_of(end);
	return l == LOWER_JCC || (l == LOWER_JMP && end->opnd[0].kind == EMU_OPND_IMM);
}

/* What instruction i leaves pending, when it is an operation whose
 * flags can be remade from the guest registers (an operand register the
 * result replaces is remade from the result: not when it is the other
 * operand too). */
static bool remade_form(const struct emu_insn *insn, struct jit_remade_flags *f)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	if (lowering_of(insn) != LOWER_ALU || !is_gpr(d) || (d->size != 4 && d->size != 8) ||
	    (s->kind != EMU_OPND_IMM && !(is_gpr(s) && s->size == d->size)))
		return false;
	struct alu_lowering op = alu_lowering_of(insn->mnemonic);
	*f = (struct jit_remade_flags){
		.kind = (uint8_t)op.lazy, .size = (uint8_t)d->size, .dst = (uint8_t)gpr_of(d),
		.writes = op.writes, .src_imm = s->kind == EMU_OPND_IMM,
	};
	if (f->src_imm)
		f->imm = emu_sign_extend(insn->imm, 4); /* (as alu_immediate: sizes 4 and 8) */
	else
		f->src = (uint8_t)gpr_of(s);
	return f->src_imm || !f->writes || op.lazy == EMU_LAZY_LOGIC || f->src != f->dst;
}

/* Whether a lowered move writes guest register g. */
static bool move_writes(const struct emu_insn *insn, unsigned g)
{
	return is_gpr(&insn->opnd[0]) && gpr_of(&insn->opnd[0]) == g;
}

bool jit_flags_remakeable(const struct emu_block *b, const bool *lowered, unsigned i,
			  unsigned *until, struct jit_remade_flags *f)
{
	if (!lowered[i] || !remade_form(&b->insns[i], f))
		return false;
	for (unsigned j = i + 1; j < b->count; j++) {
		const struct emu_insn *insn = &b->insns[j];
		if (!lowered[j] || jit_rotate_lowerable(insn))
			return false;
		switch (lowering_of(insn)) {
		case LOWER_ALU: /* writes all six, reads none */
			*until = j;
			return true;
		case LOWER_SHIFT:
			if (shift_count(insn) == 0)
				return false;
			*until = j;
			return true;
		case LOWER_MOVE:
			if (move_writes(insn, f->dst) || (!f->src_imm && move_writes(insn, f->src)))
				return false;
			continue;
		case LOWER_NOTHING:
			continue;
		default:
			return false;
		}
	}
	return false;
}

void jit_remake_flags(struct jit_xlate *x, const struct jit_remade_flags *f)
{
	emit(x, MOV, jit_r(JR_RCX, 8), jit_cpu_field(JIT_GPR(f->dst), 8));
	if (f->src_imm)
		jit_mov_imm(&x->a, JR_RDX, (uint64_t)f->imm);
	else
		emit(x, MOV, jit_r(JR_RDX, 8), jit_cpu_field(JIT_GPR(f->src), 8));
	bool logic = f->kind == EMU_LAZY_LOGIC;
	if (f->writes) { /* rcx is the result: a is remade from it */
		emit(x, MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(JR_RCX, 8));
		if (!logic) {
			emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(JR_RDX, 8));
			emit(x, f->kind == EMU_LAZY_ADD ? ZYDIS_MNEMONIC_SUB : ZYDIS_MNEMONIC_ADD,
			     jit_r(JR_RCX, 8), jit_r(JR_RDX, 8));
			emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RCX, 8));
		}
	} else { /* cmp, test: rcx is the first operand */
		if (!logic) {
			emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RCX, 8));
			emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(JR_RDX, 8));
		}
		emit(x, logic ? ZYDIS_MNEMONIC_AND : ZYDIS_MNEMONIC_SUB, jit_r(JR_RCX, 8),
		     jit_r(JR_RDX, 8));
		emit(x, MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(JR_RCX, 8));
	}
	emit(x, MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_i((int64_t)f->kind | (int64_t)f->size << 8));
}

void jit_count_uses(const struct emu_insn *insn, unsigned uses[EMU_GPR_COUNT])
{
	for (unsigned i = 0; i < insn->nopnd && i < 4; i++) {
		const struct emu_operand *o = &insn->opnd[i];
		if (is_gpr_source(o))
			uses[gpr_of(o)]++;
		if (o->kind == EMU_OPND_MEM || o->kind == EMU_OPND_AGEN) {
			if (insn->mem.base != EMU_NO_REG)
				uses[insn->mem.base]++;
			if (insn->mem.index != EMU_NO_REG)
				uses[insn->mem.index]++;
		}
	}
	switch (lowering_of(insn)) {
	case LOWER_PUSH: case LOWER_POP: case LOWER_CALL: case LOWER_RET:
		uses[EMU_RSP] += 2;
		break;
	default:
		break;
	}
}

enum jit_use jit_use_of(const struct emu_insn *insn, unsigned g)
{
	switch (lowering_of(insn)) {
	case LOWER_MOVE: case LOWER_ALU: case LOWER_CARRY: case LOWER_SHIFT: case LOWER_UNARY:
	case LOWER_STEP: case LOWER_MULTIPLY: case LOWER_CMOV: case LOWER_SETCC: case LOWER_PUSH: case LOWER_POP:
	case LOWER_CALL: case LOWER_RET: case LOWER_JMP: case LOWER_JCC: case LOWER_NOTHING:
		break;
	default: /* implicit operands (cbw, cqo), or another file's lowering */
		return JIT_USE_READ;
	}
	unsigned uses[EMU_GPR_COUNT] = { 0 };
	jit_count_uses(insn, uses);
	if (!uses[g])
		return JIT_USE_NONE;
	const struct emu_operand *d = &insn->opnd[0];
	/* A move's 4- or 8-byte destination is replaced whole (4 bytes
	 * zero the upper half); 1 and 2 merge into the old value. Named
	 * once: the source does not name it. */
	if (lowering_of(insn) == LOWER_MOVE && is_gpr(d) && gpr_of(d) == g && d->size >= 4 &&
	    uses[g] == 1)
		return JIT_USE_WRITE;
	return JIT_USE_READ;
}

/* --- memory ------------------------------------------------------------- */

void jit_address_to_rsi(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_mem_operand *m = &insn->mem;
	int base = m->base != EMU_NO_REG ? jit_guest_in(x, m->base, JR_RSI) : JR_NONE;
	int index = m->index != EMU_NO_REG ? jit_guest_in(x, m->index, JR_RDX) : JR_NONE;
	int64_t disp = m->disp;
	if (base == JR_NONE && index == JR_NONE) {
		jit_mov_imm(&x->a, JR_RSI, (uint64_t)disp);
	} else if (disp == (int32_t)disp) {
		emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8), jit_m(base, index, m->scale, disp, 8));
	} else {
		jit_mov_imm(&x->a, JR_R10, (uint64_t)disp);
		emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8), jit_m(base, index, m->scale, 0, 8));
		emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8), jit_m(JR_RSI, JR_R10, 1, 0, 8));
	}
	if (m->addr32)
		emit(x, MOV, jit_r(JR_RSI, 4), jit_r(JR_RSI, 4));
	if (m->seg != EMU_SEG_NONE) {
		int64_t seg = m->seg == EMU_SEG_FS ? JIT_FS_BASE : JIT_GS_BASE;
		emit(x, MOV, jit_r(JR_R10, 8), jit_cpu_field(seg, 8));
		emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8), jit_m(JR_RSI, JR_R10, 1, 0, 8));
	}
}

/* Index of an access size (1, 2, 4, 8) in the sized memory functions. */
static unsigned size_index(unsigned size)
{
	return size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3;
}

/* Keeps the address (rsi) in its slot and jumps to *upper unless every
 * byte of [rsi, rsi + size) is in the lower canonical half: the rest
 * (the kernel's half, non-canonical addresses) goes through the helpers,
 * which check as operand.h does. */
static void keep_address_checked(struct jit_xlate *x, unsigned size, size_t *upper)
{
	emit(x, MOV, jit_slot(JIT_SLOT_ADDRESS, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_RAX, 8), jit_m(JR_RSI, JR_NONE, 0, size - 1, 8));
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RAX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_i(47));
	*upper = jit_jcc_forward(&x->a, JIT_CC_NZ);
}

/* The memory interface's access of `size` bytes at rsi (a write's value
 * in rcx): its form for that size when it has one, else the general form
 * with the size. */
static void call_interface(struct jit_xlate *x, const void *sized, const void *general,
			   unsigned size, bool write)
{
	emit(x, MOV, jit_r(JR_RDI, 8), jit_cpu_field(JIT_MEM_CTX, 8));
	if (sized) {
		if (write) /* (ctx, addr, value) */
			emit(x, MOV, jit_r(JR_RDX, 8), jit_r(JR_RCX, 8));
		jit_call_out(x, sized);
	} else { /* (ctx, addr, size[, value]) */
		emit(x, MOV, jit_r(JR_RDX, 4), jit_i(size));
		jit_call_out(x, general);
	}
}

/* An inline access's miss sites, for its call path to be made out of
 * line (jit_emit_cold) and come back here (a write's: note_at, its
 * decode-cache note). */
static void defer_call(struct jit_xlate *x, const struct jit_misses *m, unsigned size, bool write,
		       size_t note_at)
{
	if (x->n_cold == JIT_MAX_COLD) {
		x->a.failed = true;
		return;
	}
	x->cold[x->n_cold++] = (struct jit_cold){
		.misses = *m, .resume = x->a.pos, .dirty = x->dirty,
		.size = (uint8_t)size, .write = write, .cur = x->cur, .note_at = note_at,
	};
}

/* `size` bytes at [rsi] into rax, zero-extended, by the memory
 * interface; a fault ends the block at this instruction. With an
 * interface that passes integers in registers, its read_uint is called
 * directly (as emu_mem_read_uint would); addresses outside the lower
 * half, and other interfaces, go through emu_jit_read. */
static void read_call(struct jit_xlate *x, unsigned size)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	size_t upper = 0, done = 0;
	if (ops->read_uint) {
		keep_address_checked(x, size, &upper);
		call_interface(x, (const void *)ops->read_uint_sized[size_index(size)],
			       (const void *)ops->read_uint, size, false);
		emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RDX, 4), jit_r(JR_RDX, 4));
		jit_fault_if(x, JIT_CC_NZ, JIT_RAISE_PF_READ);
		done = jit_jmp_forward(&x->a);
		jit_bind(&x->a, upper);
		emit(x, MOV, jit_r(JR_RSI, 8), jit_slot(JIT_SLOT_ADDRESS, 8));
	}
	emit(x, MOV, jit_r(JR_RDI, 8), jit_r(JIT_CPU, 8));
	emit(x, MOV, jit_r(JR_RDX, 4), jit_i(size));
	jit_call_out(x, (const void *)emu_jit_read);
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RDX, 4), jit_r(JR_RDX, 4));
	jit_exit_if(x, JIT_CC_NZ, x->cur, EMU_STOP);
	if (ops->read_uint)
		jit_bind(&x->a, done);
}

/* The same read; a memory that describes its common read has it made
 * inline (jit_inline_memory.c), the call out of line for the rest. */
void jit_read_at_rsi(struct jit_xlate *x, unsigned size)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	x->flags_live = false;
	if (jit_inline_memory_usable(x->cpu) && ops->read_uint_sized[size_index(size)]) {
		struct jit_misses m;
		jit_inline_read_misses(x, size, &m);
		defer_call(x, &m, size, false, 0);
		return;
	}
	read_call(x, size);
}

/* emu_decode_cache_note_write called for the write of `size` bytes at
 * rsi, its status in its slot. */
static void note_write_call(struct jit_xlate *x, unsigned size)
{
	emit(x, MOV, jit_r(JR_RDI, 8), jit_r(JIT_CPU, 8));
	emit(x, MOV, jit_r(JR_RDX, 4), jit_i(size));
	jit_mov_imm(&x->a, JR_RCX, (uint64_t)(uintptr_t)x->b);
	jit_call_out(x, (const void *)emu_jit_note_write);
	emit(x, MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_r(JR_RAX, 4));
}

/* After a write of `size` bytes at rsi: what emu_decode_cache_note_write
 * does, its filter test inline; `crosses` (0: none) jumps to its call
 * for a write that crosses a page. */
static void note_write_from(struct jit_xlate *x, unsigned size, size_t crosses)
{
	emit(x, MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_i(EMU_OK));
	emit(x, MOV, jit_r(JR_RAX, 8), jit_r(JR_RSI, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RAX, 8), jit_i(12));
	emit(x, MOV, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(EMU_CODE_FILTER_BITS - 1));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RCX, 4), jit_i(6));
	jit_mov_imm(&x->a, JR_RDX, (uint64_t)(uintptr_t)x->cpu->code_page_filter);
	emit(x, MOV, jit_r(JR_RDX, 8), jit_m(JR_RDX, JR_RCX, 8, 0, 8));
	emit(x, ZYDIS_MNEMONIC_BT, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
	size_t clear = jit_jcc_forward(&x->a, 3); /* jnc */
	if (crosses)
		jit_bind(&x->a, crosses);
	note_write_call(x, size);
	jit_bind(&x->a, clear);
}

void jit_note_write(struct jit_xlate *x, unsigned size)
{
	note_write_from(x, size, 0);
}

/* rcx's low `size` bytes to [rsi] by the memory interface; a fault
 * ends the block at this instruction. The status is kept in its slot
 * for jit_translate.c's check that the block did not write its own
 * code. Direct calls to write_uint as read_call's to read_uint. A
 * write within one page goes back to the decode cache's note at
 * `note_at` when there is one there (an inline write's, made before
 * this out-of-line path), so the note is not made twice. */
static void write_call(struct jit_xlate *x, unsigned size, size_t note_at)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	size_t upper = 0, done = 0;
	if (ops->write_uint) {
		keep_address_checked(x, size, &upper);
		call_interface(x, (const void *)ops->write_uint_sized[size_index(size)],
			       (const void *)ops->write_uint, size, true);
		emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RAX, 4), jit_r(JR_RAX, 4));
		jit_fault_if(x, JIT_CC_NZ, JIT_RAISE_PF_WRITE);
		emit(x, MOV, jit_r(JR_RSI, 8), jit_slot(JIT_SLOT_ADDRESS, 8));
		size_t crosses = 0;
		if (size > 1) {
			emit(x, MOV, jit_r(JR_RDX, 4), jit_r(JR_RSI, 4));
			emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RDX, 4), jit_i(4095));
			emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RDX, 4), jit_i(4096 - (int64_t)size));
			crosses = jit_jcc_forward(&x->a, 7); /* ja */
		}
		if (note_at) {
			jit_point(&x->a, jit_jmp_forward(&x->a), note_at);
			if (crosses) {
				jit_bind(&x->a, crosses);
				note_write_call(x, size);
			}
		} else {
			note_write_from(x, size, crosses);
		}
		done = jit_jmp_forward(&x->a);
		jit_bind(&x->a, upper);
		emit(x, MOV, jit_r(JR_RSI, 8), jit_slot(JIT_SLOT_ADDRESS, 8));
	}
	emit(x, MOV, jit_r(JR_RDI, 8), jit_r(JIT_CPU, 8));
	emit(x, MOV, jit_r(JR_RDX, 4), jit_i(size));
	jit_mov_imm(&x->a, JR_R8, (uint64_t)(uintptr_t)x->b);
	jit_call_out(x, (const void *)emu_jit_write);
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 4), jit_i(EMU_STOP));
	jit_exit_if(x, JIT_CC_Z, x->cur, EMU_STOP);
	emit(x, MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_r(JR_RAX, 4));
	if (ops->write_uint)
		jit_bind(&x->a, done);
}

/* The same write, made inline as the read (read_at_rsi) when the memory
 * takes writes inline: an inline write needs no address check (only
 * pages of the lower half are in its table), keeps rsi, and its bytes
 * are in one cache entry, so in one page, for the decode cache's note. */
static void write_rcx_at_rsi(struct jit_xlate *x, unsigned size)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	x->flags_live = false;
	x->wrote = true;
	if (ops->write_uint && jit_inline_memory_usable(x->cpu) && ops->write_uint_sized[size_index(size)]) {
		struct jit_misses m;
		jit_inline_write_misses(x, size, &m);
		size_t note_at = 0;
		if (!jit_inline_writes_miss_code(x)) {
			note_at = x->a.pos;
			note_write_from(x, size, 0);
		}
		defer_call(x, &m, size, true, note_at);
		return;
	}
	write_call(x, size, 0);
}

/* A hit of the sequence just emitted goes back to `to`; its misses
 * on to what follows. */
static void back_unless_missed(struct jit_xlate *x, const struct jit_misses *m, size_t to)
{
	jit_point(&x->a, jit_jmp_forward(&x->a), to);
	for (unsigned i = 0; i < m->n; i++)
		jit_bind(&x->a, m->site[i]);
}

/* The read's mispredicted site, when the memory takes that case alone:
 * the value (rax) handed over with its address (rsi), and returned.
 * 1 + the index of the site so bound, 0: none. */
static unsigned mispredicted_call(struct jit_xlate *x, const struct jit_cold *c)
{
	const struct emu_memory_ops *ops = x->cpu->mem;
	unsigned site = c->misses.mispredicted;
	if (c->write || site == 0 || c->size > 8 || !ops->read_mispredicted[size_index(c->size)])
		return 0;
	jit_bind(&x->a, c->misses.site[site - 1]);
	emit(x, MOV, jit_r(JR_RDI, 8), jit_cpu_field(JIT_MEM_CTX, 8));
	emit(x, MOV, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
	jit_call_out(x, (const void *)ops->read_mispredicted[size_index(c->size)]);
	jit_point(&x->a, jit_jmp_forward(&x->a), c->resume);
	return site;
}

void jit_emit_cold(struct jit_xlate *x, const struct jit_cold *c)
{
	unsigned bound = mispredicted_call(x, c);
	for (unsigned i = 0; i < c->misses.n; i++)
		if (i + 1 != bound)
			jit_bind(&x->a, c->misses.site[i]);
	unsigned cur = x->cur;
	uint16_t dirty = x->dirty;
	x->cur = c->cur;
	x->dirty = c->dirty;
	/* Before the call, the sequences for the addresses the common one
	 * leaves out. */
	struct jit_misses other;
	if (jit_inline_misaligned_misses(x, c->write, c->size, &other))
		back_unless_missed(x, &other, c->write && c->note_at ? c->note_at : c->resume);
	if (!c->write && jit_inline_read_crossing_misses(x, c->size, &other))
		back_unless_missed(x, &other, c->resume);
	if (c->write)
		write_call(x, c->size, c->note_at);
	else
		read_call(x, c->size);
	if (c->status_exit) {
		emit(x, ZYDIS_MNEMONIC_CMP, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_i(EMU_JIT_RETIRED));
		jit_exit_if(x, JIT_CC_Z, c->status_exit, EMU_STALE);
	}
	if (c->status_reset)
		emit(x, MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_i(EMU_OK));
	jit_point(&x->a, jit_jmp_forward(&x->a), c->resume);
	x->cur = cur;
	x->dirty = dirty;
}

/* The guest's rsp + delta, without flags (rax, a popped value, kept). */
static void adjust_rsp(struct jit_xlate *x, int delta)
{
	int sp = jit_guest_in(x, EMU_RSP, JR_R10);
	emit(x, ZYDIS_MNEMONIC_LEA, jit_r(sp, 8), jit_m(sp, JR_NONE, 0, delta, 8));
	jit_guest_out(x, EMU_RSP, 8, sp);
}

/* push of the value in rcx (8 bytes), as emu_push. */
static void push_rcx(struct jit_xlate *x)
{
	int sp = jit_guest_in(x, EMU_RSP, JR_RSI);
	emit(x, ZYDIS_MNEMONIC_LEA, jit_r(JR_RSI, 8), jit_m(sp, JR_NONE, 0, -8, 8));
	write_rcx_at_rsi(x, 8);
	adjust_rsp(x, -8);
}

/* pop of 8 bytes into rax, as emu_pop. */
static void pop_rax(struct jit_xlate *x)
{
	int sp = jit_guest_in(x, EMU_RSP, JR_RSI);
	if (sp != JR_RSI)
		emit(x, MOV, jit_r(JR_RSI, 8), jit_r(sp, 8));
	jit_read_at_rsi(x, 8);
	adjust_rsp(x, 8);
}

static void set_rip_from(struct jit_xlate *x, int reg)
{
	emit(x, MOV, jit_cpu_field(JIT_RIP, 8), jit_r(reg, 8));
}


/* --- data movement ------------------------------------------------------ */

static void lower_move(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	bool sign = insn->mnemonic == ZYDIS_MNEMONIC_MOVSX || insn->mnemonic == ZYDIS_MNEMONIC_MOVSXD;
	int v;
	switch (s->kind) {
	case EMU_OPND_GPR: v = source_in(x, s); break;
	case EMU_OPND_IMM: jit_mov_imm(&x->a, JR_RCX, insn->imm); v = JR_RCX; break;
	case EMU_OPND_AGEN: jit_address_to_rsi(x, insn); v = JR_RSI; break;
	default: jit_address_to_rsi(x, insn); jit_read_at_rsi(x, s->size); v = JR_RAX; break;
	}
	if (sign) {
		emit(x, s->size == 4 ? ZYDIS_MNEMONIC_MOVSXD : ZYDIS_MNEMONIC_MOVSX, jit_r(JR_RAX, 8),
		     jit_r(v, s->size));
		v = JR_RAX;
	} else if (insn->mnemonic == ZYDIS_MNEMONIC_MOVZX && s->kind == EMU_OPND_GPR) {
		emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), jit_r(v, s->size));
		v = JR_RAX;
	}
	if (d->kind == EMU_OPND_GPR) {
		jit_guest_out(x, gpr_of(d), d->size, v);
		return;
	}
	if (v != JR_RCX)
		emit(x, MOV, jit_r(JR_RCX, 8), jit_r(v, 8));
	jit_address_to_rsi(x, insn);
	write_rcx_at_rsi(x, d->size);
}

/* --- arithmetic --------------------------------------------------------- */

static struct alu_lowering alu_lowering_of(unsigned mnemonic)
{
	switch (mnemonic) {
	case ZYDIS_MNEMONIC_ADD: return (struct alu_lowering){ ZYDIS_MNEMONIC_ADD, EMU_LAZY_ADD, true };
	case ZYDIS_MNEMONIC_SUB: return (struct alu_lowering){ ZYDIS_MNEMONIC_SUB, EMU_LAZY_SUB, true };
	case ZYDIS_MNEMONIC_CMP: return (struct alu_lowering){ ZYDIS_MNEMONIC_SUB, EMU_LAZY_SUB, false };
	case ZYDIS_MNEMONIC_AND: return (struct alu_lowering){ ZYDIS_MNEMONIC_AND, EMU_LAZY_LOGIC, true };
	case ZYDIS_MNEMONIC_OR: return (struct alu_lowering){ ZYDIS_MNEMONIC_OR, EMU_LAZY_LOGIC, true };
	case ZYDIS_MNEMONIC_XOR: return (struct alu_lowering){ ZYDIS_MNEMONIC_XOR, EMU_LAZY_LOGIC, true };
	default: return (struct alu_lowering){ ZYDIS_MNEMONIC_AND, EMU_LAZY_LOGIC, false }; /* test */
	}
}

/* The immediate as the host instruction of `size` bytes takes it. */
static struct jit_opnd alu_immediate(const struct emu_insn *insn, unsigned size)
{
	return jit_i(emu_sign_extend(insn->imm, size < 4 ? size : 4));
}

/* The pending flags' result (a and b stored already) and kind. */
static void set_lazy_result(struct jit_xlate *x, enum emu_lazy_kind kind, unsigned size, int res)
{
	emit(x, MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(res, 8));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_i((int64_t)kind | (int64_t)size << 8));
	x->lazy_kind = (uint8_t)kind;
	x->lazy_size = (uint8_t)size;
}

/* The operation, its pending flags left in host registers for the
 * block's end (jit_store_deferred_flags): a and b where they are, unless
 * the operation replaces them (they are in `into`), then copies in r8 and
 * r10. Nothing between here and the end writes those registers, rax, rcx,
 * rdx or the cached ones: only the block's jump and end follow. */
static void alu_defer_flags(struct jit_xlate *x, struct alu_lowering op, int a,
			    struct jit_opnd b, unsigned size, int into)
{
	struct jit_deferred_flags *d = &x->deferred;
	*d = (struct jit_deferred_flags){ .on = true, .kind = (uint8_t)op.lazy,
					  .size = (uint8_t)size, .a = (int8_t)a,
					  .res = (int8_t)into, .b = b };
	if (op.lazy != EMU_LAZY_LOGIC) {
		if (a == into) {
			emit(x, MOV, jit_r(JR_R8, 8), jit_r(into, 8));
			d->a = JR_R8;
		}
		if (b.kind == JIT_REG && b.reg == into) {
			emit(x, MOV, jit_r(JR_R10, 8), jit_r(into, 8));
			d->b = jit_r(JR_R10, 8);
		}
	}
	emit(x, op.host, jit_r(into, size), b);
	x->lazy_kind = EMU_LAZY_NONE; /* not in cpu->lazy */
}

void jit_store_deferred_flags(struct jit_xlate *x)
{
	const struct jit_deferred_flags *d = &x->deferred;
	if (d->kind != EMU_LAZY_LOGIC) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(d->a, 8));
		struct jit_opnd b = d->b;
		if (b.kind == JIT_REG)
			b.size = 8;
		emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), b);
	}
	emit(x, MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(d->res, 8));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_i((int64_t)d->kind | (int64_t)d->size << 8));
}

/* The operation on `into` (rdx, or a's own register) holding a with b,
 * leaving in cpu->lazy what emu_set_lazy_flags leaves. `b` is a register
 * or an immediate. Only moves follow the operation: its host flags stay
 * the guest's. */
static void alu_compute_in(struct jit_xlate *x, struct alu_lowering op, int a, struct jit_opnd b,
			   unsigned size, int into)
{
	if (a != into)
		emit(x, MOV, jit_r(into, 8), jit_r(a, 8));
	if (b.kind == JIT_REG)
		b.size = (uint8_t)size;
	if (x->flags_dead || x->remake_flags) {
		/* No store: nothing reads them before the next ALU
		 * instruction replaces them (jit_flags_overwritten), or only
		 * an exit, which remakes them (jit_flags_remakeable). */
		emit(x, op.host, jit_r(into, size), b);
		x->lazy_kind = EMU_LAZY_NONE;
		return;
	}
	if (x->defer_flags) {
		alu_defer_flags(x, op, a, b, size, into);
		return;
	}
	/* A logical operation's flags come from its result alone
	 * (flags.h): its operands are not stored. */
	if (op.lazy != EMU_LAZY_LOGIC) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(into, 8));
		if (b.kind == JIT_REG)
			emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(b.reg, 8));
		else
			emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), b);
	}
	emit(x, op.host, jit_r(into, size), b);
	set_lazy_result(x, op.lazy, size, into);
}

static void alu_compute(struct jit_xlate *x, struct alu_lowering op, int a, struct jit_opnd b,
			unsigned size)
{
	alu_compute_in(x, op, a, b, size, JR_RDX);
}

/* An operation into memory whose read and write are made inline through
 * one check of the page (nothing can fault after it: the flags are stored
 * as the operation makes them); its misses go on to what follows, the
 * hit jumps to the site returned. */
static size_t alu_updating_inline(struct jit_xlate *x, const struct emu_insn *insn,
				  struct alu_lowering op)
{
	const struct emu_operand *s = &insn->opnd[1];
	unsigned size = insn->opnd[0].size;
	struct jit_misses m;
	jit_inline_update_read(x, size, &m);
	struct jit_opnd b = s->kind == EMU_OPND_IMM ? alu_immediate(insn, size)
						   : jit_r(source_in(x, s), size);
	emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RAX, 8));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), b.kind == JIT_REG ? jit_r(b.reg, 8) : b);
	emit(x, op.host, jit_r(JR_RAX, size), b);
	set_lazy_result(x, op.lazy, size, JR_RAX);
	jit_inline_update_write(x, size);
	size_t done = jit_jmp_forward(&x->a);
	for (unsigned i = 0; i < m.n; i++)
		jit_bind(&x->a, m.site[i]);
	return done;
}

/* Memory destination: read, compute, write (if the operation writes),
 * and only then the flags, as alu_binary_to_memory: a faulting write
 * leaves them as they were. A writing one tries alu_updating_inline
 * first. */
static void lower_alu_to_memory(struct jit_xlate *x, const struct emu_insn *insn,
				struct alu_lowering op)
{
	const struct emu_operand *s = &insn->opnd[1];
	unsigned size = insn->opnd[0].size;
	jit_address_to_rsi(x, insn);
	size_t updated = 0;
	if (op.writes && jit_inline_updates(x, size))
		updated = alu_updating_inline(x, insn, op);
	jit_read_at_rsi(x, size);
	struct jit_opnd b = s->kind == EMU_OPND_IMM ? alu_immediate(insn, size)
						   : jit_r(source_in(x, s), size);
	if (!op.writes) {
		alu_compute(x, op, JR_RAX, b, size);
		x->flags_live = true;
		return;
	}
	emit(x, MOV, jit_slot(JIT_SLOT_A, 8), jit_r(JR_RAX, 8));
	if (b.kind == JIT_REG)
		emit(x, MOV, jit_slot(JIT_SLOT_B, 8), jit_r(b.reg, 8));
	emit(x, op.host, jit_r(JR_RAX, size), b);
	emit(x, MOV, jit_slot(JIT_SLOT_RES, 8), jit_r(JR_RAX, 8));
	emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RAX, 8));
	jit_address_to_rsi(x, insn);
	write_rcx_at_rsi(x, size);
	emit(x, MOV, jit_r(JR_RAX, 8), jit_slot(JIT_SLOT_A, 8));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RAX, 8));
	if (b.kind == JIT_REG) {
		emit(x, MOV, jit_r(JR_RAX, 8), jit_slot(JIT_SLOT_B, 8));
		emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(JR_RAX, 8));
	} else {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), b);
	}
	emit(x, MOV, jit_r(JR_RAX, 8), jit_slot(JIT_SLOT_RES, 8));
	set_lazy_result(x, op.lazy, size, JR_RAX);
	if (updated)
		jit_bind(&x->a, updated);
}

static void lower_alu(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	struct alu_lowering op = alu_lowering_of(insn->mnemonic);
	unsigned size = d->size;
	if (d->kind == EMU_OPND_MEM) {
		lower_alu_to_memory(x, insn, op);
		return;
	}
	struct jit_opnd b;
	if (s->kind == EMU_OPND_MEM) {
		jit_address_to_rsi(x, insn);
		jit_read_at_rsi(x, size);
		emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RAX, 8));
		b = jit_r(JR_RCX, size);
	} else if (s->kind == EMU_OPND_IMM) {
		b = alu_immediate(insn, size);
	} else {
		b = jit_r(source_in(x, s), size);
	}
	unsigned g = gpr_of(d);
	if (op.writes && x->host[g] >= 0) {
		/* In the guest register's own host register: a 4-byte
		 * operation zero-extends it, a 1- or 2-byte one merges, as
		 * the guest's does. */
		alu_compute_in(x, op, x->host[g], b, size, x->host[g]);
		x->dirty |= (uint16_t)(1u << g);
	} else {
		alu_compute(x, op, jit_guest_in(x, g, JR_RAX), b, size);
		if (op.writes)
			jit_guest_out(x, g, size, JR_RDX);
	}
	x->flags_live = true;
}

static unsigned host_condition(struct jit_xlate *x, unsigned cc);

/*
 * adc and sbb of a register with a register or an immediate, as
 * ops_alu.c's alu_compute: the guest's CF into the host's (live, remade
 * from this block's pending operation, or asked of emu_jit_condition),
 * then the host's adc or sbb, whose six flags are the architecture's. The
 * pending flags are the handler's: a, b, res and a word whose carry_in is
 * the carry taken, chosen by cmov while CF still holds it (one 4-byte
 * store, as every writer of the word makes). The host flags stay live; the
 * block's lazy kind becomes unknown (remake_host_flags does not take a
 * carry in).
 */
static void lower_carry(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	unsigned size = d->size;
	bool adc = insn->mnemonic == ZYDIS_MNEMONIC_ADC;
	enum emu_lazy_kind kind = adc ? EMU_LAZY_ADD : EMU_LAZY_SUB;
	int64_t word = (int64_t)kind | (int64_t)size << 8;
	if (host_condition(x, 2) != 2) /* CF from emu_jit_condition's 0 or 1 */
		emit(x, ZYDIS_MNEMONIC_NEG, jit_r(JR_RAX, 4), jit_none());
	emit(x, MOV, jit_r(JR_R8, 4), jit_i(word | 1 << 16));
	emit(x, MOV, jit_r(JR_R10, 4), jit_i(word));
	emit(x, ZYDIS_MNEMONIC_CMOVNB, jit_r(JR_R8, 4), jit_r(JR_R10, 4));
	struct jit_opnd b = s->kind == EMU_OPND_IMM ? alu_immediate(insn, size)
						   : jit_r(source_in(x, s), size);
	int a = jit_guest_in(x, gpr_of(d), JR_RAX);
	if (a != JR_RDX)
		emit(x, MOV, jit_r(JR_RDX, 8), jit_r(a, 8));
	if (!x->flags_dead) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RDX, 8));
		if (b.kind == JIT_REG)
			emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(b.reg, 8));
		else
			emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), b);
	}
	emit(x, adc ? ZYDIS_MNEMONIC_ADC : ZYDIS_MNEMONIC_SBB, jit_r(JR_RDX, size), b);
	if (!x->flags_dead) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(JR_RDX, 8));
		emit(x, MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_r(JR_R8, 4));
	}
	x->lazy_kind = EMU_LAZY_NONE;
	jit_guest_out(x, gpr_of(d), size, JR_RDX);
	x->flags_live = true;
}

/*
 * shl, shr, sar of a register by an immediate, as ops_shift.c's
 * shift_plain: the flags are left pending as EMU_LAZY_SHIFT (a = CF, b =
 * OF), both computed as the handler computes them, not taken from the
 * host: OF after a count above 1 is undefined, and the recording must not
 * depend on what this host makes of it. Flags nothing reads (flags_dead)
 * are neither computed nor stored.
 *
 * rol and ror by an immediate too, with dead flags only: a rotate changes
 * CF and OF and keeps the other four, which no pending form of cpu->lazy
 * holds, so one whose flags live stays a handler call. Its value is the
 * host's rotate's, the count masked as shift_rotate masks it and an 8- or
 * 16-bit rotate going round its own width. String hashing (CPython's
 * SipHash among others) runs in rotates: python3's start-up called the
 * handler 450,000 times for them from translated code.
 */
bool jit_rotate_lowerable(const struct emu_insn *insn)
{
	return (insn->mnemonic == ZYDIS_MNEMONIC_ROL || insn->mnemonic == ZYDIS_MNEMONIC_ROR) &&
	       !(insn->attr & (EMU_ATTR_LOCK | EMU_ATTR_REP | EMU_ATTR_REPNE)) && insn->nopnd == 2 &&
	       is_gpr(&insn->opnd[0]) && insn->opnd[1].kind == EMU_OPND_IMM;
}

static void lower_shift(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0];
	unsigned size = d->size, bits = size * 8, g = gpr_of(d);
	unsigned count = shift_count(insn);
	int a = jit_guest_in(x, g, JR_RAX);
	if (count == 0) {
		/* Nothing changes but a 32-bit destination's upper half. */
		if (size == 4)
			jit_guest_out(x, g, 4, a);
		return;
	}
	if (size >= 4)
		emit(x, MOV, jit_r(JR_RDX, size), jit_r(a, size));
	else
		emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RDX, 4), jit_r(a, size));
	if (x->flags_dead) {
		emit(x, insn->mnemonic, jit_r(JR_RDX, size), jit_i(count));
		x->lazy_kind = EMU_LAZY_NONE;
		jit_guest_out(x, g, size, JR_RDX);
		x->flags_live = false;
		return;
	}
	if (jit_rotate_lowerable(insn)) { /* assemble lowers only those: never here */
		x->a.failed = true;
		return;
	}
	/* CF: the last bit shifted out. */
	ZydisMnemonic host = ZYDIS_MNEMONIC_SHL;
	switch (insn->mnemonic) {
	case ZYDIS_MNEMONIC_SHL:
		if (count <= bits) {
			emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RDX, 8));
			emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RCX, 8), jit_i(bits - count));
		} else {
			emit(x, ZYDIS_MNEMONIC_XOR, jit_r(JR_RCX, 4), jit_r(JR_RCX, 4));
		}
		break;
	case ZYDIS_MNEMONIC_SHR:
		host = ZYDIS_MNEMONIC_SHR;
		emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RDX, 8));
		emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RCX, 8), jit_i(count - 1));
		break;
	default: /* sar */
		host = ZYDIS_MNEMONIC_SAR;
		if (size == 8)
			emit(x, MOV, jit_r(JR_RCX, 8), jit_r(a, 8));
		else
			emit(x, size == 4 ? ZYDIS_MNEMONIC_MOVSXD : ZYDIS_MNEMONIC_MOVSX,
			     jit_r(JR_RCX, 8), jit_r(a, size));
		emit(x, ZYDIS_MNEMONIC_SAR, jit_r(JR_RCX, 8), jit_i(count - 1));
		break;
	}
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(1));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RCX, 8));
	/* OF: what a count of 1 would give, from the operand before. */
	if (host == ZYDIS_MNEMONIC_SAR) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_i(0));
	} else {
		emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RDX, 8));
		emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RCX, 8), jit_i(bits - 2));
		if (host == ZYDIS_MNEMONIC_SHL) { /* the top two bits differ */
			emit(x, MOV, jit_r(JR_R8, 8), jit_r(JR_RCX, 8));
			emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_R8, 8), jit_i(1));
			emit(x, ZYDIS_MNEMONIC_XOR, jit_r(JR_RCX, 4), jit_r(JR_R8, 4));
			emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 4), jit_i(1));
		} else { /* shr: the top bit */
			emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RCX, 8), jit_i(1));
		}
		emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(JR_RCX, 8));
	}
	emit(x, host, jit_r(JR_RDX, size), jit_i(count));
	set_lazy_result(x, EMU_LAZY_SHIFT, size, JR_RDX);
	jit_guest_out(x, g, size, JR_RDX);
	x->flags_live = false;
}

/* neg and not of a register, as ops_alu.c's alu_unary: neg leaves its
 * flags pending as 0 - a (EMU_LAZY_SUB, which the host's neg flags equal);
 * not changes none. */
static void lower_unary(struct jit_xlate *x, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size, g = gpr_of(&insn->opnd[0]);
	int a = jit_guest_in(x, g, JR_RAX);
	if (a != JR_RDX)
		emit(x, MOV, jit_r(JR_RDX, 8), jit_r(a, 8));
	if (insn->mnemonic == ZYDIS_MNEMONIC_NOT || x->flags_dead) {
		ZydisMnemonic host = insn->mnemonic == ZYDIS_MNEMONIC_NOT ? ZYDIS_MNEMONIC_NOT
									  : ZYDIS_MNEMONIC_NEG;
		emit(x, host, jit_r(JR_RDX, size), jit_none());
		jit_guest_out(x, g, size, JR_RDX);
		if (host == ZYDIS_MNEMONIC_NEG) { /* dead flags, not stored */
			x->lazy_kind = EMU_LAZY_NONE;
			x->flags_live = false;
		}
		return;
	}
	emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_i(0));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_r(JR_RDX, 8));
	emit(x, ZYDIS_MNEMONIC_NEG, jit_r(JR_RDX, size), jit_none());
	set_lazy_result(x, EMU_LAZY_SUB, size, JR_RDX);
	jit_guest_out(x, g, size, JR_RDX);
	x->flags_live = true;
}

/*
 * inc and dec of a register, as ops_alu.c's alu_compute: the pending
 * flags are those of an add or sub of 1 that keeps CF (keep_cf, with the
 * guest's CF before in cf_value). The host's inc and dec leave CF too, so
 * once the guest's CF is in the host's (as adc takes it: lower_carry) the
 * host flags after are the guest's and stay live. Flags nothing reads
 * (flags_dead) are neither taken nor stored.
 */
static void lower_step(struct jit_xlate *x, const struct emu_insn *insn)
{
	unsigned size = insn->opnd[0].size, g = gpr_of(&insn->opnd[0]);
	bool inc = insn->mnemonic == ZYDIS_MNEMONIC_INC;
	int64_t word = (int64_t)(inc ? EMU_LAZY_ADD : EMU_LAZY_SUB) | (int64_t)size << 8 | 1ll << 24;
	if (!x->flags_dead) {
		if (host_condition(x, 2) != 2) /* CF from emu_jit_condition's 0 or 1 */
			emit(x, ZYDIS_MNEMONIC_NEG, jit_r(JR_RAX, 4), jit_none());
		emit(x, ZYDIS_MNEMONIC_SETB, jit_r(JR_R8, 1), jit_none());
		emit(x, MOV, jit_cpu_field(JIT_LAZY_CF_VALUE, 1), jit_r(JR_R8, 1));
	}
	int a = jit_guest_in(x, g, JR_RAX);
	if (a != JR_RDX)
		emit(x, MOV, jit_r(JR_RDX, 8), jit_r(a, 8));
	if (!x->flags_dead) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_A, 8), jit_r(JR_RDX, 8));
		emit(x, MOV, jit_cpu_field(JIT_LAZY_B, 8), jit_i(1));
	}
	emit(x, inc ? ZYDIS_MNEMONIC_INC : ZYDIS_MNEMONIC_DEC, jit_r(JR_RDX, size), jit_none());
	if (!x->flags_dead) {
		emit(x, MOV, jit_cpu_field(JIT_LAZY_RES, 8), jit_r(JR_RDX, 8));
		emit(x, MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_i(word));
	}
	x->lazy_kind = EMU_LAZY_NONE; /* remake_host_flags takes no kept CF */
	jit_guest_out(x, g, size, JR_RDX);
	x->flags_live = true;
}

/* cbw/cwde/cdqe (half of rax sign-extended into rax) and cwd/cdq/cqo
 * (rax's sign into rdx), as ops_extend.c. */
static void lower_extend(struct jit_xlate *x, const struct emu_insn *insn)
{
	unsigned size = insn->opsize;
	bool into_rdx = insn->mnemonic == ZYDIS_MNEMONIC_CWD || insn->mnemonic == ZYDIS_MNEMONIC_CDQ ||
			insn->mnemonic == ZYDIS_MNEMONIC_CQO;
	unsigned from = into_rdx ? size : size / 2;
	int rax = jit_guest_in(x, EMU_RAX, JR_RAX);
	if (from == 8)
		emit(x, MOV, jit_r(JR_RDX, 8), jit_r(rax, 8));
	else
		emit(x, from == 4 ? ZYDIS_MNEMONIC_MOVSXD : ZYDIS_MNEMONIC_MOVSX, jit_r(JR_RDX, 8),
		     jit_r(rax, from));
	if (into_rdx) {
		emit(x, ZYDIS_MNEMONIC_SAR, jit_r(JR_RDX, 8), jit_i(63));
		x->flags_live = false; /* the guest's flags are not the sar's */
	}
	jit_guest_out(x, into_rdx ? EMU_RDX : EMU_RAX, size, JR_RDX);
}

/*
 * imul reg, reg/mem and imul reg, reg/mem, imm, as ops_muldiv.c's
 * multiply_truncating: CF = OF = the host's (the product did not fit),
 * and the flags the architecture leaves undefined as the emulator's model
 * sets them (multiply_flags: SF the result's top bit, PF its low byte's
 * parity, ZF = AF = 0), not as this host does.
 */
static void lower_multiply(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	unsigned size = d->size;
	int src;
	if (s->kind == EMU_OPND_MEM) {
		jit_address_to_rsi(x, insn);
		jit_read_at_rsi(x, size);
		emit(x, MOV, jit_r(JR_RCX, 8), jit_r(JR_RAX, 8));
		src = JR_RCX;
	} else {
		src = jit_guest_in(x, gpr_of(s), JR_RCX);
	}
	if (insn->nopnd == 3) {
		jit_op3(&x->a, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RDX, size), jit_r(src, size),
			alu_immediate(insn, size));
	} else {
		int a = jit_guest_in(x, gpr_of(d), JR_RAX);
		emit(x, MOV, jit_r(JR_RDX, 8), jit_r(a, 8));
		emit(x, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RDX, size), jit_r(src, size));
	}
	/* rcx = CF | OF | PF | SF, built from the host's OF and the result. */
	emit(x, ZYDIS_MNEMONIC_SETO, jit_r(JR_RCX, 1), jit_none());
	emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RCX, 4), jit_r(JR_RCX, 1));
	jit_op3(&x->a, ZYDIS_MNEMONIC_IMUL, jit_r(JR_RCX, 4), jit_r(JR_RCX, 4),
		jit_i(EMU_CF | EMU_OF));
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RDX, 1), jit_r(JR_RDX, 1));
	emit(x, ZYDIS_MNEMONIC_SETP, jit_r(JR_RAX, 1), jit_none());
	emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), jit_r(JR_RAX, 1));
	emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 4), jit_i(2)); /* PF is bit 2 */
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
	emit(x, ZYDIS_MNEMONIC_BT, jit_r(JR_RDX, 8), jit_i(size * 8 - 1));
	emit(x, ZYDIS_MNEMONIC_SETB, jit_r(JR_RAX, 1), jit_none());
	emit(x, ZYDIS_MNEMONIC_MOVZX, jit_r(JR_RAX, 4), jit_r(JR_RAX, 1));
	emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RAX, 4), jit_i(7)); /* SF is bit 7 */
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RCX, 4), jit_r(JR_RAX, 4));
	jit_status_flags_from_rcx(x);
	jit_guest_out(x, gpr_of(d), size, JR_RDX);
}

void jit_status_flags_from_rcx(struct jit_xlate *x)
{
	emit(x, MOV, jit_r(JR_RAX, 8), jit_cpu_field(JIT_RFLAGS, 8));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 8), jit_i(~(int64_t)EMU_STATUS_FLAGS));
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RAX, 8), jit_r(JR_RCX, 8));
	emit(x, MOV, jit_cpu_field(JIT_RFLAGS, 8), jit_r(JR_RAX, 8));
	emit(x, MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_i(EMU_LAZY_NONE));
	x->lazy_kind = EMU_LAZY_NONE;
	x->flags_live = false;
}

/* --- stack and control transfers ------------------------------------------ */

static void lower_push(struct jit_xlate *x, const struct emu_insn *insn)
{
	if (insn->opnd[0].kind == EMU_OPND_IMM) {
		jit_mov_imm(&x->a, JR_RCX, insn->imm);
	} else {
		int v = jit_guest_in(x, gpr_of(&insn->opnd[0]), JR_RCX);
		if (v != JR_RCX)
			emit(x, MOV, jit_r(JR_RCX, 8), jit_r(v, 8));
	}
	push_rcx(x);
}

static void lower_pop(struct jit_xlate *x, const struct emu_insn *insn)
{
	pop_rax(x);
	jit_guest_out(x, gpr_of(&insn->opnd[0]), 8, JR_RAX);
}

/* The target of a jmp or call into rax, or false for a relative one. */
static bool target_to_rax(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *t = &insn->opnd[0];
	if (t->kind == EMU_OPND_IMM)
		return false;
	if (t->kind == EMU_OPND_MEM) {
		jit_address_to_rsi(x, insn);
		jit_read_at_rsi(x, 8);
		return true;
	}
	int v = jit_guest_in(x, gpr_of(t), JR_RAX);
	if (v != JR_RAX)
		emit(x, MOV, jit_r(JR_RAX, 8), jit_r(v, 8));
	return true;
}

/* A direct jmp or call leaves rip to the block's end, which stores it on
 * the way home only (a translation it chains to sets its own); an
 * indirect one stores it and leaves the target in rax for the end's
 * look-up (jit_translate.c). */
static void lower_jmp(struct jit_xlate *x, const struct emu_insn *insn)
{
	if (target_to_rax(x, insn))
		set_rip_from(x, JR_RAX);
}

/* call: the target is read first, then the return address pushed. */
static void lower_call(struct jit_xlate *x, const struct emu_insn *insn)
{
	bool indirect = target_to_rax(x, insn);
	if (indirect)
		emit(x, MOV, jit_slot(JIT_SLOT_A, 8), jit_r(JR_RAX, 8));
	jit_mov_imm(&x->a, JR_RCX, insn->addr + insn->len);
	push_rcx(x);
	if (indirect) {
		emit(x, MOV, jit_r(JR_RAX, 8), jit_slot(JIT_SLOT_A, 8));
		set_rip_from(x, JR_RAX);
	}
}

static void lower_ret(struct jit_xlate *x)
{
	pop_rax(x);
	set_rip_from(x, JR_RAX);
}

/* The host flags of the pending add, sub or logic operation this block
 * left in cpu->lazy, computed again from its operands: every condition
 * then reads them as emu_cond would. */
static void remake_host_flags(struct jit_xlate *x)
{
	unsigned size = x->lazy_size;
	switch (x->lazy_kind) {
	case EMU_LAZY_SUB:
		emit(x, MOV, jit_r(JR_RAX, 8), jit_cpu_field(JIT_LAZY_A, 8));
		emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, size), jit_cpu_field(JIT_LAZY_B, size));
		break;
	case EMU_LAZY_ADD:
		emit(x, MOV, jit_r(JR_RAX, 8), jit_cpu_field(JIT_LAZY_A, 8));
		emit(x, ZYDIS_MNEMONIC_ADD, jit_r(JR_RAX, size), jit_cpu_field(JIT_LAZY_B, size));
		break;
	case EMU_LAZY_LOGIC:
		emit(x, MOV, jit_r(JR_RAX, 8), jit_cpu_field(JIT_LAZY_RES, 8));
		emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RAX, size), jit_r(JR_RAX, size));
		break;
	default:
		return;
	}
	x->flags_live = true;
}

/* Host flags for guest condition cc: the host condition to test. From
 * the flags themselves when they are live or can be remade, else from
 * emu_jit_condition (the host flags are then not the guest's). Only moves
 * may come between this and the flags' use. */
static unsigned host_condition(struct jit_xlate *x, unsigned cc)
{
	if (!x->flags_live)
		remake_host_flags(x);
	if (x->flags_live)
		return cc;
	emit(x, MOV, jit_r(JR_RDI, 8), jit_r(JIT_CPU, 8));
	emit(x, MOV, jit_r(JR_RSI, 4), jit_i(cc));
	jit_call_out(x, (const void *)emu_jit_condition);
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RAX, 4), jit_r(JR_RAX, 4));
	return JIT_CC_NZ;
}

/* cmovcc reg, reg/mem, as ops_move.c's cmov: the source is read (and may
 * fault) whatever the condition, and a 32-bit destination is
 * zero-extended either way, as the host's cmov does too. */
static void lower_cmov(struct jit_xlate *x, const struct emu_insn *insn)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	unsigned size = d->size;
	if (s->kind == EMU_OPND_MEM) {
		jit_address_to_rsi(x, insn);
		jit_read_at_rsi(x, size);
		emit(x, MOV, jit_slot(JIT_SLOT_B, 8), jit_r(JR_RAX, 8));
	}
	unsigned cc = host_condition(x, insn->op & 15);
	int src = JR_RCX;
	if (s->kind == EMU_OPND_MEM)
		emit(x, MOV, jit_r(JR_RCX, 8), jit_slot(JIT_SLOT_B, 8));
	else
		src = jit_guest_in(x, gpr_of(s), JR_RCX);
	int dst = jit_guest_in(x, gpr_of(d), JR_RDX);
	if (dst != JR_RDX)
		emit(x, MOV, jit_r(JR_RDX, 8), jit_r(dst, 8));
	emit(x, cmov_mnemonics[cc], jit_r(JR_RDX, size), jit_r(src, size));
	jit_guest_out(x, gpr_of(d), size, JR_RDX);
}

/* setcc reg8. */
static void lower_setcc(struct jit_xlate *x, const struct emu_insn *insn)
{
	unsigned cc = host_condition(x, insn->op & 15);
	emit(x, setcc_mnemonics[cc], jit_r(JR_RDX, 1), jit_none());
	jit_guest_out(x, gpr_of(&insn->opnd[0]), 1, JR_RDX);
}

/* The condition only: the block's end (jit_translate.c) branches on it,
 * each way storing its own rip and going on to its own successor. */
static void lower_jcc(struct jit_xlate *x, const struct emu_insn *insn)
{
	x->end_cc = (uint8_t)host_condition(x, (unsigned)emu_jcc_condition(insn));
	x->end_jcc = true;
}

void jit_lower(struct jit_xlate *x, const struct emu_insn *insn)
{
	switch (lowering_of(insn)) {
	case LOWER_MOVE: lower_move(x, insn); break;
	case LOWER_ALU: lower_alu(x, insn); break;
	case LOWER_CARRY: lower_carry(x, insn); break;
	case LOWER_SHIFT: lower_shift(x, insn); break;
	case LOWER_UNARY: lower_unary(x, insn); break;
	case LOWER_STEP: lower_step(x, insn); break;
	case LOWER_EXTEND: lower_extend(x, insn); break;
	case LOWER_MULTIPLY: lower_multiply(x, insn); break;
	case LOWER_CMOV: lower_cmov(x, insn); break;
	case LOWER_SETCC: lower_setcc(x, insn); break;
	case LOWER_PUSH: lower_push(x, insn); break;
	case LOWER_POP: lower_pop(x, insn); break;
	case LOWER_CALL: lower_call(x, insn); break;
	case LOWER_RET: lower_ret(x); break;
	case LOWER_JMP: lower_jmp(x, insn); break;
	case LOWER_JCC: lower_jcc(x, insn); break;
	case LOWER_NOTHING: break;
	case LOWER_NONE:
		if (jit_vector_move_lowerable(x->cpu, insn))
			jit_lower_vector_move(x, insn);
		else if (jit_shift_count_lowerable(insn))
			jit_lower_shift_count(x, insn);
		else if (jit_bit_count_lowerable(insn))
			jit_lower_bit_count(x, insn);
		else if (jit_rotate_lowerable(insn))
			lower_shift(x, insn);
		else if (jit_divide_lowerable(insn))
			jit_lower_divide(x, insn);
		else
			x->a.failed = true;
		break;
	}
}
