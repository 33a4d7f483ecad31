#include "cli/command_table.hpp"

#include "cli/commands.hpp"

namespace faultline::cli {
namespace {

rules::RuleSet load_rules(const Options& options, Output& out) {
  rules::RuleSet rules = rules::RuleSet::shipped();
  for (const auto& directory : options.rule_dirs) rules.add_directory(directory);
  for (const auto& error : rules.errors()) out.err("faultline: " + error + "\n");
  return rules;
}

// The rules of the last command run. A run's rules are freed when the next run loads its own,
// not when the run ends: freeing a few thousand patterns and templates is a tenth of a short
// paste's time, and the process is about to exit. They stay reachable, so no leak is reported.
const rules::RuleSet& keep_rules(rules::RuleSet rules) {
  static rules::RuleSet* kept = nullptr;
  delete kept;
  kept = new rules::RuleSet(std::move(rules));
  return *kept;
}

// Adapts a command that needs the rules in force to the table's run signature.
template <int (*Run)(const Options&, const rules::RuleSet&, Output&)>
int with_rules(const Options& options, Output& out) {
  return Run(options, keep_rules(load_rules(options, out)), out);
}
template <int (*Run)(const rules::RuleSet&, Output&)>
int with_rules_only(const Options& options, Output& out) {
  return Run(keep_rules(load_rules(options, out)), out);
}

// What each command demands of its words and options (CommandInfo::check).

Status unexpected_argument(const Options& options) {
  return Status::error("unexpected argument '" + options.inputs.front() + "'");
}

Status check_no_operands(Options& options, const std::set<std::string>&) {
  return options.inputs.empty() ? Status::ok() : unexpected_argument(options);
}

Status check_scan(Options& options, const std::set<std::string>& given) {
  if (options.inputs.empty()) return Status::error("'scan' needs at least one path");
  if (options.threads < 0 || options.threads > 1024) return Status::error("-j must be between 1 and 1024");
  if (given.count("format") && options.format != Format::kJsonl) return Status::error("'scan' writes jsonl");
  options.format = Format::kJsonl;
  return Status::ok();
}

Status check_merge(Options& options, const std::set<std::string>& given) {
  if (options.inputs.empty()) return Status::error("'merge' needs at least one scan result (JSONL)");
  if (given.count("format") && options.format != Format::kJsonl && options.format != Format::kJson &&
      options.format != Format::kText) {
    return Status::error("'merge' writes jsonl (the summary line) or text");
  }
  if (!given.count("format")) options.format = Format::kJsonl;
  return Status::ok();
}

Status check_preflight(Options& options, const std::set<std::string>& given) {
  if (!options.framework.empty() &&
      !std::set<std::string>{"vllm", "sglang", "tgi", "megatron", "nemo", "deepspeed", "colossalai", "trtllm"}
           .contains(options.framework)) {
    return Status::error(
        "--framework must be one of vllm, sglang, tgi, megatron, nemo, deepspeed, colossalai, "
        "trtllm, not '" +
        options.framework + "'");
  }
  if (options.config.empty() && options.model.empty() && !options.heads && !options.kv_heads &&
      !options.hidden && !options.ffn && !options.vocab && !options.layers && !options.experts &&
      options.gpus.empty()) {
    return Status::error(
        "'preflight' needs --config config.json, or sizes (--heads N, --kv-heads N, --hidden N, "
        "--ffn N, --vocab N, --layers N, --experts N) or --gpus");
  }
  if (!given.count("tp") && !given.count("pp") && !given.count("ep") && options.gpus.empty())
    return Status::error("'preflight' needs --tp N, --pp N, --ep N or --gpus");
  if (options.experts < 0 || (given.count("ep") && options.ep < 1) ||
      (given.count("ffn-multiple") && options.ffn_multiple < 1) ||
      (given.count("virtual-pipeline") && options.virtual_pipeline < 1)) {
    return Status::error("--experts, --ep, --ffn-multiple and --virtual-pipeline must be at least 1");
  }
  if (options.tp < 1 || options.pp < 1) return Status::error("--tp and --pp must be at least 1");
  if (options.heads < 0 || options.kv_heads < 0 || options.hidden < 0 || options.ffn < 0 ||
      options.vocab < 0 || options.layers < 0) {
    return Status::error("--heads, --kv-heads, --hidden, --ffn, --vocab and --layers must be positive");
  }
  if (!options.inputs.empty()) return unexpected_argument(options);
  if (options.format != Format::kText && options.format != Format::kJson)
    return Status::error("'preflight' writes text or json");
  return Status::ok();
}

Status check_repro(Options& options, const std::set<std::string>& given) {
  if (!given.count("tp")) return Status::error("'repro' needs --tp N");
  if (options.tp < 1 || options.tp > 4096) return Status::error("--tp must be between 1 and 4096");
  if (options.config.empty() && options.heads < 1)
    return Status::error("'repro' needs --config config.json or --heads N");
  if (options.heads < 0 || options.kv_heads < 0 || options.ffn < 0 || options.heads > 65536 ||
      options.ffn > 1 << 20 || options.vocab < 0 || options.vocab > 1 << 24) {
    return Status::error("--heads, --kv-heads, --ffn and --vocab must be positive and reasonable");
  }
  if (options.backend != "cpu" && options.backend != "cuda") {
    return Status::error("--backend must be cpu or cuda, not '" + options.backend + "'");
  }
  if (!options.inputs.empty()) return unexpected_argument(options);
  return Status::ok();
}

Status check_rules_check(Options& options, const std::set<std::string>&) {
  if (options.inputs.empty()) return Status::error("'rules check' needs at least one rule file");
  return Status::ok();
}

Status check_rules_docs(Options& options, const std::set<std::string>&) {
  if (options.inputs.size() != 1) return Status::error("'rules docs' takes one output directory");
  return Status::ok();
}

Status check_rules_suggest(Options& options, const std::set<std::string>&) {
  if (options.inputs.empty()) return Status::error("'rules suggest' needs logs or a scan's JSONL");
  return Status::ok();
}

Status check_explain(Options& options, const std::set<std::string>&) {
  if (options.inputs.size() != 1) return Status::error("'explain' takes one rule id or cause");
  return Status::ok();
}

const std::vector<CommandOption> kReadOptions = {
    {"rules"}, {"include"}, {"exclude"}, {"redact"}, {"read-every-line"}};

std::vector<CommandOption> with(std::vector<CommandOption> first, const std::vector<CommandOption>& more) {
  first.insert(first.end(), more.begin(), more.end());
  return first;
}

constexpr std::string_view kTestExitCodes =
    "  0  every check passed\n  1  a check failed\n  2  a usage error, or a rule or file that cannot be "
    "read\n";
constexpr std::string_view kHelpExitCodes = "  0  always\n";

// The commands that read logs: one job, many jobs, and the sharded scans' results.
std::vector<CommandInfo> log_commands() {
  return {
      {.name = "diagnose",
       .arguments = "[FILE|DIR...]",
       .summary = "one job from files, directories or stdin (paste, then Ctrl-D)",
       .details = "Several files make one job; a directory is read recursively, archives member by member.\n"
                  "Without a file, the log is read from stdin.",
       .options = with({{"format"}, {"color"}, {"quiet"}, {"baseline"}, {"verify"}}, kReadOptions),
       .examples = {"faultline diagnose logs/run-42/",
                    "kubectl logs job/train | faultline diagnose --format json"},
       .operands = Operands::kFiles,
       .run = with_rules<run_diagnose>},
      {.name = "scan",
       .arguments = "PATH...",
       .summary = "many jobs (run directories, archives): one JSONL line per job, then a summary line",
       .details = "The summary is also written as text on stderr (not with -q).",
       .options = with({{"jobs"},
                        {"shard"},
                        {"job-by"},
                        {"format", "jsonl (the only one)"},
                        {"quiet", "no summary or progress on stderr"}},
                       kReadOptions),
       .examples = {"faultline scan -j 8 /data/failed-runs/ > scan.jsonl"},
       .operands = Operands::kFiles,
       .check = check_scan,
       .run = with_rules<run_scan>},
      {.name = "merge",
       .arguments = "RESULT.jsonl...",
       .summary = "the summary of sharded scans, from their lines",
       .options = {{"format", "jsonl (default: the summary line), json, text"},
                   {"quiet", "no summary text on stderr"},
                   {"redact"}},
       .examples = {"faultline merge shard-*.jsonl"},
       .operands = Operands::kFiles,
       .check = check_merge,
       .run = run_merge},
  };
}

// The commands that check a model's parallel plan: by arithmetic, and by running a small job.
std::vector<CommandInfo> plan_commands() {
  return {
      {.name = "preflight",
       .arguments = "(--config FILE | --heads N ...) [--tp N] [--pp N] [--gpus N|FILE|auto]",
       .summary = "check a TP/PP plan against the model before launch",
       .details = "Sizes given as options replace the config's.",
       .options = {{"config"},       {"tp"},
                   {"pp"},           {"gpus"},
                   {"heads"},        {"kv-heads"},
                   {"hidden"},       {"ffn"},
                   {"vocab"},        {"layers"},
                   {"experts"},      {"ep"},
                   {"ffn-multiple"}, {"virtual-pipeline"},
                   {"model"},        {"framework"},
                   {"require"},      {"format", "text (default), json"},
                   {"color"},        {"redact"}},
       .examples = {"faultline preflight --config config.json --tp 8 --gpus auto",
                    "faultline preflight --heads 32 --kv-heads 8 --tp 4",
                    "faultline preflight --model Qwen/Qwen2.5-7B-Instruct --tp 8 --gpus 8"},
       .exit_codes = "  0  the plan fits the model\n  1  it does not\n"
                     "  2  a usage error, or a file that cannot be read\n",
       .check = check_preflight,
       .run = run_preflight},
      {.name = "repro",
       .arguments = "(--config FILE | --heads N ...) --tp N [--backend cpu|cuda]",
       .summary = "run a small TP job: reproduce the failure, check the fix",
       .options = {{"config"},
                   {"tp"},
                   {"heads"},
                   {"kv-heads"},
                   {"ffn"},
                   {"vocab"},
                   {"backend"},
                   {"full-size"},
                   {"rules"},
                   {"redact"}},
       .examples = {"faultline repro --heads 32 --tp 6",
                    "faultline repro --config config.json --tp 4 --backend cuda"},
       .exit_codes = "  0  the sharded job matches the reference\n  1  it failed or did not match\n"
                     "  2  a usage error, or no backend or GPU to run it\n",
       .check = check_repro,
       .run = with_rules<run_repro>},
  };
}

// The commands about the rules themselves.
std::vector<CommandInfo> rule_commands() {
  return {
      {.name = "rules list",
       .summary = "the rules in force",
       .options = {{"rules"}, {"redact"}},
       .examples = {"faultline rules list --rules my-rules/"},
       .exit_codes = kTestExitCodes,
       .check = check_no_operands,
       .run = with_rules_only<run_rules_list>},
      {.name = "rules test",
       .arguments = "[--corpus DIR]",
       .summary = "run every rule's embedded examples; with a corpus, also score the rules",
       .details = "With a labelled corpus: accuracy, precision, recall and wrong-line matches.",
       .options = {{"corpus"}, {"rules"}, {"redact"}},
       .examples = {"faultline rules test --rules my-rules/ --corpus corpus/"},
       .exit_codes = kTestExitCodes,
       .check = check_no_operands,
       .run = with_rules<run_rules_test>},
      {.name = "rules check",
       .arguments = "FILE...",
       .summary = "validate rule files (errors as FILE:LINE:COL: message)",
       .options = {{"redact"}},
       .examples = {"faultline rules check my-rules/*.yaml"},
       .exit_codes = kTestExitCodes,
       .operands = Operands::kFiles,
       .check = check_rules_check,
       .run = run_rules_check},
      {.name = "rules patterns",
       .summary = "every rule pattern, one per line, as grep tools take them",
       .options = {{"rules"}},
       .examples = {"faultline rules patterns > patterns.txt && rg -f patterns.txt logs/"},
       .exit_codes = kTestExitCodes,
       .check = check_no_operands,
       .run = with_rules_only<run_rules_patterns>},
      {.name = "rules docs",
       .arguments = "DIR",
       .summary = "write every rule's entry as Markdown (docs/rules)",
       .options = {{"rules"}},
       .examples = {"faultline rules docs docs/rules"},
       .exit_codes = kTestExitCodes,
       .operands = Operands::kFiles,
       .check = check_rules_docs,
       .run = with_rules<run_rules_docs>},
      {.name = "rules suggest",
       .arguments = "(LOG... | SCAN.jsonl...)",
       .summary = "a rule skeleton for each error no rule knows yet",
       .options = {{"rules"}, {"redact"}},
       .examples = {"faultline rules suggest logs/run-42/ > my-rules/new.yaml"},
       .exit_codes = kTestExitCodes,
       .operands = Operands::kFiles,
       .check = check_rules_suggest,
       .run = with_rules<run_rules_suggest>},
      {.name = "explain",
       .arguments = "RULE_ID|CAUSE",
       .summary = "a rule's entry: cause, symptoms, fix, how to confirm",
       .options = {{"rules"}, {"redact"}},
       .examples = {"faultline explain tp.heads_not_divisible"},
       .exit_codes = "  0  the entry was printed\n  2  no rule or cause of that name\n",
       .operands = Operands::kRuleId,
       .check = check_explain,
       .run = with_rules<run_explain>},
  };
}

std::vector<CommandInfo> all_commands() {
  std::vector<CommandInfo> table;
  for (const auto& group : {log_commands(), plan_commands(), rule_commands()})
    table.insert(table.end(), group.begin(), group.end());
  table.push_back({.name = "help",
                   .arguments = "[COMMAND]",
                   .summary = "this overview, or a command's help",
                   .examples = {"faultline help diagnose"},
                   .exit_codes = kHelpExitCodes,
                   .operands = Operands::kCommandName,
                   .run = run_help});
  return table;
}

}  // namespace

// The order of the rows is the order of `faultline help`, the man page and the completions.
const std::vector<CommandInfo>& command_table() {
  static const std::vector<CommandInfo> table = all_commands();
  return table;
}

const CommandInfo* find_command(std::string_view name) {
  for (const auto& info : command_table()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

const CommandInfo& version_command() {
  static const CommandInfo version{
      .name = "--version", .summary = "the version", .exit_codes = kHelpExitCodes, .run = run_version};
  return version;
}

std::vector<std::string> rules_subcommands() {
  std::vector<std::string> names;
  for (const auto& info : command_table()) {
    if (info.name.starts_with("rules ")) names.emplace_back(info.name.substr(6));
  }
  return names;
}

}  // namespace faultline::cli
