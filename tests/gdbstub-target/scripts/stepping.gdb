# Reverse stepping: stepi, step, next, finish.
set pagination off
break bump
continue
continue
echo ==reverse-finish\n
reverse-finish
echo ==reverse-next\n
reverse-next
echo ==reverse-step\n
reverse-step
echo ==reverse-step-2\n
reverse-step
echo ==reverse-step-into\n
reverse-step
bt 2
echo ==reverse-stepi\n
print $pc
reverse-stepi
print $pc
echo ==stepi-again\n
stepi
print $pc
echo ==next-over-call\n
delete
break 42
continue
next
