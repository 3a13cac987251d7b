/*
 * jit_encode_cache.h — the host instructions encoded lately, by request:
 * a translation asks for the same few hundred forms again and again (a
 * guest register's load from the cpu, the hit count's settling, a
 * call's set-up), and copying their bytes costs far less than encoding them
 * (jit_emit.c asks here first).
 */
#ifndef TTREC_EMU_JIT_ENCODE_CACHE_H
#define TTREC_EMU_JIT_ENCODE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "jit_emit.h"

struct jit_encode_cache *jit_encode_cache_new(void);
void jit_encode_cache_free(struct jit_encode_cache *c);
/* The bytes of mn x, y, z into out when an earlier request just like it
 * was stored: their count, else 0 (all JIT_ENCODED_MAX bytes of out are
 * written, those past the count meaning nothing). */
size_t jit_encode_cache_find(struct jit_encode_cache *c, ZydisMnemonic mn, const struct jit_opnd *x,
			     const struct jit_opnd *y, const struct jit_opnd *z,
			     uint8_t out[JIT_ENCODED_MAX]);
/* The n (1..JIT_ENCODED_MAX) bytes that encode mn x, y, z, kept in place
 * of whatever request shared their entry. */
void jit_encode_cache_store(struct jit_encode_cache *c, ZydisMnemonic mn, const struct jit_opnd *x,
			    const struct jit_opnd *y, const struct jit_opnd *z,
			    const uint8_t *bytes, size_t n);

#endif
