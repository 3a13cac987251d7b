/*
 * native_step.h — the real process running one instruction
 * (native_step.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_NATIVE_STEP_H
#define TTREC_NATIVE_STEP_H

#include "recorder/recording_internal.h"

/* What a native step hands up to the recording's owner instead of
 * calling it: native_step.c calls nothing of recording.c's, attach.c's
 * or follow_fork.c's (tests/recorder_calls.sh). recording.c fills
 * rec->step_hooks. */
struct native_step_hooks {
	/* A ptrace event stop during the step, but a clone that made a
	 * thread (the table adopts those). True when the step must end
	 * there (NATIVE_INTERRUPTED). */
	bool (*on_event)(struct recording *rec, int event);
	/* Whether a user asked to end the recording: a held group stop is
	 * given up. */
	bool (*ended_by_user)(void);
	/* The process ended as stop says (its leader's end, last). */
	void (*process_ended)(struct recording *rec, const struct tracee_stop *stop);
};

enum native_outcome {
	NATIVE_EXECUTED,   /* the instruction at rip ran */
	NATIVE_HANDLER,    /* a signal was delivered instead: rip is its handler */
	NATIVE_EXEC,       /* the instruction was an execve that succeeded */
	NATIVE_EXITED,     /* the process is gone (res has how it ended) */
	NATIVE_THREAD_EXITED, /* the thread is gone, the process lives on */
	NATIVE_PENDING,    /* still running (a syscall that blocks): the
			    * thread is THREAD_IN_KERNEL */
	NATIVE_INTERRUPTED,/* a requested stop interrupted the step (attach) */
	NATIVE_ERROR,      /* the supervisor failed (rec->err set) */
};

/* Lets the real process execute the instruction at the emulator's rip:
 * flushes the mirror, loads the emulator's registers into the thread,
 * single-steps it, delivering any signal that arrives on the way. The
 * emulator's registers are not reloaded: the caller does that.
 * may_block: the instruction is a syscall that may wait for another
 * thread; if other threads live and it does not end at once, the step
 * goes on in the background and NATIVE_PENDING comes back. */
enum native_outcome native_step(struct recording *rec, bool may_block);
/* Gives thread t its own CPU affinity back: a thread stays bound to the
 * recorder's CPU between its steps, so every path that lets it run
 * otherwise (a detach) calls this first. */
void native_step_unbind(struct rec_thread *t);
/* Goes on with the current thread's step from the stop it reported
 * (THREAD_EVENT): the same outcomes. */
enum native_outcome native_step_resume(struct recording *rec, const struct tracee_stop *stop);

/* Before and after anything the current thread runs natively with the
 * trap flag (a step, an injected instruction): the program's SIGTRAP mask
 * and action, which the step's forced trap resets, put back
 * (sigtrap_guard.h). nr: the syscall, or -1. */
void recording_trap_guard_before(struct recording *rec, long nr, const uint64_t args[6]);
void recording_trap_guard_after(struct recording *rec, long nr, int64_t result);

#endif
