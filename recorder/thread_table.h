/*
 * thread_table.h — the threads of the recorded process and the scheduling
 * policy (thread_table.c): data and decisions; it runs nothing itself.
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_THREAD_TABLE_H
#define TTREC_THREAD_TABLE_H

#include "recorder/recording_internal.h"

/* What the table hands up to the recording's owner instead of calling it:
 * thread_table.c calls nothing of the trace's or follow_fork.c's
 * (tests/recorder_calls.sh).
 * recording.c fills rec->table_hooks. */
struct thread_table_hooks {
	/* A thread was born (t: its first state) or has ended: logged. */
	int (*thread_created)(struct recording *rec, const struct rec_thread *t, pid_t parent);
	int (*thread_exited)(struct recording *rec, const struct rec_thread *t, int64_t status);
	/* A wait reported pid, which is none of the threads: true when it
	 * was a child of ttrec's own (a --follow-fork child's recorder). */
	bool (*other_child_reaped)(struct recording *rec, pid_t pid, int status);
};


/* Adds a thread (stopped, regs are its first state) with the next stream.
 * NULL when memory is short (the recording fails). */
struct rec_thread *threads_add(struct recording *rec, pid_t tid);
struct rec_thread *threads_find(struct recording *rec, pid_t tid);
void threads_free(struct recording *rec);
/* Instructions all threads have retired so far. */
uint64_t threads_instructions(const struct recording *rec);
/* Waits for t's next stop, filing the stops of other threads on the way. */
int threads_wait_for(struct recording *rec, struct rec_thread *t, struct tracee_stop *stop);
/* Files the stops already reported, without waiting. 0, or -1. */
int threads_collect_stops(struct recording *rec);
/* Whether the current thread's clone creates a thread (not a process). */
bool threads_clone_is_thread(struct recording *rec);
/* A stop of tid that came before tid was known: 1 with *status, or 0. */
int threads_early_stop(struct recording *rec, pid_t tid, int *status);
/* A clone event on the current thread that made a thread: adopts it. */
int threads_on_clone(struct recording *rec);
/* The task a fork, vfork or clone event of the current thread created,
 * entered in the table and waited for until its first stop; NULL (and
 * *gone set) when it died first or the wait failed. */
struct rec_thread *threads_add_newborn(struct recording *rec, bool *gone);
/* A newborn that is another process, let go: no longer the table's. */
void threads_forget_child(struct recording *rec, struct rec_thread *t);
/* The thread is gone: logged, state GONE. */
int threads_note_exit(struct recording *rec, struct rec_thread *t, int64_t status);
/* What the scheduler chose; the main loop (recording.c) acts on it. The
 * table never runs a thread nor ends the recording itself. */
enum schedule_decision {
	SCHEDULE_ERROR = -1,       /* rec->err set */
	SCHEDULE_RUN,              /* *next is runnable (NULL: rec->finished) */
	SCHEDULE_STEP_STOPPED,     /* *next's native step stopped as *stop
				    * says: the loop goes on with the step */
	SCHEDULE_PROCESS_ENDED,    /* the last thread ended as *stop says */
	SCHEDULE_WAIT_INTERRUPTED, /* a signal to ttrec cut the wait short:
				    * the loop's signal-poll point, then again */
};
/* Picks the thread to run next (*next; the loop switches to it), waiting
 * for a stop of a thread in the kernel when none can run. */
enum schedule_decision threads_schedule(struct recording *rec, struct rec_thread **next,
					struct tracee_stop *stop);

#endif
