/*
 * recording_internal.h — the state of one recording, shared by the files
 * that implement it (recording.c: setup and the main loop; native_step.c:
 * running the real process for one instruction; trace_events.c: the
 * records; attach.c, follow_fork.c: attached processes and children).
 * Nothing outside recorder/ includes it.
 */
#ifndef TTREC_RECORDING_INTERNAL_H
#define TTREC_RECORDING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "recorder/cpuid_policy.h"
#include "recorder/mapping_table.h"
#include "recorder/memory_mirror.h"
#include "recorder/progress.h"
#include "recorder/recording.h"
#include "recorder/remote_memory.h"
#include "recorder/tracee.h"
#include "recorder/traced_memory.h"
#include "recorder/vdso_patch.h"
#include "trace-format/idna.h"

/* Streams of a single-threaded recording: process-wide events, then the
 * thread. */
enum { GLOBAL_STREAM = 0, THREAD_STREAM = 1 };

struct recording {
	const struct record_options *opt;
	struct record_result *res;
	struct tracee tracee;
	struct remote_memory rm;
	struct mapping_table *maps;
	struct memory_mirror *mirror;
	struct idna_writer *writer;
	struct traced_memory tm;
	struct emu_cpu *cpu;
	const struct cpuid_policy *policy;
	uint8_t xstate[TRACEE_XSTATE_MAX]; /* the kernel's last XSAVE image */
	uint64_t global_seq;
	uint64_t next_checkpoint;
	uint32_t address_space;
	bool finished;
	bool native_ran;       /* the real process ran since the last signal poll */
	/* attach.c, follow_fork.c, progress.c */
	struct vdso_patch vdso;        /* entry points patched in an attached process */
	bool interrupted_in_step;      /* a requested stop cut a native step short */
	struct progress_line progress;
	pid_t *child_recorders;        /* --follow-fork: recorder processes to wait for */
	size_t n_child_recorders;
	enum record_error error;
	char *err;
	size_t errlen;
};

/* Sets the recording's error (first one wins) and returns -1. */
int recording_fail(struct recording *rec, enum record_error e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Registers between the emulator and the real thread. */
int recording_load_regs(struct recording *rec);
int recording_store_regs(struct recording *rec);

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

/* --- attach.c --------------------------------------------------------- */

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
/* A ptrace event stop during a native step (event: PTRACE_EVENT_*). True
 * when the step must end there: a stop was requested (the process may be
 * inside a system call). */
bool recording_on_event(struct recording *rec, int event);

/* --- follow_fork.c ---------------------------------------------------- */

/* The PTRACE_O_* options that report children (--follow-fork), or 0. */
long follow_fork_options(const struct recording *rec);
/* A fork, vfork or clone event: the child is handed to a recorder of its
 * own (ttrec re-executed), into <trace minus .idna>.<pid>.idna. */
void follow_fork_child(struct recording *rec);
/* Waits for the children's recorders; fills res->children. */
void follow_fork_wait(struct recording *rec);

/* --- native_step.c --------------------------------------------------- */

enum native_outcome {
	NATIVE_EXECUTED,   /* the instruction at rip ran */
	NATIVE_HANDLER,    /* a signal was delivered instead: rip is its handler */
	NATIVE_EXEC,       /* the instruction was an execve that succeeded */
	NATIVE_EXITED,     /* the process is gone (res has how it ended) */
	NATIVE_INTERRUPTED,/* a requested stop interrupted the step (attach) */
	NATIVE_ERROR,      /* the supervisor failed (rec->err set) */
};

/* Lets the real process execute the instruction at the emulator's rip:
 * flushes the mirror, loads the emulator's registers into the thread,
 * single-steps it, delivering any signal that arrives on the way. The
 * emulator's registers are not reloaded: the caller does that. */
enum native_outcome native_step(struct recording *rec);

/* --- hand_back.c ------------------------------------------------------ */

/* The program leaves the recording alive: the emulator's state (dirty
 * mirror bytes, registers) goes into the real process, which then runs on
 * untraced to its end; res says how it ended. For a trace that cannot be
 * written: the program must not pay for it. */
void recording_hand_back(struct recording *rec);

/* --- trace_events.c --------------------------------------------------- */

int log_key_frame(struct recording *rec, uint32_t reason);
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
