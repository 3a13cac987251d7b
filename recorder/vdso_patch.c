/*
 * vdso_patch.c — finding the vDSO's entry points from its dynamic symbol
 * table, read out of the process's memory, and overwriting them with
 * system calls (vdso_patch.h).
 */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "recorder/vdso_patch.h"

/* No system call has this number: the stub returns -ENOSYS. */
#define NO_SYSCALL 0xffffffffu

/* The vDSO's functions that read [vvar] (or may, depending on the clock
 * source), with the system call that does the same. getrandom keeps its
 * state in [vvar] and memory the C library sets up on its first call: in
 * a fresh image it fails that call, so the library uses the system call. */
static const struct entry_point {
	const char *name;
	uint32_t nr;
	bool fresh_only; /* for an image that has not run yet */
} entry_points[] = {
	{ "__vdso_clock_gettime", SYS_clock_gettime, false },
	{ "__vdso_gettimeofday", SYS_gettimeofday, false },
	{ "__vdso_time", SYS_time, false },
	{ "__vdso_clock_getres", SYS_clock_getres, false },
	{ "__vdso_getcpu", SYS_getcpu, false },
	{ "__vdso_getrandom", NO_SYSCALL, true },
};

#define MAX_VDSO_BYTES (64u * 1024)

static const struct mapping *find_vdso(const struct mapping_table *maps)
{
	for (size_t i = 0; i < mapping_table_count(maps); i++) {
		const struct mapping *m = mapping_table_at(maps, i);
		if (m->path && strcmp(m->path, "[vdso]") == 0)
			return m;
	}
	return NULL;
}

/* The lowest PT_LOAD address: symbol values are relative to it. */
static int load_base(Elf *elf, uint64_t *base)
{
	size_t n;
	if (elf_getphdrnum(elf, &n) != 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD) {
			*base = ph.p_vaddr;
			return 0;
		}
	}
	return -1;
}

static int patch_one(struct vdso_patch *p, struct remote_memory *rm, uint64_t addr, uint32_t nr)
{
	uint8_t stub[VDSO_STUB_LEN] = { 0xb8, (uint8_t)nr, (uint8_t)(nr >> 8), 0, 0, 0x0f, 0x05, 0xc3 };
	if (p->n == VDSO_PATCH_MAX)
		return 0;
	if (remote_memory_fetch(rm, addr, p->original[p->n], VDSO_STUB_LEN) != VDSO_STUB_LEN)
		return -1;
	if (remote_memory_poke(rm, addr, stub, sizeof(stub)) != 0)
		return -1;
	p->addr[p->n++] = addr;
	return 0;
}

/* Walks the dynamic symbols of the image copied into buf. */
static int patch_symbols(struct vdso_patch *p, struct remote_memory *rm, uint64_t start,
			 char *buf, size_t size, bool fresh, char *err, size_t errlen)
{
	Elf *elf = elf_memory(buf, size);
	uint64_t base;
	if (!elf || elf_kind(elf) != ELF_K_ELF || load_base(elf, &base) != 0) {
		snprintf(err, errlen, "the vDSO is not an ELF image we can read");
		if (elf)
			elf_end(elf);
		return -1;
	}
	int rc = 0;
	Elf_Scn *scn = NULL;
	while (rc == 0 && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		for (size_t i = 0; data && i < sh.sh_size / sh.sh_entsize && rc == 0; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			for (size_t e = 0; name && e < sizeof(entry_points) / sizeof(entry_points[0]); e++) {
				if (strcmp(name, entry_points[e].name) != 0 ||
				    (entry_points[e].fresh_only && !fresh))
					continue;
				if (sym.st_size < VDSO_STUB_LEN || sym.st_value - base > size)
					continue; /* no room for the stub: left as it is */
				if (patch_one(p, rm, start + (sym.st_value - base), entry_points[e].nr) != 0) {
					snprintf(err, errlen, "cannot patch the vDSO's %s: %s", name,
						 strerror(errno));
					rc = -1;
				}
			}
		}
	}
	elf_end(elf);
	return rc;
}

static int apply(struct vdso_patch *p, struct remote_memory *rm,
		 const struct mapping_table *maps, bool fresh, char *err, size_t errlen)
{
	memset(p, 0, sizeof(*p));
	const struct mapping *m = find_vdso(maps);
	if (!m)
		return 0;
	size_t size = m->end - m->start;
	if (size > MAX_VDSO_BYTES)
		size = MAX_VDSO_BYTES;
	char *buf = malloc(size);
	if (!buf) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	elf_version(EV_CURRENT);
	int rc;
	if (remote_memory_fetch(rm, m->start, buf, size) != size) {
		snprintf(err, errlen, "cannot read the process's vDSO: %s", strerror(errno));
		rc = -1;
	} else {
		rc = patch_symbols(p, rm, m->start, buf, size, fresh, err, errlen);
	}
	free(buf);
	if (rc != 0)
		vdso_patch_restore(p, rm);
	return rc;
}

int vdso_patch_apply(struct vdso_patch *p, struct remote_memory *rm,
		     const struct mapping_table *maps, char *err, size_t errlen)
{
	return apply(p, rm, maps, false, err, errlen);
}

int vdso_patch_apply_fresh(struct vdso_patch *p, struct remote_memory *rm,
			   const struct mapping_table *maps, char *err, size_t errlen)
{
	return apply(p, rm, maps, true, err, errlen);
}

int vdso_patch_leave_stubs(const struct vdso_patch *p, struct remote_memory *rm,
			   struct user_regs_struct *regs)
{
	for (unsigned i = 0; i < p->n; i++) {
		uint64_t offset = regs->rip - p->addr[i];
		if (regs->rip < p->addr[i] || offset >= VDSO_STUB_LEN || offset == 0)
			continue;
		if (offset < VDSO_STUB_LEN - 1) { /* at the syscall: not run yet */
			regs->rip = p->addr[i];
			return 0;
		}
		uint64_t ret;
		if (remote_memory_read(rm, regs->rsp, &ret, sizeof(ret)) != 0)
			return -1;
		regs->rip = ret;
		regs->rsp += 8;
		return 0;
	}
	return 0;
}

int vdso_patch_restore(struct vdso_patch *p, struct remote_memory *rm)
{
	int rc = 0;
	for (unsigned i = 0; i < p->n; i++)
		if (remote_memory_poke(rm, p->addr[i], p->original[i], VDSO_STUB_LEN) != 0)
			rc = -1;
	p->n = 0;
	return rc;
}
