/*
 * syscall_answers.c — the system calls ttrec answers itself (see the
 * header for why each).
 */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/syscall_answers.h"

static bool is_stop_signal(uint64_t sig)
{
	return sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU;
}

/* The signal of a kill, tkill or tgkill aimed at the recorder alone, or
 * -1. */
static long signal_to(long nr, const uint64_t args[6], pid_t recorder)
{
	switch (nr) {
	case SYS_kill:
	case SYS_tkill:
		return (pid_t)args[0] == recorder ? (long)args[1] : -1;
	case SYS_tgkill:
		return (pid_t)args[0] == recorder ? (long)args[2] : -1;
	default:
		return -1;
	}
}

enum syscall_answer_kind syscall_answer(long nr, const uint64_t args[6], pid_t recorder,
					bool parent, int64_t *result)
{
	if (nr == SYS_rseq) {
		/* Attached, the process's first thread registered before ttrec
		 * came, and glibc then aborts a new thread whose registration
		 * fails: it is answered 0, nothing registered, and the thread's
		 * area keeps glibc's "cpu not known yet" (sched_getcpu asks the
		 * kernel instead). */
		*result = parent ? -ENOSYS : 0;
		return ANSWER_RSEQ;
	}
	long sig = signal_to(nr, args, recorder);
	if (sig >= 0 && is_stop_signal((uint64_t)sig)) {
		*result = 0;
		return ANSWER_STOP_TTREC;
	}
	if (sig >= 0 && parent) {
		/* An invalid number fails here as it would there (EINVAL). */
		*result = kill(getppid(), (int)sig) == 0 ? 0 : -errno;
		return ANSWER_TO_PARENT;
	}
	if (nr != SYS_ptrace)
		return ANSWER_NONE;
	switch (args[0]) {
	case PTRACE_TRACEME:
		*result = 0;
		return ANSWER_TRACEME;
	case PTRACE_ATTACH:
	case PTRACE_SEIZE:
		if ((pid_t)args[1] != recorder)
			return ANSWER_NONE;
		*result = -EPERM;
		return ANSWER_ATTACH_TTREC;
	default:
		return ANSWER_NONE;
	}
}

const char *syscall_answer_name(enum syscall_answer_kind kind)
{
	switch (kind) {
	case ANSWER_TRACEME: return "ptrace(PTRACE_TRACEME) answered 0 without effect";
	case ANSWER_ATTACH_TTREC: return "ptrace attaching to ttrec refused (EPERM)";
	case ANSWER_STOP_TTREC: return "a stop signal sent to ttrec (its parent) answered 0 without effect";
	default: return NULL;
	}
}
