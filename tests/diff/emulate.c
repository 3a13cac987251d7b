/*
 * emulate.c — runs the instruction under test in the emulator.
 *
 * The emulator sees the same scratch memory and the same stub page as the
 * native run, through a memory interface that, unlike emu_self_memory_ops,
 * checks addresses: reads and writes outside the scratch are page faults
 * (as the guard pages around it are for the CPU), fetches outside the code
 * page find nothing. So a wrong address computed by the emulator is a
 * reported fault, never a crash of the harness.
 */
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"
#include "diff.h"

static struct emu_cpu *cpu;

static bool in_range(uint64_t addr, size_t size, const uint8_t *base, size_t len)
{
	uint64_t b = (uint64_t)(uintptr_t)base;
	return addr >= b && size <= len && addr - b <= len - size;
}

static int scratch_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	const struct diff_machine *m = ctx;
	if (!in_range(addr, size, m->scratch, DIFF_SCRATCH_SIZE))
		return EMU_MEM_FAULT;
	memcpy(buf, (const void *)(uintptr_t)addr, size);
	return EMU_MEM_OK;
}

static int scratch_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	const struct diff_machine *m = ctx;
	if (!in_range(addr, size, m->scratch, DIFF_SCRATCH_SIZE))
		return EMU_MEM_FAULT;
	memcpy((void *)(uintptr_t)addr, buf, size);
	return EMU_MEM_OK;
}

static size_t code_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	const struct diff_machine *m = ctx;
	uint64_t start = (uint64_t)(uintptr_t)m->code, end = start + 4096;
	if (addr < start || addr >= end)
		return 0;
	size_t n = end - addr < size ? (size_t)(end - addr) : size;
	memcpy(buf, (const void *)(uintptr_t)addr, n);
	return n;
}

static const struct emu_memory_ops harness_memory = {
	.read = scratch_read,
	.write = scratch_write,
	.fetch = code_fetch,
};

bool diff_emulate_init(struct diff_machine *m)
{
	cpu = emu_new(&harness_memory, m);
	if (!cpu) {
		fprintf(stderr, "diff: cannot create the emulated CPU\n");
		return false;
	}
	return true;
}

/* The emulator's decoded code lives in a mapping the leak checker does
 * not scan: only a freed CPU says its blocks were not lost. */
void diff_emulate_fini(void)
{
	emu_free(cpu);
	cpu = NULL;
}

void diff_emulate_code_changed(struct diff_machine *m)
{
	emu_invalidate_code(cpu, (uint64_t)(uintptr_t)m->code, 4096);
}

static void load(struct emu_regs *r, const struct diff_state *s)
{
	memcpy(r->gpr, s->gpr, sizeof(s->gpr));
	r->rflags = s->rflags;
	r->rip = s->rip;
	r->mxcsr = s->mxcsr;
	/* Everything the input does not describe (AVX-512 state) in its
	 * initial configuration, as the native stub puts it. */
	memset(r->zmm, 0, sizeof(r->zmm));
	memset(r->k, 0, sizeof(r->k));
	for (unsigned i = 0; i < DIFF_VECS; i++)
		memcpy(r->zmm[i].b, s->vec[i], DIFF_VEC_BYTES);
	r->fcw = s->x87.fcw;
	r->fsw = s->x87.fsw;
	r->ftw = s->x87.ftw;
	r->fop = 0;
	r->fip = r->fdp = 0;
	for (unsigned i = 0; i < 8; i++) {
		memset(r->st[i].bytes, 0, sizeof(r->st[i].bytes));
		memcpy(r->st[i].bytes, s->x87.reg[i], 10);
	}
}

static void store(const struct emu_regs *r, struct diff_state *s)
{
	memcpy(s->gpr, r->gpr, sizeof(s->gpr));
	s->rflags = r->rflags;
	s->rip = r->rip;
	s->mxcsr = r->mxcsr;
	for (unsigned i = 0; i < DIFF_VECS; i++)
		memcpy(s->vec[i], r->zmm[i].b, DIFF_VEC_BYTES);
	s->x87.fcw = r->fcw;
	s->x87.fsw = r->fsw;
	s->x87.ftw = r->ftw;
	for (unsigned i = 0; i < 8; i++)
		memcpy(s->x87.reg[i], r->st[i].bytes, 10);
}

void diff_emulate_run(struct diff_machine *m, const struct diff_state *in,
		      struct diff_result *out)
{
	struct emu_regs *r = emu_regs(cpu);
	memset(out, 0, sizeof(*out));
	memcpy(m->scratch, m->initial_memory, DIFF_SCRATCH_SIZE);
	load(r, in);
	/* One instruction; a rep string instruction may stop between
	 * iterations (rip unchanged) and is resumed, as the CPU would. */
	enum emu_exit e;
	unsigned rounds = 0;
	do
		e = emu_run(cpu, 1);
	while (e == EMU_EXIT_LIMIT && r->rip == in->rip && ++rounds < 100000);
	const struct emu_exit_info *x = emu_exit_info(cpu);
	switch (e) {
	case EMU_EXIT_LIMIT:
		out->outcome = DIFF_RAN;
		break;
	case EMU_EXIT_SPECIAL:
		out->outcome = DIFF_SPECIAL;
		out->special = x->special;
		break;
	case EMU_EXIT_FAULT:
		out->outcome = DIFF_FAULTED;
		out->vector = x->fault;
		out->fault_addr = x->fault_addr;
		break;
	default:
		out->outcome = DIFF_UNIMPLEMENTED;
		break;
	}
	store(r, &out->state);
}
