/*
 * x87_exec.h — the host CPU's own x87 unit as the emulator's x87 arithmetic.
 *
 * Every x87 escape instruction (opcodes D8..DF) is executed by the host's
 * x87 unit, loaded with the guest's complete x87 state: the results, the
 * status word (C0..C3, exception flags, stack faults), the tags and the
 * unmasked-exception responses are therefore the CPU's own, bit for bit,
 * in 80-bit extended precision and under the guest's control word.
 *
 * What runs natively is never guest code: the emulator carries a fixed,
 * compiled-in table of stubs, one per x87 encoding, each of which is that
 * instruction with its memory operand (if any) replaced by [rax], followed
 * by ret. The guest's instruction only selects a stub; rax points at a
 * private buffer that the emulator fills from, and copies back to, guest
 * memory. See ops_x87.c for how guest state is moved in and out.
 */
#ifndef TTREC_EMU_X87_EXEC_H
#define TTREC_EMU_X87_EXEC_H

#include <stdint.h>
#include <stdbool.h>

/* The 108-byte state image fnsave/frstor use (32-bit format, the one the
 * CPU uses in 64-bit mode without REX.W). */
enum {
	X87_IMG_FCW = 0, X87_IMG_FSW = 4, X87_IMG_FTW = 8, X87_IMG_FIP = 12,
	X87_IMG_FOP = 18, X87_IMG_FDP = 20, X87_IMG_REGS = 28,
	X87_IMG_SIZE = 108,
};

/* Largest memory operand of an x87 instruction (fnsave/frstor). */
#define X87_MEM_MAX 108

/* What the emulator must know about one stub (derived from decoding it). */
struct x87_stub_info {
	uint16_t mnemonic;  /* ZydisMnemonic */
	uint16_t fop;       /* the stub's own 11-bit x87 opcode */
	uint8_t mem_read;   /* bytes the instruction reads at [mem] (0: none) */
	uint8_t mem_write;  /* bytes it writes there (0: none) */
	bool waits;         /* checks for a pending unmasked exception (#MF) */
	bool env_store;     /* stores fip/fdp/fop (fnstenv, fnsave) */
	bool env_load;      /* replaces fip/fdp/fop (fninit, fldenv, frstor) */
	bool uses_rflags;   /* fcmovcc reads, fcomi/fucomi write RFLAGS */
	bool writes_ax;     /* fnstsw ax */
	bool may_stay;      /* a non-control instruction (it sets FIP to its
			     * own address and loads no control word): may
			     * run on a host unit that keeps the guest's
			     * state (ops_x87.c) */
};

/* The operand signature of an instruction, as the decoder translates it:
 * used to find the stub of a decoded guest instruction. */
struct x87_operand_sig {
	uint8_t kind; /* enum emu_operand_kind */
	uint8_t size;
	uint8_t reg;
};

/* Number of stubs: 8 escapes x (8 memory forms + 64 register forms). */
#define X87_STUB_COUNT (8 * 72)

/* The stub whose decoded form is `mnemonic` with these operands, or -1
 * when no x87 encoding matches (the instruction is then unimplemented). */
int x87_stub_find(uint16_t mnemonic, unsigned nopnd,
		  const struct x87_operand_sig *opnd);

const struct x87_stub_info *x87_stub_info(unsigned stub);

/* The host-side registers a stub sees and may change. */
struct x87_exec_frame {
	uint8_t image[X87_IMG_SIZE]; /* in: guest state; out: state after */
	uint64_t rax;                /* out: ax holds fnstsw's result */
	uint64_t status_flags;       /* in/out: RFLAGS status bits */
	uint8_t *mem;                /* the instruction's [rax] */
};

/* Runs stub `stub` on the host x87 unit loaded with frame->image, then
 * stores the resulting state back into frame->image. The host's own x87
 * control word is preserved. The image's status word must not hold a
 * pending unmasked exception when the stub is a waiting instruction. */
void x87_exec_stub(unsigned stub, struct x87_exec_frame *frame);

/* The same in three steps, for a caller that keeps the guest's state in
 * the host unit across instructions: load an image (keeping the host's
 * control word in *host_cw), run stubs on it (each returns the status
 * word after it; frame->image is not used), store the state back into an
 * image and give the host its control word back. */
void x87_host_load(const uint8_t *image, uint16_t *host_cw);
uint16_t x87_host_run(unsigned stub, struct x87_exec_frame *frame);
void x87_host_store(uint8_t *image, uint16_t host_cw);

/* Low 32 bits of the stub's address: what the host's FIP holds after the
 * stub updated it. */
uint32_t x87_stub_ip32(unsigned stub);

#endif
