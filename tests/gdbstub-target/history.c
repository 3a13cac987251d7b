/*
 * history.c — records a run of a small static program in the emulator and
 * moves through it (see history.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "history.h"

enum { SYS_WRITE = 1, SYS_EXIT = 60, SYS_EXIT_GROUP = 231 };

static void *grow(void *p, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return p;
	size_t cap2 = *cap ? *cap * 2 : 1024;
	while (cap2 < need)
		cap2 *= 2;
	void *q = realloc(p, cap2 * elem);
	if (!q) {
		fprintf(stderr, "gdbstub-target: out of memory\n");
		exit(2);
	}
	*cap = cap2;
	return q;
}

static void log_access(struct history *h, uint64_t addr, size_t len,
		       const void *old_bytes, const void *new_bytes)
{
	h->accesses = grow(h->accesses, &h->access_cap, h->access_count + 1,
			   sizeof(*h->accesses));
	struct history_access *a = &h->accesses[h->access_count++];
	a->addr = addr;
	a->len = (uint32_t)len;
	a->is_write = new_bytes != NULL;
	a->data = h->pool_len;
	if (a->is_write) {
		h->pool = grow(h->pool, &h->pool_cap, h->pool_len + 2 * len, 1);
		memcpy(h->pool + h->pool_len, old_bytes, len);
		memcpy(h->pool + h->pool_len + len, new_bytes, len);
		h->pool_len += 2 * len;
	}
}

static int mem_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct history *h = ctx;
	struct region *r = image_find(h->image, addr, size);
	if (!r)
		return EMU_MEM_FAULT;
	memcpy(buf, r->bytes + (addr - r->start), size);
	log_access(h, addr, size, NULL, NULL);
	return EMU_MEM_OK;
}

static int mem_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct history *h = ctx;
	struct region *r = image_find(h->image, addr, size);
	if (!r || !r->writable)
		return EMU_MEM_FAULT;
	uint8_t *p = r->bytes + (addr - r->start);
	log_access(h, addr, size, p, buf);
	memcpy(p, buf, size);
	return EMU_MEM_OK;
}

static size_t mem_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct history *h = ctx;
	for (size_t i = 0; i < h->image->count; i++) {
		struct region *r = &h->image->regions[i];
		if (!r->executable || addr < r->start || addr - r->start >= r->size)
			continue;
		size_t n = r->size - (addr - r->start);
		if (n > size)
			n = size;
		memcpy(buf, r->bytes + (addr - r->start), n);
		return n;
	}
	return 0;
}

static const struct emu_memory_ops history_memory = {
	.read = mem_read, .write = mem_write, .fetch = mem_fetch,
};

static void save_state(struct history *h, uint64_t i, const struct emu_regs *r)
{
	struct history_state *s = &h->states[i];
	memcpy(s->gpr, r->gpr, sizeof(s->gpr));
	s->rip = r->rip;
	s->rflags = r->rflags;
}

/* Everything after rflags in struct emu_regs must not change. */
#define FIXED_OFFSET offsetof(struct emu_regs, fs_base)

static bool fixed_state_unchanged(const struct history *h, const struct emu_regs *r)
{
	return memcmp((const uint8_t *)&h->fixed + FIXED_OFFSET,
		      (const uint8_t *)r + FIXED_OFFSET,
		      sizeof(*r) - FIXED_OFFSET) == 0;
}

/* Performs the system call at rip; false when it ends the program. */
static bool do_syscall(struct history *h, struct emu_cpu *cpu)
{
	struct emu_regs *r = emu_regs(cpu);
	uint64_t nr = r->gpr[EMU_RAX];
	if (nr == SYS_EXIT || nr == SYS_EXIT_GROUP) {
		h->end = HISTORY_EXITED;
		h->exit_status = (int)(r->gpr[EMU_RDI] & 0xff);
		return false;
	}
	int64_t result = -ENOSYS;
	if (nr == SYS_WRITE) {
		uint64_t buf = r->gpr[EMU_RSI], len = r->gpr[EMU_RDX];
		struct region *reg = image_find(h->image, buf, len);
		if (r->gpr[EMU_RDI] != 1 && r->gpr[EMU_RDI] != 2)
			result = -EBADF;
		else if (!reg)
			result = -EFAULT;
		else {
			/* stdout is GDB's link: the program's output goes to
			 * stderr, which GDB shows. */
			if (write(2, reg->bytes + (buf - reg->start), len) < 0)
				result = -EIO;
			else
				result = (int64_t)len;
		}
	}
	/* What the kernel does: result in rax, rcx and r11 clobbered. */
	emu_skip_insn(cpu);
	r->gpr[EMU_RAX] = (uint64_t)result;
	r->gpr[EMU_RCX] = r->rip;
	r->gpr[EMU_R11] = r->rflags;
	return true;
}

static int signal_of_fault(enum emu_fault_vector v)
{
	switch (v) {
	case EMU_FAULT_DE: return SIGFPE;
	case EMU_FAULT_UD: return SIGILL;
	case EMU_FAULT_BP: return SIGTRAP;
	case EMU_FAULT_MF: case EMU_FAULT_XM: return SIGFPE;
	case EMU_FAULT_AC: return SIGBUS;
	default: return SIGSEGV;
	}
}

bool history_record(struct history *h, struct image *image, uint64_t max_insns)
{
	memset(h, 0, sizeof(*h));
	h->image = image;
	struct emu_cpu *cpu = emu_new(&history_memory, h);
	if (!cpu)
		return false;
	struct emu_regs *r = emu_regs(cpu);
	r->rip = image->entry;
	r->gpr[EMU_RSP] = image->initial_rsp;
	r->rflags = 0x202; /* IF and the always-one bit, as Linux starts a process */
	r->seg_cs = 0x33;
	r->seg_ss = 0x2b;
	h->fixed = *r;

	size_t states_cap = 0, first_cap = 0;
	uint64_t i = 0;
	h->end = HISTORY_TRUNCATED;
	for (;; i++) {
		h->states = grow(h->states, &states_cap, i + 1, sizeof(*h->states));
		h->first_access = grow(h->first_access, &first_cap, i + 2,
				       sizeof(*h->first_access));
		save_state(h, i, r);
		h->first_access[i] = h->access_count;
		if (i == max_insns) {
			fprintf(stderr, "gdbstub-target: stopped recording after %llu instructions\n",
				(unsigned long long)i);
			break;
		}
		enum emu_exit e = emu_run(cpu, 1);
		const struct emu_exit_info *x = emu_exit_info(cpu);
		if (e == EMU_EXIT_SPECIAL && x->special == EMU_SPECIAL_SYSCALL) {
			if (!do_syscall(h, cpu))
				break;
		} else if (e == EMU_EXIT_FAULT) {
			h->end = HISTORY_SIGNALLED;
			h->signo = signal_of_fault(x->fault);
			break;
		} else if (e != EMU_EXIT_LIMIT) {
			fprintf(stderr, "gdbstub-target: history ends at %#llx: %s %s\n",
				(unsigned long long)r->rip, emu_exit_name(e),
				e == EMU_EXIT_UNIMPLEMENTED ? x->mnemonic
							    : emu_special_name(x->special));
			break;
		}
		/* A fault's partial accesses are not part of history. */
		if (!fixed_state_unchanged(h, r)) {
			fprintf(stderr, "gdbstub-target: instruction at %#llx changed state the test target does not record\n",
				(unsigned long long)h->states[i].rip);
			emu_free(cpu);
			return false;
		}
	}
	/* Accesses of the instruction that ended the history never happened. */
	for (size_t k = h->access_count; k > h->first_access[i]; k--) {
		struct history_access *a = &h->accesses[k - 1];
		if (a->is_write) {
			struct region *reg = image_find(image, a->addr, a->len);
			memcpy(reg->bytes + (a->addr - reg->start), h->pool + a->data, a->len);
		}
	}
	h->access_count = h->first_access[i];
	h->first_access[i + 1] = h->access_count;
	h->insns = i;
	h->now = i;
	emu_free(cpu);
	history_goto(h, 0);
	return true;
}

void history_free(struct history *h)
{
	free(h->states);
	free(h->accesses);
	free(h->first_access);
	free(h->pool);
	memset(h, 0, sizeof(*h));
}

/* Applies instruction i's writes forwards (redo) or backwards (undo). */
static void replay_writes(struct history *h, uint64_t i, bool redo)
{
	size_t lo = h->first_access[i], hi = h->first_access[i + 1];
	for (size_t n = 0; n < hi - lo; n++) {
		struct history_access *a = &h->accesses[redo ? lo + n : hi - 1 - n];
		if (!a->is_write)
			continue;
		struct region *r = image_find(h->image, a->addr, a->len);
		memcpy(r->bytes + (a->addr - r->start),
		       h->pool + a->data + (redo ? a->len : 0), a->len);
	}
}

void history_goto(struct history *h, uint64_t t)
{
	if (t > h->insns)
		t = h->insns;
	while (h->now > t)
		replay_writes(h, --h->now, false);
	while (h->now < t)
		replay_writes(h, h->now++, true);
}

void history_regs(const struct history *h, struct emu_regs *out)
{
	const struct history_state *s = &h->states[h->now];
	*out = h->fixed;
	memcpy(out->gpr, s->gpr, sizeof(s->gpr));
	out->rip = s->rip;
	out->rflags = s->rflags;
}
