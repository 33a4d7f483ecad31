// The CPU backend: every rank is a std::thread holding only its own slices of the weights
// (tp_model.hpp); the three all-reduces of the block go through a ThreadAllReduce. Every
// rank's output is compared with the unsharded double-precision reference. Results are
// labelled CPU_EMULATION: real sharding and a real reduction, but no GPU and no NCCL.
#pragma once

#include <cstdint>

#include "repro/tp_job.hpp"

namespace faultline::repro {

// Refused when check_on_host refuses; kCannotRun when the job's sizes are not positive or the
// weights (weight_bytes; the shards are freed before the reference makes its matrices) exceed
// `memory_limit_bytes` (0: 80% of the memory the system reports available).
TpOutcome run_on_cpu(const TpJob& job, uint64_t memory_limit_bytes = 0);

}  // namespace faultline::repro
