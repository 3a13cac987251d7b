# Into and out of a shared library of ours (lazily bound: the first call
# goes through the dynamic linker) and libc, forwards and backwards.
step
bt
next
next
print scaled
print shared_counter
finish
next
step
bt
finish
next
step
next
next
print buf
print shared_counter
finish
next
next
# Into libc's strlen and out.
step
bt 1
stepi
stepi
finish
next
step
bt 1
finish
next
next
print text
print total
print value
# Backwards.
reverse-next
print text
reverse-next
reverse-step
bt 1
reverse-finish
reverse-next
print total
reverse-step
bt 1
reverse-stepi
reverse-finish
reverse-next
reverse-step
bt
print shared_counter
reverse-step
reverse-step
reverse-step
reverse-step
bt
print shared_counter
print buf
reverse-finish
tbreak 19
reverse-continue
reverse-step
bt
print scaled
reverse-finish
print a
# Forwards through the history, breakpoints in the library.
break shared_scale
continue
print value
print factor
bt
delete
tbreak 24
continue
print text
# A software watchpoint back into the library.
set can-use-hw-watchpoints 0
watch shared_counter
reverse-continue
bt
reverse-continue
bt
delete
