/*
 * thread_regs.h — the current thread's registers between the emulator and
 * the real thread (thread_regs.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_THREAD_REGS_H
#define TTREC_THREAD_REGS_H

#include "recorder/recording_internal.h"

/* Registers between the emulator and the real (current) thread
 * (thread_regs.c). Storing returns RECORDING_THREAD_VANISHED, without
 * failing the recording, when the thread was killed under us while other
 * threads live. After a system call that leaves the extended state alone,
 * loading may keep the image the step started with. */
#define RECORDING_THREAD_VANISHED (-2)
int recording_load_regs(struct recording *rec);
int recording_load_regs_keep_xstate(struct recording *rec);
int recording_store_regs(struct recording *rec);
/* A thread's registers as the kernel gave them, as the emulator holds them. */
void recording_regs_from_kernel(struct recording *rec, const struct user_regs_struct *k,
				const uint8_t *xstate, struct emu_regs *out);

#endif
