/*
 * session.c — one GDB connection: turns received bytes into packets
 * (acknowledging them unless in no-ack mode), hands each to the dispatcher
 * and frames the reply. Also the reply builders every handler uses.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gdbstub/hex.h"
#include "gdbstub/internal.h"

void gdbstub_dispatch(struct gdbstub *stub, const char *packet, size_t len);

int stub_console(struct gdbstub *stub, const char *text)
{
	size_t len = strlen(text);
	/* Each byte becomes two hex digits after the 'O'. */
	const size_t chunk = GDBSTUB_PACKET_SIZE / 2 - 2;
	for (size_t at = 0; at < len; at += chunk) {
		size_t n = len - at < chunk ? len - at : chunk;
		char packet[GDBSTUB_PACKET_SIZE];
		packet[0] = 'O';
		for (size_t i = 0; i < n; i++) {
			uint8_t c = (uint8_t)text[at + i];
			packet[1 + 2 * i] = hex_digits[c >> 4];
			packet[2 + 2 * i] = hex_digits[c & 15];
		}
		if (send_packet(stub, packet, 1 + 2 * n) < 0)
			return -1;
	}
	return 0;
}

/* The target's console (attach_console): dropped outside the commands
 * during which gdb shows it. */
static void console_print(void *ctx, const char *text)
{
	struct gdbstub *stub = ctx;
	if (stub->console_allowed)
		stub_console(stub, text);
}

struct gdbstub *gdbstub_new(const struct gdbstub_target *target,
			    const struct gdbstub_io *io)
{
	struct gdbstub *stub = calloc(1, sizeof(*stub));
	if (!stub)
		return NULL;
	if (!rsp_decoder_init(&stub->decoder, GDBSTUB_PACKET_SIZE)) {
		free(stub);
		return NULL;
	}
	stub->target = *target;
	stub->io = *io;
	/* Room for escaping every byte plus framing. */
	rsp_buf_init(&stub->reply, GDBSTUB_PACKET_SIZE);
	rsp_buf_init(&stub->framed, 2 * GDBSTUB_PACKET_SIZE + 8);
	stub->last_stop.reason = GDBSTUB_STOP_STEPPED;
	stub->last_stop.tid = target->ops->current_thread(target->ctx);
	if (target->ops->attach_console)
		target->ops->attach_console(target->ctx, console_print, stub);
	return stub;
}

void gdbstub_free(struct gdbstub *stub)
{
	if (!stub)
		return;
	rsp_decoder_fini(&stub->decoder);
	rsp_buf_fini(&stub->reply);
	rsp_buf_fini(&stub->framed);
	free(stub);
}

bool gdbstub_finished(const struct gdbstub *stub)
{
	return stub->finished;
}

int send_packet(struct gdbstub *stub, const void *payload, size_t len)
{
	rsp_frame(&stub->framed, payload, len);
	if (stub->framed.overflow)
		return -1;
	return stub->io.write(stub->io.ctx, stub->framed.data, stub->framed.len);
}

static int handle_packet(struct gdbstub *stub)
{
	struct rsp_decoder *d = &stub->decoder;
	if (!stub->no_ack && stub->io.write(stub->io.ctx, "+", 1) < 0)
		return -1;
	rsp_buf_clear(&stub->reply);
	stub->suppress_reply = false;
	if (d->overflow)
		reply_error(stub, GDBSTUB_EINVAL);
	else
		gdbstub_dispatch(stub, d->buf, d->len);
	if (stub->suppress_reply)
		return 0;
	if (stub->reply.overflow) {
		/* A handler produced more than a packet holds: a bug or an
		 * absurd request; either way GDB gets an error, not a
		 * truncated answer. */
		rsp_buf_clear(&stub->reply);
		reply_error(stub, GDBSTUB_EINVAL);
	}
	return send_packet(stub, stub->reply.data, stub->reply.len);
}

int gdbstub_feed(struct gdbstub *stub, const void *buf, size_t len)
{
	const uint8_t *bytes = buf;
	for (size_t i = 0; i < len && !stub->finished; i++) {
		int rc = 0;
		switch (rsp_decode_byte(&stub->decoder, bytes[i])) {
		case RSP_EVENT_PACKET:
			stub->unfed = bytes + i + 1;
			stub->unfed_len = len - i - 1;
			rc = handle_packet(stub);
			stub->unfed = NULL;
			stub->unfed_len = 0;
			break;
		case RSP_EVENT_BAD_CHECKSUM:
			if (!stub->no_ack)
				rc = stub->io.write(stub->io.ctx, "-", 1);
			break;
		case RSP_EVENT_NACK:
			if (!stub->no_ack && stub->framed.len)
				rc = stub->io.write(stub->io.ctx, stub->framed.data,
						    stub->framed.len);
			break;
		case RSP_EVENT_INTERRUPT:
			/* The target is already stopped (interrupts during a
			 * resume are polled by the resume itself). */
		case RSP_EVENT_ACK:
		case RSP_EVENT_NONE:
			break;
		}
		if (rc < 0)
			return -1;
	}
	return 0;
}

void reply_bytes(struct gdbstub *stub, const void *data, size_t len)
{
	rsp_buf_append(&stub->reply, data, len);
}

void reply_str(struct gdbstub *stub, const char *s)
{
	reply_bytes(stub, s, strlen(s));
}

void reply_hex(struct gdbstub *stub, const void *data, size_t len)
{
	const uint8_t *b = data;
	for (size_t i = 0; i < len; i++) {
		char pair[2] = { hex_digits[b[i] >> 4], hex_digits[b[i] & 15] };
		reply_bytes(stub, pair, 2);
	}
}

void reply_printf(struct gdbstub *stub, const char *fmt, ...)
{
	char text[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(text)) {
		stub->reply.overflow = true;
		return;
	}
	reply_bytes(stub, text, (size_t)n);
}

void reply_error(struct gdbstub *stub, int code)
{
	rsp_buf_clear(&stub->reply);
	reply_printf(stub, "E%02x", code & 0xff);
}

void reply_thread_id(struct gdbstub *stub, int64_t tid)
{
	if (stub->multiprocess)
		reply_printf(stub, "p%llx.", (unsigned long long)stub->pid);
	reply_printf(stub, "%llx", (unsigned long long)tid);
}

void reply_ok(struct gdbstub *stub)
{
	reply_str(stub, "OK");
}

int64_t stub_reg_thread(struct gdbstub *stub)
{
	if (stub->reg_thread > 0)
		return stub->reg_thread;
	return stub->target.ops->current_thread(stub->target.ctx);
}

int64_t stub_exec_thread(struct gdbstub *stub)
{
	if (stub->exec_thread > 0)
		return stub->exec_thread;
	return stub->target.ops->current_thread(stub->target.ctx);
}

bool stub_thread_alive(struct gdbstub *stub, int64_t tid)
{
	int64_t tids[256];
	size_t n = stub->target.ops->threads(stub->target.ctx, tids, 256);
	if (n > 256)
		n = 256;
	for (size_t i = 0; i < n; i++)
		if (tids[i] == tid)
			return true;
	return false;
}
