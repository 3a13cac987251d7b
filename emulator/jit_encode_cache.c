/*
 * jit_encode_cache.c — a direct-mapped table of encoded host
 * instructions, keyed by the whole request (mnemonic and every field of
 * the three operands), so that a hit is exactly what encoding it again
 * would make.
 */
#include <stdlib.h>
#include <string.h>

#include "jit_encode_cache.h"

#define ENTRIES_LOG2 12
#define KEY_WORDS 7

struct entry {
	uint64_t key[KEY_WORDS];
	uint8_t len; /* 0: empty */
	uint8_t bytes[JIT_ENCODED_MAX];
};

struct jit_encode_cache {
	struct entry entries[1u << ENTRIES_LOG2];
};

struct jit_encode_cache *jit_encode_cache_new(void)
{
	return calloc(1, sizeof(struct jit_encode_cache));
}

void jit_encode_cache_free(struct jit_encode_cache *c)
{
	free(c);
}

/* An operand's fields but its value: its first six bytes, one field
 * each (the padding after them left out). */
_Static_assert(offsetof(struct jit_opnd, kind) == 0 && offsetof(struct jit_opnd, size) == 1 &&
		       offsetof(struct jit_opnd, reg) == 2 && offsetof(struct jit_opnd, base) == 3 &&
		       offsetof(struct jit_opnd, index) == 4 && offsetof(struct jit_opnd, scale) == 5,
	       "an operand's fields but its value are its first six bytes");
static inline __attribute__((always_inline)) uint64_t shape_of(const struct jit_opnd *o)
{
	uint64_t shape = 0;
	memcpy(&shape, o, 6); /* little-endian host */
	return shape;
}

static inline __attribute__((always_inline)) void key_of(uint64_t key[KEY_WORDS], ZydisMnemonic mn, const struct jit_opnd *x,
		   const struct jit_opnd *y, const struct jit_opnd *z)
{
	key[0] = (uint64_t)mn;
	key[1] = shape_of(x);
	key[2] = (uint64_t)x->value;
	key[3] = shape_of(y);
	key[4] = (uint64_t)y->value;
	key[5] = shape_of(z);
	key[6] = (uint64_t)z->value;
}

static struct entry *entry_of(struct jit_encode_cache *c, const uint64_t key[KEY_WORDS])
{
	uint64_t h = 0;
#pragma GCC unroll 8 /* whole: KEY_WORDS is 7 */
	for (unsigned i = 0; i < KEY_WORDS; i++)
		h = (h ^ key[i]) * 0x9E3779B97F4A7C15ull;
	return &c->entries[h >> (64 - ENTRIES_LOG2)];
}

/* The translator asks this for every host instruction it emits, so a
 * hit is kept to straight-line work: the key compared word by word with
 * no early exit (a call to memcmp cost more than the rest), and the
 * stored bytes copied whole, a constant size, whatever their length. */
size_t jit_encode_cache_find(struct jit_encode_cache *c, ZydisMnemonic mn, const struct jit_opnd *x,
			     const struct jit_opnd *y, const struct jit_opnd *z,
			     uint8_t out[JIT_ENCODED_MAX])
{
	uint64_t key[KEY_WORDS];
	key_of(key, mn, x, y, z);
	const struct entry *e = entry_of(c, key);
	uint64_t differ = 0;
#pragma GCC unroll 8 /* whole: KEY_WORDS is 7 */
	for (unsigned i = 0; i < KEY_WORDS; i++)
		differ |= e->key[i] ^ key[i];
	if (e->len == 0 || differ)
		return 0;
	memcpy(out, e->bytes, JIT_ENCODED_MAX);
	return e->len;
}

void jit_encode_cache_store(struct jit_encode_cache *c, ZydisMnemonic mn, const struct jit_opnd *x,
			    const struct jit_opnd *y, const struct jit_opnd *z,
			    const uint8_t *bytes, size_t n)
{
	if (n == 0 || n > JIT_ENCODED_MAX)
		return;
	uint64_t key[KEY_WORDS];
	key_of(key, mn, x, y, z);
	struct entry *e = entry_of(c, key);
	memcpy(e->key, key, sizeof(key));
	memcpy(e->bytes, bytes, n);
	e->len = (uint8_t)n;
}
