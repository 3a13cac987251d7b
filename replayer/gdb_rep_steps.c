/*
 * gdb_rep_steps.c — single steps inside a rep string instruction.
 *
 * The CPU single-steps rep movs/stos/lods/cmps/scas one iteration at a
 * time: the trap comes after each iteration, rip still on the instruction,
 * rcx, rsi, rdi and (cmps, scas) the flags as that iteration left them;
 * the last iteration moves rip past it. A live gdb and `record full` show
 * those stops, a breakpoint on the instruction is hit at each of them,
 * both ways, and a hardware watchpoint after the iteration that touched
 * a byte it watches.
 * The replay counts the instruction once (the trace is made
 * that way), so a position inside one exists in the gdb session only: the
 * replay stands at the instruction's start (time t) and a diversion
 * (diversion.h) holds the thread's state after rep_done iterations, run
 * by the same emulator over the memory the replay shows at t. Any move
 * other than those below leaves the position for the instruction's start
 * (a forward one then runs the whole instruction in the replay, as
 * before); a monitor command comes back inside (target_rep_restore).
 * What is not followed: memory another thread or process changed during
 * the instruction (the diversion sees the memory at t).
 *
 * n iterations run as one instruction with the count register set to n,
 * then given back its own count less n and rip put back: what the CPU
 * leaves after an interrupted rep (a 32-bit count with a 0x67 prefix is
 * written as 32 bits, the upper half cleared).
 */
#include <stdio.h>

#include "replayer/diversion.h"
#include "replayer/gdb_target_internal.h"

/* The rep string instruction thread k stands at, when it is the running
 * thread at a plain position of the replay (no signal being delivered). */
static bool rep_here(struct gdb_target *t, size_t k, struct emu_rep_string *rep)
{
	struct resim *sim = &t->s->sim;
	if (sim->current != k || sim->delivery_pending)
		return false;
	uint8_t bytes[15];
	size_t n = replay_session_read_memory(t->s, resim_thread_regs(sim, k)->rip, bytes, sizeof bytes);
	return n > 0 && emu_rep_string(bytes, n, rep);
}

static uint64_t count_mask(const struct emu_rep_string *rep)
{
	return rep->addr_bytes == 4 ? UINT32_MAX : UINT64_MAX;
}

/* Whether the flags after an iteration end a repe/repne instruction. */
static bool condition_ends(const struct emu_rep_string *rep, uint64_t rflags)
{
	bool zf = rflags & EMU_ZF;
	return (rep->until == EMU_REP_WHILE_EQUAL && !zf) ||
	       (rep->until == EMU_REP_WHILE_NOT_EQUAL && zf);
}

/*
 * Runs n more iterations (n >= 1, fewer than the count left) of the
 * instruction at the diversion's rip. 1 when they ended the instruction
 * (a comparison's condition: then rip is past it, as the CPU leaves it),
 * 0 when it is still running, -1 when the diversion could not run them
 * (memory the recording never showed): the caller falls back to the
 * replay's whole instruction.
 */
static int run_iterations(struct diversion *d, const struct emu_rep_string *rep, uint64_t n)
{
	struct emu_regs *r = diversion_regs(d);
	uint64_t mask = count_mask(rep), rip = r->rip;
	uint64_t left = r->gpr[EMU_RCX] & mask;
	r->gpr[EMU_RCX] = (r->gpr[EMU_RCX] & ~mask) | n;
	struct diversion_run run = { .step = true };
	int signo = 0;
	if (diversion_run(d, &run, &signo) != DIVERSION_STEPPED || r->rip != rip + rep->len)
		return -1;
	uint64_t unrun = r->gpr[EMU_RCX] & mask; /* left when a comparison ended it */
	uint64_t after = left - n + unrun;
	r->gpr[EMU_RCX] = rep->addr_bytes == 4 ? (uint32_t)after : after;
	if (unrun != 0 || condition_ends(rep, r->rflags))
		return 1;
	r->rip = rip;
	return 0;
}

/* Thread k inside its rep instruction after n iterations (the replay at
 * its start), or, when they end it or cannot run, at the start: false. */
static bool enter(struct gdb_target *t, size_t k, const struct emu_rep_string *rep, uint64_t n)
{
	target_end_diversion(t, NULL);
	t->div = diversion_new(t->s, k);
	if (!t->div)
		return false;
	if (run_iterations(t->div, rep, n) != 0) {
		target_end_diversion(t, NULL);
		return false;
	}
	t->rep_done = n;
	t->rep = *rep;
	return true;
}

static void stop_here(struct gdb_target *t, size_t k, enum gdbstub_stop_reason why,
		      struct gdbstub_stop *stop)
{
	target_edge_stop(t, stop, why);
	stop->tid = t->s->sim.threads[k].tid;
	if (why == GDBSTUB_STOP_BREAKPOINT) {
		stop->addr = resim_thread_regs(&t->s->sim, k)->rip;
		stop->kind = target_breakpoint_at(t, stop->addr)->kind;
	}
}

/* One iteration forward from inside: 1 when still inside, 0 when it was
 * the last (the position left: the replay's own step runs the
 * instruction). */
static int iterate_on(struct gdb_target *t)
{
	struct emu_regs saved = *diversion_regs(t->div);
	int r = run_iterations(t->div, &t->rep, 1);
	uint64_t left = diversion_regs(t->div)->gpr[EMU_RCX] & count_mask(&t->rep);
	if (r == 0 && left > 0) {
		t->rep_done++;
		return 1;
	}
	*diversion_regs(t->div) = saved;
	target_end_diversion(t, NULL);
	return 0;
}

static void stepped_stop(struct gdb_target *t, size_t k, struct gdbstub_stop *stop);

int target_rep_step(struct gdb_target *t, size_t k, enum gdbstub_direction dir,
		    struct gdbstub_stop *stop)
{
	struct emu_rep_string rep;
	if (!t->rep_done) {
		/* From the instruction's start: inside after one iteration,
		 * unless that one is its last. */
		if (dir != GDBSTUB_FORWARD || t->div || !rep_here(t, k, &rep) ||
		    (resim_thread_regs(&t->s->sim, k)->gpr[EMU_RCX] & count_mask(&rep)) < 2 ||
		    !enter(t, k, &rep, 1))
			return 0;
		stepped_stop(t, k, stop);
		return 1;
	}
	if (diversion_thread(t->div) != k) {
		target_end_diversion(t, NULL);
		return 0;
	}
	if (dir == GDBSTUB_FORWARD) {
		if (iterate_on(t) == 0)
			return 0;
		stepped_stop(t, k, stop);
		return 1;
	}
	uint64_t back_to = t->rep_done - 1;
	rep = t->rep;
	target_end_diversion(t, NULL);
	if (back_to > 0)
		enter(t, k, &rep, back_to); /* (when it cannot: at the start) */
	stop_here(t, k, GDBSTUB_STOP_STEPPED, stop);
	return 1;
}

/* How many iterations the instruction at thread k's rip runs from here:
 * the whole instruction in a throwaway diversion. 0 when it cannot run. */
static uint64_t iterations_from_here(struct gdb_target *t, size_t k, const struct emu_rep_string *rep)
{
	struct diversion *d = diversion_new(t->s, k);
	if (!d)
		return 0;
	struct emu_regs *r = diversion_regs(d);
	uint64_t mask = count_mask(rep), rip = r->rip, before = r->gpr[EMU_RCX] & mask;
	struct diversion_run run = { .step = true };
	int signo = 0;
	uint64_t n = 0;
	if (diversion_run(d, &run, &signo) == DIVERSION_STEPPED && r->rip == rip + rep->len)
		n = before - (r->gpr[EMU_RCX] & mask);
	diversion_free(d);
	return n;
}

/* --- watchpoints ------------------------------------------------------- */

/*
 * A hardware watchpoint traps after the iteration that touched a byte it
 * covers: a write watchpoint what a movs or stos writes, a read
 * watchpoint what a movs, lods, cmps or scas reads, an access watchpoint
 * either. The stop comes inside the instruction after that iteration
 * forwards, before it backwards (gdb compares a write watchpoint's
 * values itself).
 */

static bool covers(const struct point *p, uint64_t addr, uint64_t len)
{
	return addr < p->addr + p->len && addr + len > p->addr;
}

/* Whether iteration j (1-based) of rep, run from the registers r,
 * touches a byte the watchpoint p covers the way p watches. */
static bool iteration_touches(const struct point *p, const struct emu_rep_string *rep,
			      const struct emu_regs *r, uint64_t j)
{
	bool reads = p->kind == GDBSTUB_WATCH_READ || p->kind == GDBSTUB_WATCH_ACCESS;
	bool writes = p->kind == GDBSTUB_WATCH_WRITE || p->kind == GDBSTUB_WATCH_ACCESS;
	if (!reads && !writes)
		return false;
	uint64_t mask = count_mask(rep), len = rep->elem_bytes;
	uint64_t step = (r->rflags & EMU_DF) ? -len : len;
	uint64_t dst = (r->gpr[EMU_RDI] + (j - 1) * step) & mask;
	uint64_t src = (r->gpr[EMU_RSI] + (j - 1) * step) & mask;
	src += rep->src_base == EMU_REP_SRC_FS ? r->fs_base : rep->src_base == EMU_REP_SRC_GS ? r->gs_base : 0;
	return (((writes && rep->writes) || (reads && rep->reads_dst)) && covers(p, dst, len)) ||
	       (reads && rep->reads_src && covers(p, src, len));
}

/* The first (or last) iteration in [lo, hi] (1-based) of the instruction
 * rep, run from the registers r, that touches a byte a watchpoint
 * watches (*which: that watchpoint); 0 when none does. */
static uint64_t watched_iteration(const struct gdb_target *t, const struct emu_rep_string *rep,
				  const struct emu_regs *r, uint64_t lo, uint64_t hi, bool last,
				  const struct point **which)
{
	for (uint64_t n = 0; lo <= hi && n <= hi - lo; n++) {
		uint64_t j = last ? hi - n : lo + n;
		for (size_t i = 0; i < t->n_points; i++)
			if (iteration_touches(&t->points[i], rep, r, j)) {
				*which = &t->points[i];
				return j;
			}
	}
	return 0;
}

/* Whether the bytes before `after` may be a rep string instruction that
 * ends there (a cheap test before going back to look). */
static bool rep_ends_at(struct gdb_target *t, uint64_t after)
{
	enum { SHORTEST = 2, LONGEST = 6 }; /* prefixes, a REX, the opcode */
	uint8_t bytes[LONGEST];
	struct emu_rep_string rep;
	for (size_t len = SHORTEST; len <= LONGEST; len++)
		if (replay_session_read_memory(t->s, after - len, bytes, len) == len &&
		    emu_rep_string(bytes, len, &rep) && rep.len == len)
			return true;
	return false;
}

int target_rep_watch(struct gdb_target *t, struct gdbstub_stop *stop, uint64_t resumed_at,
		     uint64_t resumed_done, bool step)
{
	struct replay_session *s = t->s;
	size_t k = s->sim.current;
	uint64_t now = replay_session_now(s);
	if (stop->reason != GDBSTUB_STOP_WATCHPOINT || t->div || stop->tid != target_current_tid(t) ||
	    now <= target_history_begin(t) || !rep_ends_at(t, resim_thread_regs(&s->sim, k)->rip))
		return 0;
	uint64_t after = resim_thread_regs(&s->sim, k)->rip;
	if (step_history_goto(&t->near, s, now - 1) != 0)
		return -1;
	struct emu_rep_string rep;
	uint64_t m = 0, j = 0;
	const struct point *p;
	if (rep_here(t, k, &rep) && resim_thread_regs(&s->sim, k)->rip + rep.len == after &&
	    (m = iterations_from_here(t, k, &rep)) >= 2)
		j = watched_iteration(t, &rep, resim_thread_regs(&s->sim, k),
				  now - 1 == resumed_at ? resumed_done + 1 : 1, m, false, &p);
	if (j > 0) {
		/* (The run reported the instruction's first watched access;
		 * the iterations done before the continue do not count.) */
		stop->addr = p->addr;
		stop->kind = p->kind;
		if (j < m && enter(t, k, &rep, j))
			return 0;
	}
	/* The run went over the whole instruction again: when only the
	 * iterations done before the move touched a watched byte, the CPU
	 * would not have stopped for them. */
	bool seen_before = j == 0 && m >= 2 && now - 1 == resumed_at && resumed_done > 0 &&
			   watched_iteration(t, &rep, resim_thread_regs(&s->sim, k), 1, resumed_done,
					     false, &p) > 0;
	if (step_history_goto(&t->near, s, now) != 0)
		return -1;
	if (!seen_before)
		return 0;
	if (!step)
		return 1;
	stop_here(t, k, GDBSTUB_STOP_STEPPED, stop);
	return 0;
}

/* Inside thread k's rep instruction after n iterations (the replay at
 * its start): stopped there by a watchpoint p. */
static void watch_stop(struct gdb_target *t, size_t k, const struct emu_rep_string *rep, uint64_t n,
		       const struct point *p, struct gdbstub_stop *stop)
{
	if (n > 0)
		enter(t, k, rep, n);
	stop_here(t, k, GDBSTUB_STOP_WATCHPOINT, stop);
	stop->addr = p->addr;
	stop->kind = p->kind;
}

int target_rep_resume(struct gdb_target *t, enum gdbstub_direction dir, struct gdbstub_stop *stop,
		      uint64_t *done)
{
	*done = t->rep_done;
	if (!t->rep_done)
		return 0;
	size_t k = diversion_thread(t->div);
	bool at_break = target_breakpoint_at(t, diversion_regs(t->div)->rip) != NULL;
	if (dir == GDBSTUB_FORWARD) {
		/* A breakpoint on the instruction: hit after each iteration. */
		if (!at_break) {
			target_end_diversion(t, NULL);
			return 0;
		}
		if (iterate_on(t) == 0)
			return 0;
		stop_here(t, k, GDBSTUB_STOP_BREAKPOINT, stop);
		return 1;
	}
	/* Backwards: before the last iteration done that wrote a watched
	 * byte, or one iteration back for a breakpoint on it. */
	uint64_t n = t->rep_done;
	struct emu_rep_string rep = t->rep;
	target_end_diversion(t, NULL);
	const struct point *p;
	uint64_t j = watched_iteration(t, &rep, resim_thread_regs(&t->s->sim, k), 1, n, true, &p);
	if (j > 0 && (!at_break || j == n)) {
		watch_stop(t, k, &rep, j - 1, p, stop);
		return 1;
	}
	if (!at_break)
		return 0;
	if (n > 1)
		enter(t, k, &rep, n - 1);
	stop_here(t, k, GDBSTUB_STOP_BREAKPOINT, stop);
	return 1;
}

void target_rep_land(struct gdb_target *t, size_t k, struct gdbstub_stop *stop)
{
	struct emu_rep_string rep;
	if (t->div || !rep_here(t, k, &rep))
		return;
	uint64_t n = 0;
	switch (stop->reason) {
	case GDBSTUB_STOP_STEPPED:
	case GDBSTUB_STOP_BREAKPOINT:
		n = iterations_from_here(t, k, &rep);
		if (n >= 2)
			enter(t, k, &rep, n - 1); /* (else at its start, as before) */
		return;
	case GDBSTUB_STOP_WATCHPOINT: {
		if (stop->tid != target_current_tid(t))
			return;
		const struct point *p;
		n = iterations_from_here(t, k, &rep);
		uint64_t j = watched_iteration(t, &rep, resim_thread_regs(&t->s->sim, k), 1, n, true, &p);
		if (j > 1)
			watch_stop(t, k, &rep, j - 1, p, stop);
		return;
	}
	default:
		return;
	}
}

/* A step forward to the iteration done last: a watchpoint's stop when it
 * wrote a watched byte, as a single step of the CPU reports it. */
static void stepped_stop(struct gdb_target *t, size_t k, struct gdbstub_stop *stop)
{
	const struct point *p;
	uint64_t n = t->rep_done;
	if (watched_iteration(t, &t->rep, resim_thread_regs(&t->s->sim, k), n, n, false, &p))
		watch_stop(t, k, &t->rep, 0, p, stop);
	else
		stop_here(t, k, GDBSTUB_STOP_STEPPED, stop);
}

void target_rep_save(const struct gdb_target *t, struct rep_position *p)
{
	p->done = t->rep_done;
	if (!p->done)
		return;
	p->time = replay_session_now(t->s);
	p->thread = diversion_thread(t->div);
	p->rep = t->rep;
}

void target_rep_restore(struct gdb_target *t, const struct rep_position *p)
{
	if (p->done && !t->div && replay_session_now(t->s) == p->time && t->s->sim.current == p->thread)
		enter(t, p->thread, &p->rep, p->done);
}
