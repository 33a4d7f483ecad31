// The options of the command line: one table of them (name, value, help), and parse_options,
// which reads argv against it and against the command table (command_table.hpp) into an
// immutable Options. Boost.Program_options is called, and its exceptions stop, in options.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"

namespace faultline::cli {

struct CommandInfo;

enum class Format { kText, kJson, kJsonl, kMarkdown, kHtml, kSarif };
enum class Color { kAuto, kAlways, kNever };

struct Options {
  // The command's row of the table (command_table.hpp), which outlives every Options; set by
  // parse_options, never null in what it returns.
  const CommandInfo* command = nullptr;
  std::vector<std::string> inputs;  // files; for explain, the rule id; for check, rule files
  std::vector<std::string> rule_dirs;
  std::vector<std::string> include;   // globs a file in a directory must match (any one)
  std::vector<std::string> exclude;   // globs that leave a file or directory out
  std::vector<std::string> baseline;  // logs of a healthy run of the same job
  Format format = Format::kText;
  // kAuto is resolved by parse_options from NO_COLOR, CLICOLOR_FORCE and TERM=dumb when
  // --color is not given; what stays kAuto means "colour when the output is a terminal".
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
  int64_t experts = 0;           // preflight: experts (else from --config)
  int64_t ep = 0;                // preflight: expert-parallel size, 0 when not given
  int64_t ffn_multiple = 0;      // preflight: the multiple each rank's FFN shard must be
  int64_t virtual_pipeline = 0;  // preflight: Megatron's virtual pipeline size, 0 when not given
  std::string model;             // preflight: a catalogue model id
  std::string framework;         // preflight: how the framework splits (vllm, megatron, tgi, trtllm ...)
  std::string require;           // preflight: kv-divisible,vocab-divisible,gpus-multiple,gpus-exact
  std::string backend = "cpu";   // repro: cpu (cuda where built with CUDA and NCCL)
  int64_t vocab = 0;             // repro, preflight: vocabulary size (repro: else from --config, else 32000)
  bool verify = false;           // diagnose: run the diagnosis' verify command (verify_command.hpp)
  bool full_size = false;        // repro: the model's real sizes instead of scaled-down ones
  std::string help_topic;        // help: the command whose help to print ("" for the overview)
  std::vector<std::string> arguments;  // the command line as given, argv[0] first
  int64_t threads = 0;                 // scan: worker threads (-j), 0 for one per core
  std::string shard;                   // scan: "I/N", this scan's share of the jobs
  std::string job_by = "run";          // scan: run, dir, file, archive (src/scan/job_plan.hpp)
};

// One option of the command line. A repeatable option collects every value; for the others,
// the last one given wins.
struct OptionInfo {
  std::string_view name;   // the long name, without "--"
  char short_name = 0;     // 0 when there is none
  std::string_view value;  // the value's placeholder ("DIR"); empty for a switch
  std::string_view help;   // one line, for the commands that do not word it themselves
  bool repeatable = false;
};

const std::vector<OptionInfo>& option_table();
// The option of that long name, or nullptr.
const OptionInfo* find_option(std::string_view name);

// A usage error's message (one line, or two with "did you mean"), or the parsed options.
Result<Options> parse_options(int argc, const char* const* argv);

}  // namespace faultline::cli
