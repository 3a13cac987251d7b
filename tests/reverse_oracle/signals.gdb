# A handled signal: stop at its arrival, break in the handler, bt through
# the kernel's frame, finish out; then twelve more signals, and back
# through their handlers with breakpoints, reverse-finish and a watchpoint.
break handler
next
continue
bt
print signo
print last_signal
# The step into the handler. At its first instruction gdb would read
# signo below the stack pointer, bytes no instruction of the history
# wrote unless the lazy-binding resolver's save of the registers reached
# them (it does with AVX-512's larger state): record full shows whatever
# is there, ttreplay that they are unknown. The frame is shown without
# its arguments' values.
set print frame-arguments none
stepi
set print frame-arguments scalars
x/i $pc
continue
bt 1
next
print handled_count
delete
handle SIGHUP SIGQUIT SIGUSR2 SIGPIPE SIGALRM SIGTERM SIGCHLD SIGCONT SIGURG SIGWINCH SIGIO SIGSYS nostop noprint pass
tbreak 42
continue
print handled_count
print order
break handler
reverse-continue
print signo
bt
reverse-continue
print signo
print handled_count
reverse-finish
bt 2
reverse-stepi
reverse-stepi
reverse-next
continue
print signo
delete
set can-use-hw-watchpoints 0
watch handled_count
reverse-continue
reverse-continue
print order[handled_count]
continue
delete
break handler if signo == 12
reverse-continue
print handled_count
print order
delete
reverse-next
reverse-next
bt 3
print handled_count
