/*
 * stack_growth.c — the kernel's growth of the stack, as the emulator's
 * accesses need it.
 *
 * The kernel maps the main thread's stack as far down as it has been
 * touched: an access below the mapping faults, and the fault handler grows
 * the mapping down to the page (within RLIMIT_STACK, short of the guard
 * gap above the mapping below). The emulator's accesses never reach the
 * kernel, and ptrace's memory access does not grow stacks; so the thread
 * itself reads one byte there natively (an injected load), the kernel
 * decides as it would for the program, and the mirror goes on with the
 * mapping table read again there. Without this, every access below the initial
 * stack was a native step of its own.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/native_step.h"
#include "recorder/recording_internal.h"
#include "recorder/signal_state.h"
#include "recorder/stack_growth.h"
#include "recorder/syscall_inject.h"

int recording_grow_stack(void *ctx, uint64_t page_addr)
{
	struct recording *rec = ctx;
	struct tracee *t = &rec->cur->tracee;
	/* A queued signal would stop the injected step before it runs: the
	 * program's own access then faults natively, which delivers it. */
	if (signal_state_any_queued(t->pid))
		return 0;
	struct user_regs_struct regs;
	if (tracee_get_regs(t, &regs) != 0)
		return 0;
	static const uint8_t load[] = { 0x8a, 0x07 }; /* mov al, [rdi] */
	regs.rdi = page_addr;
	struct instruction_inject_result r;
	recording_trap_guard_before(rec, -1, NULL);
	if (instruction_inject(t, &rec->rm, load, sizeof(load), &regs, &r) != 0)
		return 0;
	recording_trap_guard_after(rec, -1, 0);
	if (r.deferred_signal) {
		/* Sent in the moment between the look and the step: sent
		 * again (its siginfo is the kernel's, the number is kept). */
		syscall(SYS_tgkill, rec->tracee.pid, t->pid, r.deferred_signal);
		rec->native_ran = true;
	}
	if (r.fault_signal)
		return 0; /* the kernel refused: the program's access faults */
	if (mapping_table_refresh(rec->maps, t->pid, page_addr, 4096) != 0) {
		recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the program's mappings: %s",
			       strerror(errno));
		return 0;
	}
	return mapping_table_find(rec->maps, page_addr) ? 1 : 0;
}
