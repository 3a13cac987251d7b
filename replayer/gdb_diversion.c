/*
 * gdb_diversion.c — when gdb changes the state it is shown, and what
 * that means for the replay (diversion.h).
 *
 * gdb calls a function in the program by writing registers and memory
 * (the arguments, a return address at a dummy place with a breakpoint on
 * it), resuming, stopping at that breakpoint and writing the saved
 * registers back. So:
 *   - the first write that changes something starts a diversion from the
 *     current time (of the thread whose registers are written; a memory
 *     write alone: of the running thread);
 *   - forward steps and continues run the diversion while its registers
 *     differ from the recorded ones;
 *   - the diversion ends, and the session is exactly where it was in the
 *     recording, when gdb writes back registers equal to the recorded
 *     ones after having changed them (the end of a call), at a resume or
 *     step with the registers as recorded (after `set var`: the changed
 *     memory lasts until then), at any move backward or in time, and at a
 *     monitor command.
 * One thread runs in a diversion; the others stay as recorded.
 */
#include <stdio.h>
#include <string.h>

#include "gdbstub/regs_from_emu.h"
#include "replayer/diversion.h"
#include "replayer/gdb_target_internal.h"

/* Thread k's registers as gdb sees them, in the diversion or as recorded. */
static void regs_of(struct gdb_target *t, size_t k, struct gdbstub_regs *out)
{
	if (t->div && diversion_thread(t->div) == k)
		gdbstub_regs_from_emu(diversion_regs(t->div), UINT64_MAX, out);
	else
		target_recorded_regs(t, k, out);
}

static bool as_recorded(struct gdb_target *t, size_t k, const struct gdbstub_regs *regs)
{
	struct gdbstub_regs rec;
	target_recorded_regs(t, k, &rec);
	return memcmp(&rec, regs, sizeof(rec)) == 0;
}

static void say(struct gdb_target *t, const char *text)
{
	if (t->console)
		t->console(t->console_ctx, text);
}

void target_end_diversion(struct gdb_target *t, const char *why)
{
	if (!t->div)
		return;
	if (t->rep_done)
		why = NULL; /* inside a rep instruction: nothing gdb changed */
	t->rep_done = 0;
	if (why) {
		char line[256];
		snprintf(line, sizeof(line),
			 "ttreplay: %s: what gdb changed is dropped, back to the recording at time %llu\n",
			 why, (unsigned long long)replay_session_now(t->s));
		say(t, line);
	}
	diversion_free(t->div);
	t->div = NULL;
	t->div_regs_changed = false;
}

static bool start_diversion(struct gdb_target *t, size_t k)
{
	if (t->div)
		return true;
	t->div = diversion_new(t->s, k);
	if (!t->div)
		fprintf(stderr, "ttreplay: out of memory for a diversion\n");
	return t->div != NULL;
}

int target_write_registers(void *ctx, int64_t tid, const struct gdbstub_regs *regs)
{
	struct gdb_target *t = ctx;
	if (target_undo_settle(t) != 0)
		return -1;
	long k = tid <= 0 ? (long)(t->div ? diversion_thread(t->div) : t->s->sim.current)
			  : resim_thread_index(&t->s->sim, tid);
	if (k < 0)
		return -1;
	struct gdbstub_regs now;
	regs_of(t, (size_t)k, &now);
	if (memcmp(&now, regs, sizeof(now)) == 0)
		return 0; /* nothing changes */
	bool back = as_recorded(t, (size_t)k, regs);
	t->rep_done = 0; /* inside a rep instruction: now gdb's diversion */
	if (t->div && diversion_thread(t->div) != (size_t)k) {
		if (t->div_regs_changed) {
			fprintf(stderr, "ttreplay: a diversion runs one thread: thread %lld's registers"
					" cannot change while another's have\n", (long long)tid);
			return -1;
		}
		diversion_set_thread(t->div, (size_t)k);
	}
	if (back && t->div_regs_changed) {
		/* The end of a call: gdb restored what it saved. */
		target_end_diversion(t, NULL);
		return 0;
	}
	if (!start_diversion(t, (size_t)k))
		return -1;
	gdbstub_regs_to_emu(regs, diversion_regs(t->div));
	t->div_regs_changed = !back;
	return 0;
}

int target_write_memory(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct gdb_target *t = ctx;
	if (target_undo_settle(t) != 0)
		return -1;
	t->rep_done = 0; /* inside a rep instruction: now gdb's diversion */
	if (!start_diversion(t, t->s->sim.current))
		return -1;
	if (!diversion_write_memory(t->div, addr, buf, len)) {
		fprintf(stderr, "ttreplay: cannot write 0x%llx: the recording never showed memory"
				" mapped there\n", (unsigned long long)addr);
		return -1;
	}
	return 0;
}

bool target_in_diversion(struct gdb_target *t, enum gdbstub_direction dir)
{
	if (!t->div)
		return false;
	size_t k = diversion_thread(t->div);
	struct gdbstub_regs regs;
	regs_of(t, k, &regs);
	if (as_recorded(t, k, &regs))
		target_end_diversion(t, "resuming with the registers as recorded");
	else if (dir == GDBSTUB_BACKWARD)
		target_end_diversion(t, "going backward from a function called from gdb");
	return t->div != NULL;
}

static bool breakpoint_here(void *ctx, uint64_t rip)
{
	return target_breakpoint_at(ctx, rip) != NULL;
}

static void say_fn(void *ctx, const char *text)
{
	say(ctx, text);
}

/* What a called function writes to its standard output or error: on gdb's
 * console, as gdb shows a live inferior's output during a call. The
 * console takes text: a NUL byte ends a piece (gdb would stop at it too). */
static void output_fn(void *ctx, const char *bytes, size_t len)
{
	char piece[4097];
	size_t at = 0;
	while (at < len) {
		size_t n = 0;
		while (at + n < len && n < sizeof(piece) - 1 && bytes[at + n])
			n++;
		memcpy(piece, bytes + at, n);
		piece[n] = 0;
		if (n)
			say(ctx, piece);
		at += n ? n : 1;
	}
}

int target_diversion_run(struct gdb_target *t, bool step, int64_t tid,
			 gdbstub_interrupt_fn interrupted,
			 void *interrupt_ctx, struct gdbstub_stop *stop)
{
	int64_t diverted = t->s->sim.threads[diversion_thread(t->div)].tid;
	if (step && tid > 0 && tid != diverted) {
		/* The other threads do not run in a diversion: a step of one
		 * (gdb steps a thread over its breakpoint before a call runs)
		 * ends where it began, and gdb gives up the call. */
		char line[256];
		snprintf(line, sizeof(line),
			 "ttreplay: only the thread that calls a function runs; thread %lld stays where"
			 " it is (`set scheduler-locking on` keeps gdb from stepping it)\n",
			 (long long)tid);
		say(t, line);
		memset(stop, 0, sizeof(*stop));
		stop->reason = GDBSTUB_STOP_STEPPED;
		stop->tid = tid;
		return 0;
	}
	struct diversion_run r = { .step = step, .breakpoint = breakpoint_here,
				   .interrupted = interrupted, .say = say_fn,
				   .output = output_fn, .ctx = t, .interrupt_ctx = interrupt_ctx,
				   .say_ctx = t, .output_ctx = t };
	int signo = 0;
	enum diversion_stop_reason why = diversion_run(t->div, &r, &signo);
	memset(stop, 0, sizeof(*stop));
	stop->tid = diverted;
	switch (why) {
	case DIVERSION_STEPPED:
		stop->reason = GDBSTUB_STOP_STEPPED;
		break;
	case DIVERSION_BREAKPOINT:
		stop->reason = GDBSTUB_STOP_BREAKPOINT;
		stop->addr = diversion_regs(t->div)->rip;
		stop->kind = target_breakpoint_at(t, stop->addr)->kind;
		break;
	case DIVERSION_SIGNAL:
		stop->reason = GDBSTUB_STOP_SIGNAL;
		stop->signo = signo;
		break;
	case DIVERSION_INTERRUPTED:
		stop->reason = GDBSTUB_STOP_INTERRUPTED;
		break;
	}
	return 0;
}
