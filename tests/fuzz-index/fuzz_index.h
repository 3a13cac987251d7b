/* fuzz_index.h — what the index fuzzer and its seed tool share: the trace
 * every fuzzed index is read as the index of. */
#ifndef TTREC_FUZZ_INDEX_H
#define TTREC_FUZZ_INDEX_H

#include "replayer/replay_index.h"

extern const struct replay_index_expect fuzz_index_expect;

#endif
