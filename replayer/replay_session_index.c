/*
 * replay_session_index.c — a session's replay index: which trace it is
 * of, where it lives, loading it instead of the first pass and writing
 * it after one (replay_index.h; the format is man/ttreplay-index.5).
 *
 * Index files are opened without following symbolic links and only when
 * regular (a FIFO would block); they are written under a temporary name
 * (mode 0600, made by mkstemp) and renamed over the old one, so a reader
 * sees a whole index or none. A crash before the data reaches the disk
 * can leave a short file: the next session finds it damaged and rebuilds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replayer/replay_index.h"
#include "trace-format/crc32c.h"

static uint32_t crc_u64(uint32_t crc, uint64_t v)
{
	uint8_t b[8];
	for (unsigned i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
	return crc32c(crc, b, 8);
}

/*
 * Cheap and safe enough: what the identity reads is what opening the
 * trace read already (its header and chunk table). Every chunk's header
 * holds its payload's CRC-32C, which the reader checks before using a
 * record, so a trace that changed anywhere has another chunk table. The
 * trace's time stamps are left out on purpose: a copied trace keeps its
 * index valid. A trace made on purpose to collide can at worst make the
 * replay disagree with itself (which it reports), never read out of
 * bounds: the index is checked as hostile input either way.
 */
void replay_index_identify(const struct idna_reader *r, uint64_t trace_size,
			   struct replay_index_identity *id)
{
	const struct idna_header *h = idna_reader_header(r);
	uint32_t crc = crc_u64(0, h->version_major);
	crc = crc_u64(crc, h->cache_log2_entries);
	crc = crc_u64(crc, h->cache_log2_line);
	crc = crc_u64(crc, h->ring_bytes);
	size_t n = idna_reader_chunk_count(r);
	for (size_t i = 0; i < n; i++) {
		const struct idna_chunk_info *c = idna_reader_chunk(r, i);
		const uint64_t v[] = { c->file_offset, c->seq, c->stream, c->flags, c->first_icount,
				       c->compressed_size, c->uncompressed_size,
				       idna_reader_chunk_crc(r, i) };
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			crc = crc_u64(crc, v[k]);
	}
	id->trace_size = trace_size;
	id->chunks = n;
	id->digest = crc;
}

static bool identify(struct replay_session *s, struct replay_index_identity *id)
{
	struct stat st;
	if (stat(s->path, &st) != 0)
		return false;
	replay_index_identify(s->reader, (uint64_t)st.st_size, id);
	return true;
}

/* The per-user cache folder ($XDG_CACHE_HOME/ttreplay or
 * ~/.cache/ttreplay), made (0700) when `make`. */
static bool cache_folder(char *out, size_t size, bool make)
{
	const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
	int n;
	if (xdg && xdg[0] == '/')
		n = snprintf(out, size, "%s", xdg);
	else if (home && home[0] == '/')
		n = snprintf(out, size, "%s/.cache", home);
	else
		return false;
	if (n < 0 || (size_t)n + sizeof("/ttreplay") > size)
		return false;
	if (make && mkdir(out, 0700) != 0 && errno != EEXIST)
		return false;
	strcat(out, "/ttreplay");
	return !make || mkdir(out, 0700) == 0 || errno == EEXIST;
}

/* Where the index is looked for, in order: beside the trace, then in the
 * cache folder (named by the identity). false when there is no such place. */
static bool index_place(const struct replay_session *s, const struct replay_index_identity *id,
			bool in_cache, bool make, char *out, size_t size)
{
	if (!in_cache)
		return (size_t)snprintf(out, size, "%s.idx", s->path) < size;
	char folder[4096];
	if (!cache_folder(folder, sizeof(folder), make))
		return false;
	return (size_t)snprintf(out, size, "%s/%08x-%llx-%llx.idx", folder, id->digest,
				(unsigned long long)id->trace_size,
				(unsigned long long)id->chunks) < size;
}

/* The index at path into c: 1 loaded, 0 none there, -1 a bad one
 * (complaint says why, in the one line reported). */
static int try_load(struct replay_session *s, const char *path,
		    const struct replay_index_expect *e, struct replay_index_contents *c,
		    char *complaint, size_t size)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		snprintf(complaint, size, "index %s %s", path,
			 errno == ELOOP ? "is a symbolic link" : strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		snprintf(complaint, size, "index %s is not a regular file", path);
		close(fd);
		return -1;
	}
	char why[160];
	enum replay_index_verdict v = replay_index_read(fd, (uint64_t)st.st_size, e, c, why, sizeof(why));
	close(fd);
	if (v == REPLAY_INDEX_LOADED && c->snapshots[0].icount != s->snapshots[0].icount) {
		replay_index_contents_free(c);
		snprintf(why, sizeof(why), "its history starts at another time");
		v = REPLAY_INDEX_DAMAGED;
	}
	if (v == REPLAY_INDEX_OTHER_TRACE)
		snprintf(complaint, size, "index %s does not match the trace", path);
	else if (v == REPLAY_INDEX_DAMAGED)
		snprintf(complaint, size, "index %s is damaged (%s)", path, why);
	return v == REPLAY_INDEX_LOADED ? 1 : -1;
}

/* The session takes what the index holds in place of the opening part
 * of the pass. */
static void install(struct replay_session *s, struct replay_index_contents *c)
{
	for (size_t i = 0; i < s->n_snapshots; i++) {
		resim_state_free(&s->snapshots[i].state);
		code_page_set_free(s->snapshots[i].written_pages);
		code_page_set_free(s->snapshots[i].code_pages);
		code_page_set_free(s->snapshots[i].read_pages);
	}
	free(s->snapshots);
	replay_session_spill_close(s);
	free(s->summary.threads);
	memory_image_free(s->future);
	s->snapshots = c->snapshots;
	s->n_snapshots = s->cap_snapshots = c->n_snapshots;
	s->snapshot_interval = c->snapshot_interval;
	s->summary = c->summary;
	s->summary_incomplete = c->summary_incomplete;
	s->future = c->future;
	memset(c, 0, sizeof(*c));
}

bool replay_session_load_index(struct replay_session *s)
{
	struct replay_index_expect e = {
		.n_threads = s->sim.n_threads,
		.cache_bytes = (size_t)PREDICT_CACHE_LINE << s->cache_log2,
	};
	if (!identify(s, &e.id))
		return false;
	char complaint[4400] = "";
	for (int in_cache = 0; in_cache < 2; in_cache++) {
		char path[sizeof(s->index_path)];
		if (!index_place(s, &e.id, in_cache, false, path, sizeof(path)))
			continue;
		struct replay_index_contents c;
		char why[sizeof(complaint)];
		int r = try_load(s, path, &e, &c, why, sizeof(why));
		if (r == 1) {
			install(s, &c);
			snprintf(s->index_path, sizeof(s->index_path), "%s", path);
			s->index_state = REPLAY_INDEX_READ;
			return true;
		}
		if (r < 0 && !complaint[0])
			memcpy(complaint, why, sizeof(complaint));
	}
	if (complaint[0])
		fprintf(stderr, "ttreplay: %s: rebuilding\n", complaint);
	return false;
}

/* Writes the index to path through a temporary file beside it. 0, or -1
 * with errno. */
static int write_at(struct replay_session *s, const struct replay_index_identity *id,
		    const char *path)
{
	char tmp[sizeof(s->index_path) + 8];
	if ((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >= sizeof(tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	int fd = mkstemp(tmp);
	if (fd < 0)
		return -1;
	FILE *f = fdopen(fd, "w+");
	if (!f) {
		close(fd);
		unlink(tmp);
		return -1;
	}
	/* Spilled snapshots are not in the index: a session reading it
	 * holds what it holds in memory. */
	size_t n = 0;
	struct replay_snapshot *kept = replay_session_index_view(s, &n);
	struct replay_index_contents c = {
		.snapshots = kept, .n_snapshots = n,
		.snapshot_interval = s->snapshot_interval, .summary = s->summary,
		.summary_incomplete = s->summary_incomplete, .future = s->future,
	};
	int rc = kept ? replay_index_write(f, id, &c) : -1;
	int saved = kept ? errno : ENOMEM;
	replay_session_index_view_free(kept, n);
	if (fclose(f) != 0 && rc == 0) {
		rc = -1;
		saved = errno;
	}
	if (rc == 0 && rename(tmp, path) != 0) {
		rc = -1;
		saved = errno;
	}
	if (rc != 0) {
		unlink(tmp);
		errno = saved ? saved : EIO;
	}
	return rc;
}

void replay_session_save_index(struct replay_session *s)
{
	struct replay_index_identity id;
	s->index_state = REPLAY_INDEX_UNWRITTEN;
	if (!identify(s, &id)) {
		snprintf(s->index_error, sizeof(s->index_error), "%s: %s", s->path, strerror(errno));
		return;
	}
	for (int in_cache = 0; in_cache < 2; in_cache++) {
		char path[sizeof(s->index_path)];
		if (!index_place(s, &id, in_cache, true, path, sizeof(path)))
			continue;
		if (write_at(s, &id, path) == 0) {
			snprintf(s->index_path, sizeof(s->index_path), "%s", path);
			s->index_state = REPLAY_INDEX_WRITTEN;
			return;
		}
		snprintf(s->index_error, sizeof(s->index_error), "cannot write %s: %s", path,
			 strerror(errno));
	}
}
