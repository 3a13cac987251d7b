# A breakpoint on a handler's first instruction: the continue from where
# the signal arrived stops there before the handler runs (twice, live);
# then back to it from the handler's end and from after the second raise,
# and one step back from there, and reverse-finish out of the handler:
# the signal's arrival (SIGUSR1 stops gdb, which shows it there as record
# full does; signals.gdb goes back over ones gdb passes silently).
# At a function's first instruction its argument's home on the stack
# holds what was there before (bytes the program never wrote or read,
# which a replay cannot show): frames are printed without arguments.
set print frame-arguments none
break *on_usr1
continue
print entered
continue
x/i $pc
print entered
bt 2
stepi
x/i $pc
continue
continue
x/i $pc
print entered
finish
print entered
reverse-continue
x/i $pc
print entered
reverse-stepi
x/i $pc
print entered
stepi
x/i $pc
reverse-continue
x/i $pc
print entered
reverse-continue
x/i $pc
print entered
delete
stepi
stepi
reverse-finish
x/i $pc
bt 1
