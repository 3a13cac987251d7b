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

/* Copies the known prefix of [addr, addr+len) into buf; returns how many
 * leading bytes are known. */
size_t memory_image_load(const struct memory_image *m, uint64_t addr, void *buf, size_t len);

/* Forgets the bytes of [addr, addr+len) (memory changed in a way the trace
 * does not describe byte by byte). */
void memory_image_forget(struct memory_image *m, uint64_t addr, uint64_t len);

#endif
