/*
 * file_format.c — encoders and validating decoders for the file header and
 * chunk headers. Decoders check every length and count against the bytes
 * available before anything else uses it.
 */
#include "trace-format/file_format.h"

#include <stdio.h>
#include <stdlib.h>

#include "trace-format/bytes.h"
#include "trace-format/crc32c.h"
#include "trace-format/predict_cache.h"

#define MAX_ARGS 65536
#define MAX_CPUID 4096

bool idna_starts_with_magic(const void *buf, size_t len)
{
	return len >= 8 && memcmp(buf, IDNA_FILE_MAGIC, 8) == 0;
}

uint8_t *file_header_encode(const struct idna_header *h, size_t *size)
{
	size_t cap = FILE_HEADER_PREFIX + 64 + 10 + 4 + (h->info.cwd ? strlen(h->info.cwd) : 0) + 10 +
		     h->info.n_cpuid * 60;
	for (uint32_t i = 0; i < h->info.argc; i++)
		cap += strlen(h->info.argv[i]) + 10;
	uint8_t *buf = malloc(cap);
	if (!buf)
		return NULL;
	struct byte_writer w = {buf, buf + cap, false};
	bw_bytes(&w, IDNA_FILE_MAGIC, 8);
	bw_le(&w, IDNA_VERSION_MAJOR, 2);
	bw_le(&w, h->version_minor ? h->version_minor : IDNA_VERSION_MINOR, 2);
	bw_le(&w, 0, 4); /* the size, filled in below */
	bw_varint(&w, h->flags);
	bw_varint(&w, h->arch);
	bw_varint(&w, h->cache_log2_entries);
	bw_varint(&w, h->cache_log2_line);
	bw_varint(&w, h->ring_bytes);
	bw_varint(&w, h->max_chunk_bytes);
	bw_varint(&w, zigzag_encode(h->info.start_time_ns));
	size_t cwd_len = h->info.cwd ? strlen(h->info.cwd) : 0;
	bw_varint(&w, cwd_len);
	bw_bytes(&w, h->info.cwd, cwd_len);
	bw_varint(&w, h->info.argc);
	for (uint32_t i = 0; i < h->info.argc; i++) {
		size_t n = strlen(h->info.argv[i]);
		bw_varint(&w, n);
		bw_bytes(&w, h->info.argv[i], n);
	}
	bw_varint(&w, h->info.n_cpuid);
	for (uint32_t i = 0; i < h->info.n_cpuid; i++) {
		const struct idna_cpuid_entry *e = &h->info.cpuid[i];
		bw_varint(&w, e->leaf);
		bw_varint(&w, e->subleaf);
		bw_varint(&w, e->eax);
		bw_varint(&w, e->ebx);
		bw_varint(&w, e->ecx);
		bw_varint(&w, e->edx);
	}
	bw_varint(&w, h->info.pid > 0 ? (uint64_t)h->info.pid : 0); /* minor version 2 */
	size_t body_end = (size_t)(w.p - buf);
	if (w.bad || body_end + 4 > FILE_HEADER_MAX) {
		free(buf);
		return NULL;
	}
	store_le(buf + 12, body_end + 4, 4);
	store_le(buf + body_end, crc32c(0, buf, body_end), 4);
	*size = body_end + 4;
	return buf;
}

void file_header_free(struct idna_header *h)
{
	if (h->info.argv)
		for (uint32_t i = 0; i < h->info.argc; i++)
			free((char *)h->info.argv[i]);
	free((void *)h->info.argv);
	free((void *)h->info.cwd);
	free((void *)h->info.cpuid);
	memset(h, 0, sizeof(*h));
}

static char *dup_bytes(struct byte_reader *r)
{
	uint64_t n = br_varint(r);
	if (n > br_left(r)) {
		r->bad = true;
		return NULL;
	}
	char *s = malloc(n + 1);
	if (!s) {
		r->bad = true;
		return NULL;
	}
	memcpy(s, br_bytes(r, n), n);
	s[n] = 0;
	return s;
}

static const char *decode_body(struct byte_reader *r, struct idna_header *h)
{
	h->flags = br_varint(r);
	h->arch = br_varint32(r);
	h->cache_log2_entries = br_varint32(r);
	h->cache_log2_line = br_varint32(r);
	h->ring_bytes = br_varint(r);
	h->max_chunk_bytes = br_varint32(r);
	h->info.start_time_ns = zigzag_decode(br_varint(r));
	h->info.cwd = dup_bytes(r);
	uint64_t argc = br_varint(r);
	/* Each argument takes at least one byte: a count larger than the
	 * bytes left is a lie, whatever MAX_ARGS allows. */
	if (r->bad || argc > MAX_ARGS || argc > br_left(r))
		return "bad argument count";
	h->info.argv = calloc(argc ? argc : 1, sizeof(char *));
	if (!h->info.argv)
		return "out of memory";
	for (uint64_t i = 0; i < argc && !r->bad; i++) {
		((char **)h->info.argv)[i] = dup_bytes(r);
		h->info.argc = (uint32_t)i + 1;
	}
	uint64_t n_cpuid = br_varint(r);
	if (r->bad || n_cpuid > MAX_CPUID || n_cpuid * 6 > br_left(r))
		return "bad CPUID table size";
	struct idna_cpuid_entry *cpuid = calloc(n_cpuid ? n_cpuid : 1, sizeof(*cpuid));
	if (!cpuid)
		return "out of memory";
	h->info.cpuid = cpuid;
	h->info.n_cpuid = (uint32_t)n_cpuid;
	for (uint64_t i = 0; i < n_cpuid; i++) {
		cpuid[i].leaf = br_varint32(r);
		cpuid[i].subleaf = br_varint32(r);
		cpuid[i].eax = br_varint32(r);
		cpuid[i].ebx = br_varint32(r);
		cpuid[i].ecx = br_varint32(r);
		cpuid[i].edx = br_varint32(r);
	}
	/* Minor version 2 on: the pid (a newer minor version's fields may
	 * follow). */
	if (!r->bad && br_left(r) > 0) {
		uint64_t pid = br_varint(r);
		if (pid > INT32_MAX)
			return "bad pid";
		h->info.pid = (int64_t)pid;
	}
	if (r->bad)
		return "truncated header fields";
	if (h->arch != IDNA_ARCH_X86_64)
		return "unsupported architecture";
	if (h->cache_log2_entries < 4 || h->cache_log2_entries > 24 ||
	    !predict_cache_line_log2_known(h->cache_log2_entries, h->cache_log2_line))
		return "unsupported prediction cache geometry";
	if (h->max_chunk_bytes == 0 || h->max_chunk_bytes > CHUNK_MAX_USIZE)
		return "bad chunk size limit";
	return NULL;
}

size_t file_header_decode(const uint8_t *buf, size_t len, uint64_t file_size, struct idna_header *h,
			  char *err, size_t errlen)
{
	memset(h, 0, sizeof(*h));
	if (file_size == 0) {
		snprintf(err, errlen, "empty file");
		return 0;
	}
	if (len < 8 || memcmp(buf, IDNA_FILE_MAGIC, 8) != 0) {
		snprintf(err, errlen, "not an .idna trace (bad magic)");
		return 0;
	}
	if (len < FILE_HEADER_PREFIX) {
		snprintf(err, errlen, "truncated file header");
		return 0;
	}
	h->version_major = (uint32_t)load_le(buf + 8, 2);
	h->version_minor = (uint32_t)load_le(buf + 10, 2);
	if (h->version_major != IDNA_VERSION_MAJOR) {
		snprintf(err, errlen, "trace format version %u.%u is not supported (this reader: %u.x)",
			 h->version_major, h->version_minor, IDNA_VERSION_MAJOR);
		return 0;
	}
	uint32_t size = (uint32_t)load_le(buf + 12, 4);
	if (size < FILE_HEADER_PREFIX + 4 || size > FILE_HEADER_MAX) {
		snprintf(err, errlen, "bad file header size %u", size);
		return 0;
	}
	if (size > len) {
		snprintf(err, errlen, "truncated file header (%u bytes, file has %zu)", size, len);
		return 0;
	}
	if (crc32c(0, buf, size - 4) != load_le(buf + size - 4, 4)) {
		snprintf(err, errlen, "file header checksum mismatch");
		return 0;
	}
	struct byte_reader r = {buf + FILE_HEADER_PREFIX, buf + size - 4, false};
	const char *why = decode_body(&r, h);
	if (why) {
		snprintf(err, errlen, "bad file header: %s", why);
		file_header_free(h);
		return 0;
	}
	/* Bytes left over are fields a newer minor version added. */
	return size;
}

size_t chunk_header_encode(const struct chunk_header *c, uint8_t *buf)
{
	size_t size = CHUNK_HEADER_FIXED + (size_t)c->n_checkpoints * CHUNK_CHECKPOINT_ENTRY + 4;
	memset(buf, 0, CHUNK_HEADER_FIXED);
	memcpy(buf, CHUNK_MAGIC, 4);
	store_le(buf + 4, size, 4);
	store_le(buf + 8, c->seq, 8);
	store_le(buf + 16, c->stream, 4);
	store_le(buf + 20, c->flags, 4);
	store_le(buf + 24, c->stream_chunk_no, 8);
	store_le(buf + 32, c->first_global_seq, 8);
	store_le(buf + 40, c->first_icount, 8);
	store_le(buf + 48, c->csize, 4);
	store_le(buf + 52, c->usize, 4);
	store_le(buf + 56, c->n_records, 4);
	store_le(buf + 60, c->payload_crc, 4);
	uint8_t *p = buf + CHUNK_HEADER_FIXED;
	for (uint32_t i = 0; i < c->n_checkpoints; i++, p += CHUNK_CHECKPOINT_ENTRY) {
		store_le(p, c->checkpoints[i].offset, 8);
		store_le(p + 8, c->checkpoints[i].global_seq, 8);
		store_le(p + 16, c->checkpoints[i].icount, 8);
	}
	store_le(p, crc32c(0, buf, size - 4), 4);
	return size;
}

size_t chunk_header_size(const uint8_t *buf)
{
	if (memcmp(buf, CHUNK_MAGIC, 4) != 0)
		return 0;
	uint32_t size = (uint32_t)load_le(buf + 4, 4);
	if (size < CHUNK_HEADER_FIXED + 4 || size > CHUNK_HEADER_MAX ||
	    (size - CHUNK_HEADER_FIXED - 4) % CHUNK_CHECKPOINT_ENTRY != 0)
		return 0;
	return size;
}

bool chunk_header_decode(const uint8_t *buf, size_t size, struct chunk_header *c,
			 struct chunk_checkpoint *cps, char *err, size_t errlen)
{
	if (chunk_header_size(buf) != size) {
		snprintf(err, errlen, "not a chunk header");
		return false;
	}
	if (crc32c(0, buf, size - 4) != load_le(buf + size - 4, 4)) {
		snprintf(err, errlen, "chunk header checksum mismatch");
		return false;
	}
	c->header_size = (uint32_t)size;
	c->seq = load_le(buf + 8, 8);
	c->stream = (uint32_t)load_le(buf + 16, 4);
	c->flags = (uint32_t)load_le(buf + 20, 4);
	c->stream_chunk_no = load_le(buf + 24, 8);
	c->first_global_seq = load_le(buf + 32, 8);
	c->first_icount = load_le(buf + 40, 8);
	c->csize = (uint32_t)load_le(buf + 48, 4);
	c->usize = (uint32_t)load_le(buf + 52, 4);
	c->n_records = (uint32_t)load_le(buf + 56, 4);
	c->payload_crc = (uint32_t)load_le(buf + 60, 4);
	c->n_checkpoints = (uint32_t)((size - CHUNK_HEADER_FIXED - 4) / CHUNK_CHECKPOINT_ENTRY);
	c->checkpoints = cps;
	if (c->usize == 0 || c->usize > CHUNK_MAX_USIZE || c->csize == 0 || c->csize > CHUNK_MAX_USIZE + 65536 ||
	    c->n_records == 0 || c->n_records > c->usize / 2) {
		snprintf(err, errlen, "implausible chunk sizes");
		return false;
	}
	const uint8_t *p = buf + CHUNK_HEADER_FIXED;
	for (uint32_t i = 0; i < c->n_checkpoints; i++, p += CHUNK_CHECKPOINT_ENTRY) {
		uint64_t off = load_le(p, 8);
		if (off >= c->usize) {
			snprintf(err, errlen, "checkpoint offset outside its chunk");
			return false;
		}
		cps[i].offset = (uint32_t)off;
		cps[i].global_seq = load_le(p + 8, 8);
		cps[i].icount = load_le(p + 16, 8);
	}
	return true;
}
