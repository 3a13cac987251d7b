/*
 * follow_fork.h — new processes of the recorded one: handed to recorders
 * of their own (--follow-fork), or let go (follow_fork.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_FOLLOW_FORK_H
#define TTREC_FOLLOW_FORK_H

#include "recorder/recording_internal.h"

/* The PTRACE_O_* options that stop every new process at birth: to be
 * handed to a recorder of its own (--follow-fork), or let go with its
 * registers as the program left them (follow_fork_let_go). */
long child_stop_options(void);
/* A fork, vfork or clone event that made a process, without
 * --follow-fork: the child runs on untraced, its r11 cleaned of the trap
 * flag of the parent's single step. */
int follow_fork_let_go(struct recording *rec);
/* A fork, vfork or clone event: the child is handed to a recorder of its
 * own (ttrec re-executed), into <trace minus .idna>.<pid>.idna. */
void follow_fork_child(struct recording *rec);
/* A wait reaped pid: if it is a child's recorder, its end is handled (a
 * child it left parked is released) and true returned. */
bool follow_fork_recorder_ended(struct recording *rec, pid_t pid, int status);
/* Waits for the children's recorders; fills res->children. */
void follow_fork_wait(struct recording *rec);

#endif
