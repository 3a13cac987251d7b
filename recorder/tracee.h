/*
 * tracee.h — one ptrace-controlled thread of a program we started (stopped
 * at its first instruction after exec) or seized while running: step it,
 * continue it, read and write its registers (general, extended/XSAVE),
 * end it or let it go.
 *
 * Every call returns 0 on success and -1 with errno set on failure; a stop
 * or exit is described by struct tracee_stop.
 */
#ifndef TTREC_TRACEE_H
#define TTREC_TRACEE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

/* The largest XSAVE area we accept from the kernel (AMX makes it ~11 KiB). */
#define TRACEE_XSTATE_MAX 16384

struct tracee {
	pid_t pid;
	bool alive;            /* not yet exited or killed and reaped */
	size_t xstate_size;    /* bytes the kernel's NT_X86_XSTATE regset has */
	long options;          /* PTRACE_O_* in effect */
};

enum tracee_stop_kind {
	TRACEE_STOP_STEP,    /* a single step (or a step into a signal handler) completed */
	TRACEE_STOP_SIGNAL,  /* a signal is about to be delivered: info.si_signo */
	TRACEE_STOP_EXEC,    /* the thread completed an execve */
	TRACEE_STOP_EVENT,   /* another ptrace event (event holds PTRACE_EVENT_*) */
	TRACEE_STOP_GROUP,   /* the process entered a group stop (SIGSTOP & co.) */
	TRACEE_STOP_EXITED,  /* the process exited: exit_status */
	TRACEE_STOP_KILLED,  /* the process died of a signal: info.si_signo */
};

struct tracee_stop {
	enum tracee_stop_kind kind;
	int exit_status;   /* for EXITED */
	int event;         /* for EVENT */
	siginfo_t info;    /* for SIGNAL (and si_signo for KILLED) */
};

/* Why tracee_start failed, when it did. */
enum tracee_start_error {
	TRACEE_START_OK,
	TRACEE_START_NOT_FOUND,      /* no such program (ENOENT) */
	TRACEE_START_NOT_EXECUTABLE, /* EACCES, ENOEXEC, ... */
	TRACEE_START_SYSTEM,         /* fork, ptrace or wait failed: errno */
};

/*
 * Starts argv[0] (searched in PATH like execvp) traced, and returns with the
 * new image stopped before its first instruction. On failure *err says why
 * and *err_errno holds the errno of the failed step; tracee_start_strerror()
 * turns them into a message.
 */
int tracee_start(struct tracee *t, char *const argv[],
		 enum tracee_start_error *err, int *err_errno);
const char *tracee_start_strerror(enum tracee_start_error err);

/*
 * Takes a running process we did not start (PTRACE_SEIZE with options,
 * then PTRACE_INTERRUPT) and returns with it stopped at the interrupt
 * (a PTRACE_EVENT_STOP stop), possibly inside a system call that the
 * kernel will restart. -1 with errno: ESRCH (no such process, or it
 * ended), EPERM (not permitted), others.
 */
int tracee_seize(struct tracee *t, pid_t pid, long options);

/* PTRACE_SETOPTIONS: replaces the options in effect. */
int tracee_set_options(struct tracee *t, long options);

/* A single step that ended in a system call interrupted by a stop
 * (PTRACE_INTERRUPT) leaves the step's SIGTRAP queued, which would kill
 * the process once detached: if one is queued, the process is resumed up
 * to its delivery stop, where it is dropped (the next resume passes no
 * signal). Registers must already be set. A signal that stops the
 * process on the way goes into *deliver, for the detach. 0, or -1 with
 * errno. */
int tracee_discard_step_trap(struct tracee *t, int *deliver);

/* Lets a stopped process run on untraced (PTRACE_DETACH, no signal)
 * without waiting for it: for processes we attached to. */
int tracee_detach(struct tracee *t);

/* Resumes for one instruction (signo: signal to deliver, 0 for none) and
 * waits for the next stop. */
int tracee_step(struct tracee *t, int signo, struct tracee_stop *stop);
/* Resumes up to the next system call entry or exit (PTRACE_SYSCALL): no
 * trap flag, so no SIGTRAP is forced on the thread (a step's trap resets
 * an ignored or blocked SIGTRAP to its default). Both stops come back as
 * TRACEE_STOP_STEP. */
int tracee_syscall(struct tracee *t, int signo, struct tracee_stop *stop);
/* Resumes freely until the next stop. */
int tracee_cont(struct tracee *t, int signo, struct tracee_stop *stop);

/* Starts one step and returns without waiting (for a syscall that may
 * block while other threads run on). */
int tracee_resume_step(struct tracee *t, int signo);
/* The thread's next stop if it has one: 1 with *stop filled, 0 when it is
 * still running, -1 on error. */
int tracee_poll(struct tracee *t, struct tracee_stop *stop);
/* Waits for the thread's next stop. */
int tracee_wait(struct tracee *t, struct tracee_stop *stop);
/* Waits for a stop of any traced thread (or of the child): its tid and raw
 * wait status, for tracee_decode_status. Interruptible: a signal to the
 * supervisor ends the wait (-1, EINTR). */
int tracee_wait_any(pid_t *tid, int *status, bool interruptible);
int tracee_decode_status(struct tracee *t, int status, struct tracee_stop *stop);
/* PTRACE_GETEVENTMSG: for a clone event, the new thread's tid. */
int tracee_event_message(const struct tracee *t, unsigned long *msg);
/* A thread the kernel attached at a clone event (PTRACE_O_TRACECLONE is
 * set by tracee_start): waits for its first stop. */
int tracee_adopt_thread(struct tracee *thread, const struct tracee *process, pid_t tid);

int tracee_get_regs(const struct tracee *t, struct user_regs_struct *regs);
int tracee_set_regs(const struct tracee *t, const struct user_regs_struct *regs);

/* The XSAVE-format extended state (x87, SSE, AVX, AVX-512, ...): buf has
 * room for TRACEE_XSTATE_MAX bytes; t->xstate_size of it are used. */
int tracee_get_xstate(const struct tracee *t, void *buf);
int tracee_set_xstate(const struct tracee *t, const void *buf);

/* fs and gs base registers (also in user_regs_struct; these are shortcuts). */
int tracee_get_fs_gs_base(const struct tracee *t, uint64_t *fs_base, uint64_t *gs_base);

/* Lets the process run on untraced from the stop it is in (signo: a signal
 * to deliver as it resumes, 0 for none) and waits until it ends: *stop is
 * then EXITED or KILLED. The process must be one tracee_start started (our
 * child), at a step or signal stop. */
int tracee_detach_and_wait(struct tracee *t, int signo, struct tracee_stop *stop);
/* Waits for the end of the process (our child) once every thread of it
 * has been detached. */
int tracee_wait_untraced_end(struct tracee *t, struct tracee_stop *stop);

/* Ignores signo in the supervisor only: a program started afterwards gets
 * back, before its exec, the disposition the supervisor had on entry.
 * (SIGXFSZ: a full trace file must be an error, not the supervisor's
 * death.) 0, or -1 with errno. */
int tracee_ignore_in_supervisor(int signo);

/* Kills the process (if alive) and reaps it. Safe to call twice. */
void tracee_kill(struct tracee *t);

#endif
