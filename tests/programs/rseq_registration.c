/*
 * rseq_registration.c — whether glibc registered a restartable-sequence
 * area for the thread (recorded: no, the recorder makes rseq fail with
 * ENOSYS, as rr does) and whether sched_getcpu still answers.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

extern const unsigned int __rseq_size __attribute__((weak));

int main(void)
{
	unsigned size = &__rseq_size ? __rseq_size : 0;
	/* A second registration of an area of our own: refused either way
	 * (EBUSY natively when glibc has one, ENOSYS recorded). */
	static char area[32] __attribute__((aligned(32)));
	long r = syscall(SYS_rseq, area, sizeof(area), 0, 0x53053053);
	printf("rseq registered by glibc: %s, own registration: %s, sched_getcpu: %s\n",
	       size ? "yes" : "no", r == 0 ? "accepted" : errno == ENOSYS ? "ENOSYS" : "refused",
	       sched_getcpu() >= 0 ? "answers" : "fails");
	return 0;
}
