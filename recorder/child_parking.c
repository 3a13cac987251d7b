/*
 * child_parking.c — parking a fork child in pause() (child_parking.h).
 *
 * The parked child runs the syscall instruction its fork returned from
 * again, as pause(): the kernel reads only rax there, and the child's own
 * rax (0, fork's result in the child) and rip are known, so release needs
 * nothing else. pause() with every signal blocked returns for nothing but
 * a ptrace interrupt (SIGKILL ends the child, as it would have anyway).
 */
#include "recorder/child_parking.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <unistd.h>

enum { SYSCALL_INSN_LEN = 2, ERESTARTNOHAND = 514, TRAP_FLAG = 0x100 };

int child_parking_park(pid_t child, bool clear_tf, struct child_parking *p)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, child, NULL, &r) != 0)
		return -1;
	if (r.rax != 0) {
		errno = EINVAL;
		return -1;
	}
	/* 0f 05 ends at rip: the top two bytes of the word before it. */
	errno = 0;
	long word = ptrace(PTRACE_PEEKTEXT, child, (void *)(r.rip - 8), NULL);
	if (errno != 0)
		return -1;
	if (((uint64_t)word >> 48) != 0x050f) {
		errno = EINVAL;
		return -1;
	}
	uint64_t mask, all = ~0ull;
	if (ptrace(PTRACE_GETSIGMASK, child, (void *)sizeof(mask), &mask) != 0 ||
	    ptrace(PTRACE_SETSIGMASK, child, (void *)sizeof(all), &all) != 0)
		return -1;
	struct user_regs_struct parked = r;
	parked.rip = r.rip - SYSCALL_INSN_LEN;
	parked.rax = SYS_pause;
	parked.orig_rax = (uint64_t)-1;
	if (clear_tf)
		parked.r11 &= ~(uint64_t)TRAP_FLAG;
	if (ptrace(PTRACE_SETREGS, child, NULL, &parked) != 0) {
		int e = errno;
		ptrace(PTRACE_SETSIGMASK, child, (void *)sizeof(mask), &mask);
		errno = e;
		return -1;
	}
	p->sigmask = mask;
	p->syscall_addr = parked.rip;
	return 0;
}

int child_parking_release(pid_t child, const struct child_parking *p)
{
	struct user_regs_struct r;
	if (ptrace(PTRACE_GETREGS, child, NULL, &r) != 0)
		return -1;
	uint64_t after = p->syscall_addr + SYSCALL_INSN_LEN;
	bool before_pause = r.rip == p->syscall_addr && r.rax == SYS_pause;
	bool in_pause = r.rip == after && r.orig_rax == SYS_pause &&
			(int64_t)r.rax == -ERESTARTNOHAND;
	if (!before_pause && !in_pause) {
		errno = EINVAL;
		return -1;
	}
	/* rcx and r11 hold what fork's return left there (without TF, see
	 * park): pause() sets them to the same return address and flags. */
	r.rip = after;
	r.rax = 0;
	r.orig_rax = (uint64_t)-1; /* no restart of pause() */
	if (ptrace(PTRACE_SETREGS, child, NULL, &r) != 0)
		return -1;
	uint64_t mask = p->sigmask;
	return ptrace(PTRACE_SETSIGMASK, child, (void *)sizeof(mask), &mask) == 0 ? 0 : -1;
}

void child_parking_say_taken(const struct child_parking *p)
{
	if (p->taken_fd < 0)
		return;
	ssize_t n;
	do
		n = write(p->taken_fd, "t", 1);
	while (n < 0 && errno == EINTR);
	close(p->taken_fd);
}

int child_parking_format(const struct child_parking *p, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%" PRIx64 ",%" PRIx64 ",%d", p->sigmask, p->syscall_addr,
			 p->taken_fd);
	return n > 0 && (size_t)n < size ? 0 : -1;
}

bool child_parking_parse(const char *arg, struct child_parking *p)
{
	char *end;
	errno = 0;
	unsigned long long mask = strtoull(arg, &end, 16);
	if (errno != 0 || end == arg || *end != ',')
		return false;
	const char *second = end + 1;
	unsigned long long addr = strtoull(second, &end, 16);
	if (errno != 0 || end == second || (*end != 0 && *end != ','))
		return false;
	long fd = -1;
	if (*end == ',') {
		const char *third = end + 1;
		fd = strtol(third, &end, 10);
		if (errno != 0 || end == third || *end != 0 || fd < -1 || fd > 65535)
			return false;
	}
	p->sigmask = mask;
	p->syscall_addr = addr;
	p->taken_fd = (int)fd;
	return true;
}
