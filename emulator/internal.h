/*
 * internal.h — what the emulator's own files share: the CPU object, the
 * predecoded instruction form, and the uniform handler signature.
 * Nothing outside emulator/ includes this header.
 */
#ifndef TTREC_EMU_INTERNAL_H
#define TTREC_EMU_INTERNAL_H

#include "emu.h"

#define EMU_LIKELY(x) __builtin_expect(!!(x), 1)
#define EMU_UNLIKELY(x) __builtin_expect(!!(x), 0)

struct emu_cpu;
struct emu_insn;

/*
 * Every instruction handler has this signature. It returns EMU_OK or the
 * exit that stops the run (a fault set with emu_fault()). When the last
 * handler of a block runs (control transfers and specials end blocks),
 * regs.rip holds the address of the next instruction, and a control
 * transfer overwrites it; earlier handlers of the block must not read
 * regs.rip (emu_run sets it once per block). A handler that faults must not have
 * changed architectural state (read everything before writing anything).
 */
typedef int emu_handler(struct emu_cpu *cpu, const struct emu_insn *insn);

/* EMU_STALE: returned only by emu_handler_stale, never by an instruction's
 * own handler. */
enum { EMU_OK = 0, EMU_STOP = 1, EMU_STALE = 2 };

/* Kinds of decoded operands. */
enum emu_operand_kind {
	EMU_OPND_NONE,
	EMU_OPND_GPR,   /* reg = byte offset into regs.gpr (AH..BH are +1) */
	EMU_OPND_MEM,   /* the instruction's memory operand (insn->mem) */
	EMU_OPND_AGEN,  /* lea: the address itself, no access */
	EMU_OPND_IMM,   /* insn->imm (sign- or zero-extended as decoded) */
	EMU_OPND_VEC,   /* reg = xmm/ymm/zmm number, size = bytes used */
	EMU_OPND_MMX,   /* reg = mm number */
	EMU_OPND_X87,   /* reg = st(i) */
	EMU_OPND_MASK,  /* reg = k number */
	EMU_OPND_SEG,   /* reg = segment register number (es cs ss ds fs gs) */
	EMU_OPND_OTHER, /* anything else: the binder decides */
};

struct emu_operand {
	uint8_t kind;  /* enum emu_operand_kind */
	uint8_t size;  /* bytes */
	uint8_t reg;
};

#define EMU_NO_REG 0xff

/* Segment override kinds that change the linear address in 64-bit mode. */
enum { EMU_SEG_NONE, EMU_SEG_FS, EMU_SEG_GS };

struct emu_mem_operand {
	int64_t disp;      /* rip-relative operands are resolved into disp */
	uint8_t base;      /* GPR number or EMU_NO_REG */
	uint8_t index;     /* GPR number or EMU_NO_REG (VSIB: vector number) */
	uint8_t scale;     /* 1, 2, 4, 8 */
	uint8_t seg;       /* EMU_SEG_* */
	uint8_t addr32;    /* 0x67 prefix: address computed in 32 bits */
};

/* Prefix and attribute bits in emu_insn.attr. */
enum {
	EMU_ATTR_LOCK = 1u << 0,
	EMU_ATTR_REP = 1u << 1,    /* rep / repe / repz */
	EMU_ATTR_REPNE = 1u << 2,  /* repne / repnz */
	EMU_ATTR_VEX = 1u << 3,
	EMU_ATTR_EVEX = 1u << 4,
	EMU_ATTR_OPSIZE = 1u << 5, /* 0x66 present */
	EMU_ATTR_FAR = 1u << 6,    /* far jmp/call/ret: not emulated */
};

/*
 * The predecoded form of one instruction: built once by the decoder, read by
 * its handler on every execution. `op` and `cond` are the parameters that
 * let one handler serve a family (which ALU operation, which condition).
 */
struct emu_insn {
	emu_handler *handler;
	uint64_t addr;
	uint64_t imm;        /* immediate, or absolute target of rel branches */
	struct emu_mem_operand mem;
	struct emu_operand opnd[4]; /* explicit operands, Intel order */
	uint8_t len;
	uint8_t nopnd;
	uint8_t opsize;      /* effective operand size in bytes */
	uint8_t op;          /* family-defined operation selector */
	uint8_t cond;        /* condition code 0..15 where relevant */
	uint8_t attr;        /* EMU_ATTR_* */
	uint8_t imm2;        /* second immediate (enter) */
	uint8_t vl;          /* vector length in bytes for VEX/EVEX forms */
	uint16_t mnemonic;   /* ZydisMnemonic, for reports */
	uint16_t ends_block; /* control transfer or special: block ends here */
};

struct emu_decode_cache;
struct emu_block;
struct emu_jit;

/* Most instructions in one decoded block. */
#define EMU_MAX_BLOCK_INSNS 32

/* A block translated to host code (jit.h): what stopped it, and the last
 * block it ran (translations chain into each other). */
struct emu_jit_exit {
	uint64_t code;
	struct emu_block *block;
};
typedef struct emu_jit_exit emu_jit_code(struct emu_cpu *cpu);

/* A remembered successor of a block: the block that starts at rip, valid
 * while the CPU's code_generation is still `generation` and the block is
 * not retired. Retired blocks are freed in batches, each batch bumping
 * the generation, so a link never leads to freed memory. */
struct emu_block_link {
	uint64_t rip;
	uint64_t generation;
	struct emu_block *block;
};

/* Decode cache block: a straight run of decoded instructions. The run loop
 * follows `links` from one block to the next without a cache lookup: one
 * link for each of the two successors a conditional branch has. What the
 * run loop reads on every block comes first, in one cache line, and each
 * instruction has a cache line of its own (blocks are 64-byte aligned). */
struct emu_block {
	struct emu_block_link links[2];
	uint64_t next_rip;   /* the address after the last instruction */
	uint32_t count;
	/* Handlers the run loop calls when nothing observes it: count, or
	 * count - 1 when the last two instructions are fused (a compare and
	 * the conditional jump after it, run by the compare's handler). */
	uint32_t fused_count;
	emu_handler *unfused; /* the compare's own handler, for stepping */
	bool retired;
	/* The CPU's fetch_epoch when the block last fetched its bytes. */
	uint64_t fetch_epoch;
	/* Its host code once it ran EMU_JIT_HOT times whole (jit.h), or
	 * NULL; heat counts those runs. */
	emu_jit_code *jit;
	uint32_t heat;
	uint64_t start;
	uint64_t first_page, last_page;
	struct emu_block *hash_next;
	struct emu_block *retired_next;
	_Alignas(64) struct emu_insn insns[];
};

/*
 * Status flags not yet computed (flags.h). The common arithmetic records its
 * operands and result here instead of computing six flags that the next
 * instruction usually overwrites; the flags are computed when something
 * reads them. While `kind` is EMU_LAZY_NONE, regs.rflags holds them.
 */
enum emu_lazy_kind {
	EMU_LAZY_NONE,
	EMU_LAZY_ADD,
	EMU_LAZY_SUB,
	EMU_LAZY_LOGIC,
	EMU_LAZY_SHIFT, /* shl/shr/sar: a = CF, b = OF (0 or 1), AF clear */
};

struct emu_lazy_flags {
	uint64_t a, b, res;  /* res = a op b (- carry_in for SUB) */
	/* The four bytes are written together, as `word`, by every writer: a
	 * reader the compiler lets load two of them at once would otherwise
	 * wait for separate byte stores to retire (a failed store-to-load
	 * forward costs more than the rest of a jcc). */
	union {
		struct {
			uint8_t kind;     /* enum emu_lazy_kind */
			uint8_t size;     /* operand bytes */
			uint8_t carry_in; /* adc/sbb: the carry or borrow taken in */
			uint8_t keep_cf;  /* inc/dec: CF is cf_value, not the operation's */
		};
		uint32_t word;
	};
	uint8_t cf_value;
};

/* struct emu_inline_memory (emu.h) in the shape the inline accesses use
 * (jit_inline_memory.c): the page table's index mask in bytes, and the
 * bit a write's page tag must have (none has it when writes always
 * call). */
#define EMU_INLINE_NEVER_WRITABLE 0x20u /* no tag is a page | 0x20 */
struct emu_inline_view {
	const struct emu_inline_page *pages;
	uint64_t page_bytes_mask; /* page_mask * sizeof(struct emu_inline_page) */
	uint8_t *cache;
	uint64_t cache_multiplier;
	uint64_t cache_shift;
	uint64_t cache_direct_mask;
	uint64_t *hits_since_miss;
	uint64_t write_tag_bit; /* EMU_INLINE_PAGE_WRITABLE or EMU_INLINE_NEVER_WRITABLE */
	uint64_t dirty_offset;
	const uint64_t *hits_limit;
};

struct emu_cpu {
	struct emu_regs regs;
	struct emu_lazy_flags lazy;
	const struct emu_memory_ops *mem;
	void *mem_ctx;
	/* mem->inline_memory(mem_ctx) as translated code reads it: copied
	 * here when the context is set, so an inline access reaches every
	 * field at a fixed offset from the cpu (kept in a host register)
	 * without loading the contract's address first. */
	struct emu_inline_view mem_inline;
	struct emu_observer obs;
	bool has_observer;
	struct emu_exit_info exit;
	/* The destination (a GPR byte offset) of the rdrand or rdseed the
	 * last exit reported, for emu_complete_random. */
	uint8_t random_dest;
	uint64_t icount;
	/* Translations chain from block to block while icount is below
	 * this: a whole block still fits under emu_run's instruction limit
	 * (the limit - EMU_MAX_BLOCK_INSNS + 1, so one compare decides). */
	uint64_t chain_limit;
	/* chain_limit - icount when the run loop enters a translation (0
	 * when icount is past it, at most INT64_MAX): each block end
	 * subtracts its count and goes on while it stays above 0, one
	 * instruction instead of a load and a compare of icount. icount is
	 * not counted in translated code: the run loop adds what chain_left
	 * lost when the translation returns (nothing a translation calls
	 * reads icount: memory callbacks that need it run observed). */
	int64_t chain_left;
	struct emu_decode_cache *cache;
	/* Set when decoded code was invalidated, so a block run one
	 * instruction at a time stops after the current instruction. A block
	 * run whole needs no check: retiring a block replaces each of its
	 * handlers with emu_handler_stale (decode_cache.c). */
	bool code_changed;
	/* Bumped whenever decoded blocks are retired: invalidates every
	 * emu_block_link at once. */
	uint64_t code_generation;
	/* Bumped by emu_refetch_code and emu_report_code: a block of an
	 * older epoch is seen to before it runs (emu_block_refetch): it
	 * fetches its bytes again if it is older than refetch_epoch (the
	 * epoch emu_refetch_code last began), and reports its code to
	 * code_report if that is set. */
	uint64_t fetch_epoch, refetch_epoch;
	void (*code_report)(void *ctx, uint64_t addr, uint64_t len);
	void *code_report_ctx;
	/* The decode cache's filter of pages that may hold decoded code, one
	 * bit per page number modulo EMU_CODE_FILTER_BITS: lets a write to a
	 * data page (nearly all of them) be told apart without a call. */
	const uint64_t *code_page_filter;
	/* The block translator, when enabled (emu_set_jit). */
	struct emu_jit *jit;
};

#define EMU_CODE_FILTER_BITS EMU_CODE_PAGE_FILTER_BITS

/* Records a fault and returns EMU_STOP, for handlers: return emu_fault(...). */
static inline int emu_fault(struct emu_cpu *cpu, enum emu_fault_vector v)
{
	cpu->exit.reason = EMU_EXIT_FAULT;
	cpu->exit.fault = v;
	return EMU_STOP;
}

static inline int emu_page_fault(struct emu_cpu *cpu, uint64_t addr, bool write)
{
	cpu->exit.fault_addr = addr;
	cpu->exit.fault_write = write;
	return emu_fault(cpu, EMU_FAULT_PF);
}

/* Decode cache (decode_cache.c). */
struct emu_decode_cache *emu_decode_cache_new(void);
void emu_decode_cache_free(struct emu_decode_cache *c);
/* Returns the block starting at rip, decoding it if needed; NULL with
 * cpu->exit set (fault on fetch, undecodable) when no instruction starts
 * there. */
struct emu_block *emu_decode_cache_lookup(struct emu_cpu *cpu, uint64_t rip);
/* b's fetch epoch is old: its fetches made again (when emu_refetch_code
 * asked for them) and its code reported (when emu_report_code did); b,
 * or (should an instruction's bytes no longer all be fetchable) b retired
 * and its start decoded anew, or NULL when memory is short. */
struct emu_block *emu_block_refetch(struct emu_cpu *cpu, struct emu_block *b);
const uint64_t *emu_decode_cache_page_filter(const struct emu_decode_cache *c);
/* Drops every block's translation (the code area was emptied). */
void emu_decode_cache_forget_translations(struct emu_decode_cache *c);
/* Undoes every chain between translations (jit.h). */
void emu_decode_cache_unchain_all(struct emu_decode_cache *c);
/* Retires the blocks on pages [first, last] that hold decoded code. */
void emu_decode_cache_write_slow(struct emu_cpu *cpu, uint64_t first, uint64_t last);

/* Called for every emulated write: a bit test unless the page holds code. */
static inline void emu_decode_cache_note_write(struct emu_cpu *cpu, uint64_t addr, uint64_t len)
{
	uint64_t first = addr >> 12, last = (addr + len - 1) >> 12;
	for (uint64_t pg = first; pg <= last; pg++) {
		unsigned bit = (unsigned)(pg & (EMU_CODE_FILTER_BITS - 1));
		if (EMU_UNLIKELY(cpu->code_page_filter[bit / 64] & (1ull << (bit % 64)))) {
			emu_decode_cache_write_slow(cpu, pg, last);
			return;
		}
	}
}

/* The block starting at rip when the run loop leaves block `from`: its
 * links first, then the cache. */
static inline struct emu_block *emu_block_next(struct emu_cpu *cpu, struct emu_block *from,
					       uint64_t rip)
{
	if (EMU_LIKELY(from != NULL)) {
		for (int i = 0; i < 2; i++) {
			const struct emu_block_link *l = &from->links[i];
			if (l->rip == rip && l->generation == cpu->code_generation && l->block &&
			    !l->block->retired)
				return l->block;
		}
	}
	struct emu_block *b = emu_decode_cache_lookup(cpu, rip);
	if (from && b) {
		/* The fall-through successor keeps link 0, any other link 1. */
		const struct emu_insn *last = &from->insns[from->count - 1];
		struct emu_block_link *l = &from->links[rip == last->addr + last->len ? 0 : 1];
		l->rip = rip;
		l->generation = cpu->code_generation;
		l->block = b;
	}
	return b;
}
/* Frees the retired blocks once there are enough of them to be worth a
 * new link generation (at the end of a run: none is running then). */
void emu_decode_cache_release_retired(struct emu_cpu *cpu);

/*
 * Compare-and-branch fusion (decode_cache.c asks, the families answer).
 * emu_jcc_condition: the condition (0..15) of a conditional jump, or -1.
 * emu_fuse_compare: a handler that runs the compare `cmp` and then the
 * conditional jump with condition cc that follows it (cmp + 1), or NULL
 * when cmp is not a compare it can fuse.
 */
int emu_jcc_condition(const struct emu_insn *insn);
emu_handler *emu_fuse_compare(const struct emu_insn *cmp, unsigned cc);

/* The sixteen mnemonics of a condition family, in condition-code order
 * (the decoder's insn->op for them). */
#define CONDITION_MNEMONICS(F) { ZYDIS_MNEMONIC_##F##O, ZYDIS_MNEMONIC_##F##NO, \
	ZYDIS_MNEMONIC_##F##B, ZYDIS_MNEMONIC_##F##NB, ZYDIS_MNEMONIC_##F##Z, \
	ZYDIS_MNEMONIC_##F##NZ, ZYDIS_MNEMONIC_##F##BE, ZYDIS_MNEMONIC_##F##NBE, \
	ZYDIS_MNEMONIC_##F##S, ZYDIS_MNEMONIC_##F##NS, ZYDIS_MNEMONIC_##F##P, \
	ZYDIS_MNEMONIC_##F##NP, ZYDIS_MNEMONIC_##F##L, ZYDIS_MNEMONIC_##F##NL, \
	ZYDIS_MNEMONIC_##F##LE, ZYDIS_MNEMONIC_##F##NLE }

/* Decoder (decode.c): fills *insn from the bytes at addr. Returns true on
 * success; on failure insn->handler is the unimplemented or #UD handler and
 * the instruction still has a length where one could be decoded. */
bool emu_decode(const uint8_t *bytes, size_t len, uint64_t addr,
		struct emu_insn *insn);
/* The common forms without Zydis (decode_fast.c): fills the fields
 * decode.c would make of Zydis's answer, all but the handler and op, or
 * returns false for decode.c to ask Zydis (insn is then to be reset). */
bool emu_decode_fast(const uint8_t *bytes, size_t len, uint64_t addr,
		     struct emu_insn *insn);
/* emu_decode asking Zydis for every form: what tests hold decode_fast.c
 * to. */
bool emu_decode_with_zydis_only(const uint8_t *bytes, size_t len, uint64_t addr,
				struct emu_insn *insn);

/* Name of a ZydisMnemonic, for reports (decode.c). */
const char *emu_mnemonic_name(uint16_t mnemonic);

/* Handlers every family may use. */
int emu_handler_unimplemented(struct emu_cpu *cpu, const struct emu_insn *insn);
int emu_handler_undefined(struct emu_cpu *cpu, const struct emu_insn *insn);
/* The handler of every instruction of a retired block: the instruction was
 * not run, and the run loop decodes again from its address. */
int emu_handler_stale(struct emu_cpu *cpu, const struct emu_insn *insn);

#endif
