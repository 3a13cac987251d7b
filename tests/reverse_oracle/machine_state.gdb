# Globals, statics, locals in nested scopes and a callee, and registers,
# forwards and again after stepping back.
next
info registers rip rsp rbp
print a
advance 36
print a
info locals
step
info locals
print calls
print global_int
finish
advance 43
print global_array
print global_char
print global_short
print global_long
print global_float
print global_double
print static_int
info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags
print $xmm0.v4_float[0]
# Backwards.
reverse-next
print global_array
info locals
reverse-next
reverse-next
reverse-next
info locals
reverse-step
print calls
print global_int
info frame
reverse-finish
info registers rip rsp rbp rdi
reverse-next
reverse-next
reverse-next
print global_double
print global_float
print static_int
reverse-next
reverse-next
reverse-next
print global_char
print global_short
print global_long
p $pc
