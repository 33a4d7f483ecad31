// The text report, for people at a terminal or in a CI log: the diagnosis in the first lines,
// then its evidence, what happened, why, the fix and how to check it, then everything else
// folded to a line per cause. Lines fit the terminal (or ~100 columns when piped).
#include <algorithm>
#include <map>
#include <set>

#include "base/text.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "report/source_notes.hpp"
#include "report/story.hpp"

namespace faultline::report {
namespace {

// Why the headline names no initiating rank: no line names one, or the ranks that reported the
// failure only witnessed a peer's.
std::string unknown_rank_why(const correlate::Diagnosis& diagnosis) {
  using Kind = correlate::ConfidenceReason::Kind;
  for (const auto& reason : diagnosis.reasons) {
    if (reason.kind == Kind::kOnlyWitnesses)
      return ranks_phrase(reason.ranks("ranks"), "no rank") + " only reported a peer's failure";
  }
  return "no line names it";
}

class Painter {
 public:
  explicit Painter(bool color) : color_(color) {}
  std::string bold(std::string_view text) const { return wrap("1", text); }
  std::string red(std::string_view text) const { return wrap("1;31", text); }
  std::string yellow(std::string_view text) const { return wrap("33", text); }
  std::string dim(std::string_view text) const { return wrap("2", text); }
  std::string green(std::string_view text) const { return wrap("32", text); }

 private:
  std::string wrap(std::string_view code, std::string_view text) const {
    if (!color_) return std::string(text);
    return "\x1b[" + std::string(code) + "m" + std::string(text) + "\x1b[0m";
  }
  bool color_;
};

bool is_continuation(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Columns on a terminal: code points, not bytes, and no colour escapes.
size_t columns(std::string_view text) {
  size_t count = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x1b') {
      while (i < text.size() && text[i] != 'm') ++i;
      continue;
    }
    if (!is_continuation(static_cast<unsigned char>(text[i]))) ++count;
  }
  return count;
}

// The first `limit` columns of plain text, ending in "…" when something was cut.
std::string cut(std::string_view text, size_t limit) {
  if (columns(text) <= limit) return std::string(text);
  size_t kept = 0, at = 0;
  while (at < text.size() && kept + 1 < limit) {
    ++at;
    while (at < text.size() && is_continuation(static_cast<unsigned char>(text[at]))) ++at;
    ++kept;
  }
  return std::string(trim_right(text.substr(0, at))) + "…";
}

// The last `limit` columns of a path, starting with "…": the file name and line survive.
std::string cut_left(std::string_view text, size_t limit) {
  size_t total = columns(text);
  if (total <= limit) return std::string(text);
  size_t skip = total - limit + 1, at = 0;
  for (size_t seen = 0; at < text.size() && seen < skip; ++seen) {
    ++at;
    while (at < text.size() && is_continuation(static_cast<unsigned char>(text[at]))) ++at;
  }
  return "…" + std::string(text.substr(at));
}

// A log's text made safe for a terminal: C0 controls (BEL, backspace...), DEL and C1 controls
// (U+0080-U+009F, which some terminals act on) are dropped, a tab becomes a space.
std::string printable(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\t') {
      out += ' ';
    } else if (c < 0x20 || c == 0x7f) {
      continue;
    } else if (c == 0xC2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9F) {
      ++i;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// `text` after `first` (the first line's indent), folded at spaces to `width` columns with
// `rest` before each further line; `width` 0 folds nothing.
std::string wrap(std::string_view text, const std::string& first, const std::string& rest, size_t width) {
  if (width == 0 || columns(first) + columns(text) <= width) return first + std::string(text) + "\n";
  std::string out = first, line;
  size_t used = columns(first);
  auto flush = [&] {
    out += line + "\n";
    line.clear();
    out += rest;
    used = columns(rest);
  };
  size_t start = 0;
  bool at_line_start = true;
  while (start <= text.size()) {
    size_t end = text.find(' ', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(start, end - start);
    size_t need = columns(word) + (at_line_start ? 0 : 1);
    if (!at_line_start && used + need > width) {
      flush();
      need = columns(word);
      at_line_start = true;
    }
    if (!at_line_start) line += ' ';
    line += word;
    used += need;
    at_line_start = false;
    start = end + 1;
  }
  return out + line + "\n";
}

// "600000 ms" and "660 s" as people say them: "10 min", "11 min". Durations in a story come
// from the logs' own units; a round number of minutes or hours reads better as one.
std::string human_duration(int64_t millis) {
  auto plural = [](int64_t n, const char* unit) { return std::to_string(n) + " " + unit; };
  if (millis % 1000 != 0) {
    if (millis < 1000) return plural(millis, "ms");
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f s", static_cast<double>(millis) / 1000.0);
    return buffer;
  }
  int64_t seconds = millis / 1000;
  if (seconds >= 7200 && seconds % 3600 == 0) return plural(seconds / 3600, "h");
  if (seconds >= 120 && seconds % 60 == 0) return plural(seconds / 60, "min");
  if (seconds >= 120) return plural(seconds / 60, "min") + " " + plural(seconds % 60, "s");
  return plural(seconds, "s");
}

}  // namespace

std::string human_durations(std::string_view text) {
  std::string out;
  size_t at = 0;
  while (at < text.size()) {
    if (!is_digit(text[at]) || (at > 0 && (is_word(text[at - 1]) || text[at - 1] == '.'))) {
      out += text[at++];
      continue;
    }
    size_t end = at;
    while (end < text.size() && is_digit(text[end])) ++end;
    std::string_view rest = text.substr(end);
    int64_t factor = 0;
    size_t unit = 0;
    if (rest.starts_with(" ms") && (rest.size() == 3 || !is_word(rest[3]))) {
      factor = 1;
      unit = 3;
    } else if (rest.starts_with(" s") && (rest.size() == 2 || !is_word(rest[2]))) {
      factor = 1000;
      unit = 2;
    }
    auto value = parse_integer(text.substr(at, end - at));
    if (!factor || !value || *value > INT64_MAX / 1000) {
      out += text.substr(at, end - at);
    } else {
      out += human_duration(*value * factor);
      end += unit;
    }
    at = end;
  }
  return out;
}

const char* const kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                               "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// "2026-11-29 10:22:33.123" when the log gives the year, "Nov 29 10:22:33" when it does not.
std::string display_time(const Timestamp& time) {
  if (!time.valid) return {};
  char buffer[64];
  if (time.year) {
    std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02d %02d:%02d:%02d", time.year, time.month, time.day,
                  time.hour, time.minute, time.second);
  } else {
    std::snprintf(buffer, sizeof buffer, "%s %02d %02d:%02d:%02d",
                  time.month >= 1 && time.month <= 12 ? kMonths[time.month - 1] : "?", time.day, time.hour,
                  time.minute, time.second);
  }
  std::string out = buffer;
  if (time.fraction_is_wall_clock && time.nanos) {
    std::snprintf(buffer, sizeof buffer, ".%03lld", static_cast<long long>(time.nanos / 1000000));
    out += buffer;
  }
  return out;
}

namespace {

std::string file_name(const std::string& source) {
  size_t slash = source.find_last_of('/');
  return slash == std::string::npos ? source : source.substr(slash + 1);
}

// The error itself, without the launcher's rank prefix (`[rank2]: `) or indentation: the same
// error printed to stderr.log, error.json and the console compares equal.
std::string error_text(std::string_view text) {
  text = trim(text);
  if (text.starts_with('[')) {
    size_t close = text.find("]:");
    if (close != std::string_view::npos && close < 40) text = trim(text.substr(close + 2));
  }
  return std::string(text);
}

class Renderer {
 public:
  Renderer(const RunReport& report, const TextOptions& options)
      : report_(report), paint_(options.color), options_(options) {}

  void job(const correlate::JobAnalysis& job, std::string& out) const;

 private:
  std::string prose(std::string_view text, const std::string& first, const std::string& rest) const {
    return wrap(text, first, rest, options_.width);
  }
  std::string evidence_line(const rules::Evidence& evidence, std::string_view indent, bool whole,
                            const std::vector<const rules::Evidence*>& also = {}) const;
  std::string evidence_block(const std::vector<rules::Evidence>& evidence) const;
  void unrecognised(const correlate::Diagnosis& diagnosis, const correlate::FindingGroup& primary,
                    std::string& out) const;
  void also_seen(const correlate::JobAnalysis& job, std::string& out) const;
  // A command to copy: folded with a shell's " \" continuation, so it still pastes and runs.
  std::string command_lines(std::string_view command) const {
    if (!options_.width) return "  $ " + std::string(command) + "\n";
    std::string folded = wrap(command, "  $ ", "      ", options_.width > 2 ? options_.width - 2 : 0);
    std::string out;
    for (size_t at = 0; at < folded.size();) {
      size_t end = folded.find('\n', at);
      out += folded.substr(at, end - at);
      at = end + 1;
      out += at < folded.size() ? " \\\n" : "\n";
    }
    return out;
  }

  const RunReport& report_;
  Painter paint_;
  const TextOptions& options_;
};

// One line of evidence. The diagnosis' own (`whole`) is never cut: it is wrapped on a terminal
// and left whole in a pipe, for grep and for pasting. Other evidence is cut to the width.
std::string Renderer::evidence_line(const rules::Evidence& evidence, std::string_view indent, bool whole,
                                    const std::vector<const rules::Evidence*>& also) const {
  size_t limit = options_.width ? options_.width : kPipedEvidenceWidth;
  std::string where = source_name(report_, evidence.source) + ":" + std::to_string(evidence.line);
  std::string rank = evidence.rank >= 0 ? "[rank " + std::to_string(evidence.rank) + "]" : "[rank ?]";
  std::string text = printable(evidence.text);
  size_t room = limit - std::min(limit, indent.size() + 2 + rank.size());
  if (columns(where) > room && room > 8) where = cut_left(where, room);
  std::string head = std::string(indent) + paint_.dim(where) + "  " + paint_.yellow(rank) + "  ";
  std::string out;
  size_t used = columns(head);
  bool fits = whole ? options_.width == 0 || used + columns(text) <= limit : used + 30 <= limit;
  if (!fits && used + 30 > limit) {  // a long path: the text goes on a line of its own
    out = std::string(trim_right(head)) + "\n";
    head = std::string(indent) + "  ";
    used = columns(head);
  }
  std::string rest = std::string(indent) + "  ";
  if (whole)
    out += wrap(text, head, rest, options_.width);
  else
    out += head + cut(trim(text), limit > used ? limit - used : 10) + "\n";
  if (!also.empty()) {
    std::vector<std::string> places;
    for (const rules::Evidence* other : also)
      places.push_back(file_name(source_name(report_, other->source)) + ":" + std::to_string(other->line));
    out += prose("(also in " + join(places, ", ") + ")", rest, rest);
  }
  return out;
}

// Each error once: the same text from another file of the same rank (or of no named rank) is
// counted under the first, not shown again.
std::string Renderer::evidence_block(const std::vector<rules::Evidence>& evidence) const {
  std::vector<const rules::Evidence*> shown;
  std::vector<std::vector<const rules::Evidence*>> also;
  for (const auto& item : evidence) {
    std::string text = error_text(item.text);
    bool folded = false;
    for (size_t i = 0; i < shown.size() && !folded; ++i) {
      const rules::Evidence& first = *shown[i];
      bool same_rank = first.rank == item.rank || first.rank < 0 || item.rank < 0;
      if (first.source != item.source && same_rank && error_text(first.text) == text) {
        also[i].push_back(&item);
        folded = true;
      }
    }
    if (!folded) {
      shown.push_back(&item);
      also.emplace_back();
    }
  }
  std::string out;
  for (size_t i = 0; i < shown.size(); ++i) out += evidence_line(*shown[i], "    ", true, also[i]);
  return out;
}

const Value* fact(const correlate::Diagnosis& diagnosis, const char* name) {
  return find_fact(diagnosis.facts, name);
}

// Cause `unrecognised`: say so plainly, then what the log shows of the error.
void Renderer::unrecognised(const correlate::Diagnosis& diagnosis, const correlate::FindingGroup& primary,
                            std::string& out) const {
  out += prose("No rule knows this error; faultline shows it as the log gives it.", "  ", "  ");
  auto shown = [&](const char* name) {
    const Value* value = fact(diagnosis, name);
    return value ? printable(to_display(*value)) : std::string();
  };
  std::string exception = shown("exception"), message = shown("message");
  std::string error = exception.empty() ? message : message.empty() ? exception : exception + ": " + message;
  if (error.empty() && !primary.evidence.empty())
    error = error_text(printable(primary.evidence.front().text));
  size_t limit = options_.width ? options_.width : kPipedEvidenceWidth;
  out += "  exception: " + cut(error, limit - 13) + "\n";
  std::string file = shown("frame_file"), line = shown("frame_line"), function = shown("frame_function");
  if (!file.empty()) {
    std::string where =
        file + (line.empty() ? "" : ":" + line) + (function.empty() ? "" : ", in " + function);
    out += "  raised at: " + cut(where, limit - 13) + "\n";
    if (std::string source = shown("frame_source"); !source.empty())
      out += "             " + cut(source, limit - 13) + "\n";
  }
  out += "  rank:      " +
         (diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank) : std::string("not named")) +
         "\n";
}

// Everything but the diagnosis' own group, one line per cause and role.
void Renderer::also_seen(const correlate::JobAnalysis& job, std::string& out) const {
  // Made from a cause and a role alone: every other member has an initializer, so that neither
  // compiler's -Wmissing-field-initializers fires.
  struct Folded {
    std::string cause;
    rules::Role role;
    std::set<int> ranks{};
    size_t occurrences = 0;
    std::string collateral_of{};
    bool in_baseline = false;
    const rules::Evidence* first = nullptr;
  };
  std::vector<Folded> folded;
  for (size_t i = 1; i < job.findings.size(); ++i) {
    const auto& group = job.findings[i];
    auto it = std::find_if(folded.begin(), folded.end(), [&](const Folded& f) {
      return f.cause == group.rule->cause && f.role == group.rule->role;
    });
    if (it == folded.end()) it = folded.insert(folded.end(), Folded{group.rule->cause, group.rule->role});
    it->ranks.insert(group.ranks.begin(), group.ranks.end());
    it->occurrences += std::max<size_t>(group.occurrences, 1);
    if (it->collateral_of.empty()) it->collateral_of = group.collateral_of;
    it->in_baseline = it->in_baseline || group.in_baseline;
    if (!it->first && !group.evidence.empty()) it->first = &group.evidence.front();
  }
  if (folded.empty()) return;
  out += "\n" + paint_.bold("Also seen") + "\n";
  for (const auto& entry : folded) {
    std::string line =
        entry.cause + " (" + rules::to_string(entry.role) + ")" +
        (entry.ranks.empty() ? std::string(", no rank named")
                             : " on " + ranks_phrase(std::vector<int>(entry.ranks.begin(), entry.ranks.end()),
                                                     "no rank named")) +
        ", " + (entry.occurrences == 1 ? std::string("once") : std::to_string(entry.occurrences) + " times");
    if (!entry.collateral_of.empty()) line += ", collateral of " + entry.collateral_of;
    if (entry.in_baseline) line += ", also in the baseline run";
    out += prose(line, "  - ", "    ");
    if (entry.first) out += evidence_line(*entry.first, "      ", false);
  }
}

void Renderer::job(const correlate::JobAnalysis& job, std::string& out) const {
  if (!job.diagnosis) {
    out += paint_.green("No failure found") + " in " + job.job + " (" +
           std::to_string(job.shape.ranks_seen.size()) + " rank(s) seen).\n";
    if (!job.findings.empty()) {
      out += "  " + std::to_string(job.findings.size()) +
             " finding(s) also seen in the baseline run were set aside.\n";
    }
    return;
  }
  const auto& diagnosis = *job.diagnosis;
  const auto& primary = job.findings.front();
  std::string heading = "Diagnosis: " + diagnosis.cause;
  if (options_.width && columns(heading) + 2 + columns(diagnosis.title) > options_.width)
    out += paint_.red(heading) + "\n" + prose(diagnosis.title, "  ", "  ");
  else
    out += paint_.red(heading) + "  " + paint_.bold(diagnosis.title) + "\n";
  std::string rank = diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank)
                                               : "unknown (" + unknown_rank_why(diagnosis) + ")";
  std::string summary = "initiating rank: " + paint_.bold(rank);
  if (!diagnosis.initiating_host.empty()) summary += "   host: " + diagnosis.initiating_host;
  if (diagnosis.first_seen.valid) summary += "   first seen: " + display_time(diagnosis.first_seen);
  char confidence[16];
  std::snprintf(confidence, sizeof confidence, "%.2f", diagnosis.confidence);
  summary += "   confidence: " + std::string(confidence);
  out += prose(summary, "  ", "  ");
  bool unknown_error = diagnosis.cause == "unrecognised";
  if (unknown_error) unrecognised(diagnosis, primary, out);
  out += prose("rule: " + primary.rule->id + "   seen on " + ranks_phrase(primary.ranks, "no rank named"),
               "  ", "  ");
  if (!diagnosis.facts.empty() && !unknown_error) {
    std::vector<std::string> facts;
    for (const auto& [name, value] : diagnosis.facts)
      facts.push_back(name + "=" + printable(to_display(value)));
    out += prose(join(facts, "  "), "  facts: ", "         ");
  }
  out += "\n" + paint_.bold("Evidence") + "\n" + evidence_block(primary.evidence);
  if (options_.quiet) return;
  if (diagnosis.story.size() > 1) {
    out += "\n" + paint_.bold("What happened") + "\n";
    for (const auto& step : diagnosis.story) out += prose(human_durations(story_text(step)), "  - ", "    ");
  }
  if (!job.coverage.missing_ranks.empty() || !job.shape.truncated_sources.empty()) {
    std::string seen =
        "ranks seen: " + (job.shape.ranks_seen.empty() ? "none" : format_ranges(job.shape.ranks_seen));
    if (job.coverage.world_size) seen += " of a world of " + std::to_string(*job.coverage.world_size);
    if (!job.coverage.missing_ranks.empty())
      seen += "; no lines from rank(s) " + format_ranges(job.coverage.missing_ranks);
    out += "\n" + paint_.bold("Coverage") + "\n" + prose(seen, "  ", "  ");
    for (const auto& source : job.shape.truncated_sources)
      out += prose(source + " ends inside an error: the log may be cut", "  ", "    ");
  }
  if (!diagnosis.explain.empty())
    out += "\n" + paint_.bold("Why") + "\n" + prose(trim(diagnosis.explain), "  ", "  ");
  if (!diagnosis.fix.empty()) {
    out += "\n" + paint_.bold("Fix") + "\n";
    for (const auto& item : diagnosis.fix) out += prose(item, "  - ", "    ");
  }
  if (!diagnosis.verify.empty()) out += "\n" + paint_.bold("Verify") + "\n" + command_lines(diagnosis.verify);
  if (!diagnosis.confirm.empty()) {
    out += "\n" + paint_.bold("Confirm") + "\n";
    for (const auto& item : diagnosis.confirm) out += prose(item, "  - ", "    ");
  }
  also_seen(job, out);
  std::string reasons = prose("Confidence rests on: " + reasons_text(diagnosis.reasons) + ".", "", "  ");
  reasons.pop_back();
  out += "\n" + paint_.dim(reasons) + "\n";
}

}  // namespace

std::string render_verification_text(const Verification& verification) {
  std::string out = "verify: " + verification.command + "\n";
  std::string_view output = verification.output;
  while (!output.empty()) {
    size_t end = output.find('\n');
    std::string_view line = output.substr(0, end);
    out += line.empty() ? "\n" : "  " + std::string(line) + "\n";
    output.remove_prefix(end == std::string_view::npos ? output.size() : end + 1);
  }
  if (!verification.ran) return out + "verify not run\n";
  return out + (verification.passed() ? "verify passed" : "verify failed") + " (exit code " +
         std::to_string(verification.exit_code) + ")\n";
}

std::string render_text(const RunReport& report, const TextOptions& options) {
  Renderer renderer(report, options);
  std::string out;
  for (size_t i = 0; i < report.jobs.size(); ++i) {
    if (!out.empty()) out += "\n";
    renderer.job(report.jobs[i], out);
    if (const Verification* verification = verification_of(report, i)) {
      out += "\n" + render_verification_text(*verification);
    }
  }
  for (const auto& source : report.sources) {
    for (const auto& note : source_notes(source)) out += "note: " + note + "\n";
  }
  return out;
}

}  // namespace faultline::report
