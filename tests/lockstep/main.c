/*
 * main.c — the lockstep verifier's command line and summary:
 *   lockstep [--max N] [--policy default|native] [--quiet] -- PROGRAM ARGS...
 * Exit status 0: no difference; 1: a difference (reported); 2: usage or
 * the program could not be run.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tests/lockstep/verifier.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: lockstep [--max N] [--policy default|native] [--quiet] -- PROGRAM ARGS...\n"
		   "Runs PROGRAM on the emulator and on the CPU one instruction at a time and\n"
		   "stops at the first difference in registers or written memory.\n");
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void print_summary(struct lockstep_stats *st, const struct lockstep_options *opt,
			  double seconds, bool quiet)
{
	uint64_t total = st->emulated + st->native;
	if (!st->exited && !st->limit_reached)
		fprintf(stderr, "lockstep: stopped at the difference\n");
	else if (st->limit_reached)
		fprintf(stderr, "lockstep: stopped at the limit of %llu instructions\n",
			(unsigned long long)opt->max_insns);
	else if (st->killed_by)
		fprintf(stderr, "lockstep: the program was killed by %s\n", strsignal(st->killed_by));
	else
		fprintf(stderr, "lockstep: the program exited with status %d\n", st->exit_status);
	fprintf(stderr, "lockstep: %llu instructions: %llu emulated and verified, %llu stepped natively "
			"(%.1f%%), %llu signals, %.2f s (%.0f instructions/s), cpuid policy %s%s\n",
		(unsigned long long)total, (unsigned long long)st->emulated,
		(unsigned long long)st->native, total ? 100.0 * st->native / total : 0.0,
		(unsigned long long)st->signals, seconds, seconds > 0 ? total / seconds : 0.0,
		opt->policy->name, st->cpuid_faulting ? "" : " (no CPUID faulting)");
	if (quiet || !st->natives.n)
		return;
	fprintf(stderr, "lockstep: native steps by instruction:\n");
	fallback_counts_print(stderr, &st->natives);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "max", required_argument, NULL, 'm' },
		{ "policy", required_argument, NULL, 'p' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lockstep_options opt = { UINT64_MAX, &cpuid_policy_default };
	bool quiet = false;
	int c;
	while ((c = getopt_long(argc, argv, "+", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'm':
			errno = 0;
			opt.max_insns = strtoull(optarg, &end, 10);
			if (errno || *end || end == optarg || optarg[0] == '-') {
				fprintf(stderr, "lockstep: --max wants a number, not '%s'\n", optarg);
				return 2;
			}
			break;
		case 'p':
			opt.policy = cpuid_policy_by_name(optarg);
			if (!opt.policy) {
				fprintf(stderr, "lockstep: unknown policy '%s' (default or native)\n", optarg);
				return 2;
			}
			break;
		case 'q':
			quiet = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return 2;
	}
	struct lockstep_stats st;
	double t0 = now();
	enum lockstep_result r = lockstep_run(argv + optind, &opt, &st);
	if (r != LOCKSTEP_ERROR)
		print_summary(&st, &opt, now() - t0, quiet);
	fallback_counts_free(&st.natives);
	return r == LOCKSTEP_OK ? 0 : r == LOCKSTEP_DIVERGED ? 1 : 2;
}
