/*
 * sparse_copy.h — a copy of a large buffer that stores only its blocks
 * that are not all zeros. A snapshot keeps each live thread's prediction
 * cache; a trace may declare the largest cache the format allows (128 MiB
 * per thread) and touch almost none of it, so a full copy per snapshot
 * would cost memory the trace never justifies. Stored blocks are bounded
 * by the cache lines the replay actually filled.
 */
#ifndef TTREC_SPARSE_COPY_H
#define TTREC_SPARSE_COPY_H

#include <stddef.h>
#include <stdint.h>

/* The unit of what is stored: blocks of this many bytes (the last one may
 * be shorter). */
#define SPARSE_BLOCK 4096u

struct sparse_copy {
	size_t size;       /* bytes of the buffer copied */
	uint8_t **blocks;  /* SPARSE_BLOCK bytes each; NULL: all zeros */
};

/* Copies size bytes of src. 0, or -1 when out of memory. */
int sparse_copy_take(struct sparse_copy *c, const uint8_t *src, size_t size);
/* Writes the copy back into dst (size bytes), leaving blocks that are
 * zero in both untouched (untouched memory stays uncommitted). */
void sparse_copy_restore(const struct sparse_copy *c, uint8_t *dst);
void sparse_copy_free(struct sparse_copy *c);

/* Block by block, for the replay index: how many blocks a copy of size
 * bytes has, and how long block i is. */
size_t sparse_copy_blocks(size_t size);
size_t sparse_copy_block_len(size_t size, size_t i);
/* An all-zero copy of size bytes, whose blocks are then set with
 * sparse_copy_set_block (len: sparse_copy_block_len). 0, or -1. */
int sparse_copy_init(struct sparse_copy *c, size_t size);
int sparse_copy_set_block(struct sparse_copy *c, size_t i, const uint8_t *bytes);

#endif
