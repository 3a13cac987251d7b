/*
 * pass_log.c — the log of a first-pass range's memory events that depend
 * on the memory before it (pass_log.h): entries of a fixed head and, for
 * reads, their bytes, one after another in one buffer.
 */
#include <stdlib.h>
#include <string.h>

#include "replayer/pass_log.h"

struct entry_head {
	uint64_t op, addr, len, valid_from;
};

static void append(struct pass_log *log, const struct entry_head *h, const void *bytes, size_t n)
{
	if (log->failed)
		return;
	size_t need = log->len + sizeof(*h) + n;
	if (need > log->cap) {
		size_t cap = log->cap ? log->cap : 1 << 16;
		while (cap < need)
			cap *= 2;
		uint8_t *b = realloc(log->bytes, cap);
		if (!b) {
			log->failed = true;
			return;
		}
		log->bytes = b;
		log->cap = cap;
	}
	memcpy(log->bytes + log->len, h, sizeof(*h));
	if (n)
		memcpy(log->bytes + log->len + sizeof(*h), bytes, n);
	log->len = need;
}

void pass_log_read(struct pass_log *log, const struct memory_image *past, uint64_t addr,
		   const void *bytes, size_t len, uint64_t valid_from)
{
	const uint8_t *b = bytes;
	for (size_t at = 0; at < len;) {
		at += memory_image_run(past, addr + at, len - at, true);
		size_t n = memory_image_run(past, addr + at, len - at, false);
		if (n) {
			struct entry_head h = { PASS_LOG_READ, addr + at, n, valid_from };
			append(log, &h, b + at, n);
		}
		at += n;
	}
}

void pass_log_range(struct pass_log *log, enum pass_log_op op, uint64_t addr, uint64_t len)
{
	struct entry_head h = { op, addr, len, 0 };
	append(log, &h, NULL, 0);
}

void pass_log_block(struct pass_log *log, uint64_t addr, uint64_t len, uint64_t time, bool file)
{
	struct entry_head h = { file ? PASS_LOG_BLOCK_FILE : PASS_LOG_BLOCK, addr, len, time };
	append(log, &h, NULL, 0);
}

void pass_log_apply(const struct pass_log *log, size_t from, size_t to, struct memory_image *base,
		    struct memory_image *future, uint64_t transition)
{
	while (from < to) {
		struct entry_head h;
		memcpy(&h, log->bytes + from, sizeof(h));
		const uint8_t *bytes = log->bytes + from + sizeof(h);
		switch ((enum pass_log_op)h.op) {
		case PASS_LOG_READ:
			memory_image_store_first_reads(base, future, h.addr, bytes, h.len,
						       h.valid_from ? h.valid_from : transition);
			break;
		case PASS_LOG_FORGET: memory_image_forget(base, h.addr, h.len); break;
		case PASS_LOG_ZERO: memory_image_zero_held(base, h.addr, h.len); break;
		case PASS_LOG_BLOCK:
		case PASS_LOG_BLOCK_FILE:
			memory_image_block_future(future, h.addr, h.len, h.valid_from,
						  h.op == PASS_LOG_BLOCK_FILE);
			break;
		}
		from += sizeof(h) + (h.op == PASS_LOG_READ ? h.len : 0);
	}
}

void pass_log_free(struct pass_log *log)
{
	free(log->bytes);
	memset(log, 0, sizeof(*log));
}
