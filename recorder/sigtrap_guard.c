/*
 * sigtrap_guard.c — the program's SIGTRAP mask and action put back after
 * the recorder's single steps (see the header).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "recorder/sigtrap_guard.h"
#include "recorder/syscall_inject.h"

#define TRAP_BIT (1ull << (SIGTRAP - 1))
#define SIG_IGN_VALUE 1ull
/* Where rt_sigreturn finds the mask: the ucontext at rsp (the frame's
 * return address was popped), uc_sigmask after uc_flags, uc_link,
 * uc_stack (24 bytes) and the 256-byte sigcontext. */
#define UC_SIGMASK_AT_RSP 296
/* Below the red zone: room for a kernel_sigaction while injecting. */
#define SCRATCH_BELOW_RSP 512

static uint64_t handler_of(const uint8_t *action)
{
	uint64_t h;
	memcpy(&h, action, sizeof(h));
	return h;
}

void sigtrap_guard_exec(struct sigtrap_guard *g, bool ignored)
{
	if (ignored) {
		uint64_t ign = SIG_IGN_VALUE;
		memset(g->action, 0, sizeof(g->action));
		memcpy(g->action, &ign, sizeof(ign));
		g->set = true;
	} else {
		g->set = false;
	}
}

static int get_mask(struct tracee *t, uint64_t *mask)
{
	return ptrace(PTRACE_GETSIGMASK, t->pid, (void *)sizeof(*mask), mask) == 0 ? 0 : -1;
}

static int set_mask(struct tracee *t, uint64_t mask)
{
	return ptrace(PTRACE_SETSIGMASK, t->pid, (void *)sizeof(mask), &mask) == 0 ? 0 : -1;
}

void sigtrap_guard_before(struct sigtrap_step *s, struct tracee *t, struct remote_memory *rm,
			  long nr, const uint64_t args[6], uint64_t rsp)
{
	memset(s, 0, sizeof(*s));
	s->mask_known = get_mask(t, &s->mask_before) == 0;
	if (!s->mask_known)
		return;
	uint64_t set;
	/* Read now: the syscall may write its old mask over the new one. */
	if (nr == SYS_rt_sigprocmask && args[1] &&
	    remote_memory_read(rm, args[1], &set, sizeof(set)) == EMU_MEM_OK) {
		s->expect_known = true;
		s->expect_mask = args[0] == SIG_BLOCK	  ? s->mask_before | set
				 : args[0] == SIG_UNBLOCK ? s->mask_before & ~set
							  : set;
	} else if (nr == SYS_rt_sigreturn &&
		   remote_memory_read(rm, rsp + UC_SIGMASK_AT_RSP, &set, sizeof(set)) == EMU_MEM_OK) {
		s->expect_known = true;
		s->expect_mask = set;
	}
	if (nr == SYS_rt_sigaction && args[0] == SIGTRAP && args[1] &&
	    remote_memory_read(rm, args[1], s->action, sizeof(s->action)) == EMU_MEM_OK)
		s->new_action = true;
}

/* Runs an injected syscall with a buffer of the tracee's (len bytes,
 * copied below its red zone and the bytes there put back); *buf_at is
 * replaced by the buffer's address in the tracee. */
static int inject_with_buffer(struct tracee *t, struct remote_memory *rm, long nr,
			      uint64_t args[6], unsigned buf_arg, const void *buf, size_t len)
{
	struct user_regs_struct regs;
	uint8_t saved[sizeof(siginfo_t)];
	if (len > sizeof(saved) || tracee_get_regs(t, &regs) != 0)
		return -1;
	uint64_t at = (regs.rsp - SCRATCH_BELOW_RSP) & ~15ull;
	if (remote_memory_read(rm, at, saved, len) != EMU_MEM_OK ||
	    remote_memory_poke(rm, at, buf, len) != 0)
		return -1;
	args[buf_arg] = at;
	struct syscall_inject_result r;
	int rc = syscall_inject_untrapped(t, rm, nr, args, &r);
	if (remote_memory_poke(rm, at, saved, len) != 0)
		rc = -1;
	if (rc == 0 && r.deferred_signal)
		syscall(SYS_tgkill, t->pid, t->pid, r.deferred_signal); /* not ours to drop */
	return rc;
}

/* Sets the program's SIGTRAP action again. */
static int restore_action(const struct sigtrap_guard *g, struct tracee *t,
			  struct remote_memory *rm)
{
	uint64_t args[6] = { SIGTRAP, 0, 0, 8, 0, 0 };
	return inject_with_buffer(t, rm, SYS_rt_sigaction, args, 1, g->action, sizeof(g->action));
}

/* Puts back what the forced trap reset, for the mask the thread has once
 * the instruction is done (expect). */
static int settle(struct sigtrap_guard *g, struct tracee *t, struct remote_memory *rm,
		  uint64_t expect)
{
	bool blocked = expect & TRAP_BIT;
	bool ignored = g->set && handler_of(g->action) == SIG_IGN_VALUE;
	/* The forced trap changed nothing: SIGTRAP was neither blocked nor
	 * ignored when it came. */
	if (!blocked && !ignored)
		return 0;
	uint64_t now;
	if (blocked && get_mask(t, &now) == 0 && !(now & TRAP_BIT) && set_mask(t, now | TRAP_BIT) != 0)
		return -1;
	if (g->set && restore_action(g, t, rm) != 0)
		return -1;
	return 0;
}

/* The step's own syscall changed the action: taken. */
static void note_action(struct sigtrap_guard *g, const struct sigtrap_step *s, long nr,
			int64_t result)
{
	if (s->new_action && nr == SYS_rt_sigaction && result == 0) {
		memcpy(g->action, s->action, sizeof(g->action));
		g->set = handler_of(g->action) != 0; /* SIG_DFL is 0 */
	}
}

static uint64_t mask_after(const struct sigtrap_step *s, int64_t result)
{
	return s->expect_known && result == 0 ? s->expect_mask : s->mask_before;
}

int sigtrap_guard_after(struct sigtrap_guard *g, struct sigtrap_step *s, struct tracee *t,
			struct remote_memory *rm, long nr, int64_t result)
{
	note_action(g, s, nr, result);
	if (!s->mask_known)
		return 0;
	return settle(g, t, rm, mask_after(s, result));
}

bool sigtrap_guard_withhold(struct sigtrap_guard *g, struct sigtrap_step *s, struct tracee *t,
			    pid_t tgid, struct remote_memory *rm, long nr, uint64_t start_rip,
			    const siginfo_t *info, bool *executed)
{
	struct user_regs_struct regs;
	/* One the kernel forces (int3, a debug trap: si_code > 0) resets the
	 * action natively too, and is delivered as natively. */
	if (info->si_signo != SIGTRAP || info->si_code > 0 || !s->mask_known ||
	    tracee_get_regs(t, &regs) != 0)
		return false;
	*executed = regs.rip != start_rip;
	int64_t result = *executed && nr >= 0 ? (int64_t)regs.rax : -1;
	if (*executed)
		note_action(g, s, nr, result);
	uint64_t mask = *executed ? mask_after(s, result) : s->mask_before;
	bool blocked = mask & TRAP_BIT;
	bool ignored = g->set && handler_of(g->action) == SIG_IGN_VALUE;
	if (!blocked && !ignored)
		return false; /* deliverable natively too */
	settle(g, t, rm, mask);
	if (blocked) {
		/* Natively it would wait, blocked: queued again, by the thread
		 * itself (only a process may queue a signal to itself with
		 * the kernel's or kill()'s si_code). */
		uint64_t args[6] = { (uint64_t)tgid, (uint64_t)t->pid, SIGTRAP, 0, 0, 0 };
		inject_with_buffer(t, rm, SYS_rt_tgsigqueueinfo, args, 3, info, sizeof(*info));
	}
	return true;
}
