/*
 * supervisor_signals.c — ttrec's handler for the signals sent to itself
 * (see the header for the rules). Everything here runs in a signal
 * handler: only async-signal-safe calls.
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "recorder/supervisor_signals.h"

static volatile sig_atomic_t program_pid;
static volatile sig_atomic_t stop_signal;
static volatile sig_atomic_t stop_sender;

/* Sent by a process outside ttrec's process group (a user's kill), not
 * by the kernel, the terminal or ttrec's own group. */
static bool from_outside(const siginfo_t *si)
{
	if (si->si_code > 0)
		return false; /* SI_KERNEL (terminal, hangup) and the like */
	if (si->si_pid == 0 || si->si_pid == getpid() || si->si_pid == program_pid)
		return false;
	pid_t group = getpgid(si->si_pid);
	return group < 0 || group != getpgrp();
}

static bool ends_recording(int signo)
{
	return signo == SIGINT || signo == SIGTERM || signo == SIGHUP;
}

static void on_signal(int signo, siginfo_t *si, void *context)
{
	(void)context;
	int saved = errno;
	if (ends_recording(signo) && from_outside(si) && !stop_signal) {
		stop_signal = signo;
		stop_sender = si->si_pid;
		/* Now, not at the next look of the main loop: the program may
		 * wait in a system call, and the step waiting for it with it. */
		if (program_pid > 0)
			kill(program_pid, SIGKILL);
	}
	errno = saved;
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
