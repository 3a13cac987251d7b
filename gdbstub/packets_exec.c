/*
 * packets_exec.c — execution in both directions and the stop replies:
 * vCont (c, s, C, S), c, s, C, S, bs, bc. Signals GDB asks to deliver are
 * ignored: history cannot be changed. A step moves the thread chosen with
 * Hc (or vCont's thread); a continue moves the whole program.
 */
#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

/* GDB numbers signals its own way (gdb/signals.def); Linux numbers differ
 * from 7 on. Index: Linux signal; value: GDB signal. */
static const unsigned char gdb_signal_of_linux[32] = {
	[1] = 1, [2] = 2, [3] = 3, [4] = 4, [5] = 5, [6] = 6, [7] = 10,
	[8] = 8, [9] = 9, [10] = 30, [11] = 11, [12] = 31, [13] = 13,
	[14] = 14, [15] = 15, [16] = 0, [17] = 20, [18] = 19, [19] = 17,
	[20] = 18, [21] = 21, [22] = 22, [23] = 16, [24] = 24, [25] = 25,
	[26] = 26, [27] = 27, [28] = 28, [29] = 23, [30] = 32, [31] = 12,
};

enum { GDB_SIGINT = 2, GDB_SIGTRAP = 5 };

static unsigned gdb_signal(int linux_signo)
{
	if (linux_signo > 0 && linux_signo < 32 && gdb_signal_of_linux[linux_signo])
		return gdb_signal_of_linux[linux_signo];
	return GDB_SIGTRAP;
}

int gdbstub_linux_signal(uint64_t gdb_signo)
{
	for (int s = 1; s < 32; s++)
		if (gdb_signal_of_linux[s] && gdb_signal_of_linux[s] == gdb_signo)
			return s;
	return 0;
}

/* Registers sent with every stop so GDB need not ask: rbp, rsp, rip. */
static const unsigned expedited[] = { 6, 7, 16 };

void reply_stop(struct gdbstub *stub, const struct gdbstub_stop *stop)
{
	unsigned sig = GDB_SIGTRAP;
	if (stop->reason == GDBSTUB_STOP_SIGNAL)
		sig = gdb_signal(stop->signo);
	else if (stop->reason == GDBSTUB_STOP_INTERRUPTED)
		sig = GDB_SIGINT;
	stub->last_stop = *stop;
	/* GDB takes the stopped thread as the one registers are read from
	 * (it sends no Hg for it), as a live target makes it. */
	if (stop->tid > 0)
		stub->reg_thread = stop->tid;
	rsp_buf_clear(&stub->reply);
	reply_printf(stub, "T%02xthread:", sig);
	reply_thread_id(stub, stop->tid);
	reply_str(stub, ";");

	struct gdbstub_regs regs;
	if (stub->target.ops->read_registers(stub->target.ctx, stop->tid, &regs) == 0) {
		for (size_t i = 0; i < sizeof(expedited) / sizeof(expedited[0]); i++) {
			const struct gdbstub_reg_desc *r = gdbstub_reg(expedited[i]);
			reply_printf(stub, "%02x:", expedited[i]);
			reply_hex(stub, (const uint8_t *)&regs + r->offset, r->bits / 8);
			reply_str(stub, ";");
		}
	}

	switch (stop->reason) {
	case GDBSTUB_STOP_BREAKPOINT:
		reply_str(stub, stop->kind == GDBSTUB_BREAK_HARDWARE ? "hwbreak:;"
								     : "swbreak:;");
		break;
	case GDBSTUB_STOP_WATCHPOINT:
		reply_printf(stub, "%s:%llx;",
			     stop->kind == GDBSTUB_WATCH_READ ? "rwatch"
			     : stop->kind == GDBSTUB_WATCH_ACCESS ? "awatch"
								   : "watch",
			     (unsigned long long)stop->addr);
		break;
	case GDBSTUB_STOP_HISTORY_BEGIN:
		reply_str(stub, "replaylog:begin;");
		break;
	case GDBSTUB_STOP_HISTORY_END:
		reply_str(stub, "replaylog:end;");
		break;
	case GDBSTUB_STOP_SYSCALL_ENTRY:
		reply_printf(stub, "syscall_entry:%llx;", (unsigned long long)stop->syscall_nr);
		break;
	case GDBSTUB_STOP_SYSCALL_RETURN:
		reply_printf(stub, "syscall_return:%llx;", (unsigned long long)stop->syscall_nr);
		break;
	case GDBSTUB_STOP_STEPPED:
	case GDBSTUB_STOP_SIGNAL:
	case GDBSTUB_STOP_THREAD_CREATED:
	case GDBSTUB_STOP_INTERRUPTED:
		break;
	}
}

/* An interrupt gdb sent right after the resume packet may have arrived
 * in the same read: it is among the bytes not decoded yet (acks may come
 * first). The decoding loop ignores it afterwards: the target has stopped. */
static bool interrupt_unfed(const struct gdbstub *stub)
{
	for (size_t i = 0; i < stub->unfed_len; i++) {
		uint8_t c = stub->unfed[i];
		if (c == 0x03)
			return true;
		if (c != '+' && c != '-')
			return false;
	}
	return false;
}

static bool link_interrupted(void *ctx)
{
	struct gdbstub *stub = ctx;
	if (interrupt_unfed(stub))
		return true;
	return stub->io.interrupted && stub->io.interrupted(stub->io.ctx);
}

static void do_step(struct gdbstub *stub, int64_t tid, enum gdbstub_direction dir)
{
	struct gdbstub_stop stop = { .reason = GDBSTUB_STOP_STEPPED, .tid = tid };
	/* "Any thread" (Hc0, as GDB sends before bs): the thread GDB has
	 * selected, whose registers it reads. */
	if (tid <= 0)
		stop.tid = tid = stub->exec_thread > 0 ? stub->exec_thread : stub_reg_thread(stub);
	stub->console_allowed = true;
	int r = stub->target.ops->step(stub->target.ctx, tid, dir, &stop);
	stub->console_allowed = false;
	if (r < 0) {
		reply_error(stub, GDBSTUB_EIO);
		return;
	}
	reply_stop(stub, &stop);
}

static void do_resume(struct gdbstub *stub, enum gdbstub_direction dir)
{
	struct gdbstub_stop stop = { .reason = GDBSTUB_STOP_STEPPED,
				     .tid = stub_exec_thread(stub) };
	stub->console_allowed = true;
	int r = stub->target.ops->resume(stub->target.ctx, dir, link_interrupted, stub, &stop);
	stub->console_allowed = false;
	if (r < 0) {
		reply_error(stub, GDBSTUB_EIO);
		return;
	}
	reply_stop(stub, &stop);
}

/* c, s, bs, bc: an optional resume address is refused (it would rewrite
 * history); C and S carry a signal to ignore. */
void handle_continue(struct gdbstub *stub, const char *args, const char *end)
{
	if (args != end)
		reply_error(stub, GDBSTUB_EROFS);
	else
		do_resume(stub, GDBSTUB_FORWARD);
}

void handle_step(struct gdbstub *stub, const char *args, const char *end)
{
	if (args != end)
		reply_error(stub, GDBSTUB_EROFS);
	else
		do_step(stub, 0, GDBSTUB_FORWARD);
}

/* "Csig[;addr]": the signal is dropped. */
static bool parse_signal(const char *args, const char *end)
{
	uint64_t sig;
	return hex_parse_u64(&args, end, &sig) && sig < 256 && args == end;
}

void handle_continue_signal(struct gdbstub *stub, const char *args, const char *end)
{
	if (!parse_signal(args, end))
		reply_error(stub, GDBSTUB_EINVAL);
	else
		do_resume(stub, GDBSTUB_FORWARD);
}

void handle_step_signal(struct gdbstub *stub, const char *args, const char *end)
{
	if (!parse_signal(args, end))
		reply_error(stub, GDBSTUB_EINVAL);
	else
		do_step(stub, 0, GDBSTUB_FORWARD);
}

void handle_reverse_step(struct gdbstub *stub, const char *args, const char *end)
{
	if (args != end)
		reply_error(stub, GDBSTUB_EINVAL);
	else
		do_step(stub, 0, GDBSTUB_BACKWARD);
}

void handle_reverse_continue(struct gdbstub *stub, const char *args, const char *end)
{
	if (args != end)
		reply_error(stub, GDBSTUB_EINVAL);
	else
		do_resume(stub, GDBSTUB_BACKWARD);
}

void handle_vcont_query(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	reply_str(stub, "vCont;c;C;s;S");
}

/*
 * "vCont;action[:tid][;action[:tid]]...": a step action for any thread
 * makes this a step of that thread (history moves all threads in their
 * recorded order anyway); otherwise it is a continue. Unknown actions (t,
 * r) are refused as a whole, before anything moves.
 */
void handle_vcont(struct gdbstub *stub, const char *args, const char *end)
{
	bool step = false, resume = false;
	int64_t step_tid = 0;
	const char *p = args;
	while (p < end) {
		char action = *p++;
		if (action == 'C' || action == 'S') {
			uint64_t sig;
			if (!hex_parse_u64(&p, end, &sig) || sig > 255) {
				reply_error(stub, GDBSTUB_EINVAL);
				return;
			}
			action = action == 'C' ? 'c' : 's';
		} else if (action != 'c' && action != 's') {
			reply_error(stub, GDBSTUB_EINVAL);
			return;
		}
		int64_t tid = 0;
		if (p < end && *p == ':' &&
		    (p++, !hex_parse_thread_id(&p, end, &tid))) {
			reply_error(stub, GDBSTUB_EINVAL);
			return;
		}
		if (p < end && !hex_expect(&p, end, ';')) {
			reply_error(stub, GDBSTUB_EINVAL);
			return;
		}
		if (action == 's' && !step) {
			step = true;
			step_tid = tid;
		} else if (action == 'c') {
			resume = true;
		}
	}
	if (step)
		do_step(stub, step_tid > 0 ? step_tid : 0, GDBSTUB_FORWARD);
	else if (resume)
		do_resume(stub, GDBSTUB_FORWARD);
	else
		reply_error(stub, GDBSTUB_EINVAL);
}
