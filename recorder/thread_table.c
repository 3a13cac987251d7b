/*
 * thread_table.c — the threads of the recorded process and the scheduler
 * that runs them one at a time on the emulator.
 *
 * Emulation is serialised: one emulator runs one thread's slice at a time,
 * so every memory access of every thread has a place in one global order,
 * and LOCK-prefixed instructions, XCHG and fences need nothing more than
 * they do single-threaded. The trace gives that order with a SWITCH key
 * frame (global sequence number, the thread's instruction count) opening
 * each slice (man/idna.5, Threads). A slice ends when its time is up, or
 * when its thread waits in the kernel (native_step.c puts such a syscall
 * in the background); a thread whose syscall ended is resumed when its
 * turn comes.
 *
 * Stops of threads other than the one waited for are never lost: every
 * wait takes whichever traced thread reports and files the stop with its
 * thread (THREAD_EVENT).
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "recorder/recording_internal.h"
#include "recorder/thread_regs.h"
#include "recorder/thread_table.h"

#define CLONE_THREAD_FLAG 0x10000ul

struct rec_thread *threads_find(struct recording *rec, pid_t tid)
{
	for (size_t i = 0; i < rec->n_threads; i++)
		if (rec->threads[i]->tracee.pid == tid && rec->threads[i]->state != THREAD_GONE)
			return rec->threads[i];
	return NULL;
}

struct rec_thread *threads_add(struct recording *rec, pid_t tid)
{
	if (rec->n_threads == rec->cap_threads) {
		size_t cap = rec->cap_threads ? rec->cap_threads * 2 : 8;
		struct rec_thread **grown = realloc(rec->threads, cap * sizeof(*grown));
		if (!grown)
			return NULL;
		rec->threads = grown;
		rec->cap_threads = cap;
	}
	struct rec_thread *t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	unsigned log2 = rec->opt->cache_log2_entries ? rec->opt->cache_log2_entries
						     : PREDICT_CACHE_DEFAULT_LOG2;
	t->stream = rec->next_stream++;
	t->tracee.pid = tid;
	t->tracee.alive = true;
	t->tracee.xstate_size = rec->tracee.xstate_size;
	struct traced_memory *sibling = rec->n_threads ? &rec->threads[0]->tm : NULL;
	if (traced_memory_init(&t->tm, rec->mirror, rec->writer, t->stream, log2, sibling) != 0) {
		free(t);
		return NULL;
	}
	rec->threads[rec->n_threads++] = t;
	rec->live_threads++;
	return t;
}

uint64_t threads_instructions(const struct recording *rec)
{
	uint64_t n = 0;
	for (size_t i = 0; i < rec->n_threads; i++) {
		const struct rec_thread *t = rec->threads[i];
		n += t == rec->cur && rec->cpu ? emu_icount(rec->cpu) : t->icount;
	}
	return n;
}

void threads_free(struct recording *rec)
{
	/* The first thread owns the shared code-page set: last. */
	for (size_t i = rec->n_threads; i-- > 0;) {
		traced_memory_fini(&rec->threads[i]->tm);
		free(rec->threads[i]);
	}
	free(rec->threads);
	rec->threads = NULL;
	rec->n_threads = rec->cap_threads = 0;
}

/* t is no longer ours (it died, or is another process's thread). */
static void forget_thread(struct recording *rec, struct rec_thread *t)
{
	t->state = THREAD_GONE;
	t->tracee.alive = false;
	rec->live_threads--;
}

int threads_note_exit(struct recording *rec, struct rec_thread *t, int64_t status)
{
	if (t->state == THREAD_GONE)
		return 0;
	forget_thread(rec, t);
	/* The kernel cleared its tid word (CLONE_CHILD_CLEARTID) to wake a
	 * join: what the mirror holds of it is stale. Dirty bytes go back
	 * first, unless the process is ending and no other one sees its
	 * memory. */
	bool dying_alone = (rec->exiting || rec->live_threads == 0) && rec->memory_ours_alone &&
			   !rec->memory_shared_with_process;
	if (dying_alone || memory_mirror_flush(rec->mirror) == 0)
		memory_mirror_invalidate(rec->mirror, 0, UINT64_MAX);
	/* What it held in proportion to the threads ever made goes: its
	 * prediction cache (its counts stay, for the summary) and its
	 * stream's open chunk, which goes to the file now (in a ring too:
	 * its chunk may then be evicted earlier, which a switch un-logging
	 * the code pages makes safe; tests/ring_threads.sh). */
	predict_cache_fini(&t->tm.cache);
	if (idna_writer_end_stream(rec->writer, t->stream) != 0)
		t->tm.failed = 1;
	return rec->table_hooks->thread_exited(rec, t, status);
}

/* The thread in an execve that another thread's id now reports: when a
 * thread other than the leader execs, the kernel ends every other thread
 * and gives it the leader's id (its own is never reported again). */
static struct rec_thread *thread_taking_over(struct recording *rec)
{
	for (size_t i = 0; i < rec->n_threads; i++) {
		struct rec_thread *t = rec->threads[i];
		if (t->state != THREAD_GONE && t->tracee.pid != rec->tracee.pid && t->native.syscall &&
		    (t->native.nr == SYS_execve || t->native.nr == SYS_execveat))
			return t;
	}
	return NULL;
}

/* Files a stop reported for tid with its thread. Exits are dealt with at
 * once; anything else waits for the thread's turn. */
static int file_stop(struct recording *rec, pid_t tid, int status)
{
	if (tid == rec->tracee.pid && status >> 16 == PTRACE_EVENT_EXEC) {
		struct rec_thread *execer = thread_taking_over(rec);
		if (execer) {
			struct rec_thread *leader = threads_find(rec, tid);
			if (leader)
				threads_note_exit(rec, leader, 0);
			execer->tracee.pid = tid;
		}
	}
	struct rec_thread *t = threads_find(rec, tid);
	if (!t && rec->table_hooks->other_child_reaped(rec, tid, status))
		return 0;
	if (!t) {
		/* A thread being born, or one already accounted for. */
		if (rec->n_early_stops < sizeof(rec->early_stops) / sizeof(rec->early_stops[0])) {
			rec->early_stops[rec->n_early_stops].tid = tid;
			rec->early_stops[rec->n_early_stops++].status = status;
		}
		return 0;
	}
	struct tracee_stop stop;
	if (tracee_decode_status(&t->tracee, status, &stop) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read a thread's stop: %s",
				      strerror(errno));
	if (stop.kind == TRACEE_STOP_EXITED || stop.kind == TRACEE_STOP_KILLED) {
		if (t->tracee.pid == rec->tracee.pid) {
			/* The leader's status comes last: the process is over. */
			t->state = THREAD_EVENT;
			t->stop = stop;
			return 0;
		}
		int64_t st = stop.kind == TRACEE_STOP_EXITED ? (int64_t)stop.exit_status << 8
							     : stop.info.si_signo;
		if (stop.kind == TRACEE_STOP_KILLED)
			rec->exiting = true;
		return threads_note_exit(rec, t, st);
	}
	t->state = THREAD_EVENT;
	t->stop = stop;
	return 0;
}

int threads_wait_for(struct recording *rec, struct rec_thread *t, struct tracee_stop *stop)
{
	for (;;) {
		if (t->state == THREAD_EVENT) {
			*stop = t->stop;
			t->state = THREAD_RUNNABLE;
			return 0;
		}
		if (t->state == THREAD_GONE) {
			memset(stop, 0, sizeof(*stop));
			stop->kind = TRACEE_STOP_EXITED;
			return 0;
		}
		pid_t tid;
		int status;
		if (tracee_wait_any(&tid, &status, false) != 0)
			return -1;
		if (tid == t->tracee.pid) {
			t->state = THREAD_RUNNABLE;
			return tracee_decode_status(&t->tracee, status, stop);
		}
		if (file_stop(rec, tid, status) != 0)
			return -1;
	}
}

int threads_collect_stops(struct recording *rec)
{
	for (;;) {
		int status;
		pid_t tid = waitpid(-1, &status, __WALL | WNOHANG);
		if (tid <= 0)
			return 0;
		if (file_stop(rec, tid, status) != 0)
			return -1;
	}
}

bool threads_clone_is_thread(struct recording *rec)
{
	const struct native_progress *p = &rec->cur->native;
	uint64_t flags = 0;
	if (p->nr == SYS_clone)
		flags = p->args[0];
	else if (p->nr == SYS_clone3)
		remote_memory_read(&rec->rm, p->args[0], &flags, sizeof(flags));
	return flags & CLONE_THREAD_FLAG;
}

int threads_early_stop(struct recording *rec, pid_t tid, int *status)
{
	for (size_t i = 0; i < rec->n_early_stops; i++)
		if (rec->early_stops[i].tid == tid) {
			*status = rec->early_stops[i].status;
			rec->early_stops[i] = rec->early_stops[--rec->n_early_stops];
			return 1;
		}
	return 0;
}

struct rec_thread *threads_add_newborn(struct recording *rec, bool *gone)
{
	unsigned long tid;
	*gone = false;
	if (tracee_event_message(&rec->cur->tracee, &tid) != 0) {
		recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the new thread's id: %s",
			       strerror(errno));
		return NULL;
	}
	struct rec_thread *t = threads_add(rec, (pid_t)tid);
	if (!t) {
		recording_fail(rec, RECORD_ERR_NO_MEMORY, "out of memory");
		return NULL;
	}
	int early;
	if (threads_early_stop(rec, t->tracee.pid, &early) && file_stop(rec, t->tracee.pid, early) != 0)
		return NULL;
	struct tracee_stop first;
	if (threads_wait_for(rec, t, &first) != 0 || first.kind == TRACEE_STOP_EXITED ||
	    first.kind == TRACEE_STOP_KILLED) {
		/* Gone before it ran (a group exit under way): it has no
		 * thread-create, so no thread-exit either. */
		forget_thread(rec, t);
		*gone = true;
		return NULL;
	}
	return t;
}

int threads_on_clone(struct recording *rec)
{
	bool gone;
	struct rec_thread *t = threads_add_newborn(rec, &gone);
	if (!t)
		return gone ? 0 : -1;
	struct user_regs_struct k;
	if (tracee_get_regs(&t->tracee, &k) != 0 || tracee_get_xstate(&t->tracee, t->xstate) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the new thread's registers: %s",
				      strerror(errno));
	recording_regs_from_kernel(rec, &k, t->xstate, &t->regs);
	t->tsc_faults = rec->cur->tsc_faults; /* the kernel's flag is copied too */
	t->icount = 0;
	t->next_checkpoint = 0;
	t->state = THREAD_RUNNABLE;
	/* Natively the parent runs on after a clone: while it was alone, its
	 * turn was not counted, so it starts now. */
	if (rec->live_threads == 2)
		rec->slice_restart = true;
	return rec->table_hooks->thread_created(rec, t, rec->cur->tracee.pid);
}

void threads_forget_child(struct recording *rec, struct rec_thread *t)
{
	forget_thread(rec, t);
	t->child_process = true;
}

/* The next thread that can run, round robin after the current one (which
 * comes last); with --chaos, from a thread picked at random. */
static struct rec_thread *next_ready(struct recording *rec)
{
	size_t start = 0;
	for (size_t i = 0; i < rec->n_threads; i++)
		if (rec->threads[i] == rec->cur)
			start = i + 1;
	if (rec->chaos.on && rec->n_threads)
		start = chaos_pick(&rec->chaos, rec->n_threads);
	for (size_t k = 0; k < rec->n_threads; k++) {
		struct rec_thread *t = rec->threads[(start + k) % rec->n_threads];
		if (t->state == THREAD_EVENT || (t->state == THREAD_RUNNABLE && !rec->exiting))
			return t;
	}
	return NULL;
}

enum schedule_decision threads_schedule(struct recording *rec, struct rec_thread **next,
					struct tracee_stop *stop)
{
	while (!rec->finished) {
		if (rec->n_threads > 1 && threads_collect_stops(rec) != 0)
			return SCHEDULE_ERROR;
		struct rec_thread *t = next_ready(rec);
		if (!t) {
			pid_t tid;
			int status;
			if (rec->live_threads == 0) {
				recording_fail(rec, RECORD_ERR_PTRACE, "every thread is gone");
				return SCHEDULE_ERROR;
			}
			if (tracee_wait_any(&tid, &status, true) != 0) {
				if (errno != EINTR) {
					recording_fail(rec, RECORD_ERR_PTRACE,
						       "cannot wait for the program: %s", strerror(errno));
					return SCHEDULE_ERROR;
				}
				/* ttrec attach: SIGINT or SIGTERM asks to stop. */
				return SCHEDULE_WAIT_INTERRUPTED;
			}
			if (file_stop(rec, tid, status) != 0)
				return SCHEDULE_ERROR;
			continue;
		}
		*next = t;
		if (t->state == THREAD_RUNNABLE)
			return SCHEDULE_RUN;
		/* A stop of a step in progress (a syscall's end, a signal). */
		*stop = t->stop;
		t->state = THREAD_RUNNABLE;
		if (stop->kind == TRACEE_STOP_EXITED || stop->kind == TRACEE_STOP_KILLED) {
			/* The leader, last: the process ended. No slice of it
			 * is logged: history ends with the thread that ran
			 * last (the one that called exit, or took the fatal
			 * signal), not with one that died waiting. */
			return SCHEDULE_PROCESS_ENDED;
		}
		return SCHEDULE_STEP_STOPPED;
	}
	*next = NULL;
	return SCHEDULE_RUN; /* the recording is over: the caller sees rec->finished */
}
