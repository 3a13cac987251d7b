/*
 * jit_xlate.h — what the translator's two halves share: the block-level
 * part (jit_translate.c: which guest registers live in host registers,
 * entry, exits, handler calls) and the instruction-level part
 * (jit_lower.c: one guest instruction as host code).
 *
 * Host register use in translated code:
 *   r15                      the struct emu_cpu
 *   rbx rbp r12 r13 r14      guest registers cached for the block
 *                            (callee-saved: they survive calls)
 *   rax rcx rdx rsi rdi      scratch and call arguments
 *   r8 r10 r11
 *   r9                       a memory with inline accesses: its inline
 *                            reads' hits, kept across chained blocks
 *                            (jit_hits_settle)
 *   [rsp + 0..39]            five 8-byte slots kept across calls
 *                            (enum jit_slot)
 */
#ifndef TTREC_EMU_JIT_XLATE_H
#define TTREC_EMU_JIT_XLATE_H

#include <stddef.h>

#include "jit.h"
#include "jit_emit.h"

#define JIT_CPU JR_R15
#define JIT_CACHE_REGS 5
#define JIT_MAX_EXITS 192

/* Byte offsets of guest state in struct emu_cpu. */
#define JIT_GPR(g) ((int64_t)(offsetof(struct emu_cpu, regs.gpr) + 8 * (size_t)(g)))
#define JIT_RIP ((int64_t)offsetof(struct emu_cpu, regs.rip))
#define JIT_RFLAGS ((int64_t)offsetof(struct emu_cpu, regs.rflags))
#define JIT_FS_BASE ((int64_t)offsetof(struct emu_cpu, regs.fs_base))
#define JIT_GS_BASE ((int64_t)offsetof(struct emu_cpu, regs.gs_base))
#define JIT_LAZY_A ((int64_t)offsetof(struct emu_cpu, lazy.a))
#define JIT_LAZY_B ((int64_t)offsetof(struct emu_cpu, lazy.b))
#define JIT_LAZY_RES ((int64_t)offsetof(struct emu_cpu, lazy.res))
#define JIT_LAZY_WORD ((int64_t)offsetof(struct emu_cpu, lazy.word))
#define JIT_LAZY_CF_VALUE ((int64_t)offsetof(struct emu_cpu, lazy.cf_value))
#define JIT_CHAIN_LEFT ((int64_t)offsetof(struct emu_cpu, chain_left))
#define JIT_MEM_CTX ((int64_t)offsetof(struct emu_cpu, mem_ctx))
#define JIT_XMM(n) ((int64_t)(offsetof(struct emu_cpu, regs.zmm) + sizeof(emu_vec) * (size_t)(n)))
#define JIT_MXCSR ((int64_t)offsetof(struct emu_cpu, regs.mxcsr))
/* Byte offsets of the inline memory's fields (struct emu_inline_view). */
#define JIT_INLINE(field) ((int64_t)offsetof(struct emu_cpu, mem_inline.field))

/* What an exit raises before it stores the registers (the address of a
 * page fault is in slot 4). */
enum jit_raise { JIT_RAISE_NONE, JIT_RAISE_GP, JIT_RAISE_PF_READ, JIT_RAISE_PF_WRITE };

/* A way out of the translation: the guest registers dirty at that point
 * are stored, and the run loop gets `code` (or, with status_from_eax, the
 * status a handler returned, for instruction `index`). */
struct jit_exit {
	size_t patch;
	uint16_t dirty;
	bool status_from_eax;
	uint8_t raise; /* enum jit_raise */
	uint32_t index, status;
};

/* The jumps an inline access takes on a miss (rel32 sites to bind). */
#define JIT_INLINE_MISSES 8
struct jit_misses {
	size_t site[JIT_INLINE_MISSES];
	unsigned n;
	/* 1 + the index of the site an integer read takes when the page
	 * and the value (rax) are found but the cache does not predict
	 * it (emu_memory_ops.read_mispredicted); 0: no such site. */
	unsigned mispredicted;
};

/* An inline access's call path, made out of line after the block's
 * epilogue (jit_emit_cold) so that the hit runs straight on: where its
 * misses jump from, where it goes back to, and the translation's state
 * at the access. At most two accesses per instruction are inline. */
#define JIT_MAX_COLD (2 * EMU_MAX_BLOCK_INSNS)
struct jit_cold {
	struct jit_misses misses;
	size_t resume;
	size_t note_at; /* a write's decode-cache note in line */
	uint16_t dirty;
	uint8_t size;
	bool write;
	unsigned cur;
	/* A write that is its instruction's last effect, whose inline
	 * hit cannot have written code: its status checked on this path
	 * alone, exiting at this instruction (jit_lower_at); 0: not. */
	unsigned status_exit;
	/* A write of the block's last instruction, whose status no check
	 * follows: the slot is put back to EMU_OK after the call, as every
	 * block's code expects it on entry (the prologue sets it once, not
	 * each chained block). */
	bool status_reset;
};

/* The pending flags of a block's last flag writer kept in host registers
 * to the block's end (jit_flags_deferrable): what its ways home and its
 * flag stubs store in cpu->lazy. */
struct jit_deferred_flags {
	bool on;
	uint8_t kind, size;
	int8_t a, res;       /* host registers (a unused for a logic kind) */
	struct jit_opnd b;   /* a host register or an immediate */
};

/* The pending flags of an operation of registers that a later
 * instruction of the block replaces, kept out of cpu->lazy until then
 * (jit_flags_remakeable): the instructions between only move data and
 * leave its operands' registers alone, so an exit on the way (a fault,
 * a call's stop) remakes them from the guest registers it stored. */
struct jit_remade_flags {
	uint8_t kind, size; /* enum emu_lazy_kind; operand bytes */
	uint8_t dst, src;   /* guest registers (src unless src_imm) */
	bool writes;        /* dst holds the result, else the first operand */
	bool src_imm;
	int64_t imm;        /* as the host instruction took it */
};
#define JIT_MAX_REMADE 32

struct jit_xlate {
	struct jit_asm a;
	const struct emu_cpu *cpu;
	const struct emu_block *b;
	int8_t host[EMU_GPR_COUNT]; /* host register of each guest one, or -1 */
	uint16_t dirty;             /* cached guest registers not yet stored */
	bool flags_live;            /* host flags are the guest's (after a
				     * translated flag-setting instruction,
				     * nothing since has changed them) */
	bool wrote;                 /* the current instruction wrote memory */
	bool flags_dead;            /* the current instruction's flags are
				     * overwritten before anything can see
				     * them (jit_flags_overwritten) */
	bool defer_flags;           /* the current instruction's flags are
				     * stored at the block's end only
				     * (jit_flags_deferrable) */
	bool remake_flags;          /* the current instruction's flags are
				     * remade by the exits that need them
				     * (struct jit_remade_flags) */
	struct jit_deferred_flags deferred;
	/* What cpu->lazy holds, when a lowered instruction of this block
	 * set it (EMU_LAZY_NONE when unknown here): a conditional jump can
	 * then remake the host flags from it. */
	uint8_t lazy_kind, lazy_size;
	/* regs.rip is the block's end (emu_run's rule for what handlers
	 * see): stored before the first handler call, not on entry, since
	 * exits leave it to the run loop and a whole run's end stores the
	 * successor. */
	bool rip_stored;
	/* The block ends in a lowered jcc: the host condition (cc) that
	 * takes it, tested by the block's end (jit_translate.c). */
	bool end_jcc;
	uint8_t end_cc;
	unsigned cur;               /* index of the instruction translated */
	unsigned sse_scope_end;     /* instructions before it were made by
				     * an MXCSR scope (jit_lower_sse.c) */
	unsigned n_exits;
	unsigned n_cold;
	unsigned n_remade;
	/* Which of remade[] holds the flags before instruction m, or -1
	 * (cpu->lazy does): set for the instructions of each one's span. */
	int8_t remade_at[EMU_MAX_BLOCK_INSNS + 1];
	/* Last, and used up to their counts only: a translation clears
	 * what comes before them (jit_translate.c). */
	struct jit_exit exits[JIT_MAX_EXITS];
	struct jit_cold cold[JIT_MAX_COLD];
	struct jit_remade_flags remade[JIT_MAX_REMADE];
};

/* The stack slots ([rsp + 8 * n]) values are kept in across calls: three
 * for an instruction's operands, the last write's status (checked after
 * the instruction for a retired block) and the address of the access
 * being made (for the page fault an exit raises). */
enum jit_slot { JIT_SLOT_A, JIT_SLOT_B, JIT_SLOT_RES, JIT_SLOT_WRITE_STATUS, JIT_SLOT_ADDRESS };

/* --- jit_translate.c, for the lowering --- */

struct jit_opnd jit_slot(enum jit_slot n, unsigned size);

struct jit_opnd jit_cpu_field(int64_t off, unsigned size);
/* regs.rip = target (clobbers rax). */
void jit_set_rip(struct jit_xlate *x, uint64_t target);
/* A jump taken on host condition cc to an exit with `status` at
 * instruction `index` (the dirty registers as they are now). */
void jit_exit_if(struct jit_xlate *x, unsigned cc, unsigned index, unsigned status);
/* The same, raising a fault first (status EMU_STOP). */
void jit_fault_if(struct jit_xlate *x, unsigned cc, enum jit_raise raise);
/* Guest register g's whole value in a host register: its cache register,
 * or `scratch` loaded with it. */
int jit_guest_in(struct jit_xlate *x, unsigned g, int scratch);
/* Host register v's low `size` bytes into guest register g, by the
 * architecture's rule (4 bytes zero the upper half, 1 and 2 merge). */
void jit_guest_out(struct jit_xlate *x, unsigned g, unsigned size, int v);

/* A call of fn from translated code: every call goes by it, so the hits
 * counted in r9 are in *hits_since_miss whenever a function runs
 * (emu.h), r9 set up again after it. Clobbers r10 and r11 before the
 * call, r11 after. */
void jit_call_out(struct jit_xlate *x, const void *fn);

/* Lowered instruction i as the block's loop makes it: its host code,
 * then the check of its write's status. */
void jit_lower_at(struct jit_xlate *x, const bool *lowered, unsigned i);

/* Instruction x->cur by its handler, for a lowering's case it does not
 * make itself (the handler starts the instruction over); the
 * translation's state after it is what both ways have in common. */
void jit_handler_fallback(struct jit_xlate *x);

/* --- jit_inline_memory.c --- */

/* Whether inline reads count their hits in r9 (a memory with inline
 * accesses) instead of in *hits_since_miss: the hits not yet added to
 * it, or for a checked memory (hits_limit) the hits left before the
 * limit. */
bool jit_hits_in_r9(const struct jit_xlate *x);
/* r9's hits into *hits_since_miss, r9 kept (clobbers r10, r11 and the
 * host flags). */
void jit_hits_settle(struct jit_xlate *x);
/* r9 set up from the memory's counts (clobbers r11 and the host flags),
 * as a translation's entry from the run loop and a call's return do. */
void jit_hits_load(struct jit_xlate *x);

/* Whether the view's bitmap is a 32-bit displacement away from the data
 * (translations hold that distance as one). */
static inline bool jit_inline_bitmap_reachable(const struct emu_inline_view *v)
{
	return (int64_t)v->dirty_offset == (int64_t)(int32_t)v->dirty_offset;
}

/* Whether cpu's memory has its accesses made inline: it describes them
 * (emu_memory_ops.inline_memory) with its bitmap within reach. */
static inline bool jit_inline_memory_usable(const struct emu_cpu *cpu)
{
	return cpu->mem->inline_memory && jit_inline_bitmap_reachable(&cpu->mem_inline);
}

/* For a memory with emu_memory_ops.inline_memory: the read of `size`
 * bytes (1, 2, 4, 8 or 16) at rsi as host code when it is a hit (the
 * value in rax, 16 bytes in rax and r11, then a
 * jump to the returned site, to be bound); every other case falls through
 * with rsi unchanged, to the call. Clobbers rax rcx rdx r8 r10 r11. */
size_t jit_inline_read(struct jit_xlate *x, unsigned size);
/* The same for a write of rcx's low `size` bytes at rsi, when the memory
 * takes writes inline; rcx and rsi are unchanged on the way to the call.
 * Clobbers rax rcx rdx r8 r10 r11; the hit's jump leaves rsi unchanged
 * too. */
size_t jit_inline_write(struct jit_xlate *x, unsigned size);
/* The size for both of 16 bytes at any address within one page
 * (movdqu's; `16` wants them aligned to 16): a write's value is in host
 * xmm0 (clobbered on a hit). */
#define JIT_INLINE_16_ANY 17u
/* The same two with the hit going on straight after them, and every
 * other case jumping to the sites in *m (jit_lower.c binds them to the
 * call, made out of line). */
void jit_inline_read_misses(struct jit_xlate *x, unsigned size, struct jit_misses *m);
/* On a read's call path (size 2, 4, 8; false for others, nothing
 * emitted): the read made inline when it crosses from one 8-byte line
 * into the next within a page, the value in rax on a hit, which goes on
 * straight after it; the rest jumps to the sites in *m. Clobbers what
 * the read's sequence does; rsi is kept. */
#define JIT_INLINE_CROSSING 0x100u
bool jit_inline_read_crossing_misses(struct jit_xlate *x, unsigned size, struct jit_misses *m);
/* The common sequences take an address aligned to the access's size;
 * on the call path (size 2, 4; false for others, nothing emitted), the
 * read or write made inline at an address that is not but lies within
 * one 8-byte line, as those sequences' hits (a write's goes on where
 * theirs does). */
#define JIT_INLINE_MISALIGNED 0x200u
bool jit_inline_misaligned_misses(struct jit_xlate *x, bool write, unsigned size,
				  struct jit_misses *m);
void jit_inline_write_misses(struct jit_xlate *x, unsigned size, struct jit_misses *m);
/* For a run of pushes (jit_lower_stack_run.c), when the memory takes
 * writes inline with no note of written code and its cache is directly
 * mapped (else false, nothing emitted): a miss unless the `bytes` (a
 * multiple of 8) from rsi, aligned to 8, lie in one page writable
 * inline (and their cache entries before the cache's end); then rdi =
 * their first byte's host address, r10 its dirty bitmap byte's and r11
 * its cache entry's, for jit_inline_push_store. */
bool jit_inline_push_run_page(struct jit_xlate *x, unsigned bytes, struct jit_misses *m);
/* Whether it would: the memory's part of its conditions. */
bool jit_inline_push_runs(const struct jit_xlate *x);
/* Host register v's 8 bytes at rsi + disp (disp a multiple of 8 within
 * the run's bytes): stored, their dirty bits set, the cache's entry
 * updated. */
void jit_inline_push_store(struct jit_xlate *x, int v, unsigned disp);
/* An ALU operation into memory: its read and write of `size` bytes at
 * rsi made inline through one check of their page, for a memory whose
 * writes are inline with no note of written code and whose cache is
 * directly mapped (jit_inline_updates). The read misses unless the page
 * is writable inline and the value predicted (and known, below the hit
 * limit, for a checked memory); then rax = the value (zero-extended),
 * and r8, r10 and r11 (kept until the write) locate the bytes, their
 * dirty bits and their cache entry. The write stores rax's low bytes
 * there (clobbers rcx rdx r10). */
bool jit_inline_updates(const struct jit_xlate *x, unsigned size);
void jit_inline_update_read(struct jit_xlate *x, unsigned size, struct jit_misses *m);
void jit_inline_update_write(struct jit_xlate *x, unsigned size);
/* For a run of n pops, when the memory makes reads inline with a
 * directly mapped cache (else false, nothing emitted): a miss unless the
 * 8n bytes from rsi, aligned to 8, lie in one page readable inline, each
 * 8 of them predicted by its cache entry (and for a checked memory known,
 * with n hits left before the limit); then the n hits are counted and
 * rdi = the first byte's host address (clobbers rax rcx rdx r8 r10 r11). */
bool jit_inline_pop_run_check(struct jit_xlate *x, unsigned n, struct jit_misses *m);
bool jit_inline_pop_runs(const struct jit_xlate *x);
/* True when the memory keeps inline writes off pages of decoded code
 * (emu_memory_ops.decoded_code_page): an inline write's hit then needs
 * no check for self-modifying code, and leaves the write status slot
 * as the block's entry set it (EMU_OK). */
static inline bool jit_inline_writes_miss_code(const struct jit_xlate *x)
{
	return x->cpu->mem->decoded_code_page &&
	       x->cpu->mem_inline.write_tag_bit == EMU_INLINE_PAGE_WRITABLE;
}

/* --- jit_lower.c --- */

/* Whether `insn` has a host-code form (else the translation calls its
 * handler); jit_lower emits it. */
bool jit_lowerable(const struct emu_insn *insn);
/* Whether instruction i's status flags are dead: a later lowered
 * add/sub/cmp/and/or/xor/test of registers overwrites them with only
 * register moves between, so no read, handler or exit can see them. */
bool jit_flags_overwritten(const struct emu_block *b, const bool *lowered, unsigned i);
/* rol/ror of a register by an immediate: assemble lowers one only where
 * the flags after it are overwritten unseen (jit_flags_overwritten). */
bool jit_rotate_lowerable(const struct emu_insn *insn);
/* Whether b's first instructions replace every status flag with only
 * register moves before (emu_jit_header.overwrites_flags). */
bool jit_block_overwrites_flags(const struct emu_block *b, const bool *lowered);
/* Whether instruction i's pending flags may be kept in host registers to
 * the block's end: a lowered add/sub/cmp/and/or/xor/test (not one that
 * writes memory) followed by nothing but the block's lowered direct jmp or
 * jcc, so no exit, handler or read comes between. */
bool jit_flags_deferrable(const struct emu_block *b, const bool *lowered, unsigned i);
/* The deferred pending flags (x->deferred) into cpu->lazy. */
void jit_store_deferred_flags(struct jit_xlate *x);
/* Whether instruction i's pending flags may be left out of cpu->lazy and
 * remade by the exits before the instruction that replaces them
 * (*until): a lowered add/sub/cmp/and/or/xor/test of a 4- or 8-byte
 * register with a register or an immediate, then only lowered moves
 * (of memory too) that write neither operand's register, then a lowered
 * instruction that replaces every status flag. What it left out: *f. */
bool jit_flags_remakeable(const struct emu_block *b, const bool *lowered, unsigned i,
			  unsigned *until, struct jit_remade_flags *f);
/* f into cpu->lazy, from the guest registers in cpu->regs (an exit's,
 * after it stored them); clobbers rcx and rdx. */
void jit_remake_flags(struct jit_xlate *x, const struct jit_remade_flags *f);
void jit_lower(struct jit_xlate *x, const struct emu_insn *insn);
/* The instruction's memory operand's address into rsi, as emu_mem_addr
 * computes it, without touching the host flags. */
void jit_address_to_rsi(struct jit_xlate *x, const struct emu_insn *insn);
/* After a write of `size` bytes at rsi within one page: what
 * emu_decode_cache_note_write does, the status in its slot. */
void jit_note_write(struct jit_xlate *x, unsigned size);
/* `size` bytes at rsi into rax, zero-extended, as the handler's read
 * (inline when the memory allows; a fault ends the block). */
void jit_read_at_rsi(struct jit_xlate *x, unsigned size);
/* emu_set_status_flags(cpu, rcx): the status flags replaced, none left
 * pending (clobbers rax). */
void jit_status_flags_from_rcx(struct jit_xlate *x);
/* The call path of an inline access deferred by the lowering, then a
 * jump back to where its hit goes on (jit_translate.c, after the
 * epilogue). */
void jit_emit_cold(struct jit_xlate *x, const struct jit_cold *c);

/* --- jit_lower_stack_run.c --- */

/* How many instructions from instruction i, a push of a register, make
 * one run: pushes of registers and the register moves between them
 * (0 when not: fewer than two pushes, or a memory
 * jit_inline_push_run_page does not serve). */
unsigned jit_push_run(const struct jit_xlate *x, const bool *lowered, unsigned i);
/* Instructions i .. i + n - 1 of a push run: the pushes' stores made
 * through one check of their page, then the moves; or each instruction
 * as jit_lower_at makes it, in order, when that check misses. */
void jit_lower_push_run(struct jit_xlate *x, const bool *lowered, unsigned i, unsigned n);
/* The same for pops of registers (jit_inline_pop_run_check), with the
 * plain ret after them if there is one (then one pop may be enough). */
unsigned jit_pop_run(const struct jit_xlate *x, const bool *lowered, unsigned i);
void jit_lower_pop_run(struct jit_xlate *x, const bool *lowered, unsigned i, unsigned n);

/* --- jit_lower_shift_count.c --- */

/* shl/shr/sar of a 32- or 64-bit register by cl (jit_lowerable counts
 * them; jit_lower emits them). */
bool jit_shift_count_lowerable(const struct emu_insn *insn);
void jit_lower_shift_count(struct jit_xlate *x, const struct emu_insn *insn);
/* --- jit_lower_divide.c --- */

/* div of rdx:rax by a 32- or 64-bit register (jit_lowerable counts it). */
bool jit_divide_lowerable(const struct emu_insn *insn);
void jit_lower_divide(struct jit_xlate *x, const struct emu_insn *insn);
/* --- jit_lower_bit_count.c --- */

/* bsf, bsr, tzcnt, lzcnt and popcnt of a register or memory. */
bool jit_bit_count_lowerable(const struct emu_insn *insn);
void jit_lower_bit_count(struct jit_xlate *x, const struct emu_insn *insn);
/* --- jit_lower_vector.c --- */

/* Whether insn is an SSE move to or from memory made inline, or one of
 * jit_lower_sse.c's forms (jit_lower_vector_move makes either), for
 * cpu's memory. */
bool jit_vector_move_lowerable(const struct emu_cpu *cpu, const struct emu_insn *insn);
void jit_lower_vector_move(struct jit_xlate *x, const struct emu_insn *insn);
/* --- jit_lower_sse.c --- */

/* Whether insn is SSE arithmetic, a conversion or a register move that
 * runs as the host's instruction on the guest's XMM registers. */
bool jit_sse_lowerable(const struct emu_cpu *cpu, const struct emu_insn *insn);
void jit_lower_sse(struct jit_xlate *x, const struct emu_insn *insn);

/* How a lowered instruction uses guest register g: not at all, reads it
 * (or writes part of it), or replaces it whole without reading it first
 * (then the translation need not load it before). */
enum jit_use { JIT_USE_NONE, JIT_USE_READ, JIT_USE_WRITE };
enum jit_use jit_use_of(const struct emu_insn *insn, unsigned g);

/* Adds 1 to uses[g] for each guest register insn reads or writes. */
void jit_count_uses(const struct emu_insn *insn, unsigned uses[EMU_GPR_COUNT]);

#endif
