/*
 * replay_session_index.c — a session's replay index: which trace it is
 * of, where it lives, loading it instead of the first pass and writing
 * it after one (replay_index.h; the format is man/ttreplay-index.5).
 * Loading reads the figures and the snapshot table only; a snapshot's
 * state is read from its frame when a restore needs it, and the last few
 * read stay decoded within the snapshot budget.
 *
 * Index files are opened without following symbolic links and only when
 * regular (a FIFO would block); they are written under a temporary name
 * (mode 0600, made by mkstemp) and renamed over the old one, so a reader
 * sees a whole index or none. A crash before the data reaches the disk
 * can leave a short file: the next session finds it damaged and rebuilds.
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replayer/replay_index.h"
#include "replayer/segment_summary.h"
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
		    struct replay_index_file **file, char *complaint, size_t size)
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
	enum replay_index_verdict v =
		replay_index_open(fd, (uint64_t)st.st_size, e, c, file, why, sizeof(why));
	close(fd);
	if (v == REPLAY_INDEX_LOADED && c->snapshots[0].icount != s->snapshots[0].icount) {
		replay_index_contents_free(c);
		replay_index_file_close(*file);
		*file = NULL;
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
 * of the pass. The snapshots the opening part took in memory keep their
 * states (with the index's segment summaries, which cover the whole
 * segments): the first one is then always there to go back from. */
static void install(struct replay_session *s, struct replay_index_contents *c,
		    struct replay_index_file *file)
{
	for (size_t i = 0; i < s->n_snapshots; i++) {
		struct replay_snapshot *own = &s->snapshots[i];
		if (i < c->n_snapshots && !own->spilled && own->icount == c->snapshots[i].icount) {
			c->snapshots[i].state = own->state;
			c->snapshots[i].indexed = false;
			memset(&own->state, 0, sizeof(own->state));
		}
		resim_state_free(&own->state);
		segment_summary_free(own);
	}
	free(s->snapshots);
	replay_session_spill_close(s);
	replay_session_index_close(s);
	free(s->summary.threads);
	memory_image_free(s->future);
	s->snapshots = c->snapshots;
	s->n_snapshots = s->cap_snapshots = c->n_snapshots;
	s->snapshot_interval = c->snapshot_interval;
	s->summary = c->summary;
	s->summary_incomplete = c->summary_incomplete;
	s->future = c->future;
	s->index_file = file;
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
		struct replay_index_file *file = NULL;
		char why[sizeof(complaint)];
		int r = try_load(s, path, &e, &c, &file, why, sizeof(why));
		if (r == 1) {
			install(s, &c, file);
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

/*
 * The snapshots an index holds: every one of a history of up to
 * s->index_snapshots (ttreplay --index-snapshots, default
 * REPLAY_INDEX_SNAPSHOTS); past that, ones at least that fraction of the
 * history apart, each skipped one's segment summaries joined into
 * the one kept before it. All 1,230 snapshots of a 5 G-instruction sort
 * took 4.7 times its first pass to write and 15 times its trace's size
 * (BENCHMARKS.md); a session reading the fewer ones goes back at most
 * that spacing, and keeps its own snapshots of where it went
 * (step_history.c).
 */
struct index_choice {
	struct replay_snapshot *kept; /* shallow copies, summaries their own */
	size_t *from;                 /* the session's snapshot each one is */
	size_t n;
};

static void index_choice_free(struct index_choice *c)
{
	for (size_t i = 0; c->kept && i < c->n; i++)
		segment_summary_free(&c->kept[i]);
	free(c->kept);
	free(c->from);
}

static bool choose_snapshots(const struct replay_session *s, struct index_choice *c)
{
	uint64_t spacing = s->summary.instructions / s->index_snapshots;
	c->kept = calloc(s->n_snapshots ? s->n_snapshots : 1, sizeof(*c->kept));
	c->from = calloc(s->n_snapshots ? s->n_snapshots : 1, sizeof(*c->from));
	c->n = 0;
	if (!c->kept || !c->from)
		return false;
	bool ok = true;
	for (size_t k = 0; k < s->n_snapshots && ok; k++) {
		const struct replay_snapshot *snap = &s->snapshots[k];
		if (c->n && s->n_snapshots > s->index_snapshots &&
		    snap->icount - c->kept[c->n - 1].icount < spacing) {
			segment_summary_join(&c->kept[c->n - 1], snap); /* unknown where it cannot */
			continue;
		}
		c->kept[c->n] = *snap;
		c->from[c->n] = k;
		ok = segment_summary_clone(&c->kept[c->n], snap);
		c->n++;
	}
	return ok;
}

/* The chosen snapshots, spilled ones read back one at a time. 0, or -1. */
static int write_snapshots(struct replay_session *s, const struct replay_index_identity *id,
			   FILE *f)
{
	struct index_choice chosen;
	bool failed = !choose_snapshots(s, &chosen);
	struct replay_index_writer *w = failed ? NULL : replay_index_writer_open(f, s->jobs);
	if (!w) {
		index_choice_free(&chosen);
		return -1;
	}
	/* A state read back goes to the writer, which frees it once written. */
	for (size_t i = 0; i < chosen.n && !failed; i++) {
		struct resim_state back;
		const struct resim_state *st = replay_session_snapshot_state(s, chosen.from[i], &back);
		failed = !st || (st == &back ? replay_index_writer_add_owned(w, &back)
					    : replay_index_writer_add(w, st)) != 0;
	}
	struct replay_index_contents c = {
		.snapshots = chosen.kept, .n_snapshots = failed ? 0 : chosen.n,
		.snapshot_interval = s->snapshot_interval, .summary = s->summary,
		.summary_incomplete = s->summary_incomplete, .future = s->future,
	};
	int rc = replay_index_writer_close(w, id, &c) != 0 || failed ? -1 : 0;
	s->index_snapshots_written = c.n_snapshots;
	index_choice_free(&chosen);
	return rc;
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
	int rc = write_snapshots(s, id, f);
	int saved = rc ? (errno ? errno : EIO) : 0;
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

/* --- snapshots read on demand -------------------------------------------- */

/* Decoded snapshots kept at most (besides the budget). */
#define DECODED_MAX (2 * REPLAY_INDEX_WHOLE_EVERY)

static bool state_at_hand(const struct replay_snapshot *snap)
{
	return !snap->indexed || snap->decoded;
}

/* k becomes the most recently used decoded snapshot. */
static void touch(struct replay_session *s, size_t k)
{
	size_t n = s->n_index_decoded, i = 0;
	while (i < n && s->index_decoded[i] != k)
		i++;
	if (i == n)
		n = ++s->n_index_decoded; /* the list has room for every snapshot */
	memmove(&s->index_decoded[i], &s->index_decoded[i + 1], (n - 1 - i) * sizeof(size_t));
	s->index_decoded[n - 1] = k;
}

static void forget(struct replay_session *s, size_t k)
{
	struct replay_snapshot *snap = &s->snapshots[k];
	struct resim_counts counts = snap->state.counts;
	uint64_t time = snap->state.time;
	resim_state_free(&snap->state);
	snap->state.time = time;
	snap->state.counts = counts;
	snap->decoded = false;
}

/* The heap in use as the allocator counts it (0 where it cannot say). */
static uint64_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();
	return (uint64_t)mi.uordblks + (uint64_t)mi.hblkhd;
}

/* Forgets the least recently used decoded snapshots (never keep) while
 * there are too many or the heap is over the budget. */
static void bound_decoded(struct replay_session *s, size_t keep)
{
	while (s->n_index_decoded > 1 &&
	       (s->n_index_decoded > DECODED_MAX || heap_in_use() > s->snapshot_budget)) {
		size_t victim = s->index_decoded[0] == keep ? 1 : 0;
		forget(s, s->index_decoded[victim]);
		memmove(&s->index_decoded[victim], &s->index_decoded[victim + 1],
			(s->n_index_decoded - victim - 1) * sizeof(size_t));
		s->n_index_decoded--;
	}
}

/* The index read is damaged: it goes, unless a newer one took its name. */
static void remove_index(struct replay_session *s)
{
	if (replay_index_file_is(s->index_file, s->index_path))
		unlink(s->index_path);
}

/* Decodes snapshot i from its frame, i-1's state at hand unless i is
 * stored whole. false (reported once) when its frame is bad. */
static bool decode(struct replay_session *s, size_t i)
{
	struct replay_snapshot *snap = &s->snapshots[i];
	char why[160] = "";
	struct resim_state st;
	if (!snap->damaged &&
	    replay_index_read_snapshot(s->index_file, i, i ? &s->snapshots[i - 1].state : NULL, &st,
				       why, sizeof(why)) == 0) {
		forget(s, i);
		snap->state = st;
		snap->decoded = true;
		touch(s, i);
		return true;
	}
	if (!snap->damaged)
		fprintf(stderr,
			"ttreplay: index %s: the snapshot at time %llu is damaged (%s): "
			"replaying from an earlier one; removed, the next session rebuilds it\n",
			s->index_path, (unsigned long long)snap->icount, why);
	snap->damaged = true;
	remove_index(s);
	return false;
}

const struct resim_state *replay_session_indexed_state(struct replay_session *s, size_t k)
{
	if (!s->index_decoded) {
		s->index_decoded = calloc(s->n_snapshots, sizeof(size_t));
		if (!s->index_decoded) {
			snprintf(s->error, sizeof(s->error), "out of memory");
			return NULL;
		}
	}
	for (;;) {
		if (state_at_hand(&s->snapshots[k])) {
			if (s->snapshots[k].decoded)
				touch(s, k);
			bound_decoded(s, k);
			return &s->snapshots[k].state;
		}
		/* Back to a state at hand or one stored whole (snapshot 0 is
		 * both), then forward frame by frame. */
		size_t j = k;
		while (!state_at_hand(&s->snapshots[j]) && !replay_index_snapshot_whole(j))
			j--;
		size_t i = state_at_hand(&s->snapshots[j]) ? j + 1 : j;
		while (i <= k && decode(s, i))
			i++;
		if (i > k)
			continue;
		/* Frame i is bad: the latest snapshot before it will do. */
		if (i == 0) {
			snprintf(s->error, sizeof(s->error), "no snapshot to start from");
			return NULL;
		}
		k = i - 1;
	}
}

int replay_session_check_index(struct replay_session *s, char *why, size_t why_len)
{
	if (!s->index_file)
		return 0;
	struct resim_state held[2];
	int rc = 0;
	for (size_t k = 0; k < s->n_snapshots && rc == 0; k++) {
		rc = replay_index_read_snapshot(s->index_file, k, k ? &held[(k - 1) % 2] : NULL,
						&held[k % 2], why, why_len);
		if (rc != 0)
			snprintf(why + strlen(why), why_len - strlen(why), " at time %llu",
				 (unsigned long long)s->snapshots[k].icount);
		if (k)
			resim_state_free(&held[(k - 1) % 2]);
		if (rc == 0 && k + 1 == s->n_snapshots)
			resim_state_free(&held[k % 2]);
	}
	if (rc != 0)
		remove_index(s);
	return rc;
}

void replay_session_index_close(struct replay_session *s)
{
	replay_index_file_close(s->index_file);
	s->index_file = NULL;
	free(s->index_decoded);
	s->index_decoded = NULL;
	s->n_index_decoded = 0;
}
