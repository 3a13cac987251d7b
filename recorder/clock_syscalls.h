/*
 * clock_syscalls.h — the time syscalls the recorder answers from its own
 * clocks: clock_gettime, clock_getres, gettimeofday and time on the clocks
 * every process of a time namespace reads alike. A program runs them in
 * its vDSO, which costs nanoseconds; under ttrec the vDSO is hidden, and
 * a syscall run by the real process costs two ptrace stops (tens of
 * microseconds). The recorder reads the same clock through its own vDSO
 * instead and writes what the kernel would have written.
 */
#ifndef TTREC_CLOCK_SYSCALLS_H
#define TTREC_CLOCK_SYSCALLS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* What the kernel would have done: the result, and the bytes it would
 * have written (out_len 0: none). */
struct clock_answer {
	int64_t result;
	uint64_t out_addr;
	uint32_t out_len;
	uint8_t out[16];
};

/* Fills *a and returns true when syscall nr with args reads a clock the
 * recorder reads alike, with at most one output, which must be valid
 * memory; false leaves the syscall to the kernel (another clock, an
 * invalid clock id or a NULL output, a time zone to fill). */
bool clock_syscall_answer(long nr, const uint64_t args[6], struct clock_answer *a);

/* Whether process pid reads the recorder's clocks: both are in the same
 * time namespace (a kernel without time namespaces has one). */
bool clock_namespace_shared(pid_t pid);

#endif
