#include "cli/help.hpp"

#include <cctype>

#include "cli/commands.hpp"

namespace faultline::cli {
namespace {

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
  out +=
      "'faultline FILE...' (a file or folder that exists, or - for stdin) is 'faultline diagnose FILE...'.\n";
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

int run_help(const Options& options, Output& out) {
  const CommandInfo* topic = options.help_topic.empty() ? nullptr : find_command(options.help_topic);
  out.out(topic ? command_help(*topic) : usage());
  return 0;
}

int run_version(const Options&, Output& out) {
  out.out("faultline " FAULTLINE_VERSION "\n");
  return 0;
}

}  // namespace faultline::cli
