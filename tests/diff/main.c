/*
 * main.c — the differential test of the emulator against the CPU.
 *
 * For every mnemonic some emulator family binds (emu_for_each_mnemonic),
 * every encoding the emulator implements is run natively and emulated from
 * many input states, and the results are compared. Prints one line per
 * mnemonic, the first failures in full, and the summary line
 * "diff: N passed, M failed" (cases). Exits non-zero on a failure or on a
 * bound mnemonic without any case.
 *
 *   diff [--mnemonic NAME] [--seed N] [--cases N] [--verbose] [--self-test]
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>
#include <unistd.h>

#include "emulator/emu.h"
#include "diff.h"

#define DEFAULT_CASES 24
#define FAILURES_SHOWN_PER_MNEMONIC 3
#define FAILURES_SHOWN_IN_ALL 40
#define SECONDS_PER_MNEMONIC 60

int diff_self_test(struct diff_machine *m, uint64_t seed);

/*
 * Bound mnemonics that may legitimately produce no case. An entry belongs
 * here only when the instruction cannot run natively in this process at
 * all, or Zydis's encoder cannot produce it, with the reason beside it.
 */
static const unsigned no_coverage_allowed[] = {
	ZYDIS_MNEMONIC_INVALID,
	/* Zydis 4.0's encoder does not encode a register in an is4 byte
	 * (the fourth operand of the VEX blends by mask); these forms are
	 * covered by tests/unit/test_emu_sse_shuffle.c instead. */
	ZYDIS_MNEMONIC_VBLENDVPS, ZYDIS_MNEMONIC_VBLENDVPD, ZYDIS_MNEMONIC_VPBLENDVB,
	/* Privileged: #GP in user mode natively and in the emulator. */
	ZYDIS_MNEMONIC_XSAVES, ZYDIS_MNEMONIC_XRSTORS,
};

struct options {
	const char *mnemonic;
	uint64_t seed;
	unsigned cases;
	bool verbose, self_test;
};

struct bound {
	unsigned mnemonic;
	const char *family;
};

struct bound_list {
	struct bound items[ZYDIS_MNEMONIC_MAX_VALUE + 1];
	size_t count;
	bool seen[ZYDIS_MNEMONIC_MAX_VALUE + 1];
};

static void collect(void *ctx, const char *family, unsigned mnemonic)
{
	struct bound_list *l = ctx;
	if (mnemonic > ZYDIS_MNEMONIC_MAX_VALUE || l->seen[mnemonic])
		return;
	l->seen[mnemonic] = true;
	l->items[l->count++] = (struct bound){ mnemonic, family };
}

static bool coverage_allowed(unsigned mnemonic)
{
	for (size_t i = 0; i < sizeof(no_coverage_allowed) / sizeof(no_coverage_allowed[0]); i++)
		if (no_coverage_allowed[i] == mnemonic)
			return true;
	return false;
}

static uint64_t mnemonic_seed(uint64_t seed, unsigned mnemonic)
{
	/* Independent of which other mnemonics run: --mnemonic X replays
	 * exactly the cases the full run made for X. */
	return seed ^ ((uint64_t)mnemonic * 0xd1342543de82ef95ull);
}

struct totals {
	uint64_t passed, failed, shown;
	unsigned uncovered, crashed;
};

static void test_mnemonic(struct diff_machine *m, const struct bound *b,
			  const struct options *o, struct totals *t)
{
	static struct diff_form_list forms;
	static struct diff_case_run run;
	struct diff_mnemonic_stats s = { .mnemonic = b->mnemonic, .family = b->family };
	struct diff_rng rng;
	diff_rng_seed(&rng, mnemonic_seed(o->seed, b->mnemonic));
	diff_forms_for_mnemonic(b->mnemonic, m->has_avx, m, &forms);

	for (size_t fi = 0; fi < forms.count; fi++) {
		const struct diff_form *f = &forms.forms[fi];
		uint64_t form_passed = 0;
		s.forms++;
		for (unsigned ci = 0; ci < o->cases; ci++) {
			diff_run_case(m, f, &rng, ci, &run);
			/* An extension this CPU lacks: the form cannot be tested
			 * here (the emulator still implements it). */
			if (!f->base_isa && run.native.outcome == DIFF_FAULTED &&
			    run.native.vector == EMU_FAULT_UD && ci == 0 &&
			    run.emulated.outcome != DIFF_FAULTED) {
				s.forms--;
				s.dropped_forms++;
				break;
			}
			enum diff_verdict v = diff_compare(&run.c, m->has_avx, NULL);
			s.cases++;
			s.redraws += run.redraws;
			if (run.form.kind == DIFF_FORM_COMPARE && run.native.outcome == DIFF_FAULTED)
				s.faults++;
			if (v == DIFF_FAIL) {
				s.failures++;
				if (s.failures <= FAILURES_SHOWN_PER_MNEMONIC &&
				    (o->verbose || t->shown < FAILURES_SHOWN_IN_ALL)) {
					t->shown++;
					diff_report_failure(stdout, &run.c, m->has_avx);
				}
			} else {
				form_passed++;
				if (v == DIFF_UNDEFINED_ONLY)
					s.undefined_diffs++;
				else if (v == DIFF_SEGV_VECTOR_ONLY)
					s.segv_vector_diffs++;
				else if (v == DIFF_FALLBACK)
					s.fallbacks++;
				else if (v == DIFF_MODEL_SPECIFIC_ONLY)
					s.model_specific_diffs++;
			}
		}
		if (o->verbose) {
			char text[128];
			emu_disassemble(m->insn_addr, f->bytes, f->len, text, sizeof(text));
			printf("    form %-40s %llu/%u passed\n", text,
			       (unsigned long long)form_passed, o->cases);
		}
	}
	diff_report_mnemonic(stdout, &s);
	if (s.cases == 0 && !coverage_allowed(b->mnemonic)) {
		printf("no coverage: mnemonic %s\n",
		       ZydisMnemonicGetString((ZydisMnemonic)b->mnemonic));
		t->uncovered++;
	}
	t->failed += s.failures;
	t->passed += s.cases - s.failures;
	fflush(stdout);
}

/*
 * Each mnemonic runs in a child process: an emulator bug that corrupts
 * memory or loops forever then costs that mnemonic, not the whole run. The
 * child sends its totals back through a pipe.
 */
static void test_mnemonic_isolated(struct diff_machine *m, const struct bound *b,
				   const struct options *o, struct totals *t)
{
	int fds[2];
	fflush(stdout);
	if (pipe(fds) != 0) {
		perror("diff: pipe");
		exit(2);
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("diff: fork");
		exit(2);
	}
	if (pid == 0) {
		struct totals mine = { .shown = t->shown };
		close(fds[0]);
		alarm(SECONDS_PER_MNEMONIC);
		test_mnemonic(m, b, o, &mine);
		fflush(stdout);
		ssize_t n = write(fds[1], &mine, sizeof(mine));
		_exit(n == (ssize_t)sizeof(mine) ? 0 : 3);
	}
	close(fds[1]);
	struct totals theirs;
	ssize_t n = read(fds[0], &theirs, sizeof(theirs));
	close(fds[0]);
	int status = 0;
	waitpid(pid, &status, 0);
	const char *name = ZydisMnemonicGetString((ZydisMnemonic)b->mnemonic);
	if (n != (ssize_t)sizeof(theirs) || !WIFEXITED(status) || WEXITSTATUS(status)) {
		if (WIFSIGNALED(status))
			printf("crash: testing mnemonic %s killed the harness with signal %d (%s)%s\n",
			       name, WTERMSIG(status), strsignal(WTERMSIG(status)),
			       WTERMSIG(status) == SIGALRM ? ": it ran too long" : "");
		else
			printf("crash: testing mnemonic %s failed to report\n", name);
		t->crashed++;
		t->failed++;
		return;
	}
	t->passed += theirs.passed;
	t->failed += theirs.failed;
	t->shown = theirs.shown;
	t->uncovered += theirs.uncovered;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: diff [--mnemonic NAME] [--seed N] [--cases N] [--verbose] [--self-test]\n");
}

static bool parse_number(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !*s)
		return false;
	*out = strtoull(s, &end, 0);
	return *end == 0;
}

static bool parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "mnemonic", required_argument, NULL, 'm' },
		{ "seed", required_argument, NULL, 's' },
		{ "cases", required_argument, NULL, 'c' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "self-test", no_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t n;
	int c;
	*o = (struct options){ .seed = 1, .cases = DEFAULT_CASES };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'm': o->mnemonic = optarg; break;
		case 's':
			if (!parse_number(optarg, &o->seed)) {
				fprintf(stderr, "diff: bad seed '%s'\n", optarg);
				return false;
			}
			break;
		case 'c':
			if (!parse_number(optarg, &n) || n == 0 || n > 1000000) {
				fprintf(stderr, "diff: bad case count '%s'\n", optarg);
				return false;
			}
			o->cases = (unsigned)n;
			break;
		case 'v': o->verbose = true; break;
		case 't': o->self_test = true; break;
		case 'h': usage(stdout); exit(0);
		default: usage(stderr); return false;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "diff: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return false;
	}
	return true;
}

/* Every mnemonic the emulator binds (or the one asked for), isolated. */
static int run_mnemonics(struct diff_machine *m, const struct options *o)
{
	static struct bound_list bound;

	emu_for_each_mnemonic(collect, &bound);
	struct totals t = { 0 };
	size_t tested = 0;
	for (size_t i = 0; i < bound.count; i++) {
		const char *name = ZydisMnemonicGetString((ZydisMnemonic)bound.items[i].mnemonic);
		if (o->mnemonic && (!name || strcasecmp(name, o->mnemonic)))
			continue;
		tested++;
		test_mnemonic_isolated(m, &bound.items[i], o, &t);
	}
	if (o->mnemonic && tested == 0) {
		fprintf(stderr, "diff: the emulator binds no mnemonic '%s'\n", o->mnemonic);
		return 2;
	}
	printf("diff: %zu mnemonics tested, %u crashed, %u without coverage, ymm %s\n",
	       tested, t.crashed, t.uncovered,
	       m->has_avx ? "compared" : "not available (xmm only)");
	printf("diff: %llu passed, %llu failed\n", (unsigned long long)t.passed,
	       (unsigned long long)t.failed);
	return t.failed || t.uncovered || t.crashed ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct options o;
	static struct diff_machine m;

	if (!parse_options(argc, argv, &o))
		return 2;
	if (!diff_native_init(&m) || !diff_emulate_init(&m))
		return 2;
	int status = o.self_test ? diff_self_test(&m, o.seed) : run_mnemonics(&m, &o);
	diff_emulate_fini();
	return status;
}
