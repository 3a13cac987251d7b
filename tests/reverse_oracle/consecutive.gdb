# Breakpoints on consecutive instructions and lines: continue and
# reverse-continue from one to the next, stepi between them.
break 11
break 12
break 13
break 14
break *($pc + 0)
continue
continue
continue
x/3i $pc
break *($pc + 6)
stepi
continue
reverse-continue
reverse-continue
reverse-continue
print a
print b
reverse-stepi
stepi
stepi
info breakpoints
continue
continue
print c
delete
reverse-stepi
reverse-stepi
reverse-stepi
info registers rip
