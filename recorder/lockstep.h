/*
 * lockstep.h — `ttrec run --verify`: running a program on the emulator and
 * on the real CPU in lockstep, one instruction at a time, until they differ
 * (DESIGN.md, Recording step 6). No trace is written.
 */
#ifndef TTREC_LOCKSTEP_H
#define TTREC_LOCKSTEP_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "recorder/cpuid_policy.h"
#include "recorder/fallback_counts.h"
#include "recorder/tracee.h"

struct lockstep_options {
	/* After this many instructions the program is left to run natively,
	 * untraced, to its end (UINT64_MAX: verify all of it). */
	uint64_t max_insns;
	const struct cpuid_policy *policy;
};

struct lockstep_stats {
	uint64_t emulated;   /* executed by both and compared equal */
	uint64_t native;     /* stepped on the CPU only (special, unimplemented, faulting) */
	uint64_t signals;    /* signals delivered to the program */
	uint64_t xstate_bv_taken; /* xsave* headers whose extra in-use bits were the CPU's */
	double seconds;      /* the verified part, not the native rest */
	bool limit_reached;  /* max_insns verified; the rest ran natively */
	bool exited;         /* the program ended: exit_status or killed_by */
	int exit_status, killed_by;
	bool cpuid_faulting; /* cpuid answers came from the policy */
	enum tracee_start_error start_error; /* for LOCKSTEP_ERROR before the start */
	struct fallback_counts natives; /* native steps by mnemonic */
};

enum lockstep_result {
	LOCKSTEP_OK,        /* no difference; the program ended (stats say how) */
	LOCKSTEP_DIVERGED,  /* a difference, reported on stderr; the program was killed */
	LOCKSTEP_ERROR,     /* the program could not be run or traced, reported */
};

/* Runs argv[0] (searched in PATH) with its arguments under the verifier.
 * Messages go to stderr; the program's standard streams are its own. The
 * caller frees stats->natives. */
enum lockstep_result lockstep_run(char *const argv[], const struct lockstep_options *opt,
				  struct lockstep_stats *stats);

/* The closing lines: why verification stopped, counts and speed, and
 * (unless brief) the native steps by mnemonic, largest count first. */
void lockstep_print_summary(FILE *f, struct lockstep_stats *st,
			    const struct lockstep_options *opt, bool brief);

#endif
