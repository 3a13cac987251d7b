/*
 * sigaltstack.c — a handler installed with SA_ONSTACK runs on the
 * alternate stack (a local's address lies inside it), and the program
 * continues normally afterwards.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char altstack[64 * 1024];
static volatile int on_alt, depth_ok;

static void on_usr2(int signo)
{
	volatile char local = (char)signo;
	uintptr_t a = (uintptr_t)&local;
	on_alt = a >= (uintptr_t)altstack && a < (uintptr_t)altstack + sizeof(altstack);
	stack_t cur;
	depth_ok = sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_ONSTACK);
}

int main(void)
{
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack), .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) != 0)
		return perror("sigaltstack"), 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr2;
	sa.sa_flags = SA_ONSTACK;
	if (sigaction(SIGUSR2, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	raise(SIGUSR2);
	printf("handler on the alternate stack: %s, SS_ONSTACK: %s\n", on_alt ? "yes" : "no",
	       depth_ok ? "yes" : "no");
	return 0;
}
