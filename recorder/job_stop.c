/*
 * job_stop.c — holding a group-stopped tracee until SIGCONT. A SIGCONT
 * sent to a traced process in a group stop does not wake it (the tracer
 * does): it stays queued, and shows in the thread's pending masks. So
 * does anything else that ends the stop for good (SIGKILL: the thread's
 * death is reported to wait).
 */
#include <errno.h>
#include <signal.h>
#include <time.h>

#include "recorder/job_stop.h"
#include "recorder/signal_state.h"
#include "recorder/supervisor_signals.h"

/* How often the masks are read: a millisecond, well below what a user or
 * a program sending SIGCONT could notice, and no load on the machine. */
#define HOLD_POLL_NS 1000000L

static bool continue_pending(pid_t tid)
{
	struct signal_state st;
	if (signal_state_read(tid, &st) != 0)
		return false; /* dying: its end comes through wait */
	return ((st.pending | st.shared_pending) >> (SIGCONT - 1)) & 1;
}

int job_stop_hold(struct tracee *t, struct tracee_stop *stop)
{
	struct timespec tick = { 0, HOLD_POLL_NS };
	for (;;) {
		int r = tracee_poll(t, stop);
		if (r != 0)
			return r;
		if (continue_pending(t->pid) || supervisor_signals_stop_request(NULL))
			return 0;
		nanosleep(&tick, NULL);
	}
}
