/*
 * replay_session.h — an opened trace ready for time travel: the first
 * forward pass (history length, statistics, a snapshot of the replay every
 * REPLAY_SNAPSHOT_INTERVAL instructions), then positioning anywhere in the history of the recorded
 * process (time: the global clock of resim.h) and running forward from
 * there with an observer.
 *
 * The first pass is lazy: opening replays only its start (the first
 * segment), which is enough to show the start of history, so a debugger
 * is answered at once however long the trace. Whatever needs the whole
 * history (its end, the summary, the snapshots and their segment
 * summaries, any time but the start) calls replay_session_finish_pass
 * first; replay_session_goto does so itself.
 */
#ifndef TTREC_REPLAY_SESSION_H
#define TTREC_REPLAY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "replayer/module_files.h"
#include "replayer/resim.h"
#include "replayer/snapshot_spill.h"
#include "trace-format/code_page_set.h"
#include "trace-format/idna.h"

/* Instructions between the snapshots the first pass takes, at least (a
 * history of 2 * REPLAY_INDEX_SNAPSHOTS of them or more has its snapshots
 * about 1/REPLAY_INDEX_SNAPSHOTS of it apart): going back in time
 * re-simulates at most this many (past the memory budget, snapshots go
 * to a spill file; where none can be made, every other one goes and the
 * spacing doubles each time). */
#define REPLAY_SNAPSHOT_INTERVAL (1ull << 22)
/* At most about this many snapshots in an index written (see
 * replay_session_index.c). */
#define REPLAY_INDEX_SNAPSHOTS 256

struct replay_snapshot {
	uint64_t icount;
	struct resim_state state;
	/* Pages the program wrote, and pages it decoded code from, between
	 * this snapshot and the next: backward searches skip segments that
	 * wrote none of the watched pages or executed no breakpoint's page.
	 * (Every block a segment runs is decoded, and fetched, in it, or
	 * reported by the emulator the first time it runs in it:
	 * emu_report_code.) */
	struct code_page_set *written_pages;
	struct code_page_set *code_pages;
	/* Pages the program's instructions read (what rwatch, awatch and
	 * monitor last-read/next-read stop at) in the segment. */
	struct code_page_set *read_pages;
	/* In the spill file (replay_session_spill.c): state keeps only its
	 * time and counts; the rest is read back from `spill`, whose image
	 * is based on the snapshot at time spill_base's. */
	bool spilled;
	uint64_t spill_base;
	struct spill_ref spill;
	/* A range's snapshot adopted spilled (pass_join.c): `spill` is the
	 * range's record, read back on the base's completed image, and this
	 * the patch that completes it (length 0: none). */
	struct spill_ref spill_patch;
	/* Read from the replay index: state keeps only its time and counts
	 * until a restore needs the rest, read from the index's frame
	 * (replay_session_index.c); `decoded` while it is held in state. */
	bool indexed, decoded;
	bool damaged; /* its frame was found bad: not read again */
};

/* One thread of the history, for --info. */
struct replay_thread_summary {
	int64_t tid;             /* the initial thread: the pid (resim_threads.c) */
	uint32_t stream;
	uint64_t instructions;   /* its own, to the end of history */
	bool exited;             /* its THREAD_EXIT was recorded */
	int64_t exit_status;
};

struct replay_summary {
	uint64_t instructions;   /* length of the history: all threads' instructions */
	uint64_t syscalls, signals, checkpoints, native_steps;
	bool have_exit;
	int64_t exit_status;     /* as waitpid reports it */
	int last_signal;
	bool exit_consistent;    /* the replay ends at the exit the trace records */
	struct replay_thread_summary *threads;
	size_t n_threads;
	double seconds;          /* of the first pass */
	/* Snapshots the pass took, when it kept none (pass_parallel.h);
	 * else 0 and n_snapshots counts them. */
	size_t snapshots;
	/* Ranges of the history the pass replayed at once (0 or 1:
	 * serial), and the CPU time the slowest took: about the pass's
	 * time on a machine with a core free for each. */
	unsigned ranges;
	double longest_range_seconds;
	/* Of the ranges' snapshots, those their workers spilled past the
	 * snapshot budget (the join read them back, pass_join.c). */
	size_t range_snapshots_spilled;
	/* Of those, the ones the session took spilled as their workers
	 * wrote them (with a patch: pass_join.c), not written again. */
	size_t range_snapshots_adopted;
	/* --jobs above 1 and the pass ran on one core: why (pass_join.h);
	 * NULL otherwise. */
	const char *serial_reason;
};

/* How a session replays. */
struct replay_options {
	/* Snapshots are kept within this many bytes of heap (0: 512 MiB, or
	 * a quarter of the machine's memory when less). */
	uint64_t snapshot_memory;
	/* Instructions between the first pass's snapshots (0:
	 * REPLAY_SNAPSHOT_INTERVAL, widened on a long history as below):
	 * longer, fewer page copies for a program that rewrites much memory,
	 * and longer re-simulations going back. */
	uint64_t snapshot_interval;
	/* An index written holds at most about this many snapshots (0: 256;
	 * replay_session_index.c), and the first pass takes snapshots about
	 * that far apart when the history is twice this many intervals or
	 * longer (a multiple of the interval). */
	size_t index_snapshots;
	/* The same widening for a snapshot_interval given (ttreplay --index:
	 * the pass would take snapshots only for the index to drop them). */
	bool index_spacing;
	/* Interpret every instruction: no block translation (ttreplay
	 * --no-jit; the replay is the same, slower). */
	bool no_jit;
	/* Read the replay index instead of making the first pass when it
	 * is good, and write it after a first pass (ttreplay does, unless
	 * --no-index; off by default, so that tests and benchmarks replay). */
	bool use_index;
	/* Cores for the first pass (0 or 1: one): ranges of the history
	 * replayed at once, joined (pass_join.h). When summary_only, the
	 * session is opened for the pass's figures and verdict alone
	 * (ttreplay --verify, --info), which pass_parallel.h makes keeping
	 * no snapshots. */
	unsigned jobs;
	bool summary_only;
};

struct replay_index_file;
struct spill_writer;

/* What became of the replay index (replay_index.h). */
enum replay_index_state {
	REPLAY_INDEX_UNUSED,   /* not tried yet, or --no-index */
	REPLAY_INDEX_READ,     /* the first pass was loaded from index_path */
	REPLAY_INDEX_WRITTEN,  /* the first pass ran and was written to index_path */
	REPLAY_INDEX_UNWRITTEN, /* ... and could not be written: index_error */
};

struct replay_session {
	struct idna_reader *reader;
	unsigned cache_log2;
	bool jit;                     /* the emulator translates hot blocks */
	struct memory_image *future;  /* first reads of the whole history */
	struct module_files *modules; /* files mapped, for bytes never touched */
	struct replay_snapshot *snapshots;
	size_t n_snapshots, cap_snapshots;
	uint64_t snapshot_interval;   /* doubles each time snapshots are thinned */
	uint64_t snapshot_bytes;      /* what they pin, estimated */
	uint64_t snapshot_budget;
	size_t index_snapshots;  /* see replay_options */
	size_t index_snapshots_written; /* by the last index written */
	struct snapshot_spill *spill; /* snapshots beyond the budget, once any */
	struct spill_writer *spill_writer; /* writing them, once any */
	/* The replay index the snapshots were read from (their states are
	 * read from it on demand), and the decoded ones, least recently
	 * used first (replay_session_index.c). */
	struct replay_index_file *index_file;
	size_t *index_decoded, n_index_decoded;
	bool spill_failed;            /* no spill file: thin instead */
	struct replay_summary summary;   /* valid once the first pass is done */
	bool summary_incomplete;      /* a segment's written pages were not all noted */
	bool pass_done;               /* the first pass has run to the end (or failed) */
	bool pass_failed;             /* ... and failed: s->error says why */
	/* While the rest of the pass runs: asked at each snapshot whether to
	 * stop early (replay_session_finish_pass_interruptible). */
	bool (*pass_interrupted)(void *ctx);
	void *pass_interrupt_ctx;
	bool pass_was_interrupted;
	/* Forward motions run the pass on while it is not done
	 * (pass_ahead.h): s->sim is then the pass itself (pass_live), and
	 * the pass has read the history up to pass_reach. */
	bool pass_live;
	uint64_t pass_reach;
	char *path;                   /* of the trace, for messages */
	bool use_index;               /* replay_options.use_index */
	unsigned jobs;                /* replay_options.jobs, at least 1 */
	bool summary_only;            /* replay_options.summary_only */
	bool index_tried;             /* looked for before the rest of the pass */
	enum replay_index_state index_state;
	char index_path[4200];
	char index_error[4500];
	struct resim sim;        /* the current position */
	bool sim_open;
	char error[384];
};

/* Opens the trace and makes the opening part of the first pass; the
 * current time is then the start of history. opt NULL: the defaults.
 * 0, or -1 with s->error (the session is then closed). */
int replay_session_open(struct replay_session *s, const char *path,
			const struct replay_options *opt);
void replay_session_close(struct replay_session *s);

/* Makes the rest of the first pass unless it is done: afterwards the
 * summary, the snapshots and their segment summaries cover the whole
 * history. The current time stays what it was, a stop at a signal's
 * arrival included (the replay restarts there: observers and stop_at_*
 * flags set on s->sim before are gone). 0, or -1
 * with s->error (again at each call: the session can still show the
 * start of history). */
int replay_session_finish_pass(struct replay_session *s);

/* The same, asking interrupted(ctx) at each snapshot (a few million
 * instructions apart) whether to stop: then 1, with the pass paused at its
 * last snapshot (the next call goes on from there) and the current time
 * what it was. */
int replay_session_finish_pass_interruptible(struct replay_session *s,
					     bool (*interrupted)(void *ctx), void *ctx);

/* Reads the replay index now where the next run beyond where the pass has
 * read would (the options allow it, not tried yet): the whole history's
 * summaries are then known before that run starts. */
void replay_session_try_index(struct replay_session *s);

/* Moves to time t (clamped to the history; any t beyond where the first
 * pass has read finishes it). 0, or -1. */
int replay_session_goto(struct replay_session *s, uint64_t t);

/* Runs forward to t or until the observer stops it; the resim status.
 * While the first pass is not done, the run beyond where it has read is
 * the pass itself (pass_ahead.h): it stops where the run stops, and the
 * history ending there finishes it. */
enum resim_status replay_session_run(struct replay_session *s, uint64_t t);

static inline uint64_t replay_session_now(const struct replay_session *s)
{
	return resim_now(&s->sim);
}

/* Reads memory at the current time: what the replay knows up to now, then
 * what later first reads tell, then the mapped files. Returns how many
 * leading bytes are known. While the first pass is not done, later first
 * reads are known only up to where it has read (pass_ahead.h). */
size_t replay_session_read_memory(struct replay_session *s, uint64_t addr, void *buf,
				  size_t len);

/* Whether the segment starting at snapshot k wrote any byte of the pages
 * of [addr, addr+len), or executed code at addr (true when unknown). */
bool replay_session_segment_may_write(const struct replay_session *s, size_t k, uint64_t addr,
				      uint64_t len);
bool replay_session_segment_may_execute(const struct replay_session *s, size_t k, uint64_t addr);
/* Whether the segment's instructions read any byte of the pages of
 * [addr, addr+len) (true when unknown). */
bool replay_session_segment_may_read(const struct replay_session *s, size_t k, uint64_t addr,
				     uint64_t len);

/* The snapshot index to start from for time t. */
size_t replay_session_snapshot_for(const struct replay_session *s, uint64_t t);

/* --- snapshots beyond the budget (replay_session_spill.c) ---------------- */

/* Sends every other snapshot in memory to the spill file, written by a
 * thread of its own (spill_writer.h) while the pass goes on; in_use: the
 * replay's memory now. 0, or -1 when there is no spill file (the caller
 * thins the snapshots instead). */
int replay_session_spill_some(struct replay_session *s, uint64_t in_use);
/* The snapshots the writer thread has written since the last call now
 * keep only their numbers (with wait: once it has written all it was
 * given). Every use of the snapshots' states or of the spill file but the
 * pass's own taking of new ones comes after a wait. Returns how many are
 * still being written. */
size_t replay_session_spill_reap(struct replay_session *s, bool wait);
/* The same for any array of snapshots (a range's of the parallel pass,
 * pass_join.c), to file f: each spilled one's spill_base is the time of
 * the one before it that stays, on whose image it is read back. Fewer
 * than 8 in memory: none goes. */
void replay_snapshots_spill_half(struct snapshot_spill *f, struct replay_snapshot *snaps, size_t n);
/* A new spill file in the user's cache folder (as for the replay index),
 * else the temporary folder; NULL when none can be made. */
struct snapshot_spill *replay_spill_open(void);
/* Snapshot k's whole state: its own, or read back into *tmp (the caller
 * frees it with resim_state_free when the result is tmp), or read from
 * the replay index (valid until the next call). NULL with s->error. A
 * snapshot of the index whose frame is damaged gives, after a one-line
 * report, an earlier snapshot's state: a restore then replays further. */
const struct resim_state *replay_session_snapshot_state(struct replay_session *s, size_t k,
							struct resim_state *tmp);
/* How many snapshots are in the spill file, and its size. */
size_t replay_session_spilled_count(struct replay_session *s);
void replay_session_spill_close(struct replay_session *s);

#endif
