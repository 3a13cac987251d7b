/*
 * ops_muldiv.c — placeholder: this family is not implemented yet.
 */
#include "binding.h"

EMU_FAMILY_EMPTY(emu_family_muldiv);
