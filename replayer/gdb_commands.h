/*
 * gdb_commands.h — the gdb script of ttreplay's user commands (when, goto,
 * checkpoint, restart, last-write and friends).
 */
#ifndef TTREC_GDB_COMMANDS_H
#define TTREC_GDB_COMMANDS_H

extern const char gdb_commands_script[];

#endif
