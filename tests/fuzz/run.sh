#!/usr/bin/env bash
# Builds the libFuzzer targets of the trace reader and of the replay
# index's reader (tests/fuzz-index/) with clang and runs each for a
# bounded number of iterations on a generated seed corpus. Exits non-zero
# when the fuzzer finds a crash, a leak or undefined behaviour.
#   RUNS=200000 (iterations), FUZZ_BUILD=build-fuzz
set -euo pipefail
cd "$(dirname "$0")/../.."
RUNS=${RUNS:-200000}
OUT=${FUZZ_BUILD:-build-fuzz}
CC_FUZZ=${CC_FUZZ:-clang}
mkdir -p "$OUT/corpus"
FLAGS="-std=gnu11 -O1 -g -I. -D_GNU_SOURCE -Wall -Wextra -Werror -fno-omit-frame-pointer"
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
LIB_SOURCES=$(ls trace-format/*.c | grep -v '_main\.c$')

# The seed tool is the target plus a main of its own, without libFuzzer.
$CC_FUZZ $FLAGS $SAN -o "$OUT/fuzz_tool" tests/fuzz/fuzz_tool.c tests/fuzz/fuzz_reader.c $LIB_SOURCES \
	-lzstd -lelf -lpthread
"$OUT/fuzz_tool" seeds "$OUT/corpus"

$CC_FUZZ $FLAGS $SAN -fsanitize=fuzzer -o "$OUT/fuzz_reader" tests/fuzz/fuzz_reader.c $LIB_SOURCES \
	-lzstd -lelf -lpthread
# -max_len: room for a header and a few chunks; rss_limit bounds memory.
"$OUT/fuzz_reader" -runs="$RUNS" -max_len=16384 -rss_limit_mb=1024 -timeout=10 \
	-artifact_prefix="$OUT/" "$OUT/corpus"
echo "fuzz: trace reader: $RUNS runs, no crash"

# The replay index's reader, with the few replayer files it uses.
INDEX_SOURCES="replayer/replay_index_read.c replayer/replay_index_write.c replayer/replay_index_stream.c
	replayer/replay_index_pool.c replayer/memory_image.c replayer/wide_changes.c replayer/sparse_copy.c
	replayer/resim_state_free.c"
mkdir -p "$OUT/corpus-index"
$CC_FUZZ $FLAGS $SAN -o "$OUT/fuzz_index_tool" tests/fuzz-index/*.c $INDEX_SOURCES $LIB_SOURCES \
	-lzstd -lelf -lpthread
"$OUT/fuzz_index_tool" seeds "$OUT/corpus-index"
"$OUT/fuzz_index_tool" check "$OUT/corpus-index/seed.idx"
$CC_FUZZ $FLAGS $SAN -fsanitize=fuzzer -o "$OUT/fuzz_index" tests/fuzz-index/fuzz_index.c \
	$INDEX_SOURCES $LIB_SOURCES -lzstd -lelf -lpthread
"$OUT/fuzz_index" -runs="$RUNS" -max_len=16384 -rss_limit_mb=1024 -timeout=10 \
	-artifact_prefix="$OUT/index-" "$OUT/corpus-index"
echo "fuzz: replay index reader: $RUNS runs, no crash"
