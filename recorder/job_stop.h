/*
 * job_stop.h — a group stop of the recorded process (SIGSTOP, or SIGTSTP,
 * SIGTTIN, SIGTTOU with their default action) held until it is continued.
 * A traced thread in a group stop runs again as soon as its tracer resumes
 * it; natively it waits for SIGCONT, so the recorder waits for one first.
 *
 * When ttrec started the program, ttrec is the program's parent's child,
 * standing in for the program: the parent (a shell) must see the job
 * stop, and a SIGCONT it sends to ttrec alone continues the program. So
 * ttrec stops itself with the program's stop signal, and once continued
 * sends the program the SIGCONT it does not have yet. A ttrec stopped
 * with the program (a stop sent to their process group, Ctrl-Z) and
 * continued already does not stop again.
 */
#ifndef TTREC_JOB_STOP_H
#define TTREC_JOB_STOP_H

#include <stdbool.h>

#include "recorder/tracee.h"

/* Waits while t is in a group stop caused by stop_signal: returns 0 when
 * a SIGCONT is pending for it (the caller resumes it: the kernel then
 * delivers the SIGCONT), 1 when t reported another stop meanwhile (in
 * *stop: killed, say), or -1 on failure. stand_in: ttrec started the
 * program (ttrec run), and stops with it. A recording the user ends
 * (ended() true) ends the wait too: the program is being killed, and its
 * death comes as the next stop, or let go. */
int job_stop_hold(struct tracee *t, int stop_signal, bool stand_in, bool (*ended)(void),
		  struct tracee_stop *stop);

#endif
