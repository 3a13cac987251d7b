/*
 * job_stop_self.c — a program that stops itself as a job does, for a
 * parent with job control (tests/programs/job_parent.c):
 *   tstp-self   raise(SIGTSTP): the program alone stops;
 *   stop-group  kill(0, SIGSTOP): its whole process group stops.
 * Its SIGCONT handler must run once the parent continues the job, before
 * the code after the stop.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void on_cont(int signo)
{
	(void)signo;
	static const char msg[] = "SIGCONT handler\n";
	if (write(1, msg, sizeof(msg) - 1) < 0)
		_exit(3);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IONBF, 0);
	signal(SIGCONT, on_cont);
	if (strcmp(mode, "tstp-self") == 0) {
		printf("stopping myself\n");
		raise(SIGTSTP);
	} else if (strcmp(mode, "stop-group") == 0) {
		printf("stopping my process group\n");
		kill(0, SIGSTOP);
	} else {
		fprintf(stderr, "usage: job_stop_self tstp-self|stop-group\n");
		return 2;
	}
	printf("after the stop\n");
	return 0;
}
