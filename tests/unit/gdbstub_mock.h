/*
 * gdbstub_mock.h — a trivial time-travel target and a captured link for the
 * gdbstub unit and fuzz tests. History is times 0..MOCK_END with the pc at
 * MOCK_CODE + time; memory [MOCK_CODE, +0x1000) reads as the low byte of
 * each address, [MOCK_UNAVAILABLE, +0x1000) is unavailable, the rest is
 * unmapped.
 */
#ifndef TTREC_TESTS_GDBSTUB_MOCK_H
#define TTREC_TESTS_GDBSTUB_MOCK_H

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/framing.h"
#include "gdbstub/gdbstub.h"
#include "gdbstub/hex.h"

#define MOCK_END 1000
#define MOCK_CODE 0x1000u
#define MOCK_UNAVAILABLE 0x2000u
#define MOCK_TID 7
#define MOCK_MAX_BREAKS 64

struct mock_target {
	uint64_t now;
	struct { enum gdbstub_break_kind kind; uint64_t addr, len; } breaks[MOCK_MAX_BREAKS];
	size_t break_count;
	unsigned interrupt_polls;
	/* The last writes (mock_write_registers, mock_write_memory). */
	int64_t written_tid;
	struct gdbstub_regs written_regs;
	uint64_t written_addr;
	uint8_t written[64];
	size_t written_len;
};

static size_t mock_threads(void *ctx, int64_t *tids, size_t max)
{
	(void)ctx;
	if (max)
		tids[0] = MOCK_TID;
	return 1;
}

static int64_t mock_current_thread(void *ctx)
{
	(void)ctx;
	return MOCK_TID;
}

static int mock_read_registers(void *ctx, int64_t tid, struct gdbstub_regs *out)
{
	struct mock_target *m = ctx;
	if (tid != MOCK_TID)
		return -1;
	memset(out, 0, sizeof(*out));
	out->rip = MOCK_CODE + m->now;
	out->gpr[0] = 0x1122334455667788ull; /* rax */
	out->eflags = 0x246;
	out->fs_base = 0x7f0000001000ull;
	out->orig_rax = UINT64_MAX;
	return 0;
}

static enum gdbstub_mem_status mock_read_memory(void *ctx, uint64_t addr, void *buf,
						size_t len, size_t *done)
{
	(void)ctx;
	uint8_t *out = buf;
	for (*done = 0; *done < len; (*done)++) {
		uint64_t a = addr + *done;
		if (a >= MOCK_UNAVAILABLE && a < MOCK_UNAVAILABLE + 0x1000)
			return GDBSTUB_MEM_UNAVAILABLE;
		if (a < MOCK_CODE || a >= MOCK_CODE + 0x1000)
			return GDBSTUB_MEM_ERROR;
		out[*done] = (uint8_t)a;
	}
	return GDBSTUB_MEM_OK;
}

static bool mock_move(struct mock_target *m, enum gdbstub_direction dir,
		      struct gdbstub_stop *stop)
{
	stop->tid = MOCK_TID;
	if (dir == GDBSTUB_FORWARD ? m->now == MOCK_END : m->now == 0) {
		stop->reason = dir == GDBSTUB_FORWARD ? GDBSTUB_STOP_HISTORY_END
						      : GDBSTUB_STOP_HISTORY_BEGIN;
		return true;
	}
	m->now += dir == GDBSTUB_FORWARD ? 1 : -1;
	return false;
}

static int mock_step(void *ctx, int64_t tid, enum gdbstub_direction dir,
		     struct gdbstub_stop *stop)
{
	if (tid != MOCK_TID)
		return -1;
	if (!mock_move(ctx, dir, stop))
		stop->reason = GDBSTUB_STOP_STEPPED;
	return 0;
}

static int mock_resume(void *ctx, enum gdbstub_direction dir,
		       gdbstub_interrupt_fn interrupted, void *ictx,
		       struct gdbstub_stop *stop)
{
	struct mock_target *m = ctx;
	for (;;) {
		if (mock_move(m, dir, stop))
			return 0;
		for (size_t i = 0; i < m->break_count; i++) {
			if (m->breaks[i].kind <= GDBSTUB_BREAK_HARDWARE &&
			    m->breaks[i].addr == MOCK_CODE + m->now) {
				stop->reason = GDBSTUB_STOP_BREAKPOINT;
				stop->kind = m->breaks[i].kind;
				stop->addr = m->breaks[i].addr;
				return 0;
			}
		}
		m->interrupt_polls++;
		if (interrupted(ictx)) {
			stop->reason = GDBSTUB_STOP_INTERRUPTED;
			return 0;
		}
	}
}

static int mock_insert_break(void *ctx, enum gdbstub_break_kind kind, uint64_t addr,
			     uint64_t len)
{
	struct mock_target *m = ctx;
	if (m->break_count == MOCK_MAX_BREAKS)
		return -1;
	m->breaks[m->break_count].kind = kind;
	m->breaks[m->break_count].addr = addr;
	m->breaks[m->break_count].len = len;
	m->break_count++;
	return 0;
}

static int mock_remove_break(void *ctx, enum gdbstub_break_kind kind, uint64_t addr,
			     uint64_t len)
{
	struct mock_target *m = ctx;
	(void)len;
	for (size_t i = 0; i < m->break_count; i++) {
		if (m->breaks[i].kind == kind && m->breaks[i].addr == addr) {
			m->breaks[i] = m->breaks[--m->break_count];
			return 0;
		}
	}
	return -1;
}

static uint64_t mock_now(void *ctx) { return ((struct mock_target *)ctx)->now; }
static uint64_t mock_end(void *ctx) { (void)ctx; return MOCK_END; }

static int mock_goto(void *ctx, uint64_t t)
{
	((struct mock_target *)ctx)->now = t > MOCK_END ? MOCK_END : t;
	return 0;
}

static const uint8_t mock_auxv_data[32] = { 6, 0, 0, 0, 0, 0, 0, 0, 0, 0x10 };

static const void *mock_auxv(void *ctx, size_t *len)
{
	(void)ctx;
	*len = sizeof(mock_auxv_data);
	return mock_auxv_data;
}

static const char *mock_exec_file(void *ctx)
{
	(void)ctx;
	return "/bin/mock-program";
}

/* One file to read through Host I/O: MOCK_FILE_SIZE bytes, byte i being
 * i % 251 (so every byte RSP escapes occurs), open under handle 0. */
#define MOCK_FILE_PATH "/mock/lib.so"
#define MOCK_FILE_SIZE 20000
static bool mock_file_open_now;

static int mock_file_open(void *ctx, const char *path)
{
	(void)ctx;
	if (strcmp(path, MOCK_FILE_PATH) != 0)
		return -EACCES;
	if (mock_file_open_now)
		return -EMFILE;
	mock_file_open_now = true;
	return 0;
}

static int64_t mock_file_pread(void *ctx, int handle, void *buf, size_t len, uint64_t offset)
{
	(void)ctx;
	if (handle != 0 || !mock_file_open_now)
		return -EBADF;
	size_t n = 0;
	for (; n < len && offset + n < MOCK_FILE_SIZE; n++)
		((uint8_t *)buf)[n] = (uint8_t)((offset + n) % 251);
	return (int64_t)n;
}

static int64_t mock_file_size(void *ctx, int handle)
{
	(void)ctx;
	return handle == 0 && mock_file_open_now ? MOCK_FILE_SIZE : -EBADF;
}

static int mock_file_close(void *ctx, int handle)
{
	(void)ctx;
	if (handle != 0 || !mock_file_open_now)
		return -EBADF;
	mock_file_open_now = false;
	return 0;
}

/* The process id, for a mock built with it (mock_ops has none). */
#define MOCK_PID 0x4d2
static inline int64_t mock_process_id(void *ctx)
{
	(void)ctx;
	return MOCK_PID;
}

/* Writes, for a mock built with them (mock_ops has none: read-only). */
static inline int mock_write_registers(void *ctx, int64_t tid, const struct gdbstub_regs *regs)
{
	struct mock_target *m = ctx;
	m->written_tid = tid;
	m->written_regs = *regs;
	return 0;
}

static inline int mock_write_memory(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct mock_target *m = ctx;
	if (len > sizeof(m->written))
		return -1;
	m->written_addr = addr;
	memcpy(m->written, buf, len);
	m->written_len = len;
	return 0;
}

static const struct gdbstub_target_ops mock_ops = {
	.threads = mock_threads,
	.current_thread = mock_current_thread,
	.read_registers = mock_read_registers,
	.read_memory = mock_read_memory,
	.step = mock_step,
	.resume = mock_resume,
	.insert_break = mock_insert_break,
	.remove_break = mock_remove_break,
	.now = mock_now,
	.end_of_history = mock_end,
	.goto_time = mock_goto,
	.auxv = mock_auxv,
	.exec_file = mock_exec_file,
	.file_open = mock_file_open,
	.file_pread = mock_file_pread,
	.file_size = mock_file_size,
	.file_close = mock_file_close,
};

/* The GDB side of the link: everything the stub wrote. */
struct mock_link {
	struct rsp_buf sent;
	bool interrupt_next;  /* the next poll reports an interrupt */
};

static int mock_link_write(void *ctx, const void *buf, size_t len)
{
	struct mock_link *l = ctx;
	rsp_buf_append(&l->sent, buf, len);
	return l->sent.overflow ? -1 : 0;
}

static bool mock_link_interrupted(void *ctx)
{
	struct mock_link *l = ctx;
	bool yes = l->interrupt_next;
	l->interrupt_next = false;
	return yes;
}

#endif
