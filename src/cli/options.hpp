// The command line: one table of commands (name, help, options, example, run function) from
// which parsing, `faultline help`, `faultline CMD --help` and dispatch are all made, so a
// command is added in one place. parse_options validates into an immutable struct; Boost's
// exceptions stop in options.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"

namespace faultline::cli {

class Output;

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
  std::string model;             // preflight: a catalogue model id
  std::string framework;         // preflight: how the framework splits (vllm, megatron, tgi, trtllm ...)
  std::string require;           // preflight: kv-divisible,vocab-divisible,gpus-multiple,gpus-exact
  std::string backend = "cpu";   // repro: cpu (cuda where built with CUDA and NCCL)
  int64_t vocab = 0;             // repro, preflight: vocabulary size (repro: else from --config, else 32000)
  bool verify = false;           // diagnose: run the diagnosis' verify command (verify_command.hpp)
  bool full_size = false;        // repro: the model's real sizes instead of scaled-down ones
  std::string help_topic;        // kHelp: the command whose help to print ("" for the overview)
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

// An option as one command takes it; `help` words it for that command when not empty.
struct CommandOption {
  std::string_view name;
  std::string_view help = {};
};

// One row of the command table.
struct CommandInfo {
  Command command;
  std::string_view name;       // "diagnose", "rules list"
  std::string_view arguments;  // "[FILE|DIR...]"
  std::string_view summary;    // one line, for `faultline help`
  std::string_view details;    // more lines for `faultline CMD --help`, or empty
  std::vector<CommandOption> options;
  std::vector<std::string_view> examples;
  std::string_view exit_codes;  // this command's own, one per line; empty for kExitCodes
  // Runs the command; returns the exit code (commands.hpp).
  int (*run)(const Options& options, Output& out) = nullptr;
};

// The exit codes of the commands that read logs, as `--help` and the README state them.
inline constexpr std::string_view kExitCodes =
    "  0  no failure found\n"
    "  1  a failure diagnosed (in any job, even when some input was skipped: it is named on stderr)\n"
    "  2  a usage error, or an input error that left nothing diagnosed\n";

const std::vector<CommandInfo>& command_table();
const std::vector<OptionInfo>& option_table();
const CommandInfo* find_command(Command command);
const CommandInfo* find_command(std::string_view name);

// A usage error's message (one line, or two with "did you mean"), or the parsed options.
Result<Options> parse_options(int argc, const char* const* argv);
// The line that follows a usage error: where to read the help of the command the words name.
std::string help_hint(int argc, const char* const* argv);

// `faultline help`: every command with its one-line help, the common options, exit codes.
std::string usage();
// `faultline` with nothing after it: a few lines on stderr.
std::string short_usage();
// `faultline CMD --help`: the command's synopsis, options, examples and exit codes.
std::string command_help(const CommandInfo& command);

// docs/faultline.1, the man page, made from the same table (a unit test keeps the file current).
std::string man_page();
// tools/completions/_faultline (zsh) and faultline.fish (fish), made from the same table: each
// command, its options with their help, and the values of the options that have few.
std::string zsh_completion();
std::string fish_completion();

// Edit distance with adjacent transpositions counted once (`fromat` is 1 from `format`).
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to `word`, when it is near enough to be a misspelling; else empty.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace faultline::cli
