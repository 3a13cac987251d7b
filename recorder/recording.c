/*
 * recording.c — setting a recording up, the main loop, and the handling of
 * each way the emulator stops: budget spent (checkpoint), special
 * instruction, instruction it lacks, fault.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "recorder/attach.h"
#include "recorder/attach_recording.h"
#include "recorder/auxv_patch.h"
#include "recorder/clock_syscalls.h"
#include "recorder/follow_fork.h"
#include "recorder/hand_back.h"
#include "recorder/jit_perf_map.h"
#include "recorder/kernel_writes.h"
#include "recorder/native_step.h"
#include "recorder/program_killed.h"
#include "recorder/random_insn.h"
#include "recorder/recording_forget.h"
#include "recorder/recording_internal.h"
#include "recorder/regs_convert.h"
#include "recorder/setid_check.h"
#include "recorder/signal_state.h"
#include "recorder/slice_switch.h"
#include "recorder/stack_growth.h"
#include "recorder/supervisor_signals.h"
#include "recorder/syscall_answers.h"
#include "recorder/syscall_blocking.h"
#include "recorder/syscall_effects.h"
#include "recorder/syscall_flush.h"
#include "recorder/thread_regs.h"
#include "recorder/thread_table.h"
#include "recorder/trace_events.h"
#include "recorder/vsyscall.h"

#define DEFAULT_CHECKPOINT_INTERVAL 100000000ull /* see BENCHMARKS.md: checkpoint interval */
/* Instructions emulated between two looks at the thread's pending signals:
 * a few milliseconds of emulation (DESIGN.md, Recording step 7). */
#define SIGNAL_POLL_INTERVAL (1ull << 22)
/* Instructions a thread runs before the others get their turn: about ten
 * milliseconds of emulation, a kernel's time slice. */
#define THREAD_SLICE (1ull << 20)
/* ... and at most this long, in ttrec's own CPU time (slice_clock.h): a
 * thread that mostly makes system calls retires few instructions (one
 * looping on open/close held its slice for 0.3 s). */
#define THREAD_SLICE_NS 10000000ull
#define SYS_EXIT_GROUP_NR 231

/* prctl(PR_SET_TSC) sets whether the thread's rdtsc faults: the emulator
 * then lets the CPU run it, which raises the SIGSEGV the program expects. */
static void note_tsc_mode(struct rec_thread *t, long nr, const uint64_t args[6], int64_t result)
{
	if (nr == SYS_prctl && result == 0 && args[0] == PR_SET_TSC)
		t->tsc_faults = args[1] == PR_TSC_SIGSEGV;
}

/* Whether the kernel may change the calling thread's x87/SSE/AVX state in
 * system call nr: rt_sigreturn restores it from the frame, an exec starts
 * afresh. No other system call touches it. */
static bool syscall_changes_xstate(long nr)
{
	return nr == SYS_rt_sigreturn || nr == SYS_execve || nr == SYS_execveat;
}

/*
 * The vDSO of a new image is shown to the program (getauxval, and code
 * that reads its ELF image, find it) with its time functions made system
 * calls (vdso_patch.h): they read [vvar], which the recorder cannot.
 * Should that fail (an entry point too small for the stub), the program
 * does not see the vDSO at all, and the C library makes the system calls.
 */
static int show_vdso(struct recording *rec)
{
	struct vdso_patch patch;
	char msg[256];
	if (vdso_patch_apply_fresh(&patch, &rec->rm, rec->maps, msg, sizeof(msg)) == 0)
		return 0;
	if (auxv_hide_vdso(&rec->rm, emu_regs(rec->cpu)->gpr[EMU_RSP]) < 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot read the program's auxiliary vector");
	return 0;
}

/* Starts a program image in the trace (EXECVE, MODULE_LOAD records, a
 * checkpoint) from the process's current state: after the first exec,
 * after every execve, and where an attached process stands. at_exec: the
 * process is at its first instruction after an exec, its vDSO is hidden
 * from it through the auxiliary vector. */
static int start_address_space(struct recording *rec, bool at_exec)
{
	rec->address_space++;
	rec->program_break = 0;
	rec->clocks_known = false;
	if (at_exec) { /* a new address space */
		rec->memory_shared_with_process = false;
		rec->async_io = false;
	}
	rec->memory_ours_alone = at_exec;
	/* execve ended every other thread; the one left has the process's id. */
	for (size_t i = 0; at_exec && i < rec->n_threads; i++)
		if (rec->threads[i] != rec->cur && rec->threads[i]->state != THREAD_GONE)
			threads_note_exit(rec, rec->threads[i], 0);
	rec->cur->tracee.pid = rec->tracee.pid;
	remote_memory_reset(&rec->rm);
	rec->rm.pid = rec->tracee.pid;
	if (recording_load_regs(rec) != 0)
		return -1;
	struct signal_state sig;
	if (signal_state_read(rec->tracee.pid, &sig) == 0)
		sigtrap_guard_exec(&rec->sigtrap, sig.ignored & (1ull << (SIGTRAP - 1)));
	if (recording_reload_mappings(rec) != 0 || (at_exec && show_vdso(rec) != 0))
		return -1;
	recording_invalidate_all(rec);
	char exe[4096], link[64];
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)rec->cur->tracee.pid);
	ssize_t n = readlink(link, exe, sizeof(exe) - 1);
	exe[n > 0 ? n : 0] = 0;
	if (at_exec && !rec->res->setid_dropped[0] && setid_check_dropped(rec->tracee.pid, exe)) {
		char *to = rec->res->setid_dropped;
		size_t len = strnlen(exe, sizeof(rec->res->setid_dropped) - 1);
		memcpy(to, exe, len);
		to[len] = 0;
	}
	if (log_exec(rec, exe) != 0 || log_modules(rec, 0, UINT64_MAX) != 0 ||
	    log_checkpoint(rec) != 0)
		return -1;
	/* What a debugger reads before the program does: its arguments and
	 * auxiliary vector, the vDSO (its symbols). */
	return kernel_writes_log_image(rec, emu_regs(rec->cpu)->gpr[EMU_RSP], at_exec);
}

/* After the real process ran one instruction (or took a signal instead):
 * a syscall (rec->cur->native says which) or the instruction insn. */
static int finish_native(struct recording *rec, enum native_outcome out,
			 const uint8_t *insn, unsigned insn_len)
{
	const struct native_progress *p = &rec->cur->native;
	bool retired_is_syscall = p->syscall;
	long nr = p->nr;
	const uint64_t *args = p->args;
	bool tf_before = p->tf_before;
	rec->native_ran = true;
	/* A step that went on in the background (native_step.c) let other
	 * threads run meanwhile: their writes may still be in the mirror, and
	 * the invalidations below would drop them with the pages. Their
	 * bytes go to the process first, as if written just after the
	 * kernel's (they raced with it). An execve's new image takes none.
	 * A call that reaches only its arguments' memory wrote nowhere else:
	 * the pages of those go, as before the call (syscall_flush.c); a
	 * JVM's threads come back from futex waits thousands of times. */
	if ((out == NATIVE_EXECUTED || out == NATIVE_HANDLER) && p->background &&
	    (out == NATIVE_EXECUTED && retired_is_syscall ? syscall_flush(rec, nr, args)
							  : memory_mirror_flush(rec->mirror)) != 0)
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot write the program's memory");
	switch (out) {
	case NATIVE_EXECUTED:
		emu_skip_insn(rec->cpu);
		/* A system call leaves the extended state as it was: the
		 * image stored before the step is the kernel's (one ptrace
		 * call less in each). */
		bool keep_xstate = retired_is_syscall && !syscall_changes_xstate(nr);
		if ((keep_xstate ? recording_load_regs_keep_xstate(rec) : recording_load_regs(rec)) != 0)
			return -1;
		/* The step ended at its forced trap. */
		recording_trap_guard_after(rec, retired_is_syscall ? nr : -1,
					   (int64_t)emu_regs(rec->cpu)->gpr[EMU_RAX]);
		if (retired_is_syscall) {
			struct emu_regs *r = emu_regs(rec->cpu);
			/* syscall saved rflags in r11, with the TF of our single
			 * step: the program's own rflags had none. */
			if (!tf_before)
				r->gpr[EMU_R11] &= ~(uint64_t)EMU_TF;
			int64_t result = (int64_t)r->gpr[EMU_RAX];
			rec->res->syscalls++;
			note_tsc_mode(rec->cur, nr, args, result);
			recording_apply_syscall_effects(rec, nr, args, result);
			return log_kernel(rec, IDNA_KERNEL_SYSCALL, (uint64_t)nr, (uint64_t)result);
		}
		recording_invalidate_all(rec);
		return log_native(rec, insn, insn_len);
	case NATIVE_HANDLER: {
		uint64_t old_rsp = emu_regs(rec->cpu)->gpr[EMU_RSP];
		if (recording_load_regs(rec) != 0)
			return -1;
		recording_invalidate_all(rec);
		if (kernel_writes_log_signal_frame(rec, old_rsp, emu_regs(rec->cpu)->gpr[EMU_RSP]) != 0)
			return -1;
		return log_kernel(rec, IDNA_KERNEL_SIGNAL_DELIVERY, 0, 0);
	}
	case NATIVE_EXEC:
		/* The execve retires with the new program's registers: replay
		 * takes them from this record, then the checkpoint that
		 * start_address_space() logs. */
		emu_skip_insn(rec->cpu);
		rec->res->syscalls++;
		if (recording_load_regs(rec) != 0 ||
		    log_kernel(rec, IDNA_KERNEL_SYSCALL, (uint64_t)nr, 0) != 0)
			return -1;
		return start_address_space(rec, true);
	case NATIVE_EXITED:
	case NATIVE_THREAD_EXITED:
	case NATIVE_PENDING:
	case NATIVE_INTERRUPTED:
		return 0;
	case NATIVE_ERROR:
	default:
		return -1;
	}
}

/* Whether the time syscall the current thread makes can be answered
 * from the recorder's clocks: the kernel would do nothing else the
 * program could see. Not while another process shares the memory (its
 * writes show after syscalls, see recording_apply_syscall_effects), nor
 * when the program traps its own steps. */
static bool clocks_answer_here(struct recording *rec, bool program_tf)
{
	if (rec->memory_shared_with_process || program_tf)
		return false;
	if (!rec->clocks_known) {
		rec->clocks_shared = clock_namespace_shared(rec->cur->tracee.pid);
		rec->clocks_known = true;
	}
	return rec->clocks_shared;
}

/*
 * A syscall answered without the kernel (clock_syscalls.h). The bytes the
 * kernel would write go into the mirror, not through the prediction
 * cache: the program's reads of them miss and are logged, as after a real
 * syscall. Then the registers as the kernel leaves them: the result in
 * rax, and syscall's own rcx and r11. Returns 1 when answered, 0 when the
 * kernel must run it (the output is not one writable page's), -1 on
 * failure.
 */
static int answer_syscall(struct recording *rec, long nr, const struct clock_answer *a)
{
	if (a->out_len) {
		if ((a->out_addr & 4095) + a->out_len > 4096 ||
		    memory_mirror_write(rec->mirror, a->out_addr, a->out, a->out_len) != EMU_MEM_OK)
			return 0;
		emu_invalidate_code(rec->cpu, a->out_addr, a->out_len);
		if (traced_memory_forget_code(rec->tm, a->out_addr, a->out_len) &&
		    log_kernel(rec, IDNA_KERNEL_CODE_CHANGED, a->out_addr, a->out_len) != 0)
			return -1;
		if (kernel_writes_log_bytes(rec, a->out_addr, a->out, a->out_len) != 0)
			return -1;
	}
	struct emu_regs *r = emu_regs(rec->cpu);
	r->gpr[EMU_RAX] = (uint64_t)a->result;
	r->gpr[EMU_RCX] = r->rip + emu_exit_info(rec->cpu)->insn_len;
	r->gpr[EMU_R11] = r->rflags;
	emu_skip_insn(rec->cpu);
	rec->res->syscalls++;
	return log_kernel(rec, IDNA_KERNEL_SYSCALL, (uint64_t)nr, (uint64_t)a->result) == 0 ? 1 : -1;
}

static int handle_syscall(struct recording *rec)
{
	const struct emu_regs *r = emu_regs(rec->cpu);
	struct native_progress *p = &rec->cur->native;
	p->syscall = true;
	p->nr = (long)r->gpr[EMU_RAX];
	uint64_t args[6] = { r->gpr[EMU_RDI], r->gpr[EMU_RSI], r->gpr[EMU_RDX],
			     r->gpr[EMU_R10], r->gpr[EMU_R8], r->gpr[EMU_R9] };
	memcpy(p->args, args, sizeof(args));
	p->tf_before = r->rflags & EMU_TF;
	if (log_key_frame(rec, IDNA_KEY_EXIT) != 0)
		return -1;
	/* The other threads are being killed: none may run again. */
	if (p->nr == SYS_EXIT_GROUP_NR && rec->n_threads > 1)
		rec->exiting = true;
	struct clock_answer answer;
	if (clock_syscall_answer(p->nr, args, &answer) && clocks_answer_here(rec, p->tf_before)) {
		int answered = answer_syscall(rec, p->nr, &answer);
		if (answered != 0)
			return answered < 0 ? -1 : 0;
	}
	struct clock_answer ours = { 0 };
	enum syscall_answer_kind kind = syscall_answer(p->nr, args, rec->own_pid, !rec->opt->attach_pid,
						    &ours.result);
	if (kind != ANSWER_NONE) {
		if (syscall_answer_name(kind))
			rec->res->ptrace_answered[kind - ANSWER_TRACEME]++;
		int answered = answer_syscall(rec, p->nr, &ours);
		if (answered != 0)
			return answered < 0 ? -1 : 0;
	}
	if (p->nr == SYS_setns)
		rec->clocks_known = false; /* it may enter another time namespace */
	enum native_outcome out = native_step(rec, syscall_may_block(p->nr, args));
	/* The kernel gives the CPU to another thread: the emulator does too
	 * (programs alternate threads with it). */
	if (p->nr == SYS_sched_yield)
		rec->yielded = true;
	return finish_native(rec, out, NULL, 0);
}

/* Whether the current thread's turn is over while another could run: its
 * instructions, its time, or a sched_yield. */
static bool slice_over(struct recording *rec, uint64_t now, uint64_t slice_end)
{
	if (rec->live_threads <= 1)
		return false;
	return now >= slice_end || rec->yielded || slice_clock_over(&rec->slice_clock);
}

static void count_fallback(struct recording *rec, const char *mnemonic)
{
	struct record_result *res = rec->res;
	for (size_t i = 0; i < res->n_fallbacks; i++)
		if (strcmp(res->fallbacks[i].mnemonic, mnemonic) == 0) {
			res->fallbacks[i].count++;
			return;
		}
	if (res->n_fallbacks < sizeof(res->fallbacks) / sizeof(res->fallbacks[0])) {
		res->fallbacks[res->n_fallbacks].mnemonic = mnemonic;
		res->fallbacks[res->n_fallbacks].count = 1;
		res->n_fallbacks++;
	}
}

/* An instruction the emulator lacks, one that faulted, or a rare special
 * one: the real CPU executes it (or raises its fault and the kernel
 * delivers the signal). */
static int handle_native_instruction(struct recording *rec, const char *fallback_name)
{
	uint8_t insn[15];
	const struct emu_exit_info *x = emu_exit_info(rec->cpu);
	unsigned len = x->insn_len ? x->insn_len : 1;
	if (len > sizeof(insn))
		len = sizeof(insn);
	size_t got = memory_mirror_ops.fetch(rec->mirror, emu_regs(rec->cpu)->rip, insn, len);
	if (fallback_name)
		count_fallback(rec, fallback_name);
	if (log_key_frame(rec, IDNA_KEY_EXIT) != 0)
		return -1;
	rec->cur->native.syscall = false;
	enum native_outcome out = native_step(rec, false);
	return finish_native(rec, out, insn, (unsigned)got);
}

/*
 * Signals the kernel holds for the thread are delivered before the next
 * instruction, as the CPU would take them on its way back to user mode:
 * native_step at the current rip stops at the delivery, and the kernel
 * builds the frame (or the process dies). Called after anything ran in the
 * real process (a step ends at its own trap, before the kernel looks at
 * other pending signals: raise() would otherwise run its handler late) and
 * every SIGNAL_POLL_INTERVAL emulated instructions.
 */
static int deliver_pending_signals(struct recording *rec, bool full_poll)
{
	/* Bounded: each round delivers one signal, and nested handlers are
	 * taken one per round as the kernel does. */
	for (unsigned round = 0; round < 64 && !rec->finished; round++) {
		struct signal_state st;
		pid_t tid = rec->cur->tracee.pid;
		if (!full_poll && !signal_state_any_queued(tid))
			return 0;
		if (signal_state_read(tid, &st) != 0 || !signal_state_deliverable(&st))
			return 0;
		/* Should the kernel ignore the signal after all, the instruction
		 * at rip runs natively: log it as a native step. */
		uint64_t rip = emu_regs(rec->cpu)->rip;
		uint8_t insn[15];
		char text[128];
		size_t got = memory_mirror_ops.fetch(rec->mirror, rip, insn, sizeof(insn));
		size_t len = got ? emu_disassemble(rip, insn, got, text, sizeof(text)) : 0;
		if (log_key_frame(rec, IDNA_KEY_KERNEL) != 0)
			return -1;
		rec->cur->native.syscall = false;
		enum native_outcome out = native_step(rec, false);
		if (finish_native(rec, out, insn, (unsigned)len) != 0)
			return -1;
		if (rec->cur->state != THREAD_RUNNABLE)
			return 0;
	}
	return 0;
}

/* rdrand, rdseed: a number from ttrec's CPU, logged (random_insn.h). */
static int handle_random(struct recording *rec)
{
	const struct emu_exit_info *x = emu_exit_info(rec->cpu);
	bool seed = x->special == EMU_SPECIAL_RDSEED;
	uint64_t value;
	bool valid;
	if (random_insn_run(seed, &value, &valid) != 0)
		return handle_native_instruction(rec, NULL);
	uint64_t in = x->operand_bits;
	if (in < 64)
		value &= (1ull << in) - 1;
	uint64_t out[2] = { valid ? value : 0, valid };
	emu_complete_random(rec->cpu, out[0], valid);
	return log_nondet(rec, seed ? IDNA_NONDET_RDSEED : IDNA_NONDET_RDRAND, 1, &in, 2, out);
}

static int handle_special(struct recording *rec)
{
	struct emu_regs *r = emu_regs(rec->cpu);
	switch (emu_exit_info(rec->cpu)->special) {
	case EMU_SPECIAL_SYSCALL:
		return handle_syscall(rec);
	case EMU_SPECIAL_CPUID: {
		struct cpuid_result c;
		uint64_t in[2] = { (uint32_t)r->gpr[EMU_RAX], (uint32_t)r->gpr[EMU_RCX] };
		cpuid_policy_answer(rec->policy, (uint32_t)in[0], (uint32_t)in[1], &c);
		uint64_t out[4] = { c.eax, c.ebx, c.ecx, c.edx };
		r->gpr[EMU_RAX] = c.eax;
		r->gpr[EMU_RBX] = c.ebx;
		r->gpr[EMU_RCX] = c.ecx;
		r->gpr[EMU_RDX] = c.edx;
		emu_skip_insn(rec->cpu);
		return log_nondet(rec, IDNA_NONDET_CPUID, 2, in, 4, out);
	}
	case EMU_SPECIAL_RDTSC: {
		if (rec->cur->tsc_faults)
			return handle_native_instruction(rec, NULL);
		uint64_t tsc = __rdtsc();
		r->gpr[EMU_RAX] = (uint32_t)tsc;
		r->gpr[EMU_RDX] = tsc >> 32;
		emu_skip_insn(rec->cpu);
		return log_nondet(rec, IDNA_NONDET_RDTSC, 0, NULL, 1, &tsc);
	}
	case EMU_SPECIAL_RDTSCP: {
		if (rec->cur->tsc_faults)
			return handle_native_instruction(rec, NULL);
		unsigned aux;
		uint64_t out[2] = { __rdtscp(&aux), 0 };
		out[1] = aux;
		r->gpr[EMU_RAX] = (uint32_t)out[0];
		r->gpr[EMU_RDX] = out[0] >> 32;
		r->gpr[EMU_RCX] = aux;
		emu_skip_insn(rec->cpu);
		return log_nondet(rec, IDNA_NONDET_RDTSCP, 0, NULL, 2, out);
	}
	case EMU_SPECIAL_RDRAND:
	case EMU_SPECIAL_RDSEED:
		return handle_random(rec);
	default:
		/* xgetbv, rdpid: rare; the CPU runs them. */
		return handle_native_instruction(rec, NULL);
	}
}

/* The current thread's turn starts at instruction count now. */
static void start_slice(struct recording *rec, uint64_t now, uint64_t *slice_end)
{
	uint64_t instructions = THREAD_SLICE, ns = THREAD_SLICE_NS;
	if (rec->chaos.on)
		chaos_slice(&rec->chaos, &instructions, &ns);
	*slice_end = now + instructions;
	rec->yielded = false;
	rec->slice_restart = false;
	slice_clock_start(&rec->slice_clock, ns);
}

/* The process ended as stop says: logged, res filled, recording over. */
static void end_process(struct recording *rec, const struct tracee_stop *stop)
{
	int64_t status;
	if (stop->kind == TRACEE_STOP_EXITED) {
		rec->res->exited = true;
		rec->res->exit_status = stop->exit_status;
		status = (int64_t)stop->exit_status << 8;
	} else {
		rec->res->term_signal = stop->info.si_signo;
		status = stop->info.si_signo;
		log_unseen_fatal_signal(rec, stop->info.si_signo);
	}
	/* The leader's status comes last, but every thread still listed
	 * (the leader, blocked or not) dies with the process: each gets its
	 * thread-exit, so that replay lists no thread past the end. */
	for (size_t i = 0; i < rec->n_threads; i++)
		if (rec->threads[i]->state != THREAD_GONE)
			threads_note_exit(rec, rec->threads[i], status);
	log_process_exit(rec, status);
	rec->tracee.alive = false;
	rec->finished = true;
}

/* Asks the thread table for the next thread until one can be emulated
 * (or the recording is over), doing what it decides: the steps of threads
 * that stopped in the kernel are finished here. */
static int schedule_next(struct recording *rec)
{
	while (!rec->finished) {
		struct tracee_stop stop;
		struct rec_thread *t = NULL;
		enum schedule_decision d = threads_schedule(rec, &t, &stop);
		if (d == SCHEDULE_ERROR)
			return -1;
		/* The thread whose turn it is, or whose step stopped (not a
		 * process that ended: no slice of it is logged). */
		if ((d == SCHEDULE_RUN || d == SCHEDULE_STEP_STOPPED) && t &&
		    slice_switch_to(rec, t) != 0)
			return -1;
		switch (d) {
		case SCHEDULE_ERROR:
			return -1;
		case SCHEDULE_RUN:
			return 0;
		case SCHEDULE_WAIT_INTERRUPTED:
			recording_poll_point(rec);
			break;
		case SCHEDULE_PROCESS_ENDED:
			end_process(rec, &stop);
			return 0;
		case SCHEDULE_STEP_STOPPED: {
			enum native_outcome out = native_step_resume(rec, &stop);
			if (out == NATIVE_PENDING)
				break;
			if (finish_native(rec, out, NULL, 0) != 0)
				return -1;
			if (t->state == THREAD_RUNNABLE)
				return 0;
			break;
		}
		}
	}
	return 0;
}

/* Runs the scheduler when the current thread cannot go on, or its slice
 * is over while another thread could run. */
static int take_turns(struct recording *rec, uint64_t interval, uint64_t *slice_end)
{
	struct rec_thread *before = rec->cur;
	if (schedule_next(rec) != 0)
		return -1;
	if (rec->finished)
		return 0;
	uint64_t now = emu_icount(rec->cpu);
	start_slice(rec, now, slice_end);
	if (!rec->cur->next_checkpoint)
		rec->cur->next_checkpoint = now + interval;
	/* Signals may have been queued for it while it waited. */
	if (rec->cur != before)
		rec->native_ran = true;
	return 0;
}

static int main_loop(struct recording *rec)
{
	uint64_t interval = rec->opt->checkpoint_interval ? rec->opt->checkpoint_interval
							  : DEFAULT_CHECKPOINT_INTERVAL;
	rec->cur->next_checkpoint = emu_icount(rec->cpu) + interval;
	uint64_t next_poll = emu_icount(rec->cpu) + SIGNAL_POLL_INTERVAL;
	uint64_t slice_end = emu_icount(rec->cpu) + THREAD_SLICE;
	slice_clock_start(&rec->slice_clock, THREAD_SLICE_NS);
	while (!rec->finished) {
		/* The program was killed at a user's request: no more of it. */
		if (!rec->opt->attach_pid && supervisor_signals_stop_request(NULL))
			break;
		uint64_t now = emu_icount(rec->cpu);
		if (rec->slice_restart)
			start_slice(rec, now, &slice_end);
		if (rec->cur->state != THREAD_RUNNABLE || rec->exiting || slice_over(rec, now, slice_end)) {
			if (take_turns(rec, interval, &slice_end) != 0)
				return -1;
			if (rec->finished)
				break;
			now = emu_icount(rec->cpu);
			if (next_poll > now + SIGNAL_POLL_INTERVAL)
				next_poll = now + SIGNAL_POLL_INTERVAL;
		}
		if (rec->native_ran || now >= next_poll) {
			bool full_poll = now >= next_poll;
			rec->native_ran = false;
			next_poll = now + SIGNAL_POLL_INTERVAL;
			if (deliver_pending_signals(rec, full_poll) != 0)
				return -1;
			recording_poll_point(rec);
			if (rec->finished)
				break;
			if (rec->cur->state != THREAD_RUNNABLE)
				continue;
			now = emu_icount(rec->cpu);
		}
		if (now >= rec->cur->next_checkpoint) {
			if (log_checkpoint(rec) != 0)
				return -1;
			rec->cur->next_checkpoint = now + interval;
			/* Threads that wait (blocked, or not given a turn) get
			 * checkpoints too, at most an interval apart: a ring
			 * keeps only the recent part of every stream, and the
			 * replay's first pass can cut a threaded history only
			 * where every waiting thread starts its next slice with
			 * a checkpoint (man/ttreplay.1, --jobs). */
			if (rec->n_threads > 1) {
				if (slice_refresh_checkpoints(rec, rec->last_interval_checkpoint) != 0)
					return -1;
				rec->last_interval_checkpoint = rec->cur->checkpoint_seq;
			}
		}
		uint64_t budget = rec->cur->next_checkpoint - now;
		if (next_poll > now && next_poll - now < budget)
			budget = next_poll - now;
		if (rec->live_threads > 1 && slice_end > now && slice_end - now < budget)
			budget = slice_end - now;
		enum emu_exit e = emu_run(rec->cpu, budget);
		if (rec->tm->failed)
			return recording_fail(rec, RECORD_ERR_TRACE_WRITE, "cannot write the trace: %s",
					      idna_writer_error(rec->writer));
		int r = 0;
		switch (e) {
		case EMU_EXIT_LIMIT:
		case EMU_EXIT_STOPPED: /* no observer while recording */
			break;
		case EMU_EXIT_SPECIAL:
			r = handle_special(rec);
			break;
		case EMU_EXIT_UNIMPLEMENTED:
			r = handle_native_instruction(rec, emu_exit_info(rec->cpu)->mnemonic);
			break;
		case EMU_EXIT_FAULT:
			/* A call into the legacy vsyscall page. */
			r = recording_vsyscall(rec);
			if (r <= 0)
				break;
			/* The faulting instruction may have read memory before it
			 * faulted: reads replay will not make, since it applies the
			 * signal before the instruction. A checkpoint puts the
			 * prediction cache back in step. */
			r = handle_native_instruction(rec, NULL);
			if (r == 0 && !rec->finished && rec->cur->state == THREAD_RUNNABLE)
				r = log_checkpoint(rec);
			/* A fault on an unmapped page may have grown a mapping
			 * (one made with MAP_GROWSDOWN; [stack] is grown
			 * before it faults, stack_growth.c): else every later
			 * access there would fault again. A process dying
			 * of the fault may have no mappings left to read:
			 * the table is then kept. */
			if (r == 0 && !rec->finished && rec->cur->state == THREAD_RUNNABLE &&
			    emu_exit_info(rec->cpu)->fault == EMU_FAULT_PF)
				mapping_table_load(rec->maps, rec->cur->tracee.pid);
			break;
		}
		if (r != 0)
			return -1;
	}
	return rec->error == RECORD_OK ? 0 : -1;
}

/* The CPUID answers the program can see, for the trace header. */
static size_t cpuid_table(const struct cpuid_policy *p, struct idna_cpuid_entry *out, size_t max)
{
	static const uint32_t leaves[][2] = {
		{ 0, 0 }, { 1, 0 }, { 7, 0 }, { 7, 1 }, { 0xd, 0 }, { 0xd, 1 },
		{ 0x80000000u, 0 }, { 0x80000001u, 0 },
	};
	size_t n = 0;
	for (size_t i = 0; i < sizeof(leaves) / sizeof(leaves[0]) && n < max; i++) {
		struct cpuid_result c;
		cpuid_policy_answer(p, leaves[i][0], leaves[i][1], &c);
		out[n++] = (struct idna_cpuid_entry){ leaves[i][0], leaves[i][1], c.eax, c.ebx,
						      c.ecx, c.edx };
	}
	return n;
}

static int open_trace(struct recording *rec)
{
	const struct record_options *o = rec->opt;
	struct idna_cpuid_entry cpuid[16];
	/* The program's own directory: an attached process has its own. */
	char cwd[4096];
	if (o->attach_pid ? attach_read_cwd(o->attach_pid, cwd, sizeof(cwd)) != 0
			  : !getcwd(cwd, sizeof(cwd)))
		strcpy(cwd, "?");
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	uint32_t argc = 0;
	while (o->argv[argc])
		argc++;
	struct idna_header_info info = {
		.argc = argc,
		.argv = (const char *const *)o->argv,
		.cwd = cwd,
		.start_time_ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec,
		.n_cpuid = (uint32_t)cpuid_table(rec->policy, cpuid, 16),
		.cpuid = cpuid,
		.pid = rec->tracee.pid,
	};
	struct idna_writer_options wo = { 0 };
	wo.ring_bytes = o->ring_bytes;
	wo.cache_log2_entries = o->cache_log2_entries;
	wo.cache_log2_line = o->cache_log2_line;
	wo.create_new = true;
	char msg[256];
	rec->writer = idna_writer_open(o->trace_path, &wo, &info, msg, sizeof(msg));
	if (!rec->writer)
		return recording_fail(rec, RECORD_ERR_TRACE_FILE, "%s", msg);
	rec->res->trace_created = true;
	return 0;
}

static int start(struct recording *rec)
{
	enum tracee_start_error se;
	int se_errno;
	if (rec->opt->attach_pid) {
		if (attach_seize(rec) != 0)
			return -1;
	} else if (supervisor_signals_install() != 0) {
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot catch signals: %s", strerror(errno));
	} else if (tracee_start(&rec->tracee, rec->opt->argv, &se, &se_errno) != 0) {
		enum record_error e = se == TRACEE_START_NOT_FOUND ? RECORD_ERR_PROGRAM_NOT_FOUND
				      : se == TRACEE_START_NOT_EXECUTABLE ? RECORD_ERR_NOT_EXECUTABLE
				      : RECORD_ERR_PTRACE;
		return recording_fail(rec, e, "%s: %s (%s)", rec->opt->argv[0],
				      tracee_start_strerror(se), strerror(se_errno));
	} else if (tracee_set_options(&rec->tracee, rec->tracee.options | child_stop_options()) != 0) {
		return recording_fail(rec, RECORD_ERR_PTRACE, "cannot follow the program's children: %s",
				      strerror(errno));
	}
	if (!rec->opt->attach_pid)
		supervisor_signals_set_program(rec->tracee.pid);
	remote_memory_init(&rec->rm, rec->tracee.pid);
	rec->maps = mapping_table_new();
	struct mirror_backend backend = {
		&rec->rm, (int (*)(void *, uint64_t, void *, size_t))remote_memory_read,
		(int (*)(void *, uint64_t, const void *, size_t))remote_memory_write,
		(int (*)(void *, const struct iovec *, const struct iovec *, size_t))
			remote_memory_write_runs,
	};
	if (!rec->maps || !(rec->mirror = memory_mirror_new(&backend, rec->maps)))
		return recording_fail(rec, RECORD_ERR_NO_MEMORY, "out of memory");
	memory_mirror_set_stack_grower(rec->mirror, recording_grow_stack, rec);
	if (open_trace(rec) != 0)
		return -1;
	rec->next_stream = FIRST_THREAD_STREAM;
	struct rec_thread *first = threads_add(rec, rec->tracee.pid);
	if (!first)
		return recording_fail(rec, RECORD_ERR_NO_MEMORY, "out of memory");
	first->started = true; /* its first slice opens the trace */
	rec->cpu = emu_new(predict_cache_blocks_consecutive(&first->tm.cache)
				   ? &traced_memory_ops : &traced_memory_ops_8_byte_lines,
			   &first->tm);
	if (!rec->cpu || (!rec->opt->no_jit && !emu_set_jit(rec->cpu, true)))
		return recording_fail(rec, RECORD_ERR_NO_MEMORY, "out of memory");
	/* traced_memory_ops.decoded_code_page's half of the bargain. */
	memory_mirror_guard_writes(rec->mirror, MIRROR_GUARD_DECODED_CODE,
				   emu_code_page_filter(rec->cpu), EMU_CODE_PAGE_FILTER_BITS - 1);
	if (!rec->opt->no_jit)
		jit_perf_map_from_environment();
	if (slice_switch_to(rec, first) != 0)
		return -1;
	if (!rec->opt->attach_pid)
		return start_address_space(rec, true);
	/* An attached process: the trace starts where it stands, its other
	 * threads (seized by attach_begin) born with it. */
	if (attach_begin(rec) != 0 || start_address_space(rec, false) != 0)
		return -1;
	for (size_t i = 1; i < rec->n_threads; i++)
		if (log_thread_create(rec, rec->threads[i], rec->tracee.pid) != 0)
			return -1;
	return 0;
}

/* Ends the process and reaps every thread. */
static void kill_process(struct recording *rec)
{
	if (!rec->tracee.alive)
		return;
	kill(rec->tracee.pid, SIGKILL);
	/* The leader's status comes only after every other thread is reaped. */
	for (size_t i = 0; i < rec->n_threads; i++) {
		struct rec_thread *t = rec->threads[i];
		if (t->state == THREAD_GONE || t->tracee.pid == rec->tracee.pid)
			continue;
		for (;;) {
			int status;
			pid_t r = waitpid(t->tracee.pid, &status, __WALL);
			if ((r < 0 && errno != EINTR) || (r > 0 && (WIFEXITED(status) || WIFSIGNALED(status))))
				break;
		}
		t->state = THREAD_GONE;
	}
	tracee_kill(&rec->tracee);
}

/*
 * A user's signal to ttrec ended the recording (supervisor_signals.h): the
 * program was killed. Its death ends the trace like any other, whether a
 * step saw it already or not; a ptrace call that failed because the
 * program was gone is that death, not an error.
 */
static void end_on_request(struct recording *rec)
{
	if (rec->error == RECORD_ERR_PTRACE) {
		rec->error = RECORD_OK;
		rec->err[0] = 0;
	}
	if (!rec->tracee.alive || rec->error != RECORD_OK)
		return;
	bool *live = calloc(rec->n_threads ? rec->n_threads : 1, sizeof(*live));
	for (size_t i = 0; live && i < rec->n_threads; i++)
		live[i] = rec->threads[i]->state != THREAD_GONE;
	kill_process(rec); /* reaps every thread: the leader's status comes last */
	log_unseen_fatal_signal(rec, SIGKILL);
	int64_t status = SIGKILL;
	for (size_t i = 0; live && i < rec->n_threads; i++)
		if (live[i])
			log_thread_exit(rec, rec->threads[i], status);
	free(live);
	log_process_exit(rec, status);
	rec->res->term_signal = SIGKILL;
	rec->finished = true;
}

static void finish(struct recording *rec)
{
	struct record_result *res = rec->res;
	if (rec->tracee.alive)
		kill_process(rec);
	res->instructions = threads_instructions(rec);
	res->translations = rec->cpu ? emu_jit_translations(rec->cpu) : 0;
	for (size_t i = 0; i < rec->n_threads; i++) {
		const struct rec_thread *t = rec->threads[i];
		res->reads += traced_memory_reads(&t->tm);
		res->misses += traced_memory_misses(&t->tm);
		res->code_pages += t->tm.code_pages_logged;
		res->threads += !t->child_process;
	}
	if (rec->writer) {
		char msg[256];
		if (idna_writer_close(rec->writer, msg, sizeof(msg)) != 0)
			recording_fail(rec, RECORD_ERR_TRACE_WRITE, "cannot write the trace: %s", msg);
	}
	struct stat st;
	if (stat(rec->opt->trace_path, &st) == 0)
		res->trace_bytes = (uint64_t)st.st_size;
	if (rec->mirror) /* the filter goes with the cpu */
		memory_mirror_guard_writes(rec->mirror, MIRROR_GUARD_DECODED_CODE, NULL, 0);
	emu_free(rec->cpu);
	threads_free(rec);
	memory_mirror_free(rec->mirror);
	mapping_table_free(rec->maps);
	remote_memory_reset(&rec->rm);
}

/* --- what a native step and the thread table hand up (their hooks) ------ */

/* A ptrace event stop of a step: a new process is --follow-fork's or let
 * go; an interrupt may be an attached recording's requested stop. */
static bool step_event(struct recording *rec, int event)
{
	switch (event) {
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
	case PTRACE_EVENT_CLONE:
		if (rec->opt->follow_forks)
			follow_fork_child(rec);
		else
			follow_fork_let_go(rec);
		return false;
	case PTRACE_EVENT_STOP:
		return attach_on_interrupt(rec);
	default:
		return false;
	}
}

/* A user asked to end the recording (ttrec run) or to let the process go
 * (ttrec attach). */
static bool ended_by_user(void)
{
	return supervisor_signals_stop_request(NULL) || attach_stop_requested();
}

static const struct native_step_hooks step_hooks = {
	.on_event = step_event,
	.ended_by_user = ended_by_user,
	.process_ended = end_process,
};

/* What the thread table hands up (thread_table_hooks): births and ends
 * go to the trace, ttrec's own children to follow-fork. */
static const struct thread_table_hooks table_hooks = {
	.thread_created = log_thread_create,
	.thread_exited = log_thread_exit,
	.other_child_reaped = follow_fork_recorder_ended,
};

enum record_error record_program(const struct record_options *opt,
				 struct record_result *res, char *err, size_t errlen)
{
	struct recording rec;
	memset(&rec, 0, sizeof(rec));
	memset(res, 0, sizeof(*res));
	rec.opt = opt;
	rec.res = res;
	rec.own_pid = getpid();
	rec.err = err;
	rec.errlen = errlen;
	rec.step_hooks = &step_hooks;
	rec.table_hooks = &table_hooks;
	if (opt->chaos)
		chaos_init(&rec.chaos, opt->chaos_seed);
	rec.policy = cpuid_policy_by_name(opt->cpuid_policy ? opt->cpuid_policy : "default");
	if (!rec.policy) {
		snprintf(err, errlen, "unknown CPUID policy '%s'", opt->cpuid_policy);
		return RECORD_ERR_UNSUPPORTED;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	progress_init(&rec.progress, opt->show_progress ? stderr : NULL);
	if (start(&rec) == 0)
		main_loop(&rec);
	struct tracee_stop killed;
	if (rec.error == RECORD_ERR_PTRACE && !opt->attach_pid && program_killed_meanwhile(&rec, &killed))
		end_process(&rec, &killed);
	pid_t sender;
	if (!opt->attach_pid)
		res->passed_signal = supervisor_signals_passed(&res->passed_sender);
	int stop_signal = opt->attach_pid ? 0 : supervisor_signals_stop_request(&sender);
	if (stop_signal) {
		end_on_request(&rec);
		/* Unless the program had ended by itself first. */
		if (res->term_signal == SIGKILL) {
			res->stop_signal = stop_signal;
			res->stop_sender = sender;
		}
	}
	progress_erase(&rec.progress);
	if (opt->attach_pid)
		attach_release(&rec);
	else if (rec.error == RECORD_ERR_TRACE_WRITE)
		recording_hand_back(&rec);
	follow_fork_wait(&rec);
	finish(&rec);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	res->seconds = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return rec.error;
}
