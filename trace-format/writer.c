/*
 * writer.c — the producer side of the writer: encodes records into one
 * open chunk per stream and hands full chunks, through a bounded queue, to
 * the compression thread (writer_sink.c). The recorder only waits when the
 * queue is full, i.e. when zstd cannot keep up.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace-format/miss_cursor.h"
#include "trace-format/predict_cache.h"
#include "trace-format/record_codec.h"
#include "trace-format/writer_internal.h"

#define MAX_STREAMS (1u << 20)

struct stream_state {
	struct record_codec_state codec;
	struct chunk_buf *open; /* NULL when no chunk is being filled */
	uint64_t chunks_ended;
	uint64_t last_global_seq, last_icount;
	struct idna_miss_cursor misses; /* aimed only into `open` */
};

struct idna_writer {
	uint32_t chunk_bytes;
	uint32_t cache_log2_line;
	struct stream_state **streams;
	uint32_t n_streams; /* size of the streams array */
	uint8_t scratch[RECORD_MAX_ENCODED];
	struct idna_writer_stats stats;

	/* Shared with the compression thread, under lock. */
	pthread_mutex_t lock;
	pthread_cond_t changed;
	struct chunk_buf **queue;
	uint32_t queue_cap, queue_head, queue_len;
	bool busy;     /* the thread holds a chunk it took off the queue */
	bool stopping; /* no more chunks will come */
	struct chunk_buf *free_bufs;
	char error[256]; /* sticky: set once, then every call fails */

	pthread_t thread;
	bool thread_started;
	struct writer_sink *sink;
};

static void set_error(struct idna_writer *w, const char *msg)
{
	if (!w->error[0])
		snprintf(w->error, sizeof(w->error), "%s", msg);
}

static void *compress_thread(void *arg)
{
	struct idna_writer *w = arg;
	char err[256];
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->queue_len && !w->stopping)
			pthread_cond_wait(&w->changed, &w->lock);
		if (!w->queue_len)
			break;
		struct chunk_buf *c = w->queue[w->queue_head];
		w->queue_head = (w->queue_head + 1) % w->queue_cap;
		w->queue_len--;
		w->busy = true;
		bool failed = w->error[0] != 0;
		pthread_mutex_unlock(&w->lock);
		int rc = failed ? 0 : writer_sink_put(w->sink, c, err, sizeof(err));
		pthread_mutex_lock(&w->lock);
		if (rc < 0)
			set_error(w, err);
		else if (!failed)
			w->stats.chunks++;
		w->stats.compressed_bytes = writer_sink_compressed_bytes(w->sink);
		c->next_free = w->free_bufs;
		w->free_bufs = c;
		w->busy = false;
		pthread_cond_broadcast(&w->changed);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

static struct chunk_buf *get_buf(struct idna_writer *w)
{
	pthread_mutex_lock(&w->lock);
	struct chunk_buf *c = w->free_bufs;
	if (c)
		w->free_bufs = c->next_free;
	pthread_mutex_unlock(&w->lock);
	if (!c) {
		c = calloc(1, sizeof(*c));
		if (!c)
			return NULL;
	}
	return c;
}

static void free_buf(struct chunk_buf *c)
{
	free(c->data);
	free(c);
}

/* Counts the records the stream's miss cursor put into the open chunk
 * and takes its room back (miss_cursor.h): the writer's own appends,
 * chunk ends and statistics start here. */
static void cursor_settle(struct idna_writer *w, struct stream_state *s)
{
	struct idna_miss_cursor *m = &s->misses;
	if (!m->at)
		return;
	struct chunk_buf *c = s->open;
	size_t n = (size_t)(m->at - (c->data + c->len));
	c->len += n;
	c->n_records += m->records;
	w->stats.records += m->records;
	w->stats.record_bytes += n;
	*m = (struct idna_miss_cursor){ 0 };
}

/* Lends the cursor the open chunk's room up to where the chunk must end
 * or its buffer does; none after an error (the slow path reports it). */
static void cursor_aim(struct idna_writer *w, struct stream_state *s)
{
	struct chunk_buf *c = s->open;
	size_t end = w->chunk_bytes < c->cap ? w->chunk_bytes : c->cap;
	if (w->error[0] || c->len >= end)
		return;
	s->misses.at = c->data + c->len;
	s->misses.room = end - c->len;
}

/* Queues a stream's open chunk; waits while the queue is full. */
static int end_chunk(struct idna_writer *w, struct stream_state *s)
{
	cursor_settle(w, s);
	struct chunk_buf *c = s->open;
	s->open = NULL;
	s->chunks_ended++;
	pthread_mutex_lock(&w->lock);
	if (w->queue_len == w->queue_cap)
		w->stats.producer_waits++;
	while (w->queue_len == w->queue_cap && !w->error[0])
		pthread_cond_wait(&w->changed, &w->lock);
	if (w->error[0]) {
		c->next_free = w->free_bufs;
		w->free_bufs = c;
		pthread_mutex_unlock(&w->lock);
		return -1;
	}
	w->queue[(w->queue_head + w->queue_len) % w->queue_cap] = c;
	w->queue_len++;
	pthread_cond_broadcast(&w->changed);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

static struct stream_state *get_stream(struct idna_writer *w, uint32_t id)
{
	if (id >= MAX_STREAMS) {
		set_error(w, "stream number too large");
		return NULL;
	}
	if (id >= w->n_streams) {
		uint32_t n = w->n_streams ? w->n_streams : 16;
		while (n <= id)
			n *= 2;
		struct stream_state **t = realloc(w->streams, n * sizeof(*t));
		if (!t) {
			set_error(w, "out of memory");
			return NULL;
		}
		memset(t + w->n_streams, 0, (n - w->n_streams) * sizeof(*t));
		w->streams = t;
		w->n_streams = n;
	}
	if (!w->streams[id]) {
		w->streams[id] = calloc(1, sizeof(struct stream_state));
		if (!w->streams[id])
			set_error(w, "out of memory");
	}
	return w->streams[id];
}

/* Makes sure the stream has an open chunk with room for len more bytes. */
static int reserve(struct idna_writer *w, uint32_t id, struct stream_state *s, size_t len, bool checkpoint)
{
	if (s->open && (s->open->len + len > w->chunk_bytes ||
			(checkpoint && s->open->n_checkpoints == WRITER_CHUNK_CHECKPOINTS)))
		if (end_chunk(w, s) < 0)
			return -1;
	if (!s->open) {
		struct chunk_buf *c = get_buf(w);
		if (!c) {
			set_error(w, "out of memory");
			return -1;
		}
		c->len = 0;
		c->stream = id;
		c->flags = 0;
		c->stream_chunk_no = s->chunks_ended;
		c->first_global_seq = s->last_global_seq;
		c->first_icount = s->last_icount;
		c->n_records = c->n_checkpoints = 0;
		s->open = c;
		record_codec_reset(&s->codec);
	}
	struct chunk_buf *c = s->open;
	if (c->len + len > c->cap) {
		size_t cap = c->cap ? c->cap : 4096;
		while (cap < c->len + len)
			cap *= 2;
		uint8_t *d = realloc(c->data, cap);
		if (!d) {
			set_error(w, "out of memory");
			return -1;
		}
		c->data = d;
		c->cap = cap;
	}
	return 0;
}

int idna_writer_append(struct idna_writer *w, uint32_t stream, const struct idna_record *rec)
{
	if (w->error[0])
		return -1;
	struct stream_state *s = get_stream(w, stream);
	if (!s)
		return -1;
	cursor_settle(w, s);
	char err[128];
	size_t n = record_encode(&s->codec, rec, w->scratch, err, sizeof(err));
	if (n == 0) {
		set_error(w, err);
		return -1;
	}
	bool checkpoint = rec->type == IDNA_REC_CHECKPOINT;
	bool new_chunk = !s->open || s->open->len + n > w->chunk_bytes ||
			 (checkpoint && s->open->n_checkpoints == WRITER_CHUNK_CHECKPOINTS);
	if (reserve(w, stream, s, n, checkpoint) < 0)
		return -1;
	/* A chunk decodes on its own: a record that opens one is encoded
	 * again against the fresh state reserve() gave it. */
	if (new_chunk && (n = record_encode(&s->codec, rec, w->scratch, err, sizeof(err))) == 0) {
		set_error(w, err);
		return -1;
	}
	struct chunk_buf *c = s->open;
	if (checkpoint) {
		c->checkpoints[c->n_checkpoints++] = (struct chunk_checkpoint){
			(uint32_t)c->len, rec->u.checkpoint.global_seq, rec->u.checkpoint.icount};
	}
	memcpy(c->data + c->len, w->scratch, n);
	c->len += n;
	c->n_records++;
	if (rec->type == IDNA_REC_KEY_FRAME || checkpoint) {
		s->last_global_seq = checkpoint ? rec->u.checkpoint.global_seq : rec->u.key.global_seq;
		s->last_icount = checkpoint ? rec->u.checkpoint.icount : rec->u.key.icount;
	}
	w->stats.records++;
	w->stats.record_bytes += n;
	return 0;
}

/*
 * MISS records are nearly all a recording writes, so they are encoded
 * here straight into the stream's open chunk, as record_encode would
 * encode them (miss_cursor.h), when the chunk has room for the longest;
 * else through idna_writer_append, which ends the chunk or grows its
 * buffer. After either, the stream's cursor is lent what room is left,
 * for the caller's next records.
 */

/* The stream, its cursor's records counted, when its open chunk has room
 * for any MISS record; else NULL. */
static struct stream_state *miss_stream(struct idna_writer *w, uint32_t stream)
{
	struct stream_state *s = stream < w->n_streams ? w->streams[stream] : NULL;
	if (!s)
		return NULL;
	cursor_settle(w, s);
	struct chunk_buf *c = s->open;
	if (!c || w->error[0] || c->len + IDNA_MISS_MAX_ENCODED > w->chunk_bytes ||
	    c->len + IDNA_MISS_MAX_ENCODED > c->cap)
		return NULL;
	return s;
}

/* The record, ending at `end`, counted as appended. */
static void miss_appended(struct idna_writer *w, struct chunk_buf *c, const uint8_t *end)
{
	size_t n = (size_t)(end - (c->data + c->len));
	c->len += n;
	c->n_records++;
	w->stats.records++;
	w->stats.record_bytes += n;
}

static int append_miss_record(struct idna_writer *w, uint32_t stream, uint64_t hits_before,
			      const uint8_t *value, uint32_t len)
{
	struct idna_record rec = { .type = IDNA_REC_MISS };
	rec.u.miss.hits_before = hits_before;
	rec.u.miss.value = value;
	rec.u.miss.len = len;
	if (idna_writer_append(w, stream, &rec) != 0)
		return -1;
	cursor_aim(w, w->streams[stream]);
	return 0;
}

int idna_writer_append_miss(struct idna_writer *w, uint32_t stream, uint64_t hits_before,
			    const uint8_t *value, uint32_t len)
{
	struct stream_state *s = len >= 1 && len <= IDNA_MAX_READ ? miss_stream(w, stream) : NULL;
	if (!s)
		return append_miss_record(w, stream, hits_before, value, len);
	struct chunk_buf *c = s->open;
	uint8_t *p = idna_miss_head(c->data + c->len, hits_before, len);
	memcpy(p, value, len);
	miss_appended(w, c, p + len);
	cursor_aim(w, s);
	return 0;
}

int idna_writer_append_miss_uint(struct idna_writer *w, uint32_t stream, uint64_t hits_before,
				 uint64_t value, uint32_t len)
{
	struct stream_state *s = len >= 1 && len <= 8 ? miss_stream(w, stream) : NULL;
	if (s) {
		cursor_aim(w, s);
		if (idna_miss_cursor_put_uint(&s->misses, hits_before, value, len))
			return 0;
	}
	uint8_t bytes[8];
	memcpy(bytes, &value, sizeof(bytes)); /* little-endian host */
	return append_miss_record(w, stream, hits_before, bytes, len <= 8 ? len : 0);
}

struct idna_miss_cursor *idna_writer_miss_cursor(struct idna_writer *w, uint32_t stream)
{
	struct stream_state *s = get_stream(w, stream);
	return s ? &s->misses : NULL;
}

static int wait_idle(struct idna_writer *w)
{
	pthread_mutex_lock(&w->lock);
	while ((w->queue_len || w->busy) && !w->error[0])
		pthread_cond_wait(&w->changed, &w->lock);
	int rc = w->error[0] ? -1 : 0;
	pthread_mutex_unlock(&w->lock);
	return rc;
}

int idna_writer_flush(struct idna_writer *w)
{
	for (uint32_t i = 0; i < w->n_streams && !w->error[0]; i++)
		if (w->streams[i] && w->streams[i]->open && end_chunk(w, w->streams[i]) < 0)
			break;
	return wait_idle(w);
}

int idna_writer_end_stream(struct idna_writer *w, uint32_t stream)
{
	struct stream_state *s = stream < w->n_streams ? w->streams[stream] : NULL;
	if (w->error[0])
		return -1;
	return s && s->open ? end_chunk(w, s) : 0;
}

const char *idna_writer_error(const struct idna_writer *w)
{
	return w->error[0] ? w->error : NULL;
}

void idna_writer_get_stats(struct idna_writer *w, struct idna_writer_stats *out)
{
	for (uint32_t i = 0; i < w->n_streams; i++)
		if (w->streams[i])
			cursor_settle(w, w->streams[i]);
	pthread_mutex_lock(&w->lock);
	*out = w->stats;
	pthread_mutex_unlock(&w->lock);
}

uint32_t idna_writer_cache_log2_line(const struct idna_writer *w)
{
	return w->cache_log2_line;
}

static void destroy(struct idna_writer *w)
{
	if (w->thread_started) {
		pthread_mutex_lock(&w->lock);
		w->stopping = true;
		pthread_cond_broadcast(&w->changed);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
	}
	for (uint32_t i = 0; i < w->n_streams; i++) {
		if (w->streams[i] && w->streams[i]->open)
			free_buf(w->streams[i]->open);
		free(w->streams[i]);
	}
	free(w->streams);
	while (w->free_bufs) {
		struct chunk_buf *c = w->free_bufs;
		w->free_bufs = c->next_free;
		free_buf(c);
	}
	free(w->queue);
	writer_sink_free(w->sink);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->changed);
	free(w);
}

void idna_writer_abandon(struct idna_writer *w)
{
	if (!w)
		return;
	/* Drop what is queued: a killed recorder would never write it. */
	pthread_mutex_lock(&w->lock);
	while (w->queue_len) {
		struct chunk_buf *c = w->queue[w->queue_head];
		w->queue_head = (w->queue_head + 1) % w->queue_cap;
		w->queue_len--;
		c->next_free = w->free_bufs;
		w->free_bufs = c;
	}
	pthread_mutex_unlock(&w->lock);
	destroy(w);
}

int idna_writer_close(struct idna_writer *w, char *err, size_t errlen)
{
	int rc = idna_writer_flush(w);
	char msg[256] = "";
	if (rc == 0)
		rc = writer_sink_finish(w->sink, msg, sizeof(msg));
	else
		snprintf(msg, sizeof(msg), "%s", w->error);
	if (rc < 0)
		snprintf(err, errlen, "%s", msg);
	destroy(w);
	return rc;
}

#define DEFAULT_CHUNK_BYTES (128 * 1024)

uint64_t idna_ring_min_bytes(uint32_t chunk_bytes)
{
	return 4 * ((uint64_t)(chunk_bytes ? chunk_bytes : DEFAULT_CHUNK_BYTES) + CHUNK_HEADER_MAX);
}

/* Starts the compression thread with every signal blocked: the
 * process's handlers then run on the thread that opened the writer, in
 * the order its own calls expect (the recorder counts the SIGCONTs that
 * end its own stop before going on; a handler run late on this thread
 * counted one as coming after). */
static int start_compress_thread(struct idna_writer *w)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int r = pthread_create(&w->thread, NULL, compress_thread, w);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

struct idna_writer *idna_writer_open(const char *path, const struct idna_writer_options *opt,
				     const struct idna_header_info *info, char *err, size_t errlen)
{
	struct idna_writer_options o = opt ? *opt : (struct idna_writer_options){0};
	if (!o.chunk_bytes)
		o.chunk_bytes = DEFAULT_CHUNK_BYTES;
	if (!o.zstd_level)
		o.zstd_level = 1;
	if (!o.queue_chunks)
		o.queue_chunks = 8;
	if (!o.cache_log2_entries)
		o.cache_log2_entries = PREDICT_CACHE_DEFAULT_LOG2;
	if (o.chunk_bytes < RECORD_MAX_ENCODED || o.chunk_bytes > CHUNK_MAX_USIZE) {
		snprintf(err, errlen, "chunk size must be %d..%u bytes", RECORD_MAX_ENCODED, CHUNK_MAX_USIZE);
		return NULL;
	}
	if (o.cache_log2_entries < PREDICT_CACHE_MIN_LOG2 || o.cache_log2_entries > PREDICT_CACHE_MAX_LOG2) {
		snprintf(err, errlen, "prediction cache size out of range");
		return NULL;
	}
	if (!o.cache_log2_line)
		o.cache_log2_line = 3 + o.cache_log2_entries; /* direct-mapped */
	if (!predict_cache_line_log2_known(o.cache_log2_entries, o.cache_log2_line)) {
		snprintf(err, errlen, "prediction cache line must be 8 or %u bytes or the whole cache",
			 8u << PREDICT_CACHE_GROUP_LOG2);
		return NULL;
	}
	static const struct idna_header_info no_info;
	struct idna_header h = {
		.version_major = 1,
		/* 8-byte lines are what format 1.4 hashed, 64-byte blocks
		 * what 1.5 did; they differ from 1.6 in nothing else. */
		.version_minor = o.cache_log2_line == 3 ? 4
				 : o.cache_log2_line == 3 + PREDICT_CACHE_GROUP_LOG2 ? 5
										    : IDNA_VERSION_MINOR,
		.flags = o.ring_bytes ? 1 : 0,
		.arch = 62,
		.cache_log2_entries = o.cache_log2_entries,
		.cache_log2_line = o.cache_log2_line,
		.ring_bytes = o.ring_bytes,
		.max_chunk_bytes = o.chunk_bytes,
		.info = info ? *info : no_info,
	};
	size_t hsize;
	uint8_t *hbuf = file_header_encode(&h, &hsize);
	if (!hbuf) {
		snprintf(err, errlen, "file header too large");
		return NULL;
	}
	if (o.ring_bytes && o.ring_bytes < idna_ring_min_bytes(o.chunk_bytes)) {
		free(hbuf);
		snprintf(err, errlen, "ring must hold at least four chunks (%llu bytes)",
			 (unsigned long long)idna_ring_min_bytes(o.chunk_bytes));
		return NULL;
	}
	int flags = o.create_new ? O_EXCL | O_NOFOLLOW : O_TRUNC;
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0600);
	if (fd < 0) {
		free(hbuf);
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	ssize_t k = write(fd, hbuf, hsize);
	int saved_errno = errno;
	free(hbuf);
	if (k != (ssize_t)hsize) {
		close(fd);
		if (o.create_new)
			unlink(path); /* ours: made just now */
		snprintf(err, errlen, "%s: writing the header: %s", path, k < 0 ? strerror(saved_errno) : "short write");
		return NULL;
	}
	struct idna_writer *w = calloc(1, sizeof(*w));
	if (!w) {
		close(fd);
		if (o.create_new)
			unlink(path);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->changed, NULL);
	w->chunk_bytes = o.chunk_bytes;
	w->cache_log2_line = o.cache_log2_line;
	w->queue_cap = o.queue_chunks;
	w->queue = calloc(w->queue_cap, sizeof(*w->queue));
	w->sink = writer_sink_new(fd, hsize, o.ring_bytes, o.chunk_bytes, o.zstd_level);
	if (!w->sink)
		close(fd);
	if (!w->queue || !w->sink || start_compress_thread(w) != 0) {
		destroy(w);
		if (o.create_new)
			unlink(path);
		snprintf(err, errlen, "cannot start the trace writer (out of memory)");
		return NULL;
	}
	w->thread_started = true;
	return w;
}
