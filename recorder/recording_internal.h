/*
 * recording_internal.h — the state of one recording, shared by the files
 * that implement it (recording.c: setup and the main loop, which alone
 * drives the others; thread_table.c: the threads and the choice of the
 * next; slice_switch.c: handing the emulator to it; native_step.c:
 * running the real process for one instruction; trace_events.c: the
 * records; attach.c, follow_fork.c: attached processes and children).
 * Who may call whom: recorder/README.md. Nothing outside recorder/
 * includes it.
 */
#ifndef TTREC_RECORDING_INTERNAL_H
#define TTREC_RECORDING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "recorder/chaos.h"
#include "recorder/cpuid_policy.h"
#include "recorder/mapping_table.h"
#include "recorder/memory_mirror.h"
#include "recorder/progress.h"
#include "recorder/recording.h"
#include "recorder/remote_memory.h"
#include "recorder/sigtrap_guard.h"
#include "recorder/slice_clock.h"
#include "recorder/step_affinity.h"
#include "recorder/tracee.h"
#include "recorder/traced_memory.h"
#include "recorder/vdso_patch.h"
#include "trace-format/idna.h"

/* Streams: process-wide events, then one per thread (the first thread's
 * is 1, each new thread gets the next). */
enum { GLOBAL_STREAM = 0, FIRST_THREAD_STREAM = 1 };

enum thread_state {
	THREAD_RUNNABLE,  /* stopped by us; the emulator can run it */
	THREAD_IN_KERNEL, /* running natively: a syscall that may block */
	THREAD_EVENT,     /* ... that has stopped again: `stop` says how */
	THREAD_GONE,      /* exited */
};

/* A native step in progress (native_step.c): what to finish it with. */
struct native_progress {
	int deliver;           /* signal to deliver at the next resume */
	bool handler_expected; /* a delivered signal has a handler */
	bool syscall;          /* the instruction is a syscall: */
	long nr;
	uint64_t args[6];
	bool tf_before;        /* the program itself had TF set */
	struct sigtrap_step trap; /* its SIGTRAP mask, put back after the step */
	uint64_t continues_seen; /* rec->job_continues when the step began */
	/* The registers read at the step's last stop, while the thread has
	 * not run since: the load after the step takes them. */
	bool stop_regs_valid;
	struct user_regs_struct stop_regs;
};

/* One thread of the recorded process. The emulator runs one at a time:
 * while a thread is not current, its registers and instruction count wait
 * here. */
struct rec_thread {
	struct tracee tracee;  /* pid: the thread's tid */
	uint32_t stream;
	enum thread_state state;
	struct traced_memory tm; /* its prediction cache; the code pages are shared */
	struct emu_regs regs;
	uint64_t icount;
	bool started;          /* its first slice has been logged */
	uint64_t next_checkpoint; /* its instruction count at the next checkpoint */
	uint64_t checkpoint_seq;  /* global sequence number of its last checkpoint */
	struct native_progress native;
	bool interrupted;      /* a stop request cut its native step short */
	bool child_process;    /* a forked child, let go untraced: not a thread */
	struct tracee_stop stop; /* THREAD_EVENT */
	uint8_t xstate[TRACEE_XSTATE_MAX]; /* the kernel's last XSAVE image */
	/* Its binding to the recorder's CPU (step_affinity.h), kept from one
	 * step to the next: it runs only in steps. */
	struct step_affinity affinity;
	/* prctl(PR_SET_TSC, PR_TSC_SIGSEGV): its rdtsc faults (inherited by
	 * the threads it makes). */
	bool tsc_faults;
};

struct recording {
	const struct record_options *opt;
	struct record_result *res;
	struct tracee tracee;  /* the process (pid: its thread group id) */
	struct remote_memory rm;
	struct mapping_table *maps;
	struct memory_mirror *mirror;
	struct idna_writer *writer;
	struct emu_cpu *cpu;
	const struct cpuid_policy *policy;
	struct rec_thread **threads;
	size_t n_threads, cap_threads, live_threads;
	struct rec_thread *cur;      /* the thread the emulator holds */
	struct rec_thread *last_run; /* the last thread whose slice was logged */
	struct traced_memory *tm;    /* cur->tm */
	uint8_t *xstate;             /* cur->xstate */
	uint8_t xstate_next[TRACEE_XSTATE_MAX]; /* recording_store_regs' new image */
	pid_t own_pid;               /* ttrec's */
	uint32_t next_stream;
	uint64_t program_break;      /* brk's last answer; 0: not asked yet */
	struct sigtrap_guard sigtrap; /* the program's SIGTRAP action (sigtrap_guard.h) */
	/* Stops of threads not known yet: a new thread's first stop can come
	 * before its parent's clone event. */
	struct { pid_t tid; int status; } early_stops[16];
	size_t n_early_stops;
	bool exiting;                /* the whole process is going away */
	uint64_t global_seq;
	uint64_t last_interval_checkpoint; /* its global sequence number (ring mode) */
	uint32_t address_space;
	/* A process made by clone(CLONE_VM) without CLONE_VFORK may write
	 * the memory at any time, until execve. */
	bool memory_shared_with_process;
	/* Whether the program reads the recorder's clocks (clock_syscalls.h);
	 * asked again after each execve and setns. */
	bool clocks_known, clocks_shared;
	/* The recorder thread's binding to the CPU where the program's steps
	 * run (step_affinity.h). */
	struct step_affinity home_cpu;
	bool finished;
	bool native_ran;       /* the real process ran since the last signal poll */
	/* Group stops (job_stop.h) the recording held and saw continued:
	 * another thread's report of a stop already continued is not held. */
	uint64_t job_continues;
	int last_logged_signo; /* the last SIGNAL record's (program_killed.c) */
	bool yielded;          /* the current thread called sched_yield: its slice ends */
	struct chaos chaos;    /* --chaos: random slices and order */
	struct slice_clock slice_clock; /* the current slice's time (slice_clock.h) */
	/* The current thread was alone and made a thread: its turn starts
	 * now (the time it ran alone is no one else's). */
	bool slice_restart;
	/* attach.c, follow_fork.c, progress.c */
	struct vdso_patch vdso;        /* entry points patched in an attached process */
	bool interrupted_in_step;      /* a requested stop cut a native step short */
	struct progress_line progress;
	struct child_recorder *child_recorders; /* --follow-fork (follow_fork.c) */
	const struct native_step_hooks *step_hooks; /* set by recording.c */
	size_t n_child_recorders;
	enum record_error error;
	char *err;
	size_t errlen;
};

/* Sets the recording's error (first one wins) and returns -1. */
int recording_fail(struct recording *rec, enum record_error e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Registers between the emulator and the real (current) thread. Storing
 * returns RECORDING_THREAD_VANISHED, without failing the recording, when
 * the thread was killed under us while other threads live. */
#define RECORDING_THREAD_VANISHED (-2)
int recording_load_regs(struct recording *rec);
int recording_store_regs(struct recording *rec);
/* A thread's registers as the kernel gave them, as the emulator holds them. */
void recording_regs_from_kernel(struct recording *rec, const struct user_regs_struct *k,
				const uint8_t *xstate, struct emu_regs *out);
/* The process ended as stop says: logged, res filled, recording over. */
void recording_end_process(struct recording *rec, const struct tracee_stop *stop);
/* Before and after anything the current thread runs natively with the
 * trap flag (a step, an injected instruction): the program's SIGTRAP mask
 * and action, which the step's forced trap resets, put back
 * (sigtrap_guard.h). nr: the syscall, or -1. */
void recording_trap_guard_before(struct recording *rec, long nr, const uint64_t args[6]);
void recording_trap_guard_after(struct recording *rec, long nr, int64_t result);

/* program_killed.c: a signal that killed the process without a delivery
 * stop (SIGKILL, a seccomp kill) is logged where the recording stands, so
 * that the trace ends at that instruction, killed by it. */
int log_unseen_fatal_signal(struct recording *rec, int signo);
/* After a failure to control the process: if it is because the program
 * was killed meanwhile, the recording ends as the program did (the error
 * is dropped). */
void recording_check_killed(struct recording *rec);

/* Forgets what is cached about [addr, addr+len) (mirror, decoded code,
 * logged code pages: len UINT64_MAX for everything) after memory changed
 * behind the emulator; logs the change if replay must forget code too. */
int recording_invalidate(struct recording *rec, uint64_t addr, uint64_t len);
int recording_invalidate_all(struct recording *rec);

/* Starts a program image in the trace (EXECVE, MODULE_LOAD records, a
 * checkpoint) from the process's current state. at_exec: the process is at
 * its first instruction after an exec, its vDSO is hidden from it through
 * the auxiliary vector. */
int recording_start_address_space(struct recording *rec, bool at_exec);

/* Memory and mappings a syscall the process made may have changed,
 * forgotten (the cached copies, decoded code, the mapping table). */
void recording_apply_syscall_effects(struct recording *rec, long nr, const uint64_t args[6],
				     int64_t result);

/* --- vsyscall.c --------------------------------------------------------- */

/* The emulator faulted fetching at rip: if rip is an entry point of the
 * legacy vsyscall page, its system call is made and its return emulated
 * (0, or -1 on failure); else 1. */
int recording_vsyscall(struct recording *rec);

/* --- stack_growth.c ---------------------------------------------------- */

/* The mirror's memory_mirror_stack_grower (ctx: the recording): the current
 * thread touches page_addr natively, so that the kernel grows the stack
 * as the program's own access would; the mapping table is reloaded. */
int recording_grow_stack(void *ctx, uint64_t page_addr);

/* --- attach.c --------------------------------------------------------- */

/* Whether the user asked an attached recording to let the process go. */
bool attach_stop_requested(void);
/* Seizes opt->attach_pid and stops it (rec->tracee set up). */
int attach_seize(struct recording *rec);
/* Patches its vDSO and starts the trace from its state. */
int attach_begin(struct recording *rec);
/* Puts the emulator's state into the process (or lets a system call a stop
 * request cut short restart), restores its vDSO and detaches it. */
void attach_release(struct recording *rec);
/* At the main loop's signal-poll point: a requested stop (SIGINT/SIGTERM
 * to an attached recording) finishes the recording; the progress line is
 * redrawn when due. */
void recording_poll_point(struct recording *rec);
/* A PTRACE_EVENT_STOP during a native step. True when the step must end
 * there: a stop was requested (the process may be inside a system call);
 * the recording is then finished. */
bool attach_on_interrupt(struct recording *rec);

/* --- follow_fork.c ---------------------------------------------------- */

/* The PTRACE_O_* options that stop every new process at birth: to be
 * handed to a recorder of its own (--follow-fork), or let go with its
 * registers as the program left them (threads_let_child_go). */
long child_stop_options(void);
/* A fork, vfork or clone event: the child is handed to a recorder of its
 * own (ttrec re-executed), into <trace minus .idna>.<pid>.idna. */
void follow_fork_child(struct recording *rec);
/* A wait reaped pid: if it is a child's recorder, its end is handled (a
 * child it left parked is released) and true returned. */
bool follow_fork_recorder_ended(struct recording *rec, pid_t pid, int status);
/* Waits for the children's recorders; fills res->children. */
void follow_fork_wait(struct recording *rec);

/* --- native_step.c --------------------------------------------------- */

/* What a native step hands up to the recording's owner instead of
 * calling it: native_step.c calls nothing of the main loop's, attach.c's
 * or follow_fork.c's. recording.c fills rec->step_hooks. */
struct native_step_hooks {
	/* A ptrace event stop during the step, but a clone that made a
	 * thread (the table adopts those). True when the step must end
	 * there (NATIVE_INTERRUPTED). */
	bool (*on_event)(struct recording *rec, int event);
	/* Whether a user asked to end the recording: a held group stop is
	 * given up. */
	bool (*ended_by_user)(void);
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

/* --- thread_table.c --------------------------------------------------- */

/* Adds a thread (stopped, regs are its first state) with the next stream.
 * NULL when memory is short (the recording fails). */
struct rec_thread *threads_add(struct recording *rec, pid_t tid);
struct rec_thread *threads_find(struct recording *rec, pid_t tid);
void threads_free(struct recording *rec);
/* Instructions all threads have retired so far. */
uint64_t threads_instructions(const struct recording *rec);
/* Waits for t's next stop, filing the stops of other threads on the way. */
int threads_wait_for(struct recording *rec, struct rec_thread *t, struct tracee_stop *stop);
/* Files the stops already reported, without waiting. 0, or -1. */
int threads_collect_stops(struct recording *rec);
/* Whether the current thread's clone creates a thread (not a process). */
bool threads_clone_is_thread(struct recording *rec);
/* A stop of tid that came before tid was known: 1 with *status, or 0. */
int threads_early_stop(struct recording *rec, pid_t tid, int *status);
/* A clone event on the current thread that made a thread: adopts it. */
int threads_on_clone(struct recording *rec);
/* A fork, vfork or clone event that made a process, without
 * --follow-fork: the child runs on untraced, its r11 cleaned of the trap
 * flag of the parent's single step. */
int threads_let_child_go(struct recording *rec);
/* The thread is gone: logged, state GONE. */
int threads_note_exit(struct recording *rec, struct rec_thread *t, int64_t status);
/* What the scheduler chose; the main loop (recording.c) acts on it. The
 * table never runs a thread nor ends the recording itself. */
enum schedule_decision {
	SCHEDULE_ERROR = -1,       /* rec->err set */
	SCHEDULE_RUN,              /* *next is runnable (NULL: rec->finished) */
	SCHEDULE_STEP_STOPPED,     /* *next's native step stopped as *stop
				    * says: the loop goes on with the step */
	SCHEDULE_PROCESS_ENDED,    /* the last thread ended as *stop says */
	SCHEDULE_WAIT_INTERRUPTED, /* a signal to ttrec cut the wait short:
				    * the loop's signal-poll point, then again */
};
/* Picks the thread to run next (*next; the loop switches to it), waiting
 * for a stop of a thread in the kernel when none can run. */
enum schedule_decision threads_schedule(struct recording *rec, struct rec_thread **next,
					struct tracee_stop *stop);
/* Ends the process and reaps every thread. */
void threads_kill_all(struct recording *rec);

/* --- slice_switch.c --------------------------------------------------- */

/* Makes t the thread the emulator holds (saving the current one's state);
 * logs the start of a slice when another thread ran since t last did. */
int slice_switch_to(struct recording *rec, struct rec_thread *t);
/* Ring mode: gives every other thread whose last checkpoint is older
 * than since a checkpoint one of its own, in a slice of its own, so that
 * the kept part of the trace has a checkpoint for every thread. */
int slice_refresh_checkpoints(struct recording *rec, uint64_t since);

/* --- hand_back.c ------------------------------------------------------ */

/* The program leaves the recording alive: the emulator's state (dirty
 * mirror bytes, registers) goes into the real process, which then runs on
 * untraced to its end; res says how it ended. For a trace that cannot be
 * written: the program must not pay for it. */
void recording_hand_back(struct recording *rec);

/* --- trace_events.c --------------------------------------------------- */

int log_key_frame(struct recording *rec, uint32_t reason);
int log_thread_create(struct recording *rec, const struct rec_thread *t, pid_t parent);
int log_thread_exit(struct recording *rec, const struct rec_thread *t, int64_t status);
int log_checkpoint(struct recording *rec);
int log_kernel(struct recording *rec, uint32_t kind, uint64_t nr, uint64_t result);
int log_nondet(struct recording *rec, uint32_t kind, unsigned n_in, const uint64_t *in,
	       unsigned n_out, const uint64_t *out);
int log_native(struct recording *rec, const uint8_t *insn, unsigned len);
int log_signal(struct recording *rec, const siginfo_t *info);
int log_exec(struct recording *rec, const char *path);
int log_modules(struct recording *rec, uint64_t addr, uint64_t len);
int log_process_exit(struct recording *rec, int64_t status);

#endif
