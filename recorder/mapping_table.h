/*
 * mapping_table.h — the tracee's address space as a sorted set of mappings
 * with their protections, parsed from /proc/PID/maps. The memory mirror asks
 * it whether an access must fault and whether a page may be cached.
 */
#ifndef TTREC_MAPPING_TABLE_H
#define TTREC_MAPPING_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	MAPPING_READ = 1,
	MAPPING_WRITE = 2,
	MAPPING_EXEC = 4,
	MAPPING_SHARED = 8,   /* MAP_SHARED: never cached, others may write it */
	MAPPING_UNREADABLE_REMOTE = 16, /* [vvar] and friends: no process_vm_readv */
	MAPPING_FILE = 32,    /* a file's pages: a MAP_PRIVATE page shows the file
			       * (the page cache) until the program writes it */
};

struct mapping {
	uint64_t start, end;  /* [start, end), page aligned */
	uint64_t offset;      /* file offset of start */
	unsigned flags;       /* MAPPING_* */
	char *path;           /* file path, pseudo name ("[heap]") or NULL */
};

struct mapping_table;

struct mapping_table *mapping_table_new(void);
void mapping_table_free(struct mapping_table *t);

/* Replaces the table with the contents of a /proc/PID/maps text. Returns 0,
 * or -1 with the table unchanged if the text is malformed. */
int mapping_table_parse(struct mapping_table *t, const char *maps_text);

/* Reads /proc/PID/maps and parses it; -1 on error (errno set). */
int mapping_table_load(struct mapping_table *t, int pid);

/* After a syscall that changed [addr, addr+len): reads the mappings
 * there (and the neighbours they may have merged with) again, through
 * PROCMAP_QUERY on the maps file of the last full load, in time that
 * grows with the mappings in the range, not all of them. Falls back to
 * mapping_table_load on kernels without it. 0, or -1 with errno. */
int mapping_table_refresh(struct mapping_table *t, int pid, uint64_t addr, uint64_t len);

/* The mapping containing addr, or NULL. */
const struct mapping *mapping_table_find(const struct mapping_table *t, uint64_t addr);

/* When addr is unmapped and the next mapping above it is the process's
 * stack ("[stack]", which the kernel grows down on a fault below it, up
 * to RLIMIT_STACK and short of the guard gap above the mapping below): that
 * mapping; else NULL. The kernel has the last word on the growth. */
const struct mapping *mapping_table_stack_above(const struct mapping_table *t, uint64_t addr);

/* The bytes from addr (a mapping's start) to the end of the run of
 * adjacent mappings of the same object (path and offsets continuing) that
 * starts there: one shared memory segment, however mprotect split it. 0 if
 * addr starts no mapping. */
uint64_t mapping_table_extent(const struct mapping_table *t, uint64_t addr);

/* True if every byte of [addr, addr+len) is mapped with all of `flags`. */
bool mapping_table_allows(const struct mapping_table *t, uint64_t addr,
			  uint64_t len, unsigned flags);

size_t mapping_table_count(const struct mapping_table *t);
const struct mapping *mapping_table_at(const struct mapping_table *t, size_t i);

#endif
