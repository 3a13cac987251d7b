/*
 * target.h — what a time-travel target provides to the GDB stub.
 *
 * The stub knows nothing of how history is kept: the replayer (or a test
 * target) fills a struct gdbstub_target with callbacks over its own context.
 * Time is a position in the recorded history; every callback sees the
 * target's current position and may move it only where documented.
 * Callbacks return 0 on success and a negative value on failure unless
 * stated otherwise.
 */
#ifndef TTREC_GDBSTUB_TARGET_H
#define TTREC_GDBSTUB_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The full user-visible state of one thread, in GDB's amd64 terms. General
 * registers are in GDB's order (rax rbx rcx rdx rsi rdi rbp rsp r8..r15),
 * not the encoding's. x87 registers are 80-bit values; ftag is the full
 * 16-bit tag word (two bits per register). ymm_hi holds bits 128..255.
 */
struct gdbstub_regs {
	uint64_t gpr[16];
	uint64_t rip;
	uint32_t eflags;
	uint32_t cs, ss, ds, es, fs, gs;
	uint8_t st[8][10];
	uint32_t fctrl, fstat, ftag, fiseg, fioff, foseg, fooff, fop;
	uint8_t xmm[16][16];
	uint32_t mxcsr;
	uint64_t orig_rax;
	uint64_t fs_base, gs_base;
	uint8_t ymm_hi[16][16];
};

enum gdbstub_direction { GDBSTUB_FORWARD, GDBSTUB_BACKWARD };

/* Breakpoint kinds, numbered as the Z packets number them. */
enum gdbstub_break_kind {
	GDBSTUB_BREAK_SOFTWARE = 0, /* Z0: execution, reported as swbreak */
	GDBSTUB_BREAK_HARDWARE = 1, /* Z1: execution, reported as hwbreak */
	GDBSTUB_WATCH_WRITE = 2,    /* Z2 */
	GDBSTUB_WATCH_READ = 3,     /* Z3 */
	GDBSTUB_WATCH_ACCESS = 4,   /* Z4 */
};

/* Why execution stopped. */
enum gdbstub_stop_reason {
	GDBSTUB_STOP_STEPPED,       /* a step finished */
	GDBSTUB_STOP_BREAKPOINT,    /* addr: the breakpoint, now the thread's pc */
	GDBSTUB_STOP_WATCHPOINT,    /* addr, watch: the watched access. Forward:
				     * just after the accessing instruction;
				     * backward: just before it. */
	GDBSTUB_STOP_SIGNAL,        /* signo: delivered to the program here */
	GDBSTUB_STOP_THREAD_CREATED,
	GDBSTUB_STOP_HISTORY_BEGIN, /* nothing earlier was recorded */
	GDBSTUB_STOP_HISTORY_END,   /* nothing later was recorded */
	GDBSTUB_STOP_INTERRUPTED,   /* the interrupt check said so */
	GDBSTUB_STOP_SYSCALL_ENTRY, /* syscall_nr: about to make this syscall */
	GDBSTUB_STOP_SYSCALL_RETURN,/* syscall_nr: just returned from it */
};

struct gdbstub_stop {
	enum gdbstub_stop_reason reason;
	int64_t tid;                       /* the thread the stop concerns */
	uint64_t addr;                     /* BREAKPOINT, WATCHPOINT */
	enum gdbstub_break_kind kind;      /* BREAKPOINT, WATCHPOINT: which kind
					    * of breakpoint matched */
	int signo;                         /* SIGNAL */
	uint64_t syscall_nr;               /* SYSCALL_ENTRY, SYSCALL_RETURN */
};

/* Result of a memory read. */
enum gdbstub_mem_status {
	GDBSTUB_MEM_OK,
	GDBSTUB_MEM_UNAVAILABLE, /* mapped, but its value at this time is unknown */
	GDBSTUB_MEM_ERROR,       /* not mapped at this time */
};

/* Returns true when the user asked to stop (Ctrl-C). A target calls it now
 * and then during a long resume; it is cheap but not free. */
typedef bool (*gdbstub_interrupt_fn)(void *interrupt_ctx);

/* Where a target writes text for the user (monitor command output). */
typedef void (*gdbstub_print_fn)(void *print_ctx, const char *text);

struct gdbstub_target_ops {
	/* Threads alive at the current time, up to max; returns how many exist
	 * (may exceed max). Thread ids are positive. */
	size_t (*threads)(void *ctx, int64_t *tids, size_t max);
	/* The thread executing at the current time. */
	int64_t (*current_thread)(void *ctx);
	/* The process's id, for gdb's multiprocess extension (thread ids
	 * pPID.TID, `info inferiors`); <= 0 when unknown. May be NULL: the
	 * stub then offers no multiprocess extension and gdb makes one up. */
	int64_t (*process_id)(void *ctx);

	/* Registers of thread tid at the current time. */
	int (*read_registers)(void *ctx, int64_t tid, struct gdbstub_regs *out);

	/* Changes gdb makes to the state it is shown (an expression that
	 * calls a function, `set var`): thread tid's registers become *regs
	 * (all of them: the stub fills in those a packet does not name), or
	 * len bytes at addr become buf. What a change means for history is
	 * the target's business (the replayer starts a diversion). May be
	 * NULL: the state is read-only (EROFS). */
	int (*write_registers)(void *ctx, int64_t tid, const struct gdbstub_regs *regs);
	int (*write_memory)(void *ctx, uint64_t addr, const void *buf, size_t len);

	/* Reads up to len bytes at addr; *done gets how many leading bytes
	 * are valid. Returns the status of the first byte not read (OK when
	 * all len were read). */
	enum gdbstub_mem_status (*read_memory)(void *ctx, uint64_t addr,
					       void *buf, size_t len,
					       size_t *done);

	/* One instruction of thread tid in direction dir. Watchpoints and
	 * history edges still stop it (with that reason); breakpoints do not. */
	int (*step)(void *ctx, int64_t tid, enum gdbstub_direction dir,
		    struct gdbstub_stop *stop);
	/* Runs in direction dir until a breakpoint, watchpoint, signal, thread
	 * creation, edge of history or interruption. The instruction at the
	 * starting position is always executed first (a breakpoint there does
	 * not stop at once). */
	int (*resume)(void *ctx, enum gdbstub_direction dir,
		      gdbstub_interrupt_fn interrupted, void *interrupt_ctx,
		      struct gdbstub_stop *stop);

	/* Breakpoints and watchpoints: any address, any length (len is the
	 * Z packet's kind for execution breakpoints and may be ignored).
	 * Inserting one that exists adds a reference; removing drops one. */
	int (*insert_break)(void *ctx, enum gdbstub_break_kind kind,
			    uint64_t addr, uint64_t len);
	int (*remove_break)(void *ctx, enum gdbstub_break_kind kind,
			    uint64_t addr, uint64_t len);

	/* Time: the current position and the number of positions. */
	uint64_t (*now)(void *ctx);
	uint64_t (*end_of_history)(void *ctx);
	/* Moves to time t (clamped to the history). */
	int (*goto_time)(void *ctx, uint64_t t);

	/* Objects GDB reads. Each returns a buffer the target owns (valid
	 * until the next call of the same callback) and its length; NULL when
	 * the target has none. May be NULL themselves. */
	const void *(*auxv)(void *ctx, size_t *len);
	const char *(*exec_file)(void *ctx);
	const char *(*libraries_svr4_xml)(void *ctx);

	/* Host I/O: the files gdb reads (the program, its libraries), by the
	 * paths the recorded process used. file_open returns a handle >= 0 or
	 * -errno (a Linux errno); file_pread bytes read (0 at the end) or
	 * -errno; file_size the size or -errno; file_close 0 or -errno.
	 * Read-only. All four or none (NULL: gdb reads its own files). */
	int (*file_open)(void *ctx, const char *path);
	int64_t (*file_pread)(void *ctx, int handle, void *buf, size_t len, uint64_t offset);
	int64_t (*file_size)(void *ctx, int handle);
	int (*file_close)(void *ctx, int handle);

	/* catch syscall: from now on resume (forward) also stops at the entry
	 * and return of the syscalls listed (all when n == 0), or no longer
	 * stops at syscalls when enable is false. May be NULL. */
	int (*catch_syscalls)(void *ctx, bool enable, const uint64_t *nrs, size_t n);

	/* The signals gdb passes to the program without stopping or printing
	 * (`handle ... nostop noprint pass`, its QPassSignals list): bit n
	 * for Linux signal n; each call replaces the last. May be NULL. */
	void (*pass_signals)(void *ctx, uint64_t linux_mask);

	/* Called once when a session starts, may be NULL: print sends text to
	 * gdb's console (O packets). The target may use it only while it
	 * handles a resume, a step or a monitor command (gdb shows it then):
	 * to say what a long wait is doing. */
	void (*attach_console)(void *ctx, gdbstub_print_fn print, void *print_ctx);

	/* A monitor command the stub does not handle itself ("when", "goto"
	 * and "help" it does). Returns 0 if handled, 1 if unknown, negative
	 * on error; output goes through print. May be NULL. */
	int (*monitor)(void *ctx, const char *command, gdbstub_print_fn print,
		       void *print_ctx);
	/* One line per extra monitor command for "monitor help". May be NULL. */
	const char *(*monitor_help)(void *ctx);
};

struct gdbstub_target {
	const struct gdbstub_target_ops *ops;
	void *ctx;
};

#endif
