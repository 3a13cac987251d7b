/*
 * framing.h — the RSP wire format: "$payload#cs" with a modulo-256
 * checksum, '}' escapes (byte ^ 0x20), '+'/'-' acknowledgements and the
 * bare 0x03 interrupt byte. The decoder is a byte-at-a-time state machine
 * with a bounded buffer; the encoder escapes every reply, which GDB undoes
 * for every packet, binary or not.
 */
#ifndef TTREC_GDBSTUB_FRAMING_H
#define TTREC_GDBSTUB_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a byte completed. */
enum rsp_event {
	RSP_EVENT_NONE,
	RSP_EVENT_PACKET,       /* a packet with a good checksum is in buf */
	RSP_EVENT_BAD_CHECKSUM, /* a packet arrived damaged: answer '-' */
	RSP_EVENT_INTERRUPT,    /* 0x03 outside a packet */
	RSP_EVENT_ACK,          /* '+' */
	RSP_EVENT_NACK,         /* '-': resend the last packet */
};

struct rsp_decoder {
	enum { RSP_IDLE, RSP_DATA, RSP_ESCAPE, RSP_CSUM_HI, RSP_CSUM_LO } state;
	uint8_t sum;      /* running checksum of the raw payload bytes */
	uint8_t received; /* checksum digits seen so far */
	bool overflow;    /* the payload did not fit: the packet is unusable */
	size_t len;       /* decoded payload length, buf[len] == 0 */
	size_t cap;       /* payload capacity, excluding the terminating 0 */
	char *buf;        /* cap + 1 bytes */
};

/* False on allocation failure. */
bool rsp_decoder_init(struct rsp_decoder *d, size_t cap);
void rsp_decoder_fini(struct rsp_decoder *d);

/* Consumes one byte. After RSP_EVENT_PACKET, buf/len/overflow describe the
 * packet until the next call. */
enum rsp_event rsp_decode_byte(struct rsp_decoder *d, uint8_t byte);

/* A growable byte buffer with a hard limit. */
struct rsp_buf {
	uint8_t *data;
	size_t len, cap, limit;
	bool overflow; /* an append was refused: the content is incomplete */
};

void rsp_buf_init(struct rsp_buf *b, size_t limit);
void rsp_buf_fini(struct rsp_buf *b);
void rsp_buf_clear(struct rsp_buf *b);
void rsp_buf_append(struct rsp_buf *b, const void *data, size_t len);

/* Frames payload into out (cleared first): '$', escaped payload, '#', two
 * checksum digits. */
void rsp_frame(struct rsp_buf *out, const uint8_t *payload, size_t len);

#endif
