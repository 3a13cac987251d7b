/*
 * resim_threads.c — the threads of a re-simulation and the slice
 * scheduler: which thread the one emulator runs, and the switch between
 * two (registers, instruction count and memory context swapped, the global
 * clock carried over).
 *
 * The recording ran threads one at a time; each time it switched to a
 * thread it logged a SWITCH key frame in that thread's stream carrying the
 * next value of one global counter. So when a slice ends, the next thread is
 * the one whose pending SWITCH frame has the smallest counter (man/idna.5,
 * THREADS).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-format/code_page_set.h"
#include "trace-format/trace_regs.h"
#include "replayer/resim.h"

#define SYS_EXIT_NR 60
#define SYS_EXIT_GROUP_NR 231

static int compare_streams(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Names the thread of t->stream: the tid THREAD_CREATE gave it; the
 * initial thread the process's pid (the header's; a stand-in for traces
 * that do not record it), and a stream the global stream does not explain
 * a stand-in. Notes whether a THREAD_EXIT for it was recorded. */
static void name_thread(struct idna_reader *r, struct resim_thread *t, bool initial)
{
	int64_t pid = idna_reader_header(r)->info.pid;
	t->exit_recorded = initial && idna_reader_initial_thread_exit(r, &t->exit_status);
	t->tid = initial ? (pid > 0 ? pid : RESIM_INITIAL_TID) : t->stream;
	for (size_t i = 0; i < idna_reader_thread_count(r); i++) {
		const struct idna_thread_info *info = idna_reader_thread(r, i);
		if (info->stream == t->stream) {
			t->exit_recorded = info->exited;
			t->exit_status = info->exit_status;
			if (!initial)
				t->tid = (int64_t)info->tid;
			return;
		}
	}
}

/* Whether the ring evicted the start of a stream: its first kept chunk is
 * not the stream's chunk 0. */
static bool stream_truncated(struct idna_reader *r, uint32_t stream)
{
	for (size_t i = 0; i < idna_reader_chunk_count(r); i++) {
		const struct idna_chunk_info *c = idna_reader_chunk(r, i);
		if (c->stream == stream)
			return c->stream_chunk_no != 0;
	}
	return false;
}

/* The first checkpoint kept of a stream, or NULL. */
static const struct idna_checkpoint *first_checkpoint(struct idna_reader *r, uint32_t stream)
{
	for (size_t i = 0; i < idna_reader_checkpoint_count(r); i++)
		if (idna_reader_checkpoint(r, i)->stream == stream)
			return idna_reader_checkpoint(r, i);
	return NULL;
}

/*
 * The streams a replay can run: all of them, except, in a ring trace, a
 * stream whose start was evicted and that keeps no checkpoint to begin
 * from (its records cannot be replayed: man/idna.5, RING MODE). A stream
 * that begins at a checkpoint gets it in *first.
 */
static bool stream_replayable(struct resim *s, uint32_t stream,
			      const struct idna_checkpoint **first)
{
	*first = NULL;
	if (!stream_truncated(s->reader, stream))
		return true;
	*first = first_checkpoint(s->reader, stream);
	s->ring_start = true;
	return *first != NULL;
}

int resim_threads_open(struct resim *s, unsigned cache_log2, bool initial_cache)
{
	size_t n_streams = idna_reader_stream_count(s->reader);
	uint32_t *streams = calloc(n_streams ? n_streams : 1, sizeof(*streams));
	if (!streams) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	size_t n = 0;
	const struct idna_checkpoint *unused;
	for (size_t i = 0; i < n_streams; i++) {
		uint32_t id = idna_reader_stream_id(s->reader, i);
		if (id != 0 && stream_replayable(s, id, &unused))
			streams[n++] = id;
	}
	if (n == 0) {
		free(streams);
		snprintf(s->error, sizeof(s->error), "the trace records no thread it can replay");
		return -1;
	}
	qsort(streams, n, sizeof(*streams), compare_streams);
	s->threads = calloc(n, sizeof(*s->threads));
	if (!s->threads) {
		free(streams);
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	s->n_threads = n;
	for (size_t i = 0; i < n; i++) {
		struct resim_thread *t = &s->threads[i];
		t->stream = streams[i];
		name_thread(s->reader, t, t->stream == RESIM_INITIAL_STREAM);
		stream_replayable(s, t->stream, &t->first);
		/* A thread that begins at a checkpoint: its count is the
		 * checkpoint's until it runs (its registers come with it). */
		if (t->first)
			t->icount = t->first->icount;
		if (replay_memory_init(&t->mem, cache_log2,
				       idna_reader_header(s->reader)->cache_log2_line, &s->proc) != 0) {
			free(streams);
			snprintf(s->error, sizeof(s->error), "out of memory");
			return -1;
		}
	}
	free(streams);
	/* The initial thread's first slice needs no SWITCH frame. Where the
	 * ring cut the history, resim_open lets the scheduler pick the
	 * thread whose first checkpoint comes first. */
	if (!s->ring_start) {
		s->threads[0].started = true;
		if (initial_cache && replay_memory_cache_acquire(&s->threads[0].mem) != 0) {
			snprintf(s->error, sizeof(s->error), "out of memory");
			return -1;
		}
	}
	return 0;
}

void resim_threads_close(struct resim *s)
{
	for (size_t i = 0; i < s->n_threads; i++) {
		cursor_close(&s->threads[i].events);
		replay_memory_fini(&s->threads[i].mem);
	}
	free(s->threads);
	s->threads = NULL;
	s->n_threads = 0;
}

/* Whether a thread whose stream has ended stopped at its own exit: its
 * last event is the kernel entry of exit or exit_group (rax holds the
 * call's number). Any other last event is where it died with the process:
 * blocked in a system call, or waiting for its turn. */
static bool stream_ends_at_exit_call(const struct resim *s, size_t i)
{
	const struct emu_regs *r = i == s->current ? emu_regs(s->cpu) : &s->threads[i].regs;
	uint64_t nr = r->gpr[EMU_RAX];
	return nr == SYS_EXIT_NR || nr == SYS_EXIT_GROUP_NR;
}

bool resim_thread_alive(const struct resim *s, size_t i)
{
	const struct resim_thread *t = &s->threads[i];
	if (!t->started)
		return t->created;
	if (!t->finished || !t->exit_recorded)
		return true; /* running, or the recording stopped with it alive */
	/* A thread that died with the process exists until history ends. */
	return !s->ended && !stream_ends_at_exit_call(s, i);
}

long resim_thread_index(const struct resim *s, int64_t tid)
{
	for (size_t i = 0; i < s->n_threads; i++)
		if (s->threads[i].tid == tid)
			return (long)i;
	return -1;
}

void resim_note_clone(struct resim *s, int64_t result)
{
	if (result <= 0)
		return;
	long k = resim_thread_index(s, result);
	if (k >= 0)
		s->threads[k].created = true;
}

/* A thread not yet run has the registers of its stream's first checkpoint
 * (man/idna.5, THREADS: a new stream's first slice begins with one). */
static void load_first_regs(struct resim *s, struct resim_thread *t)
{
	const struct idna_checkpoint *cp = t->first ? t->first : first_checkpoint(s->reader, t->stream);
	char err[128];
	struct idna_iter *it = cp ? idna_iter_open(s->reader, t->stream, cp, err, sizeof(err)) : NULL;
	if (!it)
		return;
	struct idna_record rec;
	if (idna_iter_next(it, &rec) == 1 && rec.type == IDNA_REC_CHECKPOINT)
		trace_regs_to_emu(rec.u.checkpoint.regs, &t->regs);
	idna_iter_close(it);
}

const struct emu_regs *resim_thread_regs(struct resim *s, size_t i)
{
	if (i == s->current)
		return emu_regs(s->cpu);
	struct resim_thread *t = &s->threads[i];
	if (!t->started && t->created)
		load_first_regs(s, t);
	return &t->regs;
}

uint64_t resim_thread_icount(const struct resim *s, size_t i)
{
	return i == s->current ? emu_icount(s->cpu) : s->threads[i].icount;
}

/* The global counter of thread t's pending SWITCH frame: 1 and *seq if it
 * waits at one, 0 if its stream has ended, -1 if it is at anything else.
 * A thread that has not run yet and begins at a checkpoint (the ring cut
 * its history) waits there: 2, *seq and *icount the checkpoint's. */
static int pending_switch(struct resim_thread *t, uint64_t *seq, uint64_t *icount)
{
	const struct idna_record *ev = cursor_peek(&t->events);
	if (!ev)
		return t->events.failed ? -1 : 0;
	if (!t->started && ev->type == IDNA_REC_CHECKPOINT) {
		*seq = ev->u.checkpoint.global_seq;
		*icount = ev->u.checkpoint.icount;
		return 2;
	}
	if (ev->type != IDNA_REC_KEY_FRAME || ev->u.key.reason != IDNA_KEY_SWITCH)
		return -1;
	*seq = ev->u.key.global_seq;
	*icount = ev->u.key.icount;
	return 1;
}

static void switch_to(struct resim *s, size_t next)
{
	uint64_t now = resim_now(s);
	struct resim_thread *from = resim_current(s), *to = &s->threads[next];
	from->regs = *emu_regs(s->cpu);
	from->icount = emu_icount(s->cpu);
	*emu_regs(s->cpu) = to->regs;
	emu_set_icount(s->cpu, to->icount);
	emu_set_memory_context(s->cpu, &to->mem);
	s->clock_offset = now - to->icount;
	s->current = next;
}

int resim_schedule(struct resim *s, bool *switched)
{
	*switched = false;
	size_t best = s->n_threads;
	uint64_t best_seq = UINT64_MAX, best_icount = 0;
	int best_kind = 0;
	for (size_t i = 0; i < s->n_threads; i++) {
		struct resim_thread *t = &s->threads[i];
		if (t->finished)
			continue;
		uint64_t seq, icount;
		int r = pending_switch(t, &seq, &icount);
		if (r == 0) {
			/* Its stream has ended: its cache goes (it was the
			 * last thing a finished thread held in proportion
			 * to the threads ever made). */
			t->finished = true;
			replay_memory_cache_release(&t->mem);
			continue;
		}
		if (r < 0) {
			if (t->events.failed)
				snprintf(s->error, sizeof(s->error), "cannot read the trace: %s",
					 t->events.error);
			else
				snprintf(s->error, sizeof(s->error),
					 "replay diverged from the trace at time %llu: the stream of "
					 "thread %lld does not wait at a thread switch",
					 (unsigned long long)resim_now(s), (long long)t->tid);
			return -1;
		}
		if (seq < best_seq) {
			best_seq = seq;
			best_icount = icount;
			best_kind = r;
			best = i;
		}
	}
	if (best == s->n_threads)
		return 0;
	struct resim_thread *t = &s->threads[best];
	uint64_t own = resim_thread_icount(s, best);
	if (best_icount != own) {
		snprintf(s->error, sizeof(s->error),
			 "replay diverged from the trace at time %llu: thread %lld resumes at its "
			 "instruction %llu, the replay has it at %llu",
			 (unsigned long long)resim_now(s), (long long)t->tid,
			 (unsigned long long)best_icount, (unsigned long long)own);
		return -1;
	}
	/* A SWITCH frame is consumed; a first checkpoint is applied by the
	 * event loop, as the thread's first event. */
	if (best_kind == 1) {
		cursor_next(&t->events);
		/* As the recorder did at the switch (man/idna.5, RING MODE). */
		if (idna_reader_switch_unlogs_code(s->reader)) {
			code_page_set_clear(s->proc.code_pages);
			emu_refetch_code(s->cpu);
		}
	}
	if (replay_memory_cache_acquire(&t->mem) != 0) {
		snprintf(s->error, sizeof(s->error), "out of memory");
		return -1;
	}
	if (best != s->current) {
		switch_to(s, best);
		*switched = true;
	} else if (replay_memory_context_stale(&t->mem)) {
		emu_set_memory_context(s->cpu, &t->mem);
	}
	t->started = true;
	t->slice_time = resim_now(s);
	t->slice_icount = own;
	return 1;
}
