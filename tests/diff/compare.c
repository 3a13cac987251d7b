/*
 * compare.c — judging a case and reporting it.
 *
 * A case passes when the emulator ends where the CPU ended: same outcome
 * (retired, or the same exception with the state left untouched), and then
 * bit-identical GPRs, rip, RFLAGS, MXCSR, vector registers, x87 control,
 * status and tag words and registers, and scratch memory. A difference only
 * in flags Zydis lists as undefined for the instruction (RFLAGS bits, or the
 * x87 condition codes) is not a failure but is counted on its own. On a
 * CPU of another vendor than the one whose undefined flags the emulator
 * models, the RFLAGS bits tolerated are instead those both vendors' manuals
 * leave undefined for the case (emu_undefined_flags_after, counts resolved
 * from the input), and a destination emu_undefined_result says is
 * undefined takes the CPU's value, counted like an undefined flag.
 *
 * On such a CPU the results the emulator computes as the modelled CPU does
 * where the manuals leave them to the implementation take the CPU's
 * values too, each only in the shape the two vendors are known to differ
 * in, and are counted as model-specific differences:
 * - emu_model_specific: the MXCSR_MASK of fxsave/xsave* (the emulator's
 *   bytes the model's mask, the CPU's this machine's); the registers a rep
 *   string with a 32-bit address size and ecx 0 zero-extends (the CPU's
 *   unchanged); the register form of 0F 0D (#UD natively, where the
 *   emulator changed nothing but rip);
 * - which NaN a dot product returns when several are possible
 *   (tests/shared/model_specific.h, dot_nan_choice).
 * The XSAVE standard-format layout is translated around the native run
 * instead (cases.c).
 */
#include <stdarg.h>
#include <string.h>

#include "emulator/emu.h"
#include "tests/shared/model_specific.h"
#include "diff.h"

static const char *const gpr_names[DIFF_GPRS] = {
	"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15",
};

/* FSW bits of the x87 condition codes, indexed like ZYDIS_FPUFLAG_C0..C3. */
static uint16_t fsw_undefined_mask(uint32_t fpu_flags)
{
	static const uint16_t bit[4] = { 1u << 8, 1u << 9, 1u << 10, 1u << 14 };
	uint16_t m = 0;
	for (unsigned i = 0; i < 4; i++)
		if (fpu_flags & (1u << i))
			m |= bit[i];
	return m;
}

struct judgement {
	enum diff_verdict verdict;
	FILE *why;
};

static void fail(struct judgement *j, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct judgement *j, const char *fmt, ...)
{
	j->verdict = DIFF_FAIL;
	if (!j->why)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("    ", j->why);
	vfprintf(j->why, fmt, ap);
	fputc('\n', j->why);
	va_end(ap);
}

static void note_undefined(struct judgement *j, const char *what, uint64_t want, uint64_t got)
{
	if (j->verdict == DIFF_PASS)
		j->verdict = DIFF_UNDEFINED_ONLY;
	if (j->why)
		fprintf(j->why, "    %s (undefined bits only): native %#llx emulated %#llx\n",
			what, (unsigned long long)want, (unsigned long long)got);
}

static void note_model_specific(struct judgement *j, const char *what)
{
	if (j->verdict == DIFF_PASS || j->verdict == DIFF_UNDEFINED_ONLY)
		j->verdict = DIFF_MODEL_SPECIFIC_ONLY;
	if (j->why)
		fprintf(j->why, "    %s: the CPU's model-specific result taken\n", what);
}

static void hex(FILE *f, const uint8_t *p, size_t n)
{
	for (size_t i = n; i-- > 0;)
		fprintf(f, "%02x", p[i]);
}

static void compare_bytes(struct judgement *j, const char *what, const uint8_t *want,
			  const uint8_t *got, size_t n)
{
	if (!memcmp(want, got, n))
		return;
	fail(j, "%s differs", what);
	if (j->why) {
		fputs("      native   ", j->why);
		hex(j->why, want, n);
		fputs("\n      emulated ", j->why);
		hex(j->why, got, n);
		fputc('\n', j->why);
	}
}

static void compare_memory(struct judgement *j, const uint8_t *want, const uint8_t *got,
			   const uint8_t *scratch)
{
	if (!memcmp(want, got, DIFF_SCRATCH_SIZE))
		return;
	unsigned shown = 0;
	for (size_t i = 0; i < DIFF_SCRATCH_SIZE; i++) {
		if (want[i] == got[i])
			continue;
		if (shown++ < 8)
			fail(j, "memory %#llx (scratch+%#zx): native %02x emulated %02x",
			     (unsigned long long)(uintptr_t)(scratch + i), i, want[i], got[i]);
	}
	if (shown > 8)
		fail(j, "memory: %u more bytes differ", shown - 8);
}

/* Everything architectural; undefined flags lenient when `lenient`: those
 * Zydis lists on the modelled vendor's CPU, on another's the RFLAGS bits
 * in `host_undefined` (the list of both manuals, for this input). */
static void compare_states(struct judgement *j, const struct diff_state *want,
			   const struct diff_state *got, const struct diff_form *f,
			   bool has_avx, bool lenient, uint64_t host_undefined)
{
	for (unsigned i = 0; i < DIFF_GPRS; i++)
		if (want->gpr[i] != got->gpr[i])
			fail(j, "%s: native %#llx emulated %#llx", gpr_names[i],
			     (unsigned long long)want->gpr[i], (unsigned long long)got->gpr[i]);
	if (want->rip != got->rip)
		fail(j, "rip: native %#llx emulated %#llx", (unsigned long long)want->rip,
		     (unsigned long long)got->rip);
	uint64_t undefined = !lenient ? 0
			     : emu_host_is_modelled_vendor() ? f->undefined_flags : host_undefined;
	uint64_t fl = want->rflags ^ got->rflags;
	if (fl & ~undefined)
		fail(j, "rflags: native %#llx emulated %#llx (differ in %#llx)",
		     (unsigned long long)want->rflags, (unsigned long long)got->rflags,
		     (unsigned long long)fl);
	else if (fl)
		note_undefined(j, "rflags", want->rflags, got->rflags);
	if (want->mxcsr != got->mxcsr)
		fail(j, "mxcsr: native %#x emulated %#x", want->mxcsr, got->mxcsr);
	size_t vbytes = has_avx ? 32 : 16;
	for (unsigned i = 0; i < DIFF_VECS; i++) {
		char name[16];
		snprintf(name, sizeof(name), "%smm%u", has_avx ? "y" : "x", i);
		compare_bytes(j, name, want->vec[i], got->vec[i], vbytes);
	}
	if (want->x87.fcw != got->x87.fcw)
		fail(j, "fcw: native %#x emulated %#x", want->x87.fcw, got->x87.fcw);
	uint16_t fsw_undefined = lenient ? fsw_undefined_mask(f->undefined_fpu_flags) : 0;
	uint16_t sw = (uint16_t)(want->x87.fsw ^ got->x87.fsw);
	if (sw & ~fsw_undefined)
		fail(j, "fsw: native %#x emulated %#x", want->x87.fsw, got->x87.fsw);
	else if (sw)
		note_undefined(j, "fsw", want->x87.fsw, got->x87.fsw);
	if (want->x87.ftw != got->x87.ftw)
		fail(j, "ftw: native %#x emulated %#x", want->x87.ftw, got->x87.ftw);
	for (unsigned i = 0; i < 8; i++) {
		char name[16];
		snprintf(name, sizeof(name), "x87 r%u", i);
		compare_bytes(j, name, want->x87.reg[i], got->x87.reg[i], 10);
	}
}

/* The case's input as the emulator's registers. */
static const struct emu_regs *input_regs(const struct diff_case *c)
{
	static struct emu_regs r;
	memcpy(r.gpr, c->input->gpr, sizeof(r.gpr));
	r.rflags = c->input->rflags;
	r.rip = c->m->insn_addr;
	return &r;
}

/* RFLAGS bits the case leaves undefined, on a host of another vendor than
 * the modelled one; 0 on the modelled vendor's, which is compared whole. */
static uint64_t host_undefined_flags(const struct diff_case *c)
{
	if (emu_host_is_modelled_vendor())
		return 0;
	return emu_undefined_flags_after(c->form->bytes, c->form->len, input_regs(c), 0);
}

/* For a case that leaves its destination undefined (a 16-bit shld/shrd
 * by more than 16): gives the emulated state the CPU's destination; true
 * when that changed something. */
static bool adopt_undefined_destination(const struct diff_case *c, const struct diff_state *want,
					struct diff_state *got, uint8_t *got_memory)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, c->form->bytes, c->form->len, &zi, ops)))
		return false;
	unsigned size = ops[0].size / 8;
	bool changed = false;
	if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER) {
		int n = ZydisRegisterGetId(ZydisRegisterGetLargestEnclosing(
			ZYDIS_MACHINE_MODE_LONG_64, ops[0].reg.value));
		uint64_t bits = size >= 8 ? ~0ull : (1ull << (size * 8)) - 1;
		if (n < 0 || n >= DIFF_GPRS)
			return false;
		uint64_t v = (got->gpr[n] & ~bits) | (want->gpr[n] & bits);
		changed = v != got->gpr[n];
		got->gpr[n] = v;
		return changed;
	}
	size_t off;
	if (!diff_operand_offset(c->form, c->m, c->input, 0, size, &off))
		return false;
	changed = memcmp(got_memory + off, c->native_memory + off, size) != 0;
	memcpy(got_memory + off, c->native_memory + off, size);
	return changed;
}

bool diff_operand_offset(const struct diff_form *f, const struct diff_machine *m,
			 const struct diff_state *in, unsigned operand, size_t size, size_t *off)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, f->bytes, f->len, &zi, ops)) ||
	    operand >= zi.operand_count_visible || ops[operand].type != ZYDIS_OPERAND_TYPE_MEMORY)
		return false;
	ZydisRegisterContext ctx;
	memset(&ctx, 0, sizeof(ctx));
	for (unsigned i = 0; i < DIFF_GPRS; i++) {
		ctx.values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR64, (ZyanU8)i)] = in->gpr[i];
		ctx.values[ZydisRegisterEncode(ZYDIS_REGCLASS_GPR32, (ZyanU8)i)] = (uint32_t)in->gpr[i];
	}
	ZyanU64 addr;
	if (!ZYAN_SUCCESS(ZydisCalcAbsoluteAddressEx(&zi, &ops[operand], m->insn_addr, &ctx, &addr)))
		return false;
	uint64_t start = (uint64_t)(uintptr_t)m->scratch;
	if (addr < start || addr + size > start + DIFF_SCRATCH_SIZE)
		return false;
	*off = (size_t)(addr - start);
	return true;
}

/* A value of `size` bytes (at most 8), little-endian. */
static uint64_t le_value(const uint8_t *b, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/* The model-specific results of emu_model_specific that retired
 * instructions have: gives the emulated state and memory the CPU's where
 * the emulator's are the model's and the CPU's another vendor's. */
static void adopt_model_specific(struct judgement *j, const struct diff_case *c,
				 const struct emu_model_specific *ms, const struct diff_state *want,
				 struct diff_state *got, uint8_t *got_memory)
{
	const struct diff_state *in = c->input;
	for (unsigned i = 0; i < DIFF_GPRS; i++)
		if ((ms->zero_extended_gprs >> i & 1) && want->gpr[i] != got->gpr[i] &&
		    want->gpr[i] == in->gpr[i] && got->gpr[i] == (uint32_t)in->gpr[i]) {
			got->gpr[i] = want->gpr[i];
			note_model_specific(j, "upper half of a register a zero-count rep string zero-extends");
		}
	if (ms->store_size) {
		uint64_t start = (uint64_t)(uintptr_t)c->m->scratch;
		if (ms->store_addr < start || ms->store_addr + ms->store_size > start + DIFF_SCRATCH_SIZE ||
		    ms->store_size > 8)
			return;
		size_t off = (size_t)(ms->store_addr - start);
		const uint8_t *n = c->native_memory + off;
		if (memcmp(n, got_memory + off, ms->store_size) &&
		    le_value(got_memory + off, ms->store_size) == ms->store_modelled &&
		    le_value(n, ms->store_size) == ms->store_host) {
			memcpy(got_memory + off, n, ms->store_size);
			note_model_specific(j, "MXCSR_MASK");
		}
	}
}

/* dpps/dppd and their VEX forms: which NaN an element returns when
 * several are possible (dot_nan_choice). */
static void adopt_dot_nan(struct judgement *j, const struct diff_case *c,
			  const struct diff_state *want, struct diff_state *got)
{
	ZydisMnemonic mn = (ZydisMnemonic)c->form->mnemonic;
	if (mn != ZYDIS_MNEMONIC_DPPS && mn != ZYDIS_MNEMONIC_DPPD &&
	    mn != ZYDIS_MNEMONIC_VDPPS && mn != ZYDIS_MNEMONIC_VDPPD)
		return;
	ZydisDecoder dec;
	ZydisDecodedInstruction zi;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&dec, c->form->bytes, c->form->len, &zi, ops)))
		return;
	/* Operands: destination, (VEX: first source,) second source, imm. */
	bool vex = zi.operand_count_visible == 4;
	const ZydisDecodedOperand *dst = &ops[0], *s1 = &ops[vex ? 1 : 0], *s2 = &ops[vex ? 2 : 1];
	const ZydisDecodedOperand *imm = &ops[vex ? 3 : 2];
	if (dst->type != ZYDIS_OPERAND_TYPE_REGISTER || s1->type != ZYDIS_OPERAND_TYPE_REGISTER ||
	    imm->type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
		return;
	unsigned lanes = dst->size == 256 ? 2 : 1;
	int d = ZydisRegisterGetId(dst->reg.value), r1 = ZydisRegisterGetId(s1->reg.value);
	if (d < 0 || d >= DIFF_VECS || r1 < 0 || r1 >= DIFF_VECS)
		return;
	const uint8_t *src2;
	if (s2->type == ZYDIS_OPERAND_TYPE_REGISTER) {
		int r2 = ZydisRegisterGetId(s2->reg.value);
		if (r2 < 0 || r2 >= DIFF_VECS)
			return;
		src2 = c->input->vec[r2];
	} else {
		size_t off;
		if (!diff_operand_offset(c->form, c->m, c->input, vex ? 2 : 1, 16 * lanes, &off))
			return;
		src2 = c->m->initial_memory + off;
	}
	bool dbl = mn == ZYDIS_MNEMONIC_DPPD || mn == ZYDIS_MNEMONIC_VDPPD;
	if (dot_nan_choice(dbl, lanes, (unsigned)imm->imm.value.u, c->input->vec[r1], src2,
			   want->vec[d], got->vec[d]))
		note_model_specific(j, "dot product's NaN");
}

static const char *outcome_name(const struct diff_result *r, char *buf, size_t n)
{
	switch (r->outcome) {
	case DIFF_RAN: return "retired";
	case DIFF_FAULTED:
		snprintf(buf, n, "fault %s", r->vector == DIFF_TRAP_SS ? "#SS"
			 : emu_fault_name((enum emu_fault_vector)r->vector));
		return buf;
	case DIFF_SPECIAL:
		snprintf(buf, n, "special %s", emu_special_name((enum emu_special)r->special));
		return buf;
	case DIFF_UNIMPLEMENTED: return "unimplemented";
	default:
		snprintf(buf, n, "harness crash (trap %d outside the instruction)", r->vector);
		return buf;
	}
}

/* Memory-access faults, interchangeable here: see DIFF_SEGV_VECTOR_ONLY. */
static bool is_memory_fault_vector(int v)
{
	return v == EMU_FAULT_GP || v == EMU_FAULT_PF || v == DIFF_TRAP_SS;
}

enum diff_verdict diff_compare(const struct diff_case *c, bool has_avx, FILE *why)
{
	struct judgement j = { DIFF_PASS, why };
	const struct diff_result *e = c->emulated;
	char b1[64], b2[64];

	if (c->form->kind == DIFF_FORM_SPECIAL) {
		int want = diff_expected_special(c->form->mnemonic);
		if (e->outcome != DIFF_SPECIAL || e->special != want)
			fail(&j, "emulator: %s, expected special %s", outcome_name(e, b1, sizeof(b1)),
			     emu_special_name((enum emu_special)want));
		compare_states(&j, c->input, &e->state, c->form, has_avx, false, 0);
		compare_memory(&j, c->m->initial_memory, c->emulated_memory, c->m->scratch);
		return j.verdict;
	}

	const struct diff_result *n = c->native;
	if (e->outcome == DIFF_UNIMPLEMENTED && n->outcome != DIFF_CRASHED) {
		j.verdict = DIFF_FALLBACK;
		return j.verdict;
	}
	struct emu_model_specific ms = { 0 };
	bool model_specific = !emu_host_is_modelled_vendor() &&
			      emu_model_specific(c->form->bytes, c->form->len, input_regs(c), &ms);
	if (model_specific && ms.nop_or_ud && n->outcome == DIFF_FAULTED &&
	    n->vector == EMU_FAULT_UD && e->outcome == DIFF_RAN) {
		/* A reserved NOP here, #UD there: the emulator must have
		 * changed nothing but rip. */
		struct diff_state nop = *c->input;
		nop.rip = c->m->insn_addr + c->form->len;
		compare_states(&j, &nop, &e->state, c->form, has_avx, false, 0);
		compare_memory(&j, c->m->initial_memory, c->emulated_memory, c->m->scratch);
		if (j.verdict == DIFF_PASS)
			note_model_specific(&j, "0F 0D register form (#UD natively, a NOP modelled)");
		return j.verdict;
	}
	bool segv_vectors = n->outcome == DIFF_FAULTED && e->outcome == DIFF_FAULTED &&
			    is_memory_fault_vector(n->vector) && is_memory_fault_vector(e->vector);
	if (n->outcome == DIFF_CRASHED || n->outcome != e->outcome ||
	    (n->outcome == DIFF_FAULTED && n->vector != e->vector && !segv_vectors)) {
		fail(&j, "native: %s; emulator: %s", outcome_name(n, b1, sizeof(b1)),
		     outcome_name(e, b2, sizeof(b2)));
		return j.verdict;
	}
	if (n->outcome == DIFF_FAULTED) {
		/* A faulting instruction changes nothing. */
		compare_states(&j, c->input, &e->state, c->form, has_avx, false, 0);
		compare_memory(&j, c->m->initial_memory, c->emulated_memory, c->m->scratch);
		if (j.verdict == DIFF_PASS && n->vector != e->vector) {
			j.verdict = DIFF_SEGV_VECTOR_ONLY;
			if (why)
				fprintf(why, "    native %s, emulator %s (both memory-access faults)\n",
					outcome_name(n, b1, sizeof(b1)), outcome_name(e, b2, sizeof(b2)));
		}
		return j.verdict;
	}
	/* A destination left undefined takes the CPU's value before the
	 * comparison, counted like an undefined flag when it differed. */
	const struct diff_state *got = &e->state;
	const uint8_t *got_memory = c->emulated_memory;
	if (!emu_host_is_modelled_vendor()) {
		static struct diff_state emulated;
		static uint8_t emulated_memory[DIFF_SCRATCH_SIZE];
		emulated = e->state;
		memcpy(emulated_memory, c->emulated_memory, DIFF_SCRATCH_SIZE);
		if (emu_undefined_result(c->form->bytes, c->form->len, input_regs(c)) &&
		    adopt_undefined_destination(c, &n->state, &emulated, emulated_memory))
			note_undefined(&j, "destination", 0, 0);
		if (model_specific)
			adopt_model_specific(&j, c, &ms, &n->state, &emulated, emulated_memory);
		adopt_dot_nan(&j, c, &n->state, &emulated);
		got = &emulated;
		got_memory = emulated_memory;
	}
	compare_states(&j, &n->state, got, c->form, has_avx, true, host_undefined_flags(c));
	compare_memory(&j, c->native_memory, got_memory, c->m->scratch);
	return j.verdict;
}

/* --- report ----------------------------------------------------------------- */

void diff_report_failure(FILE *f, const struct diff_case *c, bool has_avx)
{
	char text[128];
	const struct diff_state *in = c->input;
	emu_disassemble(c->m->insn_addr, c->form->bytes, c->form->len, text, sizeof(text));
	fprintf(f, "  FAIL %s  [", text);
	for (unsigned i = 0; i < c->form->len; i++)
		fprintf(f, "%s%02x", i ? " " : "", c->form->bytes[i]);
	fprintf(f, "]\n    input:");
	for (unsigned i = 0; i < DIFF_GPRS; i++)
		fprintf(f, "%s%s=%#llx", i % 4 ? " " : "\n      ", gpr_names[i],
			(unsigned long long)in->gpr[i]);
	fprintf(f, "\n      rflags=%#llx mxcsr=%#x fcw=%#x fsw=%#x ftw=%#x\n",
		(unsigned long long)in->rflags, in->mxcsr, in->x87.fcw, in->x87.fsw,
		in->x87.ftw);
	diff_compare(c, has_avx, f);
}

void diff_report_mnemonic(FILE *f, const struct diff_mnemonic_stats *s)
{
	fprintf(f, "%-12s %-11s forms %3u cases %6llu failed %5llu undefined-flag differences %5llu"
		" faults %4llu #GP/#PF differences %4llu run-time fallbacks %4llu%s\n",
		ZydisMnemonicGetString((ZydisMnemonic)s->mnemonic), s->family, s->forms,
		(unsigned long long)s->cases, (unsigned long long)s->failures,
		(unsigned long long)s->undefined_diffs, (unsigned long long)s->faults,
		(unsigned long long)s->segv_vector_diffs, (unsigned long long)s->fallbacks,
		s->failures ? "  FAIL" : "");
	if (s->model_specific_diffs)
		fprintf(f, "%-12s %llu cases differ only in model-specific results, the CPU's taken"
			" (another vendor's CPU)\n", "", (unsigned long long)s->model_specific_diffs);
	if (s->redraws)
		fprintf(f, "%-12s %llu inputs redrawn: they reached memory outside the scratch"
			" that this process owns\n", "", (unsigned long long)s->redraws);
	if (s->dropped_forms)
		fprintf(f, "%-12s %u forms skipped: this CPU lacks them (#UD natively)\n", "",
			s->dropped_forms);
}
