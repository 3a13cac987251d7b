/*
 * native_step.c — the only way the real process runs: one instruction at a
 * time (a syscall, an instruction the emulator lacks, a faulting one), with
 * the emulator's state loaded into its thread first.
 *
 * A signal may arrive instead of the step's trap. It is logged and
 * delivered by stepping again with it: if the program catches it, the
 * kernel builds the frame and the step stops at the handler's first
 * instruction (the original instruction did not run); if it is ignored,
 * the instruction runs; if it is fatal, the process dies.
 *
 * A syscall that may wait for another thread (a futex wait, a read from a
 * pipe) must not hold the emulator: when other threads live and the step
 * does not end within a few microseconds, it goes on in the background
 * (THREAD_IN_KERNEL) and the scheduler runs the others; the thread's stop
 * comes back through native_step_resume.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>

#include "recorder/job_stop.h"
#include "recorder/native_step.h"
#include "recorder/recording_internal.h"
#include "recorder/signal_state.h"
#include "recorder/step_affinity.h"
#include "recorder/syscall_flush.h"
#include "recorder/syscall_blocking.h"
#include "recorder/task_state.h"
#include "recorder/thread_regs.h"
#include "recorder/thread_table.h"
#include "recorder/trace_events.h"

/* Looks at a fresh background step this many times (yielding the CPU in
 * between) before leaving it to the scheduler: most syscalls return that
 * quickly, and then the thread's slice simply goes on. */
#define QUICK_POLLS 8

/*
 * A PI futex lock writes FUTEX_WAITERS into the word (and attaches the
 * owner's kernel state) before it sleeps, while it runs in the background:
 * the other threads would go on with the mirror's copy without that bit,
 * and the owner would unlock with a plain store, leaving the waiter asleep
 * on a lock the kernel still gives the owner (glibc then sees
 * FUTEX_OWNER_DIED when the owner ends). So the step stays in the
 * foreground until the thread sleeps (or the step ends), and the copy is
 * forgotten before the others run. The bit already in the word proves
 * nothing: a lock handed over by the kernel keeps it, and the waiter may
 * not have reached the kernel yet (the owner then unlocks, locks again in
 * user space, and the waiter sets the bit in a word the mirror holds).
 * No one but the kernel clears the bit: the owner's unlock sees it and is
 * a syscall, whose effects are described.
 */
static bool pi_lock_unsettled(const struct rec_thread *t)
{
	const struct native_progress *p = &t->native;
	uint64_t addr;
	if (!p->syscall || !syscall_locks_pi_futex(p->nr, p->args, &addr))
		return false;
	/* Gone: its end is collected next. */
	char state = task_state(t->tracee.pid);
	return state != 'S' && state != 0;
}

static void forget_pi_word(struct recording *rec, const struct native_progress *p)
{
	uint64_t addr;
	if (p->syscall && syscall_locks_pi_futex(p->nr, p->args, &addr))
		memory_mirror_invalidate(rec->mirror, addr, sizeof(uint32_t));
}

/* Whether the process has a handler for signo (if its status cannot be
 * read, the process is dying: no handler will run). */
static bool signal_is_caught(pid_t tid, int signo)
{
	struct signal_state st;
	return signal_state_read(tid, &st) == 0 && signal_state_caught(&st, signo);
}

/*
 * A step that ends in a system call a signal interrupted stops at the
 * call's exit with -ERESTART* (512..516) in rax, before the kernel has
 * looked at the signal: the call has not completed. The next resume takes
 * the signal (its own stop) and then restarts the call or runs the handler.
 * (A stop after any other instruction has orig_rax -1.)
 */
static bool syscall_awaits_restart(const struct tracee *t, struct native_progress *p)
{
	struct user_regs_struct *k = &p->stop_regs;
	if (tracee_get_regs(t, k) != 0)
		return false;
	p->stop_regs_valid = true; /* the load after the step takes them */
	int64_t ax = (int64_t)k->rax;
	return (int64_t)k->orig_rax >= 0 && ax >= -516 && ax <= -512 && ax != -515;
}

void recording_trap_guard_before(struct recording *rec, long nr, const uint64_t args[6])
{
	sigtrap_guard_before(&rec->cur->native.trap, &rec->cur->tracee, &rec->rm, nr, args,
			     emu_regs(rec->cpu)->gpr[EMU_RSP]);
}

void recording_trap_guard_after(struct recording *rec, long nr, int64_t result)
{
	/* Best effort: a thread that cannot be set back is dying. */
	sigtrap_guard_after(&rec->sigtrap, &rec->cur->native.trap, &rec->cur->tracee, &rec->rm, nr,
			    result);
}

/* The current thread ended. The leader's end is reported only once every
 * other thread is gone: it is the process's. */
static enum native_outcome thread_ended(struct recording *rec, const struct tracee_stop *stop)
{
	struct rec_thread *t = rec->cur;
	if (t->tracee.pid == rec->tracee.pid) {
		rec->step_hooks->process_ended(rec, stop);
		return NATIVE_EXITED;
	}
	int64_t status = stop->kind == TRACEE_STOP_EXITED ? (int64_t)stop->exit_status << 8
							   : stop->info.si_signo;
	if (stop->kind == TRACEE_STOP_KILLED)
		rec->exiting = true;
	threads_note_exit(rec, t, status);
	return NATIVE_THREAD_EXITED;
}

static enum native_outcome failed(struct recording *rec, const char *what)
{
	recording_fail(rec, RECORD_ERR_PTRACE, "%s: %s", what, strerror(errno));
	return NATIVE_ERROR;
}

/* One stop of the current thread's step: done, or resumed again. */
static enum native_outcome on_stop(struct recording *rec, const struct tracee_stop *stop,
				   bool *resumed)
{
	struct native_progress *p = &rec->cur->native;
	*resumed = false;
	switch (stop->kind) {
	case TRACEE_STOP_STEP:
		if (p->syscall && syscall_awaits_restart(&rec->cur->tracee, p))
			break;
		return p->handler_expected ? NATIVE_HANDLER : NATIVE_EXECUTED;
	case TRACEE_STOP_SIGNAL: {
		bool executed;
		if (sigtrap_guard_withhold(&rec->sigtrap, &p->trap, &rec->cur->tracee, rec->tracee.pid,
					   &rec->rm, p->syscall ? p->nr : -1, emu_regs(rec->cpu)->rip,
					   &stop->info, &executed)) {
			/* The program blocks or ignores it: not delivered
			 * (queued again if blocked), as natively. */
			if (executed)
				return NATIVE_EXECUTED;
			break;
		}
		rec->res->signals++;
		/* A trace that cannot be written ends the recording
		 * (rec->error) but must not cost the program its signal: it is
		 * delivered all the same. */
		log_signal(rec, &stop->info);
		p->deliver = stop->info.si_signo;
		p->handler_expected = signal_is_caught(rec->cur->tracee.pid, p->deliver);
		break;
	}
	case TRACEE_STOP_EXEC:
		return NATIVE_EXEC;
	case TRACEE_STOP_EXITED:
	case TRACEE_STOP_KILLED:
		return rec->cur->state == THREAD_GONE ? NATIVE_THREAD_EXITED : thread_ended(rec, stop);
	case TRACEE_STOP_EVENT:
		/* New threads are ours; new processes are --follow-fork's,
		 * or let go. */
		if (stop->event == PTRACE_EVENT_CLONE && threads_clone_is_thread(rec)) {
			if (threads_on_clone(rec) != 0)
				return NATIVE_ERROR;
		} else if (rec->step_hooks->on_event(rec, stop->event)) {
			return NATIVE_INTERRUPTED;
		}
		break;
	case TRACEE_STOP_GROUP: {
		/* Natively the process now waits for SIGCONT: so does the
		 * recording. The resume below lets the kernel deliver it. A
		 * thread whose step began before the last continue (one that
		 * waited in a system call) may report a stop that is over. */
		if (p->continues_seen != rec->job_continues) {
			p->continues_seen = rec->job_continues;
			break;
		}
		/* Stopped, it may be looked at (a debugger, a core dump):
		 * its memory as the program left it. */
		if (memory_mirror_flush(rec->mirror) != 0)
			return failed(rec, "cannot write the program's memory");
		struct tracee_stop next;
		int held = job_stop_hold(&rec->cur->tracee, stop->info.si_signo,
					 !rec->opt->attach_pid, rec->step_hooks->ended_by_user, &next);
		if (held < 0)
			return failed(rec, "cannot wait for the stopped program");
		if (held > 0)
			return on_stop(rec, &next, resumed);
		p->continues_seen = ++rec->job_continues;
		break;
	}
	}
	p->stop_regs_valid = false;
	/* The kernel writes a signal's frame onto the stack, and a handler
	 * or a core dump may read any of the memory: all of it goes first
	 * (a syscall flushed only its buffer). */
	if (p->deliver && memory_mirror_flush(rec->mirror) != 0)
		return failed(rec, "cannot write the program's memory");
	if (tracee_resume_step(&rec->cur->tracee, p->deliver) != 0)
		return failed(rec, "cannot step the program");
	p->deliver = 0;
	*resumed = true;
	return NATIVE_PENDING;
}

enum native_outcome native_step_resume(struct recording *rec, const struct tracee_stop *stop)
{
	bool resumed;
	enum native_outcome out = on_stop(rec, stop, &resumed);
	if (!resumed)
		return out;
	rec->cur->state = THREAD_IN_KERNEL;
	return NATIVE_PENDING;
}

void native_step_unbind(struct rec_thread *t)
{
	step_affinity_release(&t->affinity, t->tracee.pid);
}

enum native_outcome native_step(struct recording *rec, bool may_block)
{
	struct rec_thread *t = rec->cur;
	if (syscall_flush(rec, t->native.syscall ? t->native.nr : -1, t->native.args) != 0) {
		recording_fail(rec, RECORD_ERR_PTRACE, "cannot write the program's memory");
		return NATIVE_ERROR;
	}
	t->native.background = false;
	t->native.deliver = 0;
	t->native.handler_expected = false;
	t->native.continues_seen = rec->job_continues;
	int stored = recording_store_regs(rec);
	if (stored == RECORDING_THREAD_VANISHED) {
		/* Killed while stopped (another thread's exit_group or fatal
		 * signal): its end is on its way. */
		struct tracee_stop stop;
		if (threads_wait_for(rec, t, &stop) != 0)
			return failed(rec, "cannot wait for the program");
		bool resumed;
		return on_stop(rec, &stop, &resumed);
	}
	if (stored != 0)
		return NATIVE_ERROR;
	bool background = may_block && rec->live_threads > 1;
	/* The thread stays bound after the step: the next one, most often
	 * another bound one, saves three system calls. */
	if (!background && step_affinity_allowed(t->native.syscall ? t->native.nr : -1))
		step_affinity_bind(&t->affinity, t->tracee.pid, step_affinity_home(&rec->home_cpu));
	else
		native_step_unbind(t);
	recording_trap_guard_before(rec, t->native.syscall ? t->native.nr : -1, t->native.args);
	if (tracee_resume_step(&t->tracee, 0) != 0)
		return failed(rec, "cannot step the program");
	for (unsigned polls = 0;;) {
		struct tracee_stop stop;
		int r;
		if (background && (polls < QUICK_POLLS || pi_lock_unsettled(t))) {
			/* Any thread's stops: an execve changes the thread's id. */
			if (threads_collect_stops(rec) != 0)
				return NATIVE_ERROR;
			if (t->state == THREAD_GONE)
				return NATIVE_THREAD_EXITED;
			if (t->state != THREAD_EVENT) {
				polls++;
				sched_yield();
				continue;
			}
			stop = t->stop;
			t->state = THREAD_RUNNABLE;
			r = 1;
		} else if (background) {
			forget_pi_word(rec, &t->native);
			t->native.background = true;
			t->state = THREAD_IN_KERNEL;
			return NATIVE_PENDING;
		} else {
			r = (rec->n_threads > 1 ? threads_wait_for(rec, t, &stop)
						: tracee_wait(&t->tracee, &stop)) == 0 ? 1 : -1;
		}
		if (r < 0)
			return failed(rec, "cannot step the program");
		bool resumed;
		enum native_outcome out = on_stop(rec, &stop, &resumed);
		if (!resumed)
			return out;
		polls = 0;
	}
}
