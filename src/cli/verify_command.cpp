#include "cli/verify_command.hpp"

#include <filesystem>

#include "base/text.hpp"
#include "cli/command_table.hpp"
#include "cli/commands.hpp"

namespace faultline::cli {
namespace {

std::string at_column(char c, size_t index, std::string_view what) {
  std::string shown = c == '\n' ? "a newline" : "'" + std::string(1, c) + "'";
  return shown + " at column " + std::to_string(index + 1) + ": " + std::string(what);
}

constexpr std::string_view kExpansion = "a shell expansion; fill in the value and run the command yourself";
constexpr std::string_view kOperator = "the command needs a shell, and faultline runs it without one";

// Why faultline does not run a file-reading command here, or "" when the file is there.
std::string missing_file(const Options& options) {
  std::error_code error;
  if (!options.config.empty() && !std::filesystem::exists(options.config, error)) {
    return "the command reads '" + options.config +
           "', which is not here: run it where the model's config.json is, or give the model's sizes as "
           "options "
           "(--heads N, --kv-heads N, --hidden N, --ffn N, --vocab N, --layers N)";
  }
  bool gpus_file = !options.gpus.empty() && options.gpus != "auto" && !parse_integer(options.gpus);
  if (gpus_file && !std::filesystem::exists(options.gpus, error)) {
    return "the command reads '" + options.gpus +
           "', which is not here: use --gpus N or --gpus auto on the node";
  }
  return "";
}

report::Verification not_run(report::Verification verification, std::string why) {
  verification.output = std::move(why);
  return verification;
}

}  // namespace

Result<std::vector<std::string>> split_command(std::string_view command) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  enum class Quote { kNone, kSingle, kDouble } quote = Quote::kNone;
  size_t quote_start = 0;
  for (size_t i = 0; i < command.size(); ++i) {
    char c = command[i];
    if (quote == Quote::kSingle) {
      if (c == '\'')
        quote = Quote::kNone;
      else
        word += c;
      continue;
    }
    if (quote == Quote::kDouble) {
      if (c == '"') {
        quote = Quote::kNone;
      } else if (c == '$' || c == '`') {
        return Status::error(at_column(c, i, kExpansion));
      } else if (c == '\\' && i + 1 < command.size() &&
                 std::string_view("$`\"\\").find(command[i + 1]) != std::string_view::npos) {
        word += command[++i];
      } else {
        word += c;
      }
      continue;
    }
    switch (c) {
      case ' ':
      case '\t':
        if (in_word) words.push_back(std::move(word));
        word.clear();
        in_word = false;
        continue;
      case '\'':
      case '"':
        quote = c == '\'' ? Quote::kSingle : Quote::kDouble;
        quote_start = i;
        in_word = true;
        continue;
      case '\\':
        if (i + 1 == command.size()) return Status::error("the command ends with a backslash");
        word += command[++i];
        in_word = true;
        continue;
      case '#':
        if (!in_word)
          i = command.size() - 1;  // a comment, to the end
        else
          word += c;
        continue;
      case '$':
      case '`':
        return Status::error(at_column(c, i, kExpansion));
      case '*':
      case '?':
        return Status::error(at_column(c, i, "a glob; " + std::string(kOperator)));
      case ';':
      case '|':
      case '&':
      case '>':
      case '<':
      case '(':
      case ')':
      case '\n':
        return Status::error(at_column(c, i, kOperator));
      default:
        word += c;
        in_word = true;
    }
  }
  if (quote != Quote::kNone) {
    return Status::error("the quote at column " + std::to_string(quote_start + 1) + " is not closed");
  }
  if (in_word) words.push_back(std::move(word));
  return words;
}

report::Verification run_verify(const std::string& command, const rules::RuleSet& rules) {
  report::Verification verification;
  verification.command = command;
  if (trim(command).empty()) return not_run(verification, "the rule gives no verify command");
  if (!trim_left(command).starts_with("faultline ")) {
    return not_run(verification,
                   "not a faultline command: run it yourself where the job ran (faultline runs only its own "
                   "preflight and repro commands)");
  }
  auto words = split_command(command);
  if (!words) return not_run(verification, words.status().message());
  if (words->size() < 2 || ((*words)[1] != "preflight" && (*words)[1] != "repro")) {
    return not_run(verification,
                   "faultline runs only 'faultline preflight' and 'faultline repro' as a verify command");
  }
  std::vector<const char*> argv;
  for (const auto& word : *words) argv.push_back(word.c_str());
  auto options = parse_options(static_cast<int>(argv.size()), argv.data());
  if (!options) return not_run(verification, "the command is not valid: " + options.status().message());
  if (options->command->name == "help") return not_run(verification, "the command only asks for help");
  if (options->command->name == "repro" && options->backend != "cpu") {
    return not_run(verification,
                   "--backend " + options->backend + " runs on GPUs through faultline-cuda: run it yourself");
  }
  if (std::string why = missing_file(*options); !why.empty()) return not_run(verification, why);

  StringOutput out;
  verification.exit_code =
      options->command->name == "preflight" ? run_preflight(*options, out) : run_repro(*options, rules, out);
  verification.ran = true;
  verification.output = out.stdout_text + out.stderr_text;
  return verification;
}

}  // namespace faultline::cli
