/*
 * regs_codec.h — the register block's canonical image and its delta
 * encoding (man/idna.5, "REGISTER BLOCK").
 */
#ifndef TTREC_IDNA_REGS_CODEC_H
#define TTREC_IDNA_REGS_CODEC_H

#include "trace-format/bytes.h"
#include "trace-format/idna.h"

/* The image is this many little-endian 64-bit words. */
#define REGS_IMAGE_WORDS 299

void regs_to_image(const struct idna_regs *r, uint64_t *image);
void regs_from_image(const uint64_t *image, struct idna_regs *r);

/* Encodes `cur` as a delta against `base` (both images). */
void regs_encode_delta(struct byte_writer *w, const uint64_t *base, const uint64_t *cur);
/* Applies a delta to `image` in place; false on malformed input. */
bool regs_decode_delta(struct byte_reader *r, uint64_t *image);

#endif
