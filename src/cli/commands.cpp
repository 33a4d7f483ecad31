#include "cli/commands.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "base/text.hpp"
#include "cli/command_table.hpp"
#include "cli/help.hpp"
#include "cli/redacting_output.hpp"
#include "cli/verify_command.hpp"
#include "ingest/path_hints.hpp"
#include "job/job_runner.hpp"
#include "report/report.hpp"

namespace faultline::cli {
namespace {

// stdout and stderr. A reader that went away (EPIPE: `faultline ... | head`) ends writing
// quietly, as in ripgrep; any other write error on stdout (a full disk, `> /dev/full`, a closed
// stdout) ends it too and is reported by finish(), which makes the exit code 2.
class ProcessOutput final : public Output {
 public:
  void out(std::string_view text) override {
    if (out_errno_ != 0) return;
    out_errno_ =
        out_terminal_ ? write_all(STDOUT_FILENO, terminal_safe(text, false)) : write_all(STDOUT_FILENO, text);
  }
  void err(std::string_view text) override {
    if (err_errno_ != 0) return;
    err_errno_ =
        err_terminal_ ? write_all(STDERR_FILENO, terminal_safe(text, true)) : write_all(STDERR_FILENO, text);
  }
  bool out_is_terminal() const override { return out_terminal_; }
  bool in_is_terminal() const override { return ::isatty(STDIN_FILENO); }
  bool err_is_terminal() const override { return err_terminal_; }

  // The exit code once the command has returned `code`.
  int finish(int code) {
    if (out_errno_ == 0 || out_errno_ == EPIPE) return code;
    err(std::string("faultline: error writing to stdout: ") + std::strerror(out_errno_) + "\n");
    return 2;
  }

 private:
  // 0, or the errno that stopped the write.
  static int write_all(int fd, std::string_view text) {
    while (!text.empty()) {
      ssize_t n = ::write(fd, text.data(), text.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        return errno;
      }
      text.remove_prefix(static_cast<size_t>(n));
    }
    return 0;
  }

  // What a log put in a report (BEL, backspace, a cursor move, an OSC title, a C1 control)
  // must not act on a terminal: on one, every control byte but newline and tab is written as
  // \xNN, except the colours (ESC [ digits m) that reports use and, on stderr, the progress
  // line's CR and ESC [ K.
  static std::string terminal_safe(std::string_view text, bool progress) {
    std::string safe;
    safe.reserve(text.size());
    auto escape = [&](unsigned char byte) {
      static constexpr char kHex[] = "0123456789abcdef";
      safe += "\\x";
      safe += kHex[byte >> 4];
      safe += kHex[byte & 15];
    };
    for (size_t i = 0; i < text.size(); ++i) {
      auto byte = static_cast<unsigned char>(text[i]);
      if (byte == 0x1b && i + 1 < text.size() && text[i + 1] == '[') {
        size_t end = i + 2;
        while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == ';')) ++end;
        if (end < text.size() && (text[end] == 'm' || (progress && text[end] == 'K' && end == i + 2))) {
          safe.append(text.substr(i, end + 1 - i));
          i = end;
          continue;
        }
        escape(byte);
      } else if ((byte < 0x20 && byte != '\n' && byte != '\t' && !(progress && byte == '\r')) ||
                 byte == 0x7f) {
        escape(byte);
      } else if (byte == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
                 static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
        escape(byte);
        escape(static_cast<unsigned char>(text[++i]));
      } else {
        safe += text[i];
      }
    }
    return safe;
  }

  bool out_terminal_ = ::isatty(STDOUT_FILENO);
  bool err_terminal_ = ::isatty(STDERR_FILENO);
  int out_errno_ = 0;
  int err_errno_ = 0;
};

// The width to wrap a report to on a terminal: COLUMNS when set, else the terminal's own.
size_t terminal_width() {
  if (const char* columns = std::getenv("COLUMNS")) {
    size_t width = 0;
    auto [end, error] = std::from_chars(columns, columns + std::strlen(columns), width);
    if (error == std::errc() && *end == '\0' && width >= 20) return width;
  }
  winsize size{};
  if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0 && size.ws_col >= 20) return size.ws_col;
  return 80;
}

// Each input skipped, each read stopped early and each bad line, on stderr.
void write_reading_problems(const report::RunReport& report, Output& out) {
  for (const auto& skipped : report.skipped)
    out.err("faultline: " + skipped.source + ": skipped: " + skipped.reason + "\n");
  for (const auto& source : report.sources) {
    if (!source.error.empty())
      out.err("faultline: " + source.name + ": read stopped: " + source.error +
              (source.error_offset
                   ? "; the " + std::to_string(source.bytes) + " bytes before it were analysed"
                   : "") +
              "\n");
    if (source.bad_lines) {
      out.err("faultline: " + source.name + ":" + source.first_bad_line +
              (source.bad_lines > 1 ? " (" + std::to_string(source.bad_lines - 1) + " more like it)" : "") +
              "\n");
    }
  }
}

// The report in --format; text is coloured and wrapped when stdout is a terminal.
std::string render(const report::RunReport& report, const Options& options, const Output& out) {
  switch (options.format) {
    case Format::kJson:
      return report::render_json(report, true);
    case Format::kJsonl:
      return report::render_jsonl(report);
    case Format::kMarkdown:
      return report::render_markdown(report);
    case Format::kHtml:
      return report::render_html(report);
    case Format::kSarif:
      return report::render_sarif(report);
    case Format::kText:
      break;
  }
  bool terminal = out.out_is_terminal();
  bool color = options.color == Color::kAlways || (options.color == Color::kAuto && terminal);
  return report::render_text(report, {color, options.quiet, terminal ? terminal_width() : 0});
}

}  // namespace

int run_diagnose(const Options& options, const rules::RuleSet& rules, Output& out) {
  rules::Engine engine(rules);
  job::JobRunner runner(engine);
  if (options.read_every_line) runner.set_dense_head_bytes(UINT64_MAX);
  auto inputs = options.inputs.empty()
                    ? ingest::InputList{{"-"}, {}}
                    : ingest::expand_inputs(options.inputs, options.include, options.exclude);
  for (auto& skipped : inputs.skipped) runner.add_skipped(std::move(skipped));
  bool one_node_log_dir = !ingest::torchrun_layouts_span_nodes(inputs.files);
  for (const auto& path : inputs.files) {
    if (path == "-" && out.in_is_terminal()) {
      out.err("faultline: paste the log, then press Ctrl-D on an empty line (Ctrl-C cancels)\n");
    }
    runner.add_path(path, one_node_log_dir);
  }
  std::string job_name = options.inputs.empty() ? "<stdin>" : join(options.inputs, " ");
  std::vector<ingest::Skipped> baseline_skipped;
  std::set<std::string> baseline;
  if (!options.baseline.empty())
    baseline = job::baseline_fingerprints(engine, options.baseline, baseline_skipped);
  for (auto& skipped : baseline_skipped) runner.add_skipped(std::move(skipped));
  report::RunReport report;
  report.tool_version = FAULTLINE_VERSION;
  report.jobs.push_back(runner.finish(job_name, baseline));
  report.sources = runner.sources();
  report.skipped = runner.skipped();
  out.learn_hosts(report.jobs.front().shape.hosts);
  for (const auto& group : report.jobs.front().findings) out.learn_hosts(group.hosts);
  if (options.verify) {
    const auto& diagnosis = report.jobs.front().diagnosis;
    if (diagnosis)
      report.verifications.emplace_back(run_verify(diagnosis->verify, rules));
    else
      out.err("faultline: --verify: no failure found, so there is nothing to verify\n");
  }

  write_reading_problems(report, out);
  out.out(render(report, options, out));
  // A user's rule pack that does not load is a usage error; a skipped input is not, once
  // something was diagnosed (it is named on stderr above): a CI check for 1 still sees the failure.
  if (!rules.errors().empty()) return 2;
  if (report.jobs.front().diagnosis) return 1;
  return runner.had_input_errors() ? 2 : 0;
}

namespace {
int run_command(int argc, const char* const* argv, ProcessOutput& process_out);
}  // namespace

int run(int argc, const char* const* argv) {
  std::signal(SIGPIPE, SIG_IGN);
  ProcessOutput process_out;
  return process_out.finish(run_command(argc, argv, process_out));
}

namespace {
int run_command(int argc, const char* const* argv, ProcessOutput& process_out) {
  RedactingOutput redacting_out(process_out);
  // Decided before the options are parsed, so that a bad command line's message is redacted too.
  bool redact = std::any_of(argv + 1, argv + argc,
                            [](const char* word) { return std::string_view(word) == "--redact"; });
  Output& out = redact ? static_cast<Output&>(redacting_out) : process_out;
  if (argc < 2) {
    out.err(short_usage());
    return 2;
  }
  auto options = parse_options(argc, argv);
  if (!options) {
    out.err("faultline: " + options.status().message() + "\n" + help_hint(argc, argv));
    return 2;
  }
  return options->command->run(*options, out);
}

}  // namespace

}  // namespace faultline::cli
