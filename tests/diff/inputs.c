/*
 * inputs.c — the machine states a case starts from.
 *
 * Integer registers and memory get edge values of every width (0, 1, -1,
 * the signed limits) mixed with seeded random ones; vector registers and
 * the x87 stack get float-shaped values (zeros, denormals, infinities, quiet
 * and signalling NaNs, normals); flags, MXCSR and the x87 control word are
 * random. Then the form's constraints are applied: registers used as
 * addresses point into the scratch, rsp points to its stack, rep counts are
 * small, and branch targets (registers, memory, return addresses) are the
 * stub's exits. Everything derives from the seed: a run is reproducible.
 */
#include <string.h>

#include "emulator/emu.h"
#include "diff.h"

/* --- generator ------------------------------------------------------------ */

void diff_rng_seed(struct diff_rng *r, uint64_t seed)
{
	r->s = seed * 0x9e3779b97f4a7c15ull + 0x632be59bd9b4e019ull;
	if (!r->s)
		r->s = 1;
}

/* xorshift64*: small, fast, good enough to pick test values. */
uint64_t diff_rng_next(struct diff_rng *r)
{
	uint64_t x = r->s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * 0x2545f4914f6cdd1dull;
}

/* --- integer values ---------------------------------------------------------- */

static const uint64_t integer_edges[] = {
	0, 1, 2, 0x1f, 0x20, 0x3f, 0x40, 0x7f, 0x80, 0xff, 0x100,
	0x7fff, 0x8000, 0xffff, 0x7fffffff, 0x80000000, 0xffffffff,
	0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~1ull,
};
#define EDGE_COUNT (sizeof(integer_edges) / sizeof(integer_edges[0]))

static uint64_t width_mask(unsigned bytes)
{
	return bytes >= 8 ? ~0ull : (1ull << (bytes * 8)) - 1;
}

/* An edge value of a random width w: the low w bytes are an edge (or its
 * negation), the rest random or a sign/zero extension. */
static uint64_t integer_value(struct diff_rng *r)
{
	static const unsigned widths[] = { 1, 2, 4, 8 };
	unsigned w = widths[diff_rng_below(r, 4)];
	uint64_t m = width_mask(w);
	uint64_t edge = integer_edges[diff_rng_below(r, EDGE_COUNT)];
	uint64_t rnd = diff_rng_next(r);
	switch (diff_rng_below(r, 8)) {
	case 0: return edge;
	case 1: return (rnd & ~m) | (edge & m);
	case 2: return (rnd & ~m) | (-edge & m);
	case 3: return diff_rng_below(r, 72);             /* shift and bit counts */
	case 4: return (uint64_t)-(int64_t)diff_rng_below(r, 72);
	case 5: return (rnd & ~(m << 8)) | ((edge & m) << 8); /* ah..bh */
	case 6: { unsigned s = 64 - 8 * w; return (uint64_t)((int64_t)(rnd << s) >> s); }
	default: return rnd;
	}
}

uint64_t diff_make_imm(struct diff_rng *r, unsigned bytes)
{
	if (bytes == 0 || bytes >= 8)
		return integer_value(r);
	unsigned shift = 64 - 8 * bytes;
	return (uint64_t)((int64_t)(integer_value(r) << shift) >> shift);
}

/* --- float values ------------------------------------------------------------- */

static uint64_t float_bits(struct diff_rng *r, unsigned exp_bits, unsigned frac_bits)
{
	uint64_t frac_mask = (1ull << frac_bits) - 1, exp_max = (1ull << exp_bits) - 1;
	uint64_t sign = diff_rng_below(r, 2), exp, frac = diff_rng_next(r) & frac_mask;
	uint64_t quiet = 1ull << (frac_bits - 1);
	switch (diff_rng_below(r, 10)) {
	case 0: exp = 0; frac = 0; break;                      /* zero */
	case 1: exp = 0; frac = frac ? frac : 1; break;        /* denormal */
	case 2: exp = exp_max; frac = 0; break;                /* infinity */
	case 3: exp = exp_max; frac |= quiet; break;           /* quiet NaN */
	case 4: exp = exp_max; frac &= ~quiet; frac = frac ? frac : 1; break; /* signalling */
	case 5: exp = exp_max >> 1; frac = 0; break;           /* +-1.0 */
	case 6: exp = diff_rng_below(r, 2) ? 1 : exp_max - 1; break; /* extremes */
	case 7: exp = (exp_max >> 1) + diff_rng_below(r, 64); break;  /* integers */
	default: exp = 1 + diff_rng_below(r, exp_max - 1); break;
	}
	return (sign << (exp_bits + frac_bits)) | (exp << frac_bits) | frac;
}

/* One vector register: float32 lanes, float64 lanes or integers. */
static void vector_value(struct diff_rng *r, uint8_t *v, size_t bytes)
{
	unsigned shape = (unsigned)diff_rng_below(r, 3);
	for (size_t i = 0; i < bytes; i += 8) {
		uint64_t q;
		if (shape == 0)
			q = float_bits(r, 8, 23) | float_bits(r, 8, 23) << 32;
		else if (shape == 1)
			q = float_bits(r, 11, 52);
		else
			q = integer_value(r);
		memcpy(v + i, &q, 8);
	}
}

/* An 80-bit extended value: the float shapes above plus the encodings only
 * this format has (explicit integer bit: pseudo-denormals, unnormals). */
static void x87_value(struct diff_rng *r, uint8_t v[10])
{
	uint64_t mant = diff_rng_next(r) | (1ull << 63);
	uint16_t se = (uint16_t)(diff_rng_below(r, 2) << 15);
	switch (diff_rng_below(r, 10)) {
	case 0: mant = 0; break;                               /* zero */
	case 1: mant >>= 1 + diff_rng_below(r, 62); break;     /* denormal */
	case 2: break;                                         /* pseudo-denormal */
	case 3: se |= 0x7fff; mant = 1ull << 63; break;        /* infinity */
	case 4: se |= 0x7fff; mant |= 1ull << 62; break;       /* quiet NaN */
	case 5: se |= 0x7fff; mant &= ~(1ull << 62); mant |= 1; break; /* signalling */
	case 6: se |= (uint16_t)(1 + diff_rng_below(r, 0x7ffe)); mant &= ~(1ull << 63); break; /* unnormal */
	case 7: se |= (uint16_t)(0x3fff + diff_rng_below(r, 64)); break;
	default: se |= (uint16_t)(1 + diff_rng_below(r, 0x7ffe)); break;
	}
	memcpy(v, &mant, 8);
	memcpy(v + 8, &se, 2);
}

unsigned diff_x87_tag_of(const uint8_t v[10])
{
	uint64_t mant;
	uint16_t se;
	memcpy(&mant, v, 8);
	memcpy(&se, v + 8, 2);
	unsigned exp = se & 0x7fff;
	if (exp == 0x7fff)
		return 2;
	if (exp == 0)
		return mant ? 2 : 1;
	return (mant >> 63) ? 0 : 2;
}

static void x87_state(struct diff_rng *r, struct diff_x87 *x)
{
	static const uint16_t precisions[] = { 0x000, 0x200, 0x300 };
	x->fcw = (uint16_t)(0x40 | 0x3f | precisions[diff_rng_below(r, 3)] |
			    (diff_rng_below(r, 4) << 10));
	if (diff_rng_below(r, 16) == 0)
		x->fcw = (uint16_t)((x->fcw & ~0x3f) | diff_rng_below(r, 64));
	/* TOP, condition codes, and exception flags only where masked (an
	 * unmasked pending flag would fault at the next x87 instruction). */
	x->fsw = (uint16_t)((diff_rng_next(r) & 0x4700) | (diff_rng_below(r, 8) << 11) |
			    (diff_rng_next(r) & x->fcw & 0x3f));
	x->ftw = 0;
	for (unsigned i = 0; i < 8; i++) {
		x87_value(r, x->reg[i]);
		unsigned tag = diff_rng_below(r, 4) == 0 ? 3 : diff_x87_tag_of(x->reg[i]);
		x->ftw |= (uint16_t)(tag << (2 * i));
	}
}

static uint32_t mxcsr_value(struct diff_rng *r)
{
	uint32_t v = 0x1f80;
	v |= (uint32_t)diff_rng_below(r, 4) << 13;   /* rounding */
	v |= (uint32_t)(diff_rng_below(r, 2) << 6);  /* DAZ */
	v |= (uint32_t)(diff_rng_below(r, 2) << 15); /* FTZ */
	v |= (uint32_t)(diff_rng_next(r) & 0x3f);    /* sticky status flags */
	if (diff_rng_below(r, 8) == 0)
		v &= ~(uint32_t)(diff_rng_next(r) & 0x1f80); /* some exceptions unmasked */
	return v;
}

/* --- constraints of the form ------------------------------------------------ */

static uint64_t scratch_address(const struct diff_machine *m, uint64_t offset)
{
	return (uint64_t)(uintptr_t)m->scratch + offset;
}

/* Address of the explicit memory operand, from the form's own decoding. */
static bool operand_address(const struct diff_form *f, const struct diff_machine *m,
			    const struct diff_state *s, uint64_t *addr)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, f->bytes, f->len, &zi, ops)))
		return false;
	for (unsigned i = 0; i < zi.operand_count_visible; i++) {
		const ZydisDecodedOperand *o = &ops[i];
		if (o->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		uint64_t a = (uint64_t)o->mem.disp.value;
		if (o->mem.base == ZYDIS_REGISTER_RIP)
			a += m->insn_addr + f->len;
		else if (o->mem.base != ZYDIS_REGISTER_NONE)
			a += s->gpr[ZydisRegisterGetId(ZydisRegisterGetLargestEnclosing(
				ZYDIS_MACHINE_MODE_LONG_64, o->mem.base))];
		if (o->mem.index != ZYDIS_REGISTER_NONE)
			a += s->gpr[ZydisRegisterGetId(ZydisRegisterGetLargestEnclosing(
				ZYDIS_MACHINE_MODE_LONG_64, o->mem.index))] * o->mem.scale;
		if (zi.address_width == 32)
			a = (uint32_t)a;
		*addr = a;
		return true;
	}
	return false;
}

/* Writes `size` bytes of v into the case's initial memory at addr, if the
 * whole write lies in the scratch. */
static void plant(struct diff_machine *m, uint64_t addr, uint64_t v, size_t size)
{
	uint64_t base = scratch_address(m, 0);
	if (addr >= base && addr + size <= base + DIFF_SCRATCH_SIZE)
		memcpy(m->initial_memory + (addr - base), &v, size);
}

/* Branch targets: one of the stub's two exits, far ones with the user code
 * selector. */
static void plant_branch_target(struct diff_rng *r, const struct diff_form *f,
				struct diff_machine *m, struct diff_state *s)
{
	uint64_t target = diff_rng_below(r, 4) ? m->exit_branch : m->exit_fallthrough;
	const uint16_t user_cs = 0x33;
	uint64_t addr;
	switch (f->branch) {
	case DIFF_BRANCH_REG:
		s->gpr[f->branch_reg] = target;
		break;
	case DIFF_BRANCH_MEM:
		if (!operand_address(f, m, s, &addr))
			break;
		if (f->branch_mem_size == 6) {
			plant(m, addr, target, 4);
			plant(m, addr + 4, user_cs, 2);
		} else {
			plant(m, addr, target, 8);
			if (f->branch_mem_size == 10)
				plant(m, addr + 8, user_cs, 2);
		}
		break;
	case DIFF_BRANCH_RETURN:
		if (f->far_return) {
			/* Offset and selector, each of the operand width. */
			plant(m, s->gpr[DIFF_RSP], target, f->far_return);
			plant(m, s->gpr[DIFF_RSP] + f->far_return, user_cs, f->far_return);
		} else {
			plant(m, s->gpr[DIFF_RSP], target, 8);
		}
		break;
	default:
		break;
	}
}

/* Makes the explicit memory operand's base point where the CPU faults: the
 * guard page after the scratch (#PF) or a non-canonical address (#GP). */
static void make_fault(struct diff_rng *r, const struct diff_form *f,
		       const struct diff_machine *m, struct diff_state *s)
{
	uint64_t disp = 0;
	if (f->fault_base < 0)
		return;
	/* Undo the displacement so the access starts in the guard page. */
	if (f->addressing == DIFF_ADDR_BASE || f->addressing == DIFF_ADDR_BASE32)
		disp = 0x10;
	else if (f->addressing == DIFF_ADDR_BASE_INDEX)
		disp = (uint64_t)-0x20 + s->gpr[DIFF_RSI] * 4;
	if (f->addr32 || diff_rng_below(r, 2))
		s->gpr[f->fault_base] = (uint64_t)(uintptr_t)m->guard_after - disp +
					diff_rng_below(r, 16);
	else
		s->gpr[f->fault_base] = 0x8000000000000000ull + diff_rng_below(r, 4096);
}

/* Scratch contents: random bytes, new for every case where memory operands
 * and the stack point (edge and float values there), drawn once elsewhere. */
static void fill_memory(struct diff_rng *r, struct diff_machine *m)
{
	static bool filled;
	uint8_t *mem = m->initial_memory;
	for (size_t i = filled ? DIFF_STACK_TOP - 512 : 0; i < DIFF_SCRATCH_SIZE; i += 8) {
		uint64_t v = diff_rng_next(r);
		memcpy(mem + i, &v, 8);
	}
	filled = true;
	for (size_t i = DIFF_DATA_OFFSET - 256; i < DIFF_DATA_OFFSET + 0x900; i += 8) {
		uint64_t v = integer_value(r);
		if (diff_rng_below(r, 3) == 0)
			vector_value(r, (uint8_t *)&v, 8);
		memcpy(mem + i, &v, 8);
	}
}

void diff_make_input(struct diff_rng *r, const struct diff_form *f,
		     struct diff_machine *m, struct diff_state *in, bool fault)
{
	memset(in, 0, sizeof(*in));
	fill_memory(r, m);
	for (unsigned i = 0; i < DIFF_GPRS; i++) {
		in->gpr[i] = integer_value(r);
		/* Some registers hold pointers, for memory accesses nothing
		 * describes (enter's outer frames, for one). */
		if (diff_rng_below(r, 8) == 0)
			in->gpr[i] = scratch_address(m, DIFF_DATA_OFFSET + diff_rng_below(r, 256));
	}
	in->rflags = 0x202 | (diff_rng_next(r) & (EMU_STATUS_FLAGS | EMU_DF | EMU_ID));
	in->rip = m->insn_addr;
	in->mxcsr = mxcsr_value(r);
	for (unsigned i = 0; i < DIFF_VECS; i++)
		vector_value(r, in->vec[i], DIFF_VEC_BYTES);
	x87_state(r, &in->x87);

	in->gpr[DIFF_RSP] = scratch_address(m, DIFF_STACK_TOP - 8 * diff_rng_below(r, 8));
	uint64_t high = f->addr32 ? diff_rng_next(r) << 32 : 0;
	for (unsigned i = 0; i < DIFF_GPRS; i++) {
		if (f->index_regs & (1u << i))
			in->gpr[i] = high | diff_rng_below(r, 8);
		if (f->base_regs & (1u << i)) {
			/* Mostly 16-byte aligned (movaps and friends fault
			 * otherwise), sometimes not. */
			uint64_t off = diff_rng_below(r, 4) ? 16 * diff_rng_below(r, 4)
							    : diff_rng_below(r, 64);
			uint64_t a = scratch_address(m, DIFF_DATA_OFFSET + off);
			in->gpr[i] = f->addr32 ? high | (uint32_t)a : a;
		}
	}
	if (f->rep)
		in->gpr[DIFF_RCX] = high | diff_rng_below(r, 9);
	/* A vector index: small signed elements, read as dwords or qwords. */
	if (f->vsib_index >= 0 && f->vsib_index < DIFF_VECS)
		for (unsigned i = 0; i < DIFF_VEC_BYTES; i += 8) {
			uint64_t q = (uint64_t)((int64_t)diff_rng_below(r, 32) - 16);
			memcpy(in->vec[f->vsib_index] + i, &q, 8);
		}
	/* A popf must not set TF: the trap after it would stop the native run
	 * at the stub's exit, which the harness cannot compare. */
	uint64_t top = in->gpr[DIFF_RSP] - (uint64_t)(uintptr_t)m->scratch;
	if (top + 8 <= DIFF_SCRATCH_SIZE)
		m->initial_memory[top + 1] &= (uint8_t)~(EMU_TF >> 8);
	if (fault)
		make_fault(r, f, m, in);
	else
		plant_branch_target(r, f, m, in);
}
