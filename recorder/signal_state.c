/*
 * signal_state.c — parsing the signal masks of /proc/PID/status and
 * deciding which pending signals the kernel would act on.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

#include "recorder/signal_state.h"

#define BIT(sig) (1ull << ((sig) - 1))

/* Default action "ignore" (SIGCHLD, SIGURG, SIGWINCH) or "continue". The
 * default stops are deliverable: the process stops there (or the kernel
 * discards the signal, in an orphaned process group). */
static const uint64_t default_ignored = BIT(SIGCHLD) | BIT(SIGURG) | BIT(SIGWINCH) | BIT(SIGCONT);

static const char *field(const char *text, const char *name)
{
	const char *p = strstr(text, name);
	return p ? p + strlen(name) : NULL;
}

bool signal_state_any_queued(pid_t pid)
{
	siginfo_t info;
	unsigned flags[] = { 0, PTRACE_PEEKSIGINFO_SHARED };
	for (size_t i = 0; i < 2; i++) {
		struct __ptrace_peeksiginfo_args a = { .off = 0, .flags = flags[i], .nr = 1 };
		long n = ptrace(PTRACE_PEEKSIGINFO, pid, &a, &info);
		if (n != 0)
			return true; /* one queued, or cannot tell: look closer */
	}
	return false;
}

int signal_state_read(pid_t pid, struct signal_state *out)
{
	char path[64], text[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	int saved = errno;
	close(fd);
	if (n <= 0) {
		errno = n < 0 ? saved : EIO;
		return -1;
	}
	text[n] = 0;
	static const char *const names[] = { "\nSigPnd:", "\nShdPnd:", "\nSigBlk:",
					     "\nSigIgn:", "\nSigCgt:" };
	uint64_t *dest[] = { &out->pending, &out->shared_pending, &out->blocked,
			     &out->ignored, &out->caught };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const char *p = field(text, names[i]);
		unsigned long long v;
		if (!p || sscanf(p, "%llx", &v) != 1) {
			errno = EPROTO;
			return -1;
		}
		*dest[i] = v;
	}
	return 0;
}

uint64_t signal_state_deliverable(const struct signal_state *s)
{
	uint64_t live = (s->pending | s->shared_pending) & ~s->blocked;
	uint64_t inert = s->ignored | (default_ignored & ~s->caught);
	return live & ~inert;
}

bool signal_state_caught(const struct signal_state *s, int signo)
{
	return signo >= 1 && signo <= 64 && (s->caught & BIT(signo));
}
