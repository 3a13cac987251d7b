/*
 * cpuid_policy.h — what the traced program learns from CPUID.
 *
 * The supervisor turns on CPUID faulting in the tracee, so every cpuid
 * instruction stops it with SIGSEGV; the answer is the real CPU's with the
 * features of the policy's hidden table cleared. Hiding what the emulator
 * cannot execute makes glibc and other programs choose code it can.
 */
#ifndef TTREC_CPUID_POLICY_H
#define TTREC_CPUID_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/remote_memory.h"
#include "recorder/tracee.h"

struct cpuid_result {
	uint32_t eax, ebx, ecx, edx;
};

enum cpuid_reg { CPUID_EAX, CPUID_EBX, CPUID_ECX, CPUID_EDX };

/* For leaves without subleaves, and for features present in every subleaf. */
#define CPUID_ANY_SUBLEAF UINT32_MAX

/* One hidden feature: these bits of this register of this leaf read 0. */
struct cpuid_hidden_feature {
	const char *name;
	uint32_t leaf, subleaf;
	enum cpuid_reg reg;
	uint32_t mask;
};

struct cpuid_policy {
	const char *name;
	const struct cpuid_hidden_feature *hidden;
	size_t n_hidden;
};

/* "default": the baseline the emulator implements (see cpuid_policy.c).
 * "native": the real CPU's answers, unchanged. */
extern const struct cpuid_policy cpuid_policy_default;
extern const struct cpuid_policy cpuid_policy_native;
/* NULL for an unknown name. */
const struct cpuid_policy *cpuid_policy_by_name(const char *name);

/* Clears the policy's hidden bits in *r, the answer for leaf/subleaf. */
void cpuid_policy_mask(const struct cpuid_policy *p, uint32_t leaf,
		       uint32_t subleaf, struct cpuid_result *r);
/* The real CPU's answer, masked. */
void cpuid_policy_answer(const struct cpuid_policy *p, uint32_t leaf,
			 uint32_t subleaf, struct cpuid_result *r);

/* Makes every cpuid in the stopped tracee fault (ARCH_SET_CPUID 0). execve
 * turns it off again: call after every exec. 0, or -1 with errno (ENODEV:
 * the CPU or hypervisor has no CPUID faulting). */
int cpuid_policy_enable_faulting(struct tracee *t, struct remote_memory *rm);
/* Lets cpuid run natively again: before the program is left to run on its
 * own (it would die of the faults otherwise). */
int cpuid_policy_disable_faulting(struct tracee *t, struct remote_memory *rm);

/* If `stop` is the fault of a cpuid instruction, completes the instruction
 * in the tracee from the policy (eax..edx set, rip past it) and returns 1;
 * returns 0 for any other stop (the signal is the program's), -1 on error. */
int cpuid_policy_handle_fault(const struct cpuid_policy *p, struct tracee *t,
			      struct remote_memory *rm, const struct tracee_stop *stop);

#endif
