# Watchpoints forwards and backwards: a global written in a loop and by a
# callee, a local written through a pointer, a struct field, a static.
# Hardware ones while record full records (to line 32); then software
# ones within what it recorded (it misses hardware watchpoints while it
# replays its log, and a forward run stops at the end of that log).
# Software watchpoints go back one instruction at a time: they only go
# back over a few lines here.
watch counter
continue
continue
continue
print total
delete
tbreak 27
continue
watch local
continue
bt 1
delete
tbreak 32
continue
set can-use-hw-watchpoints 0
watch where.x
reverse-continue
reverse-continue
print where
continue
[untrusted: the write is the last instruction record full recorded: it reports the end of its log instead] continue
print where
delete
watch local
reverse-continue
print local
bt 1
delete
watch counter
reverse-continue
reverse-continue
print counter
continue
continue
print counter
delete
watch total
reverse-continue
print total
print counter
delete
set can-use-hw-watchpoints 1
rwatch where.y
[untrusted: record full misses hardware watchpoints while replaying its log] continue
delete
