/*
 * leader_exit_join.c — the main thread leaves with pthread_exit while
 * another thread joins it: the kernel clears the leader's tid word and
 * wakes the join. (ptrace reports a leader's end only with the whole
 * process's, so nothing tells the recorder the word changed.)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_t main_thread;

static void *joiner(void *arg)
{
	(void)arg;
	int rc = pthread_join(main_thread, NULL);
	printf("joined the main thread: %d\n", rc);
	fflush(stdout);
	exit(rc == 0 ? 3 : 1);
}

int main(void)
{
	pthread_t t;
	main_thread = pthread_self();
	if (pthread_create(&t, NULL, joiner, NULL) != 0)
		return 1;
	pthread_exit(NULL);
}
