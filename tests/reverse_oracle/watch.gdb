# Watchpoints forwards and backwards: a global written in a loop, a local
# written through a pointer in a callee, a struct field, a global long.
# Hardware ones while record full records; software ones while it replays
# its log (it misses hardware watchpoints there, both ways). Software
# watchpoints go back one instruction at a time: they only go back over
# a few lines here.
watch counter
continue
continue
continue
print total
delete
set can-use-hw-watchpoints 0
watch counter
reverse-continue
reverse-continue
print counter
continue
delete
set can-use-hw-watchpoints 1
tbreak 27
continue
watch local
continue
bt 1
delete
set can-use-hw-watchpoints 0
watch local
reverse-continue
print local
continue
delete
tbreak 31
continue
watch where.x
reverse-continue
print where
continue
continue
print where
reverse-continue
delete
next
watch total
reverse-continue
print total
continue
print total
delete
set can-use-hw-watchpoints 1
rwatch where.y
[untrusted: record full misses hardware watchpoints while replaying its log] continue
delete
