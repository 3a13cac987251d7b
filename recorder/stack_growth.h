/*
 * stack_growth.h — an emulated access just below the stack: the kernel
 * grows it (stack_growth.c).
 * Who may call whom: recorder/README.md, "Who calls whom in the recording".
 */
#ifndef TTREC_STACK_GROWTH_H
#define TTREC_STACK_GROWTH_H

#include "recorder/recording_internal.h"

/* The mirror's memory_mirror_stack_grower (ctx: the recording): the current
 * thread touches page_addr natively, so that the kernel grows the stack
 * as the program's own access would; the mapping table is reloaded. */
int recording_grow_stack(void *ctx, uint64_t page_addr);

#endif
