# Run by tests/replay.sh after `break main` + run/continue (and `record
# full` natively): steps across getppid's syscall instruction both ways.
# Every stop prints `info symbol $pc`; values print as $N.
break 13
continue
delete
print first
reverse-step
info symbol $pc
print $rax
reverse-stepi
info symbol $pc
print $rax
reverse-stepi
info symbol $pc
reverse-stepi
info symbol $pc
stepi
info symbol $pc
stepi
info symbol $pc
print $rax
stepi
info symbol $pc
print $rax
reverse-stepi
info symbol $pc
print $rax
reverse-step
info symbol $pc
reverse-next
info symbol $pc
next
info symbol $pc
next
info symbol $pc
