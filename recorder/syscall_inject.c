/*
 * syscall_inject.c — a `syscall` instruction written over the bytes at the
 * tracee's rip, single-stepped once with the chosen registers, then the
 * original bytes and registers put back.
 */
#include <errno.h>
#include <string.h>

#include "recorder/syscall_inject.h"

static const uint8_t syscall_insn[2] = { 0x0f, 0x05 };

int syscall_inject(struct tracee *t, struct remote_memory *rm, long nr,
		   const uint64_t args[6], struct syscall_inject_result *out)
{
	memset(out, 0, sizeof(*out));
	struct user_regs_struct saved, regs;
	if (tracee_get_regs(t, &saved) != 0)
		return -1;
	uint8_t code[sizeof(syscall_insn)];
	if (remote_memory_read(rm, saved.rip, code, sizeof(code)) != EMU_MEM_OK) {
		errno = EFAULT;
		return -1;
	}
	if (remote_memory_poke(rm, saved.rip, syscall_insn, sizeof(syscall_insn)) != 0)
		return -1;

	regs = saved;
	regs.rax = (uint64_t)nr;
	/* No syscall in progress: keeps the kernel's restart logic out of it. */
	regs.orig_rax = (uint64_t)-1;
	regs.rdi = args[0];
	regs.rsi = args[1];
	regs.rdx = args[2];
	regs.r10 = args[3];
	regs.r8 = args[4];
	regs.r9 = args[5];

	int rc = -1, saved_errno = 0;
	struct tracee_stop stop;
	if (tracee_set_regs(t, &regs) != 0)
		goto restore;
	for (;;) {
		if (tracee_step(t, 0, &stop) != 0)
			goto restore;
		if (stop.kind == TRACEE_STOP_STEP)
			break;
		if (stop.kind == TRACEE_STOP_SIGNAL && !out->deferred_signal) {
			/* Arrived before the syscall ran: keep it for the caller. */
			out->deferred_signal = stop.info.si_signo;
			continue;
		}
		if (stop.kind == TRACEE_STOP_GROUP)
			continue;
		errno = ECHILD;
		goto restore;
	}
	if (tracee_get_regs(t, &regs) != 0)
		goto restore;
	out->ret = (int64_t)regs.rax;
	rc = 0;
restore:
	saved_errno = errno;
	if (t->alive) {
		if (remote_memory_poke(rm, saved.rip, code, sizeof(code)) != 0 ||
		    tracee_set_regs(t, &saved) != 0) {
			saved_errno = errno;
			rc = -1;
		}
	}
	errno = saved_errno;
	return rc;
}
