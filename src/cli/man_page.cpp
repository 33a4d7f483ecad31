// docs/faultline.1, made from the command and option tables.
#include "base/text.hpp"
#include "cli/command_table.hpp"
#include "cli/docs.hpp"

namespace faultline::cli {
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

std::string synopsis_section() {
  std::string out = ".SH SYNOPSIS\n";
  for (const auto& info : command_table())
    out += ".B faultline " + roff(info.name) + "\n" +
           (info.arguments.empty() ? "" : roff(info.arguments) + "\n") + ".br\n";
  return out;
}

// Each command: synopsis, summary, details, the names of its options, its examples.
std::string commands_section() {
  std::string out = ".SH COMMANDS\n";
  for (const auto& info : command_table()) {
    out += ".TP\n.B faultline " + roff(info.name) + " " + roff(info.arguments) + "\n" + roff(info.summary) +
           ".\n";
    if (!info.details.empty()) out += roff_lines(info.details);
    if (!info.options.empty()) {
      out += "Options:";
      for (const auto& option : info.options) out += " \\-\\-" + roff(option.name);
      out += ".\n";
    }
    for (const auto& example : info.examples) out += ".br\n.RS\n.B $ " + roff(example) + "\n.RE\n";
  }
  return out;
}

std::string options_section() {
  std::string out = ".SH OPTIONS\n";
  for (const auto& option : option_table()) {
    out += ".TP\n.B ";
    if (option.short_name) out += "\\-" + std::string(1, option.short_name) + ", ";
    out += "\\-\\-" + roff(option.name);
    if (!option.value.empty()) out += " \\fI" + roff(option.value) + "\\fR";
    out += "\n" + roff(option.help) + "\n";
  }
  return out;
}

// kExitCodes, one tagged paragraph per "  N  meaning" line.
std::string exit_status_section() {
  std::string out = ".SH EXIT STATUS\n";
  std::string_view codes = kExitCodes;
  while (!codes.empty()) {
    size_t end = codes.find('\n');
    std::string_view line = trim(codes.substr(0, end));
    out += ".TP\n.B " + std::string(line.substr(0, 1)) + "\n" + roff(trim(line.substr(1))) + "\n";
    codes.remove_prefix(end == std::string_view::npos ? codes.size() : end + 1);
  }
  return out;
}

}  // namespace

std::string man_page() {
  return ".\\\" Generated from faultline's command table (src/cli/command_table.cpp); do not edit.\n"
         ".TH FAULTLINE 1 \"\" \"faultline " FAULTLINE_VERSION
         "\" \"User Commands\"\n"
         ".SH NAME\nfaultline \\- find the rank that failed first in a multi\\-GPU job's logs, and why\n" +
         synopsis_section() +
         ".SH DESCRIPTION\n"
         "faultline reads the logs of a crashed multi\\-GPU training or inference job and says which rank\n"
         "failed first, why, what to change, and how to check the change. Everything runs offline.\n" +
         commands_section() + options_section() + exit_status_section() +
         ".SH ENVIRONMENT\n"
         ".TP\n.B NO_COLOR\nWhen set and not empty, no colour (unless \\-\\-color always).\n"
         ".TP\n.B CLICOLOR_FORCE\nWhen set and not 0, colour even when the output is not a terminal.\n"
         ".TP\n.B TERM\nWhen dumb, no colour.\n"
         ".TP\n.B COLUMNS\nThe width the text report is wrapped to on a terminal.\n"
         ".SH SEE ALSO\n"
         ".BR faultline\\ help\\ COMMAND ,\n"
         ".B faultline explain RULE_ID\n";
}

}  // namespace faultline::cli
