/*
 * test_replay_jit.c — the replayer's block translation against its
 * interpreter, through the replay's own memory interface. A small
 * recorder (the interpreter under a memory that logs misses and code
 * pages, as man/idna.5 says) records a program whose hot loops read and
 * write 1, 2, 4 and 8 bytes, call a function, rewrite an immediate of
 * their own code and have memory changed behind them by a "system call";
 * it takes a checkpoint every CP_INTERVAL instructions. The trace is
 * replayed with and without translation: the summary, and the registers
 * and memory at every checkpoint and at the end, must be the recorded
 * ones, and translation must have happened. Each segment of the first
 * pass notes the code it runs, blocks decoded before it included.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check_main.h"
#include "emulator/emu.h"
#include "trace-format/trace_regs.h"
#include "replayer/replay_session.h"
#include "trace-format/idna.h"
#include "trace-format/predict_cache.h"

#define CODE 0x10000u
#define DATA 0x20000u
#define PAGE 4096u
#define CODE_PAGES 2u
#define DATA_PAGES 4u
#define MAX_CHECKPOINTS 64
#define STREAM 1
/* What the program writes, from DATA. */
#define WRITTEN 0x800u
#define WRITTEN_END 0x1005u

/* rdi = DATA; 40 times: 300 times read a word of an array, change it,
 * store it in a second array, call a function (`func`) doing the other sizes;
 * then patch the `add rax, imm8` with the outer count and make system
 * call 0, which changes the array behind the program's back. */
static const uint8_t program[] = {
	0x49, 0xc7, 0xc1, 0x28, 0x00, 0x00, 0x00,       /* mov r9, 40 */
	0x49, 0xc7, 0xc0, 0x2c, 0x01, 0x00, 0x00,       /* outer: mov r8, 300 */
	0x48, 0x8b, 0x04, 0xf7,                         /* inner: mov rax, [rdi+rsi*8] */
	0x48, 0x83, 0xc0, 0x05,                         /* patch: add rax, 5 */
	0x48, 0x6b, 0xc0, 0x03,                         /* imul rax, rax, 3 */
	0x48, 0x89, 0x84, 0xf7, 0x00, 0x08, 0x00, 0x00, /* mov [rdi+rsi*8+0x800], rax */
	0x48, 0x01, 0xc2,                               /* add rdx, rax */
	0x48, 0xff, 0xc6,                               /* inc rsi */
	0x48, 0x81, 0xe6, 0xff, 0x00, 0x00, 0x00,       /* and rsi, 0xff */
	0xe8, 0xcc, 0x0f, 0x00, 0x00,                   /* call func (next page) */
	0x49, 0xff, 0xc8,                               /* dec r8 */
	0x75, 0xd5,                                     /* jne inner */
	0x44, 0x88, 0x0d, 0xd5, 0xff, 0xff, 0xff,       /* mov [rip+patch+3], r9b */
	0xb8, 0x00, 0x00, 0x00, 0x00,                   /* mov eax, 0 */
	0x0f, 0x05,                                     /* syscall */
	0x49, 0xff, 0xc9,                               /* dec r9 */
	0x75, 0xbb,                                     /* jne outer */
	0xb8, 0xe7, 0x00, 0x00, 0x00,                   /* mov eax, 231 */
	0x31, 0xff,                                     /* xor edi, edi */
	0x0f, 0x05,                                     /* syscall */
};

/* At CODE + PAGE: the system calls fetch the first page again and again,
 * so only this one shows whether a segment noted a block decoded before
 * it. */
static const uint8_t func[] = {
	0x53,                                           /* func: push rbx */
	0x8b, 0x9f, 0x00, 0x10, 0x00, 0x00,             /* mov ebx, [rdi+0x1000] */
	0x83, 0xc3, 0x01,                               /* add ebx, 1 */
	0x89, 0x9f, 0x00, 0x10, 0x00, 0x00,             /* mov [rdi+0x1000], ebx */
	0x88, 0x9f, 0x04, 0x10, 0x00, 0x00,             /* mov [rdi+0x1004], bl */
	0x0f, 0xb7, 0x9f, 0x06, 0x10, 0x00, 0x00,       /* movzx ebx, word [rdi+0x1006] */
	0x48, 0x01, 0xda,                               /* add rdx, rbx */
	0x5b,                                           /* pop rbx */
	0xc3,                                           /* ret */
};

/* What the replay must show at a time. */
struct moment {
	uint64_t time;
	struct emu_regs regs;
	uint8_t data[DATA_PAGES * PAGE];
};

struct recorder {
	struct idna_writer *w;
	uint8_t code[CODE_PAGES * PAGE], data[DATA_PAGES * PAGE];
	bool code_logged[CODE_PAGES];
	struct predict_cache cache;
	struct emu_cpu *cpu;
	uint64_t seq;
	struct moment moments[MAX_CHECKPOINTS + 1];
	size_t n_moments;
};

/* (Check's assertions write to a pipe each time: the recorder's paths,
 * run millions of times, test first.) */
static void append(struct recorder *r, uint32_t stream, const struct idna_record *rec)
{
	if (idna_writer_append(r->w, stream, rec) != 0)
		ck_abort_msg("%s", idna_writer_error(r->w));
}

static uint8_t *mapped(struct recorder *r, uint64_t addr, size_t size)
{
	if (addr >= CODE && addr + size <= CODE + sizeof(r->code))
		return r->code + (addr - CODE);
	if (addr < DATA || addr + size > DATA + sizeof(r->data))
		ck_abort_msg("access at %#llx", (unsigned long long)addr);
	return r->data + (addr - DATA);
}

static int rec_read(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct recorder *r = ctx;
	memcpy(buf, mapped(r, addr, size), size);
	for (size_t done = 0; done < size; done += IDNA_MAX_READ) {
		unsigned n = size - done > IDNA_MAX_READ ? IDNA_MAX_READ : (unsigned)(size - done);
		uint64_t hits;
		if (!predict_cache_record_read(&r->cache, addr + done, (uint8_t *)buf + done, n, &hits)) {
			struct idna_record m = { .type = IDNA_REC_MISS };
			m.u.miss.hits_before = hits;
			m.u.miss.value = (uint8_t *)buf + done;
			m.u.miss.len = n;
			append(r, STREAM, &m);
		}
	}
	return EMU_MEM_OK;
}

static int rec_write(void *ctx, uint64_t addr, const void *buf, size_t size)
{
	struct recorder *r = ctx;
	memcpy(mapped(r, addr, size), buf, size);
	predict_cache_update(&r->cache, addr, buf, size);
	for (unsigned pg = 0; pg < CODE_PAGES; pg++)
		if (addr < CODE + (pg + 1) * PAGE && addr + size > CODE + pg * PAGE)
			r->code_logged[pg] = false;
	return EMU_MEM_OK;
}

/* Whole code pages, logged when first fetched since a checkpoint or a
 * write to them. */
static size_t rec_fetch(void *ctx, uint64_t addr, void *buf, size_t size)
{
	struct recorder *r = ctx;
	size_t done = 0;
	while (done < size && addr + done >= CODE && addr + done < CODE + sizeof(r->code)) {
		unsigned pg = (unsigned)((addr + done - CODE) / PAGE);
		if (!r->code_logged[pg]) {
			struct idna_record c = { .type = IDNA_REC_CODE_PAGE };
			c.u.code_page.addr = CODE + pg * PAGE;
			c.u.code_page.bytes = r->code + pg * PAGE;
			c.u.code_page.len = PAGE;
			append(r, STREAM, &c);
			r->code_logged[pg] = true;
		}
		size_t n = CODE + (pg + 1) * PAGE - (addr + done);
		if (n > size - done)
			n = size - done;
		memcpy((uint8_t *)buf + done, r->code + (addr + done - CODE), n);
		done += n;
	}
	return done;
}

static const struct emu_memory_ops rec_ops = {
	.read = rec_read, .write = rec_write, .fetch = rec_fetch,
};

static void note_moment(struct recorder *r)
{
	ck_assert_uint_lt(r->n_moments, MAX_CHECKPOINTS + 1);
	struct moment *m = &r->moments[r->n_moments++];
	m->time = emu_icount(r->cpu);
	m->regs = *emu_regs(r->cpu);
	memcpy(m->data, r->data, sizeof(r->data));
}

static void checkpoint(struct recorder *r)
{
	struct idna_regs regs;
	trace_regs_from_emu(emu_regs(r->cpu), &regs);
	struct idna_record c = { .type = IDNA_REC_CHECKPOINT };
	c.u.checkpoint.global_seq = r->seq++;
	c.u.checkpoint.icount = emu_icount(r->cpu);
	c.u.checkpoint.regs = &regs;
	append(r, STREAM, &c);
	predict_cache_flush(&r->cache);
	memset(r->code_logged, 0, sizeof(r->code_logged));
	emu_invalidate_code(r->cpu, 0, UINT64_MAX);
	note_moment(r);
}

/* The system call the emulator stopped at; true at the exit. */
static bool kernel(struct recorder *r, uint64_t call)
{
	emu_fetch_current(r->cpu); /* as the replay does at an EXIT key frame */
	struct idna_record k = { .type = IDNA_REC_KEY_FRAME };
	k.u.key.global_seq = r->seq;
	k.u.key.icount = emu_icount(r->cpu);
	k.u.key.reason = IDNA_KEY_EXIT;
	append(r, STREAM, &k);
	struct emu_regs *regs = emu_regs(r->cpu);
	if (regs->gpr[EMU_RAX] == 231) {
		struct idna_record x = { .type = IDNA_REC_PROCESS_EXIT };
		x.u.process_exit.status = 0;
		append(r, 0, &x);
		return true;
	}
	/* Call 0 rewrites some words of the array the loop reads. */
	for (unsigned i = 0; i < 32; i++) {
		uint64_t v = (call + 1) * 0x9E3779B97F4A7C15ull * (i + 1);
		memcpy(r->data + ((i * 37 + call) % 256) * 8, &v, 8);
	}
	regs->gpr[EMU_RAX] = 0;
	regs->rip += 2;
	struct idna_regs after;
	trace_regs_from_emu(regs, &after);
	struct idna_record kr = { .type = IDNA_REC_KERNEL };
	kr.u.kernel.kind = IDNA_KERNEL_SYSCALL;
	kr.u.kernel.nr = 0;
	kr.u.kernel.regs = &after;
	append(r, STREAM, &kr);
	emu_set_icount(r->cpu, emu_icount(r->cpu) + 1);
	return false;
}

/* Where the program's outer count and its store into its code are. */
#define OUTER_COUNT_AT 3
#define CODE_STORE_AT 0x39

/* Records the program with `outer` outer iterations, its store into its
 * own code a nop unless self_modifying, a checkpoint every cp_interval
 * instructions. */
static struct recorder *record(const char *path, uint32_t outer, bool self_modifying,
			       uint64_t cp_interval)
{
	struct recorder *r = calloc(1, sizeof(*r));
	ck_assert_ptr_nonnull(r);
	char err[256];
	const char *argv[] = { "hot-loops" };
	struct idna_header_info info = { .argc = 1, .argv = argv, .cwd = "/" };
	struct idna_writer_options opt = { .cache_log2_entries = 12 };
	r->w = idna_writer_open(path, &opt, &info, err, sizeof(err));
	ck_assert_msg(r->w != NULL, "%s", err);
	memcpy(r->code, program, sizeof(program));
	memcpy(r->code + PAGE, func, sizeof(func));
	memcpy(r->code + OUTER_COUNT_AT, &outer, 4);
	if (!self_modifying) {
		static const uint8_t nop7[] = { 0x0f, 0x1f, 0x80, 0x00, 0x00, 0x00, 0x00 };
		memcpy(r->code + CODE_STORE_AT, nop7, sizeof(nop7));
	}
	for (size_t i = 0; i < sizeof(r->data); i++)
		r->data[i] = (uint8_t)(i * 131 + (i >> 8));
	ck_assert(predict_cache_init(&r->cache, 12));
	r->cpu = emu_new(&rec_ops, r);
	ck_assert_ptr_nonnull(r->cpu);
	struct emu_regs *regs = emu_regs(r->cpu);
	regs->rip = CODE;
	regs->gpr[EMU_RDI] = DATA;
	regs->gpr[EMU_RSP] = DATA + sizeof(r->data) - 64;
	uint64_t next_checkpoint = 0, calls = 0;
	for (;;) {
		if (emu_icount(r->cpu) >= next_checkpoint) {
			ck_assert_uint_lt(r->n_moments, MAX_CHECKPOINTS);
			checkpoint(r);
			next_checkpoint += cp_interval;
		}
		enum emu_exit e = emu_run(r->cpu, next_checkpoint - emu_icount(r->cpu));
		if (e == EMU_EXIT_LIMIT)
			continue;
		if (e != EMU_EXIT_SPECIAL || emu_exit_info(r->cpu)->special != EMU_SPECIAL_SYSCALL)
			ck_abort_msg("the recording stopped: %s", emu_exit_name(e));
		if (kernel(r, calls++))
			break;
	}
	note_moment(r); /* the end: at the exit */
	ck_assert_msg(idna_writer_close(r->w, err, sizeof(err)) == 0, "%s", err);
	emu_free(r->cpu);
	predict_cache_fini(&r->cache);
	return r;
}

static char trace_path[512];

static void make_trace(void)
{
	const char *dir = getenv("TMPDIR");
	snprintf(trace_path, sizeof(trace_path), "%s/replay-jit-%d.idna",
		 dir && *dir ? dir : P_tmpdir, (int)getpid());
}

static void remove_trace(void)
{
	unlink(trace_path);
}

static void check_moment(struct replay_session *s, const struct moment *m)
{
	ck_assert_msg(replay_session_goto(s, m->time) == 0, "%s", s->error);
	ck_assert_uint_eq(replay_session_now(s), m->time);
	const struct emu_regs *regs = emu_regs(s->sim.cpu);
	for (unsigned g = 0; g < EMU_GPR_COUNT; g++)
		ck_assert_msg(regs->gpr[g] == m->regs.gpr[g], "time %llu: gpr %u is %#llx, not %#llx",
			      (unsigned long long)m->time, g, (unsigned long long)regs->gpr[g],
			      (unsigned long long)m->regs.gpr[g]);
	ck_assert_uint_eq(regs->rip, m->regs.rip);
	ck_assert_uint_eq(regs->rflags, m->regs.rflags);
	/* The memory only the program writes (the second array, the
	 * function's words): what the "kernel" changes is known to the
	 * replay only once read again. */
	uint8_t data[WRITTEN_END - WRITTEN];
	size_t known = replay_session_read_memory(s, DATA + WRITTEN, data, sizeof(data));
	if (m->time > 0)
		ck_assert_uint_eq(known, sizeof(data));
	ck_assert_msg(memcmp(data, m->data + WRITTEN, known) == 0, "time %llu: memory differs",
		      (unsigned long long)m->time);
}

static void replay(const struct recorder *r, uint64_t calls, bool jit)
{
	struct replay_session s;
	struct replay_options opt = { .no_jit = !jit };
	ck_assert_msg(replay_session_open(&s, trace_path, &opt) == 0, "%s", s.error);
	ck_assert_msg(replay_session_finish_pass(&s) == 0, "%s", s.error);
	const struct moment *end = &r->moments[r->n_moments - 1];
	ck_assert_uint_eq(s.summary.instructions, end->time);
	ck_assert(s.summary.exit_consistent);
	ck_assert_uint_eq(s.summary.syscalls, calls);
	/* The end, reached in one run from the start, then each checkpoint
	 * (each from the start too: the history is one snapshot long). */
	check_moment(&s, end);
	ck_assert_msg((emu_jit_translations(s.sim.cpu) > 0) == jit, "%llu blocks translated",
		      (unsigned long long)emu_jit_translations(s.sim.cpu));
	for (size_t i = 0; i < r->n_moments; i++)
		check_moment(&s, &r->moments[i]);
	replay_session_close(&s);
}

START_TEST(translated_replay_is_the_recording)
{
	struct recorder *r = record(trace_path, 40, true, 10007);
	ck_assert_uint_gt(r->n_moments, 10);
	replay(r, 40, true);
	replay(r, 40, false);
	free(r);
}
END_TEST

START_TEST(segments_note_the_code_they_run)
{
	/* Blocks decoded in one segment between snapshots and run in the
	 * next ones, checkpoints rarer than snapshots: every segment says it
	 * may run the loop and the function (backward searches for a
	 * breakpoint skip segments that do not), and read their data. */
	struct recorder *r = record(trace_path, 1500, false, 5000000);
	const struct moment *end = &r->moments[r->n_moments - 1];
	ck_assert_uint_gt(end->time, 2 * REPLAY_SNAPSHOT_INTERVAL);
	for (int jit = 0; jit < 2; jit++) {
		struct replay_session s;
		struct replay_options opt = { .no_jit = !jit };
		ck_assert_msg(replay_session_open(&s, trace_path, &opt) == 0, "%s", s.error);
		ck_assert_msg(replay_session_finish_pass(&s) == 0, "%s", s.error);
		ck_assert_uint_eq(s.summary.instructions, end->time);
		ck_assert_uint_ge(s.n_snapshots, 3);
		for (size_t k = 0; k < s.n_snapshots; k++) {
			ck_assert(replay_session_segment_may_execute(&s, k, CODE + 0x0e)); /* inner */
			ck_assert(replay_session_segment_may_execute(&s, k, CODE + PAGE)); /* func */
			ck_assert(!replay_session_segment_may_execute(&s, k, CODE + 2 * PAGE));
			/* And the data read, translated or not: the array, the
			 * function's word, the stack (pop, ret); not the page
			 * between. */
			ck_assert(replay_session_segment_may_read(&s, k, DATA + 0x10, 8));
			ck_assert(replay_session_segment_may_read(&s, k, DATA + 0x1006, 2));
			ck_assert(replay_session_segment_may_read(&s, k, DATA + 3 * PAGE, PAGE));
			ck_assert(!replay_session_segment_may_read(&s, k, DATA + 2 * PAGE, PAGE));
		}
		check_moment(&s, end);
		replay_session_close(&s);
	}
	free(r);
}
END_TEST

static Suite *replay_jit_suite(void)
{
	Suite *s = suite_create("replay_jit");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, make_trace, remove_trace);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, translated_replay_is_the_recording);
	tcase_add_test(tc, segments_note_the_code_they_run);
	suite_add_tcase(s, tc);
	return s;
}

CHECK_MAIN(replay_jit_suite)
