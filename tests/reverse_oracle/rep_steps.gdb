# Each iteration of rep-prefixed string instructions, forwards then
# backwards: rip stays on the instruction while rcx, rsi, rdi (and a
# comparison's flags) advance one iteration a step, the last one moves
# past it; the memory written so far. Then a breakpoint on one, hit at
# each iteration both ways.
break *rep_sequence
continue
delete
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
# Backwards over each.
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
# A breakpoint on rep movsb: stopped at each iteration.
break *rep_sequence+20
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
tbreak *rep_sequence+22
continue
info registers rcx rsi rdi rip eflags
reverse-continue
info registers rcx rsi rdi rip eflags
reverse-continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
reverse-stepi
info registers rcx rsi rdi rip eflags
reverse-continue
info registers rcx rsi rdi rip eflags
# One on repe cmpsb, which a difference ends after four iterations.
delete
break *rep_sequence+61
tbreak *rep_sequence+105
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
reverse-continue
info registers rcx rsi rdi rip eflags
reverse-continue
info registers rcx rsi rdi rip eflags
reverse-stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
delete
tbreak *rep_sequence+105
continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
x/4xg quads
# Software watchpoints backwards (gdb steps back and compares): they stop
# before the iteration that wrote.
set can-use-hw-watchpoints 0
watch dst_bytes[14]
watch quads[1]
watch dst_bytes[2]
reverse-continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
reverse-continue
info registers rcx rsi rdi rip eflags
x/4xg quads
reverse-continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
delete
