/*
 * rep_watch.c — rep_steps.c's instructions, for a script that watches
 * bytes single iterations of them write (a hardware watchpoint traps
 * after the iteration that wrote, inside the instruction).
 */
#include "rep_steps.c"
