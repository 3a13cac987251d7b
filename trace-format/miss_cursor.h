/*
 * miss_cursor.h — a stream's MISS records written by the recorder's read
 * path itself, straight into the room of the stream's open chunk; and
 * read back by the replayer's from an iterator's chunk (at the end).
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

/*
 * Reading: an iterator lends the bytes of its loaded chunk from its next
 * record on (idna_iter_lend_misses); its reader decodes the MISS records
 * there itself, with no call per record, while the next record is one,
 * and gives the iterator back where it stopped (idna_iter_took_misses)
 * before any other call on that iterator.
 */
struct idna_miss_span {
	const uint8_t *p;    /* the next record */
	size_t left;         /* bytes from p to the chunk's end; 0: none lent */
	const uint8_t *last; /* the last record decoded here; NULL: none yet */
};

/* The MISS record at s->p, decoded into rec (its value points into the
 * chunk) when it is one in the common form, hits_before in one or two
 * bytes; else false and nothing changed (the iterator decodes it). */
static inline bool idna_miss_span_next(struct idna_miss_span *s, struct idna_record *rec)
{
	const uint8_t *p = s->p;
	if (s->left < 4 || p[0] != IDNA_REC_MISS || p[1] >= 0x80 || p[1] > s->left - 2)
		return false;
	const uint8_t *q = p + 2, *end = q + p[1];
	uint64_t hits_before;
	if (p[1] >= 2 && q[0] < 0x80) {
		hits_before = q[0];
		q += 1;
	} else if (p[1] >= 3 && q[1] < 0x80) {
		hits_before = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
		q += 2;
	} else {
		return false;
	}
	if (end - q > IDNA_MAX_READ)
		return false;
	rec->type = IDNA_REC_MISS;
	rec->u.miss.hits_before = hits_before;
	rec->u.miss.value = q;
	rec->u.miss.len = (uint32_t)(end - q);
	s->last = p;
	s->left -= (size_t)(end - p);
	s->p = end;
	return true;
}

#endif
