# Watchpoints forwards and backwards: a global written in a loop, a
# static, a local written through a pointer in a callee, a struct field;
# hardware first, then software (which record full checks while replaying).
watch counter
continue
continue
continue
print total
reverse-continue
reverse-continue
print counter
delete
watch local
continue
bt 1
reverse-continue
print local
continue
delete
advance 32
set can-use-hw-watchpoints 0
watch where.x
reverse-continue
reverse-continue
print where
continue
delete
watch total
reverse-continue
print total
reverse-continue
print total
delete
watch counter
reverse-continue
reverse-continue
print counter
continue
print counter
delete
rwatch where.y
continue
delete
set can-use-hw-watchpoints 1
watch where.y
[untrusted: record full misses hardware watchpoints while replaying its log] continue
[untrusted: record full misses hardware watchpoints while replaying its log] reverse-continue
