# stepi over the kill syscall that sends the program a signal: the step
# ends after the syscall, the next resume reports the signal (SIGUSR1
# stops gdb; SIGUSR2 passes silently, gdb steps on through its handler).
handle SIGUSR2 nostop noprint pass
break kill
continue
stepi
x/i $pc
stepi
x/i $pc
print usr1_count
stepi
x/i $pc
print usr1_count
stepi
x/i $pc
bt 1
finish
continue
stepi
x/i $pc
stepi
x/i $pc
print usr2_count
stepi
x/i $pc
print usr2_count
stepi
x/i $pc
# Back over them.
reverse-stepi
x/i $pc
reverse-stepi
x/i $pc
reverse-stepi
x/i $pc
print usr2_count
