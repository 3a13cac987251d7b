/*
 * recording_internal.h — the state of one recording (struct recording, its
 * threads) and recording_fail, shared by the files that implement it.
 * What each file offers the others is in a header of its own
 * (thread_table.h, native_step.h, slice_switch.h, trace_events.h,
 * thread_regs.h, recording_forget.h, attach_recording.h, follow_fork.h,
 * hand_back.h, program_killed.h, vsyscall.h, stack_growth.h): a file's
 * includes say whom it calls. Who may call whom: recorder/README.md.
 * Nothing outside recorder/ includes it.
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
	/* The step went on in the kernel while other threads ran. */
	bool background;
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
	uint64_t checkpoint_icount; /* its instruction count there */
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
	/* No other process can see the address space: it began with an
	 * exec under the recording (an attached process's, or a vfork
	 * child's, may be its parent's too). What a dying process holds
	 * dirty then need not reach it. */
	bool memory_ours_alone;
	/* It has called io_setup or io_uring_setup (syscall_flush.c). */
	bool async_io;
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
	const struct native_step_hooks *step_hooks; /* native_step.h; set by recording.c */
	const struct thread_table_hooks *table_hooks; /* thread_table.h; set by recording.c */
	size_t n_child_recorders;
	enum record_error error;
	char *err;
	size_t errlen;
};

/* Sets the recording's error (first one wins) and returns -1. */
int recording_fail(struct recording *rec, enum record_error e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
