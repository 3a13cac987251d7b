/*
 * jit_lower_sse.c — SSE instructions on XMM registers (legacy encodings)
 * as the host's own instruction on the guest's register file:
 *
 *  - floating-point arithmetic (add sub mul div min max sqrt; scalar and
 *    packed; single and double) of a register or memory source, the
 *    compares cmpss/sd/ps/pd (predicates 0..7) and comiss/sd, ucomiss/sd
 *    (their ZF PF CF stored as the handler's emu_set_status_flags), and
 *    the scalar conversions cvtsi2ss/sd, cvt(t)ss2si/sd2si,
 *    cvtss2sd/cvtsd2ss;
 *  - integer and bitwise operations of a register or memory source
 *    (SSE2's adds, subtracts, compares, unpacks, min/max of bytes,
 *    pshufd, and SSSE3's palignr where the host has it), pmovmskb,
 *    moves between XMM registers, and movd/movq between an XMM and a
 *    general register, which MXCSR does not affect.
 *
 * The floating-point ones run with the guest's MXCSR itself in the host's
 * (the host's own kept in a slot and put back after). When the guest
 * masks every exception, the host instruction computes what the
 * handler's element operations compute (mxcsr_exec.h runs the same host
 * operations under the same rounding, DAZ and FTZ; a packed operation is
 * its elements' scalar ones), and the flags it raises are ORed into the
 * guest's MXCSR by storing the host's back, as the handler ORs them. An
 * unmasked exception changes what the instruction does (#XM with nothing
 * written, underflow on exact tiny results), so with any unmasked the
 * handler runs the instruction: that is found before any access, and the
 * handler also makes every access the memory source's inline read misses
 * (a packed source not aligned to 16 among them: the handler's #GP).
 */
#include <Zydis/Zydis.h>

#include "jit_xlate.h"
#include "mxcsr_exec.h"

#define MOVDQU ZYDIS_MNEMONIC_MOVDQU

enum sse_form {
	SSE_NONE,
	SSE_FP,        /* xmm = xmm op xmm/mem, under MXCSR */
	SSE_INT_TO_FP, /* cvtsi2ss/sd xmm, r/m32/64, under MXCSR */
	SSE_FP_TO_INT, /* cvt(t)ss2si/sd2si r32/64, xmm/mem, under MXCSR */
	SSE_FP_FLAGS,  /* (u)comiss/sd xmm, xmm/mem: ZF PF CF, under MXCSR */
	SSE_INTEGER,   /* xmm = xmm op xmm/mem (op imm8 for some) */
	SSE_MASK,      /* pmovmskb r32/64, xmm */
	SSE_COPY,      /* xmm = xmm, 16 bytes */
	SSE_COPY_LOW,  /* movq xmm, xmm: the low 8 bytes, the next 8 zeroed */
	SSE_FROM_GPR,  /* movd/movq xmm, r32/64: zero-extended to 16 bytes */
	SSE_TO_GPR,    /* movd/movq r32/64, xmm */
};

static enum sse_form form_of_mnemonic(unsigned mnemonic)
{
	switch (mnemonic) {
	case ZYDIS_MNEMONIC_ADDSS: case ZYDIS_MNEMONIC_ADDSD:
	case ZYDIS_MNEMONIC_ADDPS: case ZYDIS_MNEMONIC_ADDPD:
	case ZYDIS_MNEMONIC_SUBSS: case ZYDIS_MNEMONIC_SUBSD:
	case ZYDIS_MNEMONIC_SUBPS: case ZYDIS_MNEMONIC_SUBPD:
	case ZYDIS_MNEMONIC_MULSS: case ZYDIS_MNEMONIC_MULSD:
	case ZYDIS_MNEMONIC_MULPS: case ZYDIS_MNEMONIC_MULPD:
	case ZYDIS_MNEMONIC_DIVSS: case ZYDIS_MNEMONIC_DIVSD:
	case ZYDIS_MNEMONIC_DIVPS: case ZYDIS_MNEMONIC_DIVPD:
	case ZYDIS_MNEMONIC_MINSS: case ZYDIS_MNEMONIC_MINSD:
	case ZYDIS_MNEMONIC_MINPS: case ZYDIS_MNEMONIC_MINPD:
	case ZYDIS_MNEMONIC_MAXSS: case ZYDIS_MNEMONIC_MAXSD:
	case ZYDIS_MNEMONIC_MAXPS: case ZYDIS_MNEMONIC_MAXPD:
	case ZYDIS_MNEMONIC_SQRTSS: case ZYDIS_MNEMONIC_SQRTSD:
	case ZYDIS_MNEMONIC_SQRTPS: case ZYDIS_MNEMONIC_SQRTPD:
	case ZYDIS_MNEMONIC_CVTSS2SD: case ZYDIS_MNEMONIC_CVTSD2SS:
	case ZYDIS_MNEMONIC_CMPSS: case ZYDIS_MNEMONIC_CMPSD:
	case ZYDIS_MNEMONIC_CMPPS: case ZYDIS_MNEMONIC_CMPPD:
		return SSE_FP;
	case ZYDIS_MNEMONIC_CVTSI2SS: case ZYDIS_MNEMONIC_CVTSI2SD:
		return SSE_INT_TO_FP;
	case ZYDIS_MNEMONIC_CVTSS2SI: case ZYDIS_MNEMONIC_CVTSD2SI:
	case ZYDIS_MNEMONIC_CVTTSS2SI: case ZYDIS_MNEMONIC_CVTTSD2SI:
		return SSE_FP_TO_INT;
	case ZYDIS_MNEMONIC_COMISS: case ZYDIS_MNEMONIC_COMISD:
	case ZYDIS_MNEMONIC_UCOMISS: case ZYDIS_MNEMONIC_UCOMISD:
		return SSE_FP_FLAGS;
	case ZYDIS_MNEMONIC_PXOR: case ZYDIS_MNEMONIC_POR:
	case ZYDIS_MNEMONIC_PAND: case ZYDIS_MNEMONIC_PANDN:
	case ZYDIS_MNEMONIC_XORPS: case ZYDIS_MNEMONIC_XORPD:
	case ZYDIS_MNEMONIC_ANDPS: case ZYDIS_MNEMONIC_ANDPD:
	case ZYDIS_MNEMONIC_ANDNPS: case ZYDIS_MNEMONIC_ANDNPD:
	case ZYDIS_MNEMONIC_ORPS: case ZYDIS_MNEMONIC_ORPD:
	case ZYDIS_MNEMONIC_PADDB: case ZYDIS_MNEMONIC_PADDW:
	case ZYDIS_MNEMONIC_PADDD: case ZYDIS_MNEMONIC_PADDQ:
	case ZYDIS_MNEMONIC_PSUBB: case ZYDIS_MNEMONIC_PSUBW:
	case ZYDIS_MNEMONIC_PSUBD: case ZYDIS_MNEMONIC_PSUBQ:
	case ZYDIS_MNEMONIC_PCMPEQB: case ZYDIS_MNEMONIC_PCMPEQW: case ZYDIS_MNEMONIC_PCMPEQD:
	case ZYDIS_MNEMONIC_PCMPGTB: case ZYDIS_MNEMONIC_PCMPGTW: case ZYDIS_MNEMONIC_PCMPGTD:
	case ZYDIS_MNEMONIC_PMINUB: case ZYDIS_MNEMONIC_PMAXUB:
	case ZYDIS_MNEMONIC_PUNPCKLBW: case ZYDIS_MNEMONIC_PUNPCKLWD:
	case ZYDIS_MNEMONIC_PUNPCKLDQ: case ZYDIS_MNEMONIC_PUNPCKLQDQ:
	case ZYDIS_MNEMONIC_PUNPCKHBW: case ZYDIS_MNEMONIC_PUNPCKHWD:
	case ZYDIS_MNEMONIC_PUNPCKHDQ: case ZYDIS_MNEMONIC_PUNPCKHQDQ:
	case ZYDIS_MNEMONIC_PSHUFD: case ZYDIS_MNEMONIC_PALIGNR:
		return SSE_INTEGER;
	case ZYDIS_MNEMONIC_PMOVMSKB:
		return SSE_MASK;
	case ZYDIS_MNEMONIC_MOVAPS: case ZYDIS_MNEMONIC_MOVAPD:
	case ZYDIS_MNEMONIC_MOVUPS: case ZYDIS_MNEMONIC_MOVUPD:
	case ZYDIS_MNEMONIC_MOVDQA: case ZYDIS_MNEMONIC_MOVDQU:
		return SSE_COPY;
	case ZYDIS_MNEMONIC_MOVD: case ZYDIS_MNEMONIC_MOVQ:
		return SSE_COPY_LOW; /* refined by the operands */
	default:
		return SSE_NONE;
	}
}

static bool is_fp_compare(unsigned mnemonic)
{
	return mnemonic == ZYDIS_MNEMONIC_CMPSS || mnemonic == ZYDIS_MNEMONIC_CMPSD ||
	       mnemonic == ZYDIS_MNEMONIC_CMPPS || mnemonic == ZYDIS_MNEMONIC_CMPPD;
}

/* The forms with an imm8 third operand; palignr is SSSE3's, which a
 * host without it cannot run. */
static bool takes_imm8(unsigned mnemonic)
{
	return mnemonic == ZYDIS_MNEMONIC_PSHUFD || mnemonic == ZYDIS_MNEMONIC_PALIGNR ||
	       is_fp_compare(mnemonic);
}

static bool host_runs(unsigned mnemonic)
{
	return mnemonic != ZYDIS_MNEMONIC_PALIGNR || __builtin_cpu_supports("ssse3");
}

static bool is_xmm(const struct emu_operand *o)
{
	return o->kind == EMU_OPND_VEC && o->reg < 16;
}

/* The guest register number of a GPR operand (emu_operand's reg is its
 * byte offset in the register file). */
static unsigned gpr_of(const struct emu_operand *o)
{
	return o->reg / 8u;
}

static bool is_gpr(const struct emu_operand *o, bool dword_ok)
{
	return o->kind == EMU_OPND_GPR && (o->size == 8 || (dword_ok && o->size == 4));
}

/* A memory source the inline read can take for cpu's memory. */
static bool inline_source(const struct emu_cpu *cpu, const struct emu_operand *o)
{
	const struct emu_memory_ops *ops = cpu->mem;
	return o->kind == EMU_OPND_MEM && jit_inline_memory_usable(cpu) && ops->read_uint_sized[3] &&
	       (o->size == 4 || o->size == 8 || o->size == 16);
}

/* The form insn has with its operands, SSE_NONE when it is not one of
 * this file's. */
static enum sse_form form_of(const struct emu_cpu *cpu, const struct emu_insn *insn)
{
	enum sse_form f = form_of_mnemonic(insn->mnemonic);
	unsigned nopnd = takes_imm8(insn->mnemonic) ? 3 : 2;
	if (f == SSE_NONE || insn->nopnd != nopnd ||
	    (nopnd == 3 && insn->opnd[2].kind != EMU_OPND_IMM) ||
	    (insn->attr & (EMU_ATTR_VEX | EMU_ATTR_EVEX | EMU_ATTR_LOCK)) ||
	    insn->handler == emu_handler_unimplemented || insn->handler == emu_handler_undefined ||
	    !host_runs(insn->mnemonic))
		return SSE_NONE;
	/* The legacy compares' predicates are 0..7 (the handler takes the
	 * imm8's low three bits; what the host makes of the others is not
	 * asked). */
	if (is_fp_compare(insn->mnemonic) && (insn->imm & 0xff) >= 8)
		return SSE_NONE;
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	switch (f) {
	case SSE_FP: case SSE_INTEGER:
		return is_xmm(d) && (is_xmm(s) || inline_source(cpu, s)) ? f : SSE_NONE;
	case SSE_INT_TO_FP:
		return is_xmm(d) && (is_gpr(s, true) || (inline_source(cpu, s) && s->size <= 8))
		       ? f : SSE_NONE;
	case SSE_FP_TO_INT:
		return is_gpr(d, true) && (is_xmm(s) || (inline_source(cpu, s) && s->size <= 8))
		       ? f : SSE_NONE;
	case SSE_FP_FLAGS:
		return is_xmm(d) && (is_xmm(s) || (inline_source(cpu, s) && s->size <= 8))
		       ? f : SSE_NONE;
	case SSE_MASK:
		return is_gpr(d, true) && is_xmm(s) ? f : SSE_NONE;
	case SSE_COPY:
		return is_xmm(d) && is_xmm(s) ? f : SSE_NONE;
	case SSE_COPY_LOW:
		if (is_xmm(d) && is_xmm(s))
			return insn->mnemonic == ZYDIS_MNEMONIC_MOVQ ? SSE_COPY_LOW : SSE_NONE;
		if (is_xmm(d) && is_gpr(s, true))
			return SSE_FROM_GPR;
		if (is_gpr(d, true) && is_xmm(s))
			return SSE_TO_GPR;
		return SSE_NONE;
	default:
		return SSE_NONE;
	}
}

bool jit_sse_lowerable(const struct emu_cpu *cpu, const struct emu_insn *insn)
{
	return form_of(cpu, insn) != SSE_NONE;
}

static void emit(struct jit_xlate *x, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(&x->a, mn, a, b);
}

/* Guest XMM register n (its low 16 bytes, or `size` of them). */
static struct jit_opnd guest_xmm(unsigned n, unsigned size)
{
	return jit_cpu_field(JIT_XMM(n), size);
}

static struct jit_opnd guest_mxcsr(void)
{
	return jit_cpu_field(JIT_MXCSR, 4);
}

/* A jump taken when the guest's MXCSR leaves any exception unmasked,
 * or has a bit above the sixteen every SSE2 host takes (the handlers
 * never load those into the host's) (clobbers eax and the host flags). */
static size_t unless_all_masked(struct jit_xlate *x)
{
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 4), guest_mxcsr());
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i((int32_t)(0xffff0000u | EMU_MX_MASKS)));
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 4), jit_i(EMU_MX_MASKS));
	return jit_jcc_forward(&x->a, JIT_CC_NZ);
}

/* The guest's MXCSR into the host's, the host's kept. */
static void enter_guest_mxcsr(struct jit_xlate *x)
{
	emit(x, ZYDIS_MNEMONIC_STMXCSR, jit_slot(JIT_SLOT_RES, 4), jit_none());
	emit(x, ZYDIS_MNEMONIC_LDMXCSR, guest_mxcsr(), jit_none());
}

/* The host's MXCSR, with the flags raised since, back to the guest; the
 * host's own back in place. */
static void leave_guest_mxcsr(struct jit_xlate *x)
{
	emit(x, ZYDIS_MNEMONIC_STMXCSR, guest_mxcsr(), jit_none());
	emit(x, ZYDIS_MNEMONIC_LDMXCSR, jit_slot(JIT_SLOT_RES, 4), jit_none());
}

/* The inline read's value (rax, and r11 above 8 bytes) into xmm1. */
static void read_value_to_xmm1(struct jit_xlate *x, unsigned size)
{
	if (size == 4) {
		emit(x, ZYDIS_MNEMONIC_MOVD, jit_x(1), jit_r(JR_RAX, 4));
		return;
	}
	emit(x, ZYDIS_MNEMONIC_MOVQ, jit_x(1), jit_r(JR_RAX, 8));
	if (size == 16) {
		emit(x, ZYDIS_MNEMONIC_MOVQ, jit_x(2), jit_r(JR_R11, 8));
		emit(x, ZYDIS_MNEMONIC_PUNPCKLQDQ, jit_x(1), jit_x(2));
	}
}

static bool under_mxcsr(enum sse_form f)
{
	return f == SSE_FP || f == SSE_INT_TO_FP || f == SSE_FP_TO_INT || f == SSE_FP_FLAGS;
}

/* After a host (u)comiss/sd: its flags are the guest's, exactly (ZF PF
 * CF from the comparison, OF SF AF clear), stored as
 * emu_set_status_flags stores them: nothing pending. */
static void store_compare_flags(struct jit_xlate *x)
{
	emit(x, ZYDIS_MNEMONIC_PUSHFQ, jit_none(), jit_none());
	emit(x, ZYDIS_MNEMONIC_POP, jit_r(JR_RAX, 8), jit_none());
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RAX, 4), jit_i(EMU_STATUS_FLAGS));
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RCX, 8), jit_cpu_field(JIT_RFLAGS, 8));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RCX, 8), jit_i(~(int64_t)EMU_STATUS_FLAGS));
	emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RCX, 8), jit_r(JR_RAX, 8));
	emit(x, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_RFLAGS, 8), jit_r(JR_RCX, 8));
	emit(x, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_LAZY_WORD, 4), jit_i(EMU_LAZY_NONE));
	x->lazy_kind = EMU_LAZY_NONE;
}

/* Whether the result goes to a general register (rax, then the guest's). */
static bool result_to_gpr(enum sse_form f)
{
	return f == SSE_FP_TO_INT || f == SSE_MASK;
}

/* The instruction itself, its memory source's value (if any) in rax
 * and r11: dst = dst op src on the host's xmm0 and xmm1, or rax from
 * xmm1. */
static void compute(struct jit_xlate *x, const struct emu_insn *insn, enum sse_form f)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	ZydisMnemonic mn = (ZydisMnemonic)insn->mnemonic;
	struct jit_opnd src = jit_x(1);
	struct jit_opnd imm = insn->nopnd == 3 ? jit_i((int64_t)(insn->imm & 0xff)) : jit_none();
	if (f == SSE_INT_TO_FP)
		src = s->kind == EMU_OPND_MEM ? jit_r(JR_RAX, s->size)
					      : jit_r(jit_guest_in(x, gpr_of(s), JR_RCX), s->size);
	else if (s->kind == EMU_OPND_MEM)
		read_value_to_xmm1(x, s->size);
	else
		emit(x, MOVDQU, jit_x(1), guest_xmm(s->reg, 16));
	if (result_to_gpr(f)) {
		/* pmovmskb's 4 bytes zero-extend to a 64-bit destination */
		emit(x, mn, jit_r(JR_RAX, f == SSE_MASK ? 4 : d->size), src);
		return;
	}
	emit(x, MOVDQU, jit_x(0), guest_xmm(d->reg, 16));
	if (f == SSE_FP_FLAGS) {
		emit(x, mn, jit_x(0), src);
		store_compare_flags(x);
		return;
	}
	jit_op3(&x->a, mn, jit_x(0), src, imm);
	emit(x, MOVDQU, guest_xmm(d->reg, 16), jit_x(0));
}

/* A form with a memory source: the host instruction when the source is
 * at hand (and, under MXCSR, every exception is masked), else the
 * handler. */
static void lower_from_memory(struct jit_xlate *x, const struct emu_insn *insn, enum sse_form f)
{
	bool mx = under_mxcsr(f);
	size_t unmasked = mx ? unless_all_masked(x) : 0;
	jit_address_to_rsi(x, insn);
	size_t go = jit_inline_read(x, insn->opnd[1].size);
	/* a miss: the handler */
	if (mx)
		jit_bind(&x->a, unmasked);
	jit_handler_fallback(x);
	size_t done = jit_jmp_forward(&x->a);
	jit_bind(&x->a, go);
	if (mx)
		enter_guest_mxcsr(x);
	compute(x, insn, f);
	if (mx)
		leave_guest_mxcsr(x);
	if (result_to_gpr(f))
		jit_guest_out(x, gpr_of(&insn->opnd[0]), insn->opnd[0].size, JR_RAX);
	jit_bind(&x->a, done);
	x->flags_live = false;
}

/* A form with no memory operand: host code that cannot miss, fault or
 * call, and changes no host flags (under MXCSR: inside a scope). */
static void register_form(struct jit_xlate *x, const struct emu_insn *insn, enum sse_form f)
{
	const struct emu_operand *d = &insn->opnd[0], *s = &insn->opnd[1];
	switch (f) {
	case SSE_FP: case SSE_INT_TO_FP: case SSE_FP_TO_INT: case SSE_FP_FLAGS: case SSE_INTEGER:
	case SSE_MASK:
		compute(x, insn, f);
		if (result_to_gpr(f))
			jit_guest_out(x, gpr_of(d), d->size, JR_RAX);
		break;
	case SSE_COPY:
		emit(x, MOVDQU, jit_x(0), guest_xmm(s->reg, 16));
		emit(x, MOVDQU, guest_xmm(d->reg, 16), jit_x(0));
		break;
	case SSE_COPY_LOW: /* a load of 8 bytes zeroes the next 8 */
		emit(x, ZYDIS_MNEMONIC_MOVQ, jit_x(0), guest_xmm(s->reg, 8));
		emit(x, MOVDQU, guest_xmm(d->reg, 16), jit_x(0));
		break;
	case SSE_FROM_GPR: {
		int v = jit_guest_in(x, gpr_of(s), JR_RAX);
		emit(x, s->size == 8 ? ZYDIS_MNEMONIC_MOVQ : ZYDIS_MNEMONIC_MOVD, jit_x(0),
		     jit_r(v, s->size));
		emit(x, MOVDQU, guest_xmm(d->reg, 16), jit_x(0));
		break;
	}
	case SSE_TO_GPR:
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, d->size), guest_xmm(s->reg, d->size));
		jit_guest_out(x, gpr_of(d), d->size, JR_RAX);
		break;
	case SSE_NONE:
		x->a.failed = true;
		break;
	}
}

static bool has_memory_source(const struct emu_insn *insn)
{
	return insn->opnd[1].kind == EMU_OPND_MEM;
}

/*
 * A scope: a register form under MXCSR and the register forms that
 * follow it in the block, run under one load of the guest's MXCSR (its
 * store, with the flags, is the expensive part: it waits for the
 * operations). Nothing between them can leave the translation or look
 * at MXCSR. With an exception unmasked the handlers run them all, one
 * by one. The translator then asks for the others: they are made.
 */
static void lower_scope(struct jit_xlate *x)
{
	const struct emu_block *b = x->b;
	unsigned first = x->cur, end = first + 1;
	while (end < b->count && jit_sse_lowerable(x->cpu, &b->insns[end]) &&
	       !has_memory_source(&b->insns[end]))
		end++;
	x->sse_scope_end = end;
	size_t unmasked = unless_all_masked(x);
	enter_guest_mxcsr(x);
	for (unsigned i = first; i < end; i++)
		register_form(x, &b->insns[i], form_of(x->cpu, &b->insns[i]));
	leave_guest_mxcsr(x);
	size_t done = jit_jmp_forward(&x->a);
	jit_bind(&x->a, unmasked);
	for (unsigned i = first; i < end; i++) {
		x->cur = i;
		jit_handler_fallback(x);
	}
	x->cur = first;
	jit_bind(&x->a, done);
	x->flags_live = false;
}

void jit_lower_sse(struct jit_xlate *x, const struct emu_insn *insn)
{
	if (x->cur < x->sse_scope_end)
		return; /* made by its scope */
	enum sse_form f = form_of(x->cpu, insn);
	if (f != SSE_NONE && has_memory_source(insn))
		lower_from_memory(x, insn, f);
	else if (under_mxcsr(f))
		lower_scope(x);
	else
		register_form(x, insn, f);
}
