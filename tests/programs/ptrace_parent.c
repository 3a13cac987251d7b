/*
 * ptrace_parent.c — a recorded program's own ptrace calls. "traceme":
 * PTRACE_TRACEME, whose answer is 0 natively and while recorded (where it
 * has no effect: the process is the recorder's to trace). "seize-parent":
 * PTRACE_SEIZE of the parent, which while recorded is ttrec itself and is
 * refused with EPERM rather than stopping the recorder the program waits
 * for; natively it may succeed (then the parent is let go at once).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "traceme";
	long r;
	if (strcmp(mode, "traceme") == 0) {
		r = ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		printf("PTRACE_TRACEME: %ld\n", r);
	} else {
		pid_t parent = getppid();
		r = ptrace(PTRACE_SEIZE, parent, NULL, NULL);
		int e = errno;
		printf("PTRACE_SEIZE of the parent: %ld%s\n", r, r ? (e == EPERM ? " EPERM" : " error") : "");
		if (r == 0)
			ptrace(PTRACE_DETACH, parent, NULL, NULL);
	}
	printf("still running\n");
	return 0;
}
