/*
 * syscall_answers.h — system calls ttrec answers itself instead of letting
 * the real process make them, because made for real they would hurt the
 * recording or the recorder: rseq (the kernel would update the area
 * behind the emulated program: fails with ENOSYS, as under rr; under
 * ttrec attach answered 0 without effect, since glibc aborts a new thread
 * whose registration fails where the first thread's succeeded),
 * ptrace(PTRACE_TRACEME) (the process is ttrec's to trace: answered 0, as
 * natively, without effect) and ptrace attaching to ttrec itself (it
 * would stop the recorder the program waits for: EPERM), and a stop
 * signal (SIGSTOP, SIGTSTP, SIGTTIN, SIGTTOU) sent to ttrec alone: it
 * would have stopped the program's parent natively, which ttrec stands in
 * for, but stopped, ttrec would freeze the program with it (answered 0,
 * without effect). Any other signal the program sends to ttrec alone
 * when ttrec started it (kill(getppid(), SIGTERM)) is sent on to ttrec's
 * own parent, which natively is the program's: ttrec sends it, as the
 * parent's child, and the program gets the result of that kill. The
 * clock reads ttrec answers are clock_syscalls.h's.
 */
#ifndef TTREC_SYSCALL_ANSWERS_H
#define TTREC_SYSCALL_ANSWERS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

enum syscall_answer_kind {
	ANSWER_NONE,          /* the real process makes it */
	ANSWER_RSEQ,          /* -ENOSYS (attached: 0, nothing registered) */
	ANSWER_TRACEME,       /* 0, nothing done: the program cannot be traced */
	ANSWER_ATTACH_TTREC,  /* -EPERM: the program tried to trace ttrec */
	ANSWER_STOP_TTREC,    /* 0, nothing done: a stop signal to ttrec */
	ANSWER_TO_PARENT,     /* a signal to ttrec, sent to ttrec's parent */
};
/* The answers the summary reports, ANSWER_TRACEME on: how many. */
#define ANSWER_REPORTED (ANSWER_STOP_TTREC - ANSWER_TRACEME + 1)

/* Whether ttrec answers syscall nr with args itself (recorder is ttrec's
 * own pid, parent true when ttrec is the program's parent: it started
 * it), and with what result. An ANSWER_TO_PARENT answer has sent the
 * signal already. */
enum syscall_answer_kind syscall_answer(long nr, const uint64_t args[6], pid_t recorder,
					bool parent, int64_t *result);

/* The summary's words for an answer that changed what the program got. */
const char *syscall_answer_name(enum syscall_answer_kind kind);

#endif
