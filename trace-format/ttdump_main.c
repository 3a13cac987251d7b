/*
 * ttdump_main.c — ttdump(1): prints a trace's header, stream and chunk
 * tables, statistics, and (--records) its records, as text or --json.
 * Exit status: 0 the trace is sound; 1 it is damaged or not a trace (one
 * line on stderr); 2 usage.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace-format/idna.h"
#include "trace-format/version.h"

struct options {
	const char *path;
	bool records, json;
	bool one_stream;
	uint32_t stream;
	uint64_t from, to; /* global sequence numbers */
};

struct type_stats {
	uint64_t count, bytes;
	double compressed; /* the chunk's compressed size, shared by bytes */
};

struct stats {
	struct type_stats type[IDNA_REC_TYPE_COUNT + 1]; /* last slot: unknown */
	uint64_t records, uncompressed, compressed;
	uint64_t miss_records, hits_before_sum;
	uint64_t counted_hits, counted_misses; /* from cache-stats records */
	bool have_counters;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: ttdump [--records] [--stream N] [--from SEQ] [--to SEQ] [--json] FILE\n"
		   "       ttdump --version | -h | --help\n");
}

static bool parse_u64(const char *s, uint64_t *out)
{
	char *end;
	if (!*s || *s == '-')
		return false;
	*out = strtoull(s, &end, 0);
	return *end == 0;
}

static int parse_args(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{"records", no_argument, 0, 'r'}, {"json", no_argument, 0, 'j'},
		{"stream", required_argument, 0, 's'}, {"from", required_argument, 0, 'f'},
		{"to", required_argument, 0, 't'}, {"help", no_argument, 0, 'h'},
		{"version", no_argument, 0, 'V'}, {0, 0, 0, 0},
	};
	o->to = UINT64_MAX;
	int c;
	uint64_t v;
	while ((c = getopt_long(argc, argv, "rjs:f:t:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': o->records = true; break;
		case 'j': o->json = true; break;
		case 's':
			if (!parse_u64(optarg, &v) || v > UINT32_MAX)
				return -1;
			o->one_stream = true;
			o->stream = (uint32_t)v;
			break;
		case 'f':
			if (!parse_u64(optarg, &o->from))
				return -1;
			break;
		case 't':
			if (!parse_u64(optarg, &o->to))
				return -1;
			break;
		case 'h': usage(stdout); exit(0);
		case 'V': print_version("ttdump"); exit(0);
		default: return -1;
		}
	}
	if (optind != argc - 1)
		return -1;
	o->path = argv[optind];
	return 0;
}

/* Strings from the trace are untrusted: quote anything not printable. */
static void put_string(const char *s, bool json)
{
	putchar('"');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20 || *p >= 0x7f)
			printf(json ? "\\u%04x" : "\\x%02x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void put_hex(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		printf("%02x", b[i]);
}


/* A field of a record: name=value in text, "name":value in JSON.
 * Addresses are hex in text; JSON has only decimal numbers. */
static void field_u(bool json, const char *name, uint64_t v)
{
	printf(json ? ",\"%s\":%" PRIu64 : " %s=%" PRIu64, name, v);
}

static void field_x(bool json, const char *name, uint64_t v)
{
	printf(json ? ",\"%s\":%" PRIu64 : " %s=%#" PRIx64, name, v);
}

static void field_d(bool json, const char *name, int64_t v)
{
	printf(json ? ",\"%s\":%" PRId64 : " %s=%" PRId64, name, v);
}

static void field_hex(bool json, const char *name, const uint8_t *b, size_t n)
{
	printf(json ? ",\"%s\":\"" : " %s=", name);
	put_hex(b, n);
	if (json)
		putchar('"');
}

static void field_str(bool json, const char *name, const char *v)
{
	printf(json ? ",\"%s\":" : " %s=", name);
	put_string(v, json);
}

static void print_regs(const struct idna_regs *r, bool json)
{
	field_x(json, "rip", r->rip);
	field_x(json, "rsp", r->gpr[4]);
	field_x(json, "rax", r->gpr[0]);
}

/* One record, as a text line or a JSON object (fields: name=value). */
static void print_record(const struct idna_record *rec, uint32_t stream, uint32_t chunk, uint32_t offset,
			 bool json)
{
	const typeof(rec->u) *u = &rec->u;
	if (json)
		printf("{\"stream\":%u,\"chunk\":%u,\"offset\":%u,\"type\":\"%s\",\"type_code\":%u", stream, chunk,
		       offset, idna_record_type_name(rec->type), rec->type);
	else
		printf("%u:%u+%u %s", stream, chunk, offset, idna_record_type_name(rec->type));
	switch (rec->type) {
	case IDNA_REC_MISS:
		field_u(json, "hits_before", u->miss.hits_before);
		field_hex(json, "value", u->miss.value, u->miss.len);
		break;
	case IDNA_REC_KEY_FRAME:
		field_u(json, "seq", u->key.global_seq);
		field_u(json, "icount", u->key.icount);
		field_u(json, "reason", u->key.reason);
		break;
	case IDNA_REC_CHECKPOINT:
		field_u(json, "seq", u->checkpoint.global_seq);
		field_u(json, "icount", u->checkpoint.icount);
		print_regs(u->checkpoint.regs, json);
		break;
	case IDNA_REC_KERNEL:
		field_u(json, "kind", u->kernel.kind);
		field_u(json, "nr", u->kernel.nr);
		field_d(json, "result", (int64_t)u->kernel.result);
		print_regs(u->kernel.regs, json);
		break;
	case IDNA_REC_NONDET:
		field_u(json, "kind", u->nondet.kind);
		for (uint32_t i = 0; i < u->nondet.n_in; i++)
			field_x(json, (const char *[]){"in0", "in1", "in2", "in3"}[i], u->nondet.in[i]);
		for (uint32_t i = 0; i < u->nondet.n_out; i++)
			field_x(json, (const char *[]){"out0", "out1", "out2", "out3"}[i], u->nondet.out[i]);
		break;
	case IDNA_REC_NATIVE:
		field_hex(json, "insn", u->native.insn, u->native.insn_len);
		print_regs(u->native.regs, json);
		field_u(json, "writes", u->native.n_writes);
		break;
	case IDNA_REC_CODE_PAGE:
		field_x(json, "addr", u->code_page.addr);
		field_u(json, "len", u->code_page.len);
		break;
	case IDNA_REC_THREAD_CREATE:
		field_u(json, "tid", u->thread_create.tid);
		field_u(json, "parent", u->thread_create.parent_tid);
		field_u(json, "thread_stream", u->thread_create.stream);
		print_regs(u->thread_create.regs, json);
		break;
	case IDNA_REC_THREAD_EXIT:
		field_u(json, "tid", u->thread_exit.tid);
		field_d(json, "status", u->thread_exit.status);
		break;
	case IDNA_REC_MODULE_LOAD:
		field_x(json, "addr", u->module_load.addr);
		field_x(json, "size", u->module_load.size);
		field_x(json, "file_offset", u->module_load.offset);
		field_u(json, "prot", u->module_load.prot);
		field_str(json, "path", u->module_load.path);
		field_hex(json, "build_id", u->module_load.build_id, u->module_load.build_id_len);
		break;
	case IDNA_REC_MODULE_UNMAP:
		field_x(json, "addr", u->module_unmap.addr);
		field_x(json, "size", u->module_unmap.size);
		break;
	case IDNA_REC_EXECVE:
		field_u(json, "address_space", u->execve.address_space);
		field_str(json, "path", u->execve.path);
		break;
	case IDNA_REC_SIGNAL:
		field_u(json, "tid", u->signal.tid);
		field_d(json, "signo", u->signal.signo);
		field_d(json, "code", u->signal.code);
		field_x(json, "addr", u->signal.addr);
		break;
	case IDNA_REC_PROCESS_EXIT:
		field_d(json, "status", u->process_exit.status);
		break;
	case IDNA_REC_CACHE_STATS:
		field_u(json, "hits", u->cache_stats.hits);
		field_u(json, "misses", u->cache_stats.misses);
		break;
	case IDNA_REC_KERNEL_WRITE:
		field_x(json, "addr", u->kernel_write.addr);
		field_u(json, "len", u->kernel_write.flags & IDNA_KWRITE_RANGE ? u->kernel_write.span
										: u->kernel_write.len);
		field_str(json, "of", u->kernel_write.flags & IDNA_KWRITE_UNKNOWN ? "unknown"
				      : u->kernel_write.flags & IDNA_KWRITE_ZERO ? "zero"
				      : u->kernel_write.flags & IDNA_KWRITE_UNDESCRIBED ? "undescribed"
				      : u->kernel_write.flags & IDNA_KWRITE_SIGNAL_FRAME ? "signal-frame"
				      : u->kernel_write.flags & IDNA_KWRITE_IMAGE ? "image"
				      : "syscall");
		field_hex(json, "bytes", u->kernel_write.bytes,
			  u->kernel_write.len < 64 ? u->kernel_write.len : 64);
		break;
	default:
		field_u(json, "len", u->unknown.len);
		break;
	}
	printf(json ? "}" : "\n");
}

static void count(struct stats *st, const struct idna_record *rec, uint32_t size,
		  const struct idna_chunk_info *chunk)
{
	unsigned t = rec->type < IDNA_REC_TYPE_COUNT ? rec->type : IDNA_REC_TYPE_COUNT;
	st->type[t].count++;
	st->type[t].bytes += size;
	st->type[t].compressed += (double)size * chunk->compressed_size / chunk->uncompressed_size;
	st->records++;
	if (rec->type == IDNA_REC_MISS) {
		st->miss_records++;
		st->hits_before_sum += rec->u.miss.hits_before;
	}
}

/* Walks one stream: statistics always, records when asked. Returns false
 * when the stream is damaged (after reporting it). */
static bool walk_stream(struct idna_reader *r, uint32_t stream, const struct options *o, struct stats *st,
			bool *first_record)
{
	char err[256];
	struct idna_iter *it = idna_iter_open(r, stream, NULL, err, sizeof(err));
	if (!it) {
		fprintf(stderr, "ttdump: %s\n", err);
		return false;
	}
	struct idna_record rec;
	uint64_t seq = 0, hits = 0, misses = 0;
	bool stats_seen = false;
	int rc;
	while ((rc = idna_iter_next(it, &rec)) == 1) {
		uint32_t chunk, offset, size;
		idna_iter_position(it, &chunk, &offset, &size);
		count(st, &rec, size, idna_reader_chunk(r, chunk));
		if (rec.type == IDNA_REC_KEY_FRAME)
			seq = rec.u.key.global_seq;
		else if (rec.type == IDNA_REC_CHECKPOINT)
			seq = rec.u.checkpoint.global_seq;
		else if (rec.type == IDNA_REC_CACHE_STATS) {
			/* Cumulative per stream: the last one counts. */
			hits = rec.u.cache_stats.hits;
			misses = rec.u.cache_stats.misses;
			stats_seen = true;
		}
		if (o->records && seq >= o->from && seq <= o->to) {
			if (o->json)
				printf("%s\n    ", *first_record ? "" : ",");
			*first_record = false;
			print_record(&rec, stream, chunk, offset, o->json);
		}
	}
	if (stats_seen) {
		st->counted_hits += hits;
		st->counted_misses += misses;
		st->have_counters = true;
	}
	bool ok = rc == 0;
	if (!ok)
		fprintf(stderr, "ttdump: stream %u: %s\n", stream, idna_iter_error(it));
	idna_iter_close(it);
	return ok;
}

static void print_header(const struct idna_reader *r, bool json)
{
	const struct idna_header *h = idna_reader_header(r);
	if (json) {
		printf("  \"version\": \"%u.%u\",\n  \"flags\": %" PRIu64 ",\n  \"arch\": %u,\n", h->version_major,
		       h->version_minor, h->flags, h->arch);
		printf("  \"cache_log2_entries\": %u,\n  \"cache_log2_line\": %u,\n"
		       "  \"ring_bytes\": %" PRIu64 ",\n  \"max_chunk_bytes\": %u,\n",
		       h->cache_log2_entries, h->cache_log2_line, h->ring_bytes, h->max_chunk_bytes);
		printf("  \"start_time_ns\": %" PRId64 ",\n  \"pid\": %" PRId64 ",\n  \"cwd\": ",
		       h->info.start_time_ns, h->info.pid);
		put_string(h->info.cwd ? h->info.cwd : "", true);
		printf(",\n  \"argv\": [");
		for (uint32_t i = 0; i < h->info.argc; i++) {
			printf(i ? ", " : "");
			put_string(h->info.argv[i], true);
		}
		printf("],\n  \"cpuid_entries\": %u,\n  \"index_rebuilt\": %s,\n", h->info.n_cpuid,
		       idna_reader_index_rebuilt(r) ? "true" : "false");
		return;
	}
	printf("trace format %u.%u, x86-64, %s mode%s\n", h->version_major, h->version_minor,
	       h->ring_bytes ? "ring" : "append", idna_reader_index_rebuilt(r) ? ", index rebuilt by scanning" : "");
	printf("prediction cache: %u entries of 8 bytes, %s; chunks up to %u bytes\n",
	       1u << h->cache_log2_entries,
	       h->cache_log2_line == 3 + h->cache_log2_entries ? "direct-mapped"
	       : h->cache_log2_line == 3			 ? "each hashed alone"
								 : "hashed by 64-byte blocks",
	       h->max_chunk_bytes);
	printf("command:");
	for (uint32_t i = 0; i < h->info.argc; i++) {
		putchar(' ');
		put_string(h->info.argv[i], false);
	}
	printf("\ncwd: ");
	put_string(h->info.cwd ? h->info.cwd : "", false);
	if (h->info.pid > 0)
		printf("\npid: %" PRId64, h->info.pid);
	printf("\nstart: %" PRId64 " ns since the epoch; %u CPUID entries\n", h->info.start_time_ns, h->info.n_cpuid);
}

static void print_tables(const struct idna_reader *r, bool json)
{
	size_t n = idna_reader_chunk_count(r);
	printf(json ? "  \"chunks\": [" : "\nchunks: %zu\n  seq stream  no      offset   packed  records ckpt flags\n", n);
	for (size_t i = 0; i < n; i++) {
		const struct idna_chunk_info *c = idna_reader_chunk(r, i);
		if (json)
			printf("%s\n    {\"seq\":%" PRIu64 ",\"stream\":%u,\"stream_chunk\":%" PRIu64
			       ",\"offset\":%" PRIu64 ",\"compressed\":%u,\"uncompressed\":%u,\"records\":%u,"
			       "\"checkpoints\":%u,\"baseline\":%s,\"damaged\":%s}",
			       i ? "," : "", c->seq, c->stream, c->stream_chunk_no, c->file_offset, c->compressed_size,
			       c->uncompressed_size, c->n_records, c->n_checkpoints,
			       c->flags & IDNA_CHUNK_BASELINE ? "true" : "false", c->damaged ? "true" : "false");
		else
			printf("%5" PRIu64 " %6u %3" PRIu64 " %11" PRIu64 " %8u %8u %4u%s%s\n", c->seq, c->stream,
			       c->stream_chunk_no, c->file_offset, c->compressed_size, c->n_records, c->n_checkpoints,
			       c->flags & IDNA_CHUNK_BASELINE ? " baseline" : "", c->damaged ? " DAMAGED" : "");
	}
	printf(json ? "\n  ],\n  \"threads\": [" : "threads: %zu\n", idna_reader_thread_count(r));
	for (size_t i = 0; i < idna_reader_thread_count(r); i++) {
		const struct idna_thread_info *t = idna_reader_thread(r, i);
		printf(json ? "%s{\"tid\":%" PRIu64 ",\"stream\":%u,\"exited\":%s}"
			    : "%s  tid %" PRIu64 " stream %u%s\n",
		       json && i ? "," : "", t->tid, t->stream, t->exited ? (json ? "true" : " exited") : (json ? "false" : ""));
	}
	printf(json ? "],\n  \"modules\": [" : "modules: %zu\n", idna_reader_module_count(r));
	for (size_t i = 0; i < idna_reader_module_count(r); i++) {
		const struct idna_module_info *m = idna_reader_module(r, i);
		printf(json ? "%s{\"addr\":%" PRIu64 ",\"size\":%" PRIu64 ",\"path\":" : "%s  %#" PRIx64 " +%#" PRIx64 " ",
		       json && i ? "," : "", m->addr, m->size);
		put_string(m->path, json);
		printf(json ? ",\"unmapped\":%s}" : "%s\n", m->unmapped ? (json ? "true" : " (unmapped)") : (json ? "false" : ""));
	}
	printf(json ? "],\n  \"checkpoints\": %zu,\n" : "checkpoints: %zu\n", idna_reader_checkpoint_count(r));
}

static void print_stats(const struct stats *st, bool json)
{
	uint64_t unc = 0;
	double comp = 0;
	for (unsigned t = 1; t <= IDNA_REC_TYPE_COUNT; t++) {
		unc += st->type[t].bytes;
		comp += st->type[t].compressed;
	}
	uint64_t hits = st->have_counters ? st->counted_hits : st->hits_before_sum;
	uint64_t misses = st->have_counters ? st->counted_misses : st->miss_records;
	double rate = hits + misses ? 100.0 * (double)hits / (double)(hits + misses) : 0;
	if (json) {
		printf("  \"statistics\": {\"records\": %" PRIu64 ", \"uncompressed_bytes\": %" PRIu64
		       ", \"compressed_bytes\": %.0f, \"ratio\": %.3f, \"prediction_hits\": %" PRIu64
		       ", \"prediction_misses\": %" PRIu64 ", \"hit_rate_percent\": %.3f, \"by_type\": {",
		       st->records, unc, comp, comp > 0 ? unc / comp : 0, hits, misses, rate);
		bool first = true;
		for (unsigned t = 1; t <= IDNA_REC_TYPE_COUNT; t++)
			if (st->type[t].count) {
				printf("%s\"%s\": {\"count\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"compressed\": %.0f}",
				       first ? "" : ", ", idna_record_type_name(t), st->type[t].count, st->type[t].bytes,
				       st->type[t].compressed);
				first = false;
			}
		printf("}}\n");
		return;
	}
	printf("\nrecords by type        count        bytes   compressed\n");
	for (unsigned t = 1; t <= IDNA_REC_TYPE_COUNT; t++)
		if (st->type[t].count)
			printf("  %-16s %10" PRIu64 " %12" PRIu64 " %12.0f\n", idna_record_type_name(t), st->type[t].count,
			       st->type[t].bytes, st->type[t].compressed);
	printf("  %-16s %10" PRIu64 " %12" PRIu64 " %12.0f\n", "total", st->records, unc, comp);
	printf("compression ratio: %.2f\n", comp > 0 ? unc / comp : 0);
	printf("prediction: %" PRIu64 " hits, %" PRIu64 " misses, hit rate %.3f%%%s\n", hits, misses, rate,
	       st->have_counters ? "" : " (from miss records; hits after the last miss not counted)");
}

int main(int argc, char **argv)
{
	struct options o = {0};
	if (parse_args(argc, argv, &o) < 0) {
		usage(stderr);
		return 2;
	}
	char err[512];
	struct idna_reader *r = idna_reader_open(o.path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "ttdump: %s\n", err);
		return 1;
	}
	if (o.json)
		printf("{\n");
	print_header(r, o.json);
	print_tables(r, o.json);
	struct stats *st = calloc(1, sizeof(*st));
	bool ok = st != NULL, first = true;
	if (o.records)
		printf(o.json ? "  \"records\": [" : "\nrecords (stream:chunk+offset type fields)\n");
	for (size_t i = 0; ok && i < idna_reader_stream_count(r); i++) {
		uint32_t id = idna_reader_stream_id(r, i);
		if (!o.one_stream || id == o.stream)
			ok &= walk_stream(r, id, &o, st, &first);
	}
	if (o.records && o.json)
		printf("\n  ],\n");
	if (st)
		print_stats(st, o.json);
	if (o.json)
		printf("}\n");
	const char *warning = idna_reader_warning(r);
	if (warning) {
		fprintf(stderr, "ttdump: %s: %s\n", o.path, warning);
		ok = false;
	}
	if (o.one_stream && ok) {
		bool found = false;
		for (size_t i = 0; i < idna_reader_stream_count(r); i++)
			found |= idna_reader_stream_id(r, i) == o.stream;
		if (!found) {
			fprintf(stderr, "ttdump: %s: no stream %u\n", o.path, o.stream);
			ok = false;
		}
	}
	free(st);
	idna_reader_close(r);
	return ok ? 0 : 1;
}
