/*
 * job_stop.h — a group stop of the recorded process (SIGSTOP, or SIGTSTP,
 * SIGTTIN, SIGTTOU with their default action) held until it is continued.
 * A traced thread in a group stop runs again as soon as its tracer resumes
 * it; natively it waits for SIGCONT, so the recorder waits for one first.
 */
#ifndef TTREC_JOB_STOP_H
#define TTREC_JOB_STOP_H

#include "recorder/tracee.h"

/* Waits while t is in a group stop: returns 0 when a SIGCONT is pending
 * for it (the caller resumes it: the kernel then delivers the SIGCONT),
 * 1 when t reported another stop meanwhile (in *stop: killed, say), or -1
 * on failure. A recording ended by a user's signal ends the wait too
 * (the program is being killed: its death comes as the next stop). */
int job_stop_hold(struct tracee *t, struct tracee_stop *stop);

#endif
