/*
 * mini_recorder.h — a small recorder of a two-thread program, following
 * man/idna.5's thread contract: one emulator runs both threads in slices,
 * each switch logged as a SWITCH key frame with the global counter, a new
 * thread's stream starting with SWITCH and CHECKPOINT, one thread blocking
 * in a syscall across a switch, updates of a shared counter lost between a
 * load and a store as slices end. It notes, for every time of the global
 * clock, which thread runs, its rip and the shared counter, for the replay
 * to be checked against. Used by test_replay_threads.c and the helper that
 * writes the trace tests/replay.sh debugs.
 *
 * MINI_REQUIRE(cond, fmt, ...) reports a failure; by default it prints and
 * exits.
 */
#ifndef TTREC_TESTS_MINI_RECORDER_H
#define TTREC_TESTS_MINI_RECORDER_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "emulator/emu.h"
#include "trace-format/trace_regs.h"
#include "trace-format/idna.h"
#include "trace-format/predict_cache.h"

#ifndef MINI_REQUIRE
#define MINI_REQUIRE(cond, ...)                                        \
	do {                                                           \
		if (!(cond)) {                                         \
			fprintf(stderr, "mini recorder: " __VA_ARGS__); \
			fputc('\n', stderr);                           \
			exit(1);                                       \
		}                                                      \
	} while (0)
#endif

#define CODE 0x10000u
#define DATA 0x20000u
#define PAGE 4096u
#define A_ITERATIONS 120
#define A_SLICE 13
#define B_TID 4242
#define MAX_TIME 4096

/* Thread A: adds 1 to the shared counter A_ITERATIONS times, then
 * exit_group(7). */
static const uint8_t code_a[] = {
	0x48, 0x8b, 0x04, 0x25, 0x00, 0x00, 0x02, 0x00, /* mov rax, [DATA] */
	0x48, 0x83, 0xc0, 0x01,                         /* add rax, 1 */
	0x48, 0x89, 0x04, 0x25, 0x00, 0x00, 0x02, 0x00, /* mov [DATA], rax */
	0x48, 0xff, 0xc1,                               /* inc rcx */
	0x48, 0x81, 0xf9, A_ITERATIONS, 0, 0, 0,         /* cmp rcx, A_ITERATIONS */
	0x75, 0xe0,                                     /* jne 0 */
	0xb8, 0xe7, 0x00, 0x00, 0x00,                   /* mov eax, 231 */
	0xbf, 0x07, 0x00, 0x00, 0x00,                   /* mov edi, 7 */
	0x0f, 0x05,                                     /* syscall */
};

/* Thread B: adds 16 to the shared counter and stores its own count, with
 * a (blocking) getpid in every iteration, 25 times; then exit(0). */
static const uint8_t code_b[] = {
	0x48, 0x8b, 0x04, 0x25, 0x00, 0x00, 0x02, 0x00, /* mov rax, [DATA] */
	0x48, 0x83, 0xc0, 0x10,                         /* add rax, 16 */
	0x48, 0x89, 0x04, 0x25, 0x00, 0x00, 0x02, 0x00, /* mov [DATA], rax */
	0x48, 0x89, 0x0c, 0x25, 0x08, 0x00, 0x02, 0x00, /* mov [DATA+8], rcx */
	0x48, 0xff, 0xc1,                               /* inc rcx */
	0xb8, 0x27, 0x00, 0x00, 0x00,                   /* mov eax, 39 */
	0x0f, 0x05,                                     /* syscall */
	0x48, 0x83, 0xf9, 0x19,                         /* cmp rcx, 25 */
	0x75, 0xd4,                                     /* jne 0 */
	0xb8, 0x3c, 0x00, 0x00, 0x00,                   /* mov eax, 60 */
	0x31, 0xff,                                     /* xor edi, edi */
	0x0f, 0x05,                                     /* syscall */
};
#define B_START (CODE + 0x100)

struct mini_thread {
	struct mini_recorder *rec;
	uint32_t stream;
	struct predict_cache cache;
	struct emu_regs regs;
	uint64_t icount;
	bool started, blocked, exited;
};

/* What the replay must show at each time: who runs, where, and the shared
 * counter (valid: an instruction starts at that time). */
struct moment {
	bool valid;
	int thread;
	uint64_t rip, counter;
};

struct mini_recorder {
	struct idna_writer *w;
	uint8_t code[PAGE], data[PAGE];
	bool code_logged;
	struct emu_cpu *cpu;
	struct mini_thread threads[2];
	int current;
	uint64_t seq, time;
	struct moment moments[MAX_TIME];
};

static void append(struct mini_recorder *r, uint32_t stream, const struct idna_record *rec)
{
	MINI_REQUIRE(idna_writer_append(r->w, stream, rec) == 0, "%s", idna_writer_error(r->w));
}

static uint8_t *mapped(struct mini_recorder *r, uint64_t addr, size_t size)
{
	if (addr >= CODE && addr + size <= CODE + PAGE)
		return r->code + (addr - CODE);
	MINI_REQUIRE(addr >= DATA && addr + size <= DATA + PAGE, "access at %#llx",
		      (unsigned long long)addr);
	return r->data + (addr - DATA);
}

static int rec_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct mini_thread *t = ctx;
	memcpy(buf, mapped(t->rec, addr, size), size);
	for (size_t done = 0; done < size; done += IDNA_MAX_READ) {
		unsigned n = size - done > IDNA_MAX_READ ? IDNA_MAX_READ : (unsigned)(size - done);
		uint64_t hits;
		if (!predict_cache_record_read(&t->cache, addr + done, (uint8_t *)buf + done, n, &hits)) {
			struct idna_record m = { .type = IDNA_REC_MISS };
			m.u.miss.hits_before = hits;
			m.u.miss.value = (uint8_t *)buf + done;
			m.u.miss.len = n;
			append(t->rec, t->stream, &m);
		}
	}
	return EMU_MEM_OK;
}

static int rec_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct mini_thread *t = ctx;
	memcpy(mapped(t->rec, addr, size), buf, size);
	predict_cache_update(&t->cache, addr, buf, size);
	if (addr < CODE + PAGE && addr + size > CODE)
		t->rec->code_logged = false;
	return EMU_MEM_OK;
}

static size_t rec_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct mini_thread *t = ctx;
	struct mini_recorder *r = t->rec;
	if (addr < CODE || addr >= CODE + PAGE)
		return 0;
	if (!r->code_logged) {
		struct idna_record c = { .type = IDNA_REC_CODE_PAGE };
		c.u.code_page.addr = CODE;
		c.u.code_page.bytes = r->code;
		c.u.code_page.len = PAGE;
		append(r, t->stream, &c);
		r->code_logged = true;
	}
	if (size > CODE + PAGE - addr)
		size = CODE + PAGE - addr;
	memcpy(buf, r->code + (addr - CODE), size);
	return size;
}

static const struct emu_memory_ops rec_ops = {
	.read = rec_read, .write = rec_write, .fetch = rec_fetch,
};

static void key_frame(struct mini_recorder *r, struct mini_thread *t, uint32_t reason, uint64_t seq)
{
	struct idna_record k = { .type = IDNA_REC_KEY_FRAME };
	k.u.key.global_seq = seq;
	k.u.key.icount = t->icount;
	k.u.key.reason = reason;
	append(r, t->stream, &k);
}

static void checkpoint(struct mini_recorder *r, struct mini_thread *t)
{
	struct idna_regs regs;
	trace_regs_from_emu(&t->regs, &regs);
	struct idna_record c = { .type = IDNA_REC_CHECKPOINT };
	c.u.checkpoint.global_seq = r->seq++;
	c.u.checkpoint.icount = t->icount;
	c.u.checkpoint.regs = &regs;
	append(r, t->stream, &c);
	predict_cache_flush(&t->cache);
	r->code_logged = false;
	emu_invalidate_code(r->cpu, 0, UINT64_MAX);
}

/* Switches the emulator to thread i, as the contract logs it. */
static void switch_to(struct mini_recorder *r, int i)
{
	struct mini_thread *from = &r->threads[r->current], *to = &r->threads[i];
	from->regs = *emu_regs(r->cpu);
	from->icount = emu_icount(r->cpu);
	key_frame(r, to, IDNA_KEY_SWITCH, r->seq++);
	if (!to->started) {
		to->started = true;
		struct idna_regs regs;
		trace_regs_from_emu(&to->regs, &regs);
		struct idna_record c = { .type = IDNA_REC_THREAD_CREATE };
		c.u.thread_create.tid = B_TID;
		c.u.thread_create.parent_tid = 4241;
		c.u.thread_create.stream = to->stream;
		c.u.thread_create.regs = &regs;
		append(r, 0, &c);
		checkpoint(r, to);
	}
	*emu_regs(r->cpu) = to->regs;
	emu_set_icount(r->cpu, to->icount);
	emu_set_memory_context(r->cpu, to);
	r->current = i;
	if (to->blocked) { /* its getpid returns now */
		to->blocked = false;
		struct emu_regs *regs = emu_regs(r->cpu);
		regs->gpr[EMU_RAX] = B_TID;
		regs->rip += 2;
		struct idna_regs after;
		trace_regs_from_emu(regs, &after);
		struct idna_record k = { .type = IDNA_REC_KERNEL };
		k.u.kernel.kind = IDNA_KERNEL_SYSCALL;
		k.u.kernel.nr = 39;
		k.u.kernel.result = B_TID;
		k.u.kernel.regs = &after;
		append(r, to->stream, &k);
		emu_set_icount(r->cpu, emu_icount(r->cpu) + 1);
		r->time++;
	}
}

/* Runs the current thread for at most n instructions; true when the
 * process has exited. */
static bool run_slice(struct mini_recorder *r, unsigned n)
{
	struct mini_thread *t = &r->threads[r->current];
	for (unsigned i = 0; i < n; i++) {
		MINI_REQUIRE(r->time < MAX_TIME, "too long");
		struct emu_regs *regs = emu_regs(r->cpu);
		r->moments[r->time] = (struct moment){ true, r->current, regs->rip, 0 };
		memcpy(&r->moments[r->time].counter, r->data, 8);
		enum emu_exit e = emu_run(r->cpu, 1);
		if (e == EMU_EXIT_LIMIT) {
			r->time++;
			continue;
		}
		r->moments[r->time].valid = false; /* no instruction retires here */
		MINI_REQUIRE(e == EMU_EXIT_SPECIAL, "the emulator stopped: %d", (int)e);
		MINI_REQUIRE(emu_exit_info(r->cpu)->special == EMU_SPECIAL_SYSCALL, "not a syscall");
		t->icount = emu_icount(r->cpu);
		key_frame(r, t, IDNA_KEY_EXIT, r->seq);
		uint64_t nr = regs->gpr[EMU_RAX];
		if (nr == 231) {
			struct idna_record x = { .type = IDNA_REC_PROCESS_EXIT };
			x.u.process_exit.status = 7 << 8;
			append(r, 0, &x);
			return true;
		}
		if (nr == 60) {
			t->exited = true;
			struct idna_record x = { .type = IDNA_REC_THREAD_EXIT };
			x.u.thread_exit.tid = B_TID;
			append(r, 0, &x);
		} else {
			t->blocked = true;
		}
		return false;
	}
	return false;
}

static struct mini_recorder *mini_record(const char *path)
{
	struct mini_recorder *r = calloc(1, sizeof(*r));
	MINI_REQUIRE(r != NULL, "out of memory");
	char err[256];
	const char *argv[] = { "two-threads" };
	struct idna_header_info info = { .argc = 1, .argv = argv, .cwd = "/" };
	struct idna_writer_options opt = { .cache_log2_entries = 10 };
	r->w = idna_writer_open(path, &opt, &info, err, sizeof(err));
	MINI_REQUIRE(r->w != NULL, "%s", err);
	memcpy(r->code, code_a, sizeof(code_a));
	memcpy(r->code + (B_START - CODE), code_b, sizeof(code_b));
	for (int i = 0; i < 2; i++) {
		struct mini_thread *t = &r->threads[i];
		t->rec = r;
		t->stream = (uint32_t)i + 1;
		MINI_REQUIRE(predict_cache_init(&t->cache, 10), "out of memory");
	}
	r->cpu = emu_new(&rec_ops, &r->threads[0]);
	MINI_REQUIRE(r->cpu != NULL, "out of memory");
	for (int i = 0; i < 2; i++)
		r->threads[i].regs = *emu_regs(r->cpu);
	r->threads[0].regs.rip = CODE;
	r->threads[1].regs.rip = B_START;
	*emu_regs(r->cpu) = r->threads[0].regs;
	r->threads[0].started = true;
	checkpoint(r, &r->threads[0]);
	/* A runs a slice, then B and A take turns; B runs until its syscall. */
	for (bool done = run_slice(r, 3 * A_SLICE); !done;) {
		int next = 1 - r->current;
		if (!r->threads[next].exited)
			switch_to(r, next);
		done = run_slice(r, r->current == 0 ? A_SLICE : 1000);
	}
	MINI_REQUIRE(idna_writer_close(r->w, err, sizeof(err)) == 0, "%s", err);
	emu_free(r->cpu);
	for (int i = 0; i < 2; i++)
		predict_cache_fini(&r->threads[i].cache);
	return r;
}

#endif
