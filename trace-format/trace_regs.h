/*
 * trace_regs.h — the emulator's register state to and from the trace
 * format's register block. Both hold the complete user-mode state; only the
 * layout differs. Header-only: the recorder writes with it and the replayer
 * reads with it, and neither library should depend on the other.
 */
#ifndef TTREC_TRACE_REGS_H
#define TTREC_TRACE_REGS_H

#include <string.h>

#include "emulator/emu.h"
#include "trace-format/idna.h"

/* One direction, written once: `E` is the emulator side, `T` the trace
 * side; COPY swaps them for the other direction. */
#define TRANSFER_REGS(E, T, COPY)                                          \
	do {                                                               \
		COPY((E)->gpr, (T)->gpr, sizeof((E)->gpr));                \
		COPY(&(E)->rip, &(T)->rip, 8);                             \
		COPY(&(E)->rflags, &(T)->rflags, 8);                       \
		COPY(&(E)->fs_base, &(T)->fs_base, 8);                     \
		COPY(&(E)->gs_base, &(T)->gs_base, 8);                     \
		COPY(&(E)->seg_es, &(T)->seg_es, 2);                       \
		COPY(&(E)->seg_cs, &(T)->seg_cs, 2);                       \
		COPY(&(E)->seg_ss, &(T)->seg_ss, 2);                       \
		COPY(&(E)->seg_ds, &(T)->seg_ds, 2);                       \
		COPY(&(E)->seg_fs, &(T)->seg_fs, 2);                       \
		COPY(&(E)->seg_gs, &(T)->seg_gs, 2);                       \
		COPY(&(E)->fcw, &(T)->fcw, 2);                             \
		COPY(&(E)->fsw, &(T)->fsw, 2);                             \
		COPY(&(E)->ftw, &(T)->ftw, 2);                             \
		COPY(&(E)->fop, &(T)->fop, 2);                             \
		COPY(&(E)->mxcsr, &(T)->mxcsr, 4);                         \
		COPY(&(E)->fip, &(T)->fip, 8);                             \
		COPY(&(E)->fdp, &(T)->fdp, 8);                             \
		for (int i_ = 0; i_ < 8; i_++)                             \
			COPY((E)->st[i_].bytes, (T)->st[i_], 10);          \
		COPY((E)->k, (T)->k, sizeof((E)->k));                      \
		for (int i_ = 0; i_ < 32; i_++)                            \
			COPY((E)->zmm[i_].b, (T)->zmm[i_], 64);            \
	} while (0)

#define EMU_TO_TRACE(e, t, n) memcpy((t), (e), (n))
#define TRACE_TO_EMU(e, t, n) memcpy((e), (t), (n))

static inline void trace_regs_from_emu(const struct emu_regs *in, struct idna_regs *out)
{
	memset(out, 0, sizeof(*out));
	TRANSFER_REGS(in, out, EMU_TO_TRACE);
}

static inline void trace_regs_to_emu(const struct idna_regs *in, struct emu_regs *out)
{
	memset(out, 0, sizeof(*out));
	TRANSFER_REGS(out, in, TRACE_TO_EMU);
}

#endif
