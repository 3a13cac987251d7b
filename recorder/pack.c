/*
 * pack.c — ttrec pack: every file of the trace's module list with a
 * build-id, copied (once per build-id) into the trace's pack folder if this
 * machine's file at that path is still the recorded one. A file that
 * changed since the recording cannot be packed any more: said, not hidden.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "recorder/pack.h"
#include "trace-format/idna.h"
#include "trace-format/pack_store.h"

/* Whether module i's build-id was already seen at an earlier index. */
static bool seen_before(struct idna_reader *r, size_t i)
{
	const struct idna_module_info *m = idna_reader_module(r, i);
	for (size_t j = 0; j < i; j++) {
		const struct idna_module_info *o = idna_reader_module(r, j);
		if (o->build_id_len == m->build_id_len &&
		    memcmp(o->build_id, m->build_id, m->build_id_len) == 0)
			return true;
	}
	return false;
}

int pack_trace(const char *path, bool quiet)
{
	char err[512], dir[4096];
	struct idna_reader *r = idna_reader_open(path, err, sizeof(err));
	if (!r) {
		fprintf(stderr, "ttrec pack: %s\n", err);
		return PACK_EXIT_BAD_TRACE;
	}
	if (pack_store_dir(path, dir, sizeof(dir)) != 0) {
		fprintf(stderr, "ttrec pack: %s: name too long\n", path);
		idna_reader_close(r);
		return PACK_EXIT_WRITE;
	}
	size_t packed = 0, present = 0, failed = 0, no_id = 0;
	uint64_t original = 0, stored = 0;
	int rc = 0;
	for (size_t i = 0; i < idna_reader_module_count(r); i++) {
		const struct idna_module_info *m = idna_reader_module(r, i);
		if (!m->path || m->path[0] != '/')
			continue; /* [vdso] and the like: no file */
		if (m->build_id_len == 0) {
			no_id++;
			continue;
		}
		if (seen_before(r, i))
			continue;
		uint8_t id[64];
		int n = idna_read_build_id(m->path, id, sizeof(id), err, sizeof(err));
		if (n < 0 || (uint32_t)n != m->build_id_len || memcmp(id, m->build_id, (size_t)n) != 0) {
			fprintf(stderr, "ttrec pack: %s: %s, not packed\n", m->path,
				n < 0 ? err : "not the file recorded (its build-id changed)");
			failed++;
			continue;
		}
		uint64_t bytes = 0;
		int put = pack_store_put(dir, m->build_id, m->build_id_len, m->path, &bytes, err,
					 sizeof(err));
		if (put < 0) {
			fprintf(stderr, "ttrec pack: %s\n", err);
			rc = PACK_EXIT_WRITE;
			failed++;
			continue;
		}
		struct stat st;
		if (put == 1) {
			packed++;
			stored += bytes;
			if (stat(m->path, &st) == 0)
				original += (uint64_t)st.st_size;
		} else {
			present++;
		}
	}
	idna_reader_close(r);
	if (!quiet)
		fprintf(stderr,
			"ttrec pack: %zu files packed into %s (%.1f MB, %.1f MB compressed), "
			"%zu there already, %zu not packed, %zu without a build-id left out\n",
			packed, dir, original / 1e6, stored / 1e6, present, failed, no_id);
	return rc;
}
