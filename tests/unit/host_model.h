/*
 * host_model.h — whether the host CPU is of the vendor the emulator models.
 *
 * The emulator is bit-exact with an Intel CPU, including results the
 * architecture leaves to the implementation. A differential suite on a host
 * of another vendor compares everything but those model-specific parts,
 * each named where the suite leaves it out.
 */
#ifndef TTREC_TEST_HOST_MODEL_H
#define TTREC_TEST_HOST_MODEL_H

#include <cpuid.h>
#include <stdbool.h>
#include <string.h>

/* CPUID leaf 0's vendor string is "GenuineIntel". */
static inline bool host_is_modelled_cpu(void)
{
	static int modelled = -1;
	if (modelled < 0) {
		unsigned eax, ebx, ecx, edx;
		char vendor[12] = "";
		if (__get_cpuid(0, &eax, &ebx, &ecx, &edx)) {
			memcpy(vendor, &ebx, 4);
			memcpy(vendor + 4, &edx, 4);
			memcpy(vendor + 8, &ecx, 4);
		}
		modelled = memcmp(vendor, "GenuineIntel", 12) == 0;
	}
	return modelled;
}

#endif
