# oracle: live
# Read and access watchpoints on bytes that one iteration of a rep movs,
# lods, cmps or scas reads: the stop comes after that iteration, inside
# the instruction (or past it when the iteration is its last); a continue
# from inside does not stop again for what the iterations done read; a
# stepi over such an iteration reports the watchpoint, one over another
# iteration does not. (The CPU has four of them.)
break *rep_reads
continue
delete
rwatch src[2]
rwatch src[9]
awatch cmp_b[2]
continue
info registers rcx rsi rdi rip
continue
info registers rcx rsi rdi rip
stepi
info registers rcx rsi rdi rip
continue
info registers rcx rsi rdi rip eflags
delete
rwatch cmp_a[1]
rwatch src[12]
rwatch src[11]
continue
info registers rcx rsi rdi rip eflags
continue
info registers rcx rsi rdi rip eflags
x/16xb dst
stepi
info registers rcx rsi rdi rip eflags
x/16xb dst
