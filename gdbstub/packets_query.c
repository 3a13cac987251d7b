/*
 * packets_query.c — connection setup, thread queries and session end:
 * qSupported, QStartNoAckMode, vMustReplyEmpty, qAttached, qC,
 * qfThreadInfo/qsThreadInfo, qSymbol, ?, H, T, D, k, vKill.
 */
#include <string.h>

#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

/* Threads listed by one qfThreadInfo reply: all of them, as GDB asks
 * qsThreadInfo only to learn the list ended. */
#define MAX_LISTED_THREADS 1024

static bool no_args(struct gdbstub *stub, const char *args, const char *end)
{
	if (args == end)
		return true;
	reply_error(stub, GDBSTUB_EINVAL);
	return false;
}

/* Whether gdb's qSupported list [args, end) has this feature. */
static bool gdb_offers(const char *args, const char *end, const char *feature)
{
	size_t n = strlen(feature);
	for (const char *p = args; p + n <= end; p++)
		if ((p == args || p[-1] == ':' || p[-1] == ';') && memcmp(p, feature, n) == 0 &&
		    (p + n == end || p[n] == ';'))
			return true;
	return false;
}

void handle_q_supported(struct gdbstub *stub, const char *args, const char *end)
{
	/* GDB's own feature list does not change what we offer: swbreak and
	 * hwbreak are understood by every GDB that sends them, and older ones
	 * ignore the stop reasons they do not know. */
	reply_printf(stub, "PacketSize=%x", GDBSTUB_PACKET_SIZE);
	reply_str(stub, ";QStartNoAckMode+;ReverseStep+;ReverseContinue+"
		  ";swbreak+;hwbreak+;vContSupported+"
		  ";qXfer:features:read+;qXfer:auxv:read+;qXfer:exec-file:read+"
		  ";qXfer:threads:read+");
	if (stub->target.ops->libraries_svr4_xml)
		reply_str(stub, ";qXfer:libraries-svr4:read+");
	if (stub->target.ops->catch_syscalls)
		reply_str(stub, ";QCatchSyscalls+");
	if (stub->target.ops->pass_signals)
		reply_str(stub, ";QPassSignals+");
	stub->pid = stub->target.ops->process_id ? stub->target.ops->process_id(stub->target.ctx) : 0;
	stub->multiprocess = stub->pid > 0 && gdb_offers(args, end, "multiprocess+");
	if (stub->multiprocess)
		reply_str(stub, ";multiprocess+");
}

/* Hex numbers separated by ';' in [p, end) (and one before the first
 * when lead): their count, or -1 when the text is anything else or holds
 * more than max. */
static long hex_list(const char *p, const char *end, bool lead, uint64_t *out, size_t max)
{
	size_t n = 0;
	while (p < end) {
		if (lead || n > 0) {
			if (*p != ';')
				return -1;
			p++;
		}
		uint64_t v = 0;
		const char *digits = p;
		while (p < end && hex_digit_value(*p) >= 0 && p - digits < 16)
			v = v * 16 + (uint64_t)hex_digit_value(*p++);
		if (p == digits || (p < end && *p != ';') || n == max)
			return -1;
		out[n++] = v;
	}
	return (long)n;
}

/* QCatchSyscalls:0 | QCatchSyscalls:1[;NR]... (numbers in hex) */
void handle_catch_syscalls(struct gdbstub *stub, const char *args, const char *end)
{
	if (!stub->target.ops->catch_syscalls)
		return; /* empty reply: unsupported */
	if (end - args < 1 || (args[0] != '0' && args[0] != '1')) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	bool enable = args[0] == '1';
	uint64_t nrs[256];
	long n = hex_list(args + 1, end, true, nrs, sizeof(nrs) / sizeof(nrs[0]));
	if (n < 0 || (!enable && n > 0)) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (stub->target.ops->catch_syscalls(stub->target.ctx, enable, nrs, (size_t)n) < 0)
		reply_error(stub, GDBSTUB_EIO);
	else
		reply_ok(stub);
}

/* QPassSignals:[SIG;]... (gdb's signal numbers in hex, gdb ends each
 * with a ';') */
void handle_pass_signals(struct gdbstub *stub, const char *args, const char *end)
{
	if (!stub->target.ops->pass_signals)
		return; /* empty reply: unsupported */
	if (end > args && end[-1] == ';')
		end--;
	uint64_t sigs[256];
	long n = hex_list(args, end, false, sigs, sizeof(sigs) / sizeof(sigs[0]));
	if (n < 0) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	uint64_t mask = 0;
	for (long i = 0; i < n; i++) {
		int signo = gdbstub_linux_signal(sigs[i]);
		if (signo > 0 && signo < 64)
			mask |= 1ull << signo;
	}
	stub->target.ops->pass_signals(stub->target.ctx, mask);
	reply_ok(stub);
}

void handle_start_no_ack(struct gdbstub *stub, const char *args, const char *end)
{
	if (!no_args(stub, args, end))
		return;
	/* The ack of this very packet was already sent; GDB expects none
	 * after the OK. */
	stub->no_ack = true;
	reply_ok(stub);
}

void handle_must_reply_empty(struct gdbstub *stub, const char *args, const char *end)
{
	(void)stub;
	(void)args;
	(void)end;
}

void handle_q_attached(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	/* "Attached": quitting GDB detaches, it does not kill the history. */
	reply_str(stub, "1");
}

void handle_q_current_thread(struct gdbstub *stub, const char *args, const char *end)
{
	if (args != end)
		return; /* another q packet starting with qC: unsupported */
	reply_str(stub, "QC");
	reply_thread_id(stub, stub_exec_thread(stub));
}

void handle_q_first_thread(struct gdbstub *stub, const char *args, const char *end)
{
	if (!no_args(stub, args, end))
		return;
	int64_t tids[MAX_LISTED_THREADS];
	size_t n = stub->target.ops->threads(stub->target.ctx, tids, MAX_LISTED_THREADS);
	if (n > MAX_LISTED_THREADS)
		n = MAX_LISTED_THREADS;
	if (n == 0) {
		reply_str(stub, "l");
		return;
	}
	reply_str(stub, "m");
	for (size_t i = 0; i < n; i++) {
		if (i)
			reply_str(stub, ",");
		reply_thread_id(stub, tids[i]);
	}
}

void handle_q_next_thread(struct gdbstub *stub, const char *args, const char *end)
{
	if (no_args(stub, args, end))
		reply_str(stub, "l");
}

void handle_q_symbol(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	reply_ok(stub); /* no symbols wanted */
}

void handle_stop_reason(struct gdbstub *stub, const char *args, const char *end)
{
	if (no_args(stub, args, end))
		reply_stop(stub, &stub->last_stop);
}

/* Hg<tid> / Hc<tid>: 0 and -1 mean "any thread", i.e. the current one. */
void handle_set_thread(struct gdbstub *stub, const char *args, const char *end)
{
	int64_t tid;
	if (args >= end || (*args != 'g' && *args != 'c')) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	char which = *args++;
	if (!hex_parse_thread_id(&args, end, &tid) || args != end) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (tid > 0 && !stub_thread_alive(stub, tid)) {
		reply_error(stub, GDBSTUB_ESRCH);
		return;
	}
	if (which == 'g')
		stub->reg_thread = tid;
	else
		stub->exec_thread = tid;
	reply_ok(stub);
}

void handle_thread_alive(struct gdbstub *stub, const char *args, const char *end)
{
	int64_t tid;
	if (!hex_parse_thread_id(&args, end, &tid) || args != end) {
		reply_error(stub, GDBSTUB_EINVAL);
		return;
	}
	if (tid > 0 && stub_thread_alive(stub, tid))
		reply_ok(stub);
	else
		reply_error(stub, GDBSTUB_ESRCH);
}

void handle_detach(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args; /* "D;pid" names the process; there is only one */
	(void)end;
	stub->finished = true;
	reply_ok(stub);
}

void handle_kill(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	/* GDB does not wait for an answer to k. */
	stub->finished = true;
	stub->suppress_reply = true;
}

void handle_vkill(struct gdbstub *stub, const char *args, const char *end)
{
	(void)args;
	(void)end;
	stub->finished = true;
	reply_ok(stub);
}
