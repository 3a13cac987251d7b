/*
 * ttrec_main.c — the `ttrec` command: options, the trace file's name, the
 * summary, and the exit status (the program's own, or 128+N when it was
 * killed by signal N). `ttrec run --verify` runs the lockstep verifier
 * (lockstep.h) instead of recording. `ttrec attach PID` records a running
 * process (attach.c) until it exits or ttrec gets SIGINT/SIGTERM.
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

#include "recorder/attach.h"
#include "recorder/catalog.h"
#include "recorder/chaos.h"
#include "recorder/lockstep.h"
#include "recorder/pack.h"
#include "recorder/program_lookup.h"
#include "recorder/recording.h"
#include "recorder/syscall_answers.h"
#include "recorder/syscall_effects.h"
#include "recorder/trace_output.h"
#include "trace-format/file_format.h"
#include "recorder/tracee.h"
#include "trace-format/idna.h"
#include "trace-format/predict_cache.h"
#include "trace-format/size_arg.h"
#include "trace-format/version.h"

/* ttrec's own failures; the program's statuses pass through otherwise. */
enum {
	EXIT_USAGE = 64,        /* bad command line */
	EXIT_NOT_FOUND = 66,    /* the program does not exist */
	EXIT_SOFTWARE = 70,     /* unsupported program behaviour, internal error */
	EXIT_NO_MEMORY = 71,    /* ttrec ran out of memory */
	EXIT_TRACE_FILE = 73,   /* the trace cannot be created */
	EXIT_TRACE_WRITE = 74,  /* the trace could not be written to the end (disk full) */
	EXIT_NOT_PERMITTED = 77,/* not executable, or ptrace not permitted */
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ttrec run [options] [--] PROGRAM [ARGS...]\n"
		"       ttrec attach [options] PID\n"
		"       ttrec pack [-q] [TRACE]     keep the program and its libraries beside TRACE\n"
		"       ttrec ls [DIR]              the traces of DIR (default: .), newest first\n"
		"       ttrec ps [TRACE]            the processes and threads of a recording\n"
		"       ttrec --version\n"
		"options:\n"
		"  -o FILE                    trace file (default: PROGRAM-N.idna, and a latest.idna link)\n"
		"  --force                    with -o: replace FILE even if it is not a trace\n"
		"  -q                         no summary\n"
		"  --cpuid=default|native     CPUID the program sees (default: what the emulator implements)\n"
		"  --checkpoint-interval N    instructions between checkpoint frames\n"
		"  --ring SIZE                keep only the last SIZE bytes of trace (K, M, G suffixes)\n"
		"  --prediction-cache SIZE    bytes of prediction cache per thread, a power of two\n"
		"                             from 128 to 128M (default 1M; larger: smaller traces\n"
		"                             of programs that read much memory, more memory used)\n"
		"  --follow-fork              record child processes too, each into its own\n"
		"                             trace, <TRACE minus .idna>.PID.idna (ttrec ps)\n"
		"  --no-jit                   interpret every block (no translation to host code)\n"
		"  --trace-format 1.5|1.4     write an older trace format (for ttreplay before 1.6, 1.5)\n"
		"  --chaos[=SEED]             threads get random slices in random order (the seed is\n"
		"                             printed; the same seed makes the same choices)\n"
		"  --env NAME=VALUE           set a variable in the program's environment (run)\n"
		"  --verify                   (run) no trace: check the emulator against the CPU, one\n"
		"                             single-step per instruction, up to the first difference\n"
		"  --verify-max N             with --verify: verify N instructions, then let the\n"
		"                             program run on natively\n"
		"  -h, --help                 this text\n");
}

/* The cache holds 8-byte entries: SIZE bytes are 2^log2 entries. */
static int prediction_cache_parse(const char *text, unsigned *log2_entries)
{
	uint64_t bytes;
	if (size_arg_parse(text, &bytes) != 0 || !bytes || (bytes & (bytes - 1)))
		return -1;
	unsigned log2 = 0;
	while ((UINT64_C(8) << log2) < bytes)
		log2++;
	if ((UINT64_C(8) << log2) != bytes || log2 < PREDICT_CACHE_MIN_LOG2 || log2 > PREDICT_CACHE_MAX_LOG2)
		return -1;
	*log2_entries = log2;
	return 0;
}

static void print_summary(const char *trace, const struct record_result *r)
{
	double bits = r->instructions ? r->trace_bytes * 8.0 / r->instructions : 0;
	fprintf(stderr,
		"ttrec: trace %s: %" PRIu64 " instructions, %" PRIu64 " thread%s, %" PRIu64
		" syscalls, %" PRIu64 " signals, %" PRIu64 " bytes (%.3f bits/instruction), %.2f s",
		trace, r->instructions, r->threads, r->threads == 1 ? "" : "s", r->syscalls,
		r->signals, r->trace_bytes, bits, r->seconds);
	if (r->reads)
		fprintf(stderr, ", prediction hit rate %.2f%%",
			100.0 * (double)(r->reads - r->misses) / (double)r->reads);
	if (r->translations)
		fprintf(stderr, ", %" PRIu64 " blocks translated", r->translations);
	fprintf(stderr, "\n");
	if (r->n_children) {
		fprintf(stderr, "ttrec: %" PRIu64 " child process%s recorded, each into its own trace:",
			r->n_children, r->n_children == 1 ? "" : "es");
		size_t shown = r->n_children < 16 ? (size_t)r->n_children : 16;
		size_t stem = strlen(trace) - (strlen(trace) > 5 && !strcmp(trace + strlen(trace) - 5, ".idna") ? 5 : 0);
		for (size_t i = 0; i < shown; i++)
			fprintf(stderr, " %.*s.%d.idna", (int)stem, trace, (int)r->children[i]);
		fprintf(stderr, "%s\n", shown < r->n_children ? " ..." : "");
	}
	if (r->undescribed) {
		fprintf(stderr, "ttrec: %" PRIu64 " system call%s of unknown effect made ttrec forget "
			"all it cached (correct, but slower):", r->undescribed,
			r->undescribed == 1 ? "" : "s");
		for (size_t i = 0; i < r->n_undescribed_kinds; i++) {
			const char *name = syscall_name(r->undescribed_kinds[i].nr);
			if (name)
				fprintf(stderr, " %s", name);
			else
				fprintf(stderr, " syscall %ld", r->undescribed_kinds[i].nr);
			if (r->undescribed_kinds[i].request)
				fprintf(stderr, " %#llx", (unsigned long long)r->undescribed_kinds[i].request);
			fprintf(stderr, "=%" PRIu64, r->undescribed_kinds[i].count);
		}
		fprintf(stderr, "\n");
		fprintf(stderr, "ttrec: they may have written %" PRIu64 " bytes, logged as read back "
			"after each call (%" PRIu64 " unreadable, unknown to replay)\n",
			r->undescribed_bytes_logged, r->undescribed_bytes_unknown);
	}
	for (int i = 0; i < ANSWER_REPORTED; i++)
		if (r->ptrace_answered[i])
			fprintf(stderr, "ttrec: %s: %s (%" PRIu64 " time%s)\n",
				i + ANSWER_TRACEME == ANSWER_STOP_TTREC ? "the program's signal could not be delivered"
				: "the program's ptrace could not be recorded",
				syscall_answer_name(i + ANSWER_TRACEME),
				r->ptrace_answered[i], r->ptrace_answered[i] == 1 ? "" : "s");
	if (r->setid_dropped[0])
		fprintf(stderr, "ttrec: warning: %s is set-user-ID or set-group-ID, but ran with "
			"your ids: the kernel grants no privileges to a traced program (record "
			"as root, or as its owner)\n", r->setid_dropped);
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
	case RECORD_ERR_TRACE_WRITE: return EXIT_TRACE_WRITE;
	case RECORD_ERR_PTRACE: return EXIT_NOT_PERMITTED;
	case RECORD_ERR_NO_MEMORY: return EXIT_NO_MEMORY;
	default: return EXIT_SOFTWARE;
	}
}

/* The program's end as ttrec's exit status. */
static int program_status(bool exited, int exit_status, int term_signal)
{
	if (exited)
		return exit_status;
	fprintf(stderr, "ttrec: the program was killed by signal %d (%s)\n", term_signal,
		strsignal(term_signal));
	return 128 + term_signal;
}

/* Statuses: the program's own; 1 at a difference; 66, 70, 77 as for a
 * recording. */
static int verify_program(char *const argv[], const char *cpuid, uint64_t max_insns, bool quiet)
{
	struct lockstep_options opt = { max_insns, cpuid_policy_by_name(cpuid ? cpuid : "default") };
	if (!opt.policy) {
		fprintf(stderr, "ttrec: unknown CPUID policy '%s' (default or native)\n", cpuid);
		return EXIT_USAGE;
	}
	struct lockstep_stats st;
	enum lockstep_result r = lockstep_run(argv, &opt, &st);
	if (r == LOCKSTEP_DIVERGED) {
		lockstep_print_summary(stderr, &st, &opt, quiet);
		fprintf(stderr, "ttrec: verify: FAILED: the emulator differs from the CPU at instruction %llu\n",
			(unsigned long long)(st.emulated + st.native + 1));
	} else if (r == LOCKSTEP_OK && !quiet) {
		lockstep_print_summary(stderr, &st, &opt, false);
	}
	fallback_counts_free(&st.natives);
	switch (r) {
	case LOCKSTEP_OK:
		return program_status(!st.killed_by, st.exit_status, st.killed_by);
	case LOCKSTEP_DIVERGED:
		return 1;
	default:
		return st.start_error == TRACEE_START_NOT_FOUND ? EXIT_NOT_FOUND
		       : st.start_error == TRACEE_START_OK  ? EXIT_SOFTWARE
							   : EXIT_NOT_PERMITTED;
	}
}

/* The one line for a trace that could not be written to the end. */
static void report_trace_write_error(const char *trace, const char *err,
				     const struct record_result *r)
{
	fprintf(stderr, "ttrec: %s; %s is readable up to its last complete chunk; ", err, trace);
	if (r->ran_untraced)
		fprintf(stderr, "recording stopped after %" PRIu64
				" instructions and the program ran on untraced: it ", r->instructions);
	else
		fprintf(stderr, "the program ");
	if (r->exited)
		fprintf(stderr, "exited with status %d\n", r->exit_status);
	else
		fprintf(stderr, "was killed by signal %d (%s)\n", r->term_signal,
			strsignal(r->term_signal));
}

/* After the recording: the trace into place, or removed when it holds
 * nothing (and only when this recording created it). */
static void settle_trace(const struct trace_output *out, enum record_error e,
			 const struct record_result *res)
{
	if (!res->trace_created)
		return;
	if (e != RECORD_OK && e != RECORD_ERR_TRACE_WRITE && !res->instructions) {
		trace_output_discard(out);
		return;
	}
	char err[PATH_MAX * 2 + 128];
	if (trace_output_keep(out, err, sizeof(err)) != 0)
		fprintf(stderr, "ttrec: %s\n", err);
}

static int record(struct record_options *opt, const char *path, bool force, bool quiet)
{
	char name[PATH_MAX];
	if (!path) {
		trace_output_default_name(opt->argv[0], name, sizeof(name));
		path = name;
	}
	if (!opt->attach_pid) {
		/* Before the trace's name is even chosen: a program that cannot
		 * run leaves every file as it was. */
		int e = program_lookup(opt->argv[0]);
		if (e) {
			fprintf(stderr, "ttrec: %s: %s (%s)\n", opt->argv[0],
				e == ENOENT ? "program not found" : "program is not executable",
				strerror(e));
			return e == ENOENT ? EXIT_NOT_FOUND : EXIT_NOT_PERMITTED;
		}
	}
	static struct trace_output out;
	char err[PATH_MAX * 2 + 128] = "";
	if (trace_output_prepare(&out, path, force, err, sizeof(err)) != 0) {
		fprintf(stderr, "ttrec: %s\n", err);
		return EXIT_TRACE_FILE;
	}
	const char *output = out.final_path;
	opt->trace_path = out.write_path;
	opt->trace_name = out.final_path;
	if (out.replacing && !quiet)
		fprintf(stderr, "ttrec: recording into %s, renamed to %s at the end\n",
			out.write_path, out.final_path);

	struct record_result res;
	/* Printed first: a run that hangs or crashes can be made again. */
	if (opt->chaos && !quiet)
		fprintf(stderr, "ttrec: chaos mode, seed %" PRIu64 "\n", opt->chaos_seed);
	enum record_error e = record_program(opt, &res, err, sizeof(err));
	settle_trace(&out, e, &res);
	if (e == RECORD_ERR_TRACE_WRITE) {
		report_trace_write_error(output, err, &res);
		return EXIT_TRACE_WRITE;
	}
	if (e != RECORD_OK) {
		fprintf(stderr, "ttrec: %s\n", err);
		if (res.trace_created && res.instructions)
			fprintf(stderr, "ttrec: the trace %s is readable up to where recording stopped\n",
				output);
		return exit_code_for(e);
	}
	if (!strchr(output, '/') && !trace_output_update_latest(output) && !quiet)
		fprintf(stderr, "ttrec: latest.idna is not a link: left as it is\n");
	if (!quiet)
		print_summary(output, &res);
	if (opt->attach_pid) {
		/* The process is not ours: its end is reported, not passed on. */
		if (!quiet && res.detached)
			fprintf(stderr, "ttrec: detached from process %d, which runs on\n",
				(int)opt->attach_pid);
		else if (!quiet && res.exited)
			fprintf(stderr, "ttrec: process %d exited with status %d\n",
				(int)opt->attach_pid, res.exit_status);
		else if (!quiet && !res.detached)
			fprintf(stderr, "ttrec: process %d was killed by signal %d (%s)\n",
				(int)opt->attach_pid, res.term_signal, strsignal(res.term_signal));
		return 0;
	}
	/* A user's signal to ttrec went to the program, or ended the
	 * recording: ttrec ends as that signal asked (supervisor_signals.h). */
	if (res.passed_signal && !quiet)
		fprintf(stderr, "ttrec: signal %d (%s) from process %d was passed to the program\n",
			res.passed_signal, strsignal(res.passed_signal), (int)res.passed_sender);
	if (res.stop_signal) {
		fprintf(stderr, "ttrec: recording ended by signal %d (%s) from process %d: "
				"the program was killed; the trace is complete\n",
			res.stop_signal, strsignal(res.stop_signal), (int)res.stop_sender);
		return 128 + res.stop_signal;
	}
	return program_status(res.exited, res.exit_status, res.term_signal);
}

/* The PID argument of ttrec attach, and the process's command line. */
static int parse_attach_target(const char *arg, struct record_options *opt)
{
	char *end;
	errno = 0;
	long pid = strtol(arg, &end, 10);
	if (errno || end == arg || *end || pid <= 0 || pid > INT_MAX) {
		fprintf(stderr, "ttrec: attach wants a process id, not '%s'\n", arg);
		return EXIT_USAGE;
	}
	char **argv;
	if (attach_read_cmdline((pid_t)pid, &argv) != 0) {
		if (errno == ESRCH) {
			fprintf(stderr, "ttrec: no process %ld\n", pid);
			return EXIT_NOT_FOUND;
		}
		fprintf(stderr, "ttrec: cannot read the command line of process %ld: %s\n", pid,
			strerror(errno));
		return errno == EACCES || errno == EPERM ? EXIT_NOT_PERMITTED : EXIT_SOFTWARE;
	}
	opt->attach_pid = (pid_t)pid;
	opt->argv = argv; /* one block: the caller frees it */
	return 0;
}

/* ttrec run (attach false) and ttrec attach. */
static int record_command(int argc, char **argv, bool attach)
{
	enum { OPT_CPUID = 256, OPT_CHECKPOINT, OPT_RING, OPT_ENV, OPT_VERIFY, OPT_VERIFY_MAX,
	       OPT_FOLLOW_FORK, OPT_NO_JIT, OPT_RESUME_STOPPED, OPT_RESUME_PARKED, OPT_FORCE,
	       OPT_CHAOS, OPT_TRACE_FORMAT, OPT_PREDICTION_CACHE };
	static const struct option longopts[] = {
		{ "cpuid", required_argument, NULL, OPT_CPUID },
		{ "checkpoint-interval", required_argument, NULL, OPT_CHECKPOINT },
		{ "ring", required_argument, NULL, OPT_RING },
		{ "env", required_argument, NULL, OPT_ENV },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "verify-max", required_argument, NULL, OPT_VERIFY_MAX },
		{ "follow-fork", no_argument, NULL, OPT_FOLLOW_FORK },
		{ "no-jit", no_argument, NULL, OPT_NO_JIT },
		{ "force", no_argument, NULL, OPT_FORCE },
		{ "chaos", optional_argument, NULL, OPT_CHAOS },
		{ "trace-format", required_argument, NULL, OPT_TRACE_FORMAT },
		{ "prediction-cache", required_argument, NULL, OPT_PREDICTION_CACHE },
		/* Internal: the recorder of a --follow-fork child (follow_fork.c). */
		{ "resume-stopped", no_argument, NULL, OPT_RESUME_STOPPED },
		{ "resume-parked", required_argument, NULL, OPT_RESUME_PARKED },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_options opt = { 0 };
	const char *output = NULL;
	bool quiet = false, verify = false, force = false;
	uint64_t verify_max = 0;
	/* Options about the trace, refused with --verify (which writes none). */
	const char *trace_option = NULL;
	const char *run_option = NULL; /* refused by attach */
	int c;
	/* '+': options end at the program's name. */
	while ((c = getopt_long(argc, argv, "+o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': output = optarg; trace_option = "-o"; break;
		case 'q': quiet = true; break;
		case OPT_CPUID: opt.cpuid_policy = optarg; break;
		case OPT_CHECKPOINT:
			if (size_arg_parse(optarg, &opt.checkpoint_interval) != 0 || !opt.checkpoint_interval) {
				fprintf(stderr, "ttrec: bad --checkpoint-interval '%s'\n", optarg);
				return EXIT_USAGE;
			}
			trace_option = "--checkpoint-interval";
			break;
		case OPT_RING:
			if (size_arg_parse(optarg, &opt.ring_bytes) != 0 || !opt.ring_bytes) {
				fprintf(stderr, "ttrec: bad --ring size '%s'\n", optarg);
				return EXIT_USAGE;
			}
			if (opt.ring_bytes < idna_ring_min_bytes(0)) {
				fprintf(stderr, "ttrec: --ring %s is too small: a ring holds at least "
					"four chunks (%llu bytes)\n", optarg,
					(unsigned long long)idna_ring_min_bytes(0));
				return EXIT_USAGE;
			}
			trace_option = "--ring";
			break;
		case OPT_ENV:
			if (!strchr(optarg, '=') || optarg[0] == '=') {
				fprintf(stderr, "ttrec: --env wants NAME=VALUE, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			putenv(optarg);
			run_option = "--env";
			break;
		case OPT_VERIFY: verify = true; run_option = "--verify"; break;
		case OPT_FOLLOW_FORK: opt.follow_forks = true; trace_option = "--follow-fork"; break;
		case OPT_NO_JIT: opt.no_jit = true; break;
		case OPT_TRACE_FORMAT: {
			/* 1.4 and 1.5 differ from the current format
			 * only in the prediction cache's hash
			 * (man/idna.5). */
			char current[16];
			snprintf(current, sizeof(current), "%d.%d", IDNA_VERSION_MAJOR, IDNA_VERSION_MINOR);
			if (strcmp(optarg, "1.4") == 0) {
				opt.cache_log2_line = 3;
			} else if (strcmp(optarg, "1.5") == 0) {
				opt.cache_log2_line = 3 + PREDICT_CACHE_GROUP_LOG2;
			} else if (strcmp(optarg, current) != 0) {
				fprintf(stderr, "ttrec: --trace-format %s: it writes %s, 1.5 or 1.4\n",
					optarg, current);
				return EXIT_USAGE;
			}
			trace_option = "--trace-format";
			break;
		}
		case OPT_FORCE: force = true; trace_option = "--force"; break;
		case OPT_PREDICTION_CACHE:
			if (prediction_cache_parse(optarg, &opt.cache_log2_entries) != 0) {
				fprintf(stderr,
					"ttrec: bad --prediction-cache '%s': a power of two from 128 to 128M\n",
					optarg);
				return EXIT_USAGE;
			}
			trace_option = "--prediction-cache";
			break;
		case OPT_CHAOS:
			opt.chaos = true;
			opt.chaos_seed = chaos_fresh_seed();
			if (optarg) {
				char *end;
				errno = 0;
				opt.chaos_seed = strtoull(optarg, &end, 10);
				if (errno || end == optarg || *end || optarg[0] == '-') {
					fprintf(stderr, "ttrec: bad --chaos seed '%s' (a number)\n", optarg);
					return EXIT_USAGE;
				}
			}
			trace_option = "--chaos";
			break;
		case OPT_RESUME_STOPPED: opt.resume_stopped = true; break;
		case OPT_RESUME_PARKED:
			if (!child_parking_parse(optarg, &opt.parking)) {
				fprintf(stderr, "ttrec: bad --resume-parked '%s'\n", optarg);
				return EXIT_USAGE;
			}
			opt.resume_parked = true;
			break;
		case OPT_VERIFY_MAX:
			if (size_arg_parse(optarg, &verify_max) != 0 || !verify_max) {
				fprintf(stderr, "ttrec: bad --verify-max '%s' (a positive count)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind >= argc || (attach && optind + 1 != argc)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (attach && run_option) {
		fprintf(stderr, "ttrec: %s is for ttrec run, not attach\n", run_option);
		return EXIT_USAGE;
	}
	if ((opt.resume_stopped || opt.resume_parked) && !attach) {
		fprintf(stderr, "ttrec: --resume-stopped and --resume-parked are for ttrec attach\n");
		return EXIT_USAGE;
	}
	if (verify && trace_option) {
		fprintf(stderr, "ttrec: %s makes no sense with --verify, which writes no trace\n",
			trace_option);
		return EXIT_USAGE;
	}
	if (verify_max && !verify) {
		fprintf(stderr, "ttrec: --verify-max needs --verify\n");
		return EXIT_USAGE;
	}
	/* A trace that outgrows RLIMIT_FSIZE must fail its write (EFBIG), not
	 * kill ttrec; the program keeps its own disposition. */
	if (tracee_ignore_in_supervisor(SIGXFSZ) != 0) {
		fprintf(stderr, "ttrec: cannot ignore SIGXFSZ: %s\n", strerror(errno));
		return EXIT_SOFTWARE;
	}
	opt.quiet = quiet;
	/* A child's recorder keeps the terminal to its parent's line. */
	opt.show_progress = !quiet && !opt.resume_stopped && !opt.resume_parked;
	if (attach) {
		/* The process has seen the real CPU's CPUID already: hiding
		 * features now would contradict what its libraries chose. */
		if (!opt.cpuid_policy)
			opt.cpuid_policy = "native";
		int rc = parse_attach_target(argv[optind], &opt);
		if (rc != 0)
			return rc;
		rc = record(&opt, output, force, quiet);
		free((void *)opt.argv);
		return rc;
	}
	opt.argv = argv + optind;
	if (verify)
		return verify_program(opt.argv, opt.cpuid_policy, verify_max ? verify_max : UINT64_MAX,
				      quiet);
	return record(&opt, output, force, quiet);
}

/* ttrec pack [-q] [TRACE] */
static int pack_command(int argc, char **argv)
{
	bool quiet = false;
	int c;
	optind = 1;
	while ((c = getopt(argc, argv, "+qh")) != -1) {
		switch (c) {
		case 'q': quiet = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	if (argc - optind > 1) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return pack_trace(optind < argc ? argv[optind] : "latest.idna", quiet);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
		print_version("ttrec");
		return 0;
	}
	if (argc >= 2 && strcmp(argv[1], "pack") == 0)
		return pack_command(argc - 1, argv + 1);
	if (argc >= 2 && (strcmp(argv[1], "ls") == 0 || strcmp(argv[1], "ps") == 0)) {
		bool ls = strcmp(argv[1], "ls") == 0;
		if (argc > 3 || (argc == 3 && argv[2][0] == '-')) {
			usage(stderr);
			return EXIT_USAGE;
		}
		const char *arg = argc == 3 ? argv[2] : ls ? "." : "latest.idna";
		return ls ? catalog_list(arg) : catalog_processes(arg);
	}
	if (argc < 2 || (strcmp(argv[1], "run") != 0 && strcmp(argv[1], "attach") != 0)) {
		usage(stderr);
		return EXIT_USAGE;
	}
	return record_command(argc - 1, argv + 1, strcmp(argv[1], "attach") == 0);
}
