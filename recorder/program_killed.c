/*
 * program_killed.c — a program killed by a signal it never saw delivered:
 * SIGKILL (from outside, from itself, the OOM killer) and a seccomp
 * filter's kill stop no thread at a signal-delivery stop, so ptrace shows
 * no delivery to log. The process simply is gone at the recorder's next
 * look, which may be a failing write to its memory while its code was
 * being emulated. Either way the trace must end where the recording stood,
 * with the signal that killed the program (man/idna.5, signal record), so
 * that the replay ends at that instruction killed by it, and ttrec reports
 * the kill rather than a failure of its own.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "recorder/program_killed.h"
#include "recorder/recording_internal.h"
#include "recorder/trace_events.h"

int log_unseen_fatal_signal(struct recording *rec, int signo)
{
	/* A delivery seen at its stop was logged then (a fault's SIGSEGV,
	 * SIGTERM); SIGKILL never stops at one. */
	if (!rec->cur || !rec->cpu || (signo != SIGKILL && rec->last_logged_signo == signo))
		return 0;
	siginfo_t info;
	memset(&info, 0, sizeof(info));
	info.si_signo = signo;
	info.si_code = SI_KERNEL; /* not delivered: the process died of it here */
	if (log_key_frame(rec, IDNA_KEY_KERNEL) != 0)
		return -1;
	rec->res->signals++; /* as the trace counts it */
	return log_signal(rec, &info);
}

/* The process's end, if it has ended: true with *stop filled. Threads
 * other than the leader are reaped first (the leader's end is reported
 * only after theirs); nothing that is not an exit is consumed. */
static bool process_ended(struct recording *rec, struct tracee_stop *stop)
{
	pid_t leader = rec->tracee.pid;
	for (size_t i = 0; i < rec->n_threads; i++) {
		pid_t tid = rec->threads[i]->tracee.pid;
		siginfo_t si = { 0 };
		if (tid != leader)
			waitid(P_PID, (id_t)tid, &si, WEXITED | WNOHANG | __WALL);
	}
	siginfo_t si = { 0 };
	if (waitid(P_PID, (id_t)leader, &si, WEXITED | WNOHANG | __WALL) != 0 || si.si_pid != leader)
		return false;
	memset(stop, 0, sizeof(*stop));
	if (si.si_code == CLD_EXITED) {
		stop->kind = TRACEE_STOP_EXITED;
		stop->exit_status = si.si_status;
	} else {
		stop->kind = TRACEE_STOP_KILLED;
		stop->info.si_signo = si.si_status;
	}
	return true;
}

bool program_killed_meanwhile(struct recording *rec, struct tracee_stop *stop)
{
	if (!rec->tracee.alive || !rec->cur)
		return false;
	/* A kill makes the process's threads exit at once; the failure it
	 * caused can come a moment before the kernel reports the exit. A
	 * process not gone after a while was not killed: the failure stands. */
	struct timespec pause = { 0, 10 * 1000 * 1000 };
	for (int tries = 0;; tries++) {
		if (process_ended(rec, stop))
			break;
		if (tries == 200)
			return false;
		nanosleep(&pause, NULL);
	}
	rec->error = RECORD_OK;
	rec->err[0] = 0;
	return true;
}
