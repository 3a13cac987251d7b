/*
 * target.c — the gdbstub target interface over a recorded history: moves
 * the history one instruction at a time in either direction, checking
 * breakpoints on the instruction about to execute and watchpoints on the
 * memory accesses of the instruction just crossed.
 */
#include <stdlib.h>
#include <string.h>

#include "gdbstub/regs_from_emu.h"
#include "target.h"

/* How often a resume asks whether GDB interrupted. */
#define INTERRUPT_POLL_INTERVAL 4096

static size_t ht_threads(void *ctx, int64_t *tids, size_t max)
{
	(void)ctx;
	if (max)
		tids[0] = HISTORY_TID;
	return 1;
}

static int64_t ht_current_thread(void *ctx)
{
	(void)ctx;
	return HISTORY_TID;
}

static int ht_read_registers(void *ctx, int64_t tid, struct gdbstub_regs *out)
{
	struct history_target *t = ctx;
	struct emu_regs r;
	if (tid != HISTORY_TID)
		return -1;
	history_regs(t->history, &r);
	gdbstub_regs_from_emu(&r, UINT64_MAX, out);
	return 0;
}

static enum gdbstub_mem_status ht_read_memory(void *ctx, uint64_t addr, void *buf,
					      size_t len, size_t *done)
{
	struct history_target *t = ctx;
	uint8_t *out = buf;
	for (*done = 0; *done < len; (*done)++) {
		struct region *r = image_find(t->history->image, addr + *done, 1);
		if (!r)
			return GDBSTUB_MEM_ERROR;
		out[*done] = r->bytes[addr + *done - r->start];
	}
	return GDBSTUB_MEM_OK;
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
	return a < b + blen && b < a + alen;
}

/* The first watchpoint instruction i's accesses hit, if any. */
static const struct breakpoint *watch_hit(struct history_target *t, uint64_t i)
{
	struct history *h = t->history;
	for (size_t k = h->first_access[i]; k < h->first_access[i + 1]; k++) {
		const struct history_access *a = &h->accesses[k];
		for (size_t b = 0; b < t->break_count; b++) {
			const struct breakpoint *bp = &t->breaks[b];
			bool kind_matches =
				bp->kind == GDBSTUB_WATCH_ACCESS ||
				(bp->kind == GDBSTUB_WATCH_WRITE && a->is_write) ||
				(bp->kind == GDBSTUB_WATCH_READ && !a->is_write);
			if (bp->kind >= GDBSTUB_WATCH_WRITE && kind_matches &&
			    ranges_overlap(a->addr, a->len, bp->addr, bp->len))
				return bp;
		}
	}
	return NULL;
}

static const struct breakpoint *break_at(struct history_target *t, uint64_t pc)
{
	for (size_t b = 0; b < t->break_count; b++)
		if (t->breaks[b].kind <= GDBSTUB_BREAK_HARDWARE && t->breaks[b].addr == pc)
			return &t->breaks[b];
	return NULL;
}

/*
 * Crosses one instruction in direction dir. Returns true and fills stop
 * when crossing it is a reason to stop: an edge of history, a watchpoint
 * or, forwards, arriving at the fault that ends the history.
 */
static bool move_one(struct history_target *t, enum gdbstub_direction dir,
		     struct gdbstub_stop *stop)
{
	struct history *h = t->history;
	stop->tid = HISTORY_TID;
	if (dir == GDBSTUB_FORWARD && h->now == h->insns) {
		stop->reason = GDBSTUB_STOP_HISTORY_END;
		return true;
	}
	if (dir == GDBSTUB_BACKWARD && h->now == 0) {
		stop->reason = GDBSTUB_STOP_HISTORY_BEGIN;
		return true;
	}
	uint64_t crossed = dir == GDBSTUB_FORWARD ? h->now : h->now - 1;
	history_goto(h, dir == GDBSTUB_FORWARD ? h->now + 1 : h->now - 1);
	const struct breakpoint *w = watch_hit(t, crossed);
	if (w) {
		stop->reason = GDBSTUB_STOP_WATCHPOINT;
		stop->kind = w->kind;
		stop->addr = w->addr;
		return true;
	}
	if (dir == GDBSTUB_FORWARD && h->now == h->insns &&
	    h->end == HISTORY_SIGNALLED) {
		stop->reason = GDBSTUB_STOP_SIGNAL;
		stop->signo = h->signo;
		return true;
	}
	return false;
}

static int ht_step(void *ctx, int64_t tid, enum gdbstub_direction dir,
		   struct gdbstub_stop *stop)
{
	if (tid != HISTORY_TID)
		return -1;
	if (!move_one(ctx, dir, stop))
		stop->reason = GDBSTUB_STOP_STEPPED;
	return 0;
}

static int ht_resume(void *ctx, enum gdbstub_direction dir,
		     gdbstub_interrupt_fn interrupted, void *interrupt_ctx,
		     struct gdbstub_stop *stop)
{
	struct history_target *t = ctx;
	for (uint64_t n = 1;; n++) {
		if (move_one(t, dir, stop))
			return 0;
		const struct breakpoint *bp = break_at(t, t->history->states[t->history->now].rip);
		if (bp) {
			stop->reason = GDBSTUB_STOP_BREAKPOINT;
			stop->kind = bp->kind;
			stop->addr = bp->addr;
			return 0;
		}
		/* Backwards, time 0 is reported as the edge itself so that
		 * GDB says it ran out of history. */
		if (dir == GDBSTUB_BACKWARD && t->history->now == 0) {
			stop->reason = GDBSTUB_STOP_HISTORY_BEGIN;
			return 0;
		}
		if (n % INTERRUPT_POLL_INTERVAL == 0 && interrupted &&
		    interrupted(interrupt_ctx)) {
			stop->reason = GDBSTUB_STOP_INTERRUPTED;
			return 0;
		}
	}
}

static struct breakpoint *find_break(struct history_target *t,
				     enum gdbstub_break_kind kind, uint64_t addr,
				     uint64_t len)
{
	for (size_t b = 0; b < t->break_count; b++) {
		struct breakpoint *bp = &t->breaks[b];
		/* An execution breakpoint's "length" is an instruction-set kind. */
		if (bp->kind == kind && bp->addr == addr &&
		    (kind <= GDBSTUB_BREAK_HARDWARE || bp->len == len))
			return bp;
	}
	return NULL;
}

static int ht_insert_break(void *ctx, enum gdbstub_break_kind kind, uint64_t addr,
			   uint64_t len)
{
	struct history_target *t = ctx;
	struct breakpoint *bp = find_break(t, kind, addr, len);
	if (bp) {
		bp->refs++;
		return 0;
	}
	bp = realloc(t->breaks, (t->break_count + 1) * sizeof(*bp));
	if (!bp)
		return -1;
	t->breaks = bp;
	t->breaks[t->break_count++] = (struct breakpoint){ kind, addr, len, 1 };
	return 0;
}

static int ht_remove_break(void *ctx, enum gdbstub_break_kind kind, uint64_t addr,
			   uint64_t len)
{
	struct history_target *t = ctx;
	struct breakpoint *bp = find_break(t, kind, addr, len);
	if (!bp)
		return -1;
	if (--bp->refs == 0)
		*bp = t->breaks[--t->break_count];
	return 0;
}

static uint64_t ht_now(void *ctx)
{
	struct history_target *t = ctx;
	return t->history->now;
}

static uint64_t ht_end_of_history(void *ctx)
{
	struct history_target *t = ctx;
	return t->history->insns;
}

static int ht_goto_time(void *ctx, uint64_t time)
{
	struct history_target *t = ctx;
	history_goto(t->history, time);
	return 0;
}

static const void *ht_auxv(void *ctx, size_t *len)
{
	struct history_target *t = ctx;
	*len = t->history->image->auxv_len;
	return t->history->image->auxv;
}

static const char *ht_exec_file(void *ctx)
{
	struct history_target *t = ctx;
	return t->history->image->path;
}

const struct gdbstub_target_ops history_target_ops = {
	.threads = ht_threads,
	.current_thread = ht_current_thread,
	.read_registers = ht_read_registers,
	.read_memory = ht_read_memory,
	.step = ht_step,
	.resume = ht_resume,
	.insert_break = ht_insert_break,
	.remove_break = ht_remove_break,
	.now = ht_now,
	.end_of_history = ht_end_of_history,
	.goto_time = ht_goto_time,
	.auxv = ht_auxv,
	.exec_file = ht_exec_file,
};
