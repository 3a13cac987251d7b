/*
 * replay_bench.c — time travel costs on one trace: the first pass (open),
 * a backward step at the end of history, a jump to the middle, and replay
 * speed compared with the recording's own duration.
 *
 *   build/bench/replay_bench TRACE [RECORD_SECONDS]
 *
 * bench/replay_bench.sh records a CPU-bound program and runs this on it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "replayer/replay_session.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int timed_goto(struct replay_session *s, uint64_t t, const char *what)
{
	double t0 = now();
	if (replay_session_goto(s, t) != 0) {
		fprintf(stderr, "replay_bench: %s\n", s->error);
		return -1;
	}
	printf("%-34s %10.1f ms\n", what, (now() - t0) * 1e3);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: replay_bench TRACE [RECORD_SECONDS]\n");
		return 64;
	}
	struct replay_session s;
	double t0 = now();
	if (replay_session_open(&s, argv[1], NULL) != 0 || replay_session_finish_pass(&s) != 0) {
		fprintf(stderr, "replay_bench: %s\n", s.error);
		return 1;
	}
	double open_s = now() - t0;
	uint64_t n = s.summary.instructions;
	printf("%-34s %10llu\n", "instructions", (unsigned long long)n);
	printf("%-34s %10zu\n", "checkpoints", s.n_snapshots);
	printf("%-34s %10.2f s (%.1f M instructions/s)\n", "open (first pass)", open_s,
	       open_s > 0 ? n / open_s / 1e6 : 0.0);
	if (argc > 2) {
		double rec = atof(argv[2]);
		if (rec > 0)
			printf("%-34s %10.2f (replay time / record time)\n", "replay vs record", open_s / rec);
	}
	int rc = 0;
	if (timed_goto(&s, n, "goto end of history") != 0 ||
	    timed_goto(&s, n ? n - 1 : 0, "reverse-stepi at the end") != 0 ||
	    timed_goto(&s, n / 2, "goto middle") != 0 ||
	    timed_goto(&s, n / 2 ? n / 2 - 1 : 0, "reverse-stepi in the middle") != 0 ||
	    timed_goto(&s, n / 100, "goto 1% (near the start)") != 0)
		rc = 1;
	replay_session_close(&s);
	return rc;
}
