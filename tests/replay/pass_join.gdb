# tests/pass_join.sh: what a session shows of a first pass, each snapshot
# and the first reads' image by checksum, then memory and registers at
# times in several ranges of the history.
monitor snapshot-digests
monitor info
define at
  monitor goto $arg0
  maintenance flush register-cache
  maintenance flush dcache
  info registers rip rsp
  x/4xg $rsp
end
at 30000000
x/16xb &table[4096 * 40]
at 75000000
x/16xb &table[4096 * 60]
reverse-stepi
info registers rip
at 120000000
x/1xb &scratch[4096 * 39 + 39]
x/1xb &scratch[4096 * 38 + 38]
