/*
 * miss_cursor.h — a stream's MISS records written by the recorder's read
 * path itself, straight into the room of the stream's open chunk.
 *
 * A MISS record (man/idna.5: type, payload length, hits_before as
 * LEB128, the value) is nearly all a recording writes: sort -n of 10^6
 * numbers logs one for every twelve reads. Through idna_writer_append_miss
 * each cost a call into the writer and its checks of the stream, the
 * chunk and the writer's error, some 60 host instructions for a 4-byte
 * record. The writer instead lends each stream a cursor
 * (idna_writer_miss_cursor): where the next record goes and how much room
 * is left. The caller puts records there while the room lasts and calls
 * idna_writer_append_miss* when it does not; the writer counts what the
 * cursor put before it touches the chunk for anything else, and aims the
 * cursor at the room again after a MISS record of its own.
 *
 * Only the thread that appends to the stream may use its cursor, and only
 * between calls of that writer.
 */
#ifndef TTREC_MISS_CURSOR_H
#define TTREC_MISS_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "trace-format/idna.h"

struct idna_miss_cursor {
	uint8_t *at;      /* where the next record goes; NULL: not aimed */
	size_t room;      /* bytes from `at` that are the cursor's */
	uint32_t records; /* put since the writer last counted them */
};

/* The longest MISS record, and the longest of a value of at most 8 bytes
 * (which idna_miss_cursor_put_uint writes as 8 whole bytes). */
enum {
	IDNA_MISS_MAX_ENCODED = 1 + 1 + 10 + IDNA_MAX_READ,
	IDNA_MISS_UINT_ROOM = 1 + 1 + 10 + 8,
};
_Static_assert(IDNA_REC_MISS < 0x80 && 10 + IDNA_MAX_READ < 0x80,
	       "a MISS record's type and payload length are one byte each");

/* A MISS record's bytes up to its value, of len bytes, at p; returns
 * where the value goes. */
static inline uint8_t *idna_miss_head(uint8_t *p, uint64_t hits_before, uint32_t len)
{
	uint8_t *payload_len = p + 1;
	p[0] = IDNA_REC_MISS;
	p += 2;
	while (hits_before >= 0x80) {
		*p++ = (uint8_t)(hits_before | 0x80);
		hits_before >>= 7;
	}
	*p++ = (uint8_t)hits_before;
	*payload_len = (uint8_t)(p - payload_len - 1 + len);
	return p;
}

/* A MISS record of the low len (1..8) bytes of value, little-endian; false
 * when the cursor has not the room (then nothing was written). */
static inline bool idna_miss_cursor_put_uint(struct idna_miss_cursor *c, uint64_t hits_before,
					     uint64_t value, uint32_t len)
{
	if (c->room < IDNA_MISS_UINT_ROOM)
		return false;
	uint8_t *start = c->at;
	uint8_t *p = idna_miss_head(start, hits_before, len);
	memcpy(p, &value, sizeof(value)); /* little-endian host; the room is there */
	p += len;
	c->room -= (size_t)(p - start);
	c->at = p;
	c->records++;
	return true;
}

#endif
