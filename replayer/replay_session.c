/*
 * replay_session.c — the first pass and time positioning. Opening makes
 * only the first pass's opening part (the start of history); the rest runs
 * the first time something needs the whole history. Going to time t
 * restarts from the last checkpoint at or before t, with the memory image
 * snapshot taken there, unless running on from the current position is
 * shorter.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "replayer/pass_ahead.h"
#include "replayer/pass_join.h"
#include "replayer/pass_parallel.h"
#include "replayer/replay_index.h"
#include "replayer/replay_session.h"
#include "replayer/segment_summary.h"
#include "trace-format/pack_store.h"

bool pass_note_pages(struct code_page_set *pages, uint64_t addr, size_t len)
{
	bool ok = true;
	for (uint64_t pg = addr >> 12; len && pg <= (addr + len - 1) >> 12; pg++)
		if (!code_page_set_contains(pages, pg) && !code_page_set_add(pages, pg))
			ok = false;
	return ok;
}

/* First pass: notes the pages each segment decodes code from. */
static void note_fetch(void *ctx, uint64_t addr, size_t len)
{
	struct replay_session *s = ctx;
	if (s->n_snapshots == 0 || len == 0)
		return;
	if (!pass_note_pages(s->snapshots[s->n_snapshots - 1].code_pages, addr, len))
		s->summary_incomplete = true;
}

/* First pass: the code of a block decoded before the segment, run in it. */
static void note_code(void *ctx, uint64_t addr, uint64_t len)
{
	note_fetch(ctx, addr, (size_t)len);
}

/* Room for one more snapshot. 0, or -1. */
static int snapshot_room(struct replay_session *s)
{
	if (s->n_snapshots == s->cap_snapshots) {
		size_t cap = s->cap_snapshots ? 2 * s->cap_snapshots : 64;
		struct replay_snapshot *n = realloc(s->snapshots, cap * sizeof(*n));
		if (!n)
			return -1;
		s->snapshots = n;
		s->cap_snapshots = cap;
	}
	return 0;
}

static int take_snapshot(struct replay_session *s)
{
	if (snapshot_room(s) != 0)
		return -1;
	struct replay_snapshot *snap = &s->snapshots[s->n_snapshots];
	memset(snap, 0, sizeof(*snap));
	if (!segment_summary_make(snap))
		return -1;
	if (resim_save(&s->sim, &snap->state) != 0) {
		segment_summary_free(snap);
		return -1;
	}
	/* Every block the coming segment runs is decoded in it, or reported
	 * by the emulator the first time it runs in it. */
	emu_report_code(s->sim.cpu, note_code, s);
	segment_summary_note_access(&s->sim.proc, snap);
	snap->icount = snap->state.time;
	s->n_snapshots++;
	return 0;
}

/* What one snapshot pins besides the pages copied away from it: its saved
 * prediction caches, code-page sets and bookkeeping, roughly. */
#define SNAPSHOT_FIXED_BYTES (1ull << 20)
#define PAGE_BYTES 4096ull
/* Thinning (which halves them) never leaves fewer than this many. */
#define MIN_SNAPSHOTS 16

uint64_t replay_snapshot_bytes(const struct replay_snapshot *snap)
{
	return SNAPSHOT_FIXED_BYTES +
	       (snap->written_pages ? code_page_set_count(snap->written_pages) * PAGE_BYTES : 0);
}

/*
 * A snapshot pins the pages the live image copied away from it: about one
 * for every page its segment wrote. A program that rewrites megabytes
 * between snapshots (xz, a database) would pin gigabytes over a long
 * history, so past the budget every other snapshot goes (its segment
 * joins the one before it, summaries merged) and the spacing doubles:
 * memory stays bounded, and going back replays at most that much further.
 */
static int thin_snapshots(struct replay_session *s)
{
	replay_session_spill_reap(s, true);
	size_t kept = 1;
	for (size_t i = 1; i < s->n_snapshots; i++) {
		struct replay_snapshot *snap = &s->snapshots[i];
		if (i % 2 == 0) {
			s->snapshots[kept++] = *snap;
			continue;
		}
		struct replay_snapshot *into = &s->snapshots[kept - 1];
		if (!segment_summary_join(into, snap))
			s->summary_incomplete = true;
		resim_state_free(&snap->state);
		segment_summary_free(snap);
	}
	s->n_snapshots = kept;
	segment_summary_note_access(&s->sim.proc, &s->snapshots[kept - 1]);
	s->snapshot_interval *= 2;
	s->snapshot_bytes = 0;
	for (size_t i = 0; i < s->n_snapshots; i++)
		s->snapshot_bytes += replay_snapshot_bytes(&s->snapshots[i]);
	return 0;
}

/* Snapshots between two looks at the replay's memory: the allocator's
 * count walks its free lists, which a long pass makes long. */
#define BUDGET_CHECK_EVERY 4

/* The replay's memory: the heap in use as the allocator counts it (what
 * the budget bounds: snapshots are what can be given back), or, where the
 * allocator cannot say (under a sanitizer), the snapshots' estimate. */
uint64_t replay_heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}

static uint64_t replay_memory_in_use(const struct replay_session *s)
{
	uint64_t heap = replay_heap_in_use();
	return heap ? heap : s->snapshot_bytes;
}

bool replay_session_segment_may_execute(const struct replay_session *s, size_t k, uint64_t addr)
{
	if (s->summary_incomplete || k >= s->n_snapshots || !s->snapshots[k].code_pages)
		return true;
	return code_page_set_contains(s->snapshots[k].code_pages, addr >> 12);
}

/* Whether a segment's page set (NULL: unknown) holds a page of
 * [addr, addr+len). */
static bool segment_may_touch(const struct replay_session *s, size_t k,
			      const struct code_page_set *pages, uint64_t addr, uint64_t len)
{
	if (s->summary_incomplete || k >= s->n_snapshots || !pages || len == 0)
		return true;
	/* A range that runs past the top of the address space ends there. */
	uint64_t last = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;
	return code_page_set_any_in(pages, addr >> 12, last >> 12);
}

bool replay_session_segment_may_write(const struct replay_session *s, size_t k, uint64_t addr,
				      uint64_t len)
{
	return segment_may_touch(s, k, k < s->n_snapshots ? s->snapshots[k].written_pages : NULL,
				 addr, len);
}

bool replay_session_segment_may_read(const struct replay_session *s, size_t k, uint64_t addr,
				     uint64_t len)
{
	return segment_may_touch(s, k, k < s->n_snapshots ? s->snapshots[k].read_pages : NULL,
				 addr, len);
}

/* On a terminal, a progress line for long first passes: the share of the
 * stream's chunks read so far. */
static void show_progress(struct replay_session *s, bool done)
{
	if (!isatty(STDERR_FILENO) || s->n_snapshots < 8)
		return;
	if (done) {
		fprintf(stderr, "\r%60s\r", "");
		return;
	}
	if (s->n_snapshots % 8)
		return;
	size_t chunks = idna_reader_chunk_count(s->reader);
	uint32_t chunk = 0, offset, size;
	struct record_cursor *events = &resim_current(&s->sim)->events;
	if (events->it)
		idna_iter_position(events->it, &chunk, &offset, &size);
	fprintf(stderr, "\rttreplay: first pass %3u%% (%llu M instructions)",
		chunks ? (unsigned)(100.0 * chunk / chunks) : 0,
		(unsigned long long)(resim_now(&s->sim) / 1000000));
}

/*
 * Runs the first pass on from where it stands until history ends, or only
 * until `max_snapshots` are taken (RESIM_AT_TARGET then: paused there).
 */
/* Before a snapshot is added: the budget kept (spilling or thinning the
 * ones before). */
static void keep_budget(struct replay_session *s)
{
	if (s->n_snapshots)
		s->snapshot_bytes += replay_snapshot_bytes(&s->snapshots[s->n_snapshots - 1]);
	replay_session_spill_reap(s, false);
	if (s->n_snapshots < 2 * MIN_SNAPSHOTS || s->n_snapshots % BUDGET_CHECK_EVERY != 0)
		return;
	uint64_t in_use = replay_memory_in_use(s);
	if (in_use > s->snapshot_budget && replay_session_spill_some(s, in_use) != 0)
		thin_snapshots(s);
}

int replay_session_add_snapshot(struct replay_session *s, const struct replay_snapshot *snap)
{
	replay_session_spill_reap(s, true);
	keep_budget(s);
	if (snapshot_room(s) != 0)
		return -1;
	s->snapshots[s->n_snapshots++] = *snap;
	return 0;
}

int replay_session_pass_boundary(struct replay_session *s)
{
	show_progress(s, false);
	keep_budget(s);
	if (take_snapshot(s) != 0) {
		snprintf(s->sim.error, sizeof(s->sim.error), "out of memory for snapshots");
		return -1;
	}
	return 0;
}

uint64_t replay_session_next_snapshot_time(const struct replay_session *s)
{
	return s->n_snapshots ? s->snapshots[s->n_snapshots - 1].icount + s->snapshot_interval : 0;
}

/*
 * Runs the first pass on from where it stands until history ends, or only
 * until `max_snapshots` are taken or time `end` is reached (RESIM_AT_TARGET
 * then: paused there, after the snapshot at `end` if one is due there).
 */
static enum resim_status first_pass(struct replay_session *s, size_t max_snapshots, uint64_t end)
{
	for (;;) {
		uint64_t next = replay_session_next_snapshot_time(s);
		uint64_t target = next < end ? next : end;
		enum resim_status st = resim_run(&s->sim, target);
		if (st != RESIM_AT_TARGET) {
			show_progress(s, true);
			return st;
		}
		if (target == next) {
			if (replay_session_pass_boundary(s) != 0)
				return RESIM_ERROR;
			if (s->n_snapshots >= max_snapshots)
				return RESIM_AT_TARGET;
			if (s->pass_interrupted && s->pass_interrupted(s->pass_interrupt_ctx)) {
				s->pass_was_interrupted = true;
				return RESIM_AT_TARGET;
			}
		}
		if (target == end)
			return RESIM_AT_TARGET;
	}
}

/* The exit status the global stream records, if the process ended. */
static bool find_exit_status(struct replay_session *s, int64_t *status)
{
	char err[256];
	struct idna_iter *it = idna_iter_open(s->reader, 0, NULL, err, sizeof(err));
	if (!it)
		return false;
	struct idna_record r;
	bool found = false;
	while (idna_iter_next(it, &r) == 1)
		if (r.type == IDNA_REC_PROCESS_EXIT) {
			*status = r.u.process_exit.status;
			found = true;
		}
	idna_iter_close(it);
	return found;
}

static bool exits_with(const struct emu_regs *r, int status)
{
	uint64_t nr = r->gpr[EMU_RAX];
	return (nr == 60 || nr == 231) && (int)(r->gpr[EMU_RDI] & 0xff) == WEXITSTATUS(status);
}

/* The replay ends where the recording did: at the exit or exit_group
 * syscall with the recorded status (made by the thread that ran last,
 * or, when that one only went away, by another), or at the fatal signal. */
static bool exit_is_consistent(struct replay_session *s, struct resim *sim)
{
	struct replay_summary *m = &s->summary;
	if (!m->have_exit)
		return false;
	int status = (int)m->exit_status;
	if (WIFSIGNALED(status))
		return m->last_signal == WTERMSIG(status);
	if (exits_with(emu_regs(sim->cpu), status))
		return true;
	for (size_t i = 0; i < sim->n_threads; i++)
		if (exits_with(resim_thread_regs(sim, i), status))
			return true;
	return false;
}

/* Each thread's share of the history, as the first pass left them. */
static int summarise_threads(struct replay_session *s, const struct resim *sim)
{
	struct replay_summary *m = &s->summary;
	m->threads = calloc(sim->n_threads, sizeof(*m->threads));
	if (!m->threads)
		return -1;
	m->n_threads = sim->n_threads;
	for (size_t i = 0; i < sim->n_threads; i++) {
		struct replay_thread_summary *t = &m->threads[i];
		t->tid = sim->threads[i].tid;
		t->stream = sim->threads[i].stream;
		t->instructions = resim_thread_icount(sim, i);
		t->exited = sim->threads[i].exit_recorded;
		t->exit_status = sim->threads[i].exit_status;
	}
	return 0;
}

/*
 * By default 512 MiB, or a quarter of the machine's memory when that is
 * less. The budget bounds the replay's whole heap (the live and future
 * images, the trace's buffers and the snapshots in memory, the others
 * being in the spill file), so the peak resident size stays a little
 * above it whatever the history's length: 0.66 GB for `sort -n` of 10^6
 * numbers (5.1 G instructions), where a 4 GiB budget peaked at 3.2 GB
 * (BENCHMARKS.md, replay memory). A smaller budget costs reading
 * snapshots back to go back, not other answers.
 */
static uint64_t default_snapshot_budget(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	uint64_t quarter = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size / 4 : 0;
	uint64_t cap = 512ull << 20;
	return quarter && quarter < cap ? quarter : cap;
}

void replay_session_pass_hooks(struct replay_session *s, bool on)
{
	if (on) {
		s->sim.proc.future = s->future;
		segment_summary_note_access(&s->sim.proc,
					    s->n_snapshots ? &s->snapshots[s->n_snapshots - 1] : NULL);
		s->sim.proc.on_fetch = note_fetch;
		s->sim.proc.fetch_ctx = s;
		/* Blocks decoded before now, run from now on in the segment. */
		emu_report_code(s->sim.cpu, note_code, s);
		return;
	}
	/* The pass stops running: what it sent to the spill file is there
	 * before anything else looks at the snapshots. */
	replay_session_spill_reap(s, true);
	if (s->sim.proc.written_incomplete || s->sim.proc.read_incomplete)
		s->summary_incomplete = true;
	process_memory_note_writes(&s->sim.proc, NULL);
	process_memory_note_reads(&s->sim.proc, NULL);
	emu_report_code(s->sim.cpu, NULL, NULL);
	s->sim.proc.on_fetch = NULL;
	s->sim.proc.future = NULL;
}

/* Runs the first pass on (see first_pass), the hooks that note each
 * segment's pages in place; its time adds to the summary's. */
enum resim_status replay_session_run_pass(struct replay_session *s, size_t max_snapshots,
					 uint64_t end)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	replay_session_pass_hooks(s, true);
	enum resim_status st = first_pass(s, max_snapshots, end);
	replay_session_pass_hooks(s, false);
	if (resim_now(&s->sim) > s->pass_reach)
		s->pass_reach = resim_now(&s->sim);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->summary.seconds += (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return st;
}

/* The first pass has ended with st, the replay sim at the end of history
 * with these counts of it: what it found. 0, or -1 with s->error. */
int replay_session_summarise_replay(struct replay_session *s, struct resim *sim,
				    const struct resim_counts *counts, enum resim_status st)
{
	struct replay_summary *m = &s->summary;
	m->instructions = resim_now(sim);
	m->syscalls = counts->syscalls;
	m->signals = counts->signals;
	m->checkpoints = counts->checkpoints;
	m->native_steps = counts->native_steps;
	m->last_signal = counts->last_signal;
	m->have_exit = find_exit_status(s, &m->exit_status);
	if (st == RESIM_ERROR) {
		snprintf(s->error, sizeof(s->error), "%s: %s", s->path, sim->error);
		return -1;
	}
	m->exit_consistent = exit_is_consistent(s, sim);
	if (summarise_threads(s, sim) != 0) {
		snprintf(s->error, sizeof(s->error), "%s: out of memory", s->path);
		return -1;
	}
	return 0;
}

int replay_session_summarise_history(struct replay_session *s, enum resim_status st)
{
	return replay_session_summarise_replay(s, &s->sim, &s->sim.counts, st);
}

/* How long the history is at least: each stream's last checkpoint's
 * instructions, summed (0 when the table says nothing usable). */
static uint64_t history_lower_bound(const struct idna_reader *r)
{
	size_t n = idna_reader_checkpoint_count(r), streams = 0;
	for (size_t i = 0; i < n; i++)
		if (idna_reader_checkpoint(r, i)->stream >= streams)
			streams = (size_t)idna_reader_checkpoint(r, i)->stream + 1;
	uint64_t *last = streams <= (1u << 20) ? calloc(streams + 1, sizeof(*last)) : NULL, sum = 0;
	if (!last)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const struct idna_checkpoint *cp = idna_reader_checkpoint(r, i);
		if (cp->icount > last[cp->stream])
			last[cp->stream] = cp->icount;
	}
	for (size_t i = 0; i < streams; i++)
		sum = sum + last[i] < sum ? UINT64_MAX : sum + last[i];
	free(last);
	return sum;
}

/*
 * The first pass takes its snapshots as far apart as an index keeps them:
 * about 1/index_snapshots of the history (known up to its last checkpoint
 * before the pass), on its grid (a multiple of the interval), never closer
 * than the interval. Closer ones cost more than they give on a long
 * history: at every 4 M instructions the pass of sort -n of 10^6 numbers
 * (5.2 G instructions) took 1,230 snapshots, 1,175 of which went to the
 * spill file (a third of the pass compressing them), for an index to keep
 * 246 of them; 24 M apart the pass took 11.8 s instead of 19.6 and going
 * to an arbitrary time was no slower, reading back spilled snapshots
 * having cost as much as replaying the wider spacing (BENCHMARKS.md).
 * Where a session goes, it keeps snapshots of its own (step_history.c).
 */
static void widen_for_history(struct replay_session *s)
{
	uint64_t spacing = history_lower_bound(s->reader) / s->index_snapshots;
	uint64_t cap = 1ull << 30; /* the widest --snapshot-interval */
	if (spacing > cap - s->snapshot_interval)
		spacing = cap - s->snapshot_interval;
	/* Rounded up: the index would drop every other one of a spacing a
	 * little under its own. */
	if (spacing >= 2 * s->snapshot_interval)
		s->snapshot_interval = (spacing + s->snapshot_interval - 1) / s->snapshot_interval *
				       s->snapshot_interval;
}

/* Snapshots the opening part of the first pass takes: the start of
 * history and one segment after it, in which the program's start-up
 * reads its stack (argc, environment, auxiliary vector), so that memory
 * at the start can be shown before the rest of the pass has run. */
#define OPENING_SNAPSHOTS 2

int replay_session_open(struct replay_session *s, const char *path,
			const struct replay_options *opt)
{
	static const struct replay_options defaults = { 0 };
	if (!opt)
		opt = &defaults;
	memset(s, 0, sizeof(*s));
	s->jit = !opt->no_jit;
	s->use_index = opt->use_index;
	s->jobs = opt->jobs ? opt->jobs : 1;
	s->summary_only = opt->summary_only;
	s->snapshot_interval = opt->snapshot_interval ? opt->snapshot_interval : REPLAY_SNAPSHOT_INTERVAL;
	s->snapshot_budget = opt->snapshot_memory ? opt->snapshot_memory : default_snapshot_budget();
	s->index_snapshots = opt->index_snapshots ? opt->index_snapshots : REPLAY_INDEX_SNAPSHOTS;
	s->path = strdup(path);
	if (!s->path) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	s->reader = idna_reader_open(path, s->error, sizeof(s->error));
	if (!s->reader) {
		replay_session_close(s);
		return -1;
	}
	s->cache_log2 = idna_reader_header(s->reader)->cache_log2_entries;
	if (!opt->snapshot_interval || opt->index_spacing)
		widen_for_history(s);
	struct memory_image *image = memory_image_new();
	s->future = memory_image_new();
	if (!image || !s->future || resim_open(&s->sim, s->reader, s->cache_log2, s->jit, image) != 0) {
		snprintf(s->error, sizeof(s->error), "%s: %s", path,
			 image && s->future ? s->sim.error : "out of memory");
		if (!s->future)
			memory_image_free(image);
		replay_session_close(s);
		return -1;
	}
	s->sim_open = true;
	char pack_dir[4096];
	s->modules = module_files_load(s->reader, pack_store_dir(path, pack_dir, sizeof(pack_dir)) == 0
							  ? pack_dir : NULL);
	enum resim_status st = replay_session_run_pass(s, OPENING_SNAPSHOTS, UINT64_MAX);
	if (st == RESIM_ERROR) {
		snprintf(s->error, sizeof(s->error), "%s: %s", path, s->sim.error);
		replay_session_close(s);
		return -1;
	}
	if (s->n_snapshots == 0) {
		snprintf(s->error, sizeof(s->error), "%s: the trace has no checkpoint to start from", path);
		replay_session_close(s);
		return -1;
	}
	if (st != RESIM_AT_TARGET) {
		/* The history was shorter than the opening part. */
		s->pass_done = true;
		if (replay_session_summarise_history(s, st) != 0) {
			replay_session_close(s);
			return -1;
		}
	}
	if (replay_session_goto(s, s->snapshots[0].icount) != 0) {
		replay_session_close(s);
		return -1;
	}
	return 0;
}

/* What a session on this trace learned before, if it is still good: the
 * rest of the pass is then done. Looked for once, before the pass would
 * run on; the replay's current state stays valid (it is the same history). */
static bool pass_from_index(struct replay_session *s)
{
	if (!s->use_index || s->index_tried)
		return false;
	s->index_tried = true;
	pass_ahead_park(s);
	if (!replay_session_load_index(s))
		return false;
	s->pass_done = true;
	return true;
}

void replay_session_try_index(struct replay_session *s)
{
	if (!s->pass_done)
		pass_from_index(s);
}

/* Where the replay stands, to come back to after the pass has run: a
 * time, and whether at a signal's arrival (its delivery not applied yet,
 * a state between the time's instruction and the handler's first that a
 * goto to the time alone does not give: it applies the delivery). */
struct replay_position {
	uint64_t time;
	bool at_arrival;
	uint64_t signals; /* counts.signals there: which arrival at the time */
};

static struct replay_position current_position(const struct replay_session *s)
{
	if (!s->sim_open)
		return (struct replay_position){ .time = s->snapshots[0].icount };
	return (struct replay_position){ .time = resim_now(&s->sim),
					 .at_arrival = s->sim.delivery_pending,
					 .signals = s->sim.counts.signals };
}

/* Back to p: an arrival from the time before it, run on to p's arrival
 * (stopping at each one on the way: several signals may arrive at one
 * time); where that does not meet it, to the time. 0, or -1. */
static int return_to(struct replay_session *s, const struct replay_position *p)
{
	if (!p->at_arrival || p->time <= s->snapshots[0].icount)
		return replay_session_goto(s, p->time);
	if (replay_session_goto(s, p->time - 1) != 0)
		return -1;
	for (;;) {
		s->sim.stop_at_signals = true;
		enum resim_status st = replay_session_run(s, p->time);
		s->sim.stop_at_signals = false;
		if (st == RESIM_ERROR)
			return -1;
		if (st != RESIM_SIGNAL || s->sim.counts.signals >= p->signals)
			break;
	}
	if (s->sim.delivery_pending && resim_now(&s->sim) == p->time &&
	    s->sim.counts.signals == p->signals)
		return 0;
	return replay_session_goto(s, p->time);
}

int replay_session_finish_pass_interruptible(struct replay_session *s,
					     bool (*interrupted)(void *ctx), void *ctx)
{
	if (s->pass_done)
		return s->pass_failed ? -1 : 0;
	pass_ahead_park(s);
	struct replay_position at = current_position(s);
	if (pass_from_index(s))
		return return_to(s, &at);
	/* For the figures alone, no snapshot is taken that nothing would
	 * use: on one core too, unless the index keeps them. */
	bool figures_only = s->summary_only && (s->jobs > 1 || !s->use_index);
	int parallel = figures_only ? pass_parallel_summary(s, s->jobs) : 0;
	if (parallel != 0) {
		s->pass_done = true;
		s->pass_failed = parallel < 0;
		return parallel < 0 ? -1 : return_to(s, &at);
	}
	/* The pass paused at its last snapshot: it goes on from there. */
	if (s->sim_open)
		resim_close(&s->sim);
	s->sim_open = false;
	if (resim_open_state(&s->sim, s->reader, s->cache_log2, s->jit,
			     &s->snapshots[s->n_snapshots - 1].state) != 0) {
		snprintf(s->error, sizeof(s->error), "%s: %s", s->path, s->sim.error);
		s->pass_done = s->pass_failed = true;
		return -1;
	}
	s->sim_open = true;
	s->pass_interrupted = interrupted;
	s->pass_interrupt_ctx = ctx;
	s->pass_was_interrupted = false;
	/* On several cores when it can: else (0) on from where that left
	 * the pass. */
	int joined = s->jobs > 1 ? pass_join_session(s, s->jobs) : 0;
	enum resim_status st = joined || s->pass_was_interrupted
				       ? RESIM_AT_TARGET
				       : replay_session_run_pass(s, SIZE_MAX, UINT64_MAX);
	s->pass_interrupted = NULL;
	if (s->pass_was_interrupted)
		/* Paused at its last snapshot, as after opening; back to the
		 * time it was (the start: nothing later is shown before the
		 * pass is done). */
		return return_to(s, &at) == 0 ? 1 : -1;
	s->pass_done = true;
	if (joined < 0 || (!joined && replay_session_summarise_history(s, st) != 0)) {
		s->pass_failed = true;
		/* Keep showing the start, which stays valid. */
		char error[sizeof(s->error)];
		memcpy(error, s->error, sizeof(error));
		replay_session_goto(s, s->snapshots[0].icount);
		memcpy(s->error, error, sizeof(error));
		return -1;
	}
	if (s->use_index)
		replay_session_save_index(s);
	return return_to(s, &at);
}

int replay_session_finish_pass(struct replay_session *s)
{
	return replay_session_finish_pass_interruptible(s, NULL, NULL);
}

void replay_session_close(struct replay_session *s)
{
	replay_session_spill_reap(s, true);
	if (s->sim_open)
		resim_close(&s->sim);
	s->sim_open = false;
	for (size_t i = 0; i < s->n_snapshots; i++) {
		resim_state_free(&s->snapshots[i].state);
		segment_summary_free(&s->snapshots[i]);
	}
	free(s->snapshots);
	s->snapshots = NULL;
	replay_session_spill_close(s);
	replay_session_index_close(s);
	free(s->summary.threads);
	s->summary.threads = NULL;
	s->summary.n_threads = 0;
	memory_image_free(s->future);
	s->future = NULL;
	module_files_free(s->modules);
	s->modules = NULL;
	s->n_snapshots = 0;
	if (s->reader)
		idna_reader_close(s->reader);
	s->reader = NULL;
	free(s->path);
	s->path = NULL;
}

size_t replay_session_read_memory(struct replay_session *s, uint64_t addr, void *buf,
				  size_t len)
{
	uint8_t *out = buf;
	size_t done = 0;
	uint64_t now = resim_now(&s->sim);
	while (done < len) {
		size_t n = memory_image_load(s->sim.proc.image, addr + done, out + done, len - done);
		if (n == 0 && s->future) {
			n = memory_image_load_at(s->future, addr + done, out + done, 1, now);
			if (n == 0 && memory_image_blocked(s->future, addr + done, now))
				break; /* the kernel changed it: no module file's bytes */
		}
		if (n == 0 && s->modules)
			n = module_files_read(s->modules, addr + done, out + done, 1);
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

size_t replay_session_snapshot_for(const struct replay_session *s, uint64_t t)
{
	size_t lo = 0, hi = s->n_snapshots;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->snapshots[mid].icount <= t)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int replay_session_goto(struct replay_session *s, uint64_t t)
{
	if (s->pass_live && s->sim_open && t == resim_now(&s->sim))
		return 0; /* the pass runs on from here (pass_ahead.c) */
	pass_ahead_park(s);
	/* The start of history, and any time up to where the pass has read,
	 * are known without the rest of the pass; any other time needs the
	 * whole pass (the end, the snapshots). */
	if (t <= s->snapshots[0].icount)
		t = s->snapshots[0].icount;
	else if (!s->pass_done && t <= s->pass_reach)
		;
	else if (replay_session_finish_pass(s) != 0)
		return -1;
	else if (t > s->summary.instructions)
		t = s->summary.instructions;
	size_t k = replay_session_snapshot_for(s, t);
	const struct replay_snapshot *snap = &s->snapshots[k];
	uint64_t now = s->sim_open ? resim_now(&s->sim) : UINT64_MAX;
	bool run_on = s->sim_open && now <= t && !s->sim.ended && now >= snap->icount;
	if (!run_on) {
		struct resim_state read_back;
		const struct resim_state *st = replay_session_snapshot_state(s, k, &read_back);
		int rc = -1;
		if (st && s->sim_open)
			rc = resim_reopen_state(&s->sim, s->cache_log2, s->jit, st);
		else if (st)
			rc = resim_open_state(&s->sim, s->reader, s->cache_log2, s->jit, st);
		else if (s->sim_open)
			resim_close(&s->sim);
		s->sim_open = false;
		if (st == &read_back)
			resim_state_free(&read_back);
		if (rc != 0) {
			if (st)
				snprintf(s->error, sizeof(s->error), "%s", s->sim.error);
			return -1;
		}
		s->sim_open = true;
	}
	enum resim_status st = resim_run(&s->sim, t);
	if (st == RESIM_ERROR) {
		snprintf(s->error, sizeof(s->error), "%s", s->sim.error);
		return -1;
	}
	return 0;
}

enum resim_status replay_session_run(struct replay_session *s, uint64_t t)
{
	if (!s->pass_done)
		pass_from_index(s);
	enum resim_status st = s->pass_done ? resim_run(&s->sim, t) : pass_ahead_run(s, t);
	if (st == RESIM_ERROR)
		snprintf(s->error, sizeof(s->error), "%s", s->sim.error);
	return st;
}
