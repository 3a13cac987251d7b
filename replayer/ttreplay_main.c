/*
 * ttreplay_main.c — the `ttreplay` command: verify a trace, print what it
 * holds, or serve it to gdb (on standard input/output, or a TCP port).
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdbstub/gdbstub.h"
#include "replayer/gdb_target.h"
#include "replayer/replay_index.h"
#include "replayer/replay_session.h"
#include "replayer/gdb_commands.h"
#include "replayer/process_choice.h"
#include "trace-format/size_arg.h"
#include "trace-format/version.h"

enum { EXIT_USAGE = 64, EXIT_BAD_TRACE = 65, EXIT_INCONSISTENT = 1, EXIT_TRUNCATED = 2 };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ttreplay [options] [TRACE] [-- GDB-ARGS]   (default TRACE: latest.idna)\n"
		"  (no option)      on a terminal: start gdb on the recorded program, connected\n"
		"                   to this trace; otherwise serve the GDB remote protocol on\n"
		"                   stdin/stdout, as in gdb PROGRAM -ex 'target remote | ttreplay TRACE'\n"
		"  --port N         serve on 127.0.0.1:N instead (0: any free port)\n"
		"  --bind ADDR      with --port: listen on ADDR\n"
		"  --verify         replay to the end without gdb and check it against the trace\n"
		"  --info           print what the trace holds (key: value lines)\n"
		"  --json           with --info: one JSON object\n"
		"  --snapshot-memory SIZE  memory for the snapshots that make going back fast\n"
		"                   (K, M, G suffixes; default: 512M, less on machines\n"
		"                   with under 2G of RAM)\n"
		"  --snapshot-interval N  instructions between the first pass's snapshots\n"
		"                   (K, M, G suffixes; default 4M; from 64K to 1G)\n"
		"  -p, --process PID|COMMAND  the process PID of the recording (its own, or a\n"
		"                   child's trace written by ttrec --follow-fork), or the first\n"
		"                   process that ran a program named COMMAND, from its exec of\n"
		"                   it (ttrec ps lists processes and programs)\n"
		"  --exec N         the process's Nth program image (1: the one it started as;\n"
		"                   default: the last): a session debugs one program\n"
		"  -g, --goto TIME  start at TIME (an instruction count, as monitor when prints)\n"
		"  --gdb-commands   print ttreplay's gdb commands (when, goto, checkpoint, restart,\n"
		"                   last-write...) as a script for gdb's source command\n"
		"  --version        print the version\n"
		"  --no-jit         interpret every instruction (no block translation): the\n"
		"                   same replay, slower\n"
		"  --index          make the replay index (TRACE.idx) now and exit: later\n"
		"                   sessions on TRACE then skip the first pass\n"
		"  --no-index       neither use nor write the replay index\n"
		"  --index-snapshots N  at most about N snapshots in an index it writes\n"
		"                   (default 256; more: larger index, shorter replays back)\n"
		"  --jobs N         replay N ranges of the trace's history at once\n"
		"                   in the first pass (default: the online cores)\n"
		"  -h, --help       this text\n");
}

/* A time: a decimal instruction count. */
static bool parse_time(const char *text, uint64_t *out)
{
	char *end;
	if (!*text || *text == '-')
		return false;
	errno = 0;
	*out = strtoull(text, &end, 10);
	return !*end && errno == 0 && *out != UINT64_MAX;
}

/* More workers than this gain nothing on any machine we know. */
#define MAX_JOBS 1024

/* --jobs: a number of cores. */
static bool parse_jobs(const char *text, unsigned *out)
{
	char *end;
	errno = 0;
	long n = strtol(text, &end, 10);
	if (!*text || *end || errno || n < 1 || n > MAX_JOBS)
		return false;
	*out = (unsigned)n;
	return true;
}

/* The default for --jobs. */
static unsigned online_cores(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > MAX_JOBS ? MAX_JOBS : (unsigned)n;
}

/* The program's path: the last execve of the trace's global stream. */
static bool recorded_program(struct replay_session *s, char *out, size_t size)
{
	char err[256];
	struct idna_iter *it = idna_iter_open(s->reader, 0, NULL, err, sizeof(err));
	if (!it)
		return false;
	struct idna_record r;
	bool found = false;
	while (idna_iter_next(it, &r) == 1)
		if (r.type == IDNA_REC_EXECVE && r.u.execve.path && r.u.execve.path[0]) {
			snprintf(out, size, "%s", r.u.execve.path);
			found = true;
		}
	idna_iter_close(it);
	return found;
}

/* ttreplay's gdb commands as a file gdb can source: an in-memory file
 * that gdb inherits, named by its descriptor (nothing to clean up).
 * False, with a warning, when it cannot be made: gdb starts without them. */
static bool gdb_commands_file(char *path, size_t size)
{
	int fd = memfd_create("ttreplay-commands.gdb", 0);
	size_t len = strlen(gdb_commands_script);
	if (fd < 0 || write(fd, gdb_commands_script, len) != (ssize_t)len) {
		fprintf(stderr, "ttreplay: gdb starts without ttreplay's commands: %s\n",
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return false;
	}
	snprintf(path, size, "/proc/self/fd/%d", fd);
	return true;
}

/* On a terminal, as `rr replay` does: start gdb on the recorded program,
 * connected to a ttreplay of the same trace. Extra arguments go to gdb.
 * gdb is not given the program's path: it reads the program through the
 * stub (qXfer:exec-file, vFile), which serves the recorded file, the
 * packed copy when the program was rebuilt since. */
static int exec_gdb(struct replay_session *s, const char *trace, uint64_t start_time,
		    unsigned image, const struct replay_options *opt, char **gdb_args, int n_gdb_args)
{
	char program[4096], self[4096], target[8400];
	if (!recorded_program(s, program, sizeof(program))) {
		fprintf(stderr, "ttreplay: the trace does not name the recorded program\n");
		return EXIT_BAD_TRACE;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "ttreplay: cannot find my own executable\n");
		return 1;
	}
	self[n] = 0;
	char start[80] = "";
	if (start_time != UINT64_MAX)
		snprintf(start, sizeof(start), "-g %llu ", (unsigned long long)start_time);
	if (image)
		snprintf(start + strlen(start), sizeof(start) - strlen(start), "--exec %u ", image);
	snprintf(start + strlen(start), sizeof(start) - strlen(start), "--jobs %u ", opt->jobs);
	snprintf(target, sizeof(target), "target remote | '%s'%s%s %s'%s'", self,
		 opt->no_jit ? " --no-jit" : "", opt->use_index ? "" : " --no-index", start, trace);
	char commands[64];
	bool have_commands = gdb_commands_file(commands, sizeof(commands));
	char **argv = calloc((size_t)n_gdb_args + 8, sizeof(char *));
	if (!argv)
		return 1;
	int k = 0;
	argv[k++] = "gdb";
	argv[k++] = "-q";
	if (have_commands) {
		argv[k++] = "-x";
		argv[k++] = commands;
	}
	if (start_time != UINT64_MAX || image) { /* the first answer waits for the replay */
		argv[k++] = "-ex";
		argv[k++] = "set remotetimeout 600";
	}
	argv[k++] = "-ex";
	argv[k++] = target;
	for (int i = 0; i < n_gdb_args; i++)
		argv[k++] = gdb_args[i];
	argv[k] = NULL;
	replay_session_close(s);
	execvp("gdb", argv);
	fprintf(stderr, "ttreplay: cannot run gdb: %s\n", strerror(errno));
	free(argv);
	return 1;
}

static void describe_exit(const struct replay_summary *m, char *buf, size_t size)
{
	if (!m->have_exit)
		snprintf(buf, size, "unknown (the trace ends before the program did)");
	else if (WIFSIGNALED((int)m->exit_status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG((int)m->exit_status));
	else
		snprintf(buf, size, "%d", WEXITSTATUS((int)m->exit_status));
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* A thread's end: its recorded exit status, or what became of it. */
static void describe_thread_exit(const struct replay_thread_summary *t, char *buf, size_t size)
{
	if (t->exited)
		snprintf(buf, size, "%lld", (long long)t->exit_status);
	else
		snprintf(buf, size, "none recorded");
}

/* "thread-list": one entry per thread, in stream order. */
static void print_threads(const struct replay_summary *m, bool json)
{
	char exit_text[32];
	for (size_t i = 0; i < m->n_threads; i++) {
		const struct replay_thread_summary *t = &m->threads[i];
		describe_thread_exit(t, exit_text, sizeof(exit_text));
		if (json) {
			printf("%s{\"tid\": %lld, \"stream\": %u, \"instructions\": %" PRIu64
			       ", \"exit-status\": ",
			       i ? ", " : "", (long long)t->tid, t->stream, t->instructions);
			if (t->exited)
				printf("%lld}", (long long)t->exit_status);
			else
				printf("null}");
		} else {
			printf("thread: tid %lld, stream %u, %" PRIu64 " instructions, exit status %s\n",
			       (long long)t->tid, t->stream, t->instructions, exit_text);
		}
	}
}

static int print_info(struct replay_session *s, const char *path, bool json)
{
	const struct idna_header *h = idna_reader_header(s->reader);
	const struct replay_summary *m = &s->summary;
	/* The snapshots of the pass: counted by a pass that kept none. */
	size_t snapshots = m->snapshots ? m->snapshots : s->n_snapshots;
	struct stat st;
	uint64_t bytes = stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
	char exit_text[96];
	describe_exit(m, exit_text, sizeof(exit_text));
	double bits = m->instructions ? bytes * 8.0 / m->instructions : 0;
	const char *program = h->info.argc ? h->info.argv[0] : "";
	uint64_t intact;
	bool complete = idna_reader_complete(s->reader, &intact);
	if (json) {
		printf("{\"program\": ");
		json_string(stdout, program);
		printf(", \"arguments\": [");
		for (uint32_t i = 1; i < h->info.argc; i++) {
			printf(i > 1 ? ", " : "");
			json_string(stdout, h->info.argv[i]);
		}
		printf("], \"complete\": %s", complete ? "true" : "false");
		printf(", \"instructions\": %" PRIu64 ", \"threads\": %zu, \"processes\": 1,"
		       " \"syscalls\": %" PRIu64 ", \"signals\": %" PRIu64 ", \"checkpoints\": %zu,"
		       " \"trace-bytes\": %" PRIu64 ", \"bits-per-instruction\": %.4f,"
		       " \"exit-status\": ",
		       m->instructions, m->n_threads, m->syscalls, m->signals, snapshots, bytes,
		       bits);
		json_string(stdout, exit_text);
		printf(", \"native-fallbacks\": %" PRIu64 ", \"thread-list\": [", m->native_steps);
		print_threads(m, true);
		printf("]}\n");
		return 0;
	}
	printf("program: %s\narguments:", program);
	for (uint32_t i = 1; i < h->info.argc; i++)
		printf(" %s", h->info.argv[i]);
	printf("\ncomplete: %s", complete ? "yes" : "no");
	if (!complete)
		printf(" (truncated at byte %" PRIu64 ")", intact);
	printf("\ninstructions: %" PRIu64 "\nthreads: %zu\nprocesses: 1\nsyscalls: %" PRIu64
	       "\nsignals: %" PRIu64 "\ncheckpoints: %zu\ntrace-bytes: %" PRIu64
	       "\nbits-per-instruction: %.4f\nexit-status: %s\nnative-fallbacks: %" PRIu64 "\n",
	       m->instructions, m->n_threads, m->syscalls, m->signals, snapshots, bytes, bits,
	       exit_text, m->native_steps);
	print_threads(m, false);
	return 0;
}

/* A trace the recording did not close (recorder killed, disk full): the
 * intact prefix replayed, which is all that can be checked. */
static int report_truncated(struct replay_session *s, uint64_t intact)
{
	fprintf(stderr, "ttreplay: %s: truncated at byte %" PRIu64
		": replayed the intact prefix, %" PRIu64 " instructions\n",
		s->path, intact, s->summary.instructions);
	return EXIT_TRUNCATED;
}

static int verify(struct replay_session *s)
{
	const struct replay_summary *m = &s->summary;
	uint64_t intact;
	bool complete = idna_reader_complete(s->reader, &intact);
	char exit_text[96];
	describe_exit(m, exit_text, sizeof(exit_text));
	printf("ttreplay: %" PRIu64 " instructions replayed in %.2f s (%.1f M instructions/s), "
	       "%" PRIu64 " syscalls, %" PRIu64 " signals, exit status %s\n",
	       m->instructions, m->seconds,
	       m->seconds > 0 ? m->instructions / m->seconds / 1e6 : 0.0, m->syscalls, m->signals,
	       exit_text);
	if (s->index_state == REPLAY_INDEX_READ)
		printf("ttreplay: (the first pass that made %s; --no-index replays again)\n",
		       s->index_path);
	if (!complete)
		return report_truncated(s, intact);
	if (!m->have_exit) {
		printf("ttreplay: the trace ends before the program did; replayed up to its end\n");
		return 0;
	}
	if (!m->exit_consistent) {
		printf("ttreplay: INCONSISTENT: the replay does not end at the recorded exit\n");
		return EXIT_INCONSISTENT;
	}
	printf("ttreplay: consistent with the recording\n");
	return 0;
}

/* --verify, on standard error: how many cores the pass used, when more
 * than one, or why one. */
static void describe_cores(const struct replay_summary *m, unsigned jobs)
{
	if (m->ranges > 1)
		fprintf(stderr, "ttreplay: the first pass replayed %u ranges of the history at once "
			"(the longest took %.2f CPU s; %zu of their snapshots went to a spill file, "
			"%zu kept there as written)\n",
			m->ranges, m->longest_range_seconds, m->range_snapshots_spilled,
			m->range_snapshots_adopted);
	else if (jobs > 1 && m->serial_reason)
		fprintf(stderr, "ttreplay: the first pass ran on one core: %s\n", m->serial_reason);
}

/* --index: the first pass, unless a good index is there already (every
 * snapshot's frame read), and what became of the index. */
static int make_index(struct replay_session *s, const char *path, const struct replay_options *opt)
{
	int rc = replay_session_finish_pass(s);
	char why[200];
	if (rc == 0 && s->index_state == REPLAY_INDEX_READ &&
	    replay_session_check_index(s, why, sizeof(why)) != 0) {
		fprintf(stderr, "ttreplay: index %s is damaged (%s): rebuilding\n", s->index_path, why);
		replay_session_close(s);
		if (replay_session_open(s, path, opt) != 0) {
			fprintf(stderr, "ttreplay: %s\n", s->error);
			return EXIT_BAD_TRACE;
		}
		rc = replay_session_finish_pass(s);
	}
	if (s->index_state != REPLAY_INDEX_READ)
		describe_cores(&s->summary, s->jobs);
	if (rc != 0)
		fprintf(stderr, "ttreplay: %s\n", s->error);
	else if (s->index_state == REPLAY_INDEX_READ)
		printf("ttreplay: %s is up to date\n", s->index_path);
	else if (s->index_state == REPLAY_INDEX_WRITTEN) {
		printf("ttreplay: wrote %s (%" PRIu64 " instructions, %zu snapshots)\n",
		       s->index_path, s->summary.instructions,
		       s->index_snapshots_written);
		printf("ttreplay: the first pass took a snapshot every %" PRIu64 " instructions\n",
		       s->snapshot_interval);
	} else if (s->index_state == REPLAY_INDEX_UNWRITTEN)
		fprintf(stderr, "ttreplay: %s\n", s->index_error);
	else
		printf("ttreplay: %s: the history is short (%" PRIu64
		       " instructions): replayed at once, no index needed\n",
		       s->path, s->summary.instructions);
	int status = rc != 0 ? EXIT_BAD_TRACE : s->index_state == REPLAY_INDEX_UNWRITTEN ? 1 : 0;
	replay_session_close(s);
	return status;
}

int main(int argc, char **argv)
{
	enum { OPT_PORT = 256, OPT_BIND, OPT_VERIFY, OPT_INFO, OPT_JSON, OPT_SNAPSHOT_MEMORY, OPT_SNAPSHOT_INTERVAL,
	       OPT_GDB_COMMANDS, OPT_VERSION, OPT_NO_JIT, OPT_INDEX, OPT_NO_INDEX, OPT_EXEC,
	       OPT_JOBS, OPT_INDEX_SNAPSHOTS };
	/* -p and -g keep their short letters as rr's replay has them. */
	static const struct option longopts[] = {
		{ "port", required_argument, NULL, OPT_PORT },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "verify", no_argument, NULL, OPT_VERIFY },
		{ "info", no_argument, NULL, OPT_INFO },
		{ "json", no_argument, NULL, OPT_JSON },
		{ "snapshot-memory", required_argument, NULL, OPT_SNAPSHOT_MEMORY },
		{ "snapshot-interval", required_argument, NULL, OPT_SNAPSHOT_INTERVAL },
		{ "gdb-commands", no_argument, NULL, OPT_GDB_COMMANDS },
		{ "process", required_argument, NULL, 'p' },
		{ "goto", required_argument, NULL, 'g' },
		{ "exec", required_argument, NULL, OPT_EXEC },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "no-jit", no_argument, NULL, OPT_NO_JIT },
		{ "index", no_argument, NULL, OPT_INDEX },
		{ "no-index", no_argument, NULL, OPT_NO_INDEX },
		{ "jobs", required_argument, NULL, OPT_JOBS },
		{ "index-snapshots", required_argument, NULL, OPT_INDEX_SNAPSHOTS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool do_verify = false, do_info = false, json = false, do_index = false;
	long port = -1;
	const char *bind_addr = NULL;
	struct replay_options options = { .use_index = true };
	uint64_t start_time = UINT64_MAX; /* -g; none: the start of history */
	const char *process = NULL;       /* -p; NULL: the recording's own */
	unsigned exec_n = 0;              /* --exec; 0: the last image */
	int c;
	while ((c = getopt_long(argc, argv, "+hp:g:", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_PORT: {
			char *end;
			port = strtol(optarg, &end, 10);
			if (*end || port < 0 || port > 65535) {
				fprintf(stderr, "ttreplay: bad port '%s'\n", optarg);
				return EXIT_USAGE;
			}
			break;
		}
		case OPT_BIND: bind_addr = optarg; break;
		case 'p': {
			char *end;
			long pid = strtol(optarg, &end, 10);
			if (!*optarg || (!*end && pid <= 0) || strchr(optarg, '/')) {
				fprintf(stderr, "ttreplay: bad process '%s' (a pid, or a program's name)\n",
					optarg);
				return EXIT_USAGE;
			}
			process = optarg;
			break;
		}
		case OPT_EXEC: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || !*optarg || n <= 0 || n > 1000000) {
				fprintf(stderr, "ttreplay: bad --exec '%s' (an image number, from 1)\n",
					optarg);
				return EXIT_USAGE;
			}
			exec_n = (unsigned)n;
			break;
		}
		case 'g':
			if (!parse_time(optarg, &start_time)) {
				fprintf(stderr, "ttreplay: bad time '%s' (an instruction count)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_VERIFY: do_verify = true; break;
		case OPT_INFO: do_info = true; break;
		case OPT_JSON: json = true; break;
		case OPT_SNAPSHOT_MEMORY:
			if (size_arg_parse(optarg, &options.snapshot_memory) != 0 ||
			    !options.snapshot_memory) {
				fprintf(stderr, "ttreplay: bad --snapshot-memory '%s' (a size: 512M, 2G)\n",
					optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_SNAPSHOT_INTERVAL:
			if (size_arg_parse(optarg, &options.snapshot_interval) != 0 ||
			    options.snapshot_interval < (64u << 10) || options.snapshot_interval > (1u << 30)) {
				fprintf(stderr, "ttreplay: bad --snapshot-interval '%s' (instructions, "
					"64K to 1G)\n", optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_NO_JIT: options.no_jit = true; break;
		case OPT_INDEX: do_index = true; break;
		case OPT_NO_INDEX: options.use_index = false; break;
		case OPT_INDEX_SNAPSHOTS: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (*end || !*optarg || n < 1 || n > 1000000) {
				fprintf(stderr, "ttreplay: bad --index-snapshots '%s' (1 to 1000000)\n",
					optarg);
				return EXIT_USAGE;
			}
			options.index_snapshots = (size_t)n;
			break;
		}
		case OPT_JOBS:
			if (!parse_jobs(optarg, &options.jobs)) {
				fprintf(stderr, "ttreplay: bad --jobs '%s' (a number of cores, 1 to %d)\n",
					optarg, MAX_JOBS);
				return EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return 0;
		case OPT_GDB_COMMANDS: fputs(gdb_commands_script, stdout); return 0;
		case OPT_VERSION: print_version("ttreplay"); return 0;
		default: usage(stderr); return EXIT_USAGE;
		}
	}
	/* [TRACE] [-- GDB-ARGS...]; getopt stops at the first operand ("+"). */
	const char *path = "latest.idna";
	char **gdb_args = NULL;
	int n_gdb_args = 0;
	if (optind > 1 && strcmp(argv[optind - 1], "--") == 0) {
		gdb_args = argv + optind;
		n_gdb_args = argc - optind;
	} else if (optind < argc) {
		path = argv[optind++];
		if (optind < argc && strcmp(argv[optind], "--") == 0) {
			gdb_args = argv + optind + 1;
			n_gdb_args = argc - optind - 1;
		} else if (optind < argc) {
			usage(stderr);
			return EXIT_USAGE;
		}
	}

	char chosen[4096], err[8400];
	unsigned image = 0;
	if (process && exec_n && !isdigit((unsigned char)process[0])) {
		fprintf(stderr, "ttreplay: -p COMMAND chooses the image itself: --exec goes with -p PID\n");
		return EXIT_USAGE;
	}
	if (process || exec_n) {
		if (process_choice(path, process, exec_n, chosen, sizeof(chosen), &image, err,
				   sizeof(err)) != 0) {
			fprintf(stderr, "ttreplay: %s\n", err);
			return EXIT_BAD_TRACE;
		}
		path = chosen;
	}
	if (start_time != UINT64_MAX && (do_info || do_verify)) {
		fprintf(stderr, "ttreplay: -g is for a gdb session, not --info or --verify\n");
		return EXIT_USAGE;
	}
	if (do_index && (!options.use_index || do_info || do_verify || start_time != UINT64_MAX ||
			 port >= 0 || gdb_args)) {
		fprintf(stderr, "ttreplay: --index goes alone with a trace (and --no-jit, "
			"--snapshot-memory, --snapshot-interval, -p)\n");
		return EXIT_USAGE;
	}
	if (!options.jobs)
		options.jobs = online_cores();
	options.summary_only = do_info || do_verify;
	options.index_spacing = do_index;
	struct replay_session s;
	if (replay_session_open(&s, path, &options) != 0) {
		fprintf(stderr, "ttreplay: %s\n", s.error);
		return EXIT_BAD_TRACE;
	}
	int rc;
	if (do_index)
		return make_index(&s, path, &options);
	if (!do_info && !do_verify && port < 0 && isatty(STDIN_FILENO))
		return exec_gdb(&s, path, start_time, image, &options, gdb_args, n_gdb_args);
	int pass_rc = do_info || do_verify ? replay_session_finish_pass(&s) : 0;
	if (do_verify)
		describe_cores(&s.summary, options.jobs);
	if (pass_rc != 0) {
		fprintf(stderr, "ttreplay: %s\n", s.error);
		replay_session_close(&s);
		return EXIT_BAD_TRACE;
	}
	if (do_info)
		rc = print_info(&s, path, json);
	else if (do_verify)
		rc = verify(&s);
	else
		rc = gdb_target_serve(&s, port, bind_addr, start_time, image) == 0 ? 0 : 1;
	replay_session_close(&s);
	return rc;
}
