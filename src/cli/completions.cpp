// The zsh and fish completions, made from the command and option tables.
#include "cli/command_table.hpp"
#include "cli/docs.hpp"

namespace faultline::cli {
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

template <typename Words>
std::string join_words(const Words& words, std::string_view separator = " ") {
  std::string out;
  for (const auto& word : words) out += (out.empty() ? "" : std::string(separator)) + std::string(word);
  return out;
}

std::string subcommand_word(const CommandInfo& command) {  // "list" of "rules list"
  std::string_view name = command.name;
  return std::string(name.substr(name.find(' ') + 1));
}

bool is_rules_command(const CommandInfo& command) {
  return command.name.starts_with("rules ");
}

// The words that may follow `faultline`: every command that is not a `rules` one, then "rules".
std::vector<std::string_view> top_level_words() {
  std::vector<std::string_view> words;
  for (const auto& command : command_table()) {
    if (!is_rules_command(command)) words.push_back(command.name);
  }
  words.push_back("rules");
  return words;
}

// What `rules` itself is offered with: "the rules: list, test, ...".
std::string rules_summary() {
  return "the rules: " + join_words(rules_subcommands(), ", ");
}

// zsh

std::string zsh_command_lists() {
  std::string out = "  local -a commands rules_commands\n  commands=(\n";
  for (const auto& command : command_table()) {
    if (!is_rules_command(command))
      out += "    " + single_quoted_sh(std::string(command.name) + ":" + zsh_text(command.summary)) + "\n";
  }
  out += "    " + single_quoted_sh("rules:" + zsh_text(rules_summary())) + "\n  )\n  rules_commands=(\n";
  for (const auto& command : command_table()) {
    if (is_rules_command(command))
      out += "    " + single_quoted_sh(subcommand_word(command) + ":" + zsh_text(command.summary)) + "\n";
  }
  return out + "  )\n";
}

// The second word completes the command; after `rules`, the third. Then `words` and CURRENT
// are shifted so that the command's own _arguments sees its name as the first word.
constexpr std::string_view kZshFindCommand =
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
    "  fi\n";

// One option's _arguments spec: '--name[help]:VALUE:action', with its short name as an
// alternative, or '*--name...' when it may be given again.
std::string zsh_option_spec(const CommandOption& taken, const OptionInfo& option) {
  std::string help = zsh_bracketed(option_help(taken, option));
  std::string value = ":" + zsh_text(option.value) + ":";
  std::string action;
  switch (value_kind(option)) {
    case ValueKind::kNone:
      break;
    case ValueKind::kDirectory:
      action = value + "_files -/";
      break;
    case ValueKind::kFile:
      action = value + "_files";
      break;
    case ValueKind::kWords:
      action = value + "(" + join_words(option_values(option.name)) + ")";
      break;
    case ValueKind::kFree:
      action = value + " ";
      break;
  }
  std::string name(option.name);
  if (!option.short_name) return single_quoted_sh((option.repeatable ? "*--" : "--") + name + help + action);
  std::string short_name(1, option.short_name);
  return single_quoted_sh("(-" + short_name + " --" + name + ")") + "{-" + short_name + ",--" + name + "}" +
         single_quoted_sh(help + action);
}

std::string zsh_operands_spec(const CommandInfo& command) {
  switch (command.operands) {
    case Operands::kRuleId:
      return " \\\n        '1:rule id or cause:_faultline_rule_ids'";
    case Operands::kCommandName:
      return " \\\n        '1:command:(" + join_words(top_level_words()) + ")'";
    case Operands::kFiles:
      return " \\\n        '*:file:_files'";
    case Operands::kNone:
      break;
  }
  return "";
}

// The `case` branch of one command: _arguments with its options, -h, and its operands.
std::string zsh_command_case(const CommandInfo& command) {
  std::string out = "    " + single_quoted_sh(command.name) + ")\n      _arguments -s \\\n";
  for (const auto& taken : command.options)
    out += "        " + zsh_option_spec(taken, *find_option(taken.name)) + " \\\n";
  out += "        '(- *)'{-h,--help}'[this command'\\''s help]'";
  return out + zsh_operands_spec(command) + "\n      ;;\n";
}

// fish

std::string fish_command_lines() {
  std::string out = "\n# Commands\n";
  for (const auto& command : command_table()) {
    if (!is_rules_command(command))
      out += "complete -c faultline -n '__fish_use_subcommand' -a " + std::string(command.name) + " -d " +
             single_quoted_fish(command.summary) + "\n";
  }
  out += "complete -c faultline -n '__fish_use_subcommand' -a rules -d " +
         single_quoted_fish(rules_summary()) + "\n";
  out += "complete -c faultline -n '__fish_use_subcommand' -l help -s h -d 'the help'\n";
  out += "complete -c faultline -n '__fish_use_subcommand' -l version -d 'the version'\n";
  std::string rules_words = join_words(rules_subcommands());
  for (const auto& command : command_table()) {
    if (is_rules_command(command))
      out +=
          "complete -c faultline -n '__fish_seen_subcommand_from rules; and not "
          "__fish_seen_subcommand_from " +
          rules_words + "' -a " + subcommand_word(command) + " -d " + single_quoted_fish(command.summary) +
          "\n";
  }
  return out;
}

// The condition under which fish offers a command's options: its word (or words) on the line.
// For a command whose operand is a rule id, nothing is offered once `rules` is on the line.
std::string fish_condition(const CommandInfo& command) {
  std::string condition =
      is_rules_command(command)
          ? "__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from " + subcommand_word(command)
          : "__fish_seen_subcommand_from " + std::string(command.name);
  if (command.operands == Operands::kRuleId) condition += "; and not __fish_seen_subcommand_from rules";
  return condition;
}

std::string fish_option_line(const std::string& prefix, const CommandOption& taken,
                             const OptionInfo& option) {
  std::string line = prefix + " -l " + std::string(option.name);
  if (option.short_name) line += " -s " + std::string(1, option.short_name);
  switch (value_kind(option)) {
    case ValueKind::kNone:
      break;
    case ValueKind::kDirectory:
      line += " -x -a '(__fish_complete_directories)'";
      break;
    case ValueKind::kFile:
      line += " -r -F";
      break;
    case ValueKind::kWords:
      line += " -x -a " + single_quoted_fish(join_words(option_values(option.name)));
      break;
    case ValueKind::kFree:
      line += " -x";
      break;
  }
  return line + " -d " + single_quoted_fish(option_help(taken, option)) + "\n";
}

std::string fish_operands_line(const std::string& prefix, const CommandInfo& command) {
  switch (command.operands) {
    case Operands::kRuleId:
      return prefix + " -x -a '(faultline rules list 2>/dev/null | awk \"NF > 1 {print \\\\$1}\")'\n";
    case Operands::kCommandName:
      return prefix + " -x -a " + single_quoted_fish(join_words(top_level_words())) + "\n";
    case Operands::kFiles:
      return prefix + " -F\n";
    case Operands::kNone:
      break;
  }
  return "";
}

// One command's block: a comment, its options, -h, and its operands.
std::string fish_command_block(const CommandInfo& command) {
  std::string prefix = "complete -c faultline -n '" + fish_condition(command) + "'";
  std::string out = "\n# faultline " + std::string(command.name) + "\n";
  for (const auto& taken : command.options) out += fish_option_line(prefix, taken, *find_option(taken.name));
  out += prefix + " -l help -s h -d 'this command\\'s help'\n";
  return out + fish_operands_line(prefix, command);
}

}  // namespace

std::string zsh_completion() {
  std::string out =
      "#compdef faultline faultline-cuda\n"
      "# zsh completion for faultline, generated from its command table (src/cli/command_table.cpp) by\n"
      "# zsh_completion(); do not edit. Installed to share/zsh/site-functions/_faultline.\n\n"
      "_faultline_rule_ids() {\n"
      "  local -a ids\n"
      "  ids=(${(f)\"$(_call_program rules faultline rules list 2>/dev/null | awk 'NF > 1 {print $1}')\"})\n"
      "  _describe -t rules 'rule id or cause' ids\n"
      "}\n\n"
      "_faultline() {\n";
  out += zsh_command_lists();
  out += kZshFindCommand;
  out += "  case $command in\n";
  for (const auto& command : command_table()) out += zsh_command_case(command);
  out +=
      "  esac\n"
      "}\n\n"
      "_faultline \"$@\"\n";
  return out;
}

std::string fish_completion() {
  std::string out =
      "# fish completion for faultline, generated from its command table (src/cli/command_table.cpp) by\n"
      "# fish_completion(); do not edit. Installed to share/fish/vendor_completions.d/faultline.fish.\n\n"
      "complete -c faultline -f\n"
      "complete -c faultline-cuda -w faultline\n";
  out += fish_command_lines();
  for (const auto& command : command_table()) out += fish_command_block(command);
  return out;
}

}  // namespace faultline::cli
