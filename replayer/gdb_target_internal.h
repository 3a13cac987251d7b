/*
 * gdb_target_internal.h — what the parts of the gdb target share: its
 * state (breakpoints, the observer of a run, objects read once) and the
 * moves in time the monitor commands reuse.
 */
#ifndef TTREC_GDB_TARGET_INTERNAL_H
#define TTREC_GDB_TARGET_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "gdbstub/target.h"
#include "replayer/gdb_target.h"
#include "replayer/step_history.h"
#include "trace-format/trace_images.h"

struct diversion;

#define MAX_POINTS 64
#define MAX_MARKS 64
#define MAX_OPEN_FILES 64
#define INTERRUPT_CHECK_INTERVAL (1u << 20)

struct point {
	enum gdbstub_break_kind kind;
	uint64_t addr, len;
	unsigned refs;
};

/* What the observer watches for during one run. */
struct run_watch {
	bool record_only;     /* backward search: note hits, never stop */
	uint64_t start;       /* icount where the run began */
	uint64_t start_rip;   /* and the pc there: a breakpoint at it is the
				 one the run starts from (gdb steps over it);
				 a signal's handler starts at the same icount */
	uint64_t limit;       /* backward search: hits must be before this */
	uint64_t started;     /* instructions started one by one in this run */
	bool watch_pending;   /* the last instruction touched a watched range */
	struct gdbstub_stop pending;
	bool have_hit;
	uint64_t hit_icount;
	bool hit_by_kernel;   /* the hit is a KERNEL_WRITE at hit_icount */
	struct gdbstub_stop hit;
	gdbstub_interrupt_fn interrupted;
	void *interrupt_ctx;
	bool was_interrupted;
	bool interrupt_due;   /* gdb interrupted: stop at the next instruction seen */
	uint64_t last_interrupt_check; /* the time gdb's interrupt was last looked for */
};

struct gdb_target {
	struct replay_session *s;
	struct point points[MAX_POINTS];
	size_t n_points;
	struct run_watch *watch;   /* non-NULL during a run */
	uint64_t signal_reported_at; /* time of the last signal stop reported */
	uint64_t passed_signals; /* gdb passes these silently: bit n, signal n */
	/* A forward step that retired its instruction, a signal arriving
	 * after it: the step's stop is reported, the signal stops the next
	 * forward resume from there (gdb_target.c, defer_signal). */
	bool signal_due;
	int signal_due_signo;
	uint64_t signal_due_at;
	/* catch syscall: stop at these (all when n_catch == 0 and catching) */
	bool catching;
	uint64_t catch_nrs[256];
	size_t n_catch;
	char exec_file[4096];
	uint8_t auxv[4096];
	size_t auxv_len;
	char *libraries_xml; /* made from the module list, or NULL */
	/* The program images of the trace (its execve records), the one
	 * this session shows (1-based; 0 asked for the last), and its
	 * history: [begin, end), end UINT64_MAX for the last image
	 * (gdb_images.c). */
	struct idna_images exec_images;
	unsigned images, image;
	uint64_t begin, end;
	/* gdb's console (gdbstub's attach_console): the first pass says there
	 * how far it got, every second, so a long wait is not a silent one
	 * (the stub shows it only where gdb does: in a resume, a step or a
	 * monitor command). */
	gdbstub_print_fn console;
	void *console_ctx;
	/* The user's checkpoints (monitor checkpoint, as rr's): checkpoint N
	 * is the time marks[N - 1] while mark_used[N - 1]. A checkpoint of a
	 * replay is only a time: going back to it is a goto. */
	uint64_t marks[MAX_MARKS];
	bool mark_used[MAX_MARKS];
	/* Files gdb opened (vFile): descriptor + 1 by handle, 0 when free. */
	int open_files[MAX_OPEN_FILES];
	/* States kept near recent positions: backward moves start there. */
	struct step_history near;
	/* Segments forward continues went over by their summaries
	 * (search_forward.c), for monitor info. */
	uint64_t segments_skipped;
	/* The same for backward searches (target_backward). */
	uint64_t segments_skipped_back;
	/* What gdb changed (a function it calls, `set var`), run apart from
	 * the replay (gdb_diversion.c); NULL: the recording as it was. */
	struct diversion *div;
	bool div_regs_changed; /* its thread's registers differ (or did) */
	/* Inside a rep string instruction (gdb_rep_steps.c): the replay at
	 * its start, `div` its thread after rep_done iterations of `rep`;
	 * 0 when not inside one. */
	uint64_t rep_done;
	struct emu_rep_string rep;
	/* The last stop at a syscall's entry or return (catch syscall): while
	 * the replay is still there, gdb reads the registers a live process
	 * shows at that ptrace stop (orig_rax the number; at the entry, rax
	 * -ENOSYS), not the emulator's. */
	bool syscall_stop_valid, syscall_stop_entry;
	uint64_t syscall_stop_time, syscall_stop_nr;
	size_t syscall_stop_thread;
	/* Backward single steps undone from near.undo (gdb_undo.c): the
	 * session shows time undo_at, the replay standing at the log's end. */
	bool undo_active;
	uint64_t undo_at;
	bool undo_off; /* monitor undo-log off: every move replays */
};

/* gdb_undo.c. A backward single step of thread k as an undo, when the
 * last backward step's log covers it: 1 (the stop in *stop), else 0. */
int target_undo_step(struct gdb_target *t, size_t k, struct gdbstub_stop *stop);
/* A backward continue as an undo, when walking the log back from the time
 * shown meets a breakpoint or a watched access before the log's start
 * (where the replay's search would stop): 1 (the stop in *stop), else 0. */
int target_undo_continue(struct gdb_target *t, struct gdbstub_stop *stop);
/* Brings the replay to the time the session shows, and forgets the log:
 * before anything but the reads, undo steps and bookkeeping below. 0, or
 * -1 (reported on stderr). */
int target_undo_settle(struct gdb_target *t);
/* The time shown; thread k's registers and the memory there, when an
 * undo is shown (else false: the replay's). */
uint64_t target_shown_time(const struct gdb_target *t);
bool target_undo_regs(const struct gdb_target *t, size_t k, struct gdbstub_regs *out);
bool target_undo_memory(const struct gdb_target *t, uint64_t addr, void *buf, size_t len,
			size_t *done);

/* Makes sure the first pass has run, before anything that needs the whole
 * history (its end, snapshots, segment summaries, any time but the start).
 * 0, or -1 (reported on stderr). */
int target_whole_history(struct gdb_target *t);
/* The same, stopping when interrupted() says so: then 1, the pass not
 * finished and the time unchanged. */
int target_whole_history_interruptible(struct gdb_target *t, gdbstub_interrupt_fn interrupted,
				       void *interrupt_ctx);
/* The thread running now, and the first time of the history. */
int64_t target_current_tid(const struct gdb_target *t);
uint64_t target_history_begin(const struct gdb_target *t);
/* A stop of this reason in the running thread. */
void target_edge_stop(const struct gdb_target *t, struct gdbstub_stop *stop, enum gdbstub_stop_reason why);
/* A stop at the syscall edge the replay is at (st: RESIM_SYSCALL_ENTRY or
 * _RETURN), noted for the registers gdb reads there. */
void target_syscall_stop(struct gdb_target *t, struct gdbstub_stop *stop, int entry);
/* Thread k's registers as recorded, as gdb is shown them (at a syscall
 * stop, with what a live process shows there). */
void target_recorded_regs(const struct gdb_target *t, size_t k, struct gdbstub_regs *out);
/* Runs forward to `target` (UINT64_MAX: until something stops it), or
 * back to the last breakpoint or watched access before `before`
 * (any_point_counts false: to before - 1; events_count: received signals
 * and caught syscalls stop it too, as reverse-continue wants). 0 with
 * *stop, or -1. */
int target_forward(struct gdb_target *t, uint64_t target, gdbstub_interrupt_fn interrupted,
	    void *interrupt_ctx, struct gdbstub_stop *stop);
int target_backward(struct gdb_target *t, uint64_t before, bool any_point_counts,
		    bool events_count, struct gdbstub_stop *stop);
/* gdb_files.c: the target's Host I/O callbacks (target.h), closing what
 * gdb left open, and the warning about files not as recorded. */
int target_file_open(void *ctx, const char *path);
int64_t target_file_pread(void *ctx, int handle, void *buf, size_t len, uint64_t offset);
int64_t target_file_size(void *ctx, int handle);
int target_file_close(void *ctx, int handle);
void target_files_close_all(struct gdb_target *t);
void target_files_check(struct gdb_target *t);
/* Whether `catch syscall` stops at syscall nr. */
bool target_syscall_caught(const struct gdb_target *t, uint64_t nr);

/* Whether segment k (from snapshot k to the next) can hold a hit of a
 * breakpoint or watchpoint, from the first pass's summaries of the pages
 * each segment executed, wrote and read (an access watchpoint: wrote or
 * read). */
bool target_segment_may_hit(const struct gdb_target *t, size_t k);

/* The execution breakpoint at rip, or NULL. */
const struct point *target_breakpoint_at(const struct gdb_target *t, uint64_t rip);
/* The first watchpoint an access of len bytes at addr triggers, or NULL. */
const struct point *target_watch_hit(const struct gdb_target *t, uint64_t addr, size_t len,
				     bool write);

/* gdb_diversion.c: gdb's writes (target.h's write_registers and
 * write_memory) start a diversion; a resume or step in direction dir
 * either runs in it (true) or first ends it (false: the diversion is
 * over, if there was one; a step of thread tid, one that is not the
 * diversion's, stays where it is); target_end_diversion ends it, saying why on
 * gdb's console (why NULL: silently). */
int target_write_registers(void *ctx, int64_t tid, const struct gdbstub_regs *regs);
int target_write_memory(void *ctx, uint64_t addr, const void *buf, size_t len);
bool target_in_diversion(struct gdb_target *t, enum gdbstub_direction dir);
int target_diversion_run(struct gdb_target *t, bool step, int64_t tid,
			 gdbstub_interrupt_fn interrupted, void *interrupt_ctx,
			 struct gdbstub_stop *stop);
void target_end_diversion(struct gdb_target *t, const char *why);

/* gdb_rep_steps.c: a step of thread k inside a rep string instruction,
 * one iteration each way, as the CPU single-steps it: 1 when done
 * (*stop), 0 when the step is an ordinary one of the replay (the position
 * left, if there was one).
 * target_rep_resume: a continue from inside one (*done: the iterations
 * done there, else 0), which a breakpoint on it stops after one iteration
 * each way, and backwards a watchpoint that an iteration done touched
 * (1); else 0, the position left for the instruction's start.
 * target_rep_watch: after a forward continue or step (step), a
 * watchpoint hit by a rep string instruction stops after the iteration
 * that touched a watched byte (the move began at time resumed_at,
 * resumed_done iterations into one, or 0); 1 when only iterations done
 * before the continue did: it goes on from there.
 * target_rep_land: after a backward step or continue that stopped at
 * thread k's rep instruction it had run (stop), to its last iteration
 * instead, or for a watchpoint, before the last iteration that touched a
 * watched byte. */
int target_rep_step(struct gdb_target *t, size_t k, enum gdbstub_direction dir,
		    struct gdbstub_stop *stop);
int target_rep_resume(struct gdb_target *t, enum gdbstub_direction dir, struct gdbstub_stop *stop,
		      uint64_t *done);
int target_rep_watch(struct gdb_target *t, struct gdbstub_stop *stop, uint64_t resumed_at,
		     uint64_t resumed_done, bool step);
void target_rep_land(struct gdb_target *t, size_t k, struct gdbstub_stop *stop);
/* A position inside one kept across what runs the replay from the
 * instruction's start (a monitor command): back inside when the replay
 * is still there. */
struct rep_position {
	uint64_t time, done;
	size_t thread;
	struct emu_rep_string rep;
};
void target_rep_save(const struct gdb_target *t, struct rep_position *p);
void target_rep_restore(struct gdb_target *t, const struct rep_position *p);

/* gdb_monitor.c: the monitor commands the stub leaves to the target. */
int gdb_target_monitor(void *ctx, const char *command, gdbstub_print_fn print, void *print_ctx);
const char *gdb_target_monitor_help(void *ctx);

/* gdb_images.c: the image this session shows (t->image) and its path,
 * read once; standing at its start, with its end found; its last time
 * (UINT64_MAX: the trace's end); a run's target bounded by it; whether
 * the replay stands there; the console line that says so. */
void gdb_target_find_exec_file(struct gdb_target *t);
int target_start_at_image(struct gdb_target *t);
uint64_t target_history_last(const struct gdb_target *t);
uint64_t target_image_bound(const struct gdb_target *t, uint64_t target);
bool target_at_image_end(const struct gdb_target *t);
void target_say_image_end(struct gdb_target *t);

/* gdb_objects.c: the program's auxiliary vector, read once. */
void gdb_target_find_auxv(struct gdb_target *t);
/* When the initial stack is not known (a ring dropped the trace's start):
 * the auxiliary vector and the library list from the mapped images. */
void gdb_target_images_from_modules(struct gdb_target *t);

#endif
