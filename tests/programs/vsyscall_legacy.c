/*
 * vsyscall_legacy.c — calls into the legacy vsyscall page, as old static
 * binaries do: gettimeofday at 0xffffffffff600000, time at +0x400, getcpu
 * at +0x800. Recorded, each is the system call followed by a return, as
 * the kernel emulates it. Without the page (vsyscall=none) it says so.
 *
 * Each entry counts as one instruction, as a system call does: the last
 * two calls come straight before the exit, with no system call between
 * them whose registers would hide a miscount, so a replay that counted
 * them otherwise ends elsewhere than the recording.
 */
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

typedef long (*gettimeofday_entry)(struct timeval *, struct timezone *);
typedef long (*time_entry)(time_t *);
typedef long (*getcpu_entry)(unsigned *, unsigned *, void *);

static int has_vsyscall_page(void)
{
	char line[512];
	int found = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f))
		found |= strstr(line, "[vsyscall]") != NULL;
	if (f)
		fclose(f);
	return found;
}

int main(void)
{
	if (!has_vsyscall_page()) {
		printf("no vsyscall page\n");
		return 0;
	}
	struct timeval tv = { 0, 0 };
	time_t t = 0;
	unsigned cpu = ~0u, node = ~0u;
	long r_tod = ((gettimeofday_entry)0xffffffffff600000ull)(&tv, NULL);
	long r_time = ((time_entry)0xffffffffff600400ull)(&t);
	long r_cpu = ((getcpu_entry)0xffffffffff600800ull)(&cpu, &node, NULL);
	/*
	 * The three agree with each other and with the ordinary calls. time()
	 * reads the coarse clock, which lags gettimeofday by up to a tick: just
	 * after a second begins it can still say the second before.
	 */
	printf("gettimeofday %ld, plausible %d\n", r_tod, tv.tv_sec > 1000000000 && tv.tv_usec < 1000000);
	printf("time %s, stored %d, agrees %d\n", r_time == (long)t ? "returned its value" : "differs",
	       t == r_time, t + 1 >= tv.tv_sec && t - tv.tv_sec < 60);
	printf("getcpu %ld, cpu set %d, node set %d\n", r_cpu, cpu != ~0u, node != ~0u);
	printf("after: time() agrees %d\n", time(NULL) - t < 60);
	fflush(stdout);
	time_t again = ((time_entry)0xffffffffff600400ull)(NULL);
	again += ((time_entry)0xffffffffff600400ull)(NULL);
	return again > 0 ? 0 : 1;
}
