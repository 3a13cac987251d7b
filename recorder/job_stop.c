/*
 * job_stop.c — holding a group-stopped tracee until SIGCONT. A SIGCONT
 * sent to a traced process in a group stop does not wake it (the tracer
 * does): it stays queued, and shows in the thread's pending masks. So
 * does anything else that ends the stop for good (SIGKILL: the thread's
 * death is reported to wait).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/job_stop.h"
#include "recorder/task_state.h"
#include "recorder/signal_state.h"
#include "recorder/supervisor_signals.h"

/* How often the masks are read: a millisecond, well below what a user or
 * a program sending SIGCONT could notice, and no load on the machine. */
#define HOLD_POLL_NS 1000000L

/* ttrec's own SIGCONTs counted when the last stop was over: one counted
 * since means ttrec was stopped with the program (a stop sent to their
 * group, whose delivery to the program comes after ttrec's) and
 * continued since. (A SIGCONT sent to a running ttrec counts too: the
 * program's next stop is then taken as over at once.) One recording per
 * process. The count is current once raise() returns: ttrec's other
 * thread (the trace writer's) blocks every signal, so the handler runs on
 * this thread at raise's unblocking, never later on that one. */
static unsigned long continues_handled;

static bool continue_pending(pid_t tid)
{
	struct signal_state st;
	if (signal_state_read(tid, &st) != 0)
		return false; /* dying: its end comes through wait */
	return ((st.pending | st.shared_pending) >> (SIGCONT - 1)) & 1;
}

/* Whether process pid is in a stop ('T' in /proc/PID/stat). */
static bool stopped(pid_t pid)
{
	return task_state(pid) == 'T';
}

/* While ttrec is stopped, a process of its own watches for a SIGCONT
 * sent to the program alone (kill -CONT PID), which natively continues
 * the job: it continues ttrec then. Until ttrec ends it (a SIGCONT may
 * come before ttrec has stopped), or dies. */
static pid_t start_watcher(pid_t tid)
{
	pid_t recorder = getpid();
	pid_t w = fork();
	if (w != 0)
		return w;
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	struct timespec tick = { 0, HOLD_POLL_NS };
	while (getppid() == recorder) {
		if (stopped(recorder) && continue_pending(tid))
			kill(recorder, SIGCONT);
		nanosleep(&tick, NULL);
	}
	_exit(0);
}

/* ttrec run: the job stops as a whole, ttrec with the program, and goes
 * on when either is continued. */
static void stop_with_program(pid_t tid, int stop_signal)
{
	if (continue_pending(tid))
		return;
	if (supervisor_signals_continues() == continues_handled && stop_signal > 0) {
		pid_t watcher = start_watcher(tid);
		/* Returns once ttrec is continued, or at once if the kernel
		 * discards the stop (SIGTSTP in an orphaned process group). */
		raise(stop_signal);
		if (watcher > 0) {
			kill(watcher, SIGKILL);
			while (waitpid(watcher, NULL, 0) < 0 && errno == EINTR)
				;
		}
	}
	if (supervisor_signals_continues() != continues_handled && !continue_pending(tid))
		kill(tid, SIGCONT); /* ttrec alone was continued */
}

int job_stop_hold(struct tracee *t, int stop_signal, bool stand_in, bool (*ended)(void),
		  struct tracee_stop *stop)
{
	if (stand_in && supervisor_signals_continues_counted())
		stop_with_program(t->pid, stop_signal);
	continues_handled = supervisor_signals_continues();
	struct timespec tick = { 0, HOLD_POLL_NS };
	for (;;) {
		int r = tracee_poll(t, stop);
		if (r != 0)
			return r;
		if (continue_pending(t->pid) || ended())
			return 0;
		nanosleep(&tick, NULL);
	}
}
