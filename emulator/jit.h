/*
 * jit.h — the block translator: hot decoded blocks become host code that
 * does what their handlers would, in the same order of memory accesses
 * (the recorder's prediction cache and trace see exactly the interpreter's
 * requests). Used only for blocks run whole with nothing observing; the
 * interpreter stays the reference (the replayer and stepping use it).
 *
 * A translation is `emu_jit_code` (internal.h). It returns in `block`
 * the last block it ran and in `code` EMU_OK in the low 32 bits when that
 * block ran whole (the instructions of every block it ran whole taken
 * from cpu->chain_left, which the run loop adds to icount), or a handler
 * status (EMU_STOP with cpu->exit set, or EMU_STALE) and, in the high 32
 * bits, the index of the instruction that did not complete: the run loop
 * then does what it does when that instruction's handler returns the
 * status.
 *
 * Chaining: a translation whose block ends in a direct jump (or none)
 * jumps, while a whole block still fits under emu_run's limit, straight into
 * the translation of its successor once the run loop has seen that
 * transition (emu_jit_chain). One that ends in a return or indirect jump
 * or call jumps the same way to the first target it was seen to go to,
 * when it goes there again, and looks any other up in a table. Such a jump is undone when the successor is
 * retired, when its fetches must be made again (emu_refetch_code), or
 * when the code area is emptied.
 *
 * Flags across a chain: a block's last flag writer followed only by its
 * direct jump or jcc keeps its pending flags in host registers, and the
 * jump to a successor whose translation replaces every status flag first
 * (emu_jit_header.overwrites_flags) skips storing them. The decision is
 * the link's, made from the successor's translation as it is: when that
 * one goes (retired, rewritten), the link goes home, where they are stored.
 */
#ifndef TTREC_EMU_JIT_H
#define TTREC_EMU_JIT_H

#include "internal.h"

/* Executions of a block before it is translated: cold code stays with the
 * interpreter, whose cost per block is lower than a translation's. */
#define EMU_JIT_HOT 64

struct emu_jit;

/* Where returns and indirect jumps find their target's translation: a
 * direct-mapped table of (guest address, chain entry), filled by
 * emu_jit_chain when the run loop sees such a transition, emptied of a
 * block's entry when the block is retired. */
struct jit_target {
	uint64_t rip;
	uint8_t *entry;
};
#define JIT_TARGETS 4096
static inline unsigned jit_target_slot(uint64_t rip)
{
	return (unsigned)((rip ^ (rip >> 12)) & (JIT_TARGETS - 1));
}

/* Kept in the code area just before a translation's first instruction. */
struct jit_edge {
	uint8_t *site; /* a jump's rel32 */
	uint8_t *home; /* where it goes unchained */
	uint8_t *to;   /* where it goes chained: the successor's chain entry,
			* or the flag stores on the way there */
};
struct emu_jit_header {
	uint8_t *chain_entry; /* where chained jumps enter (past the prologue) */
	uint8_t *site[2];     /* the jumps to successors 0 (fall-through) and 1 */
	uint8_t *home[2];     /* where each goes unchained: rip stored, then
			       * back to the run loop */
	struct jit_target *targets; /* the translator's table */
	bool indirect_exit;   /* ends in a return or indirect jump or call */
	/* Its first instructions replace every status flag before anything
	 * can leave it or read them (jit_block_overwrites_flags): a
	 * predecessor's pending flags are dead when it comes next. */
	bool overwrites_flags;
	/* Where its own chained jumps enter: loop_skip bytes past
	 * chain_entry (past the loads of its registers, or 0). */
	uint32_t loop_skip;
	/* An indirect exit predicts the first target it chains to: the
	 * guest address it compares (a movabs's imm64), the jump taken when
	 * equal (a rel32, chained like a direct one) and where that jump
	 * goes unchained: the look-up in `targets`. */
	uint8_t *predicted_rip;
	uint8_t *predicted_site;
	uint8_t *lookup;
	struct jit_edge *in;  /* chained jumps into this translation */
	uint32_t n_in, cap_in;
	/* A block whose last flag writer's pending flags are kept in host
	 * registers to its end (jit_flags_deferrable; NULL otherwise): each
	 * way home stores them, and site[i] chains past the store to a
	 * successor that overwrites them, else to flag_stub[i], which stores
	 * them and jumps on by flagged_site[i] (a rel32 chained like site[i],
	 * unchained to home[i]). */
	uint8_t *flag_stub[2];
	uint8_t *flagged_site[2];
};
/* A multiple of 64: the code after it starts on a cache line too. */
#define EMU_JIT_HEADER_BYTES 128
_Static_assert(sizeof(struct emu_jit_header) <= EMU_JIT_HEADER_BYTES, "header too big");

static inline struct emu_jit_header *emu_jit_header_of(const struct emu_block *b)
{
	return (struct emu_jit_header *)(void *)((uint8_t *)(uintptr_t)b->jit - EMU_JIT_HEADER_BYTES);
}

struct emu_jit *emu_jit_new(void);
void emu_jit_free(struct emu_jit *jit);

/* Translates b (b->jit stays NULL when nothing in it is worth it or the
 * code area is full and could not be reset). */
void emu_jit_translate(struct emu_cpu *cpu, struct emu_block *b);

/* jit_chain.c. from ran whole and control went to `to` by its
 * successor `slot`: from's jump there goes straight to to's translation. */
void emu_jit_chain(struct emu_block *from, unsigned slot, struct emu_block *to);
/* Every chained jump into b goes back to the run loop. */
void emu_jit_unchain_into(struct emu_block *b);
/* The same for the jumps into h's translation (not the targets table). */
void emu_jit_unchain_edges(struct emu_jit_header *h);
/* Every chain undone (jit_translate.c): emu_jit_unchain_into of every
 * translated block, by the translator's list of what it made. */
void emu_jit_unchain_all(struct emu_cpu *cpu);
/* b loses its translation (b->jit NULL), chains into it undone. */
void emu_jit_forget(struct emu_block *b);

/* Executable memory for translations (jit_code.c): a fixed area filled
 * front to back and emptied whole. */
struct jit_code_area;
struct jit_code_area *jit_code_area_new(size_t size);
void jit_code_area_free(struct jit_code_area *area);
/* n bytes copied in, or NULL when the area is full. */
void *jit_code_area_add(struct jit_code_area *area, const void *code, size_t n);
void jit_code_area_empty(struct jit_code_area *area);
size_t jit_code_area_used(const struct jit_code_area *area);

/* What translated code calls (jit_runtime.c). Each does exactly what a
 * handler's access through operand.h does. */
struct emu_mem_uint emu_jit_read(struct emu_cpu *cpu, uint64_t addr, unsigned size);
/* EMU_OK, EMU_STOP (a fault, cpu->exit set) or EMU_JIT_RETIRED: the write
 * retired the running block (its code was written). */
enum { EMU_JIT_RETIRED = 3 };
int emu_jit_write(struct emu_cpu *cpu, uint64_t addr, unsigned size, uint64_t value,
		  const struct emu_block *running);
/* What operand.h does when an access faults: the exit is set. */
void emu_jit_raise_gp(struct emu_cpu *cpu);
void emu_jit_raise_pf(struct emu_cpu *cpu, uint64_t addr, int write);
/* A write's notice to the decode cache (emu_decode_cache_note_write), for
 * the writes to pages that may hold decoded code: EMU_OK or
 * EMU_JIT_RETIRED. */
int emu_jit_note_write(struct emu_cpu *cpu, uint64_t addr, unsigned size,
		       const struct emu_block *running);
/* Condition cc of the current flags (for a jcc whose flags were set
 * before the translated code). */
int emu_jit_condition(struct emu_cpu *cpu, unsigned cc);

/* The count of handler runs by mnemonic (jit_handler_counts.c): on when
 * TTREC_JIT_HANDLER_COUNTS is set as the first translator is made. */
extern bool emu_jit_counting;
void emu_jit_counting_init(void);
/* The counter translated code adds one to before calling insn's handler. */
uint64_t *jit_handler_counter(const struct emu_insn *insn);
/* b's instructions, run by their handlers without a translation. */
void emu_jit_count_interpreted(const struct emu_block *b);
/* One instruction run by its handler while something observes the run
 * or the run's budget ends within its block. */
void emu_jit_count_stepped(const struct emu_insn *insn);

#endif
