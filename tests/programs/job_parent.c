/*
 * job_parent.c — a parent with job control, as a shell is, for the
 * program or for ttrec recording it (tests/record_signals.sh): runs
 * COMMAND as its child in a process group of its own, waits for it with
 * WUNTRACED | WCONTINUED, and at each stop prints the stop signal and
 * continues the job with SIGCONT, to its process group (as fg does) or,
 * with --cont-pid, to the child alone (kill -CONT PID). A SIGTERM or
 * SIGINT the child sends it is counted (--count), or counted and sent
 * back to the child as timeout(1) does (--relay). At the end it prints
 * how many continues it saw and signals it got from the child, and exits
 * with the child's status (128+N if killed by signal N). A SIGTERM or
 * SIGINT from another process kills the job and job_parent.
 *
 * Its lines are printed while the child is stopped, or after its end, so
 * that they come in the same place among the child's in every run.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child;
static volatile sig_atomic_t from_child;
static int relay;

static void on_child_signal(int signo, siginfo_t *si, void *context)
{
	(void)context;
	if (child > 0 && si->si_pid == child) {
		if (relay)
			kill(child, signo);
		from_child++;
		return;
	}
	/* From anyone else (timeout(1) bounding a test): the job ends. */
	if (child > 0)
		kill(-child, SIGKILL);
	signal(signo, SIG_DFL);
	raise(signo);
}

int main(int argc, char **argv)
{
	int cont_pid = 0, count = 0, arg = 1;
	for (; arg < argc && strcmp(argv[arg], "--") != 0; arg++) {
		if (strcmp(argv[arg], "--cont-pid") == 0)
			cont_pid = 1;
		else if (strcmp(argv[arg], "--relay") == 0)
			relay = count = 1;
		else if (strcmp(argv[arg], "--count") == 0)
			count = 1;
	}
	if (arg + 1 >= argc) {
		fprintf(stderr, "usage: job_parent [--cont-pid] [--count|--relay] -- COMMAND [ARG...]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	if (count) {
		struct sigaction sa = { .sa_sigaction = on_child_signal, .sa_flags = SA_SIGINFO | SA_RESTART };
		sigemptyset(&sa.sa_mask);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}
	/* Held until child is set: the child may signal at once. */
	sigset_t counted, old_mask;
	sigemptyset(&counted);
	sigaddset(&counted, SIGTERM);
	sigaddset(&counted, SIGINT);
	sigprocmask(SIG_BLOCK, &counted, &old_mask);
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 2;
	if (pid == 0) {
		setpgid(0, 0);
		sigprocmask(SIG_SETMASK, &old_mask, NULL);
		execvp(argv[arg + 1], argv + arg + 1);
		perror("execvp");
		_exit(127);
	}
	child = pid;
	setpgid(pid, pid);
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	int continues = 0;
	for (;;) {
		int status;
		pid_t r = waitpid(pid, &status, WUNTRACED | WCONTINUED);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return perror("waitpid"), 2;
		if (WIFSTOPPED(status)) {
			printf("job_parent: stopped by %s\n", strsignal(WSTOPSIG(status)));
			kill(cont_pid ? pid : -pid, SIGCONT);
		} else if (WIFCONTINUED(status)) {
			continues++;
		} else {
			printf("job_parent: %d continue(s) seen, %d signal(s) from the child\n",
			       continues, (int)from_child);
			return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
		}
	}
}
