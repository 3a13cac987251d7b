/*
 * diff.h — what the files of the emulator's differential test harness share.
 *
 * The harness runs one instruction natively (in a generated stub) and in the
 * emulator from the same machine state and compares the results. This header
 * owns the machine state both runs start from and end in, the instruction
 * forms under test, and the interfaces between the harness's parts:
 *
 *   forms.c    encodings of a mnemonic, found by asking Zydis's encoder
 *   inputs.c   seeded input states (edge and random integer and float values)
 *   native.c   the stub that runs an instruction on the real CPU
 *   emulate.c  the same instruction in the emulator
 *   compare.c  result comparison and the report
 *   main.c     options, the run over every bound mnemonic, the self-test
 */
#ifndef TTREC_DIFF_H
#define TTREC_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <Zydis/Zydis.h>

#define DIFF_GPRS 16
#define DIFF_VECS 16      /* xmm/ymm 0..15 */
#define DIFF_VEC_BYTES 32 /* ymm width; only 16 compared without AVX */

/* Register numbers in encoding order (rax rcx rdx rbx rsp rbp rsi rdi r8..). */
enum { DIFF_RAX, DIFF_RCX, DIFF_RDX, DIFF_RBX, DIFF_RSP, DIFF_RBP, DIFF_RSI, DIFF_RDI };

/* The x87 unit as the emulator holds it: physical registers (not stack
 * order), the full two-bit-per-register tag word. */
struct diff_x87 {
	uint16_t fcw, fsw, ftw;
	uint8_t reg[8][10];
};

/*
 * Where and how a run ended. A native run that raised an exception reports
 * the CPU's vector (trap number) and leaves the output state meaningless;
 * the emulator must then report the same vector with its state unchanged.
 */
enum diff_outcome {
	DIFF_RAN,       /* the instruction retired; rip says where it went */
	DIFF_FAULTED,   /* an exception: vector set */
	DIFF_SPECIAL,   /* emulator only: stopped for the caller */
	DIFF_UNIMPLEMENTED, /* emulator only */
	DIFF_CRASHED,   /* native only: signal that is not a CPU exception */
};

struct diff_state {
	uint64_t gpr[DIFF_GPRS];
	uint64_t rflags;
	uint64_t rip;
	uint32_t mxcsr;
	uint8_t vec[DIFF_VECS][DIFF_VEC_BYTES];
	struct diff_x87 x87;
};

struct diff_result {
	enum diff_outcome outcome;
	int vector;   /* for DIFF_FAULTED: the exception vector */
	int special;  /* for DIFF_SPECIAL: enum emu_special */
	uint64_t fault_addr; /* emulator only, for a #PF: the address refused */
	struct diff_state state;
};

/* --- the scratch memory both runs share ----------------------------------- */

/*
 * One mapping below 2 GiB (so absolute and rip-relative encodings reach it):
 * a guard page, the scratch data, a guard page. Memory operands point into
 * the data half; rsp points into the stack half.
 */
#define DIFF_SCRATCH_SIZE (16u * 1024)
#define DIFF_DATA_OFFSET 4096u   /* where base registers point */
#define DIFF_STACK_TOP (DIFF_SCRATCH_SIZE - 512u)

struct diff_machine {
	uint8_t *scratch;            /* DIFF_SCRATCH_SIZE bytes, guarded */
	uint8_t *guard_after;        /* first byte of the guard page after it */
	uint8_t *initial_memory;     /* the scratch contents a case starts from */
	uint8_t *native_memory;      /* scratch after the native run */
	uint8_t *code;               /* the stub's code page */
	uint64_t insn_addr;          /* where the instruction under test sits */
	uint64_t exit_fallthrough;   /* where execution after it lands... */
	uint64_t exit_branch;        /* ...or where a branch taken lands */
	bool has_avx;
};

/* --- instruction forms ----------------------------------------------------- */

#define DIFF_MAX_INSN 15
/* Bytes of the stub's fall-through exit; a relative branch under test
 * jumps over it to the branch exit. */
#define DIFF_EXIT_SIZE 15

enum diff_form_kind {
	DIFF_FORM_COMPARE,  /* run natively and in the emulator, compare */
	DIFF_FORM_SPECIAL,  /* the emulator must hand it to the caller */
};

/* How a memory operand of a form is addressed. */
enum diff_addressing {
	DIFF_ADDR_BASE,        /* [rbx + disp8] */
	DIFF_ADDR_BASE_INDEX,  /* [r13 + rsi*4 - disp8] */
	DIFF_ADDR_RIP,         /* [rip + disp32] into the scratch */
	DIFF_ADDR_ABSOLUTE,    /* [disp32] or moffs: a fixed scratch address */
	DIFF_ADDR_BASE32,      /* [ebx + disp8] with an address-size prefix */
	DIFF_ADDR_COUNT
};

struct diff_form {
	unsigned mnemonic;                /* ZydisMnemonic */
	enum diff_form_kind kind;
	uint8_t bytes[DIFF_MAX_INSN];
	uint8_t len;
	/* The request that produced the bytes: a form with an immediate is
	 * re-encoded with a different one per case (diff_form_set_imm). */
	ZydisEncoderRequest request;
	bool absolute;                    /* encoded at insn_addr (rip-relative) */
	int imm_operand;                  /* request operand index, or -1 */
	uint8_t imm_offset, imm_size;     /* where the immediate's bytes are */
	uint8_t imm_width;                /* bits of the operand it feeds */
	enum diff_addressing addressing;
	/* What the inputs must respect (from Zydis's full decoding). */
	uint16_t base_regs;               /* GPRs used as a base: must point into scratch */
	uint16_t index_regs;              /* GPRs used as an index: kept small */
	int fault_base;                   /* base GPR of the explicit memory operand, or -1 */
	int vsib_index;                   /* vector register of a VSIB index, or -1 */
	bool addr32;
	bool rep;                         /* rep prefix: rcx kept small */
	enum { DIFF_BRANCH_NONE, DIFF_BRANCH_RELATIVE, DIFF_BRANCH_REG,
	       DIFF_BRANCH_MEM, DIFF_BRANCH_RETURN } branch;
	int branch_reg;                   /* for DIFF_BRANCH_REG */
	uint8_t branch_mem_size;          /* for DIFF_BRANCH_MEM: 8, or 6/10 far */
	uint8_t far_return;               /* 0, or the operand width of a far ret (bytes) */
	/* For the comparison. */
	uint32_t undefined_flags;         /* RFLAGS bits */
	uint32_t undefined_fpu_flags;     /* FSW C0..C3 as ZYDIS_FPUFLAG_* */
	bool base_isa;                    /* in every x86-64 CPU */
};

struct diff_form_list {
	struct diff_form *forms;
	size_t count, capacity;
};

/* forms.c: every encoding of the mnemonic the encoder accepts and the
 * emulator decodes; the list is emptied first. has_avx allows VEX forms. */
void diff_forms_for_mnemonic(unsigned mnemonic, bool has_avx,
			     const struct diff_machine *m,
			     struct diff_form_list *out);
void diff_forms_free(struct diff_form_list *l);
/* Re-encodes the form's immediate as imm (truncated to its width); returns
 * false (bytes unchanged) when the result would not keep the form's shape. */
bool diff_form_set_imm(struct diff_form *f, uint64_t imm, uint64_t insn_addr);
/* The special-instruction kind (enum emu_special) a mnemonic must stop
 * with, or 0 when it is run natively. */
int diff_expected_special(unsigned mnemonic);

/* --- inputs ----------------------------------------------------------------- */

struct diff_rng { uint64_t s; };
void diff_rng_seed(struct diff_rng *r, uint64_t seed);
uint64_t diff_rng_next(struct diff_rng *r);
static inline uint64_t diff_rng_below(struct diff_rng *r, uint64_t n)
{
	/* Multiply-high instead of a division: input generation is the
	 * harness's hot path. */
	return (uint64_t)(((unsigned __int128)diff_rng_next(r) * n) >> 64);
}

/* Fills the state and the machine's initial memory for one case of a form:
 * random and edge values, address registers pointing into the scratch,
 * branch targets planted, float-shaped vector and x87 contents. With
 * `fault` the memory operand is made to point where the CPU faults. */
void diff_make_input(struct diff_rng *r, const struct diff_form *f,
		     struct diff_machine *m, struct diff_state *in, bool fault);

/* An immediate of `bytes` bytes (edge or random), sign-extended. */
uint64_t diff_make_imm(struct diff_rng *r, unsigned bytes);

/* Full x87 tag (00 valid, 01 zero, 10 special) of an 80-bit value. */
unsigned diff_x87_tag_of(const uint8_t v[10]);

/* --- native and emulated runs ----------------------------------------------- */

/* native.c */
bool diff_native_init(struct diff_machine *m);
/* Places the instruction in the stub (rewriting the code page). */
void diff_native_load(struct diff_machine *m, const uint8_t *bytes, size_t len);
/* Runs it from `in` with the scratch holding initial_memory; leaves the
 * scratch as the native run left it. */
void diff_native_run(struct diff_machine *m, const struct diff_state *in,
		     struct diff_result *out);

/* emulate.c */
bool diff_emulate_init(struct diff_machine *m);
void diff_emulate_fini(void);
void diff_emulate_code_changed(struct diff_machine *m);
void diff_emulate_run(struct diff_machine *m, const struct diff_state *in,
		      struct diff_result *out);

/* --- comparison and report --------------------------------------------------- */

/*
 * DIFF_SEGV_VECTOR_ONLY: both runs faulted on a memory access, with
 * different vectors among #GP, #PF and #SS (the emulator sees only "the
 * memory interface refused the access", so a non-canonical address is a #PF
 * to it; it has no #SS, which the CPU raises for a non-canonical stack
 * reference such as enter's frame-pointer copies through rbp). The recorder
 * hands every faulting instruction to the CPU, which raises the true vector,
 * so only "it faults and changes nothing" must match. Counted and reported
 * like undefined-flag differences, not failed.
 * DIFF_FALLBACK: the emulator declined this input at run time (EMU_EXIT_
 * UNIMPLEMENTED, e.g. xsave asked for AMX state): the recorder then lets
 * the CPU execute it, so it is counted, not failed.
 */
/* The kernel's trap number for a stack-segment fault (#SS, SIGBUS), which
 * enum emu_fault_vector lacks. */
#define DIFF_TRAP_SS 12

/* DIFF_MODEL_SPECIFIC_ONLY: on a CPU of another vendor than the modelled
 * one, the case differed only in results the manuals leave to the
 * implementation (compare.c); counted, not failed. */
enum diff_verdict { DIFF_PASS, DIFF_UNDEFINED_ONLY, DIFF_SEGV_VECTOR_ONLY, DIFF_FALLBACK,
		    DIFF_MODEL_SPECIFIC_ONLY, DIFF_FAIL };

struct diff_case {
	const struct diff_form *form;
	const struct diff_machine *m;
	const struct diff_state *input;
	const struct diff_result *native;    /* NULL for special forms */
	const struct diff_result *emulated;
	const uint8_t *native_memory;        /* scratch after each run */
	const uint8_t *emulated_memory;
};

/* Compares one case; writes a description of every difference to `why`
 * (may be NULL). */
enum diff_verdict diff_compare(const struct diff_case *c, bool has_avx, FILE *why);

struct diff_mnemonic_stats {
	unsigned mnemonic;
	const char *family;
	unsigned forms, dropped_forms;
	uint64_t cases, failures, undefined_diffs, segv_vector_diffs, faults, fallbacks;
	uint64_t model_specific_diffs;
	uint64_t redraws;
};

/* The scratch offset of the form's visible operand `operand`, a memory
 * operand of `size` bytes, for the input's registers; false when it is not
 * a memory operand or not wholly in the scratch. */
bool diff_operand_offset(const struct diff_form *f, const struct diff_machine *m,
			 const struct diff_state *in, unsigned operand, size_t size, size_t *off);

/* Prints a failing case in full: disassembly, inputs, both results. */
void diff_report_failure(FILE *f, const struct diff_case *c, bool has_avx);
void diff_report_mnemonic(FILE *f, const struct diff_mnemonic_stats *s);

/* --- one case, start to end (cases.c) ---------------------------------------- */

struct diff_case_run {
	struct diff_form form;       /* the form with this case's immediate */
	struct diff_state input;
	struct diff_result native, emulated;
	unsigned redraws;            /* inputs dropped: they reached foreign memory */
	struct diff_case c;          /* points into this struct and the machine */
};

/* Makes the case's input (case `index` of the form: every 16th case of a
 * form with a memory operand is made to fault), runs it natively unless the
 * form is special, then in the emulator. Afterwards the scratch holds the
 * emulator's memory; run->c is ready for diff_compare. */
void diff_run_case(struct diff_machine *m, const struct diff_form *f,
		   struct diff_rng *r, unsigned index, struct diff_case_run *run);

#endif
