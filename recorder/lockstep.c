/*
 * lockstep.c — the lockstep loop behind `ttrec run --verify`. For each instruction the emulator runs
 * first, against the live process's memory with its writes held back; the
 * process then single-steps the same instruction, and registers and written
 * bytes must agree. What the emulator does not run itself (special and
 * unimplemented instructions, faults, signals) the process runs, and the
 * emulator is reloaded from it.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include "recorder/regs_convert.h"
#include "recorder/remote_memory.h"
#include "recorder/tracee.h"
#include "recorder/state_diff.h"
#include "recorder/lockstep.h"
#include "recorder/write_overlay.h"

struct lockstep {
	struct tracee t;
	struct remote_memory rm;
	struct write_overlay overlay;
	struct emu_cpu *cpu;
	const struct lockstep_options *opt;
	struct lockstep_stats *st;
	struct user_regs_struct kregs;
	uint8_t xstate[TRACEE_XSTATE_MAX];
};

#define RFLAGS_RF (1u << 16)
#define MSG "ttrec: verify: "

/* What a step of the loop leads to. */
enum step_outcome { STEP_CONTINUE, STEP_ENDED, STEP_DIVERGED, STEP_ERROR };

static enum step_outcome fail(const char *what)
{
	fprintf(stderr, MSG "%s: %s\n", what, strerror(errno));
	return STEP_ERROR;
}

static int read_cpu_state(struct lockstep *ls, struct emu_regs *out)
{
	if (tracee_get_regs(&ls->t, &ls->kregs) != 0 ||
	    tracee_get_xstate(&ls->t, ls->xstate) != 0)
		return -1;
	regs_from_kernel(&ls->kregs, ls->xstate, ls->t.xstate_size, out);
	return 0;
}

/* Loads the process's state into the emulator; the process may have
 * changed any memory, code included. */
static enum step_outcome resync(struct lockstep *ls)
{
	struct emu_regs *r = emu_regs(ls->cpu);
	if (read_cpu_state(ls, r) != 0)
		return fail("reading the registers");
	/* RF (set when the kernel resumes after a fault) only suppresses
	 * instruction breakpoints for one instruction, and the CPU clears it
	 * when that instruction completes: it is not state to carry. */
	r->rflags &= ~RFLAGS_RF;
	emu_invalidate_code(ls->cpu, 0, UINT64_MAX);
	return STEP_CONTINUE;
}

/* Disassembly of the instruction at rip in the process, "?" if unreadable. */
static void insn_text(struct lockstep *ls, uint64_t rip, char *buf, size_t size)
{
	uint8_t bytes[16];
	size_t n = remote_memory_fetch(&ls->rm, rip, bytes, sizeof(bytes));
	if (!n || !emu_disassemble(rip, bytes, n, buf, size))
		snprintf(buf, size, "?");
}

static void enable_cpuid_faulting(struct lockstep *ls)
{
	if (cpuid_policy_enable_faulting(&ls->t, &ls->rm) == 0) {
		ls->st->cpuid_faulting = true;
		return;
	}
	if (ls->st->cpuid_faulting || errno != ENODEV)
		fprintf(stderr, MSG "warning: no CPUID faulting (%s): cpuid answers are the CPU's own\n",
			strerror(errno));
	ls->st->cpuid_faulting = false;
}

static enum step_outcome ended(struct lockstep *ls, const struct tracee_stop *stop)
{
	ls->st->exited = true;
	if (stop->kind == TRACEE_STOP_EXITED)
		ls->st->exit_status = stop->exit_status;
	else
		ls->st->killed_by = stop->info.si_signo;
	return STEP_ENDED;
}

/* Lockstep compares one thread with the CPU: a second thread would change
 * memory behind both. The new thread (stopped, traced by us) goes first,
 * so that the process can be killed and reaped. */
static enum step_outcome refuse_thread(struct lockstep *ls)
{
	unsigned long tid;
	if (tracee_event_message(&ls->t, &tid) == 0) {
		struct tracee thread;
		kill((pid_t)tid, SIGKILL);
		if (tracee_adopt_thread(&thread, &ls->t, (pid_t)tid) == 0)
			tracee_wait(&thread, &(struct tracee_stop){ 0 });
	}
	fprintf(stderr, MSG "the program creates a thread: --verify checks single-threaded "
		"programs only (ttrec run records threaded ones)\n");
	return STEP_ERROR;
}

/*
 * Brings the process from any stop to one where it sits between two
 * instructions: answers faulting cpuid, delivers signals (stepping into the
 * handler), re-arms CPUID faulting after an exec. The caller resyncs.
 */
static enum step_outcome settle(struct lockstep *ls, struct tracee_stop *stop)
{
	for (;;) {
		int r, deliver = 0;
		switch (stop->kind) {
		case TRACEE_STOP_STEP:
			return STEP_CONTINUE;
		case TRACEE_STOP_EXITED:
		case TRACEE_STOP_KILLED:
			return ended(ls, stop);
		case TRACEE_STOP_SIGNAL:
			r = cpuid_policy_handle_fault(ls->opt->policy, &ls->t, &ls->rm, stop);
			if (r < 0)
				return fail("answering cpuid");
			if (r > 0)
				return STEP_CONTINUE;
			deliver = stop->info.si_signo;
			ls->st->signals++;
			/* Listed with the native steps: the kernel, not the
			 * emulator, builds the signal frame. */
			const char *abbrev = sigabbrev_np(deliver);
			char name[64];
			snprintf(name, sizeof(name), "(signal SIG%s delivered)", abbrev ? abbrev : "?");
			fallback_counts_add(&ls->st->natives, name);
			break;
		case TRACEE_STOP_EXEC:
			/* The first step after the exec event only leaves the
			 * execve; then the new image can take injected calls. */
			remote_memory_reset(&ls->rm);
			if (tracee_step(&ls->t, 0, stop) != 0)
				return fail("stepping out of execve");
			if (stop->kind == TRACEE_STOP_STEP)
				enable_cpuid_faulting(ls);
			continue;
		case TRACEE_STOP_EVENT:
			if (stop->event == PTRACE_EVENT_CLONE)
				return refuse_thread(ls);
			break;
		case TRACEE_STOP_GROUP:
			break;
		}
		if (tracee_step(&ls->t, deliver, stop) != 0)
			return fail("single-stepping");
	}
}

/* Synchronous faults: the CPU refused the instruction. */
static bool is_fault_signal(const siginfo_t *si)
{
	switch (si->si_signo) {
	case SIGSEGV: case SIGBUS: case SIGFPE: case SIGILL: case SIGTRAP:
		return si->si_code > 0;
	default:
		return false;
	}
}

static void report_header(struct lockstep *ls, const struct emu_regs *before, const char *why)
{
	char text[128];
	insn_text(ls, before->rip, text, sizeof(text));
	fprintf(stderr, MSG "DIVERGENCE at instruction %llu, %#llx: %s\n  %s\n",
		(unsigned long long)(ls->st->emulated + ls->st->native + 1),
		(unsigned long long)before->rip, text, why);
}

/* single-stepping sets TF, and pushf stores it: the CPU's copy differs from
 * an untraced run in exactly that bit. Puts back what the program would have
 * pushed; true when that was the only difference. */
static bool undo_pushf_trap_flag(struct lockstep *ls, const struct emu_regs *before,
				 const struct overlay_mismatch *m)
{
	char text[64];
	insn_text(ls, before->rip, text, sizeof(text));
	if (strncmp(text, "pushf", 5) != 0 || m->unreadable)
		return false;
	uint64_t slot = emu_regs(ls->cpu)->gpr[EMU_RSP];
	uint8_t byte_with_tf = (uint8_t)(EMU_TF >> 8);
	if (m->addr != slot + 1 || (m->held[0] ^ m->actual[0]) != byte_with_tf ||
	    memcmp(m->held + 1, m->actual + 1, m->len - 1) != 0)
		return false;
	return remote_memory_poke(&ls->rm, m->addr, m->held, 1) == 0;
}

/*
 * On a CPU of another vendor than the one whose choices for undefined flags
 * the emulator models: the status flags the instruction leaves undefined
 * take the CPU's values, so they are neither compared nor carried on
 * differently. Returns true when the instruction leaves its destination
 * undefined too (a 16-bit shld/shrd by more than 16): the CPU's result is
 * then taken whole, like a native step's.
 */
static bool adopt_undefined(struct lockstep *ls, const struct emu_regs *before,
			    const struct emu_regs *cpu_state)
{
	if (emu_host_is_modelled_vendor())
		return false;
	uint8_t bytes[16];
	size_t n = remote_memory_fetch(&ls->rm, before->rip, bytes, sizeof(bytes));
	if (!n)
		return false;
	if (emu_undefined_result(bytes, n, before))
		return true;
	uint64_t undefined = emu_undefined_flags_after(bytes, n, before, 0);
	struct emu_regs *r = emu_regs(ls->cpu);
	r->rflags = (r->rflags & ~undefined) | (cpu_state->rflags & undefined);
	return false;
}

/* A little-endian value of 1 to 8 bytes. */
static uint64_t le_value(const uint8_t *b, unsigned size)
{
	uint64_t v = 0;
	for (unsigned i = size; i-- > 0;)
		v = v << 8 | b[i];
	return v;
}

/*
 * On a CPU of another vendor than the modelled one: the results the
 * emulator computes as the modelled CPU does where the manuals leave them
 * to the implementation (emu_model_specific) take the CPU's values, when
 * the emulator's are the model's and the CPU's this machine's: the
 * MXCSR_MASK that fxsave and xsave* store, and the registers a rep string
 * instruction with a 32-bit address size and a zero count zero-extends.
 */
static void adopt_model_specific(struct lockstep *ls, const struct emu_regs *before,
				 const struct emu_regs *cpu_state)
{
	if (emu_host_is_modelled_vendor())
		return;
	uint8_t bytes[16];
	struct emu_model_specific ms;
	size_t n = remote_memory_fetch(&ls->rm, before->rip, bytes, sizeof(bytes));
	if (!n || !emu_model_specific(bytes, n, before, &ms))
		return;
	struct emu_regs *r = emu_regs(ls->cpu);
	for (unsigned i = 0; i < EMU_GPR_COUNT; i++)
		if ((ms.zero_extended_gprs >> i & 1) && cpu_state->gpr[i] == before->gpr[i] &&
		    r->gpr[i] == (uint32_t)before->gpr[i])
			r->gpr[i] = cpu_state->gpr[i];
	uint8_t held[8], actual[8];
	if (ms.store_size && ms.store_size <= sizeof(held) &&
	    write_overlay_held(&ls->overlay, ms.store_addr, held, ms.store_size) &&
	    remote_memory_read(&ls->rm, ms.store_addr, actual, ms.store_size) == EMU_MEM_OK &&
	    le_value(held, ms.store_size) == ms.store_modelled &&
	    le_value(actual, ms.store_size) == ms.store_host)
		write_overlay_ops.write(&ls->overlay, ms.store_addr, actual, ms.store_size);
}

/*
 * On a CPU of another vendor than the modelled one: AMD's CPUs save the x87
 * last-instruction and last-operand pointers and the last opcode only while
 * an exception is pending (FSW.ES), so the CPU shows zeros where the
 * modelled CPU keeps the last x87 instruction's address. The emulator's
 * take the CPU's zeros then; with an exception pending they stay compared.
 */
static void adopt_x87_pointers(struct lockstep *ls, const struct emu_regs *cpu_state)
{
	const uint16_t exception_summary = 1u << 7;
	if (emu_host_is_modelled_vendor() || (cpu_state->fsw & exception_summary) ||
	    cpu_state->fip || cpu_state->fdp || cpu_state->fop)
		return;
	struct emu_regs *r = emu_regs(ls->cpu);
	r->fip = 0;
	r->fdp = 0;
	r->fop = 0;
}

/*
 * On any CPU: an xsave* whose stored XSTATE_BV has more bits set than the
 * emulator's, within the request, and none fewer, stores the same state
 * (emu_xstate_header: the CPU tracks a component in its initial
 * configuration as in use; the emulator clears the bit only for such a
 * component). The emulator takes the CPU's XSTATE_BV; the bytes the CPU
 * wrote for that component are ones the emulator did not write, which are
 * not compared, and a later xrstor from the area reads the process's
 * memory, the CPU's. True when it took it.
 */
static bool adopt_xstate_in_use(struct lockstep *ls, const struct emu_regs *before)
{
	uint8_t bytes[16], held[8], actual[8];
	struct emu_xstate_header h;
	size_t n = remote_memory_fetch(&ls->rm, before->rip, bytes, sizeof(bytes));
	if (!n || !emu_xstate_header(bytes, n, before, &h) ||
	    !write_overlay_held(&ls->overlay, h.xstate_bv_addr, held, sizeof(held)) ||
	    remote_memory_read(&ls->rm, h.xstate_bv_addr, actual, sizeof(actual)) != EMU_MEM_OK)
		return false;
	uint64_t emu_bv = le_value(held, 8), cpu_bv = le_value(actual, 8);
	uint64_t extra = cpu_bv & ~emu_bv;
	if (!extra || (emu_bv & ~cpu_bv) || (extra & ~h.requested))
		return false;
	write_overlay_ops.write(&ls->overlay, h.xstate_bv_addr, actual, sizeof(actual));
	ls->st->xstate_bv_taken++;
	return true;
}

static enum step_outcome compare(struct lockstep *ls, const struct emu_regs *before)
{
	struct emu_regs cpu_state;
	if (read_cpu_state(ls, &cpu_state) != 0)
		return fail("reading the registers");
	if (adopt_undefined(ls, before, &cpu_state))
		return resync(ls);
	adopt_model_specific(ls, before, &cpu_state);
	adopt_x87_pointers(ls, &cpu_state);
	const struct emu_regs *emu_state = emu_regs(ls->cpu);
	struct overlay_mismatch m;
	bool mem_ok = write_overlay_matches(&ls->overlay, &m);
	if (!mem_ok && undo_pushf_trap_flag(ls, before, &m))
		mem_ok = write_overlay_matches(&ls->overlay, &m);
	if (!mem_ok && adopt_xstate_in_use(ls, before))
		mem_ok = write_overlay_matches(&ls->overlay, &m);
	bool regs_ok = state_equal(emu_state, &cpu_state);
	if (mem_ok && regs_ok)
		return STEP_CONTINUE;

	report_header(ls, before, regs_ok ? "memory differs" : "registers differ");
	if (!mem_ok) {
		fprintf(stderr, "  memory at %#llx: ", (unsigned long long)m.addr);
		if (m.unreadable) {
			fprintf(stderr, "the process's memory is unreadable\n");
		} else {
			fprintf(stderr, "emulator wrote");
			for (size_t i = 0; i < m.len; i++)
				fprintf(stderr, " %02x", m.held[i]);
			fprintf(stderr, ", cpu has");
			for (size_t i = 0; i < m.len; i++)
				fprintf(stderr, " %02x", m.actual[i]);
			fprintf(stderr, "\n");
		}
	}
	state_print_diff(stderr, before, emu_state, &cpu_state);
	return STEP_DIVERGED;
}

/* The emulator completed one instruction; now the CPU runs it. */
static enum step_outcome step_emulated(struct lockstep *ls, const struct emu_regs *before)
{
	struct tracee_stop stop;
	if (tracee_step(&ls->t, 0, &stop) != 0)
		return fail("single-stepping");
	/* A rep string instruction traps after every iteration; the emulator
	 * ran them all. */
	while (stop.kind == TRACEE_STOP_STEP && emu_regs(ls->cpu)->rip != before->rip) {
		if (tracee_get_regs(&ls->t, &ls->kregs) != 0)
			return fail("reading the registers");
		if (ls->kregs.rip != before->rip)
			break;
		if (tracee_step(&ls->t, 0, &stop) != 0)
			return fail("single-stepping");
	}
	if (stop.kind == TRACEE_STOP_STEP) {
		enum step_outcome o = compare(ls, before);
		if (o == STEP_CONTINUE)
			ls->st->emulated++;
		return o;
	}
	if (stop.kind == TRACEE_STOP_SIGNAL && is_fault_signal(&stop.info)) {
		char why[160];
		snprintf(why, sizeof(why),
			 "the CPU raised %s (si_code %d, address %p); the emulator completed the instruction",
			 strsignal(stop.info.si_signo), stop.info.si_code, stop.info.si_addr);
		report_header(ls, before, why);
		struct emu_regs cpu_state;
		if (read_cpu_state(ls, &cpu_state) == 0)
			state_print_diff(stderr, before, emu_regs(ls->cpu), &cpu_state);
		return STEP_DIVERGED;
	}
	/* A signal came first: the instruction did not run. The emulator's
	 * result is dropped and the program takes its signal. */
	enum step_outcome o = settle(ls, &stop);
	return o == STEP_CONTINUE ? resync(ls) : o;
}

/* The name a native step is counted under. */
static void native_name(struct lockstep *ls, enum emu_exit e, const struct emu_regs *before,
			char *buf, size_t size)
{
	const struct emu_exit_info *x = emu_exit_info(ls->cpu);
	char text[128];
	switch (e) {
	case EMU_EXIT_SPECIAL:
		snprintf(buf, size, "%s", emu_special_name(x->special));
		return;
	case EMU_EXIT_UNIMPLEMENTED:
		snprintf(buf, size, "%s", x->mnemonic ? x->mnemonic : "?");
		return;
	default:
		insn_text(ls, before->rip, text, sizeof(text));
		text[strcspn(text, " ")] = '\0';
		snprintf(buf, size, "%s (%s)", text, emu_fault_name(x->fault));
		return;
	}
}

/* syscall copies rflags, TF of the single step included, into r11. */
static enum step_outcome undo_syscall_trap_flag(struct lockstep *ls, const struct emu_regs *before)
{
	if (before->rflags & EMU_TF)
		return STEP_CONTINUE;
	if (tracee_get_regs(&ls->t, &ls->kregs) != 0)
		return fail("reading the registers");
	if (!(ls->kregs.r11 & EMU_TF))
		return STEP_CONTINUE;
	ls->kregs.r11 &= ~(unsigned long long)EMU_TF;
	if (tracee_set_regs(&ls->t, &ls->kregs) != 0)
		return fail("writing the registers");
	return STEP_CONTINUE;
}

/*
 * rseq is answered ENOSYS without running, as a recording answers it
 * (recorder/syscall_answers.h): a registered area's cpu_id is rewritten by
 * the kernel whenever the process moves to another CPU, between the
 * emulator's read of it and the CPU's, so the two would differ at the first
 * sched_getcpu after a migration. The registers are left as the syscall
 * instruction leaves them: rcx the next rip, r11 rflags.
 */
static enum step_outcome answer_rseq(struct lockstep *ls, const struct emu_regs *before)
{
	if (tracee_get_regs(&ls->t, &ls->kregs) != 0)
		return fail("reading the registers");
	ls->kregs.rip = before->rip + 2;
	ls->kregs.rcx = ls->kregs.rip;
	ls->kregs.r11 = before->rflags & ~(unsigned long long)(EMU_TF | RFLAGS_RF);
	ls->kregs.rax = (unsigned long long)-ENOSYS;
	if (tracee_set_regs(&ls->t, &ls->kregs) != 0)
		return fail("writing the registers");
	ls->st->native++;
	fallback_counts_add(&ls->st->natives, "syscall rseq (answered ENOSYS)");
	return resync(ls);
}

/* Whether addr is in the vDSO's data pages, which the kernel lets no other
 * process read: the emulator sees a fault there that the program does not. */
static bool in_unreadable_vdso_data(pid_t pid, uint64_t addr)
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "re");
	if (!f)
		return false;
	bool found = false;
	while (!found && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		int name_at = 0;
		if (sscanf(line, "%llx-%llx %*s %*s %*s %*s %n", &lo, &hi, &name_at) < 2 ||
		    !name_at)
			continue;
		found = addr >= lo && addr < hi && strncmp(line + name_at, "[vvar", 5) == 0;
	}
	fclose(f);
	return found;
}

/* The emulator stopped before the instruction; the CPU runs it alone. */
static enum step_outcome step_native(struct lockstep *ls, enum emu_exit e,
				     const struct emu_regs *before)
{
	char name[160];
	native_name(ls, e, before, name, sizeof(name));
	enum emu_fault_vector fault = emu_exit_info(ls->cpu)->fault;
	bool is_syscall = e == EMU_EXIT_SPECIAL &&
			  emu_exit_info(ls->cpu)->special == EMU_SPECIAL_SYSCALL;
	if (is_syscall && before->gpr[EMU_RAX] == (uint64_t)SYS_rseq)
		return answer_rseq(ls, before);
	struct tracee_stop stop;
	if (tracee_step(&ls->t, 0, &stop) != 0)
		return fail("single-stepping");
	const struct emu_exit_info *x = emu_exit_info(ls->cpu);
	if (e == EMU_EXIT_FAULT && fault == EMU_FAULT_PF && stop.kind == TRACEE_STOP_STEP &&
	    in_unreadable_vdso_data(ls->t.pid, x->fault_addr))
		snprintf(name, sizeof(name), "vDSO data read");
	else if (e == EMU_EXIT_FAULT && stop.kind == TRACEE_STOP_STEP) {
		char why[160];
		snprintf(why, sizeof(why), "the emulator raised %s; the CPU executed the instruction",
			 emu_fault_name(fault));
		report_header(ls, before, why);
		struct emu_regs cpu_state;
		if (read_cpu_state(ls, &cpu_state) == 0)
			state_print_diff(stderr, before, before, &cpu_state);
		return STEP_DIVERGED;
	}
	ls->st->native++;
	fallback_counts_add(&ls->st->natives, name);
	enum step_outcome o = settle(ls, &stop);
	if (o == STEP_CONTINUE && is_syscall)
		o = undo_syscall_trap_flag(ls, before);
	return o == STEP_CONTINUE ? resync(ls) : o;
}

/* Past the limit: the program goes on natively, untraced, and its end is
 * its own. CPUID faulting would kill it: it goes first. */
static enum step_outcome run_untraced(struct lockstep *ls)
{
	if (ls->st->cpuid_faulting && cpuid_policy_disable_faulting(&ls->t, &ls->rm) != 0)
		return fail("turning CPUID faulting off");
	struct tracee_stop stop;
	if (tracee_detach_and_wait(&ls->t, 0, &stop) != 0)
		return fail("waiting for the program");
	return ended(ls, &stop);
}

static enum step_outcome run_loop(struct lockstep *ls)
{
	for (;;) {
		if (ls->st->emulated + ls->st->native >= ls->opt->max_insns) {
			ls->st->limit_reached = true;
			return STEP_ENDED;
		}
		struct emu_regs before = *emu_regs(ls->cpu);
		write_overlay_clear(&ls->overlay);
		enum emu_exit e = emu_run(ls->cpu, 1);
		enum step_outcome o = e == EMU_EXIT_LIMIT ? step_emulated(ls, &before)
							  : step_native(ls, e, &before);
		if (o != STEP_CONTINUE)
			return o;
	}
}

enum lockstep_result lockstep_run(char *const argv[], const struct lockstep_options *opt,
				  struct lockstep_stats *stats)
{
	struct lockstep *ls = calloc(1, sizeof(*ls));
	if (!ls) {
		fprintf(stderr, MSG "out of memory\n");
		return LOCKSTEP_ERROR;
	}
	memset(stats, 0, sizeof(*stats));
	ls->opt = opt;
	ls->st = stats;
	enum tracee_start_error err;
	int err_errno;
	if (tracee_start(&ls->t, argv, &err, &err_errno) != 0) {
		stats->start_error = err;
		fprintf(stderr, MSG "%s: %s (%s)\n", argv[0],
			tracee_start_strerror(err), strerror(err_errno));
		free(ls);
		return LOCKSTEP_ERROR;
	}
	remote_memory_init(&ls->rm, ls->t.pid);
	write_overlay_init(&ls->overlay, &ls->rm);
	enum step_outcome o = STEP_ERROR;
	ls->cpu = emu_new(&write_overlay_ops, &ls->overlay);
	if (!ls->cpu) {
		fprintf(stderr, MSG "out of memory\n");
		goto out;
	}
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	enable_cpuid_faulting(ls);
	o = resync(ls);
	if (o == STEP_CONTINUE)
		o = run_loop(ls);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	stats->seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (o == STEP_ENDED && stats->limit_reached)
		o = run_untraced(ls);
out:
	tracee_kill(&ls->t);
	remote_memory_reset(&ls->rm);
	write_overlay_free(&ls->overlay);
	emu_free(ls->cpu);
	free(ls);
	switch (o) {
	case STEP_ENDED:
		return LOCKSTEP_OK;
	case STEP_DIVERGED:
		return LOCKSTEP_DIVERGED;
	default:
		return LOCKSTEP_ERROR;
	}
}

void lockstep_print_summary(FILE *f, struct lockstep_stats *st,
			    const struct lockstep_options *opt, bool brief)
{
	uint64_t total = st->emulated + st->native;
	if (!st->exited)
		fprintf(f, MSG "stopped at the divergence: the program was killed\n");
	else if (st->limit_reached)
		fprintf(f, MSG "stopped verifying after %llu instructions; the program ran on natively\n",
			(unsigned long long)opt->max_insns);
	if (st->exited && st->killed_by)
		fprintf(f, MSG "the program was killed by %s\n", strsignal(st->killed_by));
	else if (st->exited)
		fprintf(f, MSG "the program exited with status %d\n", st->exit_status);
	double rate = st->seconds > 0 ? (double)total / st->seconds : 0.0;
	fprintf(f, MSG "%llu instructions verified: %llu emulated and compared, %llu stepped natively "
		       "(%.1f%%), %llu signals, %.2f s (%.0f instructions/s), cpuid policy %s%s\n",
		(unsigned long long)total, (unsigned long long)st->emulated,
		(unsigned long long)st->native, total ? 100.0 * (double)st->native / (double)total : 0.0,
		(unsigned long long)st->signals, st->seconds, rate, opt->policy->name,
		st->cpuid_faulting ? "" : " (no CPUID faulting)");
	/* Says whether a run met the CPU's own in-use choice at all. */
	if (st->xstate_bv_taken)
		fprintf(f, MSG "%llu xsave headers took the CPU's XSTATE_BV (initial components it "
			"counts as in use)\n", (unsigned long long)st->xstate_bv_taken);
	if (brief || !st->natives.n)
		return;
	fprintf(f, MSG "native steps by instruction:\n");
	fallback_counts_print(f, &st->natives);
}
