/*
 * native_step.c — the only way the real process runs: one instruction at a
 * time (a syscall, an instruction the emulator lacks, a faulting one), with
 * the emulator's state loaded into it first.
 *
 * A signal may arrive instead of the step's trap. It is logged and
 * delivered by stepping again with it: if the program catches it, the
 * kernel builds the frame and the step stops at the handler's first
 * instruction (the original instruction did not run); if it is ignored,
 * the instruction runs; if it is fatal, the process dies.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "recorder/recording_internal.h"
#include "recorder/signal_state.h"

/* Whether the process has a handler for signo (if its status cannot be
 * read, the process is dying: no handler will run). */
static bool signal_is_caught(pid_t pid, int signo)
{
	struct signal_state st;
	return signal_state_read(pid, &st) == 0 && signal_state_caught(&st, signo);
}

/*
 * A step that ends in a system call a signal interrupted stops at the
 * call's exit with -ERESTART* (512..516) in rax, before the kernel has
 * looked at the signal: the call has not completed. The next resume takes
 * the signal (its own stop) and then restarts the call or runs the handler.
 * (A stop after any other instruction has orig_rax -1.)
 */
static bool syscall_awaits_restart(const struct tracee *t)
{
	struct user_regs_struct k;
	if (tracee_get_regs(t, &k) != 0)
		return false;
	int64_t ax = (int64_t)k.rax;
	return (int64_t)k.orig_rax >= 0 && ax >= -516 && ax <= -512 && ax != -515;
}

static void note_end(struct recording *rec, const struct tracee_stop *stop)
{
	if (stop->kind == TRACEE_STOP_EXITED) {
		rec->res->exited = true;
		rec->res->exit_status = stop->exit_status;
		log_process_exit(rec, (int64_t)stop->exit_status << 8);
	} else {
		rec->res->term_signal = stop->info.si_signo;
		log_process_exit(rec, stop->info.si_signo);
	}
	rec->finished = true;
}

enum native_outcome native_step(struct recording *rec)
{
	if (memory_mirror_flush(rec->mirror) != 0) {
		recording_fail(rec, RECORD_ERR_PTRACE, "cannot write the program's memory");
		return NATIVE_ERROR;
	}
	if (recording_store_regs(rec) != 0)
		return NATIVE_ERROR;
	int deliver = 0;
	bool handler_expected = false;
	for (;;) {
		struct tracee_stop stop;
		if (tracee_step(&rec->tracee, deliver, &stop) != 0) {
			recording_fail(rec, RECORD_ERR_PTRACE, "cannot step the program: %s",
				       strerror(errno));
			return NATIVE_ERROR;
		}
		deliver = 0;
		switch (stop.kind) {
		case TRACEE_STOP_STEP:
			if (syscall_awaits_restart(&rec->tracee))
				break;
			return handler_expected ? NATIVE_HANDLER : NATIVE_EXECUTED;
		case TRACEE_STOP_SIGNAL:
			rec->res->signals++;
			/* A trace that cannot be written ends the recording
			 * (rec->error) but must not cost the program its
			 * signal: it is delivered all the same. */
			log_signal(rec, &stop.info);
			deliver = stop.info.si_signo;
			handler_expected = signal_is_caught(rec->tracee.pid, deliver);
			break;
		case TRACEE_STOP_EXEC:
			return NATIVE_EXEC;
		case TRACEE_STOP_EXITED:
		case TRACEE_STOP_KILLED:
			note_end(rec, &stop);
			return NATIVE_EXITED;
		case TRACEE_STOP_EVENT:
			if (recording_on_event(rec, stop.event))
				return NATIVE_INTERRUPTED;
			break;
		case TRACEE_STOP_GROUP:
			break; /* resume: job control is not recorded yet */
		}
	}
}
