set pagination off
set confirm off
handle SIGUSR2 nostop noprint pass
break touch
break never_called
watch late_value[0]
catch syscall getppid
echo \n@@ a breakpoint far ahead\n
continue
print k
monitor checkpoint
echo \n@@ back within what the first pass has read, on to the breakpoint again\n
monitor goto 4194304
maintenance flush register-cache
continue
print k
monitor checkpoint
echo \n@@ a signal far ahead (the next one passes without a stop)\n
continue
monitor checkpoint
echo \n@@ a breakpoint in the thread made meanwhile\n
continue
print k
info threads
monitor checkpoint
echo \n@@ a caught syscall, its entry and return\n
continue
monitor checkpoint
continue
monitor checkpoint
echo \n@@ a watched write\n
continue
monitor checkpoint
echo \n@@ the last breakpoint hit\n
continue
print k
monitor checkpoint
echo \n@@ the end of history\n
continue
monitor when
echo \n@@ from the first stop, with only the breakpoint never hit\n
delete
break never_called
handle SIGUSR1 nostop noprint pass
monitor restart 1
monitor when
continue
monitor when
echo \n@@ the signals alone\n
delete
handle SIGUSR1 stop print pass
monitor restart 1
continue
monitor when
continue
monitor when
echo \n@@ figures\n
monitor info
