/*
 * signal_state.h — a traced thread's signal masks as the kernel reports
 * them in /proc/PID/status: pending (its own and the process's), blocked,
 * ignored and caught. The recorder uses them to tell whether a signal is
 * waiting that the kernel would deliver before the next instruction.
 */
#ifndef TTREC_SIGNAL_STATE_H
#define TTREC_SIGNAL_STATE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Bit N-1 stands for signal N, as in the kernel's masks. */
struct signal_state {
	uint64_t pending;        /* SigPnd: sent to this thread */
	uint64_t shared_pending; /* ShdPnd: sent to the process */
	uint64_t blocked;        /* SigBlk */
	uint64_t ignored;        /* SigIgn */
	uint64_t caught;         /* SigCgt: a handler is installed */
};

/* A cheap first look (two ptrace calls, no /proc read) for a stopped
 * tracee: whether any signal is queued for the thread or its process.
 * False means none is pending, except one whose siginfo the kernel could
 * not allocate (RLIMIT_SIGPENDING exceeded): the periodic poll, which
 * reads the status, catches those. */
bool signal_state_any_queued(pid_t pid);

/* Reads /proc/PID/status; 0, or -1 with errno set. */
int signal_state_read(pid_t pid, struct signal_state *out);

/* Pending, unblocked signals whose delivery does something the program
 * can see: a handler runs or the process dies. Signals whose action is to
 * be ignored (explicitly, or by default like SIGCHLD) are left out: the
 * kernel would discard them. A stop signal's default action counts: the
 * process stops at that point, as a self-directed raise(SIGSTOP) does at
 * the raising call's return. */
uint64_t signal_state_deliverable(const struct signal_state *s);

/* Whether the program has a handler for signo. */
bool signal_state_caught(const struct signal_state *s, int signo);

#endif
