# Watchpoints forwards and backwards with old and new values.
set pagination off
break loop_bumps
continue
watch counter
echo ==forward-1\n
continue
echo ==forward-2\n
continue
echo ==backward-1\n
reverse-continue
echo ==backward-2\n
reverse-continue
