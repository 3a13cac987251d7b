/*
 * fork_wait_events.c — what a parent sees of its children: it waits for
 * stops and continues too (WSTOPPED | WCONTINUED), so a recorder that
 * stopped a child on its way to it would show here. Children made by
 * fork, vfork and posix_spawn (a clone with a stack of its own); the fork
 * child reports its signal mask, which it inherits (SIGUSR1 blocked,
 * SIGUSR2 not).
 */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void report_mask(const char *who)
{
	sigset_t now;
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("%s: SIGUSR1 %s, SIGUSR2 %s\n", who,
	       sigismember(&now, SIGUSR1) ? "blocked" : "open",
	       sigismember(&now, SIGUSR2) ? "blocked" : "open");
	fflush(stdout);
}

/* Every event of the child until it ends, as waitid reports them. */
static int wait_events(pid_t pid, const char *who)
{
	for (;;) {
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)pid, &si, WEXITED | WSTOPPED | WCONTINUED) != 0)
			return perror("waitid"), 1;
		const char *what = si.si_code == CLD_EXITED	 ? "exited"
				   : si.si_code == CLD_KILLED	 ? "killed"
				   : si.si_code == CLD_STOPPED	 ? "stopped"
				   : si.si_code == CLD_CONTINUED ? "continued"
								 : "other";
		printf("%s: %s %d\n", who, what, si.si_status);
		if (si.si_code != CLD_STOPPED && si.si_code != CLD_CONTINUED)
			return 0;
	}
}

int main(void)
{
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);

	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		report_mask("fork child");
		_exit(7);
	}
	if (wait_events(pid, "fork child") != 0)
		return 1;

	pid = vfork();
	if (pid < 0)
		return perror("vfork"), 1;
	if (pid == 0)
		_exit(3);
	if (wait_events(pid, "vfork child") != 0)
		return 1;

	char *const argv[] = { "sh", "-c", "exit 5", NULL };
	extern char **environ;
	int err = posix_spawnp(&pid, "sh", NULL, NULL, argv, environ);
	if (err != 0)
		return fprintf(stderr, "posix_spawnp: %s\n", strerror(err)), 1;
	if (wait_events(pid, "spawned child") != 0)
		return 1;
	report_mask("parent");
	return 0;
}
