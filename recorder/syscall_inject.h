/*
 * syscall_inject.h — making a stopped tracee execute a system call of the
 * supervisor's choosing (arch_prctl, mmap, ...) as if the program had,
 * leaving its registers and memory as they were.
 */
#ifndef TTREC_SYSCALL_INJECT_H
#define TTREC_SYSCALL_INJECT_H

#include <stdint.h>
#include <sys/user.h>

#include "recorder/remote_memory.h"
#include "recorder/tracee.h"

struct syscall_inject_result {
	int64_t ret;          /* the syscall's return value (-errno on failure) */
	int deferred_signal;  /* a signal that arrived meanwhile, not yet delivered; 0 if none */
};

/*
 * Executes syscall `nr` with up to six arguments in the tracee. The tracee
 * must be in a ptrace stop; it is again on return, with its registers and
 * code bytes restored. Returns 0 (the syscall's own result is in out->ret),
 * or -1 with errno if the tracee could not be made to run it (it died, the
 * code could not be patched).
 */
int syscall_inject(struct tracee *t, struct remote_memory *rm, long nr,
		   const uint64_t args[6], struct syscall_inject_result *out);

/* The same, run to the syscall's entry and exit stops (PTRACE_SYSCALL)
 * instead of single-stepped: no SIGTRAP is forced on the thread, so the
 * program's SIGTRAP disposition and mask stay as they are. */
int syscall_inject_untrapped(struct tracee *t, struct remote_memory *rm, long nr,
			     const uint64_t args[6], struct syscall_inject_result *out);

/* The same for any one instruction (up to 16 bytes), run at the tracee's
 * rip with registers regs (their rip is ignored). */
struct instruction_inject_result {
	struct user_regs_struct regs; /* the registers after the step */
	int fault_signal;     /* SIGSEGV/SIGBUS: the instruction faulted (not delivered) */
	int deferred_signal;  /* as for syscall_inject */
};
int instruction_inject(struct tracee *t, struct remote_memory *rm, const uint8_t *insn,
		       size_t len, const struct user_regs_struct *regs,
		       struct instruction_inject_result *out);

#endif
