/*
 * framing.c — the RSP wire format (see framing.h).
 */
#include <stdlib.h>
#include <string.h>

#include "framing.h"
#include "hex.h"

bool rsp_decoder_init(struct rsp_decoder *d, size_t cap)
{
	memset(d, 0, sizeof(*d));
	d->buf = malloc(cap + 1);
	if (!d->buf)
		return false;
	d->cap = cap;
	d->buf[0] = 0;
	return true;
}

void rsp_decoder_fini(struct rsp_decoder *d)
{
	free(d->buf);
	d->buf = NULL;
}

static void store(struct rsp_decoder *d, uint8_t byte)
{
	if (d->len < d->cap)
		d->buf[d->len++] = (char)byte;
	else
		d->overflow = true;
}

enum rsp_event rsp_decode_byte(struct rsp_decoder *d, uint8_t byte)
{
	/* '$' always starts a new packet: a sender that gave up on a packet
	 * mid-way resynchronises this way. */
	if (byte == '$' && d->state != RSP_CSUM_HI && d->state != RSP_CSUM_LO) {
		d->state = RSP_DATA;
		d->sum = 0;
		d->len = 0;
		d->overflow = false;
		return RSP_EVENT_NONE;
	}
	switch (d->state) {
	case RSP_IDLE:
		if (byte == 0x03)
			return RSP_EVENT_INTERRUPT;
		if (byte == '+')
			return RSP_EVENT_ACK;
		if (byte == '-')
			return RSP_EVENT_NACK;
		return RSP_EVENT_NONE; /* noise between packets */
	case RSP_DATA:
		if (byte == '#') {
			d->state = RSP_CSUM_HI;
			return RSP_EVENT_NONE;
		}
		d->sum += byte;
		if (byte == '}')
			d->state = RSP_ESCAPE;
		else
			store(d, byte);
		return RSP_EVENT_NONE;
	case RSP_ESCAPE:
		d->sum += byte;
		store(d, byte ^ 0x20);
		d->state = RSP_DATA;
		return RSP_EVENT_NONE;
	case RSP_CSUM_HI:
	case RSP_CSUM_LO: {
		int v = hex_digit_value(byte);
		if (v < 0) {
			d->state = RSP_IDLE;
			return RSP_EVENT_BAD_CHECKSUM;
		}
		if (d->state == RSP_CSUM_HI) {
			d->received = (uint8_t)(v << 4);
			d->state = RSP_CSUM_LO;
			return RSP_EVENT_NONE;
		}
		d->received |= (uint8_t)v;
		d->state = RSP_IDLE;
		d->buf[d->len] = 0;
		return d->received == d->sum ? RSP_EVENT_PACKET : RSP_EVENT_BAD_CHECKSUM;
	}
	}
	return RSP_EVENT_NONE;
}

void rsp_buf_init(struct rsp_buf *b, size_t limit)
{
	memset(b, 0, sizeof(*b));
	b->limit = limit;
}

void rsp_buf_fini(struct rsp_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void rsp_buf_clear(struct rsp_buf *b)
{
	b->len = 0;
	b->overflow = false;
}

void rsp_buf_append(struct rsp_buf *b, const void *data, size_t len)
{
	if (b->overflow || len > b->limit - b->len) {
		b->overflow = true;
		return;
	}
	if (b->len + len > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + len)
			cap *= 2;
		if (cap > b->limit)
			cap = b->limit;
		uint8_t *p = realloc(b->data, cap);
		if (!p) {
			b->overflow = true;
			return;
		}
		b->data = p;
		b->cap = cap;
	}
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

static bool needs_escape(uint8_t c)
{
	return c == '$' || c == '#' || c == '}' || c == '*';
}

void rsp_frame(struct rsp_buf *out, const uint8_t *payload, size_t len)
{
	uint8_t sum = 0;
	rsp_buf_clear(out);
	rsp_buf_append(out, "$", 1);
	for (size_t i = 0; i < len; i++) {
		uint8_t c = payload[i];
		uint8_t pair[2] = { '}', (uint8_t)(c ^ 0x20) };
		if (needs_escape(c)) {
			rsp_buf_append(out, pair, 2);
			sum += pair[0] + pair[1];
		} else {
			rsp_buf_append(out, &c, 1);
			sum += c;
		}
	}
	uint8_t tail[3] = { '#', (uint8_t)hex_digits[sum >> 4], (uint8_t)hex_digits[sum & 15] };
	rsp_buf_append(out, tail, 3);
}
