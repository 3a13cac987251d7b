/*
 * program_killed.h — a program killed without a delivery stop
 * (program_killed.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_PROGRAM_KILLED_H
#define TTREC_PROGRAM_KILLED_H

#include "recorder/recording_internal.h"

/* A signal that killed the process without a delivery
 * stop (SIGKILL, a seccomp kill) is logged where the recording stands, so
 * that the trace ends at that instruction, killed by it. */
int log_unseen_fatal_signal(struct recording *rec, int signo);
/* After a failure to control the process: whether it is because the
 * program was killed meanwhile (the error is then dropped, and *stop says
 * how the process ended: the recording ends as the program did). */
bool program_killed_meanwhile(struct recording *rec, struct tracee_stop *stop);

#endif
