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
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/hand_back.h"
#include "recorder/native_step.h"
#include "recorder/recording_internal.h"
#include "recorder/regs_convert.h"
#include "recorder/thread_table.h"

static void cannot_hand_back(struct recording *rec, const char *what)
{
	/* The program cannot go on correctly: it is killed, as for any other
	 * loss of control, and the message says both failures. */
	size_t n = strlen(rec->err);
	snprintf(rec->err + n, rec->errlen - n, "; and %s: %s", what, strerror(errno));
	rec->error = RECORD_ERR_PTRACE;
}

/* Puts the registers the emulator holds for t into the real thread. */
static int give_back_registers(struct recording *rec, struct rec_thread *t)
{
	const struct emu_regs *regs = t == rec->cur ? emu_regs(rec->cpu) : &t->regs;
	struct user_regs_struct k;
	if (tracee_get_regs(&t->tracee, &k) != 0)
		return -1;
	regs_to_kernel(regs, &k, t->xstate, t->tracee.xstate_size);
	return tracee_set_regs(&t->tracee, &k) != 0 || tracee_set_xstate(&t->tracee, t->xstate) != 0
		       ? -1 : 0;
}

/* A thread in the middle of a native step: stopped with a SIGSTOP of ours
 * (a syscall it waits in restarts after the detach, as after any stop; the
 * SIGCONT that follows the detach discards the SIGSTOP if the thread
 * stopped for something else first). Returns the signal to deliver as it
 * is let go. */
static int stop_in_kernel(struct recording *rec, struct rec_thread *t)
{
	struct tracee_stop stop;
	if (t->state == THREAD_IN_KERNEL) {
		syscall(SYS_tgkill, rec->tracee.pid, t->tracee.pid, SIGSTOP);
		if (threads_wait_for(rec, t, &stop) != 0)
			return -1;
	} else {
		stop = t->stop;
	}
	t->state = THREAD_RUNNABLE;
	if (stop.kind == TRACEE_STOP_SIGNAL && stop.info.si_signo != SIGSTOP)
		return stop.info.si_signo;
	return 0;
}

void recording_hand_back(struct recording *rec)
{
	if (!rec->tracee.alive || !rec->cpu)
		return; /* it ended already: res says how */
	if (memory_mirror_flush(rec->mirror) != 0) {
		cannot_hand_back(rec, "cannot write the program's memory");
		return;
	}
	bool stopped_any = false;
	for (size_t i = 0; i < rec->n_threads; i++) {
		struct rec_thread *t = rec->threads[i];
		if (t->state == THREAD_GONE)
			continue;
		stopped_any |= t->state == THREAD_IN_KERNEL;
		int deliver = 0;
		if (t->state == THREAD_RUNNABLE) {
			if (give_back_registers(rec, t) != 0) {
				cannot_hand_back(rec, "cannot set the program's registers");
				return;
			}
		} else {
			deliver = stop_in_kernel(rec, t);
		}
		native_step_unbind(t);
		/* recording_store_regs would replace the first error's message. */
		if (deliver < 0 || ptrace(PTRACE_DETACH, t->tracee.pid, NULL, (void *)(long)deliver) != 0) {
			cannot_hand_back(rec, "cannot let the program run on");
			return;
		}
		t->tracee.alive = false;
	}
	if (stopped_any)
		kill(rec->tracee.pid, SIGCONT);
	struct tracee_stop stop;
	if (tracee_wait_untraced_end(&rec->tracee, &stop) != 0) {
		cannot_hand_back(rec, "cannot wait for the program");
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
