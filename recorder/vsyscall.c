/*
 * vsyscall.c — calls into the legacy vsyscall page.
 *
 * Old static binaries call fixed addresses for gettimeofday, time and
 * getcpu (0xffffffffff600000, +0x400, +0x800). The kernel maps the page
 * execute-only (or not at all): the emulator cannot fetch there, and the
 * kernel itself emulates each entry on the fetch fault as the system call
 * followed by a `ret`. The recorder does the same: the system call runs in
 * the process (injected, the program's memory flushed first and what the
 * call wrote forgotten after), then the `ret` is emulated. The trace holds
 * it as a syscall whose registers are those after the return, so replay
 * needs no code from the page.
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "recorder/native_step.h"
#include "recorder/recording_forget.h"
#include "recorder/recording_internal.h"
#include "recorder/syscall_effects.h"
#include "recorder/syscall_inject.h"
#include "recorder/trace_events.h"
#include "recorder/vsyscall.h"

#define VSYSCALL_BASE 0xffffffffff600000ull

/* The system call behind a vsyscall entry point, or -1. */
static long vsyscall_number(uint64_t rip)
{
	switch (rip) {
	case VSYSCALL_BASE: return SYS_gettimeofday;
	case VSYSCALL_BASE + 0x400: return SYS_time;
	case VSYSCALL_BASE + 0x800: return SYS_getcpu;
	default: return -1;
	}
}

int recording_vsyscall(struct recording *rec)
{
	struct emu_regs *r = emu_regs(rec->cpu);
	long nr = vsyscall_number(r->rip);
	const struct mapping *page = mapping_table_find(rec->maps, r->rip);
	if (nr < 0 || !page || !page->path || strcmp(page->path, "[vsyscall]") != 0)
		return 1; /* a fault like any other */
	uint64_t ret_addr;
	if (memory_mirror_read(rec->mirror, r->gpr[EMU_RSP], &ret_addr, sizeof(ret_addr)) != EMU_MEM_OK)
		return 1; /* the kernel would send SIGSEGV: the native step does */
	if (log_key_frame(rec, IDNA_KEY_EXIT) != 0)
		return -1;
	if (memory_mirror_flush(rec->mirror) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot write the program's memory");
	uint64_t args[6] = { r->gpr[EMU_RDI], r->gpr[EMU_RSI], r->gpr[EMU_RDX], 0, 0, 0 };
	struct syscall_inject_result res;
	recording_trap_guard_before(rec, -1, NULL);
	if (syscall_inject(&rec->cur->tracee, &rec->rm, nr, args, &res) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot run the program's %s: %s",
				      syscall_name(nr), strerror(errno));
	recording_trap_guard_after(rec, -1, 0);
	if (res.deferred_signal) {
		syscall(SYS_tgkill, rec->tracee.pid, rec->cur->tracee.pid, res.deferred_signal);
		rec->native_ran = true;
	}
	recording_apply_syscall_effects(rec, nr, args, res.ret);
	/* The kernel's emulation: the result, then a ret; nothing else moves. */
	r->gpr[EMU_RAX] = (uint64_t)res.ret;
	r->rip = ret_addr;
	r->gpr[EMU_RSP] += 8;
	/* The entry retires as one instruction, as replay counts every
	 * syscall record (and as a native single step sees it). */
	emu_set_icount(rec->cpu, emu_icount(rec->cpu) + 1);
	rec->res->syscalls++;
	return log_kernel(rec, IDNA_KERNEL_SYSCALL, (uint64_t)nr, (uint64_t)res.ret);
}
