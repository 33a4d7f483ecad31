#include "cli/options.hpp"

#include <algorithm>
#include <boost/program_options.hpp>
#include <charconv>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <utility>

#include "cli/command_table.hpp"
#include "cli/spelling.hpp"

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
      {"experts", 0, "N", "experts (routed experts of an MoE model)"},
      {"ep", 0, "N",
       "expert-parallel size: it must divide the experts and the GPUs its groups are drawn from"},
      {"ffn-multiple", 0, "N",
       "a kernel tile or quantization group each rank's FFN shard (FFN / TP) must be a multiple of"},
      {"virtual-pipeline", 0, "N", "Megatron's virtual pipeline size: it must divide each stage's layers"},
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

const OptionInfo* find_option(std::string_view name) {
  for (const auto& option : option_table()) {
    if (option.name == name) return &option;
  }
  return nullptr;
}

namespace {

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
  else if (name == "experts")
    return integer(options.experts);
  else if (name == "ep")
    return integer(options.ep);
  else if (name == "ffn-multiple")
    return integer(options.ffn_multiple);
  else if (name == "virtual-pipeline")
    return integer(options.virtual_pipeline);
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

// The first word of every command ("rules" once), sorted.
std::vector<std::string> command_words() {
  std::set<std::string> words;
  for (const auto& info : command_table()) words.emplace(info.name.substr(0, info.name.find(' ')));
  return {words.begin(), words.end()};
}

// The command the words name, taking its one or two words off the front.
Result<const CommandInfo*> take_command(std::vector<std::string>& words) {
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
  // "faultline crash.log" is "faultline diagnose crash.log": a first word that names an input
  // (a path that exists, or "-" for stdin) and no command is a diagnosis of it.
  std::error_code error;
  if (word == "-" || std::filesystem::exists(word, error)) {
    words.insert(words.begin(), word);
    return find_command("diagnose");
  }
  if (word.find_first_of("./") != std::string::npos)
    return Status::error("'" + word + "' is neither a command nor a file or folder that exists");
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

// The command line as Boost reads it against the option table, sorted: the words (the command
// and its operands), each option with its value in the order given, and the first option that
// no row of the table names.
struct CommandLine {
  std::vector<std::string> words;
  std::vector<std::pair<std::string, std::string>> values;
  std::set<std::string> given;  // the long names of the options given
  std::string unknown;          // as typed ("--fromat=json"); empty when every option is known
};

Result<std::vector<po::option>> boost_parse(int argc, const char* const* argv) {
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
  try {
    // No guessing of abbreviations: a misspelling gets "did you mean" instead of a surprise.
    int style = po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
    return po::command_line_parser(argc, argv)
        .options(described)
        .positional(positional)
        .style(style)
        .allow_unregistered()
        .run()
        .options;
  } catch (const po::error& e) {
    return Status::error(e.what());
  }
}

Result<CommandLine> read_command_line(int argc, const char* const* argv) {
  auto parsed = boost_parse(argc, argv);
  if (!parsed) return parsed.status();
  CommandLine line;
  for (const auto& option : *parsed) {
    if (option.unregistered) {
      if (line.unknown.empty())
        line.unknown = option.original_tokens.empty() ? option.string_key : option.original_tokens[0];
    } else if (option.string_key == "words") {
      line.words.insert(line.words.end(), option.value.begin(), option.value.end());
    } else {
      line.values.emplace_back(option.string_key, option.value.empty() ? "" : option.value.back());
      line.given.insert(option.string_key);
    }
  }
  return line;
}

// "unknown option '--fromat'; did you mean '--format'?", from the command's options when the
// command is known, else from all of them.
Status unknown_option(const std::string& unknown, const CommandInfo* command) {
  std::string bare = unknown.substr(0, unknown.find('='));
  std::string name = bare.substr(bare.find_first_not_of('-'));
  std::vector<std::string> candidates;
  if (command)
    candidates = long_names(command->options);
  else
    for (const auto& option : option_table()) candidates.emplace_back(option.name);
  return Status::error("unknown option '" + bare + "'" + did_you_mean(name, candidates, "--"));
}

// `faultline`, `faultline help` and `faultline help COMMAND`: the overview, or a command's help.
Result<Options> help_options(Options options, const CommandInfo* command,
                             const std::vector<std::string>& words) {
  options.command = find_command("help");
  if (!command || words.empty()) return options;
  std::string topic = words.front();
  if (topic == "rules" && words.size() > 1) topic += " " + words[1];
  if (!find_command(std::string_view(topic))) {
    std::vector<std::string> names;
    for (const auto& info : command_table()) names.emplace_back(info.name);
    return Status::error("no help for '" + topic + "'" + did_you_mean(topic, names));
  }
  options.help_topic = topic;
  return options;
}

// "--verify is for 'diagnose'" for the first option given that the command does not take.
Status check_options_taken(const CommandInfo& command, const std::set<std::string>& given) {
  for (const auto& name : given) {
    bool taken = std::any_of(command.options.begin(), command.options.end(),
                             [&](const CommandOption& option) { return option.name == name; });
    if (taken) continue;
    std::string takers = commands_taking(name);
    return Status::error(
        "--" + name +
        (takers.empty() ? " is not an option of '" + std::string(command.name) + "'" : " is for " + takers));
  }
  return Status::ok();
}

// Every value into its field of `options`, then --format and --color, whose words are checked
// once all values are in (the last one given wins).
Status store_values(Options& options, const CommandLine& line) {
  std::string format = "text", color = "auto";
  for (const auto& [name, value] : line.values) {
    if (Status status = apply(options, format, color, name, value); !status) return status;
  }
  auto parsed_format = parse_format(format);
  if (!parsed_format) return parsed_format.status();
  options.format = *parsed_format;
  auto parsed_color = parse_color(color);
  if (!parsed_color) return parsed_color.status();
  options.color = line.given.count("color") ? *parsed_color : color_from_environment();
  return Status::ok();
}

}  // namespace

Result<Options> parse_options(int argc, const char* const* argv) {
  auto line = read_command_line(argc, argv);
  if (!line) return line.status();
  Options options;
  options.arguments.assign(argv, argv + argc);
  if (line->given.count("version")) {
    options.command = &version_command();
    return options;
  }
  const CommandInfo* command = nullptr;
  if (!line->words.empty()) {
    auto found = take_command(line->words);
    if (!found) return found.status();
    command = *found;
  }
  if (!line->unknown.empty()) return unknown_option(line->unknown, command);
  if (!command || command->name == "help") return help_options(std::move(options), command, line->words);
  if (line->given.count("help")) {
    options.command = find_command("help");
    options.help_topic = std::string(command->name);
    return options;
  }
  if (Status status = check_options_taken(*command, line->given); !status) return status;
  options.command = command;
  if (Status status = store_values(options, *line); !status) return status;
  options.inputs = std::move(line->words);
  if (command->check) {
    if (Status status = command->check(options, line->given); !status) return status;
  }
  return options;
}

}  // namespace faultline::cli
