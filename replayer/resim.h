/*
 * resim.h — re-simulation of a recorded process: the emulator runs the
 * recorded instructions again, its reads answered by each thread's
 * prediction cache and log, its kernel transitions and non-deterministic
 * instructions replaced by their logged results (DESIGN.md, Replaying).
 * Nothing from the trace is ever executed natively.
 *
 * One emulator (one set of decoded code) and one memory image serve all
 * threads; each thread has its own stream, registers, instruction count and
 * prediction cache. Threads run one at a time in the order the recording
 * ran them (man/idna.5, THREADS). Time is the process's global clock: the
 * instructions retired by all threads so far. With one thread it is that
 * thread's instruction count.
 */
#ifndef TTREC_RESIM_H
#define TTREC_RESIM_H

#include <stdbool.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "replayer/record_cursor.h"
#include "replayer/replay_memory.h"
#include "replayer/sparse_copy.h"
#include "trace-format/idna.h"

/* The gdb thread id of the initial thread when the trace does not name
 * it (format 1.1 and older; else it is the recorded pid). */
#define RESIM_INITIAL_TID 1
/* Its stream (man/idna.5, THREADS). */
#define RESIM_INITIAL_STREAM 1

/* What a re-simulation has passed so far, saved and restored whole. */
struct resim_counts {
	uint64_t syscalls, signals, checkpoints, native_steps;
	int last_signal;           /* the last SIGNAL record passed, 0 if none */
	uint64_t last_signal_time;
	uint64_t execs;            /* successful execve calls passed */
	uint64_t last_exec_time;   /* the first instruction of the last one's image */
};

enum resim_status {
	RESIM_AT_TARGET,  /* the requested time was reached */
	RESIM_STOPPED,    /* the observer stopped it (breakpoint, watchpoint) */
	RESIM_SIGNAL,     /* stop_at_signals: a signal is delivered here next */
	RESIM_SYSCALL_ENTRY,  /* stop_at_syscalls: syscall_nr is made here next */
	RESIM_SYSCALL_RETURN, /* stop_at_syscalls: syscall_nr has just returned */
	RESIM_SWITCHED,   /* stop_at_switch: another thread runs from here */
	RESIM_END,        /* the recorded history ends here */
	RESIM_ERROR,      /* the trace and the replay disagree, or it is unreadable */
};

/* One thread of the replayed process. While it runs, its registers and
 * instruction count live in the emulator; otherwise here. */
struct resim_thread {
	int64_t tid;
	uint32_t stream;
	struct replay_memory mem;      /* the emulator's memory context while it runs */
	struct record_cursor events;   /* CURSOR_EVENTS */
	struct emu_regs regs;
	uint64_t icount;               /* its own retired instructions */
	bool started;                  /* its first slice has begun */
	/* Its clone has returned in the parent: it exists (gdb lists it)
	 * though its first slice may not have begun yet. */
	bool created;
	bool finished;                 /* its stream has ended */
	/* Where its replay begins: NULL at the stream's start, else the
	 * first checkpoint a ring trace kept of it. */
	const struct idna_checkpoint *first;
	bool exit_recorded;            /* the global stream has its THREAD_EXIT */
	int64_t exit_status;           /* ... with this status */
	/* Where its latest slice began: global time and its own count. */
	uint64_t slice_time, slice_icount;
	/* The largest instruction count its stream declares (key frames,
	 * checkpoints), found when first needed (resim_bounds.c). */
	uint64_t declared_end;
	bool declared_end_known;
	/* The wait for a nondet record's special instruction that runs
	 * unbounded by declared_end: its record's number among the events
	 * taken, plus one (0: none), and the count it may run to
	 * (resim_wait_budget). */
	uint64_t wait_record;
	uint64_t wait_until;
};

struct resim {
	struct idna_reader *reader;
	struct emu_cpu *cpu;
	struct process_memory proc;
	struct resim_thread *threads;  /* by stream number order; never moved */
	size_t n_threads;
	size_t current;                /* the thread the emulator runs */
	uint64_t clock_offset;         /* time = emu_icount(cpu) + clock_offset */
	bool ended;
	/* A ring trace: some streams begin at a checkpoint, and history at
	 * the first of them (time 0). */
	bool ring_start;
	char error[320];
	struct resim_counts counts;
	bool stop_at_signals;     /* return RESIM_SIGNAL before each delivery */
	bool stop_at_syscalls;    /* return at each syscall's entry and return */
	bool stop_at_switch;      /* return RESIM_SWITCHED when another thread takes over */
	bool syscall_entry_reported;
	uint64_t syscall_nr;      /* of the last RESIM_SYSCALL_* */
	/* True while a KERNEL_WRITE record is applied: an observed write is
	 * the kernel's, at the transition about to happen. */
	bool in_kernel_write;
	/* Return RESIM_STOPPED at the next KERNEL_WRITE record, before it
	 * applies: the only state before a transition's writes at its time
	 * (the state at a time is taken after its events). */
	bool stop_before_kernel_write;
	/* Called when the run reaches an instruction the trace retires (a
	 * syscall, a natively run instruction), before it does: the emulator
	 * never starts those, so its observer's insn_start does not see them.
	 * Returning true stops the run there (RESIM_STOPPED). */
	bool (*at_retired_insn)(void *ctx, uint64_t rip);
	void *retired_insn_ctx;
	/* A syscall's KERNEL_WRITE records have begun to apply: the rest of
	 * its transition follows without another look at the instruction. */
	bool transition_begun;
	/* A signal stop (RESIM_SIGNAL) was returned and its delivery has not
	 * applied yet: the program stands where the signal arrived. */
	bool delivery_pending;
	/* The time of the last signal delivery applied (UINT64_MAX: none
	 * seen by this resim): the state at that time is the handler's
	 * first instruction, and the signal's arrival is just before it. */
	uint64_t last_delivery_at;
	/* Kept by the first pass's search for cuts (resim_cut.c), freed
	 * with the replay. */
	struct resim_cut_memo *cut_memo;
};

/*
 * Starts at the beginning of every thread's stream with `image` as the
 * memory known so far (the resim owns it from then on). With `jit`, the
 * emulator translates hot blocks (emu_set_jit) whenever nothing observes
 * the run; the replay is the same either way. 0, or -1 with s->error set.
 */
int resim_open(struct resim *s, struct idna_reader *reader, unsigned cache_log2, bool jit,
	       struct memory_image *image);
void resim_close(struct resim *s);
/* resim_open for a replay that resim_open_state goes on to restore (no
 * thread's prediction cache is made: the restore makes them), its threads
 * taking their cache tables from `spares` before allocating any; the
 * replay owns them from then on. NULL: resim_open. */
int resim_open_carrying(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
			bool jit, struct memory_image *image, struct predict_spares *spares);

/* Starts a replay at checkpoint cp (the first pass's workers,
 * pass_parallel.c): time as in the whole replay. With several threads,
 * only where resim_cut_plan finds a cut. 0, or -1 with s->error set. */
int resim_open_at_checkpoint(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
			     bool jit, struct memory_image *image, const struct idna_checkpoint *cp);

/* Per-thread part of a saved state. */
struct resim_thread_state {
	struct emu_regs regs;
	uint64_t icount;
	bool started, finished, created;
	uint64_t slice_time, slice_icount;
	struct sparse_copy cache; /* blocks NULL when the thread is not live */
	uint64_t cache_hits, cache_misses, cache_hits_since_miss;
	struct cursor_position memory_pos, events_pos;
	uint64_t declared_end;    /* kept, so that no restore scans again */
	bool declared_end_known;
};

/*
 * Everything a re-simulation needs to resume at one time: taken by the
 * first pass every few million instructions, so that going back in time
 * replays at most that far (trace checkpoints can be much rarer).
 */
struct resim_state {
	uint64_t time;
	size_t n_threads, current;
	struct resim_thread_state *threads;
	uint64_t clock_offset;
	struct code_page_set *code_pages;
	uint64_t transition_time;
	struct resim_counts counts;
	struct memory_image *image;
};

/* Saves the current state (its image shares pages with the live one).
 * 0, or -1 when memory is short or the trace could not be read. */
int resim_save(struct resim *s, struct resim_state *out);
void resim_state_free(struct resim_state *st);

/* Starts a re-simulation at a saved state (with a copy of its image). */
int resim_open_state(struct resim *s, struct idna_reader *reader, unsigned cache_log2,
		     bool jit, const struct resim_state *st);
/* Closes the open re-simulation s and starts it again at saved state st
 * of the same trace, as resim_close and resim_open_state do, its threads'
 * prediction-cache tables kept for the new one (a backward step restores
 * a state each time: step_history.c). Decoded code is not kept: the new
 * replay fetches it again as the trace says. 0, or -1 with s->error. */
int resim_reopen_state(struct resim *s, unsigned cache_log2, bool jit,
		       const struct resim_state *st);

/* Runs until the global time reaches target, the observer stops it, or
 * history ends. */
enum resim_status resim_run(struct resim *s, uint64_t target);

static inline uint64_t resim_now(const struct resim *s)
{
	return emu_icount(s->cpu) + s->clock_offset;
}

static inline struct resim_thread *resim_current(struct resim *s)
{
	return &s->threads[s->current];
}

/* --- cuts (resim_cut.c) ------------------------------------------------ */

struct resim_cut_memo;

/* What a replay started at a cut knows of one thread there. */
struct resim_cut_thread {
	/* The checkpoint it starts at (the cut's own for the thread that
	 * runs there; a waiting thread's next slice begins with it), or
	 * NULL: exited, or it begins after the cut. */
	const struct idna_checkpoint *start;
	bool exited;      /* its stream ended before the cut */
	uint64_t icount;  /* its count at the cut */
	/* It begins after the cut, and its clone returned before it. */
	bool created;
	/* start is its last checkpoint before the cut: it has run nothing
	 * since (its next slice need not begin with one, and it may have no
	 * later checkpoint); it begins at the cut, not waiting. */
	bool idle;
};

/* Whether a replay of a trace of several threads can start at checkpoint
 * cp: every other thread that has begun by then waits, and its next slice
 * begins with a checkpoint, or its stream has ended (resim_cut.c); those
 * that have not begun start at their stream's start. out[i] (room for
 * s->n_threads): thread i there; *time: the global time there. 0, or -1
 * when cp cuts no such place. */
int resim_cut_plan(const struct resim *s, const struct idna_checkpoint *cp,
		   struct resim_cut_memo *memo, struct resim_cut_thread *out, uint64_t *time);
/* What resim_cut_plan learns of each checkpoint's stream, kept for its
 * calls on the other checkpoints of one trace (memo NULL: none kept):
 * each waiting thread's stream is then read once per checkpoint, not once
 * per cut tried. NULL when memory is short. */
struct resim_cut_memo *resim_cut_memo_new(const struct resim *s);
void resim_cut_memo_free(struct resim_cut_memo *m);
/* The time of a cut resim_cut_plan found at cp, the streams read again
 * only where s->cut_memo has not kept what they said. 0, or -1. */
int resim_cut_time(const struct resim *s, const struct idna_checkpoint *cp, uint64_t *time);
/* Whether a thread of a replay started at a cut still waits for its
 * checkpoint: its state is then not this replay's to know. */
bool resim_cut_pending(const struct resim *s);
/* resim_open_at_checkpoint's part for several threads, after the thread
 * table is made. 0, or -1 with s->error. */
int resim_start_at_cut(struct resim *s, const struct idna_checkpoint *cp);

/* --- bounds (resim_bounds.c) ------------------------------------------ */

/* The largest instruction count the running thread's stream declares: no
 * replay of that thread runs past it, whatever code a damaged or hostile
 * trace holds (`jmp $`). 0, or -1 with s->error. */
int resim_declared_end(struct resim *s, uint64_t *end);

/* How many instructions the running thread, at its own count `own`, may
 * run while a nondet record waits for its special instruction: *budget
 * lowered to that. 0; 1 when the thread is at its declared end (the
 * trace cannot explain the run); -1 with s->error. */
int resim_wait_budget(struct resim *s, uint64_t own, uint64_t *budget);

/* --- threads (resim_threads.c) --------------------------------------- */

/* Builds the thread table from the trace: one thread per stream. */
/* With initial_cache, the initial thread gets its (empty) prediction
 * cache; a replay started at a saved state restores it instead. */
int resim_threads_open(struct resim *s, unsigned cache_log2, bool initial_cache);
void resim_threads_close(struct resim *s);

/* Whether thread i exists at the current time. */
bool resim_thread_alive(const struct resim *s, size_t i);
/* The index of the thread with this tid, or -1. */
long resim_thread_index(const struct resim *s, int64_t tid);
/* Thread i's registers and instruction count now (the emulator's for the
 * running thread; a thread created but not yet run: its first ones). */
const struct emu_regs *resim_thread_regs(struct resim *s, size_t i);
uint64_t resim_thread_icount(const struct resim *s, size_t i);

/* A clone (or clone3) system call of the running thread returned result:
 * the thread with that tid exists from now on. */
void resim_note_clone(struct resim *s, int64_t result);

/*
 * The current thread's slice ended (or its stream did): runs the thread
 * whose pending SWITCH key frame comes first in the recording. 1 if a
 * thread runs on (*switched: another one than before), 0 when no stream
 * has anything left, -1 on error (s->error).
 */
int resim_schedule(struct resim *s, bool *switched);

#endif
