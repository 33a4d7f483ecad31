// Command-line options, parsed and validated into an immutable struct. Boost's exceptions
// stop in options.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.hpp"

namespace faultline::cli {

enum class Command {
  kDiagnose,
  kScan,
  kMerge,
  kPreflight,
  kRepro,
  kRulesList,
  kRulesTest,
  kRulesCheck,
  kRulesPatterns,
  kRulesDocs,
  kRulesSuggest,
  kExplain,
  kHelp,
  kVersion
};
enum class Format { kText, kJson, kJsonl, kMarkdown, kHtml, kSarif };
enum class Color { kAuto, kAlways, kNever };

struct Options {
  Command command = Command::kHelp;
  std::vector<std::string> inputs;  // files; for explain, the rule id; for check, rule files
  std::vector<std::string> rule_dirs;
  std::vector<std::string> include;   // globs a file in a directory must match (any one)
  std::vector<std::string> exclude;   // globs that leave a file or directory out
  std::vector<std::string> baseline;  // logs of a healthy run of the same job
  Format format = Format::kText;
  Color color = Color::kAuto;
  bool quiet = false;
  bool redact = false;           // mask hosts, addresses, user names, secrets in all output
  bool read_every_line = false;  // no sparse read of large logs (JobRunner::set_dense_head_bytes)
  std::string config;            // preflight: the model's config.json
  int64_t tp = 1;                // preflight: tensor-parallel size
  int64_t pp = 1;                // preflight: pipeline-parallel size
  std::string gpus;              // preflight: N, an nvidia-smi CSV file, or "auto"
  std::string corpus;            // rules test: a labelled corpus to score the rules on
  int64_t heads = 0;             // repro, preflight: attention heads (else from --config)
  int64_t kv_heads = 0;          // repro, preflight: key/value heads
  int64_t ffn = 0;               // repro, preflight: FFN intermediate size
  int64_t hidden = 0;            // preflight: hidden size (else from --config)
  int64_t layers = 0;            // preflight: layers (else from --config)
  std::string backend = "cpu";   // repro: cpu (cuda where built with CUDA and NCCL)
  int64_t vocab = 0;             // repro, preflight: vocabulary size (repro: else from --config, else 32000)
  bool verify = false;           // diagnose: run the diagnosis' verify command (verify_command.hpp)
  bool full_size = false;        // repro: the model's real sizes instead of scaled-down ones
  std::string help_topic;        // the usage text to print for kHelp
  std::vector<std::string> arguments;  // the command line as given, argv[0] first
  int64_t threads = 0;                 // scan: worker threads (-j), 0 for one per core
  std::string shard;                   // scan: "I/N", this scan's share of the jobs
  std::string job_by = "run";          // scan: run, dir, file, archive (src/scan/job_plan.hpp)
};

Result<Options> parse_options(int argc, const char* const* argv);
std::string usage();

}  // namespace faultline::cli
