/*
 * record_codec.c — the record encodings. Every record is
 * varint(type) varint(length) payload; readers skip types they do not
 * know and ignore payload bytes after the fields they know, which is how
 * newer writers stay readable by older readers.
 */
#include "trace-format/miss_cursor.h"
#include "trace-format/record_codec.h"

#include <stdio.h>

static const char *const type_names[IDNA_REC_TYPE_COUNT] = {
	[IDNA_REC_MISS] = "miss",
	[IDNA_REC_KEY_FRAME] = "key-frame",
	[IDNA_REC_CHECKPOINT] = "checkpoint",
	[IDNA_REC_KERNEL] = "kernel",
	[IDNA_REC_NONDET] = "nondet",
	[IDNA_REC_NATIVE] = "native",
	[IDNA_REC_CODE_PAGE] = "code-page",
	[IDNA_REC_THREAD_CREATE] = "thread-create",
	[IDNA_REC_THREAD_EXIT] = "thread-exit",
	[IDNA_REC_MODULE_LOAD] = "module-load",
	[IDNA_REC_MODULE_UNMAP] = "module-unmap",
	[IDNA_REC_EXECVE] = "execve",
	[IDNA_REC_SIGNAL] = "signal",
	[IDNA_REC_PROCESS_EXIT] = "process-exit",
	[IDNA_REC_CACHE_STATS] = "cache-stats",
	[IDNA_REC_KERNEL_WRITE] = "kernel-write",
};

const char *idna_record_type_name(uint32_t type)
{
	if (type < IDNA_REC_TYPE_COUNT && type_names[type])
		return type_names[type];
	return "unknown";
}

void record_codec_reset(struct record_codec_state *s)
{
	memset(s, 0, sizeof(*s));
}

static void put_regs(struct byte_writer *w, uint64_t *base, const struct idna_regs *regs)
{
	uint64_t img[REGS_IMAGE_WORDS];
	regs_to_image(regs, img);
	regs_encode_delta(w, base, img);
	memcpy(base, img, sizeof(img));
}

static void put_string(struct byte_writer *w, const char *s)
{
	size_t n = s ? strlen(s) : 0;
	bw_varint(w, n);
	bw_bytes(w, s, n);
}

/* Checks what the encoding cannot represent; returns a message or NULL. */
static const char *validate(const struct idna_record *rec)
{
	switch (rec->type) {
	case IDNA_REC_MISS:
		if (rec->u.miss.len < 1 || rec->u.miss.len > IDNA_MAX_READ || !rec->u.miss.value)
			return "miss value must be 1..64 bytes";
		return NULL;
	case IDNA_REC_CHECKPOINT:
		return rec->u.checkpoint.regs ? NULL : "checkpoint without registers";
	case IDNA_REC_KERNEL:
		return rec->u.kernel.regs ? NULL : "kernel transition without registers";
	case IDNA_REC_THREAD_CREATE:
		return rec->u.thread_create.regs ? NULL : "thread creation without registers";
	case IDNA_REC_NONDET:
		if (rec->u.nondet.n_in > IDNA_MAX_NONDET_VALUES || rec->u.nondet.n_out > IDNA_MAX_NONDET_VALUES)
			return "too many non-deterministic values";
		return NULL;
	case IDNA_REC_NATIVE:
		if (!rec->u.native.regs || rec->u.native.insn_len < 1 || rec->u.native.insn_len > 15)
			return "native instruction needs registers and 1..15 bytes";
		if (rec->u.native.n_writes > IDNA_MAX_NATIVE_WRITES)
			return "too many memory effects";
		for (uint32_t i = 0; i < rec->u.native.n_writes; i++)
			if (rec->u.native.writes[i].len > IDNA_MAX_READ * 64)
				return "memory effect too large";
		return NULL;
	case IDNA_REC_CODE_PAGE:
		if (rec->u.code_page.len < 1 || rec->u.code_page.len > IDNA_MAX_RECORD - 16)
			return "code page size out of range";
		return NULL;
	case IDNA_REC_MODULE_LOAD:
		if (rec->u.module_load.build_id_len > 64)
			return "build-id longer than 64 bytes";
		return NULL;
	case IDNA_REC_KERNEL_WRITE:
		if (rec->u.kernel_write.len > IDNA_MAX_KERNEL_WRITE ||
		    (rec->u.kernel_write.len && !rec->u.kernel_write.bytes))
			return "kernel write larger than IDNA_MAX_KERNEL_WRITE or without bytes";
		if ((rec->u.kernel_write.flags & IDNA_KWRITE_RANGE) && rec->u.kernel_write.len)
			return "kernel write of a range with bytes";
		return NULL;
	default:
		if (rec->type == 0)
			return "record type 0 is reserved";
		if (rec->type >= IDNA_REC_TYPE_COUNT && rec->u.unknown.len > IDNA_MAX_RECORD)
			return "record too large";
		return NULL;
	}
}

static void encode_payload(struct record_codec_state *s, const struct idna_record *rec,
			   struct byte_writer *w)
{
	const typeof(rec->u) *u = &rec->u;
	switch (rec->type) {
	case IDNA_REC_MISS:
		bw_varint(w, u->miss.hits_before);
		bw_bytes(w, u->miss.value, u->miss.len);
		break;
	case IDNA_REC_KEY_FRAME:
		bw_varint(w, u->key.reason);
		bw_varint(w, zigzag_encode((int64_t)(u->key.global_seq - s->last_global_seq)));
		bw_varint(w, zigzag_encode((int64_t)(u->key.icount - s->last_icount)));
		s->last_global_seq = u->key.global_seq;
		s->last_icount = u->key.icount;
		break;
	case IDNA_REC_CHECKPOINT:
		bw_varint(w, u->checkpoint.global_seq);
		bw_varint(w, u->checkpoint.icount);
		memset(s->regs_base, 0, sizeof(s->regs_base));
		put_regs(w, s->regs_base, u->checkpoint.regs);
		s->last_global_seq = u->checkpoint.global_seq;
		s->last_icount = u->checkpoint.icount;
		break;
	case IDNA_REC_KERNEL:
		bw_varint(w, u->kernel.kind);
		bw_varint(w, u->kernel.nr);
		bw_varint(w, zigzag_encode((int64_t)u->kernel.result));
		put_regs(w, s->regs_base, u->kernel.regs);
		break;
	case IDNA_REC_NONDET:
		bw_varint(w, u->nondet.kind);
		bw_varint(w, u->nondet.n_in);
		for (uint32_t i = 0; i < u->nondet.n_in; i++)
			bw_varint(w, u->nondet.in[i]);
		bw_varint(w, u->nondet.n_out);
		for (uint32_t i = 0; i < u->nondet.n_out; i++)
			bw_varint(w, u->nondet.out[i]);
		break;
	case IDNA_REC_NATIVE:
		bw_varint(w, u->native.insn_len);
		bw_bytes(w, u->native.insn, u->native.insn_len);
		put_regs(w, s->regs_base, u->native.regs);
		bw_varint(w, u->native.n_writes);
		for (uint32_t i = 0; i < u->native.n_writes; i++) {
			bw_varint(w, u->native.writes[i].addr);
			bw_varint(w, u->native.writes[i].len);
			bw_bytes(w, u->native.writes[i].bytes, u->native.writes[i].len);
		}
		break;
	case IDNA_REC_CODE_PAGE:
		bw_varint(w, u->code_page.addr);
		bw_bytes(w, u->code_page.bytes, u->code_page.len);
		break;
	case IDNA_REC_THREAD_CREATE: {
		uint64_t base[REGS_IMAGE_WORDS] = {0};
		bw_varint(w, u->thread_create.tid);
		bw_varint(w, u->thread_create.parent_tid);
		bw_varint(w, u->thread_create.stream);
		put_regs(w, base, u->thread_create.regs);
		break;
	}
	case IDNA_REC_THREAD_EXIT:
		bw_varint(w, u->thread_exit.tid);
		bw_varint(w, zigzag_encode(u->thread_exit.status));
		break;
	case IDNA_REC_MODULE_LOAD:
		bw_varint(w, u->module_load.addr);
		bw_varint(w, u->module_load.size);
		bw_varint(w, u->module_load.offset);
		bw_varint(w, u->module_load.prot);
		put_string(w, u->module_load.path);
		bw_varint(w, u->module_load.build_id_len);
		bw_bytes(w, u->module_load.build_id, u->module_load.build_id_len);
		break;
	case IDNA_REC_MODULE_UNMAP:
		bw_varint(w, u->module_unmap.addr);
		bw_varint(w, u->module_unmap.size);
		break;
	case IDNA_REC_EXECVE:
		bw_varint(w, u->execve.address_space);
		put_string(w, u->execve.path);
		break;
	case IDNA_REC_SIGNAL:
		bw_varint(w, u->signal.tid);
		bw_varint(w, zigzag_encode(u->signal.signo));
		bw_varint(w, zigzag_encode(u->signal.code));
		bw_varint(w, u->signal.addr);
		break;
	case IDNA_REC_PROCESS_EXIT:
		bw_varint(w, zigzag_encode(u->process_exit.status));
		break;
	case IDNA_REC_CACHE_STATS:
		bw_varint(w, u->cache_stats.hits);
		bw_varint(w, u->cache_stats.misses);
		break;
	case IDNA_REC_KERNEL_WRITE:
		bw_varint(w, u->kernel_write.flags);
		bw_varint(w, u->kernel_write.addr);
		if (u->kernel_write.flags & IDNA_KWRITE_RANGE)
			bw_varint(w, u->kernel_write.span);
		else
			bw_bytes(w, u->kernel_write.bytes, u->kernel_write.len);
		break;
	default:
		bw_bytes(w, u->unknown.payload, u->unknown.len);
		break;
	}
}

size_t record_encode(struct record_codec_state *s, const struct idna_record *rec, uint8_t *out,
		     char *err, size_t errlen)
{
	const char *why = validate(rec);
	if (why) {
		snprintf(err, errlen, "bad %s record: %s", idna_record_type_name(rec->type), why);
		return 0;
	}
	struct byte_writer w = {out, out + RECORD_MAX_ENCODED, false};
	bw_varint(&w, rec->type);
	if (rec->type == IDNA_REC_MISS) {
		/* The hot path: the length is known without a scratch pass. */
		bw_varint(&w, varint_size(rec->u.miss.hits_before) + rec->u.miss.len);
		encode_payload(s, rec, &w);
		return (size_t)(w.p - out);
	}
	/* Payload first at the largest length-prefix offset, then slide it
	 * back behind the real prefix. A failed encode leaves the state as
	 * it was: work on a copy only when the record changes the state. */
	struct record_codec_state saved;
	bool stateful = rec->type == IDNA_REC_KEY_FRAME || rec->type == IDNA_REC_CHECKPOINT ||
			rec->type == IDNA_REC_KERNEL || rec->type == IDNA_REC_NATIVE;
	if (stateful)
		saved = *s;
	uint8_t *type_end = w.p;
	struct byte_writer pw = {type_end + 3, out + RECORD_MAX_ENCODED, false};
	encode_payload(s, rec, &pw);
	size_t len = (size_t)(pw.p - (type_end + 3));
	if (pw.bad || len > IDNA_MAX_RECORD) {
		if (stateful)
			*s = saved;
		snprintf(err, errlen, "bad %s record: larger than %d bytes", idna_record_type_name(rec->type),
			 IDNA_MAX_RECORD);
		return 0;
	}
	bw_varint(&w, len);
	memmove(w.p, type_end + 3, len);
	return (size_t)(w.p - out) + len;
}

static void get_regs(struct byte_reader *r, uint64_t *image, struct idna_regs *out, bool skip)
{
	if (!regs_decode_delta(r, image)) {
		r->bad = true;
		return;
	}
	if (!skip)
		regs_from_image(image, out);
}

/* Copies a length-prefixed string into text at *used. */
static const char *get_string(struct byte_reader *r, char *text, size_t *used)
{
	uint64_t n = br_varint(r);
	if (n > br_left(r)) {
		r->bad = true;
		return "";
	}
	char *s = text + *used;
	memcpy(s, br_bytes(r, n), n);
	s[n] = 0;
	*used += n + 1;
	return s;
}

/* A MISS record's payload; *why set when it is malformed. */
static void get_miss(struct byte_reader *r, struct idna_record *rec, const char **why)
{
	rec->u.miss.hits_before = br_varint(r);
	rec->u.miss.len = (uint32_t)br_left(r);
	rec->u.miss.value = br_bytes(r, rec->u.miss.len);
	if (rec->u.miss.len < 1 || rec->u.miss.len > IDNA_MAX_READ)
		*why = "miss value must be 1..64 bytes";
}

int record_decode_miss(struct byte_reader *r, struct idna_record *rec)
{
	/* The type and the miss's fields only: clearing the whole record
	 * (88 bytes, a rep stos) took most of this function's time, which is
	 * 4% of a replay of sort -n. hits_before in one or two bytes, nearly
	 * always: decoded as br_varint would, with no loop. */
	struct idna_miss_span common = { r->p, (size_t)(r->end - r->p), NULL };
	if (idna_miss_span_next(&common, rec)) {
		r->p = common.p;
		return 1;
	}
	const uint8_t *p = r->p;
	if (r->end - p < 2 || p[0] != IDNA_REC_MISS || p[1] >= 0x80 || p[1] > r->end - p - 2)
		return 0;
	struct byte_reader payload = {p + 2, p + 2 + p[1], false};
	const char *why = NULL;
	rec->type = IDNA_REC_MISS;
	get_miss(&payload, rec, &why);
	if (why || payload.bad)
		return 0;
	r->p = payload.end;
	return 1;
}

static bool decode_payload(struct record_decoder *d, struct byte_reader *r, struct idna_record *rec,
			   const char **why)
{
	typeof(rec->u) *u = &rec->u;
	struct record_codec_state *s = &d->state;
	size_t text_used = 0;
	switch (rec->type) {
	case IDNA_REC_MISS:
		get_miss(r, rec, why);
		break;
	case IDNA_REC_KEY_FRAME:
		u->key.reason = br_varint32(r);
		u->key.global_seq = s->last_global_seq + (uint64_t)zigzag_decode(br_varint(r));
		u->key.icount = s->last_icount + (uint64_t)zigzag_decode(br_varint(r));
		if (!r->bad) {
			s->last_global_seq = u->key.global_seq;
			s->last_icount = u->key.icount;
		}
		break;
	case IDNA_REC_CHECKPOINT:
		u->checkpoint.global_seq = br_varint(r);
		u->checkpoint.icount = br_varint(r);
		memset(s->regs_base, 0, sizeof(s->regs_base));
		get_regs(r, s->regs_base, &d->regs, d->skip_regs);
		u->checkpoint.regs = &d->regs;
		s->last_global_seq = u->checkpoint.global_seq;
		s->last_icount = u->checkpoint.icount;
		break;
	case IDNA_REC_KERNEL:
		u->kernel.kind = br_varint32(r);
		u->kernel.nr = br_varint(r);
		u->kernel.result = (uint64_t)zigzag_decode(br_varint(r));
		get_regs(r, s->regs_base, &d->regs, d->skip_regs);
		u->kernel.regs = &d->regs;
		break;
	case IDNA_REC_NONDET:
		u->nondet.kind = br_varint32(r);
		u->nondet.n_in = br_varint32(r);
		if (u->nondet.n_in > IDNA_MAX_NONDET_VALUES) {
			*why = "too many non-deterministic inputs";
			return false;
		}
		for (uint32_t i = 0; i < u->nondet.n_in; i++)
			u->nondet.in[i] = br_varint(r);
		u->nondet.n_out = br_varint32(r);
		if (u->nondet.n_out > IDNA_MAX_NONDET_VALUES) {
			*why = "too many non-deterministic outputs";
			return false;
		}
		for (uint32_t i = 0; i < u->nondet.n_out; i++)
			u->nondet.out[i] = br_varint(r);
		break;
	case IDNA_REC_NATIVE:
		u->native.insn_len = br_varint32(r);
		if (u->native.insn_len < 1 || u->native.insn_len > 15) {
			*why = "instruction length out of range";
			return false;
		}
		u->native.insn = br_bytes(r, u->native.insn_len);
		get_regs(r, s->regs_base, &d->regs, d->skip_regs);
		u->native.regs = &d->regs;
		u->native.n_writes = br_varint32(r);
		if (u->native.n_writes > IDNA_MAX_NATIVE_WRITES) {
			*why = "too many memory effects";
			return false;
		}
		for (uint32_t i = 0; i < u->native.n_writes && !r->bad; i++) {
			d->writes[i].addr = br_varint(r);
			d->writes[i].len = br_varint32(r);
			d->writes[i].bytes = br_bytes(r, d->writes[i].len);
		}
		u->native.writes = d->writes;
		break;
	case IDNA_REC_CODE_PAGE:
		u->code_page.addr = br_varint(r);
		u->code_page.len = (uint32_t)br_left(r);
		u->code_page.bytes = br_bytes(r, u->code_page.len);
		if (u->code_page.len == 0)
			*why = "empty code page";
		break;
	case IDNA_REC_THREAD_CREATE: {
		uint64_t image[REGS_IMAGE_WORDS] = {0};
		u->thread_create.tid = br_varint(r);
		u->thread_create.parent_tid = br_varint(r);
		u->thread_create.stream = br_varint32(r);
		get_regs(r, image, &d->regs, d->skip_regs);
		u->thread_create.regs = &d->regs;
		break;
	}
	case IDNA_REC_THREAD_EXIT:
		u->thread_exit.tid = br_varint(r);
		u->thread_exit.status = zigzag_decode(br_varint(r));
		break;
	case IDNA_REC_MODULE_LOAD:
		u->module_load.addr = br_varint(r);
		u->module_load.size = br_varint(r);
		u->module_load.offset = br_varint(r);
		u->module_load.prot = br_varint32(r);
		u->module_load.path = get_string(r, d->text, &text_used);
		u->module_load.build_id_len = br_varint32(r);
		if (u->module_load.build_id_len > 64) {
			*why = "build-id longer than 64 bytes";
			return false;
		}
		u->module_load.build_id = br_bytes(r, u->module_load.build_id_len);
		break;
	case IDNA_REC_MODULE_UNMAP:
		u->module_unmap.addr = br_varint(r);
		u->module_unmap.size = br_varint(r);
		break;
	case IDNA_REC_EXECVE:
		u->execve.address_space = br_varint32(r);
		u->execve.path = get_string(r, d->text, &text_used);
		break;
	case IDNA_REC_SIGNAL:
		u->signal.tid = br_varint(r);
		u->signal.signo = (int32_t)zigzag_decode(br_varint(r));
		u->signal.code = (int32_t)zigzag_decode(br_varint(r));
		u->signal.addr = br_varint(r);
		break;
	case IDNA_REC_PROCESS_EXIT:
		u->process_exit.status = zigzag_decode(br_varint(r));
		break;
	case IDNA_REC_CACHE_STATS:
		u->cache_stats.hits = br_varint(r);
		u->cache_stats.misses = br_varint(r);
		break;
	case IDNA_REC_KERNEL_WRITE:
		u->kernel_write.flags = br_varint32(r);
		u->kernel_write.addr = br_varint(r);
		u->kernel_write.span = 0;
		if (u->kernel_write.flags & IDNA_KWRITE_RANGE) {
			u->kernel_write.span = br_varint(r);
			u->kernel_write.len = 0;
			u->kernel_write.bytes = NULL;
			break;
		}
		u->kernel_write.len = (uint32_t)br_left(r);
		u->kernel_write.bytes = br_bytes(r, u->kernel_write.len);
		if (u->kernel_write.len > IDNA_MAX_KERNEL_WRITE)
			*why = "kernel write too large";
		break;
	default:
		u->unknown.len = (uint32_t)br_left(r);
		u->unknown.payload = br_bytes(r, u->unknown.len);
		break;
	}
	return !*why && !r->bad;
}

uint32_t record_state_writers(uint32_t wanted)
{
	/* KEY_FRAME's times are deltas from the last KEY_FRAME or CHECKPOINT;
	 * KERNEL's and NATIVE's registers from the last CHECKPOINT, KERNEL or
	 * NATIVE. CHECKPOINT itself is absolute, MISS and CODE_PAGE carry no
	 * state. */
	uint32_t writers = 0;
	if (wanted & idna_type_bit(IDNA_REC_KEY_FRAME))
		writers |= idna_type_bit(IDNA_REC_KEY_FRAME) | idna_type_bit(IDNA_REC_CHECKPOINT);
	if (wanted & (idna_type_bit(IDNA_REC_KERNEL) | idna_type_bit(IDNA_REC_NATIVE)))
		writers |= idna_type_bit(IDNA_REC_CHECKPOINT) | idna_type_bit(IDNA_REC_KERNEL) |
			   idna_type_bit(IDNA_REC_NATIVE);
	return writers;
}

bool record_skip(struct byte_reader *r, uint32_t *type, uint32_t *payload_len)
{
	*type = br_varint32(r);
	*payload_len = br_varint32(r);
	if (r->bad || *type == 0 || *payload_len > IDNA_MAX_RECORD || *payload_len > br_left(r))
		return false;
	r->p += *payload_len;
	return true;
}

int record_decode(struct record_decoder *d, struct byte_reader *r, struct idna_record *rec,
		  char *err, size_t errlen)
{
	uint32_t type, len;
	if (!record_skip(r, &type, &len)) {
		snprintf(err, errlen, "malformed record header");
		return -1;
	}
	*rec = (struct idna_record){ .type = type }; /* inline stores, no memset call */
	struct byte_reader payload = {r->p - len, r->p, false};
	const char *why = NULL;
	if (!decode_payload(d, &payload, rec, &why)) {
		snprintf(err, errlen, "malformed %s record: %s", idna_record_type_name(type),
			 why ? why : "truncated payload");
		return -1;
	}
	return 1;
}
