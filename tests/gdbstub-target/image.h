/*
 * image.h — the test target's memory: the PT_LOAD segments of a static
 * ELF executable plus a stack holding argc, argv, envp and the auxiliary
 * vector, as Linux would set them up. Only for the gdbstub test target.
 */
#ifndef GDBSTUB_TARGET_IMAGE_H
#define GDBSTUB_TARGET_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct region {
	uint64_t start, size;
	bool writable, executable;
	uint8_t *bytes;
};

struct image {
	struct region *regions;
	size_t count;
	uint64_t entry;       /* where execution starts */
	uint64_t initial_rsp; /* points at argc */
	uint8_t auxv[256];    /* the auxiliary vector put on the stack */
	size_t auxv_len;
	char *path;           /* absolute path of the executable */
};

/* Loads path; on failure prints why to stderr and returns false. */
bool image_load(struct image *img, const char *path);
void image_free(struct image *img);

/* The region holding all of [addr, addr+len), NULL if none does. */
struct region *image_find(struct image *img, uint64_t addr, uint64_t len);

#endif
