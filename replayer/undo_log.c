/*
 * undo_log.c — the last instructions of a forward replay, kept so that a
 * backward single step among them is an undo (undo_log.h).
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/undo_log.h"

static void take_mark(struct resim *sim, struct undo_mark *m)
{
	memset(m, 0, sizeof(*m)); /* (compared whole, padding included) */
	const struct resim_thread *th = &sim->threads[sim->current];
	m->thread = sim->current;
	m->events_taken = th->events.taken;
	m->memory_taken = th->mem.cursor.taken;
	m->counts = sim->counts;
	m->delivery_pending = sim->delivery_pending;
	m->ended = sim->ended;
	m->transition_begun = sim->transition_begun;
	m->in_kernel_write = sim->in_kernel_write;
	m->last_delivery_at = sim->last_delivery_at;
}

static void restart(struct undo_log *log)
{
	log->n = 0;
	log->n_acc = 0;
	log->n_bytes = 0;
	log->acc_from[0] = 0;
	log->broken = false;
}

/* Room for one more access of len old bytes; false when memory is short. */
static bool reserve(struct undo_log *log, size_t len)
{
	if (log->n_acc == log->cap_acc) {
		size_t cap = log->cap_acc ? 2 * log->cap_acc : 1024;
		void *p = realloc(log->acc, cap * sizeof(*log->acc));
		if (!p)
			return false;
		log->acc = p;
		log->cap_acc = cap;
	}
	if (log->n_bytes + len > log->cap_bytes) {
		size_t cap = log->cap_bytes ? 2 * log->cap_bytes : 16384;
		while (cap < log->n_bytes + len)
			cap *= 2;
		void *p = realloc(log->bytes, cap);
		if (!p)
			return false;
		log->bytes = p;
		log->cap_bytes = cap;
	}
	return true;
}

static void before_access(void *ctx, uint64_t addr, size_t len, bool write)
{
	struct undo_log *log = ctx;
	if (log->n == 0 || log->broken)
		return;
	if (len > UINT32_MAX || !reserve(log, len)) {
		log->broken = true;
		return;
	}
	uint8_t *old = log->bytes + log->n_bytes;
	/* A byte the debugger could not be shown before the access cannot
	 * be put back as it was. */
	if (replay_session_read_memory(log->s, addr, old, len) != len) {
		log->broken = true;
		return;
	}
	log->acc[log->n_acc++] = (struct undo_access){ .addr = addr, .len = (uint32_t)len,
						       .at = (uint32_t)log->n_bytes, .write = write };
	log->n_bytes += len;
	if (log->n_bytes > UINT32_MAX / 2)
		log->broken = true;
}

static bool on_insn_start(void *ctx, uint64_t rip)
{
	struct undo_log *log = ctx;
	struct resim *sim = &log->s->sim;
	uint64_t now = resim_now(sim);
	struct undo_mark mark;
	take_mark(sim, &mark);
	/* The instruction before this one stays undoable only when nothing
	 * but it ran since its start. */
	if (log->n > 0 && (log->broken || now != log->first + log->n ||
			   memcmp(&mark, &log->mark, sizeof(mark)) != 0))
		restart(log);
	if (log->n == UNDO_LOG_INSNS) {
		/* (Not reached from step_history.c, which logs fewer.) */
		restart(log);
	}
	if (log->n == 0)
		log->first = now;
	log->acc_from[log->n] = log->n_acc;
	log->regs[log->n] = *resim_thread_regs(sim, sim->current);
	log->regs[log->n].rip = rip;
	log->n++;
	log->acc_from[log->n] = log->n_acc;
	log->mark = mark;
	return false;
}

void undo_log_start(struct undo_log *log, struct replay_session *s)
{
	log->valid = false;
	if (!log->regs) {
		log->regs = malloc(UNDO_LOG_INSNS * sizeof(*log->regs));
		log->acc_from = malloc((UNDO_LOG_INSNS + 1) * sizeof(*log->acc_from));
		if (!log->regs || !log->acc_from) {
			free(log->regs);
			free(log->acc_from);
			log->regs = NULL;
			log->acc_from = NULL;
			return; /* (memory short: no log, the replay as before) */
		}
	}
	log->s = s;
	restart(log);
	static const struct emu_observer obs_template = { .insn_start = on_insn_start };
	struct emu_observer obs = obs_template;
	obs.ctx = log;
	emu_set_observer(s->sim.cpu, &obs);
	s->sim.proc.before_access = before_access;
	s->sim.proc.before_access_ctx = log;
	log->running = true;
}

void undo_log_stop(struct undo_log *log)
{
	if (!log->running)
		return;
	struct resim *sim = &log->s->sim;
	emu_set_observer(sim->cpu, NULL);
	sim->proc.before_access = NULL;
	sim->proc.before_access_ctx = NULL;
	log->running = false;
	/* The last instruction counts when the run ended just after it,
	 * nothing else having happened since its start. */
	struct undo_mark mark;
	take_mark(sim, &mark);
	if (log->n > 0 && (log->broken || resim_now(sim) != log->first + log->n ||
			   memcmp(&mark, &log->mark, sizeof(mark)) != 0))
		restart(log);
	log->valid = log->n > 0;
}

void undo_log_forget(struct undo_log *log)
{
	log->valid = false;
}

void undo_log_free(struct undo_log *log)
{
	free(log->regs);
	free(log->acc_from);
	free(log->acc);
	free(log->bytes);
	memset(log, 0, sizeof(*log));
}

bool undo_log_covers(const struct undo_log *log, uint64_t at)
{
	return log->valid && at >= log->first && at < log->first + log->n;
}

uint64_t undo_log_end(const struct undo_log *log)
{
	return log->first + log->n;
}

size_t undo_log_thread(const struct undo_log *log)
{
	return log->mark.thread;
}

const struct emu_regs *undo_log_regs(const struct undo_log *log, uint64_t at)
{
	return &log->regs[at - log->first];
}

const struct undo_access *undo_log_accesses(const struct undo_log *log, uint64_t at, size_t *n)
{
	size_t i = at - log->first;
	*n = log->acc_from[i + 1] - log->acc_from[i];
	return log->acc + log->acc_from[i];
}

size_t undo_log_read_memory(const struct undo_log *log, uint64_t at, uint64_t addr, void *buf,
			    size_t len)
{
	uint8_t *out = buf;
	/* Bytes an access overwrote or first showed come back as they were
	 * before it: the earliest access from `at` on wins, so the accesses
	 * are applied latest first. Which bytes can be shown at all is the
	 * same at `at` as now: an access's bytes were shown before it (or
	 * the stretch was cut there) and still are. */
	size_t known = replay_session_read_memory(log->s, addr, buf, len);
	for (size_t i = log->n_acc; i-- > log->acc_from[at - log->first];) {
		const struct undo_access *a = &log->acc[i];
		uint64_t lo = a->addr > addr ? a->addr : addr;
		uint64_t hi = a->addr + a->len < addr + len ? a->addr + a->len : addr + len;
		if (lo >= hi)
			continue;
		memcpy(out + (lo - addr), log->bytes + a->at + (lo - a->addr), hi - lo);
	}
	return known;
}
