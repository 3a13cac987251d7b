/*
 * gdb_target.c — time travel for gdb over a replay session.
 *
 * Forward: run with an observer that stops before an instruction at a
 * breakpoint, or after one that touched a watched range. Backward: replay
 * the segments between snapshots from the latest down, noting the last
 * breakpoint or watched access before the starting time; go there.
 *
 * Time is the process's global clock; every stop names the thread running
 * then. The first pass waits until something needs the whole history
 * (target_whole_history): a backward move, the end of history, most
 * monitor commands; forward moves run it on only as far as they go
 * (pass_ahead.h). A step moves time until the thread stepped has retired one
 * instruction, whatever the others did in between (as they did when
 * recording).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gdbstub/gdbstub.h"
#include "gdbstub/regs_from_emu.h"
#include "replayer/diversion.h"
#include "replayer/gdb_events_back.h"
#include "replayer/gdb_target_internal.h"
#include "replayer/pass_ahead.h"
#include "replayer/search_forward.h"
#include "replayer/stderr_to_tty.h"

/* --- what the debugger reads ------------------------------------------ */

int64_t target_current_tid(const struct gdb_target *t)
{
	return t->s->sim.threads[t->s->sim.current].tid;
}

static size_t gt_threads(void *ctx, int64_t *tids, size_t max)
{
	struct gdb_target *t = ctx;
	const struct resim *sim = &t->s->sim;
	size_t n = 0;
	for (size_t i = 0; i < sim->n_threads; i++)
		if (resim_thread_alive(sim, i) || i == sim->current) {
			if (n < max)
				tids[n] = sim->threads[i].tid;
			n++;
		}
	return n;
}

static int64_t gt_current_thread(void *ctx)
{
	struct gdb_target *t = ctx;
	if (t->div)
		return t->s->sim.threads[diversion_thread(t->div)].tid;
	return target_current_tid(t);
}

/* The recorded pid (0 for traces that did not record it). */
static int64_t gt_process_id(void *ctx)
{
	struct gdb_target *t = ctx;
	return idna_reader_header(t->s->reader)->info.pid;
}

/* The thread a packet names: tid, or the running one for "any" (<= 0). */
static long thread_index(struct gdb_target *t, int64_t tid)
{
	if (tid <= 0)
		return (long)(t->div ? diversion_thread(t->div) : t->s->sim.current);
	return resim_thread_index(&t->s->sim, tid);
}

/* At a syscall's entry the replay stands at the syscall instruction, not
 * yet run; a live process is stopped inside the kernel, the instruction
 * run: gdb shows that. The CPU's syscall has put the next instruction's
 * address in rip and rcx and rflags in r11 (syscall, int 0x80 and
 * sysenter are all 2 bytes long); the kernel has put -ENOSYS in rax. */
static void syscall_entry_view(struct gdbstub_regs *r)
{
	enum { RAX = 0, RCX = 2, R11 = 11, SYSCALL_INSN_LEN = 2 };
	r->rip += SYSCALL_INSN_LEN;
	r->gpr[RCX] = r->rip;
	r->gpr[R11] = r->eflags;
	r->gpr[RAX] = (uint64_t)-ENOSYS;
}

void target_recorded_regs(const struct gdb_target *t, size_t k, struct gdbstub_regs *out)
{
	uint64_t orig_rax = UINT64_MAX; /* a stop that is no syscall's: -1 */
	if (t->syscall_stop_valid && k == t->syscall_stop_thread && k == t->s->sim.current &&
	    resim_now(&t->s->sim) == t->syscall_stop_time)
		orig_rax = t->syscall_stop_nr;
	gdbstub_regs_from_emu(resim_thread_regs(&t->s->sim, k), orig_rax, out);
	if (orig_rax != UINT64_MAX && t->syscall_stop_entry)
		syscall_entry_view(out);
}

static int gt_read_registers(void *ctx, int64_t tid, struct gdbstub_regs *out)
{
	struct gdb_target *t = ctx;
	long k = thread_index(t, tid);
	if (k < 0)
		return -1;
	if (target_undo_regs(t, (size_t)k, out))
		return 0;
	if (t->div && diversion_thread(t->div) == (size_t)k)
		gdbstub_regs_from_emu(diversion_regs(t->div), UINT64_MAX, out);
	else
		target_recorded_regs(t, (size_t)k, out);
	return 0;
}

static enum gdbstub_mem_status gt_read_memory(void *ctx, uint64_t addr, void *buf,
					      size_t len, size_t *done)
{
	struct gdb_target *t = ctx;
	if (target_undo_memory(t, addr, buf, len, done))
		return *done == len ? GDBSTUB_MEM_OK : GDBSTUB_MEM_UNAVAILABLE;
	*done = t->div ? diversion_read_memory(t->div, addr, buf, len)
		       : replay_session_read_memory(t->s, addr, buf, len);
	return *done == len ? GDBSTUB_MEM_OK : GDBSTUB_MEM_UNAVAILABLE;
}

/* --- observing a run ---------------------------------------------------- */


const struct point *target_breakpoint_at(const struct gdb_target *t, uint64_t rip)
{
	for (size_t i = 0; i < t->n_points; i++)
		if (t->points[i].kind <= GDBSTUB_BREAK_HARDWARE && t->points[i].addr == rip)
			return &t->points[i];
	return NULL;
}

/* Whether gdb asked to stop (Ctrl-C): looked for once every
 * INTERRUPT_CHECK_INTERVAL instructions of replay, by the time, since
 * blocks run whole are not counted one by one. */
static bool interrupt_requested(struct run_watch *w, uint64_t now)
{
	if (!w->interrupt_due && now - w->last_interrupt_check >= INTERRUPT_CHECK_INTERVAL) {
		w->last_interrupt_check = now;
		w->interrupt_due = w->interrupted && w->interrupted(w->interrupt_ctx);
	}
	return w->interrupt_due;
}

static bool on_insn_start(void *ctx, uint64_t rip)
{
	struct gdb_target *t = ctx;
	struct run_watch *w = t->watch;
	w->started++;
	uint64_t icount = replay_session_now(t->s);
	if (w->watch_pending && !w->record_only) {
		w->watch_pending = false;
		w->hit = w->pending;
		w->have_hit = true;
		return true; /* just after the accessing instruction */
	}
	w->watch_pending = false;
	if (interrupt_requested(w, icount)) {
		w->was_interrupted = true;
		return true;
	}
	const struct point *bp = target_breakpoint_at(t, rip);
	if (!bp || (icount == w->start && rip == w->start_rip))
		return false;
	if (w->record_only) {
		if (icount < w->limit) {
			w->have_hit = true;
			w->hit_icount = icount;
			w->hit = (struct gdbstub_stop){ .reason = GDBSTUB_STOP_BREAKPOINT,
							.tid = target_current_tid(t), .addr = rip,
							.kind = bp->kind };
		}
		return false;
	}
	w->have_hit = true;
	w->hit = (struct gdbstub_stop){ .reason = GDBSTUB_STOP_BREAKPOINT, .tid = target_current_tid(t),
					.addr = rip, .kind = bp->kind };
	return true;
}

/* A block to see instruction by instruction: one with a breakpoint in it,
 * or every block while a watchpoint needs each access's time; every one
 * once gdb interrupted (on_insn_start stops at its first). */
static bool block_watched(void *ctx, uint64_t start, uint64_t end)
{
	struct gdb_target *t = ctx;
	struct run_watch *w = t->watch;
	if (t->s->sim.proc.on_access || interrupt_requested(w, replay_session_now(t->s)))
		return true;
	for (size_t i = 0; i < t->n_points; i++)
		if (t->points[i].kind <= GDBSTUB_BREAK_HARDWARE && t->points[i].addr >= start &&
		    t->points[i].addr < end)
			return true;
	return false;
}

static bool watch_matches(const struct point *p, bool write)
{
	switch (p->kind) {
	case GDBSTUB_WATCH_WRITE: return write;
	case GDBSTUB_WATCH_READ: return !write;
	case GDBSTUB_WATCH_ACCESS: return true;
	default: return false;
	}
}

const struct point *target_watch_hit(const struct gdb_target *t, uint64_t addr, size_t len,
				     bool write)
{
	for (size_t i = 0; i < t->n_points; i++) {
		const struct point *p = &t->points[i];
		if (watch_matches(p, write) && addr < p->addr + p->len && addr + len > p->addr)
			return p;
	}
	return NULL;
}

static void on_access(void *ctx, uint64_t addr, size_t len, bool write)
{
	struct gdb_target *t = ctx;
	struct run_watch *w = t->watch;
	if (!w || w->started == 0)
		return;
	const struct point *p = target_watch_hit(t, addr, len, write);
	if (p) {
		struct gdbstub_stop stop = { .reason = GDBSTUB_STOP_WATCHPOINT, .tid = target_current_tid(t),
					     .addr = p->addr, .kind = p->kind };
		uint64_t icount = replay_session_now(t->s);
		if (w->record_only) {
			if (icount < w->limit) {
				w->have_hit = true;
				w->hit_icount = icount;
				w->hit_by_kernel = t->s->sim.in_kernel_write;
				w->hit = stop;
			}
		} else if (icount >= w->start) {
			w->watch_pending = true;
			w->pending = stop;
		}
	}
}

static bool any_watchpoints(const struct gdb_target *t)
{
	for (size_t i = 0; i < t->n_points; i++)
		if (t->points[i].kind >= GDBSTUB_WATCH_WRITE)
			return true;
	return false;
}

/* Runs the session forward to `target` under the observer; the status. */
static enum resim_status observed_run(struct gdb_target *t, struct run_watch *w, uint64_t target)
{
	struct replay_session *s = t->s;
	struct emu_observer obs = { .ctx = t, .insn_start = on_insn_start,
				    .block_watched = block_watched };
	/* A block with a breakpoint may have been chained into by a run
	 * nothing observed. */
	for (size_t i = 0; i < t->n_points; i++)
		if (t->points[i].kind <= GDBSTUB_BREAK_HARDWARE)
			emu_unchain_code(s->sim.cpu, t->points[i].addr, 1);
	w->last_interrupt_check = replay_session_now(s);
	t->watch = w;
	emu_set_observer(s->sim.cpu, &obs);
	s->sim.proc.on_access = any_watchpoints(t) ? on_access : NULL;
	s->sim.proc.access_ctx = t;
	/* Syscalls and natively run instructions are retired by the trace,
	 * not started by the emulator: breakpoints on them count too. */
	s->sim.at_retired_insn = on_insn_start;
	s->sim.retired_insn_ctx = t;
	enum resim_status st;
	for (;;) {
		st = replay_session_run(s, target);
		/* A run stopped by the observer leaves rip before the
		 * instruction; a watch noticed on the very last instruction
		 * before the target (or before another thread took over)
		 * still counts. */
		if ((st != RESIM_AT_TARGET && st != RESIM_SWITCHED) || !w->watch_pending ||
		    w->record_only)
			break;
		w->hit = w->pending;
		w->have_hit = true;
		w->watch_pending = false;
		st = RESIM_STOPPED;
		break;
	}
	emu_set_observer(s->sim.cpu, NULL);
	s->sim.proc.on_access = NULL;
	s->sim.at_retired_insn = NULL;
	t->watch = NULL;
	return st;
}

/* --- moving in time --------------------------------------------------------- */

int target_whole_history(struct gdb_target *t)
{
	return target_whole_history_interruptible(t, NULL, NULL);
}

/* Asked at each snapshot of the first pass: a progress line on gdb's
 * console every second (gdb waits for each packet 2 s by default, and
 * after three such waits prints "Ignoring packet error": each line
 * restarts the wait), then whether gdb interrupted. */
struct pass_watch {
	struct gdb_target *t;
	gdbstub_interrupt_fn interrupted;
	void *interrupt_ctx;
	struct timespec last;
};

static bool pass_tick(void *ctx)
{
	struct pass_watch *w = ctx;
	struct gdb_target *t = w->t;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (t->console &&
	    (now.tv_sec - w->last.tv_sec) * 1000000000LL + (now.tv_nsec - w->last.tv_nsec) >=
		    1000000000LL) {
		const struct replay_session *s = t->s;
		char line[128];
		snprintf(line, sizeof(line), "ttreplay: reading the trace: %llu M instructions so far\n",
			 (unsigned long long)(s->snapshots[s->n_snapshots - 1].icount / 1000000));
		t->console(t->console_ctx, line);
		w->last = now;
	}
	return w->interrupted && w->interrupted(w->interrupt_ctx);
}

int target_whole_history_interruptible(struct gdb_target *t, gdbstub_interrupt_fn interrupted,
				       void *interrupt_ctx)
{
	struct pass_watch w = { t, interrupted, interrupt_ctx, { 0, 0 } };
	clock_gettime(CLOCK_MONOTONIC, &w.last);
	int r = replay_session_finish_pass_interruptible(t->s, pass_tick, &w);
	if (r >= 0)
		return r;
	fprintf(stderr, "ttreplay: %s\n", t->s->error);
	return -1;
}

uint64_t target_history_begin(const struct gdb_target *t)
{
	uint64_t first = t->s->snapshots[0].icount;
	return t->begin > first ? t->begin : first;
}

void target_edge_stop(const struct gdb_target *t, struct gdbstub_stop *stop,
		      enum gdbstub_stop_reason why)
{
	memset(stop, 0, sizeof(*stop));
	stop->reason = why;
	stop->tid = target_current_tid(t);
}

void target_syscall_stop(struct gdb_target *t, struct gdbstub_stop *stop, int entry)
{
	target_edge_stop(t, stop, entry ? GDBSTUB_STOP_SYSCALL_ENTRY : GDBSTUB_STOP_SYSCALL_RETURN);
	stop->syscall_nr = t->s->sim.syscall_nr;
	t->syscall_stop_valid = true;
	t->syscall_stop_entry = entry;
	t->syscall_stop_time = resim_now(&t->s->sim);
	t->syscall_stop_nr = t->s->sim.syscall_nr;
	t->syscall_stop_thread = t->s->sim.current;
}

/* The fatal signal the program died of, reported once at the end. */
static bool ended_by_signal(const struct gdb_target *t, int *signo)
{
	const struct replay_summary *m = &t->s->summary;
	if (m->have_exit && WIFSIGNALED((int)m->exit_status)) {
		*signo = WTERMSIG((int)m->exit_status);
		return true;
	}
	return false;
}

bool target_syscall_caught(const struct gdb_target *t, uint64_t nr)
{
	if (t->n_catch == 0)
		return true;
	for (size_t i = 0; i < t->n_catch; i++)
		if (t->catch_nrs[i] == nr)
			return true;
	return false;
}

int target_forward(struct gdb_target *t, uint64_t target, gdbstub_interrupt_fn interrupted,
		   void *interrupt_ctx, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	uint64_t now = replay_session_now(s);
	if ((s->pass_done && now >= s->summary.instructions) || target_at_image_end(t)) {
		target_say_image_end(t);
		target_edge_stop(t, stop, GDBSTUB_STOP_HISTORY_END);
		return 0;
	}
	struct run_watch w = { .start = now, .start_rip = resim_thread_regs(&s->sim, s->sim.current)->rip,
			       .interrupted = interrupted, .interrupt_ctx = interrupt_ctx };
	/* The run may be the first pass going on: its progress on gdb's
	 * console, as while the pass runs alone. */
	struct pass_watch progress = { t, NULL, NULL, { 0, 0 } };
	clock_gettime(CLOCK_MONOTONIC, &progress.last);
	s->pass_interrupted = pass_tick;
	s->pass_interrupt_ctx = &progress;
	/* Signals the program received stop a continue or a step, as they
	 * stop a live process under gdb; caught syscalls stop a continue. A
	 * continue runs only the segments that may stop it
	 * (search_forward.h). */
	enum resim_status st;
	for (;;) {
		uint64_t to = target;
		if (target == UINT64_MAX && search_forward_skip(t, &w, &to) != 0) {
			st = RESIM_ERROR;
			break;
		}
		if (w.was_interrupted) {
			st = RESIM_STOPPED;
			break;
		}
		/* (A step stops at a signal too: it arrives between the
		 * instruction and the handler's first, as for a live process.) */
		s->sim.stop_at_signals = true;
		s->sim.stop_at_syscalls = target == UINT64_MAX && t->catching;
		to = target_image_bound(t, to);
		st = observed_run(t, &w, to);
		s->sim.stop_at_signals = s->sim.stop_at_syscalls = false;
		if (st == RESIM_AT_TARGET && to != target && !target_at_image_end(t))
			continue; /* the segments that may stop it are over */
		if ((st != RESIM_SYSCALL_ENTRY && st != RESIM_SYSCALL_RETURN) ||
		    target_syscall_caught(t, s->sim.syscall_nr))
			break;
	}
	s->pass_interrupted = NULL;
	if (st == RESIM_SYSCALL_ENTRY || st == RESIM_SYSCALL_RETURN) {
		target_syscall_stop(t, stop, st == RESIM_SYSCALL_ENTRY);
		return 0;
	}
	if (st == RESIM_SIGNAL) {
		target_edge_stop(t, stop, GDBSTUB_STOP_SIGNAL);
		stop->signo = s->sim.counts.last_signal;
		t->signal_reported_at = replay_session_now(s);
		return 0;
	}
	if (st == RESIM_ERROR) {
		fprintf(stderr, "ttreplay: %s\n", s->error);
		return -1;
	}
	if (w.have_hit) {
		*stop = w.hit;
		return 0;
	}
	if (w.was_interrupted) {
		if (!s->pass_done)
			fprintf(stderr, "ttreplay: interrupted while reading the trace ahead (%llu"
					" instructions so far); the next resume goes on with it\n",
				(unsigned long long)s->pass_reach);
		target_edge_stop(t, stop, GDBSTUB_STOP_INTERRUPTED);
		return 0;
	}
	if (target_at_image_end(t)) {
		target_say_image_end(t);
		target_edge_stop(t, stop, GDBSTUB_STOP_HISTORY_END);
		return 0;
	}
	if ((s->pass_done && replay_session_now(s) >= s->summary.instructions) || st == RESIM_END) {
		int signo;
		if (ended_by_signal(t, &signo) && t->signal_reported_at != replay_session_now(s)) {
			target_edge_stop(t, stop, GDBSTUB_STOP_SIGNAL);
			stop->signo = signo;
		} else {
			target_edge_stop(t, stop, GDBSTUB_STOP_HISTORY_END);
		}
		return 0;
	}
	target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED);
	return 0;
}

/* (Searches both ways skip the segments this rules out: search_forward.c,
 * target_backward.) */
bool target_segment_may_hit(const struct gdb_target *t, size_t k)
{
	for (size_t i = 0; i < t->n_points; i++) {
		const struct point *p = &t->points[i];
		switch (p->kind) {
		case GDBSTUB_BREAK_SOFTWARE:
		case GDBSTUB_BREAK_HARDWARE:
			if (replay_session_segment_may_execute(t->s, k, p->addr))
				return true;
			break;
		case GDBSTUB_WATCH_WRITE:
			if (replay_session_segment_may_write(t->s, k, p->addr, p->len))
				return true;
			break;
		case GDBSTUB_WATCH_READ:
			if (replay_session_segment_may_read(t->s, k, p->addr, p->len))
				return true;
			break;
		case GDBSTUB_WATCH_ACCESS:
			if (replay_session_segment_may_read(t->s, k, p->addr, p->len) ||
			    replay_session_segment_may_write(t->s, k, p->addr, p->len))
				return true;
			break;
		default:
			return true;
		}
	}
	return false;
}

/* Goes to a backward search's hit. One by the kernel's writes at time T
 * is shown before them, as a live target would show the syscall that
 * wrote: from the state before T, run up to the transition's first
 * KERNEL_WRITE record (a syscall's writes retire with it, so that is the
 * state at T; a signal frame's are part of the state at T). */
static int goto_hit(struct gdb_target *t, const struct run_watch *w)
{
	struct replay_session *s = t->s;
	uint64_t at = w->hit_icount;
	/* The steps gdb makes next (the last of a reverse-next, from the
	 * call it continued back to) and another backward continue nearby
	 * are undos when the way to the hit was logged (gdb_undo.c). */
	if (!w->hit_by_kernel || at <= target_history_begin(t)) {
		t->near.log_next = !t->undo_off;
		return step_history_goto(&t->near, s, at);
	}
	if (step_history_goto(&t->near, s, at - 1) != 0)
		return -1;
	s->sim.stop_before_kernel_write = true;
	enum resim_status st = replay_session_run(s, at + 1);
	s->sim.stop_before_kernel_write = false;
	return st == RESIM_ERROR ? -1 : 0;
}

/*
 * The last breakpoint or watched access in [kept state, before), searched
 * from the states kept near recent positions, latest first, down to the
 * snapshot segment's start: 1 when found (the replay is there, *stop set),
 * 0 when not (*searched_from: where the search has to go on from), -1.
 */
static int search_near(struct gdb_target *t, uint64_t before, uint64_t *searched_from,
		       struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	uint64_t floor = s->snapshots[replay_session_snapshot_for(s, before - 1)].icount;
	uint64_t upper = before;
	for (;;) {
		uint64_t x = step_history_latest_before(&t->near, floor + 1, upper);
		if (x == UINT64_MAX)
			break;
		struct run_watch w = { .record_only = true, .start = UINT64_MAX, .limit = upper };
		if (step_history_goto(&t->near, s, x) != 0 || observed_run(t, &w, upper) == RESIM_ERROR)
			return -1;
		if (w.have_hit) {
			if (goto_hit(t, &w) != 0)
				return -1;
			*stop = w.hit;
			return 1;
		}
		upper = x;
	}
	*searched_from = upper;
	return 0;
}

/* The last breakpoint or watched access strictly before `before` (and,
 * with events_count, the last received signal or caught syscall, where a
 * forward continue would stop at it), searching snapshot segments from
 * the latest down. */
int target_backward(struct gdb_target *t, uint64_t before, bool any_point_counts,
		    bool events_count, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	if (before <= target_history_begin(t)) {
		if (replay_session_goto(s, target_history_begin(t)) != 0)
			return -1;
		target_edge_stop(t, stop, GDBSTUB_STOP_HISTORY_BEGIN);
		return 0;
	}
	bool events = any_point_counts && events_count;
	if (any_point_counts && (t->n_points || events)) {
		/* Where a kept state is close before, the latest part of the
		 * segment is searched from there first (unless a signal or a
		 * caught syscall could be the stop there). */
		if (t->n_points &&
		    !(events && target_segment_may_have_events(t, replay_session_snapshot_for(s, before - 1)))) {
			int r = search_near(t, before, &before, stop);
			if (r != 0)
				return r < 0 ? -1 : 0;
		}
		for (size_t k = replay_session_snapshot_for(s, before - 1);; k--) {
			bool may_hit = t->n_points && target_segment_may_hit(t, k);
			bool may_event = events && target_segment_may_have_events(t, k);
			uint64_t seg_end = k + 1 < s->n_snapshots && s->snapshots[k + 1].icount < before
						   ? s->snapshots[k + 1].icount : before;
			struct run_watch w = { .record_only = true, .start = UINT64_MAX, .limit = before };
			t->segments_skipped_back += !may_hit && !may_event;
			if (may_hit && (replay_session_goto(s, s->snapshots[k].icount) != 0 ||
					observed_run(t, &w, seg_end) == RESIM_ERROR))
				return -1;
			struct event_mark ev = { 0 };
			if (may_event && target_last_event(t, k, seg_end, before, &ev) != 0)
				return -1;
			/* At the same time, the event comes first going forward. */
			if (ev.found && (!w.have_hit || ev.time > w.hit_icount))
				return target_goto_event(t, k, &ev, stop);
			if (w.have_hit) {
				if (goto_hit(t, &w) != 0)
					return -1;
				*stop = w.hit;
				return 0;
			}
			if (k == 0)
				break;
		}
		if (replay_session_goto(s, target_history_begin(t)) != 0)
			return -1;
		target_edge_stop(t, stop, GDBSTUB_STOP_HISTORY_BEGIN);
		return 0;
	}
	if (step_history_goto(&t->near, s, before - 1) != 0)
		return -1;
	target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED);
	return 0;
}

/* One instruction of thread k forward: time runs on until k has retired
 * one, other threads running meanwhile as they did when recording. */
/* The step retired its instruction and a signal arrived right after it
 * (a kill the program sent itself, say): a live process single-stepped
 * there reports the step's trap first (the kernel dequeues synchronous
 * signals before the others) and the signal at its next resume, before
 * running anything. The step's stop now, the signal's then. */
static void defer_signal(struct gdb_target *t, struct gdbstub_stop *stop)
{
	t->signal_due = true;
	t->signal_due_signo = stop->signo;
	t->signal_due_at = replay_session_now(t->s);
	target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED);
}

/* The signal defer_signal kept, as the stop of a forward resume from
 * where it arrived; any move clears it. 1 when reported. */
static int take_due_signal(struct gdb_target *t, enum gdbstub_direction dir,
			   struct gdbstub_stop *stop)
{
	bool due = t->signal_due && dir == GDBSTUB_FORWARD && !t->div &&
		   replay_session_now(t->s) == t->signal_due_at;
	t->signal_due = false;
	if (!due)
		return 0;
	target_edge_stop(t, stop, GDBSTUB_STOP_SIGNAL);
	stop->signo = t->signal_due_signo;
	return 1;
}

static int step_forward(struct gdb_target *t, size_t k, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	uint64_t before = resim_thread_icount(&s->sim, k);
	if (s->sim.delivery_pending && s->sim.current == k) {
		/* Stopped where a signal arrived: the step delivers it and
		 * ends at the handler's first instruction, as a live
		 * process's does. */
		if (replay_session_run(s, replay_session_now(s)) == RESIM_ERROR) {
			fprintf(stderr, "ttreplay: %s\n", s->error);
			return -1;
		}
		if (s->sim.last_delivery_at == replay_session_now(s)) {
			target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED);
			stop->tid = s->sim.threads[k].tid;
			return 0;
		}
	}
	for (;;) {
		bool running = s->sim.current == k;
		/* Another thread's slice runs whole (to the next switch). */
		s->sim.stop_at_switch = !running;
		/* (Not UINT64_MAX, which is a continue's: a step does not
		 * stop at signals.) */
		uint64_t end = s->pass_done ? s->summary.instructions : UINT64_MAX - 1;
		int r = target_forward(t, running ? replay_session_now(s) + 1 : end, NULL, NULL, stop);
		s->sim.stop_at_switch = false;
		if (r != 0)
			return r;
		if (stop->reason == GDBSTUB_STOP_SIGNAL && running &&
		    resim_thread_icount(&s->sim, k) != before) {
			defer_signal(t, stop);
			break;
		}
		if (stop->reason == GDBSTUB_STOP_BREAKPOINT)
			target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED); /* steps ignore breakpoints */
		if (stop->reason != GDBSTUB_STOP_STEPPED)
			return 0;
		if (resim_thread_icount(&s->sim, k) != before)
			break;
	}
	stop->tid = s->sim.threads[k].tid;
	return 0;
}

/* From the state before a signal's delivery at `at_delivery`, goes on to
 * where the signal arrived (the handler not entered yet), the stop a live
 * process shows between the two; where the run finds no such stop, back
 * to where it started. 1 when there, 0 when back, -1. */
static int arrival_before(struct gdb_target *t, uint64_t at_delivery)
{
	struct replay_session *s = t->s;
	uint64_t from = replay_session_now(s);
	s->sim.stop_at_signals = true;
	enum resim_status st = replay_session_run(s, at_delivery);
	s->sim.stop_at_signals = false;
	if (st == RESIM_ERROR)
		return -1;
	if (st == RESIM_SIGNAL && replay_session_now(s) == at_delivery) {
		t->signal_reported_at = at_delivery;
		return 1;
	}
	return step_history_goto(&t->near, s, from);
}

/* A reverse continue from a handler's first instruction, the signal
 * delivered at this very time: the signal's arrival (the same time, before
 * the delivery) is the first stop it meets, as it is from anywhere later
 * in the handler. 1 when there, 0 when not such a place, -1. */
static int arrival_behind(struct gdb_target *t, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	uint64_t now = replay_session_now(s);
	if (s->sim.delivery_pending || s->sim.last_delivery_at != now ||
	    now <= target_history_begin(t))
		return 0;
	if (step_history_goto(&t->near, s, now - 1) != 0)
		return -1;
	int r = arrival_before(t, now);
	if (r <= 0)
		return r;
	target_edge_stop(t, stop, GDBSTUB_STOP_SIGNAL);
	stop->signo = s->sim.counts.last_signal;
	return 1;
}

/*
 * One instruction of thread k backward: to the time just before k retired
 * its last instruction. Slices run without interruption, so within k's
 * latest slice that time follows from where the slice began; when the
 * slice has retired nothing yet, the slice before it is looked up from
 * just before this one began.
 */
static int step_backward(struct gdb_target *t, size_t k, struct gdbstub_stop *stop)
{
	struct replay_session *s = t->s;
	int64_t tid = s->sim.threads[k].tid;
	for (;;) {
		/* (Going to a time may rebuild the thread table.) */
		const struct resim_thread *th = &s->sim.threads[k];
		uint64_t own = resim_thread_icount(&s->sim, k);
		if (th->started && own > th->slice_icount) {
			uint64_t at = th->slice_time + (own - 1 - th->slice_icount);
			/* (A syscall or a natively run instruction shows at
			 * its own time, not yet executed: resim.c.) */
			bool after_delivery = !s->sim.delivery_pending &&
					      s->sim.last_delivery_at == replay_session_now(s);
			uint64_t now = replay_session_now(s);
			if (step_history_goto(&t->near, s, at) != 0)
				return -1;
			if (after_delivery)
				undo_log_forget(&t->near.undo); /* the replay moves on */
			if (after_delivery && arrival_before(t, now) < 0)
				return -1;
			/* The arrival of a signal gdb stops at or prints shows
			 * as that signal, as where a continue meets it; of one
			 * it passes silently as a step's stop (gdb would step
			 * on past it, out of reach of reverse-finish). */
			target_edge_stop(t, stop, GDBSTUB_STOP_STEPPED);
			int signo = s->sim.counts.last_signal;
			if (after_delivery && s->sim.delivery_pending && signo > 0 && signo < 64 &&
			    !(t->passed_signals >> signo & 1)) {
				stop->reason = GDBSTUB_STOP_SIGNAL;
				stop->signo = signo;
			}
			stop->tid = tid;
			return 0;
		}
		if (!th->started || th->slice_time <= target_history_begin(t)) {
			if (replay_session_goto(s, target_history_begin(t)) != 0)
				return -1;
			target_edge_stop(t, stop, GDBSTUB_STOP_HISTORY_BEGIN);
			return 0;
		}
		if (step_history_goto(&t->near, s, th->slice_time - 1) != 0)
			return -1;
	}
}

/* The number of the syscall thread k stands at (rax), or -1 when its
 * next instruction is no `syscall`. */
static int64_t syscall_insn_nr(struct gdb_target *t, size_t k)
{
	const struct emu_regs *r = resim_thread_regs(&t->s->sim, k);
	uint8_t insn[2];
	if (replay_session_read_memory(t->s, r->rip, insn, sizeof insn) != sizeof insn ||
	    insn[0] != 0x0f || insn[1] != 0x05)
		return -1;
	return (int64_t)r->gpr[EMU_RAX];
}

/* A live process single-stepped over a syscall stops on the kernel's way
 * out of it, where orig_rax still holds the syscall's number (a step
 * trap elsewhere shows -1): the registers gdb reads show that, until the
 * next move. */
static void note_stepped_syscall(struct gdb_target *t, size_t k, uint64_t rip, uint64_t nr)
{
	if (t->s->sim.current != k || resim_thread_regs(&t->s->sim, k)->rip != rip + 2)
		return;
	t->syscall_stop_valid = true;
	t->syscall_stop_entry = false;
	t->syscall_stop_time = resim_now(&t->s->sim);
	t->syscall_stop_nr = nr;
	t->syscall_stop_thread = k;
}

static int gt_step(void *ctx, int64_t tid, enum gdbstub_direction dir, struct gdbstub_stop *stop)
{
	struct gdb_target *t = ctx;
	t->syscall_stop_valid = false; /* a move: that stop is over */
	if (take_due_signal(t, dir, stop))
		return 0;
	long k = thread_index(t, tid);
	if (dir != GDBSTUB_FORWARD && k >= 0 && target_undo_step(t, (size_t)k, stop))
		return 0;
	if (target_undo_settle(t) != 0)
		return -1;
	k = thread_index(t, tid);
	uint64_t at = replay_session_now(t->s), done = t->rep_done;
	if (k >= 0 && (!t->div || t->rep_done)) {
		int r = target_rep_step(t, (size_t)k, dir, stop);
		if (r != 0)
			return r < 0 ? -1 : 0;
	} else if (t->rep_done) {
		target_end_diversion(t, NULL); /* (a thread gdb named wrongly) */
	}
	if (target_in_diversion(t, dir))
		return target_diversion_run(t, true, tid, NULL, NULL, stop);
	if (k < 0 || (dir != GDBSTUB_FORWARD && target_whole_history(t) != 0))
		return -1;
	if (dir == GDBSTUB_FORWARD) {
		uint64_t rip = resim_thread_regs(&t->s->sim, (size_t)k)->rip;
		int64_t nr = syscall_insn_nr(t, (size_t)k);
		int r = step_forward(t, (size_t)k, stop);
		if (r == 0 && nr >= 0)
			note_stepped_syscall(t, (size_t)k, rip, (uint64_t)nr);
		return r != 0 ? r : target_rep_watch(t, stop, at, done, true);
	}
	if (replay_session_now(t->s) <= target_history_begin(t))
		return target_backward(t, replay_session_now(t->s), false, false, stop);
	t->near.log_next = !t->undo_off; /* the next backward moves may be undos */
	int r = step_backward(t, (size_t)k, stop);
	t->near.log_next = false;
	if (r != 0)
		return -1;
	target_rep_land(t, (size_t)k, stop);
	return 0;
}

static int gt_resume(void *ctx, enum gdbstub_direction dir, gdbstub_interrupt_fn interrupted,
		     void *interrupt_ctx, struct gdbstub_stop *stop)
{
	struct gdb_target *t = ctx;
	if (dir != GDBSTUB_FORWARD && target_undo_continue(t, stop)) {
		t->syscall_stop_valid = false; /* a move: those are over */
		t->signal_due = false;
		return 0;
	}
	if (target_undo_settle(t) != 0)
		return -1;
	t->syscall_stop_valid = false; /* a move: that stop is over */
	if (take_due_signal(t, dir, stop))
		return 0;
	uint64_t at = replay_session_now(t->s), done;
	int inside = target_rep_resume(t, dir, stop, &done);
	if (inside != 0)
		return inside < 0 ? -1 : 0;
	if (target_in_diversion(t, dir))
		return target_diversion_run(t, false, 0, interrupted, interrupt_ctx, stop);
	/* Forward, the run is the first pass as far as it goes (its
	 * observer sees Ctrl-C). */
	if (dir == GDBSTUB_FORWARD) {
		int r;
		do {
			if (target_forward(t, UINT64_MAX, interrupted, interrupt_ctx, stop) != 0)
				return -1;
			r = target_rep_watch(t, stop, at, done, false);
		} while (r == 1); /* (a hit of the iterations gdb saw already) */
		return r < 0 ? -1 : 0;
	}
	/* The first pass can take long: Ctrl-C stops it, and the program is
	 * shown where it was. */
	int r = target_whole_history_interruptible(t, interrupted, interrupt_ctx);
	if (r < 0)
		return -1;
	if (r > 0) {
		fprintf(stderr, "ttreplay: interrupted while reading the trace ahead (%llu instructions"
				" so far); the next resume goes on with it\n",
			(unsigned long long)t->s->snapshots[t->s->n_snapshots - 1].icount);
		target_edge_stop(t, stop, GDBSTUB_STOP_INTERRUPTED);
		return 0;
	}
	uint64_t now = replay_session_now(t->s);
	r = arrival_behind(t, stop);
	if (r < 0 || (r == 0 && target_backward(t, now, true, true, stop) != 0))
		return -1;
	target_rep_land(t, t->s->sim.current, stop);
	return 0;
}


/* --- breakpoints ---------------------------------------------------------------- */

static struct point *find_point(struct gdb_target *t, enum gdbstub_break_kind kind,
				uint64_t addr, uint64_t len)
{
	for (size_t i = 0; i < t->n_points; i++) {
		struct point *p = &t->points[i];
		if (p->kind == kind && p->addr == addr &&
		    (kind <= GDBSTUB_BREAK_HARDWARE || p->len == len))
			return p;
	}
	return NULL;
}

static int gt_insert_break(void *ctx, enum gdbstub_break_kind kind, uint64_t addr, uint64_t len)
{
	struct gdb_target *t = ctx;
	struct point *p = find_point(t, kind, addr, len);
	if (p) {
		p->refs++;
		return 0;
	}
	if (t->n_points == MAX_POINTS || (kind >= GDBSTUB_WATCH_WRITE && len == 0))
		return -1;
	t->points[t->n_points++] = (struct point){ kind, addr, len, 1 };
	return 0;
}

static int gt_remove_break(void *ctx, enum gdbstub_break_kind kind, uint64_t addr, uint64_t len)
{
	struct gdb_target *t = ctx;
	struct point *p = find_point(t, kind, addr, len);
	if (!p)
		return -1;
	if (--p->refs == 0)
		*p = t->points[--t->n_points];
	return 0;
}

/* --- time and objects ------------------------------------------------------------ */

static uint64_t gt_now(void *ctx)
{
	return target_shown_time(ctx);
}

static uint64_t gt_end(void *ctx)
{
	struct gdb_target *t = ctx;
	if (target_undo_settle(t) != 0 || target_whole_history(t) != 0)
		return target_shown_time(t);
	return target_image_bound(t, t->s->summary.instructions);
}

static void gt_attach_console(void *ctx, gdbstub_print_fn print, void *print_ctx)
{
	struct gdb_target *t = ctx;
	t->console = print;
	t->console_ctx = print_ctx;
}

static int gt_goto(void *ctx, uint64_t time)
{
	struct gdb_target *t = ctx;
	if (target_undo_settle(t) != 0)
		return -1;
	t->syscall_stop_valid = false; /* a move: that stop is over */
	t->signal_due = false;
	target_end_diversion(t, "moving in time");
	uint64_t begin = target_history_begin(t);
	/* A time the first pass has not reached needs the whole pass: run it
	 * here, with its progress on gdb's console, or gdb (waiting for the
	 * monitor command's answer) gives up ("Ignoring packet error"). */
	const struct replay_session *s = t->s;
	if (time > begin && !s->pass_done && time > s->pass_reach && target_whole_history(t) < 0)
		return -1;
	return replay_session_goto(t->s, time < begin ? begin : target_image_bound(t, time));
}

static const void *gt_auxv(void *ctx, size_t *len)
{
	struct gdb_target *t = ctx;
	*len = t->auxv_len;
	return t->auxv_len ? t->auxv : NULL;
}

static const char *gt_exec_file(void *ctx)
{
	struct gdb_target *t = ctx;
	return t->exec_file[0] ? t->exec_file : NULL;
}

static const char *gt_libraries(void *ctx)
{
	return ((struct gdb_target *)ctx)->libraries_xml;
}

static int gt_catch_syscalls(void *ctx, bool enable, const uint64_t *nrs, size_t n)
{
	struct gdb_target *t = ctx;
	if (n > sizeof(t->catch_nrs) / sizeof(t->catch_nrs[0]))
		return -1;
	t->catching = enable;
	t->n_catch = enable ? n : 0;
	memcpy(t->catch_nrs, nrs, n * sizeof(*nrs));
	return 0;
}

static void gt_pass_signals(void *ctx, uint64_t linux_mask)
{
	((struct gdb_target *)ctx)->passed_signals = linux_mask;
}

/* A monitor command inside a rep string instruction runs from its start
 * (it may move the replay) and, when it did not, leaves the session
 * where it was: gdb, which reads the registers again only after a move,
 * goes on showing them. */
static int gt_monitor(void *ctx, const char *command, gdbstub_print_fn print, void *print_ctx)
{
	struct gdb_target *t = ctx;
	if (target_undo_settle(t) != 0)
		return -1;
	struct rep_position inside;
	target_rep_save(t, &inside);
	int r = gdb_target_monitor(ctx, command, print, print_ctx);
	target_rep_restore(t, &inside);
	return r;
}

static const struct gdbstub_target_ops ops = {
	.threads = gt_threads,
	.current_thread = gt_current_thread,
	.process_id = gt_process_id,
	.read_registers = gt_read_registers,
	.read_memory = gt_read_memory,
	.write_registers = target_write_registers,
	.write_memory = target_write_memory,
	.step = gt_step,
	.resume = gt_resume,
	.insert_break = gt_insert_break,
	.remove_break = gt_remove_break,
	.now = gt_now,
	.end_of_history = gt_end,
	.goto_time = gt_goto,
	.attach_console = gt_attach_console,
	.file_open = target_file_open,
	.file_pread = target_file_pread,
	.file_size = target_file_size,
	.file_close = target_file_close,
	.auxv = gt_auxv,
	.exec_file = gt_exec_file,
	.libraries_svr4_xml = NULL,
	.catch_syscalls = gt_catch_syscalls,
	.pass_signals = gt_pass_signals,
	.monitor = gt_monitor,
	.monitor_help = gdb_target_monitor_help,
};

int gdb_target_serve(struct replay_session *s, long port, const char *bind_addr,
		     uint64_t start_time, unsigned image)
{
	struct gdb_target t;
	memset(&t, 0, sizeof(t));
	t.s = s;
	t.image = image;
	/* gdb's first questions are all about the start of history, which
	 * the session shows without its first pass: gdb is answered at once
	 * (within its 2 s timeout) and the pass runs when a resume, a step or
	 * a monitor command first needs the whole history. */
	gdb_target_find_exec_file(&t);
	if (replay_session_goto(s, target_history_begin(&t)) != 0 || target_start_at_image(&t) != 0) {
		fprintf(stderr, "ttreplay: %s\n", s->error);
		return -1;
	}
	target_files_check(&t);
	gdb_target_find_auxv(&t); /* from the initial stack: at the start */
	gdb_target_images_from_modules(&t);
	if (start_time != UINT64_MAX && start_time > target_history_last(&t)) {
		fprintf(stderr, "ttreplay: -g %llu: after program image %u's history (it ends at %llu)\n",
			(unsigned long long)start_time, t.image, (unsigned long long)target_history_last(&t));
		idna_images_free(&t.exec_images);
		return -1;
	}
	if (start_time != UINT64_MAX && start_time > target_history_begin(&t) &&
	    replay_session_goto(s, start_time) != 0) {
		fprintf(stderr, "ttreplay: %s\n", s->error);
		return -1;
	}
	/* The library list is offered only when made here: otherwise gdb
	 * reads the loader's own, with its real link maps. */
	struct gdbstub_target_ops with_libraries = ops;
	with_libraries.libraries_svr4_xml = gt_libraries;
	struct gdbstub_target target = { t.libraries_xml ? &with_libraries : &ops, &t };
	if (port < 0)
		stderr_to_tty(); /* gdb polls its socket for each byte it reads */
	int r = port >= 0 ? gdbstub_serve_tcp(&target, bind_addr, (uint16_t)port)
			  : gdbstub_serve_fds(&target, STDIN_FILENO, STDOUT_FILENO);
	target_end_diversion(&t, NULL);
	free(t.libraries_xml);
	idna_images_free(&t.exec_images);
	target_files_close_all(&t);
	step_history_free(&t.near);
	return r;
}
