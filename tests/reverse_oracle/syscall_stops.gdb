# oracle: live (record full reports no syscall catchpoint: the native
# side is a live process)
# A syscall's entry and return stops, as a live process shows them: at
# both, the syscall instruction has run (rip after it, rcx = rip, r11 =
# rflags); at the entry rax is -ENOSYS and orig_rax the number.
catch syscall getppid write
continue
x/i $pc
info registers rip rax rcx r11 eflags
print $orig_rax
bt
continue
x/i $pc
info registers rip rcx r11
print $rax > 0
print $orig_rax
continue
x/i $pc
info registers rip rax rcx rdx rsi rdi r11 eflags
print $orig_rax
bt 1
continue
info registers rip rax rcx r11
print $orig_rax
# From an entry stop, stepi runs the call and stops after it.
continue
x/i $pc
info registers rip rax rcx r11 eflags
stepi
x/i $pc
info registers rip rcx r11
print $rax > 0
next
