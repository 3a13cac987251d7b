/*
 * verifier.h — running a program on the emulator and on the real CPU in
 * lockstep, one instruction at a time, until they differ.
 */
#ifndef LOCKSTEP_VERIFIER_H
#define LOCKSTEP_VERIFIER_H

#include <stdbool.h>
#include <stdint.h>

#include "recorder/cpuid_policy.h"
#include "tests/lockstep/fallback_counts.h"

struct lockstep_options {
	uint64_t max_insns;                 /* stop after this many instructions */
	const struct cpuid_policy *policy;
};

struct lockstep_stats {
	uint64_t emulated;   /* executed by both and compared equal */
	uint64_t native;     /* stepped on the CPU only (special, unimplemented, faulting) */
	uint64_t signals;    /* signals delivered to the program */
	bool limit_reached;
	bool exited;         /* the program ended: exit_status or killed_by */
	int exit_status, killed_by;
	bool cpuid_faulting; /* cpuid answers came from the policy */
	struct fallback_counts natives; /* native steps by mnemonic */
};

enum lockstep_result {
	LOCKSTEP_OK,        /* program ended or the limit was reached, no difference */
	LOCKSTEP_DIVERGED,  /* a difference, reported on stderr */
	LOCKSTEP_ERROR,     /* the program could not be run or traced, reported */
};

enum lockstep_result lockstep_run(char *const argv[], const struct lockstep_options *opt,
				  struct lockstep_stats *stats);

#endif
