/*
 * stop_continue.c — job control on itself: raise(SIGSTOP), and a SIGTSTP
 * handler that re-raises SIGTSTP with the default action (as shells'
 * children do), each continued by a SIGCONT from a child process. The
 * stop must happen at the raising call's return and the SIGCONT handler
 * run before the code after it: the handler prints the stage the program
 * had reached (a store after the call, before any other system call).
 *
 * A last stop comes while a second thread waits in read(2): it must go on
 * after the SIGCONT too (its stop is reported to the recorder apart).
 *
 * The child sends SIGCONT once it sees the program stopped in the raising
 * system call (state T or t, /proc/PID/syscall's number, the stop signal
 * no longer pending), in the phase the program announced through shared
 * memory.
 *
 * With the argument wait-usr1 it first prints "ready" and waits for a
 * SIGUSR1 (for `ttrec attach`, tests/record_attach.sh), and makes no
 * thread: glibc aborts in a thread made while attached (its rseq
 * registration, which ttrec refuses, failing where the first thread's
 * succeeded).
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "task_state_letter.h"

static volatile int *phase; /* shared with the child: the syscall to wait for */
static volatile int stage;  /* where the program stands */

static void say(const char *s)
{
	if (write(1, s, strlen(s)) < 0)
		_exit(3);
}

static void on_cont(int signo)
{
	(void)signo;
	char msg[] = "SIGCONT handler at stage 0\n";
	msg[sizeof(msg) - 3] = (char)('0' + stage);
	say(msg);
}

static void on_tstp(int signo)
{
	say("SIGTSTP handler: stopping\n");
	signal(signo, SIG_DFL);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, signo);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	*phase = SYS_kill;
	stage = 5;
	kill(getpid(), signo);
	stage = 6;
	say("SIGTSTP handler: continued\n");
	signal(signo, on_tstp);
}

/* Whether bit signo is set in the mask of the status line named field. */
static int masked(const char *status, const char *field, int signo)
{
	const char *p = strstr(status, field);
	unsigned long long mask = 0;
	return p && sscanf(p + strlen(field), "%llx", &mask) == 1 && ((mask >> (signo - 1)) & 1);
}

/* Whether pid is stopped at the return of system call nr (no stop signal
 * pending any more: it was taken). */
static int stopped_in(pid_t pid, long nr)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	char state = task_state_letter(path);
	if (state != 'T' && state != 't')
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/syscall", (int)pid);
	FILE *f = fopen(path, "r");
	long got = -2;
	if (f) {
		if (fscanf(f, "%ld", &got) != 1)
			got = -2;
		fclose(f);
	}
	if (got != nr)
		return 0;
	char status[4096];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	size_t n = fread(status, 1, sizeof(status) - 1, f);
	fclose(f);
	status[n] = 0;
	static const int stops[] = { SIGSTOP, SIGTSTP };
	for (size_t i = 0; i < 2; i++)
		if (masked(status, "\nSigPnd:", stops[i]) || masked(status, "\nShdPnd:", stops[i]))
			return 0;
	return 1;
}

static int pipe_fds[2];

static void *reader(void *arg)
{
	(void)arg;
	char c;
	ssize_t n = read(pipe_fds[0], &c, 1);
	say(n == 1 ? "reader: read its byte\n" : "reader: read failed\n");
	return NULL;
}

/* The child: continues the program at each stop it announced. */
static void continuer(pid_t parent)
{
	struct timespec ms = { 0, 1000000 };
	for (int stops = 0; stops < 4;) {
		int want = *phase;
		for (long waited = 0; !(want && stopped_in(parent, want)); waited++) {
			if (waited > 600000)
				_exit(2); /* ten minutes: the program is lost */
			nanosleep(&ms, NULL);
			want = *phase;
		}
		*phase = 0;
		kill(parent, SIGCONT);
		stops++;
	}
	_exit(0);
}

static volatile sig_atomic_t usr1_seen;

static void on_usr1(int signo)
{
	(void)signo;
	usr1_seen = 1;
}

int main(int argc, char **argv)
{
	int attached = argc > 1 && strcmp(argv[1], "wait-usr1") == 0;
	if (attached) {
		/* A poll, not sigsuspend: the signal may come while ttrec
		 * attaches, which restarts the call it interrupted. */
		struct timespec ms = { 0, 1000000 };
		signal(SIGUSR1, on_usr1);
		say("ready\n");
		while (!usr1_seen)
			nanosleep(&ms, NULL);
	}
	/* A process group of its own, whose parent is in another one: the
	 * kernel discards SIGTSTP's stop in an orphaned group. */
	setpgid(0, 0);
	phase = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (phase == MAP_FAILED)
		return perror("mmap"), 1;
	signal(SIGCONT, on_cont);
	signal(SIGTSTP, on_tstp);
	pid_t child = fork();
	if (child < 0)
		return perror("fork"), 1;
	if (child == 0)
		continuer(getppid());
	/* glibc's raise blocks signals around tgkill: the SIGCONT handler
	 * runs at the unblocking. */
	say("raise(SIGSTOP)\n");
	*phase = SYS_tgkill;
	stage = 1;
	raise(SIGSTOP);
	stage = 2;
	say("after raise(SIGSTOP)\n");
	/* kill() blocks nothing: the handler runs at its return. */
	*phase = SYS_kill;
	stage = 3;
	kill(getpid(), SIGSTOP);
	stage = 4;
	say("after kill(SIGSTOP)\n");
	kill(getpid(), SIGTSTP);
	stage = 7;
	say("after SIGTSTP\n");
	if (attached) {
		*phase = SYS_kill;
		stage = 8;
		kill(getpid(), SIGSTOP);
		say("after the last stop\n");
	} else {
		pthread_t thread;
		if (pipe(pipe_fds) != 0 || pthread_create(&thread, NULL, reader, NULL) != 0)
			return perror("pipe, pthread_create"), 1;
		struct timespec settle = { 0, 50 * 1000 * 1000 }; /* the reader in read(2), likely */
		nanosleep(&settle, NULL);
		*phase = SYS_kill;
		stage = 8;
		kill(getpid(), SIGSTOP);
		stage = 9;
		say("after the stop with a reader\n");
		if (write(pipe_fds[1], "x", 1) != 1 || pthread_join(thread, NULL) != 0)
			return perror("write, pthread_join"), 1;
	}
	int status;
	if (waitpid(child, &status, 0) != child)
		return perror("waitpid"), 1;
	printf("continuer exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return 0;
}
