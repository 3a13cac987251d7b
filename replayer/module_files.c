/*
 * module_files.c — file-backed mappings of the recorded program. The last
 * mapping recorded at an address wins. A file is used only if its build-id
 * is the recorded one (or neither has one), checked once when first read;
 * otherwise the copy `ttrec pack` kept beside the trace, if any.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replayer/module_files.h"
#include "trace-format/pack_store.h"

enum file_state { FILE_UNCHECKED, FILE_USABLE, FILE_UNUSABLE };

struct module_mapping {
	uint64_t addr, size, offset;
	char *path;
	uint8_t build_id[64];
	uint32_t build_id_len;
	enum file_state state;
	int fd;
	/* For ELF files, the file extent of each loadable segment: bytes past
	 * p_filesz in a segment's last page are zero in memory, whatever the
	 * file holds there. */
	struct { uint64_t offset, filesz, memsz; } segments[16];
	size_t n_segments;
	bool is_elf;
};

struct module_files {
	struct module_mapping *maps;
	size_t count, cap;
	char *pack_dir; /* NULL: no pack */
};

struct module_files *module_files_load(struct idna_reader *r, const char *pack_dir)
{
	struct module_files *m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	if (pack_dir && !(m->pack_dir = strdup(pack_dir))) {
		free(m);
		return NULL;
	}
	char err[256];
	struct idna_iter *it = idna_iter_open(r, 0, NULL, err, sizeof(err));
	if (!it)
		return m;
	struct idna_record rec;
	while (idna_iter_next(it, &rec) == 1) {
		if (rec.type != IDNA_REC_MODULE_LOAD || !rec.u.module_load.path)
			continue;
		if (m->count == m->cap) {
			size_t cap = m->cap ? 2 * m->cap : 32;
			struct module_mapping *n = realloc(m->maps, cap * sizeof(*n));
			if (!n)
				break;
			m->maps = n;
			m->cap = cap;
		}
		struct module_mapping *mm = &m->maps[m->count];
		memset(mm, 0, sizeof(*mm));
		mm->addr = rec.u.module_load.addr;
		mm->size = rec.u.module_load.size;
		mm->offset = rec.u.module_load.offset;
		mm->path = strdup(rec.u.module_load.path);
		mm->build_id_len = rec.u.module_load.build_id_len <= sizeof(mm->build_id)
					   ? rec.u.module_load.build_id_len : 0;
		memcpy(mm->build_id, rec.u.module_load.build_id, mm->build_id_len);
		mm->fd = -1;
		if (mm->path)
			m->count++;
	}
	idna_iter_close(it);
	return m;
}

void module_files_free(struct module_files *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->count; i++) {
		free(m->maps[i].path);
		if (m->maps[i].fd >= 0)
			close(m->maps[i].fd);
	}
	free(m->maps);
	free(m->pack_dir);
	free(m);
}

static void read_segments(struct module_mapping *mm)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return;
	Elf *e = elf_begin(mm->fd, ELF_C_READ, NULL);
	size_t n;
	if (e && elf_kind(e) == ELF_K_ELF && elf_getphdrnum(e, &n) == 0) {
		mm->is_elf = true;
		for (size_t i = 0; i < n && mm->n_segments < 16; i++) {
			GElf_Phdr ph;
			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				mm->segments[mm->n_segments].offset = ph.p_offset;
				mm->segments[mm->n_segments].filesz = ph.p_filesz;
				mm->segments[mm->n_segments].memsz = ph.p_memsz;
				mm->n_segments++;
			}
		}
	}
	if (e)
		elf_end(e);
}

/* How many bytes at file offset `off` memory shows from the file (the
 * rest of len, up to `len`, is zero-fill): -1 when neither applies. */
static int64_t file_bytes_at(const struct module_mapping *mm, uint64_t off, size_t len,
			     size_t *zero_fill)
{
	*zero_fill = 0;
	if (!mm->is_elf)
		return (int64_t)len;
	for (size_t i = 0; i < mm->n_segments; i++) {
		uint64_t start = mm->segments[i].offset & ~4095ull;
		uint64_t file_end = mm->segments[i].offset + mm->segments[i].filesz;
		uint64_t page_end = (file_end + 4095) & ~4095ull;
		if (off < start || off >= page_end)
			continue;
		if (off < file_end)
			return (int64_t)(file_end - off < len ? file_end - off : len);
		*zero_fill = (size_t)(page_end - off < len ? page_end - off : len);
		return 0;
	}
	return -1;
}

/* This machine's file at mm's path, if it is the recorded one. */
static int open_local(const struct module_mapping *mm)
{
	uint8_t id[64];
	char err[128];
	int n = idna_read_build_id(mm->path, id, sizeof(id), err, sizeof(err));
	bool same = n >= 0 && (uint32_t)n == mm->build_id_len &&
		    memcmp(id, mm->build_id, mm->build_id_len) == 0;
	return same ? idna_open_regular(mm->path, err, sizeof(err)) : -1;
}

/* The pack's copy: shared with another mapping of the same file when one
 * unpacked it already. */
static int open_packed(struct module_files *m, const struct module_mapping *mm)
{
	if (!m->pack_dir || !mm->build_id_len)
		return -1;
	for (size_t i = 0; i < m->count; i++) {
		const struct module_mapping *o = &m->maps[i];
		if (o != mm && o->state == FILE_USABLE && o->build_id_len == mm->build_id_len &&
		    memcmp(o->build_id, mm->build_id, mm->build_id_len) == 0)
			return fcntl(o->fd, F_DUPFD_CLOEXEC, 0);
	}
	char err[256];
	return pack_store_open(m->pack_dir, mm->build_id, mm->build_id_len, err, sizeof(err));
}

static bool usable(struct module_files *m, struct module_mapping *mm)
{
	if (mm->state == FILE_UNCHECKED) {
		mm->fd = open_local(mm);
		if (mm->fd < 0)
			mm->fd = open_packed(m, mm);
		mm->state = mm->fd >= 0 ? FILE_USABLE : FILE_UNUSABLE;
		if (mm->fd >= 0)
			read_segments(mm);
	}
	return mm->state == FILE_USABLE;
}

size_t module_files_read(struct module_files *m, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = m->count; i-- > 0;) {
		struct module_mapping *mm = &m->maps[i];
		if (addr < mm->addr || addr >= mm->addr + mm->size)
			continue;
		if (!usable(m, mm))
			return 0;
		uint64_t room = mm->addr + mm->size - addr;
		if (len > room)
			len = (size_t)room;
		uint64_t off = mm->offset + (addr - mm->addr);
		size_t zeros;
		int64_t from_file = file_bytes_at(mm, off, len, &zeros);
		if (from_file < 0)
			return 0;
		if (from_file == 0) {
			memset(buf, 0, zeros);
			return zeros;
		}
		ssize_t n = pread(mm->fd, buf, (size_t)from_file, (off_t)off);
		return n > 0 ? (size_t)n : 0;
	}
	return 0;
}

void module_files_each_image(const struct module_files *m,
			     void (*fn)(void *ctx, const char *path, uint64_t addr), void *ctx)
{
	for (size_t i = 0; i < m->count; i++) {
		const struct module_mapping *mm = &m->maps[i];
		if (mm->offset != 0)
			continue;
		bool later = false; /* a later mapping of the same file's start wins */
		for (size_t j = i + 1; j < m->count && !later; j++)
			later = m->maps[j].offset == 0 && strcmp(m->maps[j].path, mm->path) == 0;
		if (!later)
			fn(ctx, mm->path, mm->addr);
	}
}

/* The last mapping of path, or NULL. */
static struct module_mapping *mapping_of(struct module_files *m, const char *path)
{
	for (size_t i = m->count; i-- > 0;)
		if (strcmp(m->maps[i].path, path) == 0)
			return &m->maps[i];
	return NULL;
}

int module_files_open(struct module_files *m, const char *path)
{
	struct module_mapping *mm = mapping_of(m, path);
	if (!mm)
		return -EACCES;
	if (usable(m, mm)) {
		int fd = fcntl(mm->fd, F_DUPFD_CLOEXEC, 0);
		return fd >= 0 ? fd : -errno;
	}
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	return fd >= 0 ? fd : -errno;
}

void module_files_report_mismatches(struct module_files *m,
				    void (*fn)(void *ctx, const char *path, bool missing,
					       bool packed),
				    void *ctx)
{
	for (size_t i = 0; i < m->count; i++) {
		struct module_mapping *mm = &m->maps[i];
		if (mm->path[0] != '/' || !mm->build_id_len || mapping_of(m, mm->path) != mm)
			continue;
		int local = open_local(mm);
		if (local >= 0) {
			close(local);
			continue;
		}
		fn(ctx, mm->path, access(mm->path, F_OK) != 0, usable(m, mm));
	}
}
