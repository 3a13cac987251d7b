/*
 * task_state.h — a process's or thread's scheduler state, the letter
 * /proc/ID/stat gives ('R' running, 'S' asleep, 'T' stopped, ...).
 */
#ifndef TTREC_TASK_STATE_H
#define TTREC_TASK_STATE_H

#include <sys/types.h>

/* The state letter of the process or thread id; 0 if it cannot be read
 * (gone). */
char task_state(pid_t id);

#endif
