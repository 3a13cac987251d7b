/*
 * clock_syscalls.c — the time syscalls made directly (no libc wrapper,
 * no vDSO), in the cases the recorder answers itself and in those it
 * leaves to the kernel: bad pointers, read-only memory, an output across
 * a page boundary, unknown and CPU-time clocks, a time zone, the
 * registers `syscall` leaves, and a time written over code that has run.
 * Prints only what holds on every run. With the argument `offset`, only
 * whether CLOCK_MONOTONIC is past 900 days: run it in a time namespace
 * whose monotonic clock is 1000 days ahead.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long call(long nr, long a, long b)
{
	long r = syscall(nr, a, b);
	return r < 0 ? -errno : r;
}

/* clock_gettime with a bare `syscall`: whether rcx and r11 are what the
 * instruction leaves (the next rip, rflags). */
static void registers_after(void)
{
	struct timespec ts;
	uint64_t flags, next, rcx, r11;
	long ret;
	__asm__ volatile("pushfq\n\t"
			 "popq %[flags]\n\t"
			 "leaq 1f(%%rip), %[next]\n\t"
			 "syscall\n"
			 "1:\n\t"
			 "movq %%rcx, %[rcx]\n\t"
			 "movq %%r11, %[r11]"
			 : "=a"(ret), [flags] "=&r"(flags), [next] "=&r"(next), [rcx] "=&r"(rcx),
			   [r11] "=&r"(r11)
			 : "a"((long)SYS_clock_gettime), "D"((long)CLOCK_MONOTONIC), "S"(&ts)
			 : "rcx", "r11", "memory", "cc");
	printf("raw syscall: result %ld, rcx is the next rip: %s, r11 is rflags: %s\n", ret,
	       rcx == next ? "yes" : "no", r11 == flags ? "yes" : "no");
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "offset") == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		printf("monotonic past 900 days: %s\n", ts.tv_sec > 900l * 86400 ? "yes" : "no");
		return 0;
	}
	struct { struct timespec ts; uint64_t guard; } out;
	memset(&out, 0xaa, sizeof(out));
	long r = call(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&out.ts);
	printf("monotonic: %ld, nsec in range: %s, guard kept: %s\n", r,
	       out.ts.tv_nsec >= 0 && out.ts.tv_nsec < 1000000000 ? "yes" : "no",
	       out.guard == 0xaaaaaaaaaaaaaaaaull ? "yes" : "no");

	/* A clock never goes back, however it is asked. */
	struct timespec prev = out.ts, now;
	int backwards = 0;
	for (int i = 0; i < 2000; i++) {
		if (i % 2 ? clock_gettime(CLOCK_MONOTONIC, &now) : call(SYS_clock_gettime, CLOCK_MONOTONIC, (long)&now))
			return perror("clock_gettime"), 1;
		if (now.tv_sec < prev.tv_sec || (now.tv_sec == prev.tv_sec && now.tv_nsec < prev.tv_nsec))
			backwards++;
		prev = now;
	}
	printf("monotonic went back: %d times\n", backwards);

	printf("NULL buffer: %ld\n", call(SYS_clock_gettime, CLOCK_REALTIME, 0));
	printf("unknown clock: %ld\n", call(SYS_clock_gettime, 12345, (long)&now));
	void *ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	printf("read-only buffer: %ld\n", call(SYS_clock_gettime, CLOCK_REALTIME, (long)ro));
	uint8_t *two = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct timespec *across = (struct timespec *)(two + 4096 - 8);
	r = call(SYS_clock_gettime, CLOCK_REALTIME, (long)across);
	printf("buffer across pages: %ld, after 2020: %s\n", r,
	       across->tv_sec > 1577836800 ? "yes" : "no");
	r = call(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, (long)&now);
	printf("process cpu time: %ld, sane: %s\n", r, now.tv_sec < 60 ? "yes" : "no");

	struct timespec res;
	r = call(SYS_clock_getres, CLOCK_MONOTONIC, (long)&res);
	printf("getres monotonic: %ld, %lld.%09ld\n", r, (long long)res.tv_sec, res.tv_nsec);
	r = call(SYS_clock_getres, CLOCK_REALTIME_COARSE, (long)&res);
	printf("getres realtime coarse: %ld, %lld.%09ld\n", r, (long long)res.tv_sec, res.tv_nsec);
	printf("getres without buffer: %ld\n", call(SYS_clock_getres, CLOCK_BOOTTIME, 0));

	struct timeval tv;
	struct timezone tz = { -1, -1 }, tz_native;
	r = call(SYS_gettimeofday, (long)&tv, (long)&tz);
	gettimeofday(&tv, &tz_native);
	printf("gettimeofday with a zone: %ld, zone as glibc's: %s\n", r,
	       tz.tz_minuteswest == tz_native.tz_minuteswest && tz.tz_dsttime == tz_native.tz_dsttime
		       ? "yes" : "no");
	printf("gettimeofday without either: %ld\n", call(SYS_gettimeofday, 0, 0));

	/* time() writing into code that has already run: the new bytes must be
	 * what runs next (movabs rax, imm64; ret, with imm64 written). */
	uint8_t *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED || ro == MAP_FAILED || two == MAP_FAILED)
		return perror("mmap"), 1;
	static const uint8_t movabs_ret[] = { 0x48, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0xc3 };
	memcpy(code, movabs_ret, sizeof(movabs_ret));
	long (*constant)(void) = (long (*)(void))(uintptr_t)code;
	long before = constant();
	long t = call(SYS_time, (long)(code + 2), 0);
	long after = constant();
	printf("code before: %ld, code after is the time: %s\n", before, after == t ? "yes" : "no");

	registers_after();
	return 0;
}
