/*
 * fp_state_signals.c — vector and MXCSR state set just before a system
 * call survives it, and survives a signal handler that the call's signal
 * runs and that changes the same registers: the kernel saves the state in
 * the signal frame and rt_sigreturn puts it back. Each round uses new
 * values, so that a state left over from the previous round shows.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

static void handler(int sig)
{
	(void)sig;
	uint64_t junk = 0xbadbadbadbadull;
	uint32_t mxcsr = 0x1f80 | (3u << 13); /* round toward zero */
	__asm__ volatile("movq %0, %%xmm8\n\t"
			 "ldmxcsr %1"
			 :
			 : "r"(junk), "m"(mxcsr)
			 : "xmm8");
}

int main(void)
{
	if (signal(SIGUSR1, handler) == SIG_ERR)
		return perror("signal"), 1;
	for (uint64_t round = 1; round <= 3; round++) {
		uint64_t a = 0x1111111111111111ull * round, b = 0x2222222222222222ull * round;
		uint32_t mxcsr_in = 0x1f80 | ((uint32_t)round << 13), mxcsr_out = 0;
		uint64_t a_out, b_out;
		/* getppid, then kill(getpid(), SIGUSR1): the handler runs at
		 * the kill's return. */
		__asm__ volatile("movq %[a], %%xmm8\n\t"
				 "movq %[b], %%xmm9\n\t"
				 "ldmxcsr %[mxin]\n\t"
				 "mov $110, %%eax\n\t"
				 "syscall\n\t"
				 "movq %%xmm9, %[bo]\n\t"
				 "mov $39, %%eax\n\t"
				 "syscall\n\t"
				 "mov %%eax, %%edi\n\t"
				 "mov $10, %%esi\n\t"
				 "mov $62, %%eax\n\t"
				 "syscall\n\t"
				 "movq %%xmm8, %[ao]\n\t"
				 "stmxcsr %[mxout]"
				 : [ao] "=&r"(a_out), [bo] "=&r"(b_out), [mxout] "=m"(mxcsr_out)
				 : [a] "r"(a), [b] "r"(b), [mxin] "m"(mxcsr_in)
				 : "rax", "rdi", "rsi", "rcx", "r11", "xmm8", "xmm9", "memory");
		__asm__ volatile("ldmxcsr %0" : : "m"((uint32_t){ 0x1f80 }));
		printf("round %d: xmm9 after getppid %s, xmm8 after the handler %s, mxcsr %s\n",
		       (int)round, b_out == b ? "kept" : "changed", a_out == a ? "kept" : "changed",
		       mxcsr_out == mxcsr_in ? "kept" : "changed");
	}
	return 0;
}
