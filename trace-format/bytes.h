/*
 * bytes.h — bounded byte cursors for encoding and decoding: LEB128
 * varints, zigzag, little-endian fixed-width fields. A cursor that runs
 * past its end sets `bad` and yields zeros, so decoders check once at the
 * end instead of after every field.
 */
#ifndef TTREC_IDNA_BYTES_H
#define TTREC_IDNA_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct byte_reader {
	const uint8_t *p, *end;
	bool bad;
};

struct byte_writer {
	uint8_t *p, *end;
	bool bad;
};

static inline uint64_t zigzag_encode(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t zigzag_decode(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

static inline size_t br_left(const struct byte_reader *r) { return (size_t)(r->end - r->p); }

static inline uint64_t br_varint(struct byte_reader *r)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (r->p >= r->end) {
			r->bad = true;
			return 0;
		}
		uint8_t b = *r->p++;
		/* The tenth byte may only carry the top bit of a 64-bit value. */
		if (shift == 63 && b > 1) {
			r->bad = true;
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	r->bad = true;
	return 0;
}

/* A varint that must fit in 32 bits. */
static inline uint32_t br_varint32(struct byte_reader *r)
{
	uint64_t v = br_varint(r);
	if (v > UINT32_MAX) {
		r->bad = true;
		return 0;
	}
	return (uint32_t)v;
}

/* Borrows n bytes; NULL (and bad) when fewer are left. */
static inline const uint8_t *br_bytes(struct byte_reader *r, size_t n)
{
	if (br_left(r) < n) {
		r->bad = true;
		r->p = r->end;
		return NULL;
	}
	const uint8_t *s = r->p;
	r->p += n;
	return s;
}

static inline uint64_t load_le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void store_le(uint8_t *p, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void bw_varint(struct byte_writer *w, uint64_t v)
{
	if (w->end - w->p < 10) {
		/* Slow path only near the end of the buffer. */
		do {
			if (w->p >= w->end) {
				w->bad = true;
				return;
			}
			*w->p++ = (uint8_t)((v & 0x7f) | (v >= 0x80 ? 0x80 : 0));
			v >>= 7;
		} while (v);
		return;
	}
	while (v >= 0x80) {
		*w->p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*w->p++ = (uint8_t)v;
}

static inline void bw_bytes(struct byte_writer *w, const void *src, size_t n)
{
	if ((size_t)(w->end - w->p) < n) {
		w->bad = true;
		w->p = w->end;
		return;
	}
	if (n)
		memcpy(w->p, src, n);
	w->p += n;
}

static inline void bw_le(struct byte_writer *w, uint64_t v, unsigned n)
{
	if ((size_t)(w->end - w->p) < n) {
		w->bad = true;
		w->p = w->end;
		return;
	}
	store_le(w->p, v, n);
	w->p += n;
}

static inline unsigned varint_size(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

#endif
