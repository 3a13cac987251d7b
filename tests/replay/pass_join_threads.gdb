# tests/pass_join_threads.sh: what a session shows of a first pass of a
# threaded program, each snapshot by checksum, then every thread's
# registers at times in several ranges, and steps back across threads.
monitor snapshot-digests
monitor info
define at
  monitor goto $arg0
  maintenance flush register-cache
  info threads
  thread apply all info registers rip rsp rax
end
at 6000000
at 8400000
at 12600000
reverse-stepi
reverse-stepi
info threads
thread apply all info registers rip rsp
at 21000000
reverse-continue
info threads
at 30000000
stepi
info registers rip
