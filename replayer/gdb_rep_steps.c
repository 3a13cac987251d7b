/*
 * gdb_rep_steps.c — single steps inside a rep string instruction.
 *
 * The CPU single-steps rep movs/stos/lods/cmps/scas one iteration at a
 * time: the trap comes after each iteration, rip still on the instruction,
 * rcx, rsi, rdi and (cmps, scas) the flags as that iteration left them;
 * the last iteration moves rip past it. A live gdb and `record full` show
 * those stops, and a breakpoint on the instruction is hit at each of them,
 * both ways. The replay counts the instruction once (the trace is made
 * that way), so a position inside one exists in the gdb session only: the
 * replay stands at the instruction's start (time t) and a diversion
 * (diversion.h) holds the thread's state after rep_done iterations, run
 * by the same emulator over the memory the replay shows at t. Any move
 * other than those below leaves the position for the instruction's start
 * (a forward one then runs the whole instruction in the replay, as
 * before).
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
 * instruction), -1. */
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
		stop_here(t, k, GDBSTUB_STOP_STEPPED, stop);
		return 1;
	}
	if (diversion_thread(t->div) != k) {
		target_end_diversion(t, NULL);
		return 0;
	}
	if (dir == GDBSTUB_FORWARD) {
		if (iterate_on(t) == 0)
			return 0;
		stop_here(t, k, GDBSTUB_STOP_STEPPED, stop);
		return 1;
	}
	uint64_t back_to = t->rep_done - 1;
	rep = t->rep;
	target_end_diversion(t, NULL);
	if (back_to > 0 && !enter(t, k, &rep, back_to))
		return -1;
	stop_here(t, k, GDBSTUB_STOP_STEPPED, stop);
	return 1;
}

int target_rep_resume(struct gdb_target *t, enum gdbstub_direction dir, struct gdbstub_stop *stop)
{
	if (!t->rep_done)
		return 0;
	size_t k = diversion_thread(t->div);
	if (!target_breakpoint_at(t, diversion_regs(t->div)->rip)) {
		target_end_diversion(t, NULL);
		return 0;
	}
	/* A breakpoint on the instruction: hit after each iteration. */
	if (dir == GDBSTUB_FORWARD) {
		if (iterate_on(t) == 0)
			return 0;
		stop_here(t, k, GDBSTUB_STOP_BREAKPOINT, stop);
		return 1;
	}
	if (target_rep_step(t, k, dir, stop) < 0)
		return -1;
	stop_here(t, k, GDBSTUB_STOP_BREAKPOINT, stop);
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

void target_rep_land(struct gdb_target *t, size_t k, const struct gdbstub_stop *stop)
{
	struct emu_rep_string rep;
	if (t->div || (stop->reason != GDBSTUB_STOP_STEPPED && stop->reason != GDBSTUB_STOP_BREAKPOINT) ||
	    !rep_here(t, k, &rep))
		return;
	uint64_t n = iterations_from_here(t, k, &rep);
	if (n >= 2)
		enter(t, k, &rep, n - 1); /* (else at its start, as before) */
}
