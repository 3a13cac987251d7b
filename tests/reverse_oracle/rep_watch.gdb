# oracle: live
# Write watchpoints on bytes that one iteration of a rep movs or stos
# writes: the stop comes after that iteration, inside the instruction
# (or past it when the iteration is the last one); a stepi over such an
# iteration reports the watchpoint too. (The CPU has four of them.)
break *rep_sequence
continue
delete
watch dst_bytes[2]
watch dst_bytes[4]
watch quads[0]
watch quads[1]
continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
continue
info registers rcx rsi rdi rip eflags
x/4xg quads
stepi
info registers rcx rsi rdi rip eflags
x/4xg quads
delete 3 4
watch dst_bytes[14]
watch dst_bytes[13]
continue
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
stepi
info registers rcx rsi rdi rip eflags
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst_bytes
