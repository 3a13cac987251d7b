#!/usr/bin/env bash
# The README's demo (make demo) does what it says: the program crashes as
# natively, the replay is consistent, and gdb runs to the crash, names the
# write that corrupted the pointer (last-write), reverse-continues to it
# inside strcpy called from rename_account, with its output explained.
set -u
demo=$(cd "$(dirname "$0")/demo" && pwd)
. "$(dirname "$0")/shared/checks.sh"

bash "$demo/demo.sh" "$build" > demo.out 2>&1
status_is 0 $? "demo.sh"
expect demo.out '^\(ttrec exited with 139, the program.s own status\)$' "the program crashes as natively"
expect demo.out '^ttreplay: consistent with the recording$' "the replay is consistent"
expect demo.out '^Program received signal SIGSEGV' "gdb runs forward to the crash"
expect demo.out '^last-write of \[0x[0-9a-f]+, \+8\): time [0-9]+, by the instruction at' "last-write names the write"
expect demo.out '^\(gdb names the watchpoint once when it is set, and again when it stops there\)$' \
	"the watchpoint's two lines explained"
expect demo.out '^#1  0x[0-9a-f]+ in rename_account \(' "backwards to the strcpy in rename_account"
expect demo.out "^\(backwards, gdb's \"Old value\" is the value after the write" "the backward values explained"
expect demo.out '^\$2 = "alice-with-a-lon"$' "the overflowed name"
expect demo.out '^time [0-9]+ of [0-9]+$' "monitor when"
refuse demo.out 'Remote connection closed|Ignoring packet error|File transfers from remote' "a clean session"

finish demo
