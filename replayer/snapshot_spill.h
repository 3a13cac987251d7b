/*
 * snapshot_spill.h — first-pass snapshots kept in a file instead of in
 * memory (replay_session_spill.c decides which, and when). The file is
 * the process's own: an unlinked temporary file in the user's cache folder
 * (else the temporary folder), gone when the process ends. Records are
 * read back only by the process that wrote them, in its own layout; they
 * are still checked (sizes, page addresses), a short or changed record
 * making the read fail, never the replay go wrong.
 *
 * A snapshot's memory image is written as the pages it does not share
 * with a base image (another snapshot's, earlier, which holds most of
 * its pages): what goes to the file is what the snapshot pinned in memory.
 */
#ifndef TTREC_SNAPSHOT_SPILL_H
#define TTREC_SNAPSHOT_SPILL_H

#include <stdint.h>

#include "replayer/resim.h"

struct snapshot_spill;

/* Where a snapshot is in the file. */
struct spill_ref {
	uint64_t offset, length;
};

/* A new, empty file in folder (NULL: $TMPDIR, else /tmp). NULL when none
 * can be made. */
struct snapshot_spill *snapshot_spill_open(const char *folder);
void snapshot_spill_close(struct snapshot_spill *f);

/* Writes st; its image as the pages whose identity base's page at the
 * same address does not share (base NULL: every page). The image must be
 * untimed and hold every page base holds. 0, or -1. */
int snapshot_spill_put(struct snapshot_spill *f, const struct resim_state *st,
		       const struct memory_image *base, struct spill_ref *ref);

/* Reads back into out (to free with resim_state_free) what put wrote at
 * ref, with the same base's contents (its image may be a restored copy).
 * 0, or -1 when the record cannot be read or is not whole. */
int snapshot_spill_get(struct snapshot_spill *f, const struct spill_ref *ref,
		       const struct memory_image *base, struct resim_state *out);
/* snapshot_spill_get in two steps: the record at ref read and
 * decompressed (to free), its length in *len, NULL when it cannot be read
 * or is not one whole zstd frame declaring its size (it only reads f: it
 * may run on another thread while f is read or copied from, not written);
 * then decoded into out on base, the record freed. */
uint8_t *snapshot_spill_read(struct snapshot_spill *f, const struct spill_ref *ref, size_t *len);
int snapshot_spill_decode(uint8_t *record, size_t len, const struct memory_image *base,
			  struct resim_state *out);

/* A record read back on `base` gives base's image but top's pages where
 * top_base does not share them (top: the image the record was written
 * from; top_base: the base it was written on, or an image read back as
 * it): what a patch is written against. */
struct spill_under {
	const struct memory_image *base, *top, *top_base;
};

/* Writes what turns the state a record reads back to (on under->base)
 * into st: st's numbers and threads but their prediction caches (the
 * record's stay), and the pages of st's image that differ from that
 * image's (compared by content). The image must hold every page of
 * under->base and under->top. 0, or -1. */
int snapshot_spill_put_patch(struct snapshot_spill *f, const struct resim_state *st,
			     const struct spill_under *under, struct spill_ref *ref);
/* Applies the patch at ref to st (a record's state read back). 0, or -1
 * (st then to free). */
int snapshot_spill_patch(struct snapshot_spill *f, const struct spill_ref *ref,
			 struct resim_state *st);

/* Appends to `to` the record at ref of `from` as it is (no decompressing:
 * a record does not name its file); *out says where. 0, or -1. */
int snapshot_spill_copy(struct snapshot_spill *to, struct snapshot_spill *from,
			const struct spill_ref *ref, struct spill_ref *out);

/* The file's size: what the snapshots in it took. */
uint64_t snapshot_spill_bytes(const struct snapshot_spill *f);

#endif
