/*
 * reader.c — opening a trace: validates the header, loads the chunk table
 * (reader_scan.c), groups chunks into streams, lists checkpoints, and
 * replays the global stream once to list threads and modules.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace-format/reader_internal.h"

static int by_id(const void *a, const void *b)
{
	const struct reader_stream *x = a, *y = b;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Streams in id order, each with its chunks in record order. For the
 * global stream of a ring trace: the newest baseline chunk first, then the
 * global chunks it does not cover. */
static int build_streams(struct idna_reader *r)
{
	r->streams = calloc(r->n_chunks ? r->n_chunks : 1, sizeof(*r->streams));
	if (!r->streams)
		return -1;
	const struct reader_chunk *baseline = NULL;
	for (size_t i = 0; i < r->n_chunks; i++)
		if (r->chunks[i].info.stream == 0 && (r->chunks[i].info.flags & IDNA_CHUNK_BASELINE))
			baseline = &r->chunks[i];
	for (size_t i = 0; i < r->n_chunks; i++) {
		const struct idna_chunk_info *c = &r->chunks[i].info;
		if ((c->flags & IDNA_CHUNK_BASELINE) && &r->chunks[i] != baseline)
			continue;
		if (baseline && c->stream == 0 && !(c->flags & IDNA_CHUNK_BASELINE) &&
		    c->stream_chunk_no < baseline->info.stream_chunk_no)
			continue;
		struct reader_stream *s = NULL;
		for (size_t k = 0; k < r->n_streams && !s; k++)
			if (r->streams[k].id == c->stream)
				s = &r->streams[k];
		if (!s) {
			s = &r->streams[r->n_streams++];
			s->id = c->stream;
			s->chunks = malloc(r->n_chunks * sizeof(uint32_t));
			if (!s->chunks)
				return -1;
		}
		if (&r->chunks[i] == baseline && s->n_chunks) {
			/* The baseline describes the time before every chunk kept. */
			memmove(s->chunks + 1, s->chunks, s->n_chunks * sizeof(uint32_t));
			s->chunks[0] = (uint32_t)i;
		} else {
			s->chunks[s->n_chunks] = (uint32_t)i;
		}
		s->n_chunks++;
	}
	if (r->n_streams)
		qsort(r->streams, r->n_streams, sizeof(*r->streams), by_id);
	return 0;
}

static int build_checkpoints(struct idna_reader *r)
{
	size_t n = 0;
	for (size_t i = 0; i < r->n_chunks; i++)
		if (!r->chunks[i].info.damaged)
			n += r->chunks[i].info.n_checkpoints;
	r->checkpoints = calloc(n ? n : 1, sizeof(*r->checkpoints));
	if (!r->checkpoints)
		return -1;
	for (size_t s = 0; s < r->n_streams; s++)
		for (size_t k = 0; k < r->streams[s].n_chunks; k++) {
			uint32_t ci = r->streams[s].chunks[k];
			const struct reader_chunk *c = &r->chunks[ci];
			if (c->info.damaged)
				continue;
			for (uint32_t j = 0; j < c->info.n_checkpoints; j++)
				r->checkpoints[r->n_checkpoints++] = (struct idna_checkpoint){
					c->info.stream, ci, c->checkpoints[j].offset, c->checkpoints[j].global_seq,
					c->checkpoints[j].icount};
		}
	return 0;
}

static void *grow(void *items, size_t n, size_t size)
{
	/* Doubling at powers of two: called before adding item n. */
	if (n && (n & (n - 1)))
		return items;
	return realloc(items, (n ? 2 * n : 8) * size);
}

static int apply_global(struct idna_reader *r, const struct idna_record *rec)
{
	switch (rec->type) {
	case IDNA_REC_THREAD_CREATE: {
		struct idna_thread_info *t = grow(r->threads, r->n_threads, sizeof(*t));
		if (!t)
			return -1;
		r->threads = t;
		t[r->n_threads++] = (struct idna_thread_info){rec->u.thread_create.tid, rec->u.thread_create.parent_tid,
							      rec->u.thread_create.stream, false, 0};
		break;
	}
	case IDNA_REC_THREAD_EXIT: {
		bool created = false;
		for (size_t i = 0; i < r->n_threads; i++)
			if (r->threads[i].tid == rec->u.thread_exit.tid) {
				created = true;
				if (!r->threads[i].exited) {
					r->threads[i].exited = true;
					r->threads[i].exit_status = rec->u.thread_exit.status;
				}
			}
		/* The initial thread has no thread-create: an exit that
		 * names no created thread is its (man/idna.5, THREADS). */
		if (!created && !r->initial_exited) {
			r->initial_exited = true;
			r->initial_exit_status = rec->u.thread_exit.status;
		}
		break;
	}
	case IDNA_REC_MODULE_LOAD: {
		struct idna_module_info *m = grow(r->modules, r->n_modules, sizeof(*m));
		if (!m)
			return -1;
		r->modules = m;
		m += r->n_modules;
		memset(m, 0, sizeof(*m));
		m->addr = rec->u.module_load.addr;
		m->size = rec->u.module_load.size;
		m->offset = rec->u.module_load.offset;
		m->prot = rec->u.module_load.prot;
		m->path = strdup(rec->u.module_load.path);
		if (!m->path)
			return -1;
		m->build_id_len = rec->u.module_load.build_id_len;
		memcpy(m->build_id, rec->u.module_load.build_id, m->build_id_len);
		r->n_modules++;
		break;
	}
	case IDNA_REC_MODULE_UNMAP:
	case IDNA_REC_EXECVE: {
		uint64_t lo = rec->type == IDNA_REC_EXECVE ? 0 : rec->u.module_unmap.addr;
		uint64_t hi = rec->type == IDNA_REC_EXECVE ? UINT64_MAX : lo + rec->u.module_unmap.size;
		for (size_t i = 0; i < r->n_modules; i++)
			if (r->modules[i].addr >= lo && r->modules[i].addr < hi)
				r->modules[i].unmapped = true;
		break;
	}
	}
	return 0;
}

/* Problems in the global stream are warnings: what precedes is served. */
static int read_global_stream(struct idna_reader *r)
{
	if (!r->n_streams || r->streams[0].id != 0)
		return 0;
	char err[256];
	struct idna_iter *it = idna_iter_open(r, 0, NULL, err, sizeof(err));
	if (!it)
		return -1;
	struct idna_record rec;
	int rc;
	while ((rc = idna_iter_next(it, &rec)) == 1)
		if (apply_global(r, &rec) < 0) {
			idna_iter_close(it);
			return -1;
		}
	if (rc < 0)
		reader_warn(r, "global stream: %s", idna_iter_error(it));
	idna_iter_close(it);
	return 0;
}

void idna_reader_close(struct idna_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	file_header_free(&r->header);
	for (size_t i = 0; i < r->n_chunks; i++)
		free(r->chunks[i].checkpoints);
	free(r->chunks);
	for (size_t i = 0; i < r->n_streams; i++)
		free(r->streams[i].chunks);
	free(r->streams);
	free(r->checkpoints);
	free(r->threads);
	for (size_t i = 0; i < r->n_modules; i++)
		free(r->modules[i].path);
	free(r->modules);
	for (size_t i = 0; i < READER_RECENT_CHUNKS; i++)
		free(r->recent[i].bytes);
	pthread_mutex_destroy(&r->recent_lock);
	free(r);
}

struct idna_reader *idna_reader_open(const char *path, char *err, size_t errlen)
{
	struct idna_reader *r = calloc(1, sizeof(*r));
	if (!r) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&r->recent_lock, NULL);
	r->fd = idna_open_regular(path, err, errlen);
	struct stat st;
	if (r->fd < 0 || fstat(r->fd, &st) < 0) {
		if (r->fd >= 0)
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		idna_reader_close(r);
		return NULL;
	}
	r->file_size = (uint64_t)st.st_size;
	size_t len = r->file_size < FILE_HEADER_MAX ? (size_t)r->file_size : FILE_HEADER_MAX;
	uint8_t *buf = malloc(len ? len : 1);
	char why[200];
	size_t hsize = 0;
	if (buf && reader_pread(r, buf, len, 0))
		hsize = file_header_decode(buf, len, r->file_size, &r->header, why, sizeof(why));
	else
		snprintf(why, sizeof(why), buf ? "cannot read the file" : "out of memory");
	free(buf);
	if (!hsize) {
		snprintf(err, errlen, "%s: %s", path, why);
		idna_reader_close(r);
		return NULL;
	}
	r->data_start = hsize;
	if (reader_load_chunks(r, why, sizeof(why)) < 0 || build_streams(r) < 0 || build_checkpoints(r) < 0 ||
	    read_global_stream(r) < 0) {
		snprintf(err, errlen, "%s: %s", path, why[0] ? why : "out of memory");
		idna_reader_close(r);
		return NULL;
	}
	return r;
}

const struct idna_header *idna_reader_header(const struct idna_reader *r) { return &r->header; }
bool idna_reader_index_rebuilt(const struct idna_reader *r) { return r->index_rebuilt; }
bool idna_reader_switch_unlogs_code(const struct idna_reader *r)
{
	return (r->header.flags & IDNA_FLAG_RING) && r->header.version_minor >= 3;
}
const char *idna_reader_warning(const struct idna_reader *r) { return r->warning[0] ? r->warning : NULL; }
size_t idna_reader_chunk_count(const struct idna_reader *r) { return r->n_chunks; }
size_t idna_reader_stream_count(const struct idna_reader *r) { return r->n_streams; }
uint32_t idna_reader_chunk_crc(const struct idna_reader *r, size_t i) { return r->chunks[i].payload_crc; }
uint32_t idna_reader_stream_id(const struct idna_reader *r, size_t i) { return r->streams[i].id; }
size_t idna_reader_checkpoint_count(const struct idna_reader *r) { return r->n_checkpoints; }
size_t idna_reader_thread_count(const struct idna_reader *r) { return r->n_threads; }
size_t idna_reader_module_count(const struct idna_reader *r) { return r->n_modules; }

const struct idna_chunk_info *idna_reader_chunk(const struct idna_reader *r, size_t i)
{
	return i < r->n_chunks ? &r->chunks[i].info : NULL;
}

const struct idna_checkpoint *idna_reader_checkpoint(const struct idna_reader *r, size_t i)
{
	return i < r->n_checkpoints ? &r->checkpoints[i] : NULL;
}

const struct idna_thread_info *idna_reader_thread(const struct idna_reader *r, size_t i)
{
	return i < r->n_threads ? &r->threads[i] : NULL;
}

bool idna_reader_initial_thread_exit(const struct idna_reader *r, int64_t *status)
{
	if (r->initial_exited)
		*status = r->initial_exit_status;
	return r->initial_exited;
}

const struct idna_module_info *idna_reader_module(const struct idna_reader *r, size_t i)
{
	return i < r->n_modules ? &r->modules[i] : NULL;
}

const struct idna_checkpoint *idna_reader_find_checkpoint(const struct idna_reader *r, uint32_t stream,
							  uint64_t icount)
{
	const struct idna_checkpoint *best = NULL;
	for (size_t i = 0; i < r->n_checkpoints; i++) {
		const struct idna_checkpoint *c = &r->checkpoints[i];
		if (c->stream == stream && c->icount <= icount && (!best || c->icount >= best->icount))
			best = c;
	}
	return best;
}
