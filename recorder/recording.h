/*
 * recording.h — one recording: a program started under the supervisor, its
 * user-mode instructions emulated, everything else executed by the real
 * process, the whole execution written to a trace (DESIGN.md, Recording).
 */
#ifndef TTREC_RECORDING_H
#define TTREC_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "recorder/child_parking.h"

struct record_options {
	char *const *argv;          /* the program and its arguments */
	const char *trace_path;     /* where the trace is written: a new name */
	const char *trace_name;     /* its name at the end, if not trace_path
				     * (trace_output.h); children's traces are
				     * named after it */
	const char *cpuid_policy;   /* "default" or "native" */
	uint64_t checkpoint_interval; /* instructions between checkpoint frames */
	uint64_t ring_bytes;        /* 0: keep the whole trace */
	unsigned cache_log2_entries;
	unsigned cache_log2_line;   /* 0: the format's; 3: a format 1.4 trace, 6: 1.5 */
	/* ttrec attach (attach.c): record the running process attach_pid
	 * instead of starting argv (which then is its command line, for the
	 * trace header); resume_stopped: it is in the SIGSTOP stop a parent
	 * recorder left it in (follow_fork.c); resume_parked: it waits
	 * parked as `parking` says (child_parking.h). */
	pid_t attach_pid;
	bool resume_stopped;
	bool resume_parked;
	struct child_parking parking;
	bool follow_forks;       /* record child processes into their own traces */
	bool show_progress;      /* the progress line, if stderr is a terminal */
	bool quiet;              /* passed on to the recorders of children */
	bool no_jit;             /* every block interpreted, none translated */
	bool chaos;              /* --chaos: random thread slices and order (chaos.h) */
	uint64_t chaos_seed;
};

/* Why a recording ended without a result for the program. */
enum record_error {
	RECORD_OK,
	RECORD_ERR_PROGRAM_NOT_FOUND,
	RECORD_ERR_NOT_EXECUTABLE,
	RECORD_ERR_TRACE_FILE,      /* cannot create the trace */
	RECORD_ERR_TRACE_WRITE,     /* a write to the trace failed (disk full, file size
				     * limit): the program ran on untraced to its end,
				     * *res says how it ended */
	RECORD_ERR_PTRACE,          /* the supervisor lost control of the program */
	RECORD_ERR_UNSUPPORTED,     /* the program did something not supported yet */
	RECORD_ERR_NO_MEMORY,       /* ttrec ran out of memory */
};

struct native_fallback_count {
	const char *mnemonic;
	uint64_t count;
};

struct record_result {
	bool exited;           /* exited normally: exit_status */
	int exit_status;
	int term_signal;       /* killed by this signal */
	bool ran_untraced;     /* RECORD_ERR_TRACE_WRITE: the program's end ran untraced */
	bool trace_created;    /* the recording created trace_path */
	uint64_t instructions, syscalls, signals, checkpoints;
	uint64_t threads;      /* the program's threads, the first included */
	uint64_t reads, misses, code_pages;
	uint64_t trace_bytes;
	uint64_t translations;  /* blocks the emulator translated to host code */
	double seconds;
	struct native_fallback_count fallbacks[32];
	size_t n_fallbacks;
	bool detached;         /* attach: the process was let go, still running */
	/* System calls whose effect on memory ttrec does not know (not in its
	 * table, or an ioctl or prctl request it does not): each made it
	 * forget all it had cached, correct but slow. The first kinds seen:
	 * the syscall number and, for ioctl and prctl, the request. */
	uint64_t undescribed;
	struct { long nr; uint64_t request; uint64_t count; } undescribed_kinds[8];
	size_t n_undescribed_kinds;
	/* What they may have written (kernel_write_ranges.c): bytes logged
	 * as read back after the call, and bytes that could not be read,
	 * unknown to replay. */
	uint64_t undescribed_bytes_logged, undescribed_bytes_unknown;
	/* The program's ptrace calls ttrec answered itself: [0] TRACEME
	 * (answered 0, without effect), [1] attaching to ttrec (refused);
	 * and [2] its stop signals to ttrec (answered 0, without effect). */
	uint64_t ptrace_answered[3];
	/* A set-user-ID or set-group-ID program the kernel ran without
	 * those privileges, being traced (setid_check.h): the first one. */
	char setid_dropped[256];
	/* ttrec run: a user's signal to ttrec ended the recording, the
	 * program was killed (supervisor_signals.h); 0 if not. */
	int stop_signal;
	pid_t stop_sender;
	/* ttrec run: the first such signal, passed on to the program. */
	int passed_signal;
	pid_t passed_sender;
	/* --follow-fork: children recorded, each into <trace minus .idna>.PID.idna */
	uint64_t n_children;
	pid_t children[16];    /* the first ones */
};

/* Records one execution. Returns RECORD_OK with *res filled, or an error
 * with a one-line message in err. When the trace cannot be written, the
 * program is not harmed: recording stops, the program runs on natively and
 * untraced, and RECORD_ERR_TRACE_WRITE comes back with *res filled; the
 * trace is readable up to its last complete chunk. */
enum record_error record_program(const struct record_options *opt,
				 struct record_result *res, char *err, size_t errlen);

#endif
