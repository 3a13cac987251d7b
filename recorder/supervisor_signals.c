/*
 * supervisor_signals.c — ttrec's handler for the signals sent to itself
 * (see the header for the rules). Everything here runs in a signal
 * handler: only async-signal-safe calls.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "recorder/supervisor_signals.h"

static volatile sig_atomic_t program_pid;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_sender;
static volatile sig_atomic_t passed_signal;
static volatile sig_atomic_t passed_sender;
static volatile sig_atomic_t continues;
static bool continues_counted;

/* The parent of pid from /proc/PID/stat (the field after the command's
 * closing parenthesis and the state), or -1. */
static pid_t parent_of(pid_t pid)
{
	char path[32] = "/proc/", digits[12];
	int n = 0;
	do
		digits[n++] = (char)('0' + pid % 10);
	while ((pid /= 10) > 0);
	size_t at = 6;
	while (n > 0)
		path[at++] = digits[--n];
	memcpy(path + at, "/stat", 6);
	char buf[512];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t len = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (len <= 0)
		return -1;
	buf[len] = 0;
	char *p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || !p[2] || p[3] != ' ')
		return -1;
	pid_t ppid = 0;
	for (p += 4; *p >= '0' && *p <= '9'; p++)
		ppid = ppid * 10 + (*p - '0');
	return ppid;
}

/* Whether pid is the program or a process it started (a few generations
 * down). */
static bool program_or_descendant(pid_t pid)
{
	for (int depth = 0; depth < 16 && pid > 1; depth++) {
		if (pid == program_pid)
			return true;
		pid = parent_of(pid);
	}
	return false;
}

/* Sent by a process other than the program and its descendants, and not
 * by the kernel or the terminal: a user's kill, ttrec's parent (a shell,
 * timeout(1)). */
static bool from_outside(const siginfo_t *si)
{
	if (si->si_code > 0)
		return false; /* SI_KERNEL (terminal, hangup) and the like */
	if (si->si_pid == 0 || si->si_pid == getpid())
		return false;
	return program_pid <= 0 || !program_or_descendant(si->si_pid);
}

static bool ends_recording(int signo)
{
	return signo == SIGINT || signo == SIGTERM || signo == SIGHUP;
}

/* The first of them is passed on; a second ends the recording. */
static void end_or_pass(int signo, const siginfo_t *si)
{
	if (stop_signal)
		return; /* the program is being killed already */
	if (program_pid <= 0 || passed_signal) {
		stop_signal = signo;
		stop_sender = si->si_pid;
		/* Now, not at the next look of the main loop: the program
		 * may wait in a system call, and the step waiting for it with
		 * it. Before the program runs, at its start. */
		if (program_pid > 0)
			kill(program_pid, SIGKILL);
		return;
	}
	passed_signal = signo;
	passed_sender = si->si_pid;
	kill(program_pid, signo);
}

static void on_signal(int signo, siginfo_t *si, void *context)
{
	(void)context;
	int saved = errno;
	if (from_outside(si)) {
		if (ends_recording(signo))
			end_or_pass(signo, si);
		else if (program_pid > 0)
			kill(program_pid, signo);
	}
	errno = saved;
}

static void on_continue(int signo)
{
	(void)signo;
	continues++;
}

/* The signals whose default action ends a process, faults aside. */
static bool caught(int signo)
{
	switch (signo) {
	case SIGHUP: case SIGINT: case SIGQUIT: case SIGABRT: case SIGUSR1: case SIGUSR2:
	case SIGPIPE: case SIGALRM: case SIGTERM: case SIGSTKFLT: case SIGVTALRM:
	case SIGPROF: case SIGIO: case SIGPWR:
		return true;
	default:
		return signo >= SIGRTMIN && signo <= SIGRTMAX;
	}
}

int supervisor_signals_install(void)
{
	for (int signo = 1; signo < NSIG; signo++) {
		if (!caught(signo))
			continue;
		struct sigaction old;
		if (sigaction(signo, NULL, &old) != 0)
			return -1;
		if (old.sa_handler != SIG_DFL || (old.sa_flags & SA_SIGINFO))
			continue; /* ignored (or handled): left as it is */
		struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
		sigemptyset(&sa.sa_mask);
		if (sigaction(signo, &sa, NULL) != 0)
			return -1;
	}
	/* SIGCONT continues ttrec whatever its disposition; a handler
	 * counts it (unless ignored: the program inherits that). */
	struct sigaction old;
	if (sigaction(SIGCONT, NULL, &old) != 0)
		return -1;
	if (old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO)) {
		struct sigaction sa = { .sa_handler = on_continue, .sa_flags = SA_RESTART };
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGCONT, &sa, NULL) != 0)
			return -1;
		continues_counted = true;
	}
	return 0;
}

void supervisor_signals_set_program(pid_t pid)
{
	program_pid = pid;
	if (stop_signal && pid > 0)
		kill(pid, SIGKILL); /* asked before the program ran */
}

int supervisor_signals_stop_request(pid_t *sender)
{
	if (sender)
		*sender = stop_sender;
	return stop_signal;
}

int supervisor_signals_passed(pid_t *sender)
{
	if (sender)
		*sender = passed_sender;
	return passed_signal;
}

unsigned long supervisor_signals_continues(void)
{
	return (unsigned long)continues;
}

bool supervisor_signals_continues_counted(void)
{
	return continues_counted;
}
