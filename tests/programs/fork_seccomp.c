/*
 * fork_seccomp.c — a process under a seccomp filter (which its children
 * inherit) forks. The filter answers pause() with EPERM, as sandboxes
 * that allow fork but not pause do: a child must not depend on pause()
 * to wait for anything on its way to its recorder.
 */
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static int deny_pause(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pause, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | 1 /* EPERM */),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(filter) / sizeof(filter[0]), filter };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

int main(void)
{
	if (deny_pause() != 0)
		return perror("seccomp"), 2;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return perror("fork"), 1;
	if (pid == 0) {
		printf("child: fork returned 0\n");
		fflush(stdout);
		_exit(4);
	}
	int status;
	if (waitpid(pid, &status, 0) != pid)
		return perror("waitpid"), 1;
	printf("parent: child exited %d\n", WEXITSTATUS(status));
	return 0;
}
