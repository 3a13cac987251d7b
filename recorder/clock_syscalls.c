/*
 * clock_syscalls.c — see clock_syscalls.h. Only clocks that are the same
 * for every process of a time namespace are answered: CPU-time clocks
 * (CLOCK_PROCESS_CPUTIME_ID, CLOCK_THREAD_CPUTIME_ID, the clock ids of
 * other processes) measure the program, not us, and go to the kernel.
 */
#include "recorder/clock_syscalls.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>

static bool clock_is_shared(uint64_t id)
{
	switch (id) {
	case CLOCK_REALTIME:
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
	case CLOCK_TAI:
		return true;
	default:
		return false;
	}
}

/* The 16-byte {seconds, fraction} pair the kernel writes for a timespec
 * or a timeval, at addr. */
static void answer_pair(struct clock_answer *a, uint64_t addr, int64_t sec, int64_t frac)
{
	a->out_addr = addr;
	a->out_len = 16;
	memcpy(a->out, &sec, 8);
	memcpy(a->out + 8, &frac, 8);
}

bool clock_syscall_answer(long nr, const uint64_t args[6], struct clock_answer *a)
{
	memset(a, 0, sizeof(*a));
	struct timespec ts;
	switch (nr) {
	case SYS_clock_gettime:
		if (!clock_is_shared(args[0]) || args[1] == 0 ||
		    clock_gettime((clockid_t)args[0], &ts) != 0)
			return false;
		answer_pair(a, args[1], ts.tv_sec, ts.tv_nsec);
		return true;
	case SYS_clock_getres:
		/* A NULL buffer is allowed here: the result alone. */
		if (!clock_is_shared(args[0]) || clock_getres((clockid_t)args[0], &ts) != 0)
			return false;
		if (args[1])
			answer_pair(a, args[1], ts.tv_sec, ts.tv_nsec);
		return true;
	case SYS_gettimeofday: {
		struct timeval tv;
		if (args[1] != 0 || gettimeofday(&tv, NULL) != 0)
			return false; /* a time zone too: two outputs */
		if (args[0])
			answer_pair(a, args[0], tv.tv_sec, tv.tv_usec);
		return true;
	}
	case SYS_time: {
		/* The kernel's time() is the coarse realtime clock's seconds. */
		if (clock_gettime(CLOCK_REALTIME_COARSE, &ts) != 0)
			return false;
		int64_t sec = ts.tv_sec;
		a->result = sec;
		if (args[0]) {
			a->out_addr = args[0];
			a->out_len = 8;
			memcpy(a->out, &sec, 8);
		}
		return true;
	}
	default:
		return false;
	}
}

bool clock_namespace_shared(pid_t pid)
{
	struct stat self, other;
	char path[64];
	if (stat("/proc/self/ns/time", &self) != 0)
		return errno == ENOENT; /* no time namespaces: one clock for all */
	snprintf(path, sizeof(path), "/proc/%d/ns/time", (int)pid);
	if (stat(path, &other) != 0)
		return false;
	return self.st_dev == other.st_dev && self.st_ino == other.st_ino;
}
