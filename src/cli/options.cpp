#include "cli/options.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cstdlib>
#include <set>

#include "base/text.hpp"
#include "cli/commands.hpp"

namespace faultline::cli {
namespace po = boost::program_options;

const std::vector<OptionInfo>& option_table() {
  static const std::vector<OptionInfo> table = {
      {"rules", 0, "DIR", "load more rule packs; a rule with a shipped id replaces it (repeatable)", true},
      {"include", 0, "GLOB", "in directories, read only files matching one of these (repeatable)", true},
      {"exclude", 0, "GLOB", "in directories, leave out files and folders matching these (repeatable)", true},
      {"baseline", 0, "LOG", "a healthy run of the same job: what it shows too is set aside (repeatable)",
       true},
      {"jobs", 'j', "N", "worker threads (default: one per core)"},
      {"shard", 0, "I/N", "only the jobs of shard I of N (0-based; a hash of each job's path)"},
      {"job-by", 0, "RULE",
       "what a job is: run (default: a run directory or an archive), dir, file, archive"},
      {"format", 0, "FORMAT", "text (default), json, jsonl, markdown, html, sarif"},
      {"color", 0, "WHEN", "auto (default: on a terminal, unless NO_COLOR or TERM=dumb), always, never"},
      {"quiet", 'q', "", "print the diagnosis and its evidence only"},
      {"redact", 0, "",
       "mask hostnames, IP and MAC addresses, user names, e-mail addresses, tokens and secrets"},
      {"verify", 0, "",
       "run the diagnosis' verify command when it is a faultline preflight or repro command"},
      {"read-every-line", 0, "",
       "parse every line of large logs too (slower; by default only likely lines past 1 MiB)"},
      {"config", 0, "FILE", "the model's Hugging Face config.json"},
      {"tp", 0, "N", "tensor-parallel size"},
      {"pp", 0, "N", "pipeline-parallel size"},
      {"gpus", 0, "N|FILE|auto", "the GPUs: a count, an nvidia-smi --query-gpu CSV file, or auto"},
      {"corpus", 0, "DIR", "also score the rules on a labelled corpus"},
      {"heads", 0, "N", "attention heads (replaces the config's)"},
      {"kv-heads", 0, "N", "key/value heads"},
      {"hidden", 0, "N", "hidden size"},
      {"ffn", 0, "N", "FFN intermediate size"},
      {"vocab", 0, "N", "vocabulary size"},
      {"layers", 0, "N", "layers"},
      {"model", 0, "ID", "a Hugging Face model id from the catalogue (its sizes; options replace them)"},
      {"require", 0, "LIST",
       "what the framework demands beyond its defaults, comma-separated: kv-divisible (no KV-head "
       "replication), "
       "vocab-divisible (no vocabulary padding), layers-divisible (no uneven pipeline stages), gpus-multiple "
       "(GPUs a multiple of TP×PP), gpus-exact (GPUs = "
       "TP×PP)"},
      {"framework", 0, "NAME",
       "how the framework splits: vllm, sglang (default: KV heads replicated), tgi (vocabulary unpadded), "
       "megatron, nemo, deepspeed (query groups divisible, GPUs a multiple of TP×PP), trtllm (GPUs = TP×PP)"},
      {"backend", 0, "cpu|cuda", "cpu (default; always built) or cuda (faultline-cuda, with CUDA and NCCL)"},
      {"full-size", 0, "", "the model's real sizes instead of scaled-down ones"},
      {"help", 'h', "", "this command's help"},
      {"version", 0, "", "the version"},
  };
  return table;
}

namespace {

const OptionInfo* find_option(std::string_view name) {
  for (const auto& option : option_table()) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

rules::RuleSet load_rules(const Options& options, Output& out) {
  rules::RuleSet rules = rules::RuleSet::shipped();
  for (const auto& directory : options.rule_dirs) rules.add_directory(directory);
  for (const auto& error : rules.errors()) out.err("faultline: " + error + "\n");
  return rules;
}

// Adapts a command that needs the rules in force to the table's run signature.
template <int (*Run)(const Options&, const rules::RuleSet&, Output&)>
int with_rules(const Options& options, Output& out) {
  return Run(options, load_rules(options, out), out);
}
template <int (*Run)(const rules::RuleSet&, Output&)>
int with_rules_only(const Options& options, Output& out) {
  return Run(load_rules(options, out), out);
}

int run_help(const Options& options, Output& out) {
  const CommandInfo* topic = options.help_topic.empty() ? nullptr : find_command(options.help_topic);
  out.out(topic ? command_help(*topic) : usage());
  return 0;
}

int run_version(const Options&, Output& out) {
  out.out("faultline " FAULTLINE_VERSION "\n");
  return 0;
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

}  // namespace

const std::vector<CommandInfo>& command_table() {
  static const std::vector<CommandInfo> table = {
      {Command::kDiagnose,
       "diagnose",
       "[FILE|DIR...]",
       "one job from files, directories or stdin (paste, then Ctrl-D)",
       "Several files make one job; a directory is read recursively, archives member by member.\n"
       "Without a file, the log is read from stdin.",
       with({{"format"}, {"color"}, {"quiet"}, {"baseline"}, {"verify"}}, kReadOptions),
       {"faultline diagnose logs/run-42/", "kubectl logs job/train | faultline diagnose --format json"},
       {},
       with_rules<run_diagnose>},
      {Command::kScan,
       "scan",
       "PATH...",
       "many jobs (run directories, archives): one JSONL line per job, then a summary line",
       "The summary is also written as text on stderr (not with -q).",
       with({{"jobs"},
             {"shard"},
             {"job-by"},
             {"format", "jsonl (the only one)"},
             {"quiet", "no summary or progress on stderr"}},
            kReadOptions),
       {"faultline scan -j 8 /data/failed-runs/ > scan.jsonl"},
       {},
       with_rules<run_scan>},
      {Command::kMerge,
       "merge",
       "RESULT.jsonl...",
       "the summary of sharded scans, from their lines",
       "",
       {{"format", "jsonl (default: the summary line), json, text"},
        {"quiet", "no summary text on stderr"},
        {"redact"}},
       {"faultline merge shard-*.jsonl"},
       {},
       run_merge},
      {Command::kPreflight,
       "preflight",
       "(--config FILE | --heads N ...) [--tp N] [--pp N] [--gpus N|FILE|auto]",
       "check a TP/PP plan against the model before launch",
       "Sizes given as options replace the config's.",
       {{"config"},
        {"tp"},
        {"pp"},
        {"gpus"},
        {"heads"},
        {"kv-heads"},
        {"hidden"},
        {"ffn"},
        {"vocab"},
        {"layers"},
        {"model"},
        {"framework"},
        {"require"},
        {"format", "text (default), json"},
        {"color"},
        {"redact"}},
       {"faultline preflight --config config.json --tp 8 --gpus auto",
        "faultline preflight --heads 32 --kv-heads 8 --tp 4",
        "faultline preflight --model Qwen/Qwen2.5-7B-Instruct --tp 8 --gpus 8"},
       "  0  the plan fits the model\n  1  it does not\n  2  a usage error, or a file that cannot be read\n",
       run_preflight},
      {Command::kRepro,
       "repro",
       "(--config FILE | --heads N ...) --tp N [--backend cpu|cuda]",
       "run a small TP job: reproduce the failure, check the fix",
       "",
       {{"config"},
        {"tp"},
        {"heads"},
        {"kv-heads"},
        {"ffn"},
        {"vocab"},
        {"backend"},
        {"full-size"},
        {"rules"},
        {"redact"}},
       {"faultline repro --heads 32 --tp 6", "faultline repro --config config.json --tp 4 --backend cuda"},
       "  0  the sharded job matches the reference\n  1  it failed or did not match\n"
       "  2  a usage error, or no backend or GPU to run it\n",
       with_rules<run_repro>},
      {Command::kRulesList,
       "rules list",
       "",
       "the rules in force",
       "",
       {{"rules"}, {"redact"}},
       {"faultline rules list --rules my-rules/"},
       kTestExitCodes,
       with_rules_only<run_rules_list>},
      {Command::kRulesTest,
       "rules test",
       "[--corpus DIR]",
       "run every rule's embedded examples; with a corpus, also score the rules",
       "With a labelled corpus: accuracy, precision, recall and wrong-line matches.",
       {{"corpus"}, {"rules"}, {"redact"}},
       {"faultline rules test --rules my-rules/ --corpus corpus/"},
       kTestExitCodes,
       with_rules<run_rules_test>},
      {Command::kRulesCheck,
       "rules check",
       "FILE...",
       "validate rule files (errors as FILE:LINE:COL: message)",
       "",
       {{"redact"}},
       {"faultline rules check my-rules/*.yaml"},
       kTestExitCodes,
       run_rules_check},
      {Command::kRulesPatterns,
       "rules patterns",
       "",
       "every rule pattern, one per line, as grep tools take them",
       "",
       {{"rules"}},
       {"faultline rules patterns > patterns.txt && rg -f patterns.txt logs/"},
       kTestExitCodes,
       with_rules_only<run_rules_patterns>},
      {Command::kRulesDocs,
       "rules docs",
       "DIR",
       "write every rule's entry as Markdown (docs/rules)",
       "",
       {{"rules"}},
       {"faultline rules docs docs/rules"},
       kTestExitCodes,
       with_rules<run_rules_docs>},
      {Command::kRulesSuggest,
       "rules suggest",
       "(LOG... | SCAN.jsonl...)",
       "a rule skeleton for each error no rule knows yet",
       "",
       {{"rules"}, {"redact"}},
       {"faultline rules suggest logs/run-42/ > my-rules/new.yaml"},
       kTestExitCodes,
       with_rules<run_rules_suggest>},
      {Command::kExplain,
       "explain",
       "RULE_ID|CAUSE",
       "a rule's entry: cause, symptoms, fix, how to confirm",
       "",
       {{"rules"}, {"redact"}},
       {"faultline explain tp.heads_not_divisible"},
       "  0  the entry was printed\n  2  no rule or cause of that name\n",
       with_rules<run_explain>},
      {Command::kHelp,
       "help",
       "[COMMAND]",
       "this overview, or a command's help",
       "",
       {},
       {"faultline help diagnose"},
       kHelpExitCodes,
       run_help},
  };
  return table;
}

const CommandInfo* find_command(Command command) {
  if (command == Command::kVersion) {
    static const CommandInfo version{Command::kVersion, "--version", "", "the version", "", {}, {},
                                     kHelpExitCodes,    run_version};
    return &version;
  }
  for (const auto& info : command_table()) {
    if (info.command == command) return &info;
  }
  return nullptr;
}

const CommandInfo* find_command(std::string_view name) {
  for (const auto& info : command_table()) {
    if (info.name == name) return &info;
  }
  return nullptr;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string nearest(std::string_view word, const std::vector<std::string>& candidates) {
  // As ninja's spellcheck: near enough is at most 2 edits, and less than half the word.
  size_t best_distance = std::min<size_t>(3, (word.size() + 1) / 2);
  std::string best;
  for (const auto& candidate : candidates) {
    size_t distance = edit_distance(word, candidate);
    if (distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

namespace {

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view prefix = "") {
  std::string guess = nearest(word, candidates);
  return guess.empty() ? "" : "; did you mean '" + std::string(prefix) + guess + "'?";
}

Result<Format> parse_format(const std::string& text) {
  if (text == "text") return Format::kText;
  if (text == "json") return Format::kJson;
  if (text == "jsonl") return Format::kJsonl;
  if (text == "markdown" || text == "md") return Format::kMarkdown;
  if (text == "html") return Format::kHtml;
  if (text == "sarif") return Format::kSarif;
  return Status::error("unknown --format '" + text + "'" +
                       did_you_mean(text, {"text", "json", "jsonl", "markdown", "html", "sarif"}) +
                       " (text, json, jsonl, markdown, html, sarif)");
}

Result<Color> parse_color(const std::string& text) {
  if (text == "auto") return Color::kAuto;
  if (text == "always") return Color::kAlways;
  if (text == "never") return Color::kNever;
  return Status::error("unknown --color '" + text + "'" + did_you_mean(text, {"auto", "always", "never"}) +
                       " (auto, always, never)");
}

// --color auto, before the terminal is asked: NO_COLOR (no-color.org) and TERM=dumb turn colour
// off, CLICOLOR_FORCE turns it on for pipes too; an explicit --color beats all three.
Color color_from_environment() {
  auto set = [](const char* name) {
    const char* value = std::getenv(name);
    return value && *value;
  };
  if (set("NO_COLOR")) return Color::kNever;
  if (const char* force = std::getenv("CLICOLOR_FORCE"); force && *force && std::string_view(force) != "0")
    return Color::kAlways;
  if (const char* term = std::getenv("TERM"); term && std::string_view(term) == "dumb") return Color::kNever;
  return Color::kAuto;
}

Result<int64_t> parse_integer(const std::string& name, const std::string& text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size())
    return Status::error("--" + name + " takes a whole number, not '" + text + "'");
  return value;
}

// Where each value goes. Repeatable options collect; the others keep the last value given.
Status apply(Options& options, std::string& format, std::string& color, const std::string& name,
             const std::string& value) {
  auto integer = [&](int64_t& field) -> Status {
    auto parsed = parse_integer(name, value);
    if (!parsed) return parsed.status();
    field = *parsed;
    return Status::ok();
  };
  if (name == "rules")
    options.rule_dirs.push_back(value);
  else if (name == "include")
    options.include.push_back(value);
  else if (name == "exclude")
    options.exclude.push_back(value);
  else if (name == "baseline")
    options.baseline.push_back(value);
  else if (name == "jobs")
    return integer(options.threads);
  else if (name == "shard")
    options.shard = value;
  else if (name == "job-by")
    options.job_by = value;
  else if (name == "format")
    format = value;
  else if (name == "color")
    color = value;
  else if (name == "quiet")
    options.quiet = true;
  else if (name == "redact")
    options.redact = true;
  else if (name == "verify")
    options.verify = true;
  else if (name == "read-every-line")
    options.read_every_line = true;
  else if (name == "config")
    options.config = value;
  else if (name == "tp")
    return integer(options.tp);
  else if (name == "pp")
    return integer(options.pp);
  else if (name == "gpus")
    options.gpus = value;
  else if (name == "corpus")
    options.corpus = value;
  else if (name == "heads")
    return integer(options.heads);
  else if (name == "kv-heads")
    return integer(options.kv_heads);
  else if (name == "hidden")
    return integer(options.hidden);
  else if (name == "ffn")
    return integer(options.ffn);
  else if (name == "vocab")
    return integer(options.vocab);
  else if (name == "layers")
    return integer(options.layers);
  else if (name == "backend")
    options.backend = value;
  else if (name == "model")
    options.model = value;
  else if (name == "framework")
    options.framework = value;
  else if (name == "require")
    options.require = value;
  else if (name == "full-size")
    options.full_size = true;
  return Status::ok();
}

std::vector<std::string> command_words() {
  std::set<std::string> words;
  for (const auto& info : command_table()) words.emplace(info.name.substr(0, info.name.find(' ')));
  return {words.begin(), words.end()};
}

std::vector<std::string> rules_subcommands() {
  std::vector<std::string> names;
  for (const auto& info : command_table()) {
    if (info.name.starts_with("rules ")) names.emplace_back(info.name.substr(6));
  }
  return names;
}

// The command the words name, taking its one or two words off the front.
Result<const CommandInfo*> parse_command(std::vector<std::string>& words) {
  std::string word = words.front();
  words.erase(words.begin());
  if (word == "rules") {
    std::string choices;
    for (const auto& sub : rules_subcommands()) choices += (choices.empty() ? "" : ", ") + sub;
    if (words.empty()) return Status::error("'rules' needs one of: " + choices);
    std::string sub = words.front();
    words.erase(words.begin());
    if (const CommandInfo* info = find_command("rules " + sub)) return info;
    return Status::error("unknown 'rules' command '" + sub + "'" + did_you_mean(sub, rules_subcommands()) +
                         " (" + choices + ")");
  }
  if (const CommandInfo* info = find_command(std::string_view(word)); info && word != "rules") return info;
  return Status::error("unknown command '" + word + "'" + did_you_mean(word, command_words()));
}

std::vector<std::string> long_names(const std::vector<CommandOption>& allowed) {
  std::vector<std::string> names;
  for (const auto& option : allowed) names.push_back(std::string(option.name));
  names.push_back("help");
  return names;
}

// The commands that take an option, for "--verify is for 'diagnose'".
std::string commands_taking(std::string_view option) {
  std::string names;
  for (const auto& info : command_table()) {
    for (const auto& taken : info.options) {
      if (taken.name == option) {
        names += (names.empty() ? "'" : ", '") + std::string(info.name) + "'";
        break;
      }
    }
  }
  return names;
}

Status validate(Options& options, const std::set<std::string>& given);

}  // namespace

Result<Options> parse_options(int argc, const char* const* argv) {
  po::options_description described("options");
  for (const auto& option : option_table()) {
    std::string spelling(option.name);
    if (option.short_name) spelling += std::string(",") + option.short_name;
    if (option.value.empty())
      described.add_options()(spelling.c_str(), "");
    else
      described.add_options()(spelling.c_str(), po::value<std::string>(), "");
  }
  described.add_options()("words", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("words", -1);
  po::parsed_options parsed(&described);
  try {
    // No guessing of abbreviations: a misspelling gets "did you mean" instead of a surprise.
    int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    parsed = po::command_line_parser(argc, argv)
                 .options(described)
                 .positional(positional)
                 .style(style)
                 .allow_unregistered()
                 .run();
  } catch (const po::error& e) {
    return Status::error(e.what());
  }

  Options options;
  options.arguments.assign(argv, argv + argc);
  std::vector<std::string> words;
  std::string unknown;
  std::vector<std::pair<std::string, std::string>> values;  // in the order given
  std::set<std::string> given;
  for (const auto& option : parsed.options) {
    if (option.unregistered) {
      if (unknown.empty())
        unknown = option.original_tokens.empty() ? option.string_key : option.original_tokens[0];
      continue;
    }
    if (option.string_key == "words") {
      words.insert(words.end(), option.value.begin(), option.value.end());
      continue;
    }
    values.emplace_back(option.string_key, option.value.empty() ? "" : option.value.back());
    given.insert(option.string_key);
  }
  if (given.count("version")) {
    options.command = Command::kVersion;
    return options;
  }
  const CommandInfo* command = nullptr;
  if (!words.empty()) {
    auto found = parse_command(words);
    if (!found) return found.status();
    command = *found;
  }
  if (!unknown.empty()) {
    std::string bare = unknown.substr(0, unknown.find('='));
    std::string name = bare.substr(bare.find_first_not_of('-'));
    std::vector<std::string> candidates;
    if (command)
      candidates = long_names(command->options);
    else
      for (const auto& option : option_table()) candidates.emplace_back(option.name);
    return Status::error("unknown option '" + bare + "'" + did_you_mean(name, candidates, "--"));
  }
  if (!command || command->command == Command::kHelp) {
    options.command = Command::kHelp;
    if (command && !words.empty()) {
      std::string topic = words.front();
      if (topic == "rules" && words.size() > 1) topic += " " + words[1];
      if (!find_command(std::string_view(topic))) {
        std::vector<std::string> names;
        for (const auto& info : command_table()) names.emplace_back(info.name);
        return Status::error("no help for '" + topic + "'" + did_you_mean(topic, names));
      }
      options.help_topic = topic;
    }
    return options;
  }
  options.command = command->command;
  if (given.count("help")) {
    options.command = Command::kHelp;
    options.help_topic = std::string(command->name);
    return options;
  }
  for (const auto& name : given) {
    bool taken = std::any_of(command->options.begin(), command->options.end(),
                             [&](const CommandOption& option) { return option.name == name; });
    if (taken) continue;
    std::string takers = commands_taking(name);
    return Status::error(
        "--" + name +
        (takers.empty() ? " is not an option of '" + std::string(command->name) + "'" : " is for " + takers));
  }
  std::string format = "text", color = "auto";
  for (const auto& [name, value] : values) {
    if (Status status = apply(options, format, color, name, value); !status) return status;
  }
  options.inputs = std::move(words);
  auto parsed_format = parse_format(format);
  if (!parsed_format) return parsed_format.status();
  options.format = *parsed_format;
  auto parsed_color = parse_color(color);
  if (!parsed_color) return parsed_color.status();
  options.color = given.count("color") ? *parsed_color : color_from_environment();
  if (Status status = validate(options, given); !status) return status;
  return options;
}

namespace {

Status unexpected_argument(const Options& options) {
  return Status::error("unexpected argument '" + options.inputs.front() + "'");
}

Status validate(Options& options, const std::set<std::string>& given) {
  switch (options.command) {
    case Command::kExplain:
      if (options.inputs.size() != 1) return Status::error("'explain' takes one rule id or cause");
      break;
    case Command::kRulesCheck:
      if (options.inputs.empty()) return Status::error("'rules check' needs at least one rule file");
      break;
    case Command::kRepro:
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
      break;
    case Command::kPreflight:
      if (!options.framework.empty() && !std::set<std::string>{"vllm", "sglang", "tgi", "megatron", "nemo",
                                                               "deepspeed", "colossalai", "trtllm"}
                                             .contains(options.framework)) {
        return Status::error(
            "--framework must be one of vllm, sglang, tgi, megatron, nemo, deepspeed, colossalai, "
            "trtllm, not '" +
            options.framework + "'");
      }
      if (options.config.empty() && options.model.empty() && !options.heads && !options.kv_heads &&
          !options.hidden && !options.ffn && !options.vocab && !options.layers && options.gpus.empty()) {
        return Status::error(
            "'preflight' needs --config config.json, or sizes (--heads N, --kv-heads N, --hidden N, "
            "--ffn N, --vocab N, --layers N) or --gpus");
      }
      if (!given.count("tp") && !given.count("pp") && options.gpus.empty())
        return Status::error("'preflight' needs --tp N, --pp N or --gpus");
      if (options.tp < 1 || options.pp < 1) return Status::error("--tp and --pp must be at least 1");
      if (options.heads < 0 || options.kv_heads < 0 || options.hidden < 0 || options.ffn < 0 ||
          options.vocab < 0 || options.layers < 0) {
        return Status::error("--heads, --kv-heads, --hidden, --ffn, --vocab and --layers must be positive");
      }
      if (!options.inputs.empty()) return unexpected_argument(options);
      if (options.format != Format::kText && options.format != Format::kJson)
        return Status::error("'preflight' writes text or json");
      break;
    case Command::kScan:
      if (options.inputs.empty()) return Status::error("'scan' needs at least one path");
      if (options.threads < 0 || options.threads > 1024)
        return Status::error("-j must be between 1 and 1024");
      if (given.count("format") && options.format != Format::kJsonl)
        return Status::error("'scan' writes jsonl");
      options.format = Format::kJsonl;
      break;
    case Command::kMerge:
      if (options.inputs.empty()) return Status::error("'merge' needs at least one scan result (JSONL)");
      if (given.count("format") && options.format != Format::kJsonl && options.format != Format::kJson &&
          options.format != Format::kText) {
        return Status::error("'merge' writes jsonl (the summary line) or text");
      }
      if (!given.count("format")) options.format = Format::kJsonl;
      break;
    case Command::kRulesDocs:
      if (options.inputs.size() != 1) return Status::error("'rules docs' takes one output directory");
      break;
    case Command::kRulesSuggest:
      if (options.inputs.empty()) return Status::error("'rules suggest' needs logs or a scan's JSONL");
      break;
    case Command::kRulesList:
    case Command::kRulesTest:
    case Command::kRulesPatterns:
      if (!options.inputs.empty()) return unexpected_argument(options);
      break;
    default:
      break;
  }
  return Status::ok();
}

// Two columns: the left padded to `width`, the right on the next line when the left is longer.
void two_columns(std::string& out, std::string_view left, std::string_view right, size_t width) {
  out += "  " + std::string(left);
  if (left.size() + 2 > width) {
    out += "\n" + std::string(width + 2, ' ');
  } else {
    out += std::string(width - left.size(), ' ');
  }
  out += std::string(right) + "\n";
}

std::string option_spelling(const OptionInfo& option) {
  std::string text = option.short_name ? std::string("-") + option.short_name + ", --" : "--";
  text += option.name;
  if (!option.value.empty()) text += " " + std::string(option.value);
  return text;
}

}  // namespace

std::string help_hint(int argc, const char* const* argv) {
  std::vector<std::string> words;
  for (int i = 1; i < argc && words.size() < 2; ++i) {
    std::string_view word = argv[i];
    if (word.starts_with("-")) {
      std::string_view name = word.substr(word.find_first_not_of('-'));
      const OptionInfo* option = nullptr;
      for (const auto& info : option_table()) {
        if (info.name == name || (word.size() == 2 && info.short_name == word[1])) option = &info;
      }
      if (option && !option->value.empty() && word.find('=') == std::string_view::npos) ++i;
      continue;
    }
    words.emplace_back(word);
    if (words.front() != "rules") break;
  }
  std::string name = words.empty() ? "" : words.front();
  if (name == "rules" && words.size() > 1) name += " " + words[1];
  if (!name.empty() && find_command(std::string_view(name)) && name != "help")
    return "Run 'faultline " + name + " --help' for its options.\n";
  return "Run 'faultline help' for the commands.\n";
}

std::string usage() {
  std::string out =
      "faultline: find the rank that failed first in a multi-GPU job's logs, and why.\n\nUsage:\n";
  for (const auto& info : command_table()) {
    std::string left = "faultline " + std::string(info.name);
    if (!info.arguments.empty() && info.arguments.size() < 24) left += " " + std::string(info.arguments);
    two_columns(out, left, info.summary, 36);
  }
  out += "\nCommon options:\n";
  for (std::string_view name : {"rules", "format", "color", "quiet", "redact", "help", "version"}) {
    const OptionInfo* option = find_option(name);
    two_columns(out, option_spelling(*option), option->help, 20);
  }
  out += "\n'faultline COMMAND --help' lists a command's own options, with examples.\n";
  out += "\nExit codes:\n" + std::string(kExitCodes);
  out +=
      "\nEnvironment: NO_COLOR and TERM=dumb turn colour off, CLICOLOR_FORCE turns it on; COLUMNS\n"
      "sets the width of the text report on a terminal.\n";
  return out;
}

std::string short_usage() {
  return "usage: faultline COMMAND [OPTIONS] [FILE...]\n"
         "  faultline diagnose [FILE|DIR...]   diagnose one job from files, directories or stdin\n"
         "Run 'faultline help' for the commands, 'faultline COMMAND --help' for one command.\n";
}

std::string command_help(const CommandInfo& command) {
  std::string out = "Usage: faultline " + std::string(command.name);
  if (!command.arguments.empty()) out += " " + std::string(command.arguments);
  if (!command.options.empty()) out += " [OPTIONS]";
  out += "\n\n" + std::string(1, static_cast<char>(std::toupper(command.summary.front()))) +
         std::string(command.summary.substr(1)) + ".\n";
  if (!command.details.empty()) out += std::string(command.details) + "\n";
  out += "\nOptions:\n";
  for (const auto& taken : command.options) {
    const OptionInfo* option = find_option(taken.name);
    two_columns(out, option_spelling(*option), taken.help.empty() ? option->help : taken.help, 22);
  }
  two_columns(out, "-h, --help", "this help", 22);
  if (!command.examples.empty()) {
    out += "\nExamples:\n";
    for (const auto& example : command.examples) out += "  $ " + std::string(example) + "\n";
  }
  out += "\nExit codes:\n" + std::string(command.exit_codes.empty() ? kExitCodes : command.exit_codes);
  return out;
}

namespace {

// Text for roff: a leading dot or quote would be a request, a backslash an escape, "-" a hyphen.
std::string roff(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '\\')
      out += "\\e";
    else if (c == '-')
      out += "\\-";
    else
      out += c;
  }
  if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
  return out;
}

std::string roff_lines(std::string_view text) {
  std::string out;
  while (!text.empty()) {
    size_t end = text.find('\n');
    out += roff(text.substr(0, end)) + "\n";
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
  }
  return out;
}

}  // namespace

std::string man_page() {
  std::string out =
      ".\\\" Generated from faultline's command table (src/cli/options.cpp); do not edit.\n"
      ".TH FAULTLINE 1 \"\" \"faultline " FAULTLINE_VERSION
      "\" \"User Commands\"\n"
      ".SH NAME\nfaultline \\- find the rank that failed first in a multi\\-GPU job's logs, and why\n"
      ".SH SYNOPSIS\n";
  for (const auto& info : command_table())
    out += ".B faultline " + roff(info.name) + "\n" +
           (info.arguments.empty() ? "" : roff(info.arguments) + "\n") + ".br\n";
  out +=
      ".SH DESCRIPTION\n"
      "faultline reads the logs of a crashed multi\\-GPU training or inference job and says which rank\n"
      "failed first, why, what to change, and how to check the change. Everything runs offline.\n"
      ".SH COMMANDS\n";
  for (const auto& info : command_table()) {
    out += ".TP\n.B faultline " + roff(info.name) + " " + roff(info.arguments) + "\n" + roff(info.summary) +
           ".\n";
    if (!info.details.empty()) out += roff_lines(info.details);
    std::vector<std::string> names;
    for (const auto& option : info.options) names.push_back("\\-\\-" + roff(option.name));
    if (!names.empty()) {
      out += "Options:";
      for (const auto& name : names) out += " " + name;
      out += ".\n";
    }
    for (const auto& example : info.examples) out += ".br\n.RS\n.B $ " + roff(example) + "\n.RE\n";
  }
  out += ".SH OPTIONS\n";
  for (const auto& option : option_table()) {
    out += ".TP\n.B ";
    if (option.short_name) out += "\\-" + std::string(1, option.short_name) + ", ";
    out += "\\-\\-" + roff(option.name);
    if (!option.value.empty()) out += " \\fI" + roff(option.value) + "\\fR";
    out += "\n" + roff(option.help) + "\n";
  }
  out += ".SH EXIT STATUS\n";
  std::string_view codes = kExitCodes;
  while (!codes.empty()) {
    size_t end = codes.find('\n');
    std::string_view line = trim(codes.substr(0, end));
    out += ".TP\n.B " + std::string(line.substr(0, 1)) + "\n" + roff(trim(line.substr(1))) + "\n";
    codes.remove_prefix(end == std::string_view::npos ? codes.size() : end + 1);
  }
  out +=
      ".SH ENVIRONMENT\n"
      ".TP\n.B NO_COLOR\nWhen set and not empty, no colour (unless \\-\\-color always).\n"
      ".TP\n.B CLICOLOR_FORCE\nWhen set and not 0, colour even when the output is not a terminal.\n"
      ".TP\n.B TERM\nWhen dumb, no colour.\n"
      ".TP\n.B COLUMNS\nThe width the text report is wrapped to on a terminal.\n"
      ".SH SEE ALSO\n"
      ".BR faultline\\ help\\ COMMAND ,\n"
      ".B faultline explain RULE_ID\n";
  return out;
}

namespace {

// The values an option takes, where they are few; empty for free values.
std::vector<std::string_view> option_values(std::string_view name) {
  if (name == "format") return {"text", "json", "jsonl", "markdown", "html", "sarif"};
  if (name == "color") return {"auto", "always", "never"};
  if (name == "backend") return {"cpu", "cuda"};
  if (name == "job-by") return {"run", "dir", "file", "archive"};
  if (name == "framework")
    return {"vllm", "sglang", "tgi", "megatron", "nemo", "deepspeed", "colossalai", "trtllm"};
  return {};
}

enum class ValueKind { kNone, kDirectory, kFile, kWords, kFree };

ValueKind value_kind(const OptionInfo& option) {
  if (option.value.empty()) return ValueKind::kNone;
  if (!option_values(option.name).empty()) return ValueKind::kWords;
  if (option.value == "DIR") return ValueKind::kDirectory;
  if (option.value == "FILE" || option.value == "LOG" || option.value.find("FILE") != std::string_view::npos)
    return ValueKind::kFile;
  return ValueKind::kFree;
}

// A command's own words for an option, else the option's.
std::string_view option_help(const CommandOption& taken, const OptionInfo& option) {
  return taken.help.empty() ? option.help : taken.help;
}

// Whether a command's arguments are files (diagnose, scan, merge, rules check, rules suggest).
bool takes_files(const CommandInfo& command) {
  for (std::string_view word : {"FILE", "DIR", "LOG", "PATH", "RESULT"}) {
    if (command.arguments.find(word) != std::string_view::npos && !command.arguments.starts_with("(--") &&
        !command.arguments.starts_with("[--"))
      return true;
  }
  return false;
}

std::string single_quoted_sh(std::string_view text) {  // for zsh: 'it'\''s'
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string single_quoted_fish(std::string_view text) {  // fish: \' and \\ inside '...'
  std::string out = "'";
  for (char c : text) {
    if (c == '\'' || c == '\\') out += '\\';
    out += c;
  }
  return out + "'";
}

// zsh's _describe reads ':' as the end of the word; an _arguments spec reads brackets, and ':'
// outside them.
std::string zsh_text(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == ':' || c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}
std::string zsh_bracketed(std::string_view text) {
  std::string out = "[";
  for (char c : text) {
    if (c == '[' || c == ']' || c == '\\') out += '\\';
    out += c;
  }
  return out + "]";
}

std::string join_words(const std::vector<std::string_view>& words) {
  std::string out;
  for (auto word : words) out += (out.empty() ? "" : " ") + std::string(word);
  return out;
}

std::string subcommand_word(const CommandInfo& command) {  // "list" of "rules list"
  std::string_view name = command.name;
  return std::string(name.substr(name.find(' ') + 1));
}

bool is_rules_command(const CommandInfo& command) {
  return command.name.starts_with("rules ");
}

}  // namespace

std::string zsh_completion() {
  std::string out =
      "#compdef faultline faultline-cuda\n"
      "# zsh completion for faultline, generated from its command table (src/cli/options.cpp) by\n"
      "# zsh_completion(); do not edit. Installed to share/zsh/site-functions/_faultline.\n\n"
      "_faultline_rule_ids() {\n"
      "  local -a ids\n"
      "  ids=(${(f)\"$(_call_program rules faultline rules list 2>/dev/null | awk 'NF > 1 {print $1}')\"})\n"
      "  _describe -t rules 'rule id or cause' ids\n"
      "}\n\n"
      "_faultline() {\n"
      "  local -a commands rules_commands\n"
      "  commands=(\n";
  std::vector<std::string_view> names;
  for (const auto& command : command_table()) {
    if (is_rules_command(command)) continue;
    out += "    " + single_quoted_sh(std::string(command.name) + ":" + zsh_text(command.summary)) + "\n";
    names.push_back(command.name);
  }
  out += "    'rules:the rules\\: list, test, check, patterns, docs, suggest'\n  )\n  rules_commands=(\n";
  for (const auto& command : command_table()) {
    if (is_rules_command(command))
      out += "    " + single_quoted_sh(subcommand_word(command) + ":" + zsh_text(command.summary)) + "\n";
  }
  out +=
      "  )\n"
      "  if (( CURRENT == 2 )); then\n"
      "    _describe -t commands 'faultline command' commands\n"
      "    compadd -- --help --version\n"
      "    return\n"
      "  fi\n"
      "  local command=${words[2]}\n"
      "  if [[ $command == rules ]]; then\n"
      "    if (( CURRENT == 3 )); then\n"
      "      _describe -t commands 'rules command' rules_commands\n"
      "      return\n"
      "    fi\n"
      "    command=\"rules ${words[3]}\"\n"
      "    words=(\"${(@)words[3,-1]}\")\n"
      "    (( CURRENT -= 2 ))\n"
      "  else\n"
      "    words=(\"${(@)words[2,-1]}\")\n"
      "    (( CURRENT -= 1 ))\n"
      "  fi\n"
      "  case $command in\n";
  for (const auto& command : command_table()) {
    out += "    " + single_quoted_sh(command.name) + ")\n      _arguments -s \\\n";
    for (const auto& taken : command.options) {
      const OptionInfo* option = find_option(taken.name);
      std::string help = zsh_bracketed(option_help(taken, *option));
      std::string action;
      switch (value_kind(*option)) {
        case ValueKind::kNone:
          break;
        case ValueKind::kDirectory:
          action = ":" + zsh_text(option->value) + ":_files -/";
          break;
        case ValueKind::kFile:
          action = ":" + zsh_text(option->value) + ":_files";
          break;
        case ValueKind::kWords:
          action = ":" + zsh_text(option->value) + ":(" + join_words(option_values(option->name)) + ")";
          break;
        case ValueKind::kFree:
          action = ":" + zsh_text(option->value) + ": ";
          break;
      }
      std::string spec;
      if (option->short_name) {
        std::string both = "-" + std::string(1, option->short_name) + " --" + std::string(option->name);
        spec = single_quoted_sh("(" + both + ")") + "{-" + std::string(1, option->short_name) + ",--" +
               std::string(option->name) + "}" + single_quoted_sh(help + action);
      } else {
        spec =
            single_quoted_sh((option->repeatable ? "*--" : "--") + std::string(option->name) + help + action);
      }
      out += "        " + spec + " \\\n";
    }
    out += "        '(- *)'{-h,--help}'[this command'\\''s help]'";
    if (command.command == Command::kExplain)
      out += " \\\n        '1:rule id or cause:_faultline_rule_ids'";
    else if (command.command == Command::kHelp)
      out += " \\\n        '1:command:(" + join_words(names) + " rules)'";
    else if (takes_files(command))
      out += " \\\n        '*:file:_files'";
    out += "\n      ;;\n";
  }
  out +=
      "  esac\n"
      "}\n\n"
      "_faultline \"$@\"\n";
  return out;
}

std::string fish_completion() {
  std::string out =
      "# fish completion for faultline, generated from its command table (src/cli/options.cpp) by\n"
      "# fish_completion(); do not edit. Installed to share/fish/vendor_completions.d/faultline.fish.\n\n"
      "complete -c faultline -f\n"
      "complete -c faultline-cuda -w faultline\n";
  std::vector<std::string_view> top, rules_words;
  for (const auto& command : command_table()) {
    if (is_rules_command(command))
      rules_words.push_back(command.name.substr(command.name.find(' ') + 1));
    else
      top.push_back(command.name);
  }
  top.push_back("rules");
  std::string top_words = join_words(top), sub_words = join_words(rules_words);
  out += "\n# Commands\n";
  for (const auto& command : command_table()) {
    if (is_rules_command(command)) continue;
    out += "complete -c faultline -n '__fish_use_subcommand' -a " + std::string(command.name) + " -d " +
           single_quoted_fish(command.summary) + "\n";
  }
  out +=
      "complete -c faultline -n '__fish_use_subcommand' -a rules -d 'the rules: list, test, check, patterns, "
      "docs, suggest'\n";
  out += "complete -c faultline -n '__fish_use_subcommand' -l help -s h -d 'the help'\n";
  out += "complete -c faultline -n '__fish_use_subcommand' -l version -d 'the version'\n";
  for (const auto& command : command_table()) {
    if (is_rules_command(command))
      out +=
          "complete -c faultline -n '__fish_seen_subcommand_from rules; and not "
          "__fish_seen_subcommand_from " +
          sub_words + "' -a " + subcommand_word(command) + " -d " + single_quoted_fish(command.summary) +
          "\n";
  }
  for (const auto& command : command_table()) {
    std::string condition =
        is_rules_command(command)
            ? "__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from " + subcommand_word(command)
            : "__fish_seen_subcommand_from " + std::string(command.name);
    if (command.command == Command::kExplain) condition += "; and not __fish_seen_subcommand_from rules";
    std::string prefix = "complete -c faultline -n '" + condition + "'";
    out += "\n# faultline " + std::string(command.name) + "\n";
    for (const auto& taken : command.options) {
      const OptionInfo* option = find_option(taken.name);
      std::string line = prefix + " -l " + std::string(option->name);
      if (option->short_name) line += " -s " + std::string(1, option->short_name);
      switch (value_kind(*option)) {
        case ValueKind::kNone:
          break;
        case ValueKind::kDirectory:
          line += " -x -a '(__fish_complete_directories)'";
          break;
        case ValueKind::kFile:
          line += " -r -F";
          break;
        case ValueKind::kWords:
          line += " -x -a " + single_quoted_fish(join_words(option_values(option->name)));
          break;
        case ValueKind::kFree:
          line += " -x";
          break;
      }
      out += line + " -d " + single_quoted_fish(option_help(taken, *option)) + "\n";
    }
    out += prefix + " -l help -s h -d 'this command\\'s help'\n";
    if (command.command == Command::kExplain)
      out += prefix + " -x -a '(faultline rules list 2>/dev/null | awk \"NF > 1 {print \\\\$1}\")'\n";
    else if (command.command == Command::kHelp)
      out += prefix + " -x -a " + single_quoted_fish(top_words) + "\n";
    else if (takes_files(command))
      out += prefix + " -F\n";
  }
  return out;
}

}  // namespace faultline::cli
