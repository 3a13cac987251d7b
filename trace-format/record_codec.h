/*
 * record_codec.h — records to bytes and back (man/idna.5, "RECORDS").
 * Both directions keep the same per-chunk state, reset at every chunk
 * start, so each chunk decodes without the ones before it.
 */
#ifndef TTREC_IDNA_RECORD_CODEC_H
#define TTREC_IDNA_RECORD_CODEC_H

#include "trace-format/idna.h"
#include "trace-format/regs_codec.h"

/* Largest encoded record: type and length varints plus the payload. */
#define RECORD_MAX_ENCODED (IDNA_MAX_RECORD + 16)

struct record_codec_state {
	uint64_t regs_base[REGS_IMAGE_WORDS]; /* the stream's last registers */
	uint64_t last_global_seq, last_icount;
};

void record_codec_reset(struct record_codec_state *s);

/* Encodes one record into out (at least RECORD_MAX_ENCODED bytes).
 * Returns the encoded size, or 0 with a message when the record is
 * malformed (the state is then unchanged). */
size_t record_encode(struct record_codec_state *s, const struct idna_record *rec, uint8_t *out,
		     char *err, size_t errlen);

struct record_decoder {
	struct record_codec_state state;
	struct idna_regs regs;          /* what decoded records point to */
	struct idna_mem_effect writes[IDNA_MAX_NATIVE_WRITES];
	char text[IDNA_MAX_RECORD + 1]; /* NUL-terminated strings of the record */
	/* Records are only being skipped over: register deltas update the
	 * chunk's state, but regs is not filled. */
	bool skip_regs;
};

/* Decodes the record at *r. Returns 1 and advances *r on success, -1 with a
 * message on malformed input. Unknown types are returned as such. */
int record_decode(struct record_decoder *d, struct byte_reader *r, struct idna_record *rec,
		  char *err, size_t errlen);

/* The types (idna_type_bit) a reader that decodes only the `wanted` ones must still decode
 * when it steps over them: those whose delta state (registers, global
 * sequence and instruction count) a wanted type's decoding reads. */
uint32_t record_state_writers(uint32_t wanted);

/* The common record, decoded without the general path: a MISS whose type
 * and length take a byte each (all of them: a miss's payload is at most
 * 10 + IDNA_MAX_READ bytes). Returns 1 and advances *r, or 0 (nothing
 * read) for anything else, a malformed miss included, which record_decode
 * then reports. */
int record_decode_miss(struct byte_reader *r, struct idna_record *rec);

/* Reads only the type and length of the record at *r and skips it. */
bool record_skip(struct byte_reader *r, uint32_t *type, uint32_t *payload_len);

#endif
