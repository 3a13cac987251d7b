/*
 * sigtrap_guard.h — keeping the program's SIGTRAP as it set it, across the
 * recorder's single steps.
 *
 * A single step ends with a SIGTRAP the kernel forces on the thread, and
 * forcing a signal that is blocked or ignored resets its action to the
 * default and unblocks it (force_sig_info_to_task). So a program that
 * ignores SIGTRAP, or blocks it, or whose SIGTRAP handler was installed
 * when a step ran with SIGTRAP blocked (pthread_create blocks every signal
 * around its clone), would later die of its own SIGTRAP. The guard notes
 * the thread's mask before each native step and the program's SIGTRAP
 * action from its rt_sigaction calls, and after a step that ended at its
 * forced trap puts both back: the mask with PTRACE_SETSIGMASK, the action
 * with an rt_sigaction run at syscall stops (no trap of its own).
 */
#ifndef TTREC_SIGTRAP_GUARD_H
#define TTREC_SIGTRAP_GUARD_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>
#include <sys/types.h>

#include "recorder/remote_memory.h"
#include "recorder/tracee.h"

/* The program's SIGTRAP action (process-wide). */
struct sigtrap_guard {
	bool set;             /* not SIG_DFL: action holds it */
	uint8_t action[32];   /* struct kernel_sigaction: handler, flags, restorer, mask */
};

/* What one thread's native step needs to be undone (per thread). */
struct sigtrap_step {
	uint64_t mask_before;  /* the thread's blocked mask */
	bool mask_known;
	bool expect_known;     /* the step is a syscall that sets the mask: */
	uint64_t expect_mask;  /* ... the SIGTRAP bit it leaves */
	bool new_action;       /* the step is rt_sigaction(SIGTRAP, act): */
	uint8_t action[32];    /* ... act */
};

/* At a program's start (an exec): an ignored SIGTRAP stays ignored, a
 * handler is gone. ignored: SIGTRAP is in the process's ignored set. */
void sigtrap_guard_exec(struct sigtrap_guard *g, bool ignored);

/* Before a native step of thread t (registers and memory in the
 * process): a syscall nr with args, or (nr -1) another instruction; rsp
 * the thread's stack pointer. */
void sigtrap_guard_before(struct sigtrap_step *s, struct tracee *t, struct remote_memory *rm,
			  long nr, const uint64_t args[6], uint64_t rsp);

/* After that step ended at its forced trap (it executed); result: the
 * syscall's. 0, or -1 with errno when the process could not be set back. */
int sigtrap_guard_after(struct sigtrap_guard *g, struct sigtrap_step *s, struct tracee *t,
			struct remote_memory *rm, long nr, int64_t result);

/* A SIGTRAP that is not the step's own stopped thread t during its step
 * of the instruction at start_rip (nr: its syscall, or -1). The step's
 * forced trap may have unblocked SIGTRAP or reset its action: true when
 * the program blocks or ignores SIGTRAP, so that the signal must not be
 * delivered. Mask and action are then put back, a blocked signal is
 * queued again (pending, as natively), and *executed says whether the
 * instruction has run (else the step goes on). tgid: the process. */
bool sigtrap_guard_withhold(struct sigtrap_guard *g, struct sigtrap_step *s, struct tracee *t,
			    pid_t tgid, struct remote_memory *rm, long nr, uint64_t start_rip,
			    const siginfo_t *info, bool *executed);

#endif
