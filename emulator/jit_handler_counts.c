/*
 * jit_handler_counts.c — a debugging count of the instructions that still
 * run by their handler while the translator is on, by mnemonic and
 * operand shape, to find what is worth lowering next (jit_lower*.c).
 *
 * Off unless the environment has TTREC_JIT_HANDLER_COUNTS set when the
 * first translator is made; then translated code adds one to a counter
 * before each handler call (a fused compare and its jump count once),
 * the run loop counts the instructions of blocks that run without a
 * translation (cold ones, and those with nothing to lower), and the
 * table is printed to stderr at the process's exit, largest first. Off,
 * it costs one test of a flag per untranslated block.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jit.h"

bool emu_jit_counting;

/* One (mnemonic, shape) key: its calls from translated code and its runs
 * by the interpreter. */
struct handler_count {
	uint64_t translated, interpreted, stepped;
	uint16_t mnemonic;
	char shape[24];
};

#define COUNT_SLOTS 4096
static struct handler_count table[COUNT_SLOTS];
static unsigned n_used;
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

/* Operands as "r4,m8,i1,v16" (h1 for ah..bh): kind letter and size in bytes, then the
 * prefixes that choose another handler. */
static void shape_of(const struct emu_insn *insn, char *out, size_t cap)
{
	static const char kinds[] = "-rmaivqfkso"; /* enum emu_operand_kind */
	size_t n = 0;
	out[0] = 0;
	for (unsigned i = 0; i < insn->nopnd && i < 4 && n + 6 < cap; i++) {
		const struct emu_operand *o = &insn->opnd[i];
		char k = o->kind < sizeof(kinds) - 1 ? kinds[o->kind] : '?';
		if (o->kind == EMU_OPND_GPR && o->reg % 8)
			k = 'h'; /* ah..bh */
		n += (size_t)snprintf(out + n, cap - n, "%s%c%u", i ? "," : "", k, o->size);
	}
	if (insn->attr & (EMU_ATTR_REP | EMU_ATTR_REPNE) && n + 5 < cap)
		n += (size_t)snprintf(out + n, cap - n, " rep");
	if (insn->attr & EMU_ATTR_LOCK && n + 6 < cap)
		snprintf(out + n, cap - n, " lock");
}

static int by_total(const void *pa, const void *pb)
{
	const struct handler_count *a = pa, *b = pb;
	uint64_t ta = a->translated + a->interpreted + a->stepped;
	uint64_t tb = b->translated + b->interpreted + b->stepped;
	return ta < tb ? 1 : ta > tb ? -1 : 0;
}

static void print_counts(void)
{
	pthread_mutex_lock(&table_lock);
	qsort(table, n_used, sizeof(table[0]), by_total);
	uint64_t all_t = 0, all_i = 0, all_s = 0;
	for (unsigned i = 0; i < n_used; i++) {
		all_t += table[i].translated;
		all_i += table[i].interpreted;
		all_s += table[i].stepped;
	}
	fprintf(stderr, "handler runs: %llu from translated code, %llu in untranslated blocks, "
		"%llu stepped\n", (unsigned long long)all_t, (unsigned long long)all_i,
		(unsigned long long)all_s);
	fprintf(stderr, "%14s %14s %14s  %s\n", "translated", "untranslated", "stepped",
		"instruction");
	for (unsigned i = 0; i < n_used && i < 80; i++)
		fprintf(stderr, "%14llu %14llu %14llu  %s %s\n",
			(unsigned long long)table[i].translated,
			(unsigned long long)table[i].interpreted,
			(unsigned long long)table[i].stepped,
			emu_mnemonic_name(table[i].mnemonic), table[i].shape);
	/* Sorted: the slots no longer match their hashes. */
	n_used = COUNT_SLOTS;
	pthread_mutex_unlock(&table_lock);
}

static void init(void)
{
	const char *v = getenv("TTREC_JIT_HANDLER_COUNTS");
	if (v && *v && strcmp(v, "0") != 0) {
		emu_jit_counting = true;
		atexit(print_counts);
	}
}

void emu_jit_counting_init(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, init);
}

/* The entry of insn's key, found or added (open addressing); NULL when
 * the table is full. */
static struct handler_count *entry_of(const struct emu_insn *insn)
{
	char shape[sizeof(table[0].shape)];
	shape_of(insn, shape, sizeof(shape));
	uint32_t h = insn->mnemonic * 2654435761u;
	for (const char *s = shape; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	for (unsigned probe = 0; probe < COUNT_SLOTS && n_used < COUNT_SLOTS; probe++) {
		struct handler_count *e = &table[(h + probe) % COUNT_SLOTS];
		if (e->shape[0] == 0 && e->mnemonic == 0) {
			e->mnemonic = insn->mnemonic;
			memcpy(e->shape, shape, sizeof(shape));
			if (!e->shape[0])
				e->shape[0] = ' ';
			n_used++;
			return e;
		}
		if (e->mnemonic == insn->mnemonic &&
		    strcmp(e->shape, shape[0] ? shape : " ") == 0)
			return e;
	}
	return NULL;
}

uint64_t *jit_handler_counter(const struct emu_insn *insn)
{
	static uint64_t overflow;
	pthread_mutex_lock(&table_lock);
	struct handler_count *e = entry_of(insn);
	pthread_mutex_unlock(&table_lock);
	return e ? &e->translated : &overflow;
}

void emu_jit_count_interpreted(const struct emu_block *b)
{
	pthread_mutex_lock(&table_lock);
	for (uint32_t i = 0; i < b->fused_count; i++) {
		struct handler_count *e = entry_of(&b->insns[i]);
		if (e)
			e->interpreted++;
	}
	pthread_mutex_unlock(&table_lock);
}

void emu_jit_count_stepped(const struct emu_insn *insn)
{
	pthread_mutex_lock(&table_lock);
	struct handler_count *e = entry_of(insn);
	if (e)
		e->stepped++;
	pthread_mutex_unlock(&table_lock);
}
