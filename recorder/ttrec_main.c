/*
 * ttrec_main.c — the `ttrec` command: options, the trace file's name, the
 * summary, and the exit status (the program's own, or 128+N when it was
 * killed by signal N).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/recording.h"

/* ttrec's own failures; the program's statuses pass through otherwise. */
enum {
	EXIT_USAGE = 64,        /* bad command line */
	EXIT_NOT_FOUND = 66,    /* the program does not exist */
	EXIT_SOFTWARE = 70,     /* unsupported program behaviour, internal error */
	EXIT_TRACE_FILE = 73,   /* the trace cannot be created or written */
	EXIT_NOT_PERMITTED = 77,/* not executable, or ptrace not permitted */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ttrec run [options] [--] PROGRAM [ARGS...]\n"
		"options:\n"
		"  -o FILE                    trace file (default: PROGRAM-N.idna, and a latest.idna link)\n"
		"  -q                         no summary\n"
		"  --cpuid=default|native     CPUID the program sees (default: what the emulator implements)\n"
		"  --checkpoint-interval N    instructions between checkpoint frames\n"
		"  --ring SIZE                keep only the last SIZE bytes of trace (K, M, G suffixes)\n"
		"  --env NAME=VALUE           set a variable in the program's environment\n");
}

static int parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s)
		return -1;
	uint64_t mul = 1;
	switch (*end) {
	case 'k': case 'K': mul = 1ull << 10; end++; break;
	case 'm': case 'M': mul = 1ull << 20; end++; break;
	case 'g': case 'G': mul = 1ull << 30; end++; break;
	default: break;
	}
	if (*end || v > UINT64_MAX / mul)
		return -1;
	*out = v * mul;
	return 0;
}

/* PROGRAM-N.idna with the first free N, in the current directory. */
static void default_trace_name(const char *program, char *out, size_t size)
{
	char copy[PATH_MAX];
	snprintf(copy, sizeof(copy), "%s", program);
	const char *base = basename(copy);
	for (unsigned n = 0;; n++) {
		snprintf(out, size, "%s-%u.idna", base, n);
		if (access(out, F_OK) != 0)
			return;
	}
}

static void update_latest_link(const char *trace)
{
	if (strchr(trace, '/'))
		return; /* only for traces named in the current directory */
	unlink("latest.idna.tmp");
	if (symlink(trace, "latest.idna.tmp") == 0 && rename("latest.idna.tmp", "latest.idna") != 0)
		unlink("latest.idna.tmp");
}

static void print_summary(const char *trace, const struct record_result *r)
{
	double bits = r->instructions ? r->trace_bytes * 8.0 / r->instructions : 0;
	fprintf(stderr,
		"ttrec: trace %s: %" PRIu64 " instructions, %" PRIu64 " syscalls, %" PRIu64
		" signals, %" PRIu64 " bytes (%.3f bits/instruction), %.2f s",
		trace, r->instructions, r->syscalls, r->signals, r->trace_bytes, bits, r->seconds);
	if (r->reads)
		fprintf(stderr, ", prediction hit rate %.2f%%",
			100.0 * (double)(r->reads - r->misses) / (double)r->reads);
	fprintf(stderr, "\n");
	if (r->n_fallbacks) {
		fprintf(stderr, "ttrec: native fallbacks:");
		for (size_t i = 0; i < r->n_fallbacks; i++)
			fprintf(stderr, " %s=%" PRIu64, r->fallbacks[i].mnemonic, r->fallbacks[i].count);
		fprintf(stderr, "\n");
	}
}

static int exit_code_for(enum record_error e)
{
	switch (e) {
	case RECORD_ERR_PROGRAM_NOT_FOUND: return EXIT_NOT_FOUND;
	case RECORD_ERR_NOT_EXECUTABLE: return EXIT_NOT_PERMITTED;
	case RECORD_ERR_TRACE_FILE: return EXIT_TRACE_FILE;
	case RECORD_ERR_PTRACE: return EXIT_NOT_PERMITTED;
	default: return EXIT_SOFTWARE;
	}
}

static int run_command(int argc, char **argv)
{
	enum { OPT_CPUID = 256, OPT_CHECKPOINT, OPT_RING, OPT_ENV };
	static const struct option longopts[] = {
		{ "cpuid", required_argument, NULL, OPT_CPUID },
		{ "checkpoint-interval", required_argument, NULL, OPT_CHECKPOINT },
		{ "ring", required_argument, NULL, OPT_RING },
		{ "env", required_argument, NULL, OPT_ENV },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_options opt = { 0 };
	const char *output = NULL;
	bool quiet = false;
	int c;
	/* '+': options end at the program's name. */
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; break;
		case 'q': quiet = true; break;
		case OPT_CPUID: opt.cpuid_policy = optarg; break;
		case OPT_CHECKPOINT:
			if (parse_size(optarg, &opt.checkpoint_interval) != 0 || !opt.checkpoint_interval) {
				fprintf(stderr, "ttrec: bad --checkpoint-interval '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_RING:
			if (parse_size(optarg, &opt.ring_bytes) != 0 || !opt.ring_bytes) {
				fprintf(stderr, "ttrec: bad --ring size '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_ENV:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				fprintf(stderr, "ttrec: --env wants NAME=VALUE, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			putenv(optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	opt.argv = argv + optind;
	char name[PATH_MAX];
	if (!output) {
		default_trace_name(opt.argv[0], name, sizeof(name));
		output = name;
	}
	opt.trace_path = output;

	struct record_result res;
	char err[512] = "";
	enum record_error e = record_program(&opt, &res, err, sizeof(err));
	if (e != RECORD_OK) {
		fprintf(stderr, "ttrec: %s\n", err);
		if (e != RECORD_ERR_PROGRAM_NOT_FOUND && e != RECORD_ERR_NOT_EXECUTABLE &&
		    res.instructions)
			fprintf(stderr, "ttrec: the trace %s is readable up to where recording stopped\n",
				output);
		else
			unlink(output);
		return exit_code_for(e);
	}
	if (!strchr(output, '/'))
		update_latest_link(output);
	if (!quiet)
		print_summary(output, &res);
	if (res.exited)
		return res.exit_status;
	fprintf(stderr, "ttrec: the program was killed by signal %d (%s)\n", res.term_signal,
		strsignal(res.term_signal));
	return 128 + res.term_signal;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc < 2 || strcmp(argv[1], "run") != 0) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return run_command(argc - 1, argv + 1);
}
