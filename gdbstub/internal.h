/*
 * internal.h — the session object and the conventions the packet handlers
 * share. Each packets_*.c file owns one group of packets and exports its
 * handlers to dispatch.c.
 *
 * A handler gets the packet's arguments (what follows the matched prefix)
 * as [args, end) and builds its reply in stub->reply; an empty reply means
 * "unsupported". Handlers never trust the arguments: anything malformed
 * gets reply_error().
 */
#ifndef TTREC_GDBSTUB_INTERNAL_H
#define TTREC_GDBSTUB_INTERNAL_H

#include "gdbstub/framing.h"
#include "gdbstub/gdbstub.h"
#include "gdbstub/target.h"

/* Error numbers sent as "Exx". */
enum {
	GDBSTUB_EINVAL = 0x16, /* malformed packet */
	GDBSTUB_EFAULT = 0x0e, /* memory not readable */
	GDBSTUB_EUNAVAIL = 0x0f, /* value unknown at this time */
	GDBSTUB_EROFS = 0x1e,  /* history is read-only */
	GDBSTUB_ESRCH = 0x03,  /* no such thread */
	GDBSTUB_EIO = 0x05,    /* the target failed */
};

struct gdbstub {
	struct gdbstub_target target;
	struct gdbstub_io io;
	struct rsp_decoder decoder;
	struct rsp_buf reply;   /* payload of the reply being built */
	struct rsp_buf framed;  /* the last framed packet sent, for '-' */
	bool no_ack;            /* after QStartNoAckMode */
	bool finished;          /* D, k or vKill seen */
	bool suppress_reply;    /* the handler wants no reply at all (k) */
	/* While a resume, a step or a monitor command is handled: gdb shows
	 * console output (O packets) only then. */
	bool console_allowed;
	/* gdb and the target both speak the multiprocess extension: thread
	 * ids go out as pPID.TID. */
	bool multiprocess;
	int64_t pid;
	int64_t reg_thread;     /* Hg: thread for g/p; 0 or -1 = current */
	int64_t exec_thread;    /* Hc: thread for s/bs; 0 or -1 = current */
	struct gdbstub_stop last_stop; /* for '?' */
	/* While a packet is handled: the bytes gdbstub_feed was given after
	 * it, not yet decoded. A 0x03 among them, before any other packet,
	 * interrupts a resume that packet started. */
	const uint8_t *unfed;
	size_t unfed_len;
};

typedef void gdbstub_handler(struct gdbstub *stub, const char *args,
			     const char *end);

/* Reply builders. */
void reply_str(struct gdbstub *stub, const char *s);
void reply_bytes(struct gdbstub *stub, const void *data, size_t len);
void reply_hex(struct gdbstub *stub, const void *data, size_t len);
void reply_printf(struct gdbstub *stub, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void reply_error(struct gdbstub *stub, int code);
void reply_ok(struct gdbstub *stub);

/* Sends an extra packet before the reply (O packets of monitor output).
 * Negative when the link is gone. */
int send_packet(struct gdbstub *stub, const void *payload, size_t len);

/* Sends text to gdb's console as O packets; negative when the link is
 * gone (then nothing more is sent for it). */
int stub_console(struct gdbstub *stub, const char *text);

/* The thread a register or execution packet means. */
int64_t stub_reg_thread(struct gdbstub *stub);
int64_t stub_exec_thread(struct gdbstub *stub);
bool stub_thread_alive(struct gdbstub *stub, int64_t tid);

/* Appends a thread id as gdb expects it (pPID.TID in multiprocess). */
void reply_thread_id(struct gdbstub *stub, int64_t tid);

/* Builds the T stop reply for stop into the reply and remembers it. */
void reply_stop(struct gdbstub *stub, const struct gdbstub_stop *stop);
/* The Linux signal of one of gdb's signal numbers, 0 when none. */
int gdbstub_linux_signal(uint64_t gdb_signo);

/* Packet handlers, by file. */
/* packets_query.c */
gdbstub_handler handle_q_supported, handle_q_attached, handle_q_current_thread,
	handle_q_first_thread, handle_q_next_thread, handle_q_symbol,
	handle_start_no_ack, handle_catch_syscalls, handle_pass_signals, handle_must_reply_empty, handle_set_thread,
	handle_thread_alive, handle_stop_reason, handle_detach, handle_kill,
	handle_vkill;
/* packets_regs.c */
gdbstub_handler handle_read_all_registers, handle_write_all_registers,
	handle_read_register, handle_write_register;
/* packets_memory.c */
gdbstub_handler handle_read_memory_hex, handle_read_memory_binary,
	handle_write_memory_hex, handle_write_memory_binary;
/* packets_exec.c */
gdbstub_handler handle_vcont_query, handle_vcont, handle_continue,
	handle_step, handle_continue_signal, handle_step_signal,
	handle_reverse_step, handle_reverse_continue;
/* packets_break.c */
gdbstub_handler handle_insert_break, handle_remove_break;
/* packets_xfer.c */
gdbstub_handler handle_qxfer;
/* packets_monitor.c */
gdbstub_handler handle_monitor;
/* packets_file.c */
gdbstub_handler handle_vfile;

/* target_xml.c: the target description and the register layout. */
struct gdbstub_reg_desc {
	const char *name;
	unsigned bits;
	size_t offset; /* in struct gdbstub_regs */
};
size_t gdbstub_reg_count(void);
const struct gdbstub_reg_desc *gdbstub_reg(size_t regnum);
/* The whole target.xml document (static storage). */
const char *gdbstub_target_xml(size_t *len);

#endif
