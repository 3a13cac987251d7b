/*
 * build_id.c — reads the GNU build-id note of an ELF file with libelf, so
 * a module load record names exactly which file was mapped.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "trace-format/idna.h"

static int find_note(Elf *elf, uint8_t *out, size_t cap)
{
	size_t n_phdr;
	if (elf_getphdrnum(elf, &n_phdr) != 0)
		return 0;
	for (size_t i = 0; i < n_phdr; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		Elf_Data *data = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (!data)
			continue;
		size_t off = 0, name_off, desc_off;
		GElf_Nhdr nh;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0) {
				size_t len = nh.n_descsz < cap ? nh.n_descsz : cap;
				memcpy(out, (char *)data->d_buf + desc_off, len);
				return (int)len;
			}
		}
	}
	return 0;
}

int idna_read_build_id(const char *path, uint8_t *out, size_t cap, char *err, size_t errlen)
{
	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(err, errlen, "libelf: %s", elf_errmsg(-1));
		return -1;
	}
	int fd = idna_open_regular(path, err, errlen);
	if (fd < 0)
		return -1;
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	int len = 0;
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		snprintf(err, errlen, "%s: not an ELF file", path);
		len = -1;
	} else {
		len = find_note(elf, out, cap);
	}
	if (elf)
		elf_end(elf);
	close(fd);
	return len;
}
