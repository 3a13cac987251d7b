/*
 * run.c — the CPU object and the interpreter loop.
 */
#include <stdlib.h>
#include <string.h>

#include "flags.h"
#include "jit.h"
#include "x87.h"

struct emu_cpu *emu_new(const struct emu_memory_ops *mem, void *mem_ctx)
{
	struct emu_cpu *cpu = calloc(1, sizeof(*cpu));
	if (!cpu)
		return NULL;
	cpu->cache = emu_decode_cache_new();
	if (!cpu->cache) {
		free(cpu);
		return NULL;
	}
	cpu->code_page_filter = emu_decode_cache_page_filter(cpu->cache);
	cpu->mem = mem;
	emu_set_memory_context(cpu, mem_ctx);
	cpu->regs.rflags = 0x202;
	cpu->regs.fcw = 0x37f;
	cpu->regs.ftw = 0xffff;
	cpu->regs.mxcsr = 0x1f80;
	cpu->regs.seg_cs = 0x33;
	cpu->regs.seg_ss = 0x2b;
	return cpu;
}

const uint64_t *emu_code_page_filter(const struct emu_cpu *cpu)
{
	return cpu->code_page_filter;
}

void emu_set_memory_context(struct emu_cpu *cpu, void *mem_ctx)
{
	cpu->mem_ctx = mem_ctx;
	if (!cpu->mem->inline_memory)
		return;
	const struct emu_inline_memory *m = cpu->mem->inline_memory(mem_ctx);
	/* Translations have the cache's hash shift and the bitmap's
	 * distance as immediates, and one hash or the other
	 * (jit_inline_memory.c): another of any needs new ones. */
	bool other_hash = (m->cache_direct_mask != 0) != (cpu->mem_inline.cache_direct_mask != 0);
	if (cpu->jit && (m->cache_shift != cpu->mem_inline.cache_shift || other_hash ||
			 m->dirty_offset != cpu->mem_inline.dirty_offset)) {
		emu_set_jit(cpu, false);
		emu_set_jit(cpu, true);
	}
	cpu->mem_inline = (struct emu_inline_view){
		.pages = m->pages,
		.page_bytes_mask = m->page_mask * sizeof(struct emu_inline_page),
		.cache = m->cache,
		.cache_multiplier = m->cache_multiplier,
		.cache_shift = m->cache_shift,
		.cache_direct_mask = m->cache_direct_mask,
		.hits_since_miss = m->hits_since_miss,
		.write_tag_bit = m->writes_inline ? EMU_INLINE_PAGE_WRITABLE
						  : EMU_INLINE_NEVER_WRITABLE,
		.dirty_offset = m->dirty_offset,
		.hits_limit = m->hits_limit,
	};
}

bool emu_set_jit(struct emu_cpu *cpu, bool on)
{
	if (on && !cpu->jit)
		cpu->jit = emu_jit_new();
	else if (!on && cpu->jit) {
		emu_decode_cache_forget_translations(cpu->cache);
		emu_jit_free(cpu->jit);
		cpu->jit = NULL;
	}
	return !on || cpu->jit != NULL;
}

void emu_free(struct emu_cpu *cpu)
{
	if (!cpu)
		return;
	emu_x87_settle(cpu);
	emu_set_jit(cpu, false);
	emu_decode_cache_free(cpu->cache);
	free(cpu);
}

struct emu_regs *emu_regs(struct emu_cpu *cpu)
{
	/* Callers read and write regs between runs: no flags left pending. */
	emu_flags_materialise(cpu);
	return &cpu->regs;
}

void emu_set_observer(struct emu_cpu *cpu, const struct emu_observer *obs)
{
	if (obs) {
		cpu->obs = *obs;
		cpu->has_observer = true;
	} else {
		memset(&cpu->obs, 0, sizeof(cpu->obs));
		cpu->has_observer = false;
	}
}

const struct emu_exit_info *emu_exit_info(const struct emu_cpu *cpu)
{
	return &cpu->exit;
}

uint64_t emu_icount(const struct emu_cpu *cpu)
{
	return cpu->icount;
}

void emu_fetch_current(struct emu_cpu *cpu)
{
	uint8_t bytes[15];
	cpu->mem->fetch(cpu->mem_ctx, cpu->regs.rip, bytes, sizeof(bytes));
}

void emu_set_icount(struct emu_cpu *cpu, uint64_t icount)
{
	cpu->icount = icount;
}

void emu_skip_insn(struct emu_cpu *cpu)
{
	cpu->regs.rip += cpu->exit.insn_len;
	cpu->icount++;
}

int emu_handler_unimplemented(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	cpu->exit.reason = EMU_EXIT_UNIMPLEMENTED;
	cpu->exit.mnemonic = emu_mnemonic_name(insn->mnemonic);
	return EMU_STOP;
}

int emu_handler_undefined(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)insn;
	return emu_fault(cpu, EMU_FAULT_UD);
}

int emu_handler_stale(struct emu_cpu *cpu, const struct emu_insn *insn)
{
	(void)cpu;
	(void)insn;
	return EMU_STALE;
}

/*
 * One block with nothing watching: icount and rip are brought up to date
 * once per block instead of once per instruction (no handler reads them;
 * memory callbacks that need the count run with an observer set). Returns
 * false when the run must stop (cpu->exit is set).
 *
 * A write to this block's own code retires it, and retiring turns the
 * handlers of its remaining instructions into emu_handler_stale: the loop
 * needs no check of its own, and leaves at the first instruction not yet
 * run, with rip at it. *stale tells the caller not to link from b.
 */
static inline __attribute__((always_inline)) bool run_block_unobserved(struct emu_cpu *cpu,
								       const struct emu_block *b,
								       bool *stale)
{
	const struct emu_insn *first = b->insns, *insn = first;
	const struct emu_insn *last = first + b->fused_count - 1;
	cpu->regs.rip = b->next_rip;
	for (;; insn++) {
		int status = insn->handler(cpu, insn);
		if (EMU_UNLIKELY(status != EMU_OK)) {
			cpu->regs.rip = insn->addr;
			cpu->icount += (uint64_t)(insn - first);
			if (status == EMU_STALE) {
				*stale = true;
				return true;
			}
			cpu->exit.insn_len = insn->len;
			return false;
		}
		if (insn == last)
			break;
	}
	/* A fused pair at the end retires two instructions. */
	cpu->icount += b->count;
	return true;
}

/* Blocks by their translations, from *bp on while they chain: the same
 * outcome as run_block_unobserved on each (jit.h says how a translation
 * reports a stop). *bp becomes the last block run. */
static inline bool run_block_translated(struct emu_cpu *cpu, struct emu_block **bp, bool *stale)
{
	int64_t left = cpu->chain_left;
	struct emu_jit_exit r = (*bp)->jit(cpu);
	/* Each block run whole took its count from chain_left (jit.h). */
	cpu->icount += (uint64_t)(left - cpu->chain_left);
	*bp = r.block;
	int status = (int)(uint32_t)r.code;
	if (EMU_LIKELY(status == EMU_OK))
		return true;
	const struct emu_insn *insn = &r.block->insns[r.code >> 32];
	cpu->regs.rip = insn->addr;
	cpu->icount += r.code >> 32;
	if (status == EMU_STALE) {
		*stale = true;
		return true;
	}
	cpu->exit.insn_len = insn->len;
	return false;
}

/* One block instruction by instruction, fused pairs unfused: observers
 * see each instruction start with icount and rip current, and the run can
 * end mid-block. */
static bool run_block_stepwise(struct emu_cpu *cpu, const struct emu_block *b, uint64_t end,
			       bool *stale)
{
	const struct emu_insn *insn = b->insns;
	const struct emu_insn *last = insn + b->count;
	/* Blocks run whole leave the flag set: only this loop reads it. */
	cpu->code_changed = false;
	for (; insn < last; insn++) {
		if (cpu->has_observer && cpu->obs.insn_start &&
		    cpu->obs.insn_start(cpu->obs.ctx, insn->addr)) {
			cpu->regs.rip = insn->addr;
			cpu->exit.reason = EMU_EXIT_STOPPED;
			return false;
		}
		cpu->regs.rip = insn->addr + insn->len;
		if (EMU_UNLIKELY(emu_jit_counting) && cpu->jit)
			emu_jit_count_stepped(insn);
		emu_handler *handler = insn->handler;
		if (EMU_UNLIKELY(b->unfused != NULL) && insn == &b->insns[b->fused_count - 1])
			handler = b->unfused;
		int status = handler(cpu, insn);
		if (status != EMU_OK) {
			cpu->regs.rip = insn->addr;
			if (status == EMU_STALE) {
				*stale = true;
				return true;
			}
			cpu->exit.insn_len = insn->len;
			return false;
		}
		if (++cpu->icount >= end)
			return false;
		if (cpu->code_changed) {
			cpu->code_changed = false;
			*stale = true;
			break;
		}
	}
	return true;
}

/* An observed run's chains of translated blocks go home after about this
 * many instructions (emu_observer.block_watched). */
#define OBSERVED_CHAIN_INSNS (1u << 16)

/* Whether the observer must see b's instructions one by one. */
static bool block_observed(struct emu_cpu *cpu, const struct emu_block *b)
{
	const struct emu_observer *o = &cpu->obs;
	if (!o->block_watched || o->sync || o->flow)
		return true;
	return o->block_watched(o->ctx, b->start, b->next_rip);
}

enum emu_exit emu_run(struct emu_cpu *cpu, uint64_t max_insns)
{
	uint64_t end = max_insns > UINT64_MAX - cpu->icount ? UINT64_MAX : cpu->icount + max_insns;
	memset(&cpu->exit, 0, sizeof(cpu->exit));
	cpu->exit.reason = EMU_EXIT_LIMIT;
	cpu->code_changed = false;
	cpu->chain_limit = end >= EMU_MAX_BLOCK_INSNS ? end - EMU_MAX_BLOCK_INSNS + 1 : 0;

	struct emu_block *b = NULL;
	while (cpu->icount < end) {
		struct emu_block *from = b;
		b = emu_block_next(cpu, b, cpu->regs.rip);
		if (EMU_UNLIKELY(b && b->fetch_epoch != cpu->fetch_epoch))
			b = emu_block_refetch(cpu, b);
		if (EMU_UNLIKELY(!b)) {
			cpu->exit.reason = EMU_EXIT_UNIMPLEMENTED;
			cpu->exit.mnemonic = "(decode cache out of memory)";
			break;
		}
		/* An observed run links only into blocks the observer need
		 * not see (emu_unchain_code). */
		bool observed = cpu->has_observer && block_observed(cpu, b);
		if (from && from->jit && b->jit && !from->retired && !observed)
			emu_jit_chain(from, cpu->regs.rip == from->next_rip ? 0 : 1, b);
		bool stale = false;
		if (EMU_LIKELY(!observed && end - cpu->icount >= b->count)) {
			if (cpu->jit && !b->jit && ++b->heat == EMU_JIT_HOT)
				emu_jit_translate(cpu, b);
			if (b->jit) {
				uint64_t room = cpu->chain_limit > cpu->icount
						? cpu->chain_limit - cpu->icount : 0;
				/* Back to the observer's question now and then. */
				if (cpu->has_observer && room > OBSERVED_CHAIN_INSNS)
					room = OBSERVED_CHAIN_INSNS;
				cpu->chain_left = room > INT64_MAX ? INT64_MAX : (int64_t)room;
				if (!run_block_translated(cpu, &b, &stale))
					break;
			} else {
				if (EMU_UNLIKELY(emu_jit_counting) && cpu->jit)
					emu_jit_count_interpreted(b);
				if (EMU_UNLIKELY(!run_block_unobserved(cpu, b, &stale)))
					break;
			}
		} else if (!run_block_stepwise(cpu, b, end, &stale)) {
			break;
		}
		if (EMU_UNLIKELY(stale))
			b = NULL; /* retired, or may be: no link from it */
	}
	emu_flags_materialise(cpu);
	emu_x87_settle(cpu);
	emu_decode_cache_release_retired(cpu);
	return cpu->exit.reason;
}

const char *emu_exit_name(enum emu_exit e)
{
	switch (e) {
	case EMU_EXIT_LIMIT: return "limit";
	case EMU_EXIT_SPECIAL: return "special";
	case EMU_EXIT_FAULT: return "fault";
	case EMU_EXIT_UNIMPLEMENTED: return "unimplemented";
	case EMU_EXIT_STOPPED: return "stopped";
	}
	return "?";
}

const char *emu_special_name(enum emu_special s)
{
	static const char *const names[EMU_SPECIAL_COUNT] = {
		"none", "syscall", "cpuid", "rdtsc", "rdtscp", "rdrand",
		"rdseed", "xgetbv", "rdpid",
	};
	return (unsigned)s < EMU_SPECIAL_COUNT ? names[s] : "?";
}

const char *emu_fault_name(enum emu_fault_vector v)
{
	switch (v) {
	case EMU_FAULT_DE: return "#DE";
	case EMU_FAULT_DB: return "#DB";
	case EMU_FAULT_BP: return "#BP";
	case EMU_FAULT_UD: return "#UD";
	case EMU_FAULT_NM: return "#NM";
	case EMU_FAULT_GP: return "#GP";
	case EMU_FAULT_PF: return "#PF";
	case EMU_FAULT_MF: return "#MF";
	case EMU_FAULT_AC: return "#AC";
	case EMU_FAULT_XM: return "#XM";
	}
	return "#?";
}
