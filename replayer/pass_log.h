/*
 * pass_log.h — what a range of the first pass replayed on its own core
 * (pass_parallel.h) did that depends on the memory known before the
 * range: its reads of bytes its own image did not know yet (first reads
 * for all it can tell), and the ranges it forgot, zeroed or blocked. The
 * join replays the log, in order, over the image and the future image the
 * ranges before left: the first reads and blocks the serial pass would
 * have made, and the image the range would have had (with
 * memory_image_overlay).
 */
#ifndef TTREC_PASS_LOG_H
#define TTREC_PASS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replayer/memory_image.h"

struct pass_log {
	uint8_t *bytes;
	size_t len, cap;
	bool failed; /* memory ran short: the log is incomplete */
};

enum pass_log_op {
	PASS_LOG_READ,   /* bytes read that `past` did not know */
	PASS_LOG_FORGET, /* memory_image_forget */
	PASS_LOG_ZERO,   /* memory_image_zero_held */
	PASS_LOG_BLOCK,  /* memory_image_block_future (pass_log_block) */
	PASS_LOG_BLOCK_FILE, /* the same, a file mapped there */
};

/* A read of [addr, addr+len) with these bytes, valid from valid_from (0:
 * from the last transition before the range), before it enters `past`:
 * logs the bytes past does not know. */
void pass_log_read(struct pass_log *log, const struct memory_image *past, uint64_t addr,
		   const void *bytes, size_t len, uint64_t valid_from);
void pass_log_range(struct pass_log *log, enum pass_log_op op, uint64_t addr, uint64_t len);
/* memory_image_block_future's arguments. */
void pass_log_block(struct pass_log *log, uint64_t addr, uint64_t len, uint64_t time, bool file);

/* Applies the log's entries from offset `from` to `to` (pass_log.len at
 * two moments) to the serial pass's image before the range, with what
 * the range changed itself left out (`base`), and its future image;
 * valid_from 0 stands for `transition`. */
void pass_log_apply(const struct pass_log *log, size_t from, size_t to, struct memory_image *base,
		    struct memory_image *future, uint64_t transition);

void pass_log_free(struct pass_log *log);

#endif
