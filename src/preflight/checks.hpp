// Preflight checks: a model's sizes against the tensor- and pipeline-parallel sizes (and the
// GPU count) before launch, with the same arithmetic (src/tp) that the rules' fixes use.
// Pure: no I/O.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "preflight/model_config.hpp"

namespace faultline::preflight {

enum class Verdict { kOk, kNote, kError };

struct Check {
  std::string name;  // "heads", "kv_heads", "hidden", "ffn", "vocab", "layers", "gpus"
  Verdict verdict = Verdict::kOk;
  std::string message;  // "32 attention heads split over TP 6: not divisible"
  std::string cause;    // the causes.md id a failure would be diagnosed as; empty when ok
};

struct Plan {
  int64_t tp = 1;
  int64_t pp = 1;
  std::optional<int64_t> gpus;
  std::string gpu_mix;  // what differs between the GPUs (gpu_inventory.hpp); empty when alike
};

struct PreflightResult {
  std::vector<Check> checks;
  std::vector<int64_t> valid_tp;     // TP sizes every check accepts for this model
  std::vector<std::string> layouts;  // TP×PP splits of the GPUs that pass, when gpus is known
  bool ok() const;
};

PreflightResult run_checks(const ModelShape& shape, const Plan& plan);

}  // namespace faultline::preflight
