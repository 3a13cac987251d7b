# The demo session: run to the crash, then travel back to its cause.
set pagination off
set confirm off
echo \n=== continue: run forward to the crash\n
continue
echo \n=== bt: the crash is in total(), on a corrupted pointer\n
bt
print a->history
echo \n=== who wrote it? (a query that does not move the current time)\n
last-write a->history
echo \n=== watch the corrupted field, and run BACKWARDS to the write that corrupted it\n
watch -l a->history
echo (gdb names the watchpoint once when it is set, and again when it stops there)\n
reverse-continue
echo (backwards, gdb's "Old value" is the value after the write, "New value" the one before it)\n
bt
echo \n=== the culprit: strcpy() called from rename_account() overflowed a->name\n
frame 1
print a->name
delete
echo \n=== reverse-finish: back in rename_account, before the strcpy call\n
reverse-finish
print *a
echo \n=== monitor when: the position in the recorded history\n
monitor when
