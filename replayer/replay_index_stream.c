/*
 * replay_index_stream.c — varints and bytes through one zstd frame
 * (replay_index_stream.h). The frame carries zstd's content checksum,
 * which index_in_finish checks: a flipped byte anywhere in the payload
 * is caught even where it would still decode.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "replayer/replay_index_stream.h"
#include "trace-format/crc32c.h"

#define RAW_BUF (128u << 10)
/* Fast: the index is written at the end of a first pass the user waits
 * for; memory pages compress well at any level. */
#define LEVEL 3

int index_out_open(struct index_out *o)
{
	memset(o, 0, sizeof(*o));
	o->cap = RAW_BUF;
	o->buf = malloc(o->cap);
	o->bad = !o->buf;
	return o->bad ? -1 : 0;
}

void index_out_bytes(struct index_out *o, const void *p, size_t n)
{
	if (o->bad)
		return;
	if (o->cap - o->used < n) {
		size_t cap = o->cap;
		while (cap - o->used < n)
			cap *= 2;
		uint8_t *b = realloc(o->buf, cap);
		if (!b) {
			o->bad = true;
			return;
		}
		o->buf = b;
		o->cap = cap;
	}
	memcpy(o->buf + o->used, p, n);
	o->used += n;
}

void index_out_varint(struct index_out *o, uint64_t v)
{
	uint8_t b[10];
	size_t n = 0;
	do {
		b[n] = v & 0x7f;
		v >>= 7;
		if (v)
			b[n] |= 0x80;
		n++;
	} while (v);
	index_out_bytes(o, b, n);
}

void index_out_signed(struct index_out *o, int64_t v)
{
	index_out_varint(o, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

void index_out_free(struct index_out *o)
{
	free(o->buf);
	o->buf = NULL;
}

/* Appends the compressed bytes out holds to z. */
static bool keep(struct index_frame *z, const ZSTD_outBuffer *out)
{
	if (z->cap - z->len < out->pos) {
		size_t cap = z->cap ? z->cap : out->size;
		while (cap - z->len < out->pos)
			cap *= 2;
		uint8_t *b = realloc(z->bytes, cap);
		if (!b)
			return false;
		z->bytes = b;
		z->cap = cap;
	}
	memcpy(z->bytes + z->len, out->dst, out->pos);
	z->len += out->pos;
	z->crc = crc32c(z->crc, out->dst, out->pos);
	return true;
}

/* Fed RAW_BUF bytes at a time, ended with the rest: the calls (and so the
 * bytes) of the streaming writer this replaced, and the same on every
 * thread and for every --jobs. */
int index_compress(const uint8_t *raw, size_t n, struct index_frame *z)
{
	memset(z, 0, sizeof(*z));
	z->payload = n;
	ZSTD_CCtx *c = ZSTD_createCCtx();
	size_t cap = ZSTD_CStreamOutSize();
	uint8_t *zbuf = malloc(cap);
	bool bad = !c || !zbuf ||
		   ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_compressionLevel, LEVEL)) ||
		   ZSTD_isError(ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1));
	size_t done = 0;
	while (!bad) {
		bool end = n - done < RAW_BUF;
		ZSTD_inBuffer in = { raw + done, end ? n - done : RAW_BUF, 0 };
		size_t r;
		do {
			ZSTD_outBuffer out = { zbuf, cap, 0 };
			r = ZSTD_compressStream2(c, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
			bad = ZSTD_isError(r) || !keep(z, &out);
		} while (!bad && (end ? r != 0 : in.pos < in.size));
		done += in.size;
		if (end)
			break;
	}
	ZSTD_freeCCtx(c);
	free(zbuf);
	if (bad) {
		index_frame_free(z);
		return -1;
	}
	return 0;
}

void index_frame_free(struct index_frame *z)
{
	free(z->bytes);
	z->bytes = NULL;
	z->len = z->cap = 0;
}

void index_in_fail(struct index_in *in, const char *why)
{
	if (!in->bad)
		snprintf(in->why, sizeof(in->why), "%s", why);
	in->bad = true;
}

int index_in_open(struct index_in *in, int fd, uint64_t compressed, uint64_t payload,
		  uint32_t crc)
{
	memset(in, 0, sizeof(*in));
	in->want_crc = crc;
	in->fd = fd;
	in->compressed_left = compressed;
	in->left = payload;
	/* A zstd block regenerates at most 128 KiB from at least 4 bytes:
	 * a frame declaring more than that ratio of its size lies, and its
	 * counts (bounded by the payload) would ask for absurd memory. */
	if (payload / 32768 > compressed) {
		index_in_fail(in, "a frame declares more than its bytes can hold");
		return -1;
	}
	in->z = ZSTD_createDCtx();
	in->ibuf = malloc(ZSTD_DStreamInSize());
	in->obuf = malloc(ZSTD_DStreamOutSize());
	if (!in->z || !in->ibuf || !in->obuf) {
		index_in_fail(in, "out of memory");
		return -1;
	}
	return 0;
}

void index_in_close(struct index_in *in)
{
	ZSTD_freeDCtx(in->z);
	free(in->ibuf);
	free(in->obuf);
	in->z = NULL;
	in->ibuf = in->obuf = NULL;
}

/* Decompresses more into obuf (which is empty). false at the frame's end
 * (bad unset) or on error (bad set). */
static bool refill(struct index_in *in)
{
	while (!in->bad && !in->frame_ended) {
		if (in->ipos == in->ilen) {
			if (!in->compressed_left) {
				index_in_fail(in, "the file ends early");
				return false;
			}
			size_t want = ZSTD_DStreamInSize();
			if (want > in->compressed_left)
				want = (size_t)in->compressed_left;
			ssize_t n = read(in->fd, in->ibuf, want);
			if (n <= 0) {
				index_in_fail(in, "the file ends early");
				return false;
			}
			in->crc = crc32c(in->crc, in->ibuf, (size_t)n);
			in->ipos = 0;
			in->ilen = (size_t)n;
			in->compressed_left -= (uint64_t)n;
		}
		ZSTD_inBuffer zi = { in->ibuf, in->ilen, in->ipos };
		ZSTD_outBuffer zo = { in->obuf, ZSTD_DStreamOutSize(), 0 };
		size_t r = ZSTD_decompressStream(in->z, &zo, &zi);
		in->ipos = zi.pos;
		if (ZSTD_isError(r)) {
			index_in_fail(in, ZSTD_getErrorName(r)); /* a checksum mismatch too */
			return false;
		}
		if (r == 0)
			in->frame_ended = true;
		in->opos = 0;
		in->olen = zo.pos;
		if (zo.pos)
			return true;
	}
	return false;
}

bool index_in_bytes(struct index_in *in, void *p, size_t n)
{
	uint8_t *b = p;
	if (!in->bad && n > in->left)
		index_in_fail(in, "a field runs past the payload");
	while (n && !in->bad) {
		if (in->opos == in->olen && !refill(in)) {
			index_in_fail(in, "the payload ends early");
			break;
		}
		size_t k = in->olen - in->opos < n ? in->olen - in->opos : n;
		memcpy(b, in->obuf + in->opos, k);
		in->opos += k;
		in->left -= k;
		b += k;
		n -= k;
	}
	if (in->bad)
		memset(b, 0, n);
	return !in->bad;
}

uint64_t index_in_varint(struct index_in *in)
{
	uint64_t v = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		uint8_t b;
		if (!index_in_bytes(in, &b, 1))
			return 0;
		if (shift == 63 && b > 1) {
			index_in_fail(in, "a number is too large");
			return 0;
		}
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
	}
	index_in_fail(in, "a number is too long");
	return 0;
}

int64_t index_in_signed(struct index_in *in)
{
	uint64_t v = index_in_varint(in);
	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

bool index_in_bool(struct index_in *in)
{
	uint64_t v = index_in_varint(in);
	if (v > 1)
		index_in_fail(in, "a flag is neither 0 nor 1");
	return v == 1;
}

uint64_t index_in_count(struct index_in *in, uint64_t min_bytes, uint64_t max)
{
	uint64_t n = index_in_varint(in);
	if (in->bad)
		return 0;
	if (n > max || (min_bytes && n > in->left / min_bytes)) {
		index_in_fail(in, "a count is larger than the payload allows");
		return 0;
	}
	return n;
}

bool index_in_finish(struct index_in *in)
{
	if (in->bad)
		return false;
	if (in->left || in->opos != in->olen) {
		index_in_fail(in, "the payload is longer than declared");
		return false;
	}
	/* Reach the frame's end, where zstd checks the content checksum. */
	while (!in->frame_ended && !in->bad) {
		if (refill(in)) {
			index_in_fail(in, "the payload is longer than declared");
			return false;
		}
	}
	if (!in->bad && (in->ipos != in->ilen || in->compressed_left))
		index_in_fail(in, "bytes follow the payload");
	if (!in->bad && in->crc != in->want_crc)
		index_in_fail(in, "the compressed bytes' checksum differs");
	return !in->bad;
}
