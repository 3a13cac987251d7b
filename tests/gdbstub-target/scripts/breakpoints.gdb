# Breakpoints forwards and backwards, bt in recursion, registers, memory,
# both edges of history.
set pagination off
echo ==regs-at-start\n
info registers rip eflags fs_base
break sum_down
continue
continue
echo ==bt\n
bt
echo ==stack\n
x/4gx $rsp
echo ==reverse-continue\n
reverse-continue
echo ==reverse-continue-to-start\n
reverse-continue
reverse-continue
echo ==continue-to-end\n
delete
continue
echo ==after-end\n
info registers rip
reverse-stepi
info registers rip
