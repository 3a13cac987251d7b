/*
 * pass_worker.h — one range of the first pass replayed on a core of its
 * own (pass_parallel.c makes and runs them; pass_join.c joins a session's).
 * Internal to those two files.
 */
#ifndef TTREC_PASS_WORKER_H
#define TTREC_PASS_WORKER_H

#include <pthread.h>
#include <stdatomic.h>

#include "replayer/pass_log.h"
#include "replayer/replay_session.h"

/* No checkpoint: the range starts where history does. */
#define PASS_FROM_START SIZE_MAX

struct pass_worker {
	/* What it replays. */
	const char *path;
	unsigned cache_log2;
	bool jit;
	size_t checkpoint;        /* its reader's checkpoint index, or PASS_FROM_START */
	uint64_t end;             /* the next range's start; UINT64_MAX: history's end */
	uint64_t snapshot_origin, snapshot_interval; /* the serial pass's snapshot times */
	/* A session's pass (pass_join.c): it keeps its snapshots, their
	 * segment summaries and a log (pass_log.h); the snapshots' images
	 * know only what the range learned. */
	bool keep;
	uint64_t budget;          /* the heap the snapshots may take (keep) */
	atomic_bool *stop;        /* set: every range stops (keep) */
	/* Several threads (resim_cut.c): it saves its start and end states
	 * (keep or not), so that the join checks that it started as the
	 * range before ended (pass_cut_mismatch). */
	bool check_cut;
	/* What it found. */
	struct idna_reader *reader;
	struct resim sim;
	bool sim_open;
	struct resim_counts base; /* counted at its start, by the range before */
	enum resim_status status; /* RESIM_AT_TARGET: it reached `end` */
	size_t snapshots;         /* snapshot times it passed */
	double cpu_seconds;       /* the CPU time its thread took */
	char error[320];          /* why it could not start */
	/* It could not start (out of memory, the trace unreadable), or its
	 * checkpoint did not start it as the table said (a damaged or
	 * hostile trace): the serial pass decides then. */
	bool bad_start;
	/* keep: the state at its start and at its end (status
	 * RESIM_AT_TARGET), its snapshots (log_marks[i]: the log's length
	 * when snapshot i was taken), and the summaries of the part before
	 * its first snapshot (`lead`, sets only), which join the segment the
	 * range before ends in. */
	struct resim_state start_state, end_state;
	struct pass_log log;
	struct replay_snapshot lead;
	struct replay_snapshot *kept;
	size_t *log_marks;
	size_t n_kept, cap_kept;
	struct replay_snapshot *noting; /* the segment whose pages are noted now */
	/* keep: past the budget, every other snapshot in memory goes to a
	 * spill file of the range's own (replay_snapshots_spill_half): its
	 * image is the range's, read back by the join on the range's image
	 * of its base. */
	struct snapshot_spill *spill;
	bool summary_incomplete;  /* a page could not be noted */
	bool out_of_budget;       /* it stopped: past the budget, no spill file */
	bool stopped;             /* it stopped early (*stop, budget, memory) */
};

/* Why a trace of several threads has no range to cut. */
#define PASS_NO_THREAD_CUT                                                                   \
	"a trace of several threads with no checkpoint where every thread has one "          \
	"(ttrec logs them at each checkpoint interval of a running thread)"

/* Replays w's range (a thread's body): void * for pthread_create. */
void *pass_worker_run(void *w);
/* Frees what w holds. */
void pass_worker_free(struct pass_worker *w);

/* The checkpoints that can start a range of the history (with several
 * threads: pass_cuts_find), at a time after `after`, in increasing time;
 * their reader indexes go to `out` (room for every checkpoint). Returns
 * how many. */
size_t pass_range_starts(struct replay_session *s, uint64_t after, size_t *out);
/* Cuts the history from time `from` into n ranges starting at some of
 * those checkpoints; w[0] starts at `from` (PASS_FROM_START). The serial
 * pass takes its snapshots at snapshot_origin + i * snapshot_interval. */
void pass_plan(struct replay_session *s, struct pass_worker *w, size_t n, const size_t *starts,
	       size_t n_starts, uint64_t from, uint64_t snapshot_origin, uint64_t snapshot_interval);
/* Runs w[first..n) on threads of their own, the caller's thread running
 * w[first] too when a thread could not start. Returns the threads made:
 * the caller joins them with pass_workers_wait. */
size_t pass_workers_start(struct pass_worker *w, pthread_t *tids, size_t first, size_t n);
void pass_workers_wait(struct pass_worker *w, pthread_t *tids, size_t first, size_t n,
		       size_t started);

/* counts of the replay through the range before, then w's state X: the
 * counts the serial pass has at X (w->base: w's counts at its start). */
void pass_join_counts(struct resim_counts *out, const struct resim_counts *before,
		      const struct resim_counts *x, const struct resim_counts *base);

#endif
