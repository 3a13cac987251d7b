/*
 * threads_exec.c — execve in a threaded process: the kernel ends every
 * other thread. Without an argument the main thread execs while another
 * waits in pause(); with one, the second thread execs while the main
 * thread waits (it then takes over the process's id).
 */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static void *execer(void *arg)
{
	(void)arg;
	usleep(10000);
	execl("/bin/echo", "echo", "exec from a thread", (char *)NULL);
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argv;
	pthread_t t;
	if (argc > 1) {
		pthread_create(&t, NULL, execer, NULL);
		pause();
	}
	pthread_create(&t, NULL, sleeper, NULL);
	usleep(10000);
	execl("/bin/echo", "echo", "exec from main", (char *)NULL);
	return 1;
}
