/*
 * diversion.c — a throwaway continuation of the replay (diversion.h): its
 * own emulator over a copy-on-write copy of the replay's memory image.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "replayer/diversion.h"
#include "replayer/diversion_write.h"

/* Instructions between two questions to the interrupt check. */
#define DIVERSION_CHUNK (1u << 16)

struct diversion {
	struct replay_session *s;
	size_t thread;
	struct emu_cpu *cpu;
	struct memory_image *image; /* the replay's at the start, plus our writes */
	uint64_t unknown_read;      /* the first byte a failed read lacked */
};

size_t diversion_read_memory(struct diversion *d, uint64_t addr, void *buf, size_t len)
{
	uint8_t *out = buf;
	size_t done = 0;
	while (done < len) {
		size_t n = memory_image_load(d->image, addr + done, out + done, len - done);
		/* What the image does not know the replay may still show (later
		 * first reads, mapped files): the session has not moved. */
		if (n == 0)
			n = replay_session_read_memory(d->s, addr + done, out + done, 1);
		if (n == 0)
			break;
		done += n;
	}
	return done;
}

/* Whether any byte of addr's page is known: then the page was mapped. */
static bool page_known(struct diversion *d, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)4095;
	uint8_t byte;
	for (uint64_t a = page; a < page + 4096; a++)
		if (diversion_read_memory(d, a, &byte, 1) == 1)
			return true;
	return false;
}

bool diversion_write_memory(struct diversion *d, uint64_t addr, const void *buf, size_t len)
{
	uint8_t byte;
	for (size_t i = 0; i < len; i++) {
		uint64_t a = addr + i;
		/* One check per page is enough once a byte there is known. */
		if (i > 0 && (a & 4095) != 0)
			continue;
		if (diversion_read_memory(d, a, &byte, 1) != 1 && !page_known(d, a))
			return false;
	}
	return memory_image_store(d->image, addr, buf, len);
}

static int div_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct diversion *d = ctx;
	size_t n = diversion_read_memory(d, addr, buf, size);
	if (n == size)
		return EMU_MEM_OK;
	d->unknown_read = addr + n;
	return EMU_MEM_FAULT;
}

static int div_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	return diversion_write_memory(ctx, addr, buf, size) ? EMU_MEM_OK : EMU_MEM_FAULT;
}

static size_t div_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	return diversion_read_memory(ctx, addr, buf, size);
}

static const struct emu_memory_ops diversion_memory_ops = {
	.read = div_read,
	.write = div_write,
	.fetch = div_fetch,
};

struct diversion *diversion_new(struct replay_session *s, size_t k)
{
	struct diversion *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->s = s;
	d->image = memory_image_snapshot(s->sim.proc.image);
	d->cpu = d->image ? emu_new(&diversion_memory_ops, d) : NULL;
	if (!d->cpu) {
		diversion_free(d);
		return NULL;
	}
	diversion_set_thread(d, k);
	return d;
}

void diversion_free(struct diversion *d)
{
	if (!d)
		return;
	if (d->cpu)
		emu_free(d->cpu);
	if (d->image)
		memory_image_free(d->image);
	free(d);
}

size_t diversion_thread(const struct diversion *d)
{
	return d->thread;
}

void diversion_set_thread(struct diversion *d, size_t k)
{
	d->thread = k;
	*emu_regs(d->cpu) = *resim_thread_regs(&d->s->sim, k);
}

struct emu_regs *diversion_regs(struct diversion *d)
{
	return emu_regs(d->cpu);
}

/* --- running ----------------------------------------------------------- */

struct run_state {
	const struct diversion_run *r;
	bool first; /* the run's first instruction: no breakpoint stops it */
};

static bool on_insn_start(void *ctx, uint64_t rip)
{
	struct run_state *st = ctx;
	if (st->first) {
		st->first = false;
		return false;
	}
	return st->r->breakpoint && st->r->breakpoint(st->r->ctx, rip);
}

static void say(const struct diversion_run *r, const char *text)
{
	if (r->say)
		r->say(r->say_ctx, text);
}

/* A system call or an instruction whose result the kernel or the CPU
 * would decide: not made, with a result that says so. */
static void complete_special(struct diversion *d, const struct diversion_run *r)
{
	const struct emu_exit_info *x = emu_exit_info(d->cpu);
	struct emu_regs *regs = emu_regs(d->cpu);
	char line[256];
	if (x->special == EMU_SPECIAL_SYSCALL) {
		if (!diversion_write_console(d, r)) {
			snprintf(line, sizeof(line),
				 "ttreplay: system call %llu not made (a function called from gdb runs on a"
				 " copy of the recording, which cannot make new system calls): it returns"
				 " -ENOSYS\n", (unsigned long long)regs->gpr[EMU_RAX]);
			say(r, line);
			regs->gpr[EMU_RAX] = (uint64_t)-ENOSYS;
		}
		/* As the kernel leaves them after a syscall. */
		regs->gpr[EMU_RCX] = regs->rip + x->insn_len;
		regs->gpr[EMU_R11] = regs->rflags;
		emu_skip_insn(d->cpu);
		return;
	}
	snprintf(line, sizeof(line),
		 "ttreplay: %s in a function called from gdb: not run, its results are zeros\n",
		 emu_special_name(x->special));
	say(r, line);
	if (x->special == EMU_SPECIAL_RDRAND || x->special == EMU_SPECIAL_RDSEED) {
		emu_complete_random(d->cpu, 0, false);
		return;
	}
	regs->gpr[EMU_RAX] = regs->gpr[EMU_RDX] = 0;
	if (x->special == EMU_SPECIAL_CPUID)
		regs->gpr[EMU_RBX] = regs->gpr[EMU_RCX] = 0;
	if (x->special == EMU_SPECIAL_RDTSCP || x->special == EMU_SPECIAL_RDPID)
		regs->gpr[EMU_RCX] = 0;
	emu_skip_insn(d->cpu);
}

static int fault_signal(enum emu_fault_vector v)
{
	switch (v) {
	case EMU_FAULT_DE: case EMU_FAULT_MF: case EMU_FAULT_XM: return SIGFPE;
	case EMU_FAULT_UD: return SIGILL;
	case EMU_FAULT_BP: case EMU_FAULT_DB: return SIGTRAP;
	case EMU_FAULT_AC: return SIGBUS;
	default: return SIGSEGV;
	}
}

static enum diversion_stop_reason stopped_by_fault(struct diversion *d, const struct diversion_run *r,
						   int *signo)
{
	const struct emu_exit_info *x = emu_exit_info(d->cpu);
	char line[256];
	if (x->reason == EMU_EXIT_UNIMPLEMENTED) {
		snprintf(line, sizeof(line),
			 "ttreplay: %s is not emulated, and a function called from gdb cannot run it"
			 " natively: SIGILL\n", x->mnemonic ? x->mnemonic : "an instruction");
		say(r, line);
		*signo = SIGILL;
		return DIVERSION_SIGNAL;
	}
	*signo = fault_signal(x->fault);
	uint64_t rip = emu_regs(d->cpu)->rip;
	if (x->fault == EMU_FAULT_PF && !x->fault_write)
		snprintf(line, sizeof(line),
			 "ttreplay: a function called from gdb read 0x%llx (at 0x%llx), memory whose value"
			 " the recording never revealed (or that is not mapped): SIGSEGV\n",
			 (unsigned long long)x->fault_addr, (unsigned long long)rip);
	else if (x->fault == EMU_FAULT_PF)
		snprintf(line, sizeof(line),
			 "ttreplay: a function called from gdb wrote 0x%llx (at 0x%llx), in a page the"
			 " recording never showed mapped: SIGSEGV\n",
			 (unsigned long long)x->fault_addr, (unsigned long long)rip);
	else
		snprintf(line, sizeof(line), "ttreplay: a function called from gdb faulted (%s) at 0x%llx\n",
			 emu_fault_name(x->fault), (unsigned long long)rip);
	say(r, line);
	return DIVERSION_SIGNAL;
}

enum diversion_stop_reason diversion_run(struct diversion *d, const struct diversion_run *r,
					 int *signo)
{
	struct run_state st = { r, true };
	struct emu_observer obs = { .ctx = &st, .insn_start = on_insn_start };
	emu_set_observer(d->cpu, r->step ? NULL : &obs);
	enum diversion_stop_reason why;
	for (;;) {
		enum emu_exit e = emu_run(d->cpu, r->step ? 1 : DIVERSION_CHUNK);
		if (e == EMU_EXIT_SPECIAL) {
			complete_special(d, r);
			st.first = false;
			if (r->step) {
				why = DIVERSION_STEPPED;
				break;
			}
			continue;
		}
		if (e == EMU_EXIT_STOPPED) {
			why = DIVERSION_BREAKPOINT;
			break;
		}
		if (e == EMU_EXIT_FAULT || e == EMU_EXIT_UNIMPLEMENTED) {
			why = stopped_by_fault(d, r, signo);
			break;
		}
		if (r->step) {
			why = DIVERSION_STEPPED;
			break;
		}
		if (r->interrupted && r->interrupted(r->interrupt_ctx)) {
			why = DIVERSION_INTERRUPTED;
			break;
		}
	}
	emu_set_observer(d->cpu, NULL);
	return why;
}
