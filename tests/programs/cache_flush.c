/*
 * cache_flush.c — clflush of a mapped line does nothing the program can
 * see; of a page it may not read, it raises SIGSEGV at that address (the
 * emulator runs it; it used to be a native step). JIT compilers flush the
 * code they write this way.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static sigjmp_buf back;
static volatile void *fault_addr;
static volatile int fault_code;

static void on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	fault_addr = si->si_addr;
	fault_code = si->si_code;
	siglongjmp(back, 1);
}

static void flush(const char *what, volatile void *p)
{
	fault_addr = NULL;
	if (sigsetjmp(back, 1) == 0) {
		__asm__ volatile("clflush (%0)" : : "r"(p) : "memory");
		printf("%s: no fault\n", what);
	} else {
		printf("%s: SIGSEGV code %d at the line: %s\n", what, fault_code,
		       fault_addr == p ? "yes" : "no");
	}
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	if (sigaction(SIGSEGV, &sa, NULL) != 0)
		return 1;
	char *pages = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
			   -1, 0);
	if (pages == MAP_FAILED)
		return 1;
	strcpy(pages, "kept");
	flush("mapped", pages);
	printf("contents after the flush: %s\n", pages);
	if (mprotect(pages + 4096, 4096, PROT_NONE) != 0)
		return 1;
	flush("PROT_NONE", pages + 4096 + 64);
	if (munmap(pages + 4096, 4096) != 0)
		return 1;
	flush("unmapped", pages + 4096 + 128);
	return 0;
}
