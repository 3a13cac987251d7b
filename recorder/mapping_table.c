/*
 * mapping_table.c — /proc/PID/maps parsed into a sorted array, searched by
 * binary search (the kernel lists mappings in address order).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mapping_table.h"

struct mapping_table {
	struct mapping *maps;
	size_t count;
};

struct mapping_table *mapping_table_new(void)
{
	return calloc(1, sizeof(struct mapping_table));
}

static void free_maps(struct mapping *maps, size_t count)
{
	for (size_t i = 0; i < count; i++)
		free(maps[i].path);
	free(maps);
}

void mapping_table_free(struct mapping_table *t)
{
	if (!t)
		return;
	free_maps(t->maps, t->count);
	free(t);
}

/* Pseudo-mappings whose pages another process cannot read. */
static bool remote_unreadable(const char *path)
{
	return path && (strcmp(path, "[vvar]") == 0 ||
			strcmp(path, "[vvar_vclock]") == 0 ||
			strcmp(path, "[vsyscall]") == 0);
}

/* Parses one line "start-end perms offset dev inode [path]". */
static int parse_line(const char *line, struct mapping *m)
{
	uint64_t start, end, offset;
	char perms[5];
	int path_at = 0;
	if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*s %n",
		   &start, &end, perms, &offset, &path_at) < 4 || path_at == 0)
		return -1;
	if (end <= start || strlen(perms) != 4)
		return -1;
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->offset = offset;
	if (perms[0] == 'r') m->flags |= MAPPING_READ;
	if (perms[1] == 'w') m->flags |= MAPPING_WRITE;
	if (perms[2] == 'x') m->flags |= MAPPING_EXEC;
	if (perms[3] == 's') m->flags |= MAPPING_SHARED;
	const char *p = line + path_at;
	size_t len = strcspn(p, "\n");
	if (len) {
		m->path = strndup(p, len);
		if (!m->path)
			return -1;
	}
	if (remote_unreadable(m->path))
		m->flags |= MAPPING_UNREADABLE_REMOTE;
	return 0;
}

int mapping_table_parse(struct mapping_table *t, const char *text)
{
	struct mapping *maps = NULL;
	size_t count = 0, cap = 0;
	const char *line = text;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len > 0) {
			if (count == cap) {
				cap = cap ? cap * 2 : 64;
				struct mapping *n = realloc(maps, cap * sizeof(*n));
				if (!n)
					goto fail;
				maps = n;
			}
			char buf[4096 + 256];
			if (len >= sizeof(buf))
				goto fail;
			memcpy(buf, line, len);
			buf[len] = 0;
			if (parse_line(buf, &maps[count]) != 0)
				goto fail;
			if (count && maps[count].start < maps[count - 1].end) {
				count++;
				goto fail;
			}
			count++;
		}
		line += len + (nl ? 1 : 0);
	}
	free_maps(t->maps, t->count);
	t->maps = maps;
	t->count = count;
	return 0;
fail:
	free_maps(maps, count);
	return -1;
}

int mapping_table_load(struct mapping_table *t, int pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	if (!out) {
		fclose(f);
		return -1;
	}
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	fclose(out);
	int r = mapping_table_parse(t, text ? text : "");
	free(text);
	if (r != 0)
		errno = EINVAL;
	return r;
}

/* The index of the first mapping that ends above addr (count if none). */
static size_t first_ending_above(const struct mapping_table *t, uint64_t addr)
{
	size_t lo = 0, hi = t->count;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

const struct mapping *mapping_table_find(const struct mapping_table *t, uint64_t addr)
{
	size_t i = first_ending_above(t, addr);
	return i < t->count && t->maps[i].start <= addr ? &t->maps[i] : NULL;
}

const struct mapping *mapping_table_stack_above(const struct mapping_table *t, uint64_t addr)
{
	size_t i = first_ending_above(t, addr);
	if (i == t->count || t->maps[i].start <= addr)
		return NULL; /* nothing above, or addr is mapped */
	const struct mapping *m = &t->maps[i];
	return m->path && strcmp(m->path, "[stack]") == 0 ? m : NULL;
}

uint64_t mapping_table_extent(const struct mapping_table *t, uint64_t addr)
{
	size_t i = first_ending_above(t, addr);
	if (i == t->count || t->maps[i].start != addr)
		return 0;
	size_t j = i;
	while (j + 1 < t->count) {
		const struct mapping *a = &t->maps[j], *b = &t->maps[j + 1];
		bool same = a->path && b->path && strcmp(a->path, b->path) == 0;
		if (!same || b->start != a->end || b->offset != a->offset + (a->end - a->start))
			break;
		j++;
	}
	return t->maps[j].end - addr;
}

bool mapping_table_allows(const struct mapping_table *t, uint64_t addr,
			  uint64_t len, unsigned flags)
{
	uint64_t end = addr + len;
	if (end < addr)
		return false;
	while (addr < end) {
		const struct mapping *m = mapping_table_find(t, addr);
		if (!m || (m->flags & flags) != flags)
			return false;
		addr = m->end;
	}
	return true;
}

size_t mapping_table_count(const struct mapping_table *t)
{
	return t->count;
}

const struct mapping *mapping_table_at(const struct mapping_table *t, size_t i)
{
	return i < t->count ? &t->maps[i] : NULL;
}
