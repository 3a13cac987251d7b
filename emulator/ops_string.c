/*
 * ops_string.c — movs, stos, lods, cmps, scas in every element size, with
 * rep / repe / repne and the direction flag.
 *
 * One handler runs every string instruction; the op says which one. A REP
 * instruction counts as one instruction however many iterations it runs. If
 * an iteration faults, the registers reflect the iterations completed and
 * rip stays on the instruction, as on the CPU.
 *
 * Forward (DF=0) movs and stos without overlap are done in page-bounded
 * chunks, one memory-interface call per chunk instead of per element; a
 * chunk that faults is redone element by element to find the exact
 * faulting iteration.
 */
#include "binding.h"
#include "operand.h"

enum string_op { STR_MOVS, STR_STOS, STR_LODS, STR_CMPS, STR_SCAS };

#define CHUNK_BYTES 4096u

struct string_state {
	unsigned elem;      /* element size in bytes */
	unsigned width;     /* address width: 4 with a 0x67 prefix, else 8 */
	int64_t step;       /* +elem or -elem */
	uint64_t rsi, rdi, rcx;
};

static uint64_t addr_reg(const struct emu_cpu *cpu, unsigned n, unsigned width)
{
	return emu_gpr_get(cpu, EMU_GPR_OFF(n), width);
}

static void load_state(const struct emu_cpu *cpu, const struct emu_insn *insn,
		       struct string_state *s)
{
	s->elem = insn->opsize;
	s->width = insn->mem.addr32 ? 4 : 8;
	s->step = (cpu->regs.rflags & EMU_DF) ? -(int64_t)s->elem : (int64_t)s->elem;
	s->rsi = addr_reg(cpu, EMU_RSI, s->width);
	s->rdi = addr_reg(cpu, EMU_RDI, s->width);
	s->rcx = addr_reg(cpu, EMU_RCX, s->width);
}

static bool uses_rsi(const struct emu_insn *insn)
{
	return insn->op == STR_MOVS || insn->op == STR_LODS || insn->op == STR_CMPS;
}

static bool uses_rdi(const struct emu_insn *insn)
{
	return insn->op != STR_LODS;
}

/* Writes back only the registers the instruction uses: with a 0x67 prefix
 * a 32-bit write would clear the upper half of an unused one. */
static void store_state(struct emu_cpu *cpu, const struct emu_insn *insn,
			const struct string_state *s)
{
	uint64_t m = emu_size_mask(s->width);
	if (uses_rsi(insn))
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RSI), s->width, s->rsi & m);
	if (uses_rdi(insn))
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RDI), s->width, s->rdi & m);
	if (insn->attr & (EMU_ATTR_REP | EMU_ATTR_REPNE))
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RCX), s->width, s->rcx & m);
}

/* One iteration; updates rsi/rdi in *s and flags for the comparisons. */
static int iterate(struct emu_cpu *cpu, const struct emu_insn *insn,
		   struct string_state *s)
{
	uint64_t a = 0, b = 0;
	uint64_t src = emu_seg_addr(cpu, insn, s->rsi & emu_size_mask(s->width));
	uint64_t dst = s->rdi & emu_size_mask(s->width);
	unsigned n = s->elem;
	int r;
	switch ((enum string_op)insn->op) {
	case STR_MOVS:
		if ((r = emu_mem_read_uint(cpu, src, n, &a)) != EMU_OK ||
		    (r = emu_mem_write_uint(cpu, dst, n, a)) != EMU_OK)
			return r;
		s->rsi += s->step;
		s->rdi += s->step;
		break;
	case STR_STOS:
		if ((r = emu_mem_write_uint(cpu, dst, n, cpu->regs.gpr[EMU_RAX])) != EMU_OK)
			return r;
		s->rdi += s->step;
		break;
	case STR_LODS:
		if ((r = emu_mem_read_uint(cpu, src, n, &a)) != EMU_OK)
			return r;
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RAX), n, a);
		s->rsi += s->step;
		break;
	case STR_CMPS:
		if ((r = emu_mem_read_uint(cpu, src, n, &a)) != EMU_OK ||
		    (r = emu_mem_read_uint(cpu, dst, n, &b)) != EMU_OK)
			return r;
		emu_set_status_flags(cpu, emu_flags_sub(a, b, a - b, 0, n));
		s->rsi += s->step;
		s->rdi += s->step;
		break;
	case STR_SCAS:
		a = emu_gpr_get(cpu, EMU_GPR_OFF(EMU_RAX), n);
		if ((r = emu_mem_read_uint(cpu, dst, n, &b)) != EMU_OK)
			return r;
		emu_set_status_flags(cpu, emu_flags_sub(a, b, a - b, 0, n));
		s->rdi += s->step;
		break;
	}
	return EMU_OK;
}

static uint64_t bytes_to_page_end(uint64_t addr)
{
	return 4096 - (addr & 4095);
}

/*
 * Moves or stores as many whole elements as fit in one chunk; returns the
 * number of elements done (0: the caller does one element itself). Only
 * for DF=0 with 64-bit addresses, and for movs only without overlap inside
 * the chunk (overlapping copies replicate data element by element).
 */
static uint64_t bulk_chunk(struct emu_cpu *cpu, const struct emu_insn *insn,
			   struct string_state *s)
{
	if (s->step < 0 || s->width != 8 || s->rcx < 2)
		return 0;
	uint64_t dst = s->rdi;
	uint64_t limit = bytes_to_page_end(dst);
	uint64_t src = 0;
	if (insn->op == STR_MOVS) {
		src = emu_seg_addr(cpu, insn, s->rsi);
		uint64_t sl = bytes_to_page_end(src);
		if (sl < limit)
			limit = sl;
	}
	uint64_t n = limit / s->elem;
	if (n > s->rcx)
		n = s->rcx;
	if (n > CHUNK_BYTES / s->elem)
		n = CHUNK_BYTES / s->elem;
	if (n < 2)
		return 0;
	uint64_t bytes = n * s->elem;
	uint8_t buf[CHUNK_BYTES];
	if (insn->op == STR_MOVS) {
		uint64_t gap = dst > src ? dst - src : src - dst;
		if (gap < bytes)
			return 0;
		if (cpu->mem->read(cpu->mem_ctx, src, buf, bytes) != EMU_MEM_OK)
			return 0;
	} else {
		uint64_t v = cpu->regs.gpr[EMU_RAX];
		for (uint64_t i = 0; i < bytes; i += s->elem)
			memcpy(buf + i, &v, s->elem);
	}
	if (cpu->mem->write(cpu->mem_ctx, dst, buf, bytes) != EMU_MEM_OK)
		return 0;
	emu_decode_cache_note_write(cpu, dst, bytes);
	if (insn->op == STR_MOVS)
		s->rsi += bytes;
	s->rdi += bytes;
	return n;
}

static bool repeat_ends(const struct emu_cpu *cpu, const struct emu_insn *insn)
{
	if (insn->op != STR_CMPS && insn->op != STR_SCAS)
		return false;
	bool zf = emu_rflags_of(cpu) & EMU_ZF;
	return (insn->attr & EMU_ATTR_REPNE) ? zf : !zf;
}

static int string_insn(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	struct string_state s;
	int r = EMU_OK;
	load_state(cpu, insn, &s);
	if (!(insn->attr & (EMU_ATTR_REP | EMU_ATTR_REPNE))) {
		r = iterate(cpu, insn, &s);
		if (r == EMU_OK)
			store_state(cpu, insn, &s);
		return r;
	}
	uint64_t initial_count = s.rcx;
	if (!(s.rcx & emu_size_mask(s.width))) {
		/* No iteration. With a 0x67 prefix this CPU still rewrites
		 * (zero-extends) rcx, and rdi and rsi for the moving and
		 * storing forms, but not the pointers of lods/cmps/scas. */
		emu_gpr_set(cpu, EMU_GPR_OFF(EMU_RCX), s.width, s.rcx);
		if (insn->op == STR_MOVS || insn->op == STR_STOS)
			store_state(cpu, insn, &s);
		return EMU_OK;
	}
	bool bulk_ok = insn->op == STR_MOVS || insn->op == STR_STOS;
	while (s.rcx & emu_size_mask(s.width)) {
		uint64_t done = bulk_ok ? bulk_chunk(cpu, insn, &s) : 0;
		if (done) {
			s.rcx -= done;
			continue;
		}
		if ((r = iterate(cpu, insn, &s)) != EMU_OK) {
			/* A fault before any iteration completed changes
			 * nothing, not even a 32-bit zero-extension. */
			if (s.rcx == initial_count)
				return r;
			break;
		}
		s.rcx--;
		if (repeat_ends(cpu, insn))
			break;
	}
	store_state(cpu, insn, &s);
	return r;
}

bool emu_rep_string(const uint8_t *bytes, size_t len, struct emu_rep_string *out)
{
	struct emu_insn insn;
	if (!emu_decode(bytes, len, 0x1000, &insn) || insn.handler != string_insn ||
	    !(insn.attr & (EMU_ATTR_REP | EMU_ATTR_REPNE)))
		return false;
	out->len = insn.len;
	out->addr_bytes = insn.mem.addr32 ? 4 : 8;
	out->elem_bytes = insn.opsize;
	out->writes = insn.op == STR_MOVS || insn.op == STR_STOS;
	out->until = EMU_REP_COUNT;
	if (insn.op == STR_CMPS || insn.op == STR_SCAS)
		out->until = (insn.attr & EMU_ATTR_REPNE) ? EMU_REP_WHILE_NOT_EQUAL : EMU_REP_WHILE_EQUAL;
	out->reads_src = uses_rsi(&insn);
	out->reads_dst = insn.op == STR_CMPS || insn.op == STR_SCAS;
	out->src_base = insn.mem.seg == EMU_SEG_FS   ? EMU_REP_SRC_FS
			: insn.mem.seg == EMU_SEG_GS ? EMU_REP_SRC_GS
						     : EMU_REP_SRC_FLAT;
	return true;
}

/* movsd and cmpsd are also SSE mnemonics: the string forms have no
 * visible operands. */
static emu_handler *bind_string(struct emu_insn *insn)
{
	return insn->nopnd == 0 ? string_insn : NULL;
}

static const struct emu_binding string_bindings[] = {
	{ ZYDIS_MNEMONIC_MOVSB, STR_MOVS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_MOVSW, STR_MOVS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_MOVSD, STR_MOVS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_MOVSQ, STR_MOVS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_STOSB, STR_STOS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_STOSW, STR_STOS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_STOSD, STR_STOS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_STOSQ, STR_STOS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_LODSB, STR_LODS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_LODSW, STR_LODS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_LODSD, STR_LODS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_LODSQ, STR_LODS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_CMPSB, STR_CMPS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_CMPSW, STR_CMPS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_CMPSD, STR_CMPS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_CMPSQ, STR_CMPS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_SCASB, STR_SCAS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_SCASW, STR_SCAS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_SCASD, STR_SCAS, NULL, bind_string },
	{ ZYDIS_MNEMONIC_SCASQ, STR_SCAS, NULL, bind_string },
};

EMU_FAMILY(emu_family_string, string_bindings);
