/*
 * mapping_table.c — /proc/PID/maps parsed into a sorted array, searched by
 * binary search (the kernel lists mappings in address order). After a
 * mapping syscall only the range it changed is read again, through
 * PROCMAP_QUERY (a lookup in the kernel's tree per mapping): reading and
 * parsing the whole file cost about a microsecond per mapping per call.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "mapping_table.h"

struct mapping_table {
	struct mapping *maps;
	size_t count, cap;
	int query_fd;       /* /proc/PID/maps of the last full load, for PROCMAP_QUERY; -1 */
	bool query_failed;  /* the kernel has no PROCMAP_QUERY (before Linux 6.11) */
};

struct mapping_table *mapping_table_new(void)
{
	struct mapping_table *t = calloc(1, sizeof(struct mapping_table));
	if (t)
		t->query_fd = -1;
	return t;
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
	if (t->query_fd >= 0)
		close(t->query_fd);
	free(t);
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

/* Pseudo-mappings whose pages another process cannot read. */
static bool remote_unreadable(const char *path)
{
	return path && (strcmp(path, "[vvar]") == 0 ||
			strcmp(path, "[vvar_vclock]") == 0 ||
			strcmp(path, "[vsyscall]") == 0);
}

/* The flags a mapping's name implies. */
static unsigned path_flags(const char *path)
{
	if (remote_unreadable(path))
		return MAPPING_UNREADABLE_REMOTE;
	return path && path[0] == '/' ? MAPPING_FILE : 0;
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
	m->flags |= path_flags(m->path);
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
	t->cap = cap;
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
	if (r != 0) {
		errno = EINVAL;
		return r;
	}
	/* Opened again at every full load: an open maps file keeps the
	 * address space it was opened on (execve makes a new one). */
	if (t->query_fd >= 0)
		close(t->query_fd);
	t->query_fd = t->query_failed ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	return 0;
}

/* PROCMAP_QUERY (Linux 6.11, include/uapi/linux/fs.h; not in older
 * headers): the mapping covering an address, or the next one. */
struct procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
#define PROCMAP_QUERY _IOWR('f', 17, struct procmap_query)
#define PROCMAP_QUERY_COVERING_OR_NEXT_VMA 0x10
/* Its vma_flags: read, write, exec, shared, as MAPPING_* has them. */
#define PROCMAP_QUERY_PERMS 0x0f

/* The mapping at or after addr: 1 with *m filled, 0 if none, -1 on error. */
static int query_mapping(int fd, uint64_t addr, struct mapping *m)
{
	char name[4096 + 1];
	struct procmap_query q;
	memset(&q, 0, sizeof(q));
	q.size = sizeof(q);
	q.query_flags = PROCMAP_QUERY_COVERING_OR_NEXT_VMA;
	q.query_addr = addr;
	q.vma_name_addr = (uint64_t)(uintptr_t)name;
	q.vma_name_size = sizeof(name);
	if (ioctl(fd, PROCMAP_QUERY, &q) != 0)
		return errno == ENOENT ? 0 : -1;
	memset(m, 0, sizeof(*m));
	m->start = q.vma_start;
	m->end = q.vma_end;
	m->offset = q.vma_offset;
	m->flags = (unsigned)(q.vma_flags & PROCMAP_QUERY_PERMS);
	if (q.vma_name_size > 1) {
		name[sizeof(name) - 1] = 0;
		if (!(m->path = strdup(name)))
			return -1;
	}
	m->flags |= path_flags(m->path);
	return 1;
}

/* Replaces the entries overlapping [lo, hi) with fresh[0..n). */
static int replace_range(struct mapping_table *t, uint64_t lo, uint64_t hi,
			 struct mapping *fresh, size_t n)
{
	size_t i0 = first_ending_above(t, lo), i1 = i0;
	while (i1 < t->count && t->maps[i1].start < hi)
		i1++;
	size_t count = t->count - (i1 - i0) + n;
	if (count > t->cap) {
		size_t cap = count + count / 2 + 16;
		struct mapping *maps = realloc(t->maps, cap * sizeof(*maps));
		if (!maps)
			return -1;
		t->maps = maps;
		t->cap = cap;
	}
	for (size_t i = i0; i < i1; i++)
		free(t->maps[i].path);
	memmove(&t->maps[i0 + n], &t->maps[i1], (t->count - i1) * sizeof(*t->maps));
	if (n)
		memcpy(&t->maps[i0], fresh, n * sizeof(*fresh));
	t->count = count;
	return 0;
}

/* Reads the mappings of [lo, hi) (and the whole of one reaching past hi)
 * from the kernel into the table. 0, or -1 (the table unchanged). */
static int refresh_range(struct mapping_table *t, uint64_t lo, uint64_t hi)
{
	struct mapping *fresh = NULL;
	size_t n = 0, cap = 0;
	uint64_t end = hi;
	for (uint64_t at = lo; at < end;) {
		struct mapping m;
		int r = query_mapping(t->query_fd, at, &m);
		if (r < 0)
			goto fail;
		if (r == 0 || m.start >= end) {
			free(m.path);
			break;
		}
		if (n == cap) {
			cap = cap ? cap * 2 : 8;
			struct mapping *f = realloc(fresh, cap * sizeof(*f));
			if (!f) {
				free(m.path);
				goto fail;
			}
			fresh = f;
		}
		fresh[n++] = m;
		if (m.end > end)
			end = m.end; /* merged with a neighbour: all of it */
		at = m.end;
	}
	if (replace_range(t, lo, end, fresh, n) != 0)
		goto fail;
	free(fresh);
	return 0;
fail:
	free_maps(fresh, n);
	return -1;
}

int mapping_table_refresh(struct mapping_table *t, int pid, uint64_t addr, uint64_t len)
{
	uint64_t lo = addr & ~4095ull, hi = addr + len;
	if (hi < addr || hi > (1ull << 57))
		hi = 1ull << 57; /* past user space */
	hi = (hi + 4095) & ~4095ull;
	if (t->query_fd < 0)
		return mapping_table_load(t, pid);
	/* The mappings on either side may have merged with, or split from,
	 * the range: they are read again too. */
	const struct mapping *before = lo ? mapping_table_find(t, lo - 1) : NULL;
	const struct mapping *after = mapping_table_find(t, hi);
	if (before)
		lo = before->start;
	if (after)
		hi = after->end;
	if (refresh_range(t, lo, hi) == 0)
		return 0;
	if (errno == ENOTTY || errno == EINVAL) {
		t->query_failed = true;
		close(t->query_fd);
		t->query_fd = -1;
	}
	return mapping_table_load(t, pid);
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
