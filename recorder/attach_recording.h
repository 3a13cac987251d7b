/*
 * attach_recording.h — what the recording asks of attach.c: seizing a
 * process, its requested stop, letting it go (`ttrec attach`; attach.h has
 * the rest).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_ATTACH_RECORDING_H
#define TTREC_ATTACH_RECORDING_H

#include "recorder/recording_internal.h"

/* Whether the user asked an attached recording to let the process go. */
bool attach_stop_requested(void);
/* Seizes opt->attach_pid and stops it (rec->tracee set up). */
int attach_seize(struct recording *rec);
/* Seizes its other threads (entered in the table) and patches its vDSO:
 * the trace can start from its state. */
int attach_begin(struct recording *rec);
/* Puts the emulator's state into the process (or lets a system call a stop
 * request cut short restart), restores its vDSO and detaches it. */
void attach_release(struct recording *rec);
/* At the main loop's signal-poll point: a requested stop (SIGINT/SIGTERM
 * to an attached recording) finishes the recording; the progress line is
 * redrawn when due. */
void recording_poll_point(struct recording *rec);
/* A PTRACE_EVENT_STOP during a native step. True when the step must end
 * there: a stop was requested (the process may be inside a system call);
 * the recording is then finished. */
bool attach_on_interrupt(struct recording *rec);

#endif
