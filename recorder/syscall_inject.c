/*
 * syscall_inject.c — an instruction of the supervisor's (a `syscall`, a
 * load) written over the bytes at the tracee's rip, single-stepped once
 * with the chosen registers, then the original bytes and registers put
 * back.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#include "recorder/syscall_inject.h"

#define INJECT_MAX 16

/* A signal the kernel raised for the instruction itself (a fault), not
 * one sent to the thread: si_code > 0 is the kernel's. */
static bool is_own_fault(const siginfo_t *si)
{
	return (si->si_signo == SIGSEGV || si->si_signo == SIGBUS) && si->si_code > 0;
}

/* Runs the instruction at rip: one single step, or, for a syscall run
 * without the trap flag, to its entry stop and then its exit stop. */
static int run_injected(struct tracee *t, bool syscall_stops, struct instruction_inject_result *out)
{
	struct tracee_stop stop;
	unsigned stops_left = syscall_stops ? 2 : 1;
	for (;;) {
		if ((syscall_stops ? tracee_syscall(t, 0, &stop) : tracee_step(t, 0, &stop)) != 0)
			return -1;
		if (stop.kind == TRACEE_STOP_STEP) {
			if (--stops_left == 0)
				return 0;
			continue;
		}
		if (stop.kind == TRACEE_STOP_SIGNAL && is_own_fault(&stop.info)) {
			/* The instruction faulted: not delivered, the caller
			 * learns it. */
			out->fault_signal = stop.info.si_signo;
			return 0;
		}
		if (stop.kind == TRACEE_STOP_SIGNAL && !out->deferred_signal) {
			/* Arrived before the instruction ran: kept for the caller. */
			out->deferred_signal = stop.info.si_signo;
			continue;
		}
		if (stop.kind == TRACEE_STOP_GROUP)
			continue;
		errno = ECHILD;
		return -1;
	}
}

static int inject(struct tracee *t, struct remote_memory *rm, const uint8_t *insn, size_t len,
		  const struct user_regs_struct *regs, bool syscall_stops,
		  struct instruction_inject_result *out)
{
	memset(out, 0, sizeof(*out));
	struct user_regs_struct saved;
	if (len > INJECT_MAX || tracee_get_regs(t, &saved) != 0)
		return -1;
	uint8_t code[INJECT_MAX];
	if (remote_memory_read(rm, saved.rip, code, len) != EMU_MEM_OK) {
		errno = EFAULT;
		return -1;
	}
	if (remote_memory_poke(rm, saved.rip, insn, len) != 0)
		return -1;

	struct user_regs_struct run = *regs;
	run.rip = saved.rip;
	/* No syscall in progress: keeps the kernel's restart logic out of it. */
	run.orig_rax = (uint64_t)-1;
	int rc = -1, saved_errno = 0;
	if (tracee_set_regs(t, &run) != 0 || run_injected(t, syscall_stops, out) != 0)
		goto restore;
	if (tracee_get_regs(t, &out->regs) != 0)
		goto restore;
	rc = 0;
restore:
	saved_errno = errno;
	if (t->alive) {
		if (remote_memory_poke(rm, saved.rip, code, len) != 0 ||
		    tracee_set_regs(t, &saved) != 0) {
			saved_errno = errno;
			rc = -1;
		}
	}
	errno = saved_errno;
	return rc;
}

int instruction_inject(struct tracee *t, struct remote_memory *rm, const uint8_t *insn,
		       size_t len, const struct user_regs_struct *regs,
		       struct instruction_inject_result *out)
{
	return inject(t, rm, insn, len, regs, false, out);
}

static int syscall_inject_mode(struct tracee *t, struct remote_memory *rm, long nr,
			       const uint64_t args[6], bool syscall_stops,
			       struct syscall_inject_result *out)
{
	static const uint8_t syscall_insn[2] = { 0x0f, 0x05 };
	memset(out, 0, sizeof(*out));
	struct user_regs_struct regs;
	if (tracee_get_regs(t, &regs) != 0)
		return -1;
	regs.rax = (uint64_t)nr;
	regs.rdi = args[0];
	regs.rsi = args[1];
	regs.rdx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];
	struct instruction_inject_result r;
	if (inject(t, rm, syscall_insn, sizeof(syscall_insn), &regs, syscall_stops, &r) != 0)
		return -1;
	out->ret = (int64_t)r.regs.rax;
	out->deferred_signal = r.deferred_signal;
	return 0;
}

int syscall_inject(struct tracee *t, struct remote_memory *rm, long nr,
		   const uint64_t args[6], struct syscall_inject_result *out)
{
	return syscall_inject_mode(t, rm, nr, args, false, out);
}

int syscall_inject_untrapped(struct tracee *t, struct remote_memory *rm, long nr,
			     const uint64_t args[6], struct syscall_inject_result *out)
{
	return syscall_inject_mode(t, rm, nr, args, true, out);
}
