/*
 * hand_back.c — ending a recording without ending the program: when the
 * trace cannot be written (disk full, file size limit), the program is
 * given back its own state and runs on natively, untraced, as if ttrec had
 * never been there from that instruction on.
 *
 * Any emulator stop is a clean point for this: the emulator's registers
 * describe the program before the instruction at rip, and the mirror holds
 * every byte it wrote. The real process sits at a ptrace stop (a step, the
 * first exec's SIGTRAP, an exec event): detaching with no signal resumes
 * it at rip; signals still pending in the kernel are delivered natively.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "recorder/recording_internal.h"
#include "recorder/regs_convert.h"

static void cannot_hand_back(struct recording *rec, const char *what)
{
	/* The program cannot go on correctly: it is killed, as for any other
	 * loss of control, and the message says both failures. */
	size_t n = strlen(rec->err);
	snprintf(rec->err + n, rec->errlen - n, "; and %s: %s", what, strerror(errno));
	rec->error = RECORD_ERR_PTRACE;
}

void recording_hand_back(struct recording *rec)
{
	if (!rec->tracee.alive || !rec->cpu)
		return; /* it ended already: res says how */
	if (memory_mirror_flush(rec->mirror) != 0) {
		cannot_hand_back(rec, "cannot write the program's memory");
		return;
	}
	/* recording_store_regs would replace the first error's message. */
	struct user_regs_struct k;
	if (tracee_get_regs(&rec->tracee, &k) != 0) {
		cannot_hand_back(rec, "cannot read the program's registers");
		return;
	}
	regs_to_kernel(emu_regs(rec->cpu), &k, rec->xstate, rec->tracee.xstate_size);
	if (tracee_set_regs(&rec->tracee, &k) != 0 ||
	    tracee_set_xstate(&rec->tracee, rec->xstate) != 0) {
		cannot_hand_back(rec, "cannot set the program's registers");
		return;
	}
	struct tracee_stop stop;
	if (tracee_detach_and_wait(&rec->tracee, 0, &stop) != 0) {
		cannot_hand_back(rec, "cannot let the program run on");
		return;
	}
	rec->res->ran_untraced = true;
	if (stop.kind == TRACEE_STOP_EXITED) {
		rec->res->exited = true;
		rec->res->exit_status = stop.exit_status;
	} else {
		rec->res->term_signal = stop.info.si_signo;
	}
}
