/*
 * jit_translate.c — a decoded block as one host function: the guest
 * registers it uses most are loaded into host registers on entry, each
 * instruction is lowered (jit_lower.c) or, when it has no lowering, its
 * handler is called with the registers stored around the call, and every
 * way out stores the registers the code changed.
 */
#include <stdlib.h>
#include <string.h>

#include "jit_encode_cache.h"
#include "jit_xlate.h"

#define CODE_AREA_SIZE ((size_t)64 << 20)
#define SCRATCH_SIZE ((size_t)64 << 10)
/* Bytes below the six saved registers: the five slots, and rsp 16-byte
 * aligned at every call (8 return + 48 saved + 40). */
#define FRAME 40

struct emu_jit {
	struct jit_code_area *area;
	uint8_t *scratch;
	/* The translator's state, one for every translation: made once, not
	 * cleared whole for each (its arrays of exits and out-of-line paths
	 * are most of its 11 KiB). */
	struct jit_xlate *xlate;
	struct jit_encode_cache *encoded;
	uint64_t translations;
	struct jit_target targets[JIT_TARGETS];
	/* The headers of the translations in the area, in the order made:
	 * what emu_jit_unchain_all visits instead of every decoded block
	 * (made_lost: one could not be noted, so it visits the blocks). */
	struct emu_jit_header **made;
	size_t n_made, cap_made;
	bool made_lost;
};

/* Where, from the start of the header, a translation's parts are. */
struct jit_layout {
	size_t chain_entry;
	size_t loop_entry; /* 0: its own jumps take chain_entry */
	size_t site[2]; /* 0: no such jump */
	size_t home[2];
	bool indirect_exit;
	bool overwrites_flags;
	size_t predicted_rip, predicted_site, lookup; /* 0: none */
	size_t flag_stub[2], flagged_site[2]; /* 0: none */
	size_t part_end[EMU_JIT_PARTS]; /* where each emu_jit_part ends */
};

/* Told of each translation made (emu_set_jit_listener). */
static emu_jit_listener *listener;
static void *listener_ctx;
static const char *const part_names[EMU_JIT_PARTS] = { "entry", "body", "end", "misses", "exits" };

void emu_set_jit_listener(emu_jit_listener *l, void *ctx)
{
	listener = l;
	listener_ctx = ctx;
}

static void tell_listener(const struct emu_block *b, const uint8_t *code, const struct jit_layout *layout)
{
	struct emu_jit_part parts[EMU_JIT_PARTS];
	size_t from = EMU_JIT_HEADER_BYTES;
	for (unsigned i = 0; i < EMU_JIT_PARTS; i++) {
		parts[i] = (struct emu_jit_part){ part_names[i], code + from,
						  layout->part_end[i] - from };
		from = layout->part_end[i];
	}
	listener(listener_ctx, b->start, parts, EMU_JIT_PARTS);
}

static const int cache_hosts[JIT_CACHE_REGS] = { JR_RBX, JR_RBP, JR_R12, JR_R13, JR_R14 };
static const int saved_hosts[6] = { JR_RBX, JR_RBP, JR_R12, JR_R13, JR_R14, JR_R15 };

struct emu_jit *emu_jit_new(void)
{
	emu_jit_counting_init();
	struct emu_jit *jit = calloc(1, sizeof(*jit));
	if (!jit)
		return NULL;
	jit->area = jit_code_area_new(CODE_AREA_SIZE);
	jit->scratch = malloc(SCRATCH_SIZE);
	jit->xlate = malloc(sizeof(*jit->xlate));
	jit->encoded = jit_encode_cache_new();
	if (!jit->area || !jit->scratch || !jit->xlate || !jit->encoded) {
		emu_jit_free(jit);
		return NULL;
	}
	return jit;
}

void emu_jit_free(struct emu_jit *jit)
{
	if (!jit)
		return;
	jit_code_area_free(jit->area);
	free(jit->scratch);
	free(jit->xlate);
	jit_encode_cache_free(jit->encoded);
	free(jit->made);
	free(jit);
}

static void note_made(struct emu_jit *jit, struct emu_jit_header *h)
{
	if (jit->n_made == jit->cap_made) {
		size_t cap = jit->cap_made ? jit->cap_made * 2 : 1024;
		struct emu_jit_header **made = realloc(jit->made, cap * sizeof(*made));
		if (!made) {
			jit->made_lost = true;
			return;
		}
		jit->made = made;
		jit->cap_made = cap;
	}
	jit->made[jit->n_made++] = h;
}

void emu_jit_unchain_all(struct emu_cpu *cpu)
{
	struct emu_jit *jit = cpu->jit;
	if (!jit) /* no translation, so no chain */
		return;
	if (jit->made_lost) {
		emu_decode_cache_unchain_all(cpu->cache);
		return;
	}
	/* Every block's entry goes (emu_jit_unchain_into): the table empties. */
	memset(jit->targets, 0, sizeof(jit->targets));
	for (size_t i = 0; i < jit->n_made; i++)
		emu_jit_unchain_edges(jit->made[i]);
}

uint64_t emu_jit_translations(const struct emu_cpu *cpu)
{
	return cpu->jit ? cpu->jit->translations : 0;
}

struct jit_opnd jit_cpu_field(int64_t off, unsigned size)
{
	return jit_m(JIT_CPU, JR_NONE, 0, off, size);
}

struct jit_opnd jit_slot(enum jit_slot n, unsigned size)
{
	return jit_m(JR_RSP, JR_NONE, 0, 8 * (int64_t)n, size);
}

static void emit(struct jit_xlate *x, ZydisMnemonic mn, struct jit_opnd a, struct jit_opnd b)
{
	jit_op(&x->a, mn, a, b);
}

void jit_set_rip(struct jit_xlate *x, uint64_t target)
{
	if ((int64_t)target == (int32_t)target) {
		emit(x, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_RIP, 8), jit_i((int64_t)target));
	} else {
		jit_mov_imm(&x->a, JR_RAX, target);
		emit(x, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_RIP, 8), jit_r(JR_RAX, 8));
	}
}

void jit_exit_if(struct jit_xlate *x, unsigned cc, unsigned index, unsigned status)
{
	if (x->n_exits == JIT_MAX_EXITS) {
		x->a.failed = true;
		return;
	}
	x->exits[x->n_exits++] = (struct jit_exit){
		.patch = jit_jcc_forward(&x->a, cc), .dirty = x->dirty,
		.index = index, .status = status,
	};
}

void jit_fault_if(struct jit_xlate *x, unsigned cc, enum jit_raise raise)
{
	jit_exit_if(x, cc, x->cur, EMU_STOP);
	if (x->n_exits)
		x->exits[x->n_exits - 1].raise = (uint8_t)raise;
}

int jit_guest_in(struct jit_xlate *x, unsigned g, int scratch)
{
	if (x->host[g] >= 0)
		return x->host[g];
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(scratch, 8), jit_cpu_field(JIT_GPR(g), 8));
	return scratch;
}

void jit_guest_out(struct jit_xlate *x, unsigned g, unsigned size, int v)
{
	int h = x->host[g];
	if (h >= 0) {
		if (h != v || size == 4)
			emit(x, ZYDIS_MNEMONIC_MOV, jit_r(h, size), jit_r(v, size));
		x->dirty |= (uint16_t)(1u << g);
		return;
	}
	if (size == 4) {
		/* A 32-bit move zero-extends; v may be another guest's cache
		 * register, so the copy goes through r11. */
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_R11, 4), jit_r(v, 4));
		v = JR_R11;
		size = 8;
	}
	emit(x, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_GPR(g), size), jit_r(v, size));
}

static void store_guests(struct jit_xlate *x, uint16_t which)
{
	for (unsigned g = 0; g < EMU_GPR_COUNT; g++)
		if (which & (1u << g))
			emit(x, ZYDIS_MNEMONIC_MOV, jit_cpu_field(JIT_GPR(g), 8), jit_r(x->host[g], 8));
}

/* The cached guest registers the code from instruction `from` on may
 * read before it replaces them whole: only those are loaded. One it
 * replaces first, or never uses, holds no guest value until written (it
 * is not dirty before, so no exit stores it); a handler call reads
 * regs.gpr and reloads the cache after it. */
static uint16_t read_before_written(const struct jit_xlate *x, const bool *lowered, unsigned from)
{
	uint16_t read = 0, decided = 0;
	for (unsigned i = from; i < x->b->count && lowered[i]; i++)
		for (unsigned g = 0; g < EMU_GPR_COUNT; g++) {
			if (x->host[g] < 0 || (decided & (1u << g)))
				continue;
			enum jit_use use = jit_use_of(&x->b->insns[i], g);
			if (use != JIT_USE_NONE)
				decided |= (uint16_t)(1u << g);
			if (use == JIT_USE_READ)
				read |= (uint16_t)(1u << g);
		}
	return read;
}

static void load_guests(struct jit_xlate *x, uint16_t which)
{
	for (unsigned g = 0; g < EMU_GPR_COUNT; g++)
		if (x->host[g] >= 0 && (which & (1u << g)))
			emit(x, ZYDIS_MNEMONIC_MOV, jit_r(x->host[g], 8), jit_cpu_field(JIT_GPR(g), 8));
}

/* The guest registers the lowered instructions use most get the cache
 * registers. */
static void choose_cached(struct jit_xlate *x, const bool *lowered)
{
	unsigned uses[EMU_GPR_COUNT] = { 0 };
	for (uint32_t i = 0; i < x->b->count; i++)
		if (lowered[i])
			jit_count_uses(&x->b->insns[i], uses);
	memset(x->host, -1, sizeof(x->host));
	for (unsigned n = 0; n < JIT_CACHE_REGS; n++) {
		int best = -1;
		for (unsigned g = 0; g < EMU_GPR_COUNT; g++)
			if (uses[g] && x->host[g] < 0 && (best < 0 || uses[g] > uses[best]))
				best = (int)g;
		if (best < 0)
			break;
		x->host[best] = (int8_t)cache_hosts[n];
	}
}

/* How many instructions instruction i's handler runs: a fused compare's
 * runs its conditional jump too. */
static unsigned handler_runs(const struct emu_block *b, unsigned i)
{
	return i + 1 == b->fused_count && b->fused_count < b->count ? 2 : 1;
}

/* Instruction i by its handler. A fused compare's handler runs the
 * conditional jump after it too; the cached registers in `reload` are
 * loaded again after it. Returns how many instructions it ran. */
static unsigned call_handler(struct jit_xlate *x, unsigned i, uint16_t reload)
{
	const struct emu_block *b = x->b;
	const struct emu_insn *insn = &b->insns[i];
	unsigned ran = handler_runs(b, i);
	if (!x->rip_stored) {
		jit_set_rip(x, b->next_rip);
		x->rip_stored = true;
	}
	store_guests(x, x->dirty);
	x->dirty = 0;
	if (EMU_UNLIKELY(emu_jit_counting)) {
		jit_mov_imm(&x->a, JR_RAX, (uint64_t)(uintptr_t)jit_handler_counter(insn));
		emit(x, ZYDIS_MNEMONIC_ADD, jit_m(JR_RAX, JR_NONE, 0, 0, 8), jit_i(1));
	}
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDI, 8), jit_r(JIT_CPU, 8));
	jit_mov_imm(&x->a, JR_RSI, (uint64_t)(uintptr_t)insn);
	jit_call_out(x, (const void *)insn->handler);
	emit(x, ZYDIS_MNEMONIC_TEST, jit_r(JR_RAX, 4), jit_r(JR_RAX, 4));
	if (x->n_exits == JIT_MAX_EXITS) {
		x->a.failed = true;
	} else {
		x->exits[x->n_exits++] = (struct jit_exit){
			.patch = jit_jcc_forward(&x->a, JIT_CC_NZ), .status_from_eax = true, .index = i,
		};
	}
	if (i + ran < b->count) {
		/* The handler may have written this block's code. */
		jit_mov_imm(&x->a, JR_RAX, (uint64_t)(uintptr_t)&b->retired);
		emit(x, ZYDIS_MNEMONIC_CMP, jit_m(JR_RAX, JR_NONE, 0, 0, 1), jit_i(0));
		jit_exit_if(x, JIT_CC_NZ, i + ran, EMU_STALE);
		load_guests(x, reload);
	}
	x->flags_live = false;
	x->lazy_kind = EMU_LAZY_NONE;
	return ran;
}

void jit_call_out(struct jit_xlate *x, const void *fn)
{
	bool r9 = jit_hits_in_r9(x);
	if (r9)
		jit_hits_settle(x);
	jit_call(&x->a, fn);
	if (r9)
		jit_hits_load(x);
}

void jit_handler_fallback(struct jit_xlate *x)
{
	uint16_t dirty = x->dirty;
	bool rip_stored = x->rip_stored;
	/* Every register is reloaded: the other way may have a dirty one
	 * that the code after replaces before reading. */
	call_handler(x, x->cur, 0xffff);
	/* The other way kept the registers in host registers and stored no
	 * rip: both are stored again where needed. */
	x->dirty = dirty;
	x->rip_stored = rip_stored;
}

static void emit_exit(struct jit_xlate *x, const struct jit_exit *e, size_t epilogue)
{
	jit_bind(&x->a, e->patch);
	if (e->raise != JIT_RAISE_NONE) {
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDI, 8), jit_r(JIT_CPU, 8));
		if (e->raise == JIT_RAISE_GP) {
			jit_call_out(x, (const void *)emu_jit_raise_gp);
		} else {
			emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RSI, 8), jit_slot(JIT_SLOT_ADDRESS, 8));
			emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, 4),
			     jit_i(e->raise == JIT_RAISE_PF_WRITE));
			jit_call_out(x, (const void *)emu_jit_raise_pf);
		}
	}
	store_guests(x, e->dirty);
	if (x->remade_at[e->index] >= 0) /* (rax kept: a handler's status) */
		jit_remake_flags(x, &x->remade[x->remade_at[e->index]]);
	if (e->status_from_eax) {
		emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RAX, 4), jit_r(JR_RAX, 4));
		jit_mov_imm(&x->a, JR_RDX, (uint64_t)e->index << 32);
		emit(x, ZYDIS_MNEMONIC_OR, jit_r(JR_RAX, 8), jit_r(JR_RDX, 8));
	} else {
		jit_mov_imm(&x->a, JR_RAX, (uint64_t)e->index << 32 | e->status);
	}
	jit_mov_imm(&x->a, JR_RDX, (uint64_t)(uintptr_t)x->b);
	jit_point(&x->a, jit_jmp_forward(&x->a), epilogue);
}

/* The successors a block's end can jump to directly: slot 0 the
 * fall-through, slot 1 a direct target (as emu_block_next numbers its
 * links). A return, an indirect jump and a handler-run last instruction
 * have none: their successor is for the run loop to find. */
static void direct_successors(const struct emu_block *b, const bool *lowered,
			      bool has[2], uint64_t *target, bool *indirect)
{
	const struct emu_insn *last = &b->insns[b->count - 1];
	has[0] = has[1] = false;
	*target = 0;
	*indirect = false;
	if (!lowered[b->count - 1])
		return;
	*indirect = last->mnemonic == ZYDIS_MNEMONIC_RET ||
		    ((last->mnemonic == ZYDIS_MNEMONIC_JMP || last->mnemonic == ZYDIS_MNEMONIC_CALL) &&
		     last->opnd[0].kind != EMU_OPND_IMM);
	bool jcc = emu_jcc_condition(last) >= 0;
	bool direct = (last->mnemonic == ZYDIS_MNEMONIC_JMP || last->mnemonic == ZYDIS_MNEMONIC_CALL) &&
		      last->opnd[0].kind == EMU_OPND_IMM;
	if (!last->ends_block || jcc) /* a block cut short, or not taken */
		has[0] = true;
	if (jcc || direct) {
		*target = last->imm;
		has[last->imm == b->next_rip ? 0 : 1] = true;
	}
}

/* An indirect successor (its address in rax, where the lowered transfer
 * left it): the translation predicted (emu_jit_chain sets the address
 * compared and chains the jump), else the one the target table has,
 * else home. */
static void assemble_indirect_exit(struct jit_xlate *x, struct jit_layout *layout,
				   struct jit_target *targets)
{
	static const uint8_t movabs_rcx[10] = { 0x48, 0xb9 };
	jit_bytes(&x->a, movabs_rcx, sizeof(movabs_rcx));
	layout->predicted_rip = x->a.pos - 8;
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 8), jit_r(JR_RCX, 8));
	size_t other = jit_jcc_forward(&x->a, JIT_CC_NZ);
	layout->predicted_site = jit_jmp_forward(&x->a);
	layout->lookup = x->a.pos;
	jit_bind(&x->a, other);
	jit_point(&x->a, layout->predicted_site, layout->lookup);
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JR_RDX, 8), jit_r(JR_RAX, 8));
	emit(x, ZYDIS_MNEMONIC_SHR, jit_r(JR_RDX, 8), jit_i(12));
	emit(x, ZYDIS_MNEMONIC_XOR, jit_r(JR_RDX, 4), jit_r(JR_RAX, 4));
	emit(x, ZYDIS_MNEMONIC_AND, jit_r(JR_RDX, 4), jit_i(JIT_TARGETS - 1));
	emit(x, ZYDIS_MNEMONIC_SHL, jit_r(JR_RDX, 4), jit_i(4));
	jit_mov_imm(&x->a, JR_RCX, (uint64_t)(uintptr_t)targets);
	emit(x, ZYDIS_MNEMONIC_CMP, jit_r(JR_RAX, 8), jit_m(JR_RCX, JR_RDX, 1, 0, 8));
	size_t miss = jit_jcc_forward(&x->a, JIT_CC_NZ);
	emit(x, ZYDIS_MNEMONIC_JMP, jit_m(JR_RCX, JR_RDX, 1, 8, 8), jit_none());
	jit_bind(&x->a, miss);
}

/* One way out of a block run whole: its count taken from what is left
 * of the run (cpu->chain_left, which the run loop turns back into icount:
 * one subtraction per block, not an addition too), then, while a whole
 * block still fits under the run's limit (chain_left above 0), on
 * toward a successor (the caller emits that); the budget's jump home is
 * added to `home_jumps`. Leaves rax as it was (a lowered indirect
 * transfer's target). */
static void count_and_check_budget(struct jit_xlate *x, bool on, size_t home_jumps[2],
				   unsigned *n_home)
{
	emit(x, ZYDIS_MNEMONIC_SUB, jit_cpu_field(JIT_CHAIN_LEFT, 8), jit_i(x->b->count));
	if (on)
		home_jumps[(*n_home)++] = jit_jcc_forward(&x->a, 0xe); /* jle */
}

/* The way home of direct successor `slot` (its budget's jump and its
 * chainable jump unchained): the pending flags kept to the end stored,
 * rip stored there, then on to `common`, or straight there when
 * something stored rip already. */
static void assemble_home(struct jit_xlate *x, struct jit_layout *layout, unsigned slot,
			  const size_t *home_jumps, unsigned n_home, bool store_rip, uint64_t rip)
{
	layout->home[slot] = x->a.pos;
	for (unsigned i = 0; i < n_home; i++)
		jit_bind(&x->a, home_jumps[i]);
	if (layout->site[slot])
		jit_point(&x->a, layout->site[slot], layout->home[slot]);
	if (x->deferred.on)
		jit_store_deferred_flags(x);
	if (store_rip)
		jit_set_rip(x, rip);
}

/* The end of a block run whole: the count added, then (while a whole
 * block still fits under emu_run's limit: cpu->chain_left above 0) a jump per
 * direct successor, each chainable, or a look-up of an indirect one,
 * else home to the run loop. A direct successor's rip is stored only on
 * its way home: a translation chained to sets rip itself before anything
 * can read it (its first handler call, its end; its exits have the run
 * loop set it). A lowered indirect transfer stored rip itself, a
 * handler-run last instruction too. A conditional jump at the end
 * branches here: each way jumps to its successor, with no test of rip
 * afterwards. */
static void assemble_end(struct jit_xlate *x, const bool *lowered, struct jit_layout *layout,
			 struct jit_target *targets)
{
	const struct emu_block *b = x->b;
	size_t *site = layout->site;
	size_t home_jumps[2][2];
	unsigned n_home[2] = { 0, 0 };
	bool has[2];
	uint64_t target;
	store_guests(x, x->dirty); /* moves: the host flags stay for a jcc */
	direct_successors(b, lowered, has, &target, &layout->indirect_exit);
	const uint64_t rip_of[2] = { b->next_rip, target };
	site[0] = site[1] = 0;
	layout->predicted_rip = layout->predicted_site = layout->lookup = 0;
	bool on = has[0] || has[1] || layout->indirect_exit;
	/* A lowered ret or indirect jmp or call set rip itself. */
	bool sets_rip = layout->indirect_exit;
	/* The successors' ways home store their rip. */
	bool store_rip = true;
	if (x->end_jcc && has[1]) {
		size_t taken = jit_jcc_forward(&x->a, x->end_cc);
		count_and_check_budget(x, true, home_jumps[0], &n_home[0]);
		site[0] = jit_jmp_forward(&x->a);
		jit_bind(&x->a, taken);
		count_and_check_budget(x, true, home_jumps[1], &n_home[1]);
		site[1] = jit_jmp_forward(&x->a);
	} else if (has[0] && has[1]) {
		/* A jcc its fused compare's handler ran: rip says which way
		 * it went. */
		count_and_check_budget(x, true, home_jumps[0], &n_home[0]);
		jit_mov_imm(&x->a, JR_RDX, target);
		emit(x, ZYDIS_MNEMONIC_CMP, jit_cpu_field(JIT_RIP, 8), jit_r(JR_RDX, 8));
		site[1] = jit_jcc_forward(&x->a, JIT_CC_Z);
		site[0] = jit_jmp_forward(&x->a);
		store_rip = false;
	} else if (has[0] || has[1]) {
		/* A jcc to the next instruction goes there either way. */
		count_and_check_budget(x, true, home_jumps[has[1]], &n_home[has[1]]);
		site[has[1]] = jit_jmp_forward(&x->a);
	} else {
		if (!sets_rip && !x->rip_stored)
			jit_set_rip(x, b->next_rip);
		count_and_check_budget(x, on, home_jumps[0], &n_home[0]);
		if (layout->indirect_exit)
			assemble_indirect_exit(x, layout, targets);
		store_rip = false;
	}
	if (site[0] && site[1]) {
		assemble_home(x, layout, 1, home_jumps[1], n_home[1], store_rip, rip_of[1]);
		size_t to_common = jit_jmp_forward(&x->a);
		assemble_home(x, layout, 0, home_jumps[0], n_home[0], store_rip, rip_of[0]);
		jit_bind(&x->a, to_common);
	} else {
		unsigned slot = site[1] ? 1 : 0;
		assemble_home(x, layout, slot, home_jumps[slot], n_home[slot], store_rip && site[slot],
			      rip_of[slot]);
		layout->home[!slot] = layout->home[slot];
	}
	emit(x, ZYDIS_MNEMONIC_XOR, jit_r(JR_RAX, 4), jit_r(JR_RAX, 4));
	jit_mov_imm(&x->a, JR_RDX, (uint64_t)(uintptr_t)b);
}

/* For pending flags kept to the end: per direct successor, the way to a
 * successor that may read them (emu_jit_chain links site[slot] here when
 * the successor does not overwrite them first): they are stored, then a
 * chainable jump, home until chained. */
static void assemble_flag_stubs(struct jit_xlate *x, struct jit_layout *layout)
{
	for (unsigned slot = 0; slot < 2; slot++) {
		layout->flag_stub[slot] = layout->flagged_site[slot] = 0;
		if (!x->deferred.on || !layout->site[slot])
			continue;
		layout->flag_stub[slot] = x->a.pos;
		jit_store_deferred_flags(x);
		layout->flagged_site[slot] = jit_jmp_forward(&x->a);
		jit_point(&x->a, layout->flagged_site[slot], layout->home[slot]);
	}
}

void jit_lower_at(struct jit_xlate *x, const bool *lowered, unsigned i)
{
	const struct emu_block *b = x->b;
	x->cur = i;
	x->wrote = false;
	x->flags_dead = jit_flags_overwritten(b, lowered, i);
	x->defer_flags = !x->flags_dead && jit_flags_deferrable(b, lowered, i);
	x->remake_flags = false;
	unsigned until;
	struct jit_remade_flags f;
	if (!x->flags_dead && !x->defer_flags && x->n_remade < JIT_MAX_REMADE &&
	    jit_flags_remakeable(b, lowered, i, &until, &f)) {
		x->remake_flags = true;
		x->remade[x->n_remade] = f;
		for (unsigned m = i + 1; m <= until; m++)
			x->remade_at[m] = (int8_t)x->n_remade;
		x->n_remade++;
	}
	unsigned colds = x->n_cold;
	jit_lower(x, &b->insns[i]);
	if (x->wrote && i + 1 < b->count) {
		/* The write's status waits in its slot until the
		 * instruction's own effects are done. A write made inline
		 * when it hits, with nothing after it, whose hit leaves the
		 * slot as the block's entry set it: only its call's path
		 * can have written code, and checks there. */
		struct jit_cold *c = x->n_cold == colds + 1 ? &x->cold[colds] : NULL;
		if (c && c->write && c->resume == x->a.pos && c->dirty == x->dirty &&
		    jit_inline_writes_miss_code(x)) {
			c->status_exit = i + 1;
		} else {
			emit(x, ZYDIS_MNEMONIC_CMP, jit_slot(JIT_SLOT_WRITE_STATUS, 4),
			     jit_i(EMU_JIT_RETIRED));
			jit_exit_if(x, JIT_CC_Z, i + 1, EMU_STALE);
		}
		x->flags_live = false; /* (the call's path clobbers them) */
	} else if (x->wrote && jit_inline_writes_miss_code(x)) {
		/* The block's last write: nothing checks its status, which
		 * must not reach a chained successor's checks. Its calls put
		 * the slot back; written in line (by a path other than the
		 * inline write's), it is put back here. */
		bool cold_write = false;
		for (unsigned c = colds; c < x->n_cold; c++)
			if (x->cold[c].write) {
				x->cold[c].status_reset = true;
				cold_write = true;
			}
		if (!cold_write)
			emit(x, ZYDIS_MNEMONIC_MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_i(EMU_OK));
	}
}

/* The host code of b into x->a, after room for its header; false when
 * it is not worth running. */
static bool assemble(struct jit_xlate *x, struct jit_layout *layout, struct jit_target *targets)
{
	const struct emu_block *b = x->b;
	bool lowered[EMU_MAX_BLOCK_INSNS] = { false };
	unsigned n_lowered = 0;
	if (b->count > EMU_MAX_BLOCK_INSNS)
		return false;
	for (uint32_t i = 0; i < b->count; i++) {
		/* A fused compare that cannot be lowered runs with its jump. */
		bool fused_pair = i + 1 == b->fused_count && b->fused_count < b->count;
		lowered[i] = (jit_lowerable(&b->insns[i]) ||
			      jit_vector_move_lowerable(x->cpu, &b->insns[i])) &&
			     (!fused_pair || jit_lowerable(&b->insns[i + 1]));
		n_lowered += lowered[i];
	}
	/* Rotates where the flags they leave are overwritten unseen, from
	 * the end: one lowered lets the scan for an earlier one through. */
	for (uint32_t i = b->count; i-- > 0;)
		if (!lowered[i] && jit_rotate_lowerable(&b->insns[i]) &&
		    jit_flags_overwritten(b, lowered, i)) {
			lowered[i] = true;
			n_lowered++;
		}
	/* Handlers called one after another run no faster than the run
	 * loop calls them. */
	if (n_lowered == 0)
		return false;
	choose_cached(x, lowered);
	layout->overwrites_flags = jit_block_overwrites_flags(b, lowered);

	x->a.pos = EMU_JIT_HEADER_BYTES;
	for (unsigned i = 0; i < 6; i++)
		emit(x, ZYDIS_MNEMONIC_PUSH, jit_r(saved_hosts[i], 8), jit_none());
	emit(x, ZYDIS_MNEMONIC_SUB, jit_r(JR_RSP, 8), jit_i(FRAME));
	emit(x, ZYDIS_MNEMONIC_MOV, jit_r(JIT_CPU, 8), jit_r(JR_RDI, 8));
	if (jit_hits_in_r9(x)) /* chained blocks go on counting in it */
		jit_hits_load(x);
	/* Chained blocks find the slot as it is here: a write's call sets
	 * it, and an instruction that finds EMU_JIT_RETIRED there leaves the
	 * translation, so no other value reaches a block end (jit_lower_at). */
	if (jit_inline_writes_miss_code(x))
		emit(x, ZYDIS_MNEMONIC_MOV, jit_slot(JIT_SLOT_WRITE_STATUS, 4), jit_i(EMU_OK));
	layout->chain_entry = x->a.pos;
	load_guests(x, read_before_written(x, lowered, 0));
	/* A block that jumps to itself finds its registers where it left
	 * them: its end stored the ones it changed and kept them all in
	 * their host registers. Not after a handler's call, whose changes
	 * of a register the block does not read again stay in memory. */
	layout->loop_entry = n_lowered == b->count ? x->a.pos : 0;
	layout->part_end[0] = x->a.pos;

	for (unsigned i = 0; i < b->count;) {
		x->cur = i;
		if (!lowered[i]) {
			i += call_handler(x, i, read_before_written(x, lowered, i + handler_runs(b, i)));
			continue;
		}
		unsigned pushes = jit_push_run(x, lowered, i);
		if (pushes) {
			jit_lower_push_run(x, lowered, i, pushes);
			i += pushes;
			continue;
		}
		unsigned pops = jit_pop_run(x, lowered, i);
		if (pops) {
			jit_lower_pop_run(x, lowered, i, pops);
			i += pops;
			continue;
		}
		jit_lower_at(x, lowered, i);
		i++;
	}
	layout->part_end[1] = x->a.pos;
	assemble_end(x, lowered, layout, targets);
	size_t epilogue = x->a.pos;
	if (jit_hits_in_r9(x)) /* (rax and rdx are the run loop's) */
		jit_hits_settle(x);
	emit(x, ZYDIS_MNEMONIC_ADD, jit_r(JR_RSP, 8), jit_i(FRAME));
	for (int i = 5; i >= 0; i--)
		emit(x, ZYDIS_MNEMONIC_POP, jit_r(saved_hosts[i], 8), jit_none());
	emit(x, ZYDIS_MNEMONIC_RET, jit_none(), jit_none());
	assemble_flag_stubs(x, layout);
	layout->part_end[2] = x->a.pos;
	/* The memory calls out of line add exits: before those. */
	for (unsigned c = 0; c < x->n_cold; c++)
		jit_emit_cold(x, &x->cold[c]);
	layout->part_end[3] = x->a.pos;
	for (unsigned e = 0; e < x->n_exits; e++)
		emit_exit(x, &x->exits[e], epilogue);
	layout->part_end[4] = x->a.pos;
	return !x->a.failed;
}

void emu_jit_translate(struct emu_cpu *cpu, struct emu_block *b)
{
	struct emu_jit *jit = cpu->jit;
	struct jit_xlate *x = jit->xlate;
	memset(x, 0, offsetof(struct jit_xlate, exits));
	memset(x->remade_at, -1, sizeof(x->remade_at));
	x->a = (struct jit_asm){ .buf = jit->scratch, .cap = SCRATCH_SIZE, .cache = jit->encoded };
	x->b = b;
	x->cpu = cpu;
	struct jit_layout layout;
	if (assemble(x, &layout, jit->targets)) {
		uint8_t *code = jit_code_area_add(jit->area, x->a.buf, x->a.pos);
		if (!code) {
			/* Full: every translation goes, the hot ones come back. */
			emu_decode_cache_forget_translations(cpu->cache);
			jit_code_area_empty(jit->area);
			memset(jit->targets, 0, sizeof(jit->targets));
			jit->n_made = 0;
			jit->made_lost = false;
			code = jit_code_area_add(jit->area, x->a.buf, x->a.pos);
		}
		if (code) {
			struct emu_jit_header *h = (struct emu_jit_header *)(void *)code;
			memset(h, 0, sizeof(*h));
			h->chain_entry = code + layout.chain_entry;
			if (layout.loop_entry)
				h->loop_skip = (uint32_t)(layout.loop_entry - layout.chain_entry);
			h->targets = jit->targets;
			h->indirect_exit = layout.indirect_exit;
			h->overwrites_flags = layout.overwrites_flags;
			if (layout.predicted_site) {
				h->predicted_rip = code + layout.predicted_rip;
				h->predicted_site = code + layout.predicted_site;
				h->lookup = code + layout.lookup;
			}
			for (unsigned i = 0; i < 2; i++) {
				h->site[i] = layout.site[i] ? code + layout.site[i] : NULL;
				h->home[i] = code + layout.home[i];
				if (layout.flag_stub[i]) {
					h->flag_stub[i] = code + layout.flag_stub[i];
					h->flagged_site[i] = code + layout.flagged_site[i];
				}
			}
			b->jit = (emu_jit_code *)(void *)(code + EMU_JIT_HEADER_BYTES);
			note_made(jit, h);
			jit->translations++;
			if (listener)
				tell_listener(b, code, &layout);
		}
	}
}
