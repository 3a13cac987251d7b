/*
 * vdso_present.c — a program that looks at its vDSO (getauxval, then its
 * ELF image: the dynamic symbols) and calls its clock_gettime, time and
 * getcpu directly. Recorded, the vDSO must be there, readable, with its
 * symbols, and its functions must give what the system calls give.
 */
#include <elf.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <time.h>

/* The address of a dynamic symbol of the vDSO image at base, or NULL. */
static void *vdso_symbol(const unsigned char *base, const char *wanted)
{
	const Elf64_Ehdr *eh = (const void *)base;
	const Elf64_Phdr *ph = (const void *)(base + eh->e_phoff);
	uint64_t load = 0;
	const Elf64_Dyn *dyn = NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && !load)
			load = ph[i].p_vaddr;
		if (ph[i].p_type == PT_DYNAMIC)
			dyn = (const void *)(base + ph[i].p_offset);
	}
	const Elf64_Sym *syms = NULL;
	const char *strs = NULL;
	const Elf32_Word *hash = NULL;
	for (; dyn && dyn->d_tag != DT_NULL; dyn++) {
		if (dyn->d_tag == DT_SYMTAB)
			syms = (const void *)(base + dyn->d_un.d_ptr - load);
		if (dyn->d_tag == DT_STRTAB)
			strs = (const void *)(base + dyn->d_un.d_ptr - load);
		if (dyn->d_tag == DT_HASH)
			hash = (const void *)(base + dyn->d_un.d_ptr - load);
	}
	if (!syms || !strs || !hash)
		return NULL;
	for (Elf32_Word i = 0; i < hash[1]; i++)
		if (syms[i].st_shndx != SHN_UNDEF && strcmp(strs + syms[i].st_name, wanted) == 0)
			return (void *)(base + syms[i].st_value - load);
	return NULL;
}

int main(void)
{
	const unsigned char *vdso = (const void *)getauxval(AT_SYSINFO_EHDR);
	printf("vDSO in the auxiliary vector: %d\n", vdso != NULL);
	if (!vdso)
		return 1;
	printf("an ELF image: %d\n", memcmp(vdso, ELFMAG, SELFMAG) == 0);
	int (*vgettime)(clockid_t, struct timespec *) = vdso_symbol(vdso, "__vdso_clock_gettime");
	time_t (*vtime)(time_t *) = vdso_symbol(vdso, "__vdso_time");
	int (*vgetcpu)(unsigned *, unsigned *, void *) = vdso_symbol(vdso, "__vdso_getcpu");
	printf("symbols: clock_gettime %d, time %d, getcpu %d\n", vgettime != NULL, vtime != NULL,
	       vgetcpu != NULL);
	if (!vgettime || !vtime || !vgetcpu)
		return 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int r = vgettime(CLOCK_MONOTONIC, &b);
	printf("clock_gettime: %d, monotonic %d\n", r,
	       b.tv_sec > a.tv_sec || (b.tv_sec == a.tv_sec && b.tv_nsec >= a.tv_nsec));
	time_t t = vtime(NULL);
	printf("time agrees: %d\n", t - time(NULL) < 2 && time(NULL) - t < 60);
	unsigned cpu, node;
	printf("getcpu: %d\n", vgetcpu(&cpu, &node, NULL));
	return 0;
}
