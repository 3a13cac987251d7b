/*
 * emu.h — the public interface of the x86-64 user-mode emulator.
 *
 * The recorder, the replayer, the tests and the benchmarks see only this
 * header. A CPU is created over a memory interface (read, write, fetch) that
 * the caller implements; emu_run() executes instructions until an event the
 * caller must handle (a special instruction, a fault, an instruction the
 * emulator does not implement) or until an instruction budget is spent.
 */
#ifndef TTREC_EMU_H
#define TTREC_EMU_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/* General-purpose register numbers, in the encoding's order. */
enum emu_gpr {
	EMU_RAX, EMU_RCX, EMU_RDX, EMU_RBX, EMU_RSP, EMU_RBP, EMU_RSI, EMU_RDI,
	EMU_R8, EMU_R9, EMU_R10, EMU_R11, EMU_R12, EMU_R13, EMU_R14, EMU_R15,
	EMU_GPR_COUNT
};

/* RFLAGS bits. */
enum {
	EMU_CF = 1u << 0, EMU_PF = 1u << 2, EMU_AF = 1u << 4, EMU_ZF = 1u << 6,
	EMU_SF = 1u << 7, EMU_TF = 1u << 8, EMU_IF = 1u << 9, EMU_DF = 1u << 10,
	EMU_OF = 1u << 11, EMU_AC = 1u << 18, EMU_ID = 1u << 21,
	EMU_STATUS_FLAGS = EMU_CF | EMU_PF | EMU_AF | EMU_ZF | EMU_SF | EMU_OF,
};

/* One vector register as wide as the widest the architecture has (ZMM). */
typedef union emu_vec {
	uint8_t b[64];
	uint16_t w[32];
	uint32_t d[16];
	uint64_t q[8];
	float f[16];
	double df[8];
} emu_vec;

/* One x87 physical register: 80-bit extended value in the low 10 bytes.
 * MMX register i is the low 8 bytes of physical register i. */
typedef union emu_x87_reg {
	uint8_t bytes[16];
	uint64_t mmx;
} emu_x87_reg;

/*
 * The complete user-mode architectural state. Everything a thread can
 * observe is here, including state whose instructions are not yet emulated,
 * so that the recorder can load and save a thread without loss.
 */
struct emu_regs {
	uint64_t gpr[EMU_GPR_COUNT];
	uint64_t rip;
	uint64_t rflags;
	uint64_t fs_base, gs_base;
	uint16_t seg_cs, seg_ss, seg_ds, seg_es, seg_fs, seg_gs;

	/* x87 and MMX. fsw holds TOP in bits 11..13; ftw is the full 16-bit
	 * tag word (two bits per physical register, 11 = empty). */
	emu_x87_reg st[8];
	uint16_t fcw, fsw, ftw, fop;
	uint64_t fip, fdp;

	/* SSE/AVX/AVX-512. */
	emu_vec zmm[32];
	uint64_t k[8];
	uint32_t mxcsr;
};

/* Result of a memory access through the interface. */
enum emu_mem_status { EMU_MEM_OK = 0, EMU_MEM_FAULT = 1 };

/*
 * The memory behind the CPU. Addresses are linear (segment bases already
 * applied). read/write return EMU_MEM_OK or EMU_MEM_FAULT (the address is
 * not mapped with the needed permission: the CPU raises #PF); a failing
 * access changes nothing, not even partly. fetch reads
 * instruction bytes and returns how many of `size` it could read from the
 * start (fewer at the end of executable memory), 0 if none.
 */
/* What read_uint returns: two words, so both come back in registers. */
struct emu_mem_uint {
	uint64_t value;  /* zero-extended; 0 when status is not EMU_MEM_OK */
	int status;      /* EMU_MEM_OK or EMU_MEM_FAULT, as read's */
};

/*
 * The common reads and writes made inline (optional:
 * emu_memory_ops.inline_memory). A memory whose integer accesses are
 * "find the page in a direct-mapped table, load or store the value, check
 * or update a direct-mapped prediction cache" describes those tables here,
 * and translated code does that much itself, with no call. Whenever any
 * step does not apply (no page, an access crossing a cache entry, a value
 * the cache does not predict, a page not writable inline) it calls read_uint_sized /
 * write_uint_sized as before, which must then start over: the inline path
 * changes nothing before it knows it completes. So the memory sees the
 * same accesses, made inline or called, in the same order, with or
 * without translation.
 *
 * An integer access of n (1, 2, 4, 8) bytes at addr, with
 * p = pages[(addr >> 12) & page_mask] (pages of the lower half only) and
 * e the 8-byte entry at cache + 64 * (((addr >> 6) * cache_multiplier) >>
 * cache_shift) + (addr & 56), or, in a direct-mapped cache
 * (cache_direct_mask, the cache's bytes - 1, not 0), at cache + (addr &
 * cache_direct_mask & ~7) (a little-endian integer; lane k is its bits
 * 8k..8k+7: the entries of an aligned 64-byte block are consecutive), is
 * made inline when (addr & 7) + n <= 8 (one cache entry, so one page) and:
 *   - a read: (p->tag & ~EMU_INLINE_PAGE_WRITABLE) == (addr & ~4095) (or,
 *     the same, p->read_tag == (addr & ~4095)), and the n bytes at
 *     p->data + (addr & 4095) (p->delta + addr) equal lanes (addr & 7) and up
 *     of e. The read returns them; *hits_since_miss grows by
 *     one (the memory's only count of hits: one increment per hit).
 *     Translated code may keep the count elsewhere and store it
 *     later: it is exact whenever a function of the memory runs and
 *     when emu_run returns, not in between.
 *   - a write, when writes_inline: p->tag == ((addr & ~4095) |
 *     EMU_INLINE_PAGE_WRITABLE) (the memory leaves WRITABLE off every page
 *     whose writes must make the call). The bytes go to p->data + (addr &
 *     4095) and to e's lanes, and bits (addr & 4095) .. + n - 1 of the
 *     bitmap at p->data + dirty_offset are set.
 * A vector access of 16 bytes within one page ((addr & 4095) <= 4080;
 * at an addr not aligned to 8, three entries) is made inline the same
 * way: a read when the entries' lanes hold its bytes, counted as one
 * hit (it is one read, as `read` of 16 bytes is); a write as the
 * writes of its bytes to their lanes, which must leave what `write` of
 * the 16 bytes leaves. So is an integer read of 2, 4 or 8 bytes that
 * crosses into the next 8-byte line within one page ((addr & 7) + n >
 * 8, (addr & 4095) <= 4096 - n): a hit, counted once, when lanes
 * (addr & 7) and up of e and the first lanes of the next line's entry
 * hold its bytes (its writes always call).
 * (Bitmaps are little-endian: bit b is bit b % 8 of byte b / 8.)
 */
#define EMU_INLINE_PAGE_WRITABLE 0x10u
struct emu_inline_page {
	uint64_t tag;  /* the page's address (| WRITABLE); a tag not page-aligned
			* once WRITABLE is cleared (UINT64_MAX) holds none */
	uint8_t *data; /* the page's 4096 bytes */
	/* The same page for reads alone, so that their test is one compare
	 * and their bytes one load from the address: page_addr (the tag
	 * without WRITABLE), or UINT64_MAX with the tag's; and data -
	 * page_addr. WRITABLE alone may change in tag: these stay. */
	uint64_t read_tag;
	uintptr_t delta;
};

/* An entry holding the page at page_addr (its 4096 bytes at data). */
static inline void emu_inline_page_set(struct emu_inline_page *e, uint64_t page_addr, uint8_t *data,
				       bool writable)
{
	*e = (struct emu_inline_page){ .tag = page_addr | (writable ? EMU_INLINE_PAGE_WRITABLE : 0),
				       .data = data, .read_tag = page_addr,
				       .delta = (uintptr_t)data - (uintptr_t)page_addr };
}

/* An entry holding no page. */
static inline void emu_inline_page_clear(struct emu_inline_page *e)
{
	*e = (struct emu_inline_page){ .tag = UINT64_MAX, .read_tag = UINT64_MAX };
}
struct emu_inline_memory {
	const struct emu_inline_page *pages;
	uint64_t page_mask;
	uint8_t *cache;
	uint64_t cache_multiplier;
	uint64_t cache_shift;
	uint64_t cache_direct_mask; /* 0: hashed by the multiplier */
	uint64_t *hits_since_miss;
	bool writes_inline; /* false: writes always call */
	/* The bitmap's distance from the data: a 32-bit signed value
	 * (translations hold it as a displacement), else no access is made
	 * inline. */
	uint64_t dirty_offset;
	/* NULL, or (a memory whose page bytes may be unknown, whose cache
	 * must not be trusted past a count: the replayer's) reads are made
	 * inline only while *hits_since_miss < *hits_limit and when the n
	 * bits from bit (addr & 4095) of the bitmap at p->data +
	 * dirty_offset are all set. The same (NULL or not) for every
	 * context of one memory: translations are made for one kind. */
	const uint64_t *hits_limit;
};

struct emu_memory_ops {
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t size);
	int (*write)(void *ctx, uint64_t addr, const void *buf, size_t size);
	size_t (*fetch)(void *ctx, uint64_t addr, void *buf, size_t size);
	/*
	 * Optional (NULL: write is used): the write cycle of a locked
	 * instruction that puts back the bytes it has just read at addr (a
	 * failed cmpxchg). Must fault exactly as write would and do all write
	 * does but change the real memory: a memory whose copy may be older
	 * than the real one (the recorder's, while another thread's system
	 * call writes there) would put older bytes over the kernel's.
	 */
	int (*write_back)(void *ctx, uint64_t addr, const void *buf, size_t size);
	/*
	 * Optional (NULL: the emulator uses read and write): the same access
	 * for a little-endian integer of 1, 2, 4 or 8 bytes, the value passed
	 * in a register instead of through a buffer. Must behave exactly as
	 * read / write of those bytes. For memories on a hot path: no buffer
	 * is stored by one width and reloaded by another.
	 */
	struct emu_mem_uint (*read_uint)(void *ctx, uint64_t addr, unsigned size);
	int (*write_uint)(void *ctx, uint64_t addr, unsigned size, uint64_t value);
	/*
	 * Optional, with read_uint and write_uint: the same for one size
	 * each ([0] 1 byte, [1] 2, [2] 4, [3] 8), for translated code, which
	 * knows an access's size where it makes it (emu_set_jit).
	 */
	struct emu_mem_uint (*read_uint_sized[4])(void *ctx, uint64_t addr);
	int (*write_uint_sized[4])(void *ctx, uint64_t addr, uint64_t value);
	/*
	 * Optional, with the sized functions: the tables of ctx's common
	 * reads and writes (above), for translated code. Asked again whenever the context is
	 * set (emu_new, emu_set_memory_context); never NULL. The tables'
	 * contents may change at any time between accesses, the pointers
	 * only with the context.
	 */
	const struct emu_inline_memory *(*inline_memory)(void *ctx);
	/*
	 * Optional, with inline_memory whose hits_limit is NULL: an integer
	 * read of 1 << k bytes ([k]) that translated code made inline up to
	 * the prediction, aligned to its size: the page found in the table,
	 * `value` loaded from it, and the cache's lanes not holding it.
	 * Must do what read_uint_sized[k] would do for that read (it would
	 * find the same page and value and miss the same way) and return
	 * value; it cannot fault. Translated code calls it instead of
	 * read_uint_sized[k], so that a miss does not look the page and
	 * the cache up again.
	 */
	uint64_t (*read_mispredicted[4])(void *ctx, uint64_t addr, uint64_t value);
	/*
	 * Optional, with inline_memory whose writes_inline is set: a memory
	 * that never lets translated code write inline to a page holding
	 * decoded code. This is called, before any of its code runs, for
	 * each page the emulator decodes code on (page_addr): from then on
	 * the memory keeps EMU_INLINE_PAGE_WRITABLE off that page's entry
	 * for as long as the page may hold decoded code, that is at least
	 * while its bit in emu_code_page_filter() is set (bit page_addr >>
	 * 12 modulo EMU_CODE_PAGE_FILTER_BITS; set by the time of the call).
	 * A memory may consult that filter or keep its own record.
	 * Translated code's inline writes then skip their own check for
	 * self-modifying code (a call to the decode cache when the bit is
	 * set), which such a write could never need; written code is still
	 * found on the calls' path. Every context of one cpu must answer
	 * for the same table.
	 */
	void (*decoded_code_page)(void *ctx, uint64_t page_addr);
};

/* Why emu_run() returned. */
enum emu_exit {
	EMU_EXIT_LIMIT,         /* the instruction budget is spent */
	EMU_EXIT_SPECIAL,       /* a special instruction awaits the caller */
	EMU_EXIT_FAULT,         /* the instruction at rip raised an exception */
	EMU_EXIT_UNIMPLEMENTED, /* the instruction at rip is not emulated */
	EMU_EXIT_STOPPED,       /* the observer's insn_start asked to stop at rip */
};

/* Special instructions: executed by the caller, never by the emulator. */
enum emu_special {
	EMU_SPECIAL_NONE,
	EMU_SPECIAL_SYSCALL,
	EMU_SPECIAL_CPUID,
	EMU_SPECIAL_RDTSC,
	EMU_SPECIAL_RDTSCP,
	EMU_SPECIAL_RDRAND,
	EMU_SPECIAL_RDSEED,
	EMU_SPECIAL_XGETBV,
	EMU_SPECIAL_RDPID,
	EMU_SPECIAL_COUNT
};

/* Exception vectors as the CPU numbers them. */
enum emu_fault_vector {
	EMU_FAULT_DE = 0,  /* divide error */
	EMU_FAULT_DB = 1,
	EMU_FAULT_BP = 3,  /* int3 */
	EMU_FAULT_UD = 6,  /* invalid opcode */
	EMU_FAULT_NM = 7,
	EMU_FAULT_GP = 13, /* general protection (also hlt, misalignment) */
	EMU_FAULT_PF = 14, /* page fault: address in fault_addr */
	EMU_FAULT_MF = 16,
	EMU_FAULT_AC = 17,
	EMU_FAULT_XM = 19, /* unmasked SIMD floating-point exception */
};

/* Details of the last exit, valid until the next emu_run(). */
struct emu_exit_info {
	enum emu_exit reason;
	uint8_t insn_len;            /* length of the instruction at rip */
	enum emu_special special;    /* for EMU_EXIT_SPECIAL */
	enum emu_fault_vector fault; /* for EMU_EXIT_FAULT */
	uint64_t fault_addr;         /* for EMU_FAULT_PF */
	bool fault_write;            /* for EMU_FAULT_PF */
	const char *mnemonic;        /* for EMU_EXIT_UNIMPLEMENTED (static string) */
	uint8_t operand_bits;        /* for EMU_SPECIAL_RDRAND/RDSEED: 16, 32 or 64 */
};

/* Kinds of synchronisation events (DESIGN.md: key frames). */
enum emu_sync {
	EMU_SYNC_LOCK,   /* LOCK-prefixed read-modify-write */
	EMU_SYNC_XCHG,   /* xchg with a memory operand (implicitly locked) */
	EMU_SYNC_FENCE,  /* mfence, sfence, lfence */
};

/* Kinds of control-flow changes. */
enum emu_flow {
	EMU_FLOW_JUMP, EMU_FLOW_BRANCH_TAKEN, EMU_FLOW_CALL, EMU_FLOW_RET,
};

/*
 * Optional observer of Nirvana-style events. Any callback may be NULL.
 * insn_start runs before each instruction (slows emulation: set it only
 * while needed) and returns true to stop the run there, before the
 * instruction (EMU_EXIT_STOPPED); sync runs before the synchronising
 * instruction executes; flow runs after a control transfer.
 */
struct emu_observer {
	void *ctx;
	bool (*insn_start)(void *ctx, uint64_t rip);
	void (*sync)(void *ctx, enum emu_sync kind, uint64_t rip);
	void (*flow)(void *ctx, enum emu_flow kind, uint64_t from, uint64_t to);
	/* With insn_start alone (no sync, no flow): whether a block whose
	 * instructions span [start, end) has one insn_start must see. When
	 * false, the block runs whole, translated when it is hot (and may
	 * be chained into from then on: see emu_unchain_code), and
	 * insn_start hears of none of its instructions: a debugger's
	 * breakpoints cost the blocks they are in, not every instruction.
	 * Asked again at least every 64 K instructions or so.
	 * NULL: every instruction is seen. */
	bool (*block_watched)(void *ctx, uint64_t start, uint64_t end);
};

struct emu_cpu;

/* Creates a CPU in the reset state of a new Linux process (all registers
 * zero, fcw 0x37f, mxcsr 0x1f80, ftw all empty). NULL on allocation failure. */
struct emu_cpu *emu_new(const struct emu_memory_ops *mem, void *mem_ctx);
void emu_free(struct emu_cpu *cpu);

/* The CPU's registers, readable and writable between runs. */
struct emu_regs *emu_regs(struct emu_cpu *cpu);

void emu_set_observer(struct emu_cpu *cpu, const struct emu_observer *obs);

/* Replaces the context the memory interface is called with. One CPU runs
 * the threads of a process in turn: the decoded code (and its
 * invalidation by writes) is the process's, the memory context (a
 * thread's prediction cache and stream) the running thread's. */
void emu_set_memory_context(struct emu_cpu *cpu, void *mem_ctx);

/*
 * Runs at most max_insns instructions. Returns why it stopped; details in
 * emu_exit_info(). On SPECIAL, FAULT and UNIMPLEMENTED, rip is the address of
 * the instruction concerned and nothing of it has executed (string
 * instructions with a REP prefix may have completed some iterations, as the
 * CPU does). The caller completes a special instruction by setting its
 * results and calling emu_skip_insn().
 */
enum emu_exit emu_run(struct emu_cpu *cpu, uint64_t max_insns);
const struct emu_exit_info *emu_exit_info(const struct emu_cpu *cpu);

/* Fetches the bytes of the instruction at rip through the memory
 * interface, as decoding it would, without decoding or executing it: a
 * replayer mirrors with it the fetch a recording made at an instruction
 * where the emulator stopped. */
void emu_fetch_current(struct emu_cpu *cpu);

/* Advances rip past the instruction the last exit reported. */
void emu_skip_insn(struct emu_cpu *cpu);

/* Completes the rdrand or rdseed the last exit reported, as the CPU would
 * with this result: the destination register gets value (0 when !valid:
 * the CPU had no random number ready), CF says whether it is valid, the
 * other status flags clear; rip moves past it. */
void emu_complete_random(struct emu_cpu *cpu, uint64_t value, bool valid);

/* Instructions retired by this CPU since creation, or since the count was
 * last set (a replayer restoring a thread's state sets it). Inside an
 * observer callback, and inside memory callbacks while an observer is set:
 * the count of the instruction it is called for. Without an observer the
 * run brings the count up to date once per block (and at every exit), so
 * memory callbacks that need it must run with an observer set. */
uint64_t emu_icount(const struct emu_cpu *cpu);
void emu_set_icount(struct emu_cpu *cpu, uint64_t icount);

/*
 * Forgets decoded instructions overlapping [addr, addr+len). The emulator
 * does this itself for its own writes; the caller must do it when memory
 * changes behind the emulator's back (a syscall, another thread, a mapping
 * change). len == UINT64_MAX forgets everything.
 */
void emu_invalidate_code(struct emu_cpu *cpu, uint64_t addr, uint64_t len);

/* The decode cache's filter of pages that may hold decoded code: bit
 * (page number modulo EMU_CODE_PAGE_FILTER_BITS) is set for every page
 * holding some (and may be for others). Read-only, for memories with
 * decoded_code_page; the same array for the cpu's life. */
#define EMU_CODE_PAGE_FILTER_BITS (1u << 20)
const uint64_t *emu_code_page_filter(const struct emu_cpu *cpu);

/*
 * Keeps decoded instructions, but has each block fetch its bytes again
 * through the memory interface, with the same calls its decoding made,
 * the first time it runs after this call. To a memory interface whose
 * fetch has side effects (the recorder logs code pages on fetch) this is
 * emu_invalidate_code(everything) without the cost of decoding again.
 */
void emu_refetch_code(struct emu_cpu *cpu);

/*
 * Translated blocks overlapping [addr, addr+len) are entered from the run
 * loop only, until it chains them again: an observer's block_watched is
 * asked before they run. An observed run chains only into blocks it said
 * no for, so a debugger calls this for its breakpoints before each run.
 */
void emu_unchain_code(struct emu_cpu *cpu, uint64_t addr, uint64_t len);

/*
 * Has each block decoded so far call report(ctx, addr, len) with the
 * bytes its instructions span the first time it runs after this call,
 * and again after each later call; blocks decoded later are seen by
 * their fetches. Nothing is fetched or decoded again, translations are
 * kept. For a replayer's summary of the code each stretch of a replay
 * runs. report NULL: no more reports.
 */
void emu_report_code(struct emu_cpu *cpu, void (*report)(void *ctx, uint64_t addr, uint64_t len),
		     void *ctx);

/*
 * Translates blocks that run often, with nothing observing the run, into
 * host code that does what their handlers do, with the same memory
 * accesses in the same order (a recording is the same with or without
 * it). False on failure to set it up (the interpreter runs on). Off by
 * default: stepping, observers and the replayer use the interpreter.
 */
bool emu_set_jit(struct emu_cpu *cpu, bool on);
/* Blocks translated so far (again after the code area was emptied, each
 * time). */
uint64_t emu_jit_translations(const struct emu_cpu *cpu);

/*
 * Who hears of each translation as it is made (a profiler's symbol map):
 * the guest address of its block and its host code in parts, in address
 * order, each named by what it does: "entry" (saving host registers,
 * loading guest ones), "body" (the instructions), "end" (the count, the
 * jumps to successors and their ways home, the epilogue), "misses" (the
 * inline memory accesses' calls, out of line) and "exits" (the stores
 * and returns of the ways out before the end). Parts may be empty. The
 * code stays at those addresses until the code area is emptied, when
 * later translations reuse them. Process-wide; set before translating,
 * NULL to stop.
 */
struct emu_jit_part {
	const char *name;
	const void *start;
	size_t size;
};
#define EMU_JIT_PARTS 5
typedef void emu_jit_listener(void *ctx, uint64_t guest_rip, const struct emu_jit_part *parts,
			      unsigned n);
void emu_set_jit_listener(emu_jit_listener *listener, void *ctx);

/* Writes an Intel-syntax disassembly of the instruction in `bytes` at
 * `addr` into buf; returns the instruction length, 0 if undecodable. */
size_t emu_disassemble(uint64_t addr, const uint8_t *bytes, size_t len,
		       char *buf, size_t buf_size);

/*
 * A rep-prefixed string instruction (movs, stos, lods, cmps, scas), which
 * the CPU runs one iteration at a time: a single step stops after each
 * one with rip still on it and rcx, rsi, rdi (and the flags of a
 * comparison) as that iteration left them. emu_rep_string says whether
 * `bytes` starts with one and what a debugger stepping its iterations
 * needs: its length, its address size (rcx, rsi and rdi count in their
 * low addr_bytes bytes: 4 with a 0x67 prefix, else 8), its element size,
 * whether each iteration writes an element at rdi (movs, stos), whether
 * an iteration's comparison can end it early (repe: when ZF is clear
 * after it; repne: when ZF is set), and what each iteration reads: an
 * element at rsi (movs, lods, cmps; plus the fs or gs base a segment
 * prefix names) and one at rdi (cmps, scas).
 */
enum emu_rep_until { EMU_REP_COUNT, EMU_REP_WHILE_EQUAL, EMU_REP_WHILE_NOT_EQUAL };
enum emu_rep_src_base { EMU_REP_SRC_FLAT, EMU_REP_SRC_FS, EMU_REP_SRC_GS };
struct emu_rep_string {
	uint8_t len;
	uint8_t addr_bytes;
	uint8_t elem_bytes;
	bool writes;
	enum emu_rep_until until;
	bool reads_src;
	bool reads_dst;
	enum emu_rep_src_base src_base;
};
bool emu_rep_string(const uint8_t *bytes, size_t len, struct emu_rep_string *out);

/* Whether the emulator implements the instruction in `bytes` (decodes and
 * has semantics for it). Used by coverage reports and tests. */
bool emu_implements(const uint8_t *bytes, size_t len);

/* A memory interface over the calling process's own memory, for in-process
 * tests and benchmarks. It trusts addresses: never run untrusted code on it. */
extern const struct emu_memory_ops emu_self_memory_ops;

/* Calls fn for every mnemonic (a ZydisMnemonic value) some family binds,
 * with the family's name: the list of what the emulator claims to
 * implement, for coverage checks. */
void emu_for_each_mnemonic(void (*fn)(void *ctx, const char *family,
				      unsigned zydis_mnemonic), void *ctx);

/* Human-readable names, for reports. */
const char *emu_exit_name(enum emu_exit e);
const char *emu_special_name(enum emu_special s);
const char *emu_fault_name(enum emu_fault_vector v);

/*
 * Architecturally undefined status flags (undefined_flags.c). The emulator
 * computes the flags that Intel's and AMD's manuals both leave undefined
 * (AF after shifts and logic, SF ZF AF PF after multiplications, all six
 * after divisions, OF after shifts and rotates by more than 1, ...) as the
 * CPUs of emu_modelled_vendor() do. A comparison with a CPU of another
 * vendor leaves out these flags of the instructions compared.
 *
 * emu_undefined_flags_after: the status flags (EMU_CF ... EMU_OF) undefined
 * after the instruction in `bytes`, given those undefined before it: the
 * ones it leaves undefined, those it does not write, and all it writes
 * when it reads an undefined one. `before`: the registers before it, to
 * resolve a count in cl; NULL counts as any count (a shift by cl may then
 * leave OF undefined, or write nothing).
 * emu_undefined_flags: the same for one instruction, registers unknown.
 * emu_undefined_result: whether the manuals leave the instruction's
 * destination operand undefined too (shld/shrd of 16 bits by a count above
 * 16; with `before` NULL, whether some count does).
 */
uint64_t emu_undefined_flags_after(const uint8_t *bytes, size_t len,
				   const struct emu_regs *before, uint64_t undefined_before);
uint64_t emu_undefined_flags(const uint8_t *bytes, size_t len);
bool emu_undefined_result(const uint8_t *bytes, size_t len, const struct emu_regs *before);

/* The CPUID vendor string of the CPUs whose undefined flags the emulator
 * models ("GenuineIntel"), and whether the host's is that one. */
const char *emu_modelled_vendor(void);
bool emu_host_is_modelled_vendor(void);

/*
 * Model-specific results (model_specific.c): what an instruction does
 * that neither manual defines the same way for both vendors, and that the
 * emulator therefore does as emu_modelled_vendor()'s CPUs do. A comparison
 * with a CPU of another vendor accepts, for exactly these, the CPU's own
 * result in place of the model's, and compares everything else:
 *
 * - store: fxsave and the xsave family store MXCSR_MASK (the MXCSR bits the
 *   CPU lets software set) at bytes 28..31 of their area. The model's is
 *   EMU_MODELLED_MXCSR_MASK; AMD's also has bit 17 (MM). `store_host` is
 *   the value this machine's CPU stores (fxsave's), `store_modelled` the
 *   emulator's.
 * - zero_extended_gprs: a rep string instruction with a 32-bit address
 *   size and ecx 0 iterates zero times, and the manuals' pseudocode then
 *   writes no register. The modelled CPU still zero-extends rcx (and rsi,
 *   rdi for movs, rdi for stos) from their low halves; AMD's leaves them.
 *   Bit n: GPR n; the CPU may hold the register as it was before, where
 *   the emulator holds its low 32 bits zero-extended.
 * - nop_or_ud: the register form of the 0F 0D prefetch group is a
 *   reserved NOP on the modelled CPU (the emulator retires it, changing
 *   nothing but rip); AMD's raises #UD.
 *
 * emu_model_specific: for the instruction in `bytes` run from the
 * registers `before`; false when it has none of these.
 */
#define EMU_MODELLED_MXCSR_MASK 0xffffu

struct emu_model_specific {
	uint64_t store_addr;       /* where the field is, when store_size != 0 */
	unsigned store_size;
	uint64_t store_modelled, store_host;
	uint32_t zero_extended_gprs;
	bool nop_or_ud;
};

bool emu_model_specific(const uint8_t *bytes, size_t len, const struct emu_regs *before,
			struct emu_model_specific *out);
/* The MXCSR_MASK this machine's CPU stores with fxsave. */
uint32_t emu_host_mxcsr_mask(void);

/*
 * The XSAVE header's XSTATE_BV: xsave, xsaveopt and xsavec store bit i
 * from XINUSE[i] (for xsave and xsaveopt, bits outside the request keep
 * memory's value). The architecture lets any CPU track a component in its
 * initial configuration as in use (one that loaded zeros into an XMM
 * register does, on some CPUs); the emulator clears the bit of exactly the
 * components in their initial configuration (ops_fpu_state.c). A CPU's
 * XSTATE_BV with more bits set, within the request, is therefore the same
 * state. emu_xstate_header: for such an instruction in `bytes` run from the
 * registers `before`, where XSTATE_BV is (8 bytes) and the request
 * (edx:eax, before the AND with XCR0); false for any other instruction
 * (fxsave has no header).
 */
struct emu_xstate_header {
	uint64_t xstate_bv_addr;
	uint64_t requested;
};

bool emu_xstate_header(const uint8_t *bytes, size_t len, const struct emu_regs *before,
		       struct emu_xstate_header *out);

#endif
