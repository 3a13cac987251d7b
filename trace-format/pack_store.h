/*
 * pack_store.h — the files a trace's program mapped, kept beside the trace
 * by `ttrec pack` so that it replays with its symbols after a rebuild or on
 * another machine: the folder TRACE.pack/ holds one zstd-compressed copy
 * per build-id (BUILD-ID-HEX.zst), whatever the path or how many traces
 * of the folder share it. The writer (ttrec pack) and the reader (ttreplay)
 * both go through this file, and nothing else knows the layout.
 */
#ifndef TTREC_PACK_STORE_H
#define TTREC_PACK_STORE_H

#include <stddef.h>
#include <stdint.h>

/* Largest file packed or unpacked: a bound on what a hostile pack can make
 * the reader allocate. */
#define PACK_STORE_MAX_FILE (1ull << 30)

/* The pack folder of a trace: TRACE.pack, or for a link to a trace the
 * pack of the trace it points to. 0, or -1 if it does not fit. */
int pack_store_dir(const char *trace_path, char *out, size_t size);

/*
 * Stores the file at src (whose build-id the caller has checked) under
 * build_id in dir, creating dir (0700) if needed; a copy already there is
 * kept. 1 stored, 0 already there, -1 with err.
 */
int pack_store_put(const char *dir, const uint8_t *build_id, size_t build_id_len,
		   const char *src, uint64_t *stored_bytes, char *err, size_t errlen);

/*
 * A read-only descriptor of the file stored under build_id, decompressed
 * into memory, whose own build-id is build_id. -1 when the pack has no such
 * file or it is damaged (err says which; err empty: not there).
 */
int pack_store_open(const char *dir, const uint8_t *build_id, size_t build_id_len, char *err,
		    size_t errlen);

#endif
