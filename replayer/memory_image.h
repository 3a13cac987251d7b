/*
 * memory_image.h — what the replay knows of the program's memory at the
 * current time: every byte read or written so far, with a bit saying
 * whether it is known. Snapshots share unchanged pages (copy on write), so
 * one per checkpoint is cheap.
 */
#ifndef TTREC_MEMORY_IMAGE_H
#define TTREC_MEMORY_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct memory_image;

struct memory_image *memory_image_new(void);
void memory_image_free(struct memory_image *m);

/* A copy sharing every page with m until either side writes it. NULL when
 * memory is short. */
struct memory_image *memory_image_snapshot(const struct memory_image *m);

/* Records that [addr, addr+len) holds bytes. false when memory is short. */
bool memory_image_store(struct memory_image *m, uint64_t addr, const void *bytes, size_t len);

/*
 * The replay's integer accesses: n (1..8) bytes at addr within one aligned
 * 8-byte word, value holding them little-endian (bits above ignored).
 * memory_image_store_word is memory_image_store; memory_image_read_word is
 * what a replayed read does: with `future` (the first pass),
 * memory_image_store_first_reads into it, then memory_image_store.
 */
bool memory_image_store_word(struct memory_image *m, uint64_t addr, unsigned n, uint64_t value);
void memory_image_read_word(struct memory_image *m, struct memory_image *future, uint64_t addr,
			    unsigned n, uint64_t value, uint64_t valid_from);

/* Copies the known prefix of [addr, addr+len) into buf; returns how many
 * leading bytes are known. */
size_t memory_image_load(const struct memory_image *m, uint64_t addr, void *buf, size_t len);

/*
 * What the future tells about the past: a byte's first access in the whole
 * history, when it is a read, shows the value the byte held since the last
 * kernel transition before it. The first pass collects those values in a
 * second image (`future`), each 8-byte word tagged with the earliest time
 * from which all its values hold.
 *
 * Stores into `future` the bytes of [addr, addr+len) that `past` does not
 * know yet, valid from time valid_from. An image that receives first
 * reads receives nothing else (its pages carry the times).
 */
void memory_image_store_first_reads(const struct memory_image *past, struct memory_image *future,
				    uint64_t addr, const void *bytes, size_t len,
				    uint64_t valid_from);

/* Like memory_image_load, from a `future` image at time now. */
size_t memory_image_load_at(const struct memory_image *future, uint64_t addr, void *buf,
			    size_t len, uint64_t now);

/* Forgets the bytes of [addr, addr+len) (memory changed in a way the trace
 * does not describe byte by byte). */
void memory_image_forget(struct memory_image *m, uint64_t addr, uint64_t len);

/* Makes the bytes of [addr, addr+len) zero, in the pages the image holds
 * (zeroed memory the trace describes as a range: a whole new mapping is
 * not worth pages of zeros; its other bytes stay as they were). */
void memory_image_zero_held(struct memory_image *m, uint64_t addr, uint64_t len);

/*
 * A range the kernel changed without the trace holding its bytes, in a
 * future image (the first pass, at the change's time, its syscall's): the
 * first reads before it no longer hold, and its bytes are unknown at
 * every time until the program's next read of them makes them first
 * reads again; for the 8-byte words it touches, memory_image_blocked then
 * says so, and no other source (a module file) may stand in. A range of
 * more than 64 pages is so in the pages the image holds; the rest of it
 * costs no page but is kept as a range (wide_changes.h), unknown at
 * `now` unless the last such range before now covering the byte mapped
 * a file there (file): then the module file's bytes stand.
 */
struct wide_change;
struct wide_changes;
void memory_image_block_future(struct memory_image *future, uint64_t addr, uint64_t len,
			       uint64_t time, bool file);
bool memory_image_blocked(const struct memory_image *future, uint64_t addr, uint64_t now);
/* The wide ranges (the replay index keeps them), and one added back. */
const struct wide_changes *memory_image_wide_changes(const struct memory_image *future);
void memory_image_add_wide_change(struct memory_image *future, const struct wide_change *c);

/* How many leading bytes of [addr, addr+len) are known (known true) or
 * unknown (known false). */
size_t memory_image_run(const struct memory_image *m, uint64_t addr, size_t len, bool known);

/*
 * The image that knows top's known bytes and, where top does not know a
 * byte, base's: what a replay that started with an empty image (top)
 * would know had it started with base. Its pages are both images' pages:
 * base's where top has none or adds nothing, top's where base has none,
 * else a merged copy. With prev, the previous overlay's inputs and result
 * (NULL: none): a page whose top and base pages are still the ones prev's
 * had is prev's result's page (consecutive snapshots share it). NULL when
 * memory is short.
 */
struct memory_image_overlay_prev {
	const struct memory_image *top, *base, *result;
};
struct memory_image *memory_image_overlay(const struct memory_image *base,
					  const struct memory_image *top,
					  const struct memory_image_overlay_prev *prev);

/* --- page by page, for the replay index ---------------------------------- */

#define MEMORY_IMAGE_PAGE 4096u

/* A page as stored: which bytes are known (bit i of known[i / 64]), the
 * bytes, and for a timed (future) image the time from which each 8-byte
 * word holds (NULL otherwise). */
struct memory_image_page_view {
	uint64_t page_addr;
	const void *identity; /* equal for images that share the page (snapshots) */
	const uint64_t *known; /* MEMORY_IMAGE_PAGE / 64 words */
	const uint8_t *data;   /* MEMORY_IMAGE_PAGE bytes */
	const uint64_t *valid_from; /* MEMORY_IMAGE_PAGE / 8 words, or NULL */
};

bool memory_image_is_timed(const struct memory_image *m);
size_t memory_image_page_count(const struct memory_image *m);
/* Calls fn for each page of m, in no particular order. */
void memory_image_for_each_page(const struct memory_image *m,
				void (*fn)(void *ctx, const struct memory_image_page_view *p),
				void *ctx);

/* The page at page_addr, if m has one. */
bool memory_image_page_at(const struct memory_image *m, uint64_t page_addr,
			  struct memory_image_page_view *v);

/* A page made from its stored form (valid_from given for a timed one),
 * which images can then share: memory_image_add_page takes a reference
 * (false when memory is short, the image is not of the page's kind, or
 * it has that page already); memory_image_page_put drops the maker's. */
struct memory_image_page *memory_image_page_make(const struct memory_image_page_view *v);
void memory_image_page_put(struct memory_image_page *p);
bool memory_image_add_page(struct memory_image *m, uint64_t page_addr,
			   struct memory_image_page *p);
/* Like memory_image_add_page, but a page the image has at page_addr is
 * replaced (a snapshot restored from its base image and the pages that
 * differ, snapshot_spill.h). */
bool memory_image_set_page(struct memory_image *m, uint64_t page_addr,
			   struct memory_image_page *p);
/* Adds from's page at page_addr to m, shared (false when from has none
 * there, or as memory_image_add_page). */
bool memory_image_share_page(struct memory_image *m, const struct memory_image *from,
			     uint64_t page_addr);
/* --- for the replay's reads made inline (replay_memory.c) ---------------- */

/* fn(ctx, page_addr) is called whenever the page at page_addr stops being
 * the image's (a private copy or another page replaces it): data
 * pointers memory_image_page_data gave for it no longer show the image;
 * page_addr MEMORY_IMAGE_ALL_PAGES when a snapshot starts sharing every
 * page (private ones no longer are). One watcher per image (NULL:
 * none); snapshots do not inherit it. */
#define MEMORY_IMAGE_ALL_PAGES UINT64_MAX
typedef void memory_image_move_fn(void *ctx, uint64_t page_addr);
void memory_image_on_move(struct memory_image *m, memory_image_move_fn *fn, void *ctx);
/* The bytes of m's page at page_addr (NULL: m has none, or with
 * private_only shares it with a snapshot), valid until the page moves or
 * the image is freed; written in place only while private. Its known
 * bits (bit i: byte i) lie at that pointer + memory_image_known_offset,
 * a little-endian bitmap. */
uint8_t *memory_image_page_data(struct memory_image *m, uint64_t page_addr, bool private_only);
extern const int64_t memory_image_known_offset;

/* An empty image whose pages carry times (a future image). */
struct memory_image *memory_image_new_timed(void);

#endif
