# step, next, finish, until and advance forwards, then the same backwards:
# recursion, the C library (the first call through lazy binding), a
# callback from qsort, a helper called on consecutive lines, a loop.
next
step
step
step
bt
finish
finish
next
next
step
bt 2
finish
next
next
until
until
until
advance 47
print total
# Backwards.
reverse-next
reverse-next
print total
reverse-step
reverse-step
reverse-finish
reverse-next
print total
reverse-step
bt 1
reverse-finish
break compare
reverse-continue
bt 2
print x
reverse-finish
delete
reverse-next
print name_length
reverse-next
print name_length
break factorial if n == 2
reverse-continue
bt
print depth_seen
reverse-finish
reverse-finish
print n
delete
set exec-direction reverse
until
advance 39
set exec-direction forward
next
print f
