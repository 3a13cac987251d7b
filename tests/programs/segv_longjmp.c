/*
 * segv_longjmp.c — reads of an unmapped address and writes to a read-only
 * page, each caught as SIGSEGV and recovered with siglongjmp; the handler
 * reports the faulting address.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf recover;
static void *volatile fault_addr;

static void on_segv(int signo, siginfo_t *info, void *context)
{
	(void)signo;
	(void)context;
	fault_addr = info->si_addr;
	siglongjmp(recover, 1);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return perror("sigaction"), 1;
	char *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (ro == MAP_FAILED)
		return perror("mmap"), 1;
	volatile int *unmapped = (volatile int *)(uintptr_t)0x10;
	int caught = 0;
	for (int i = 0; i < 3; i++) {
		if (sigsetjmp(recover, 1) == 0) {
			(void)*unmapped;
			printf("no fault?\n");
		} else {
			caught += fault_addr == (void *)unmapped;
		}
		if (sigsetjmp(recover, 1) == 0) {
			((volatile char *)ro)[100 + i] = 1;
			printf("no fault?\n");
		} else {
			caught += fault_addr == ro + 100 + i;
		}
	}
	printf("faults caught at the right address: %d of 6\n", caught);
	return 0;
}
