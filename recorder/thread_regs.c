/*
 * thread_regs.c — the current thread's registers between the emulator and
 * the real thread: read after anything ran natively,
 * written before it does. Calls nothing of the loop's.
 */
#include <errno.h>
#include <string.h>

#include "recorder/recording_internal.h"
#include "recorder/regs_convert.h"
#include "recorder/thread_regs.h"

/* Resume flag: the kernel sets it when resuming after a fault. */
#define RFLAGS_RF (1ull << 16)

void recording_regs_from_kernel(struct recording *rec, const struct user_regs_struct *k,
				const uint8_t *xstate, struct emu_regs *out)
{
	regs_from_kernel(k, xstate, rec->tracee.xstate_size, out);
	/* RF (the kernel sets it when resuming after a fault) only masks
	 * instruction breakpoints until the next instruction completes: not
	 * state the program can observe or the emulator must carry. */
	out->rflags &= ~RFLAGS_RF;
}

/* The registers after a step: those its last stop read, if any. With
 * keep_xstate, the extended state is the one the step started with
 * (rec->xstate). */
static int load_regs(struct recording *rec, bool keep_xstate)
{
	struct native_progress *p = &rec->cur->native;
	struct user_regs_struct k;
	if (p->stop_regs_valid)
		k = p->stop_regs;
	else if (tracee_get_regs(&rec->cur->tracee, &k) != 0)
		goto fail;
	p->stop_regs_valid = false;
	if (!keep_xstate && tracee_get_xstate(&rec->cur->tracee, rec->xstate) != 0)
		goto fail;
	recording_regs_from_kernel(rec, &k, rec->xstate, emu_regs(rec->cpu));
	return 0;
fail:
	return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the program's registers: %s",
			      strerror(errno));
}

int recording_load_regs(struct recording *rec)
{
	return load_regs(rec, false);
}

int recording_load_regs_keep_xstate(struct recording *rec)
{
	return load_regs(rec, true);
}

/* The extended state is written only when the emulator changed it:
 * rec->xstate is the image the kernel holds (from the last load or
 * store), and most steps are system calls between which the program
 * touched no vector or x87 register. */
int recording_store_regs(struct recording *rec)
{
	struct user_regs_struct k;
	rec->cur->native.stop_regs_valid = false;
	if (tracee_get_regs(&rec->cur->tracee, &k) != 0) {
		if (errno == ESRCH && rec->n_threads > 1)
			return RECORDING_THREAD_VANISHED;
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the program's registers: %s",
				      strerror(errno));
	}
	size_t n = rec->tracee.xstate_size;
	memcpy(rec->xstate_next, rec->xstate, n);
	regs_to_kernel(emu_regs(rec->cpu), &k, rec->xstate_next, n);
	bool xstate_changed = memcmp(rec->xstate_next, rec->xstate, n) != 0;
	if (xstate_changed)
		memcpy(rec->xstate, rec->xstate_next, n);
	if (tracee_set_regs(&rec->cur->tracee, &k) != 0 ||
	    (xstate_changed && tracee_set_xstate(&rec->cur->tracee, rec->xstate) != 0))
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot set the program's registers: %s",
				      strerror(errno));
	return 0;
}
