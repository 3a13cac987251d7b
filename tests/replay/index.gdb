set pagination off
set confirm off
echo \n@@ to the end of history\n
continue
monitor info
monitor snapshots
echo \n@@ reverse-continue to a breakpoint, twice\n
break touch
reverse-continue
print k
reverse-continue
print k
delete
echo \n@@ a watchpoint backwards\n
watch counter
reverse-continue
print counter
reverse-continue
print counter
delete
echo \n@@ who wrote counter last, and who writes it next\n
eval "monitor last-write %lu 8", &counter
eval "monitor next-write %lu 8", &counter
monitor when
echo \n@@ forward to the end again\n
continue
monitor when
