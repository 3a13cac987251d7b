/*
 * clocks.c — clock_gettime, gettimeofday and time(), which normally run in
 * the vDSO: under ttrec they are real syscalls. Prints only properties that
 * hold on every run.
 */
#include <stdio.h>
#include <sys/time.h>
#include <time.h>

static double seconds(const struct timespec *t)
{
	return (double)t->tv_sec + (double)t->tv_nsec * 1e-9;
}

int main(void)
{
	struct timespec m0, m1, r0, cpu;
	struct timeval tv;
	if (clock_gettime(CLOCK_MONOTONIC, &m0) || clock_gettime(CLOCK_REALTIME, &r0) ||
	    gettimeofday(&tv, NULL) || clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu))
		return perror("clock"), 1;
	time_t t = time(NULL);
	volatile unsigned long spin = 0;
	for (unsigned long i = 0; i < 200000; i++)
		spin += i;
	if (clock_gettime(CLOCK_MONOTONIC, &m1))
		return perror("clock_gettime"), 1;
	double real = seconds(&r0);
	double tod = (double)tv.tv_sec + (double)tv.tv_usec * 1e-6;
	printf("monotonic advances: %s\n", seconds(&m1) > seconds(&m0) ? "yes" : "no");
	printf("monotonic sane: %s\n", seconds(&m1) - seconds(&m0) < 60 ? "yes" : "no");
	printf("realtime after 2020: %s\n", r0.tv_sec > 1577836800 ? "yes" : "no");
	printf("gettimeofday agrees: %s\n", tod - real >= 0 && tod - real < 60 ? "yes" : "no");
	/* time() reads the coarse clock, up to a tick behind CLOCK_REALTIME:
	 * just after a second begins it still says the previous one. */
	printf("time agrees: %s\n", t >= r0.tv_sec - 1 && t - r0.tv_sec < 60 ? "yes" : "no");
	printf("cpu time sane: %s\n", seconds(&cpu) >= 0 && seconds(&cpu) < 60 ? "yes" : "no");
	return 0;
}
