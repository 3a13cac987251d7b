# A breakpoint on a handler's first instruction: the continue from where
# the signal arrived stops there before the handler runs (twice, live);
# then back to it from the handler's end and from after the second raise.
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
reverse-continue
x/i $pc
print entered
reverse-continue
x/i $pc
print entered
reverse-continue
x/i $pc
bt 1
