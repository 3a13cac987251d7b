/*
 * write_overlay.h — the verifier's memory for the emulator: reads come from
 * the live process, writes are held back in an overlay (and seen by later
 * reads of the same instruction) so that the real CPU can perform them and
 * the two results can be compared.
 */
#ifndef TTREC_WRITE_OVERLAY_H
#define TTREC_WRITE_OVERLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "emulator/emu.h"
#include "recorder/remote_memory.h"

struct overlay_page;

struct write_overlay {
	struct remote_memory *rm;
	struct overlay_page **slots; /* open-addressed by page number */
	size_t n_slots, n_pages;
};

/* The emulator interface; the context is a struct write_overlay *. */
extern const struct emu_memory_ops write_overlay_ops;

void write_overlay_init(struct write_overlay *o, struct remote_memory *rm);
void write_overlay_free(struct write_overlay *o);
/* Forgets every held write. */
void write_overlay_clear(struct write_overlay *o);

/* Copies the held bytes at [addr, addr+size) into buf; false (buf
 * unspecified) unless every one of them is held. */
bool write_overlay_held(const struct write_overlay *o, uint64_t addr, void *buf, size_t size);

/* A run of held bytes that differ from the process's memory. */
struct overlay_mismatch {
	uint64_t addr;
	size_t len;           /* up to 16 bytes shown */
	uint8_t held[16];     /* what the emulator wrote */
	uint8_t actual[16];   /* what the process has */
	bool unreadable;      /* the process's memory could not be read */
};

/* Compares every held byte with the process's memory; returns false and
 * fills *m (the first mismatch by address within a page) if any differs. */
bool write_overlay_matches(struct write_overlay *o, struct overlay_mismatch *m);

#endif
