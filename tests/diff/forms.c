/*
 * forms.c — the encodings of one mnemonic the harness tests.
 *
 * Nothing here knows instruction syntax: the encoder is asked for the
 * mnemonic with every plausible operand shape (one representative register,
 * memory size or immediate width per position), and every request it
 * accepts is a signature. Each signature is then widened into forms:
 * other registers of the same class (accumulator short forms, high-byte
 * registers, REX registers), other memory addressing modes, prefixes and
 * size hints. A form is kept only when the emulator decodes it as
 * implemented, so the harness tests exactly what the emulator claims.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"
#include "diff.h"

enum opclass_kind { K_REG, K_MEM, K_IMM, K_REL };

/* One operand position's candidates in the first pass. */
struct opclass {
	uint8_t kind;
	uint8_t alt;          /* index into register_alternatives for K_REG */
	uint16_t mem_size;    /* bytes, K_MEM (0: unsized, like lea's) */
	uint64_t imm;         /* K_IMM */
	uint8_t imm_width;    /* bits, K_IMM */
};

/* Registers of one class, the first being the representative. */
static const ZydisRegister register_alternatives[][5] = {
	{ ZYDIS_REGISTER_CL, ZYDIS_REGISTER_AL, ZYDIS_REGISTER_AH, ZYDIS_REGISTER_DIL, ZYDIS_REGISTER_R9B },
	{ ZYDIS_REGISTER_CX, ZYDIS_REGISTER_AX, ZYDIS_REGISTER_R10W, ZYDIS_REGISTER_DI },
	{ ZYDIS_REGISTER_ECX, ZYDIS_REGISTER_EAX, ZYDIS_REGISTER_R11D, ZYDIS_REGISTER_EDI },
	{ ZYDIS_REGISTER_RCX, ZYDIS_REGISTER_RAX, ZYDIS_REGISTER_R12, ZYDIS_REGISTER_RDI },
	{ ZYDIS_REGISTER_XMM1, ZYDIS_REGISTER_XMM0, ZYDIS_REGISTER_XMM9, ZYDIS_REGISTER_XMM15 },
	{ ZYDIS_REGISTER_YMM2, ZYDIS_REGISTER_YMM0, ZYDIS_REGISTER_YMM10 },
	{ ZYDIS_REGISTER_MM3, ZYDIS_REGISTER_MM0, ZYDIS_REGISTER_MM7 },
	{ ZYDIS_REGISTER_ST0 },
	{ ZYDIS_REGISTER_ST1, ZYDIS_REGISTER_ST7 },
};
#define REG_CLASSES (sizeof(register_alternatives) / sizeof(register_alternatives[0]))
#define VECTOR_CLASS_FIRST 4 /* xmm onwards: vector, MMX and x87 classes */
#define YMM_CLASS 5

static size_t alternatives_count(unsigned alt)
{
	size_t n = 0;
	while (n < 5 && register_alternatives[alt][n] != ZYDIS_REGISTER_NONE)
		n++;
	return n;
}

/* Memory sizes instructions take (bytes): scalars, far pointers, vectors,
 * cache lines (clflush), x87 environments and save images. */
static const uint16_t memory_sizes[] = { 0, 1, 2, 4, 6, 8, 10, 16, 28, 32, 64, 94, 108, 512, 576 };

static const struct { uint64_t value; uint8_t width; } immediates[] = {
	{ 1, 8 }, /* shifts by one have their own opcode */
	{ 0x12, 8 }, { 0x1234, 16 }, { 0x12345678, 32 }, { 0x123456789abcull, 64 },
};

static struct opclass classes[64];
static size_t class_count;

static void build_classes(void)
{
	if (class_count)
		return;
	for (unsigned i = 0; i < REG_CLASSES; i++)
		classes[class_count++] = (struct opclass){ .kind = K_REG, .alt = (uint8_t)i };
	for (unsigned i = 0; i < sizeof(memory_sizes) / sizeof(memory_sizes[0]); i++)
		classes[class_count++] = (struct opclass){ .kind = K_MEM, .mem_size = memory_sizes[i] };
	for (unsigned i = 0; i < sizeof(immediates) / sizeof(immediates[0]); i++)
		classes[class_count++] = (struct opclass){ .kind = K_IMM,
			.imm = immediates[i].value, .imm_width = immediates[i].width };
	classes[class_count++] = (struct opclass){ .kind = K_REL };
}

/* --- memory addressing --------------------------------------------------- */

/* Where fixed-address forms (rip-relative, absolute) point: inside the data
 * half of the scratch, away from where base registers point. */
static uint64_t fixed_target(const struct diff_machine *m)
{
	return (uint64_t)(uintptr_t)m->scratch + DIFF_DATA_OFFSET + 0x800;
}

/* Fills a memory operand for an addressing mode; false if the mode cannot
 * be expressed here (scratch out of reach). */
static bool set_addressing(ZydisEncoderRequest *rq, ZydisEncoderOperand *op,
			   enum diff_addressing mode, const struct diff_machine *m,
			   bool *absolute)
{
	uint16_t size = op->mem.size;
	memset(&op->mem, 0, sizeof(op->mem));
	op->mem.size = size;
	*absolute = false;
	rq->address_size_hint = ZYDIS_ADDRESS_SIZE_HINT_NONE;
	switch (mode) {
	case DIFF_ADDR_BASE:
		op->mem.base = ZYDIS_REGISTER_RBX;
		op->mem.displacement = 0x10;
		return true;
	case DIFF_ADDR_BASE_INDEX:
		op->mem.base = ZYDIS_REGISTER_R13;
		op->mem.index = ZYDIS_REGISTER_RSI;
		op->mem.scale = 4;
		op->mem.displacement = -0x20;
		return true;
	case DIFF_ADDR_RIP:
		op->mem.base = ZYDIS_REGISTER_RIP;
		op->mem.displacement = (int64_t)fixed_target(m);
		*absolute = true;
		return fixed_target(m) < (1ull << 31);
	case DIFF_ADDR_ABSOLUTE:
		op->mem.displacement = (int64_t)fixed_target(m);
		return fixed_target(m) < (1ull << 31);
	case DIFF_ADDR_BASE32:
		op->mem.base = ZYDIS_REGISTER_EBX;
		op->mem.displacement = 0x10;
		rq->address_size_hint = ZYDIS_ADDRESS_SIZE_HINT_32;
		return (uintptr_t)m->scratch < (1ull << 31);
	default:
		return false;
	}
}

/* --- encoding and analysis ------------------------------------------------- */

static ZydisDecoder decoder;

static bool encode(ZydisEncoderRequest *rq, bool absolute, uint64_t addr,
		   uint8_t *bytes, uint8_t *len)
{
	ZyanUSize n = DIFF_MAX_INSN;
	ZyanStatus s = absolute
		? ZydisEncoderEncodeInstructionAbsolute(rq, bytes, &n, addr)
		: ZydisEncoderEncodeInstruction(rq, bytes, &n);
	if (!ZYAN_SUCCESS(s))
		return false;
	*len = (uint8_t)n;
	return true;
}

/* GPR number (0..15) of a 64/32/16/8-bit register, -1 for others. */
static int gpr_number(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_NONE)
		return -1;
	ZydisRegister full = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
	if (ZydisRegisterGetClass(full) != ZYDIS_REGCLASS_GPR64)
		return -1;
	return ZydisRegisterGetId(full);
}

static bool is_base_isa(const ZydisDecodedInstruction *zi)
{
	return zi->meta.isa_ext == ZYDIS_ISA_EXT_BASE ||
	       zi->meta.isa_ext == ZYDIS_ISA_EXT_LONGMODE;
}

/* Fills what the inputs and the comparison need to know about the form;
 * false if the form uses state the harness cannot give both runs equally
 * (segment registers, fs/gs-relative memory). */
static bool analyse(struct diff_form *f)
{
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&decoder, f->bytes, f->len, &zi, ops)) ||
	    zi.mnemonic != (ZydisMnemonic)f->mnemonic)
		return false;
	f->base_regs = f->index_regs = 0;
	f->fault_base = -1;
	f->vsib_index = -1;
	f->branch = DIFF_BRANCH_NONE;
	f->far_return = 0;
	f->addr32 = zi.address_width == 32;
	f->rep = (zi.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				   ZYDIS_ATTRIB_HAS_REPNE)) != 0;
	f->undefined_flags = zi.cpu_flags ? (uint32_t)zi.cpu_flags->undefined : 0;
	f->undefined_fpu_flags = zi.fpu_flags ? (uint32_t)zi.fpu_flags->undefined : 0;
	f->base_isa = is_base_isa(&zi);
	f->imm_offset = zi.raw.imm[0].offset;
	f->imm_size = zi.raw.imm[0].size / 8;
	for (unsigned i = 0; i < zi.operand_count; i++) {
		const ZydisDecodedOperand *o = &ops[i];
		if (o->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ZydisRegisterGetClass(o->reg.value) == ZYDIS_REGCLASS_SEGMENT &&
		    o->visibility != ZYDIS_OPERAND_VISIBILITY_HIDDEN)
			return false;
		if (o->type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (o->mem.segment == ZYDIS_REGISTER_FS || o->mem.segment == ZYDIS_REGISTER_GS)
			return false;
		int b = gpr_number(o->mem.base), x = gpr_number(o->mem.index);
		if (b >= 0 && b != DIFF_RSP)
			f->base_regs |= (uint16_t)(1u << b);
		/* An 8-bit index (xlat's al) is bounded anyway. */
		if (x >= 0 && ZydisRegisterGetClass(o->mem.index) != ZYDIS_REGCLASS_GPR8)
			f->index_regs |= (uint16_t)(1u << x);
		if (o->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT && b >= 0 &&
		    b != DIFF_RSP)
			f->fault_base = b;
		/* A gather that faults has already changed its mask and
		 * destination (it is restartable, not fault-free), which the
		 * comparison of faulting cases does not model: its faults are
		 * tested by tests/unit/test_emu_gather.c. */
		if (o->mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
			f->vsib_index = ZydisRegisterGetId(o->mem.index);
			f->fault_base = -1;
		}
	}
	switch (zi.meta.category) {
	case ZYDIS_CATEGORY_COND_BR: case ZYDIS_CATEGORY_UNCOND_BR: case ZYDIS_CATEGORY_CALL:
		if (ops[0].type == ZYDIS_OPERAND_TYPE_IMMEDIATE && ops[0].imm.is_relative) {
			/* Only branches to the stub's branch exit can run. */
			if (ops[0].imm.value.s != DIFF_EXIT_SIZE)
				return false;
			f->branch = DIFF_BRANCH_RELATIVE;
		} else if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER) {
			f->branch = DIFF_BRANCH_REG;
			f->branch_reg = gpr_number(ops[0].reg.value);
			if (f->branch_reg < 0)
				return false;
		} else if (ops[0].type == ZYDIS_OPERAND_TYPE_MEMORY) {
			f->branch = DIFF_BRANCH_MEM;
			f->branch_mem_size = (uint8_t)(ops[0].size / 8);
		} else {
			return false; /* far pointer immediates do not exist in 64-bit mode */
		}
		break;
	case ZYDIS_CATEGORY_RET:
		f->branch = DIFF_BRANCH_RETURN;
		if (zi.meta.branch_type == ZYDIS_BRANCH_TYPE_FAR)
			f->far_return = (uint8_t)(zi.operand_width / 8);
		break;
	default:
		break;
	}
	return true;
}

/* --- the list ---------------------------------------------------------- */

/* Same bytes apart from the immediate: the same form, since every case
 * gets an immediate of its own. */
static bool already_listed(const struct diff_form_list *l, const struct diff_form *f)
{
	for (size_t i = 0; i < l->count; i++) {
		const struct diff_form *g = &l->forms[i];
		if (g->len != f->len || g->imm_offset != f->imm_offset || g->imm_size != f->imm_size)
			continue;
		size_t imm_end = (size_t)f->imm_offset + f->imm_size;
		if (!memcmp(g->bytes, f->bytes, f->imm_offset) &&
		    !memcmp(g->bytes + imm_end, f->bytes + imm_end, f->len - imm_end))
			return true;
	}
	return false;
}

/* Encodes the request; adds the form if it is new, decodes as the same
 * mnemonic and the emulator implements it. */
static bool try_add(struct diff_form_list *l, ZydisEncoderRequest *rq, bool absolute,
		    enum diff_addressing mode, int imm_operand, uint8_t imm_width,
		    const struct diff_machine *m)
{
	struct diff_form f;
	memset(&f, 0, sizeof(f));
	if (!encode(rq, absolute, m->insn_addr, f.bytes, &f.len))
		return false;
	if (!emu_implements(f.bytes, f.len))
		return false;
	f.mnemonic = rq->mnemonic;
	f.request = *rq;
	f.absolute = absolute;
	f.addressing = mode;
	f.imm_operand = imm_operand;
	f.imm_width = imm_width;
	f.kind = diff_expected_special(rq->mnemonic) ? DIFF_FORM_SPECIAL : DIFF_FORM_COMPARE;
	if (!analyse(&f) || already_listed(l, &f))
		return false;
	if (f.imm_operand >= 0 && f.imm_size == 0)
		f.imm_operand = -1;
	if (l->count == l->capacity) {
		size_t cap = l->capacity ? l->capacity * 2 : 32;
		struct diff_form *n = realloc(l->forms, cap * sizeof(*n));
		if (!n) {
			fprintf(stderr, "diff: out of memory\n");
			exit(2);
		}
		l->forms = n;
		l->capacity = cap;
	}
	l->forms[l->count++] = f;
	return true;
}

/* --- first pass: signatures ------------------------------------------------ */

struct signature {
	uint8_t cls[ZYDIS_ENCODER_MAX_OPERANDS];
	uint8_t count;
	uint8_t vsib; /* the memory operand's vector index: VSIB_* */
};

/* Gathers address memory with a vector index (VSIB); a register that no
 * other operand's alternatives use, a low and a REX one. */
enum { VSIB_NONE, VSIB_XMM, VSIB_YMM };
static const ZydisRegister vsib_index[][2] = {
	[VSIB_XMM] = { ZYDIS_REGISTER_XMM4, ZYDIS_REGISTER_XMM12 },
	[VSIB_YMM] = { ZYDIS_REGISTER_YMM4, ZYDIS_REGISTER_YMM12 },
};

static void set_operand(ZydisEncoderOperand *op, const struct opclass *c, unsigned reg_choice)
{
	memset(op, 0, sizeof(*op));
	switch (c->kind) {
	case K_REG: {
		size_t n = alternatives_count(c->alt);
		op->type = ZYDIS_OPERAND_TYPE_REGISTER;
		op->reg.value = register_alternatives[c->alt][reg_choice % n];
		break;
	}
	case K_MEM:
		op->type = ZYDIS_OPERAND_TYPE_MEMORY;
		op->mem.base = ZYDIS_REGISTER_RBX;
		op->mem.displacement = 0x10;
		op->mem.size = c->mem_size;
		break;
	case K_IMM:
		op->type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
		op->imm.u = c->imm;
		break;
	default: /* K_REL: over the fall-through exit to the branch exit */
		op->type = ZYDIS_OPERAND_TYPE_IMMEDIATE;
		op->imm.s = DIFF_EXIT_SIZE;
		break;
	}
}

static void init_request(ZydisEncoderRequest *rq, unsigned mnemonic, bool has_avx)
{
	memset(rq, 0, sizeof(*rq));
	rq->machine_mode = ZYDIS_MACHINE_MODE_LONG_64;
	rq->mnemonic = (ZydisMnemonic)mnemonic;
	/* Only what this harness saves and restores: no EVEX (zmm, masks). */
	rq->allowed_encodings = ZYDIS_ENCODABLE_ENCODING_LEGACY |
		(has_avx ? ZYDIS_ENCODABLE_ENCODING_VEX : 0);
}

/* Whether a shape is worth asking about: immediates come after every
 * register and memory operand, at most one memory operand, YMM only with
 * AVX. Keeps the search to a few thousand requests per mnemonic. */
static bool plausible(const struct signature *s, bool has_avx)
{
	bool seen_imm = false;
	unsigned mems = 0, rels = 0;
	for (unsigned i = 0; i < s->count; i++) {
		const struct opclass *c = &classes[s->cls[i]];
		if (c->kind == K_IMM || c->kind == K_REL) {
			seen_imm = true;
			rels += c->kind == K_REL;
		} else if (seen_imm) {
			return false;
		}
		mems += c->kind == K_MEM;
		if (c->kind == K_REG && c->alt == YMM_CLASS && !has_avx)
			return false;
	}
	return mems <= 1 && rels <= 1 && (rels == 0 || s->count == 1);
}

/* Four-operand forms exist only among vector instructions (blends by a
 * register, vpinsr* with a general register): the search there is limited
 * to registers, vector-sized memory and byte immediates. */
static bool four_operand_class(const struct opclass *c)
{
	return c->kind == K_REG ||
	       (c->kind == K_MEM && (c->mem_size == 16 || c->mem_size == 32)) ||
	       (c->kind == K_IMM && c->imm_width == 8 && c->imm != 1);
}

static void build_request(ZydisEncoderRequest *rq, const struct signature *s,
			  unsigned reg_choice, int *imm_operand, uint8_t *imm_width)
{
	rq->operand_count = s->count;
	*imm_operand = -1;
	*imm_width = 0;
	for (unsigned i = 0; i < s->count; i++) {
		const struct opclass *c = &classes[s->cls[i]];
		set_operand(&rq->operands[i], c, reg_choice + i);
		if (c->kind == K_MEM && s->vsib) {
			rq->operands[i].mem.index = vsib_index[s->vsib][reg_choice % 2];
			rq->operands[i].mem.scale = 4;
		}
		if (c->kind == K_IMM && *imm_operand < 0) {
			*imm_operand = (int)i;
			*imm_width = c->imm_width;
		}
	}
}

/* --- second pass: widen each signature into forms ------------------------ */

static const ZydisOperandSizeHint size_hints[] = {
	ZYDIS_OPERAND_SIZE_HINT_NONE, ZYDIS_OPERAND_SIZE_HINT_16,
	ZYDIS_OPERAND_SIZE_HINT_32, ZYDIS_OPERAND_SIZE_HINT_64,
};

static const ZydisInstructionAttributes prefix_choices[] = {
	ZYDIS_ATTRIB_HAS_LOCK, ZYDIS_ATTRIB_HAS_REP, ZYDIS_ATTRIB_HAS_REPE,
	ZYDIS_ATTRIB_HAS_REPNE,
};

static int memory_operand(const ZydisEncoderRequest *rq)
{
	for (unsigned i = 0; i < rq->operand_count; i++)
		if (rq->operands[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			return (int)i;
	return -1;
}

/* Adds the request as a form, then the same with each prefix. */
static void add_with_prefixes(struct diff_form_list *l, ZydisEncoderRequest *rq,
			      bool absolute, enum diff_addressing mode,
			      int imm_operand, uint8_t imm_width,
			      const struct diff_machine *m)
{
	if (!try_add(l, rq, absolute, mode, imm_operand, imm_width, m))
		return;
	for (unsigned p = 0; p < sizeof(prefix_choices) / sizeof(prefix_choices[0]); p++) {
		ZydisEncoderRequest with = *rq;
		with.prefixes = prefix_choices[p];
		try_add(l, &with, absolute, mode, imm_operand, imm_width, m);
	}
}

static void widen(struct diff_form_list *l, unsigned mnemonic, bool has_avx,
		  const struct signature *s, const struct diff_machine *m)
{
	ZydisEncoderRequest rq;
	int imm_operand;
	uint8_t imm_width;

	/* Other registers of each class. */
	for (unsigned choice = 0; choice < 5; choice++) {
		init_request(&rq, mnemonic, has_avx);
		build_request(&rq, s, choice, &imm_operand, &imm_width);
		add_with_prefixes(l, &rq, false, DIFF_ADDR_BASE, imm_operand, imm_width, m);
	}
	/* Other addressing modes of the memory operand. */
	init_request(&rq, mnemonic, has_avx);
	build_request(&rq, s, 0, &imm_operand, &imm_width);
	int mem = memory_operand(&rq);
	if (mem >= 0) {
		for (int mode = DIFF_ADDR_BASE_INDEX; mode < DIFF_ADDR_COUNT; mode++) {
			ZydisEncoderRequest v = rq;
			bool absolute;
			if (set_addressing(&v, &v.operands[mem], (enum diff_addressing)mode, m, &absolute))
				add_with_prefixes(l, &v, absolute, (enum diff_addressing)mode,
						  imm_operand, imm_width, m);
		}
		return;
	}
	/* Operand- and address-size variants of forms without memory operands
	 * (cbw/pushf-like implicit widths, loop and jrcxz on ecx). */
	for (unsigned h = 0; h < sizeof(size_hints) / sizeof(size_hints[0]); h++)
		for (int a32 = 0; a32 < 2; a32++) {
			ZydisEncoderRequest v = rq;
			v.operand_size_hint = size_hints[h];
			v.address_size_hint = a32 ? ZYDIS_ADDRESS_SIZE_HINT_32
						  : ZYDIS_ADDRESS_SIZE_HINT_NONE;
			add_with_prefixes(l, &v, false, DIFF_ADDR_BASE, imm_operand, imm_width, m);
		}
	/* Relative branches in both widths. */
	if (s->count == 1 && classes[s->cls[0]].kind == K_REL) {
		static const ZydisBranchWidth widths[] = { ZYDIS_BRANCH_WIDTH_8, ZYDIS_BRANCH_WIDTH_32 };
		for (unsigned w = 0; w < 2; w++)
			for (int a32 = 0; a32 < 2; a32++) {
				ZydisEncoderRequest v = rq;
				v.branch_width = widths[w];
				v.address_size_hint = a32 ? ZYDIS_ADDRESS_SIZE_HINT_32
							  : ZYDIS_ADDRESS_SIZE_HINT_NONE;
				add_with_prefixes(l, &v, false, DIFF_ADDR_BASE, -1, 0, m);
			}
	}
}

/* Tries the shape; widens it if the encoder accepts it. */
static void try_signature(struct diff_form_list *l, unsigned mnemonic, bool has_avx,
			  const struct signature *s, const struct diff_machine *m)
{
	if (!plausible(s, has_avx))
		return;
	ZydisEncoderRequest rq;
	int imm_operand;
	uint8_t imm_width, bytes[DIFF_MAX_INSN], len;
	init_request(&rq, mnemonic, has_avx);
	build_request(&rq, s, 0, &imm_operand, &imm_width);
	if (encode(&rq, false, 0, bytes, &len)) {
		widen(l, mnemonic, has_avx, s, m);
		return;
	}
	/* A memory operand the encoder refused may want a vector index. */
	bool has_mem = false;
	for (unsigned i = 0; i < s->count; i++)
		has_mem |= classes[s->cls[i]].kind == K_MEM;
	for (uint8_t v = VSIB_XMM; has_mem && !s->vsib && v <= VSIB_YMM; v++) {
		struct signature with = *s;
		with.vsib = v;
		try_signature(l, mnemonic, has_avx, &with, m);
	}
}

void diff_forms_for_mnemonic(unsigned mnemonic, bool has_avx,
			     const struct diff_machine *m, struct diff_form_list *out)
{
	static bool decoder_ready;
	if (!decoder_ready) {
		ZydisDecoderInit(&decoder, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
		decoder_ready = true;
	}
	build_classes();
	out->count = 0;

	struct signature s = { .count = 0 };
	try_signature(out, mnemonic, has_avx, &s, m);
	for (s.count = 1; s.count <= 3; s.count++) {
		unsigned total = 1;
		for (unsigned i = 0; i < s.count; i++)
			total *= (unsigned)class_count;
		for (unsigned code = 0; code < total; code++) {
			unsigned c = code;
			for (unsigned i = 0; i < s.count; i++, c /= (unsigned)class_count)
				s.cls[i] = (uint8_t)(c % class_count);
			try_signature(out, mnemonic, has_avx, &s, m);
		}
	}
	/* Four operands: vector shapes only. */
	uint8_t four[64];
	unsigned nfour = 0;
	for (unsigned i = 0; i < class_count; i++)
		if (four_operand_class(&classes[i]))
			four[nfour++] = (uint8_t)i;
	s.count = 4;
	for (unsigned code = 0; code < nfour * nfour * nfour * nfour; code++) {
		unsigned c = code;
		for (unsigned i = 0; i < 4; i++, c /= nfour)
			s.cls[i] = four[c % nfour];
		try_signature(out, mnemonic, has_avx, &s, m);
	}
}

void diff_forms_free(struct diff_form_list *l)
{
	free(l->forms);
	memset(l, 0, sizeof(*l));
}

bool diff_form_set_imm(struct diff_form *f, uint64_t imm, uint64_t insn_addr)
{
	if (f->imm_operand < 0)
		return false;
	ZydisEncoderRequest rq = f->request;
	uint8_t bytes[DIFF_MAX_INSN], len;
	rq.operands[f->imm_operand].imm.u = imm;
	if (!encode(&rq, f->absolute, insn_addr, bytes, &len) || len != f->len ||
	    memcmp(bytes, f->bytes, f->imm_offset))
		return false;
	memcpy(f->bytes, bytes, len);
	return true;
}

int diff_expected_special(unsigned mnemonic)
{
	switch (mnemonic) {
	case ZYDIS_MNEMONIC_SYSCALL: return EMU_SPECIAL_SYSCALL;
	case ZYDIS_MNEMONIC_CPUID: return EMU_SPECIAL_CPUID;
	case ZYDIS_MNEMONIC_RDTSC: return EMU_SPECIAL_RDTSC;
	case ZYDIS_MNEMONIC_RDTSCP: return EMU_SPECIAL_RDTSCP;
	case ZYDIS_MNEMONIC_RDRAND: return EMU_SPECIAL_RDRAND;
	case ZYDIS_MNEMONIC_RDSEED: return EMU_SPECIAL_RDSEED;
	case ZYDIS_MNEMONIC_XGETBV: return EMU_SPECIAL_XGETBV;
	case ZYDIS_MNEMONIC_RDPID: return EMU_SPECIAL_RDPID;
	default: return 0;
	}
}
