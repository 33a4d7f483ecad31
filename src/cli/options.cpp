#include "cli/options.hpp"

#include <boost/program_options.hpp>
#include <sstream>

namespace faultline::cli {
namespace po = boost::program_options;

std::string usage() {
  return R"(faultline: find the rank that failed first in a multi-GPU job's logs, and why.

Usage:
  faultline diagnose [FILE|DIR...]   one job from files, directories or stdin (paste, then Ctrl-D)
  faultline scan PATH... [-j N] [--shard I/N] [--job-by run|dir|file|archive]
                                     many jobs (run directories, archives): one JSONL line per
                                     job as it finishes, then a summary line; summary text on stderr
  faultline merge RESULT.jsonl...    the summary of sharded scans, from their lines
  faultline preflight (--config config.json | --heads N [--kv-heads N] [--hidden N] [--ffn N]
                      [--vocab N] [--layers N]) [--tp N] [--pp N] [--gpus N|FILE|auto]
                                     check a TP/PP plan against the model before launch;
                                     sizes given as options replace the config's
  faultline repro (--config config.json | --heads N [--kv-heads N] [--ffn N] [--vocab N]) --tp N
                 [--backend cpu|cuda] [--full-size]
                                     run a small TP job: reproduce the failure, check the fix
  faultline rules list               the rules in force
  faultline rules test [--corpus DIR]
                                     run every rule's embedded examples; with a labelled
                                     corpus, also accuracy, precision, recall, wrong lines
  faultline rules check FILE...      validate rule files
  faultline rules patterns           every rule pattern, one per line, as grep tools take them
  faultline rules docs DIR           write every rule's entry as Markdown (docs/rules)
  faultline rules suggest (LOG... | SCAN.jsonl...)
                                     a rule skeleton for each error no rule knows yet
  faultline explain RULE_ID|CAUSE    a rule's entry: cause, symptoms, fix, how to confirm

Options:
  --rules DIR         load more rule packs; a rule with a shipped id replaces it (repeatable)
  --include GLOB      in directories, read only files matching one of these (repeatable)
  --exclude GLOB      in directories, leave out files and folders matching these (repeatable)
  --baseline LOG      a healthy run of the same job: what it shows too is not the diagnosis
  -j, --jobs N        scan: worker threads (default: one per core)
  --shard I/N         scan: only the jobs of shard I of N (0-based; a hash of each job's path)
  --job-by RULE       scan: what a job is: run (default: a run directory or an archive), dir,
                      file, archive (other files skipped)
  --format FORMAT     text (default), json, jsonl, markdown, html, sarif (diagnose); text, json (preflight)
  --color WHEN        auto (default), always, never
  -q, --quiet         print the diagnosis and its evidence only
  --redact            mask hostnames (host-1, host-2...), IP and MAC addresses, user names in
                      /home and /Users paths, e-mail addresses, tokens and secrets in
                      everything printed (stdout and stderr, every format)
  --verify            diagnose: run the diagnosis' verify command when it is a faultline
                      preflight or repro command, and report its output and result; the
                      exit code stays the diagnosis' own (0, 1, 2)
  --read-every-line   parse every line of large logs too (slower; by default, past the first
                      1 MiB of a file, only lines a rule or a traceback may need are parsed)
  -h, --help          this text
  --version           the version

Exit codes: 0 no failure found, 1 failure diagnosed, 2 usage or input error.
)";
}

namespace {

Result<Format> parse_format(const std::string& text) {
  if (text == "text") return Format::kText;
  if (text == "json") return Format::kJson;
  if (text == "jsonl") return Format::kJsonl;
  if (text == "markdown" || text == "md") return Format::kMarkdown;
  if (text == "html") return Format::kHtml;
  if (text == "sarif") return Format::kSarif;
  return Status::error("unknown --format '" + text + "' (text, json, jsonl, markdown, html, sarif)");
}

Result<Color> parse_color(const std::string& text) {
  if (text == "auto") return Color::kAuto;
  if (text == "always") return Color::kAlways;
  if (text == "never") return Color::kNever;
  return Status::error("unknown --color '" + text + "' (auto, always, never)");
}

Result<Command> parse_command(std::vector<std::string>& words) {
  if (words.empty()) return Command::kHelp;
  std::string word = words.front();
  words.erase(words.begin());
  if (word == "diagnose") return Command::kDiagnose;
  if (word == "scan") return Command::kScan;
  if (word == "merge") return Command::kMerge;
  if (word == "explain") return Command::kExplain;
  if (word == "preflight") return Command::kPreflight;
  if (word == "repro") return Command::kRepro;
  if (word == "help") return Command::kHelp;
  if (word == "rules") {
    if (words.empty()) return Status::error("'rules' needs one of: list, test, check, patterns, docs, suggest");
    std::string sub = words.front();
    words.erase(words.begin());
    if (sub == "list") return Command::kRulesList;
    if (sub == "test") return Command::kRulesTest;
    if (sub == "check") return Command::kRulesCheck;
    if (sub == "patterns") return Command::kRulesPatterns;
    if (sub == "docs") return Command::kRulesDocs;
    if (sub == "suggest") return Command::kRulesSuggest;
    return Status::error("unknown 'rules' command '" + sub + "' (list, test, check, patterns, docs, suggest)");
  }
  return Status::error("unknown command '" + word + "' (try: faultline diagnose FILE)");
}

}  // namespace

Result<Options> parse_options(int argc, const char* const* argv) {
  po::options_description described("options");
  std::string format = "text", color = "auto";
  Options options;
  options.arguments.assign(argv, argv + argc);
  bool help = false, version = false;
  described.add_options()("help,h", po::bool_switch(&help))("version", po::bool_switch(&version))(
      "rules", po::value<std::vector<std::string>>(&options.rule_dirs))(
      "include", po::value<std::vector<std::string>>(&options.include))(
      "exclude", po::value<std::vector<std::string>>(&options.exclude))(
      "baseline", po::value<std::vector<std::string>>(&options.baseline))(
      "format", po::value<std::string>(&format))("color", po::value<std::string>(&color))(
      "quiet,q", po::bool_switch(&options.quiet))("redact", po::bool_switch(&options.redact))(
      "read-every-line", po::bool_switch(&options.read_every_line))(
      "config", po::value<std::string>(&options.config))("tp", po::value<int64_t>(&options.tp))(
      "pp", po::value<int64_t>(&options.pp))("gpus", po::value<std::string>(&options.gpus))(
      "corpus", po::value<std::string>(&options.corpus))("heads", po::value<int64_t>(&options.heads))(
      "kv-heads", po::value<int64_t>(&options.kv_heads))("ffn", po::value<int64_t>(&options.ffn))(
      "backend", po::value<std::string>(&options.backend))("vocab", po::value<int64_t>(&options.vocab))(
      "hidden", po::value<int64_t>(&options.hidden))("layers", po::value<int64_t>(&options.layers))(
      "verify", po::bool_switch(&options.verify))("full-size", po::bool_switch(&options.full_size))(
      "jobs,j", po::value<int64_t>(&options.threads))("shard", po::value<std::string>(&options.shard))(
      "job-by", po::value<std::string>(&options.job_by))("words", po::value<std::vector<std::string>>());
  po::positional_options_description positional;
  positional.add("words", -1);
  po::variables_map values;
  try {
    po::store(po::command_line_parser(argc, argv).options(described).positional(positional).run(), values);
    po::notify(values);
  } catch (const po::error& e) {
    return Status::error(e.what());
  }
  if (version) {
    options.command = Command::kVersion;
    return options;
  }
  std::vector<std::string> words;
  if (values.count("words")) words = values["words"].as<std::vector<std::string>>();
  auto command = parse_command(words);
  if (!command) return command.status();
  options.command = help ? Command::kHelp : *command;
  options.inputs = std::move(words);
  auto parsed_format = parse_format(format);
  if (!parsed_format) return parsed_format.status();
  options.format = *parsed_format;
  auto parsed_color = parse_color(color);
  if (!parsed_color) return parsed_color.status();
  options.color = *parsed_color;

  switch (options.command) {
    case Command::kExplain:
      if (options.inputs.size() != 1) return Status::error("'explain' takes one rule id or cause");
      break;
    case Command::kRulesCheck:
      if (options.inputs.empty()) return Status::error("'rules check' needs at least one rule file");
      break;
    case Command::kRepro:
      if (!values.count("tp")) return Status::error("'repro' needs --tp N");
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
      if (!options.inputs.empty())
        return Status::error("unexpected argument '" + options.inputs.front() + "'");
      break;
    case Command::kPreflight:
      if (options.config.empty() && !options.heads && !options.kv_heads && !options.hidden && !options.ffn &&
          !options.vocab && !options.layers && options.gpus.empty()) {
        return Status::error(
            "'preflight' needs --config config.json, or sizes (--heads N, --kv-heads N, --hidden N, "
            "--ffn N, --vocab N, --layers N) or --gpus");
      }
      if (!values.count("tp") && !values.count("pp"))
        return Status::error("'preflight' needs --tp N (or --pp N)");
      if (options.tp < 1 || options.pp < 1) return Status::error("--tp and --pp must be at least 1");
      if (options.heads < 0 || options.kv_heads < 0 || options.hidden < 0 || options.ffn < 0 ||
          options.vocab < 0 || options.layers < 0) {
        return Status::error("--heads, --kv-heads, --hidden, --ffn, --vocab and --layers must be positive");
      }
      if (!options.inputs.empty())
        return Status::error("unexpected argument '" + options.inputs.front() + "'");
      if (options.format != Format::kText && options.format != Format::kJson) {
        return Status::error("'preflight' writes text or json");
      }
      break;
    case Command::kScan:
      if (options.inputs.empty()) return Status::error("'scan' needs at least one path");
      if (options.threads < 0 || options.threads > 1024)
        return Status::error("-j must be between 1 and 1024");
      if (values.count("format") && options.format != Format::kJsonl)
        return Status::error("'scan' writes jsonl");
      options.format = Format::kJsonl;
      break;
    case Command::kMerge:
      if (options.inputs.empty()) return Status::error("'merge' needs at least one scan result (JSONL)");
      if (values.count("format") && options.format != Format::kJsonl && options.format != Format::kJson &&
          options.format != Format::kText) {
        return Status::error("'merge' writes jsonl (the summary line) or text");
      }
      if (!values.count("format")) options.format = Format::kJsonl;
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
      if (!options.inputs.empty())
        return Status::error("unexpected argument '" + options.inputs.front() + "'");
      break;
    default:
      break;
  }
  if (options.verify && options.command != Command::kDiagnose && options.command != Command::kHelp) {
    return Status::error("--verify is for 'diagnose'");
  }
  return options;
}

}  // namespace faultline::cli
