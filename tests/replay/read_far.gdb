set pagination off
set confirm off
rwatch watched[0]
echo \n@@ forward: the first read\n
continue
monitor when
echo \n@@ forward: the second read, far ahead\n
continue
monitor when
echo \n@@ the end of history\n
delete
continue
monitor when
rwatch watched[0]
echo \n@@ backward: the second read\n
reverse-continue
monitor when
echo \n@@ backward: the first read, far back\n
reverse-continue
monitor when
echo \n@@ the queries\n
eval "monitor next-read %lu 8", (unsigned long) &watched[0]
monitor goto 50000000
eval "monitor last-read %lu 8", (unsigned long) &watched[0]
eval "monitor next-read %lu 8", (unsigned long) &watched[0]
echo \n@@ awatch: the second read and the write ahead, the write back\n
delete
awatch watched[0]
monitor goto 50000000
continue
monitor when
continue
monitor when
reverse-continue
monitor when
echo \n@@ figures\n
monitor info
