# oracle: live (record full reports no syscall catchpoint: the native
# side is a live process)
# Syscall stops as a live process shows them. stepi over a syscall
# instruction stops after it with orig_rax still the syscall's number
# (the next stop shows -1).
tbreak getppid
continue
stepi
x/i $pc
stepi
x/i $pc
print $rax > 0
print $orig_rax
stepi
print $orig_rax
# catch syscall: at the entry and return stops, the syscall instruction
# has run (rip after it, rcx = rip, r11 = rflags); at the entry rax is
# -ENOSYS and orig_rax the number.
catch syscall getppid write
continue
x/i $pc
info registers rip rax rcx rdx rsi rdi r11 eflags
print $orig_rax
bt
continue
x/i $pc
info registers rip rax rcx r11
print $orig_rax
# From an entry stop, stepi runs the call and stops after it.
continue
x/i $pc
info registers rip rax rcx r11 eflags
print $orig_rax
stepi
x/i $pc
info registers rip rcx r11
print $rax > 0
print $orig_rax
stepi
print $orig_rax
next
