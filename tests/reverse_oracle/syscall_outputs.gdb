# What the kernel wrote, forwards then backwards, one system call a line
# (the program's lines 69-89). History starts at main (line 69) on the
# record-full side: the script never goes back past line 70.
next
print pipe_fds
next
print pipe_fds
next
next
print part1
print part2
print readv_count
next
print sock_fds
step
next
next
next
print msg_buf
next
print msg_buf
print recv_count
finish
next
print root_stat.st_ino
next
print root_stat.st_mode
print root_stat.st_ino
print root_stat.st_uid
print random_bytes[0] + random_bytes[1] + random_bytes[15] == 0
next
print *(unsigned long *)random_bytes == 0
next
next
next
print ruid == 12345
print euid == suid
next
next
next
print child_status
# Line 88: keep what differs between runs in convenience variables.
advance 88
set $rnd = random_seen
set $now = now_seen
set $sec = tv_sec_seen
set $pid = child_pid_seen
print child_status
print *(unsigned long *)random_bytes == $rnd
# Back over each call.
reverse-next
reverse-next
reverse-next
reverse-next
reverse-next
print child_status
print child_pid == $pid
reverse-next
reverse-next
print child_pid == $pid
print child_pid
reverse-next
print ruid
print euid
print suid
reverse-next
print tv.tv_sec == $sec
print tv.tv_sec
reverse-next
print now == $now
print now
reverse-next
print *(unsigned long *)random_bytes == $rnd
print *(unsigned long *)random_bytes
reverse-next
print root_stat.st_ino
reverse-step
print msg_buf
reverse-next
print msg_buf
print recv_count
reverse-finish
reverse-next
[untrusted: record full restores only the first int socketpair wrote] print sock_fds
reverse-next
print part1
print part2
print readv_count
reverse-next
print pipe_fds
reverse-next
print pipe_fds
# The replayed log, forwards and backwards again, a software watchpoint
# on what fstatat wrote.
advance 75
print root_stat.st_ino
set can-use-hw-watchpoints 0
watch root_stat.st_ino
continue
print root_stat.st_ino != 0
next
reverse-continue
print root_stat.st_ino
delete
# A breakpoint on the syscall instruction itself (getrandom's), both
# ways: there the kernel has not written yet.
break *getrandom_insn
continue
print *(unsigned long *)random_bytes
stepi
print *(unsigned long *)random_bytes == $rnd
reverse-stepi
print *(unsigned long *)random_bytes
finish
next
reverse-continue
print *(unsigned long *)random_bytes
delete
break 74
reverse-continue
delete
set can-use-hw-watchpoints 1
watch root_stat.st_ino
[untrusted: record full misses hardware watchpoints while replaying its log] continue
delete
# Last (record full goes to the end of its log here).
[untrusted: record full reports no syscall catchpoint while replaying its log] catch syscall getrandom
[untrusted: record full reports no syscall catchpoint while replaying its log] continue
