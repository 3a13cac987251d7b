/*
 * jit_lower_vector.c — the SSE moves between an XMM register and memory
 * (movd, movq, movss, movsd, and the whole-register movdqa, movdqu,
 * movaps, movups, movapd, movupd, movntdq, movntps, movntpd; legacy
 * encodings only) made by the inline memory path (jit_inline_memory.c)
 * when it completes them, and by the instruction's handler otherwise.
 *
 * The inline path changes nothing before it knows it completes, so its
 * every miss can hand the whole instruction to the handler, which makes
 * the access the interpreter makes. A 16-byte read is one request of the
 * memory (one prediction-cache read: every entry matches, one hit), as
 * the handler's buffer read is; a 16-byte write leaves the same bytes,
 * dirty bits and cache lanes as the handler's one write. The aligned
 * moves are made inline at an address aligned to 16 (two whole cache
 * entries, no alignment fault to raise; a write as two 8-byte ones, the
 * second completing whenever the first did); movdqu, movups and movupd
 * at any address whose 16 bytes lie in one page (jit_inline_memory.c's
 * JIT_INLINE_16_ANY: up to three entries, joined by shifts). An access
 * crossing a page is the handler's.
 *
 * The translator asks here about every SSE instruction: the rest of them
 * that have a host-code form are jit_lower_sse.c's.
 */
#include <Zydis/Zydis.h>

#include "jit_xlate.h"

#define MOV ZYDIS_MNEMONIC_MOV

static void emit(struct jit_xlate *x, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(&x->a, mn, a, b);
}

static bool whole_register_move(unsigned mnemonic)
{
	switch (mnemonic) {
	case ZYDIS_MNEMONIC_MOVDQA: case ZYDIS_MNEMONIC_MOVDQU:
	case ZYDIS_MNEMONIC_MOVAPS: case ZYDIS_MNEMONIC_MOVUPS:
	case ZYDIS_MNEMONIC_MOVAPD: case ZYDIS_MNEMONIC_MOVUPD:
	case ZYDIS_MNEMONIC_MOVNTDQ: case ZYDIS_MNEMONIC_MOVNTPS: case ZYDIS_MNEMONIC_MOVNTPD:
		return true;
	default:
		return false;
	}
}

/* movd/movq/movss/movsd: the low 4 or 8 bytes; a load zeroes the rest
 * of the XMM register. */
static bool low_element_move(unsigned mnemonic)
{
	return mnemonic == ZYDIS_MNEMONIC_MOVD || mnemonic == ZYDIS_MNEMONIC_MOVQ ||
	       mnemonic == ZYDIS_MNEMONIC_MOVSS || mnemonic == ZYDIS_MNEMONIC_MOVSD;
}

/* The bytes the move takes to or from memory, or 0 when it is not one
 * of this file's forms. */
static unsigned vector_move_size(const struct emu_insn *insn)
{
	if (insn->nopnd != 2 || (insn->attr & (EMU_ATTR_VEX | EMU_ATTR_EVEX)))
		return 0;
	const struct emu_operand *a = &insn->opnd[0], *b = &insn->opnd[1];
	const struct emu_operand *mem = a->kind == EMU_OPND_MEM ? a : b;
	const struct emu_operand *reg = a->kind == EMU_OPND_MEM ? b : a;
	if (mem->kind != EMU_OPND_MEM || reg->kind != EMU_OPND_VEC)
		return 0;
	if (whole_register_move(insn->mnemonic))
		return insn->vl == 16 && mem->size == 16 ? 16 : 0;
	if (low_element_move(insn->mnemonic))
		return mem->size == 4 || mem->size == 8 ? mem->size : 0;
	return 0;
}

/* The whole-register moves that take any address (the others fault on
 * one not aligned to 16). */
static bool unaligned_move(unsigned mnemonic)
{
	return mnemonic == ZYDIS_MNEMONIC_MOVDQU || mnemonic == ZYDIS_MNEMONIC_MOVUPS ||
	       mnemonic == ZYDIS_MNEMONIC_MOVUPD;
}

bool jit_vector_move_lowerable(const struct emu_cpu *cpu, const struct emu_insn *insn)
{
	const struct emu_memory_ops *ops = cpu->mem;
	if (vector_move_size(insn) == 0)
		return jit_sse_lowerable(cpu, insn);
	return jit_inline_memory_usable(cpu) && ops->read_uint_sized[3] && ops->write_uint_sized[3];
}

/* Byte offset of XMM register n's bytes from `at` on. */
static int64_t xmm(const struct emu_insn *insn, unsigned i, int64_t at)
{
	return (int64_t)offsetof(struct emu_cpu, regs.zmm) +
	       (int64_t)sizeof(emu_vec) * (insn->opnd[i].reg & 31) + at;
}

/* A load's hit: rax (and r11, the upper half of 16 bytes) into the
 * register, the rest of its low 16 bytes zeroed. */
static void load_hit(struct jit_xlate *x, const struct emu_insn *insn, unsigned size)
{
	emit(x, MOV, jit_cpu_field(xmm(insn, 0, 0), 8), jit_r(JR_RAX, 8)); /* 4 bytes: zero-extended */
	if (size == 16)
		emit(x, MOV, jit_cpu_field(xmm(insn, 0, 8), 8), jit_r(JR_R11, 8));
	else
		emit(x, MOV, jit_cpu_field(xmm(insn, 0, 8), 8), jit_i(0));
}

/* A store: the register's bytes at rsi, 16 as two halves (rsi then
 * 8 past the first); returns the hit's jump to be bound. */
static size_t store(struct jit_xlate *x, const struct emu_insn *insn, unsigned size)
{
	unsigned half = size == 16 ? 8 : size;
	emit(x, MOV, jit_r(JR_RCX, half), jit_cpu_field(xmm(insn, 1, 0), half));
	size_t hit = jit_inline_write(x, half);
	if (size != 16)
		return hit;
	/* The first half's hit goes on to the second. */
	jit_bind(&x->a, hit);
	emit(x, MOV, jit_r(JR_RCX, 8), jit_cpu_field(xmm(insn, 1, 8), 8));
	emit(x, ZYDIS_MNEMONIC_ADD, jit_r(JR_RSI, 8), jit_i(8));
	return jit_inline_write(x, 8);
}

void jit_lower_vector_move(struct jit_xlate *x, const struct emu_insn *insn)
{
	unsigned size = vector_move_size(insn);
	if (size == 0) {
		jit_lower_sse(x, insn);
		return;
	}
	bool load = insn->opnd[0].kind == EMU_OPND_VEC;
	bool any_address = size == 16 && unaligned_move(insn->mnemonic);
	jit_address_to_rsi(x, insn);
	x->flags_live = false;
	x->wrote = !load;
	/* 16 bytes: at an address aligned to 16 the aligned sequence (an
	 * 8-byte write's checks pass for both halves); at another, that of
	 * any address for the unaligned moves, the handler for the rest. */
	size_t odd = 0, hit = 0, hit_store16 = 0, hit_any = 0;
	bool test_aligned = size == 16 && (any_address || !load); /* (an aligned load's own) */
	if (test_aligned) {
		emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RSI, 4), jit_i(15));
		odd = jit_jcc_forward(&x->a, JIT_CC_NZ);
	}
	if (load)
		hit = jit_inline_read(x, size);
	else if (size == 16)
		hit_store16 = store(x, insn, size); /* rsi 8 past the start */
	else
		hit = store(x, insn, size);
	if (any_address) {
		size_t aligned_miss = jit_jmp_forward(&x->a);
		jit_bind(&x->a, odd);
		if (!load)
			emit(x, ZYDIS_MNEMONIC_MOVDQU, jit_x(0), jit_cpu_field(xmm(insn, 1, 0), 16));
		hit_any = load ? jit_inline_read(x, JIT_INLINE_16_ANY)
			       : jit_inline_write(x, JIT_INLINE_16_ANY);
		jit_bind(&x->a, aligned_miss);
	} else if (test_aligned) {
		jit_bind(&x->a, odd);
	}
	/* Every miss: the handler makes the whole access. */
	jit_handler_fallback(x);
	if (!load) /* its own write was checked against the block */
		emit(x, MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_i(EMU_OK));
	size_t done = jit_jmp_forward(&x->a);
	if (!load && size == 16) {
		jit_bind(&x->a, hit_store16);
		emit(x, ZYDIS_MNEMONIC_SUB, jit_r(JR_RSI, 8), jit_i(8));
	} else {
		jit_bind(&x->a, hit);
	}
	if (any_address)
		jit_bind(&x->a, hit_any);
	if (load)
		load_hit(x, insn, size);
	else if (!jit_inline_writes_miss_code(x))
		jit_note_write(x, size);
	jit_bind(&x->a, done);
}
