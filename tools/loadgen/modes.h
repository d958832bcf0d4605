// The three run modes of hotkv-loadgen. Each returns the process exit code:
// 0 done (request / pub/sub: the step was sustained), 1 done but the step was NOT
// sustained, 2 usage or connection failure.
#pragma once

#include "options.h"

namespace hotkv::loadgen {

// Open-loop requests at a fixed rate; latency from intended send times.
int RunRequestMode(const Options& options);
// Closed-loop, pipelined preload of --load N keys.
int RunLoadMode(const Options& options);
// Pub/sub delivery latency at a fixed delivery rate.
int RunPubsubMode(const Options& options);

}  // namespace hotkv::loadgen
