// One HTML file that works offline: the diagnosis, and a rank × time timeline (inline SVG)
// marking each rank's first error, the initiating rank and the collateral wave.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>
#include <set>

#include "base/text.hpp"
#include "report/report.hpp"

namespace faultline::report {
namespace {

std::string escape_html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

struct Point {
  int rank;
  double x;          // seconds on the job's common clock, or input order
  std::string kind;  // "initiating", "root", "symptom"
  size_t series;     // index of the finding group, for its colour and legend entry
  std::string label;
};

// The x of a mark: seconds when every mark has a comparable timestamp (less its host's clock
// offset, so that hosts line up), else input order.
std::vector<Point> timeline_points(const correlate::JobAnalysis& job, bool& by_time) {
  // Marks with no rank are not drawn, so they do not decide the axis.
  by_time = true;
  size_t drawn = 0;
  for (const auto& group : job.findings) {
    for (const auto& mark : group.marks) {
      if (mark.rank < 0) continue;
      ++drawn;
      by_time = by_time && mark.time.valid;
    }
  }
  by_time = by_time && drawn > 0;
  std::vector<Point> points;
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const auto& group = job.findings[i];
    for (const auto& mark : group.marks) {
      if (mark.rank < 0) continue;
      std::string kind = group.rule->role == rules::Role::kSymptom ? "symptom" : "root";
      if (i == 0 && job.diagnosis && job.diagnosis->initiating_rank == mark.rank) kind = "initiating";
      double x =
          by_time ? static_cast<double>(mark.time.seconds_in_year()) - mark.clock_offset +
                        (mark.time.fraction_is_wall_clock ? static_cast<double>(mark.time.nanos) / 1e9 : 0.0)
                  : static_cast<double>(mark.sequence);
      std::string when =
          mark.time.valid ? mark.time.to_string() : "line order " + std::to_string(mark.sequence);
      points.push_back({mark.rank, x, kind, i,
                        "rank " + std::to_string(mark.rank) + ": " + group.rule->cause + " (" + when + ")"});
    }
  }
  return points;
}

// Colours of the symptom series (collateral), one per finding group, in the order listed.
constexpr const char* kSymptomColours[] = {"#6f8fbf", "#59a88c", "#a58bc9", "#c7a25a", "#8e959c", "#5fb0c9"};

// Groups of one cause and role share a colour and a legend entry: the first group's index.
size_t series_of(const correlate::JobAnalysis& job, size_t group) {
  for (size_t i = 0; i < group; ++i) {
    if (job.findings[i].rule->cause == job.findings[group].rule->cause &&
        job.findings[i].rule->role == job.findings[group].rule->role)
      return i;
  }
  return group;
}

const char* series_colour(const correlate::JobAnalysis& job, size_t series) {
  series = series_of(job, series);
  if (job.findings[series].rule->role != rules::Role::kSymptom) return "#f5a623";
  size_t symptom_index = 0;
  for (size_t i = 0; i < series; ++i)
    symptom_index += job.findings[i].rule->role == rules::Role::kSymptom && series_of(job, i) == i;
  return kSymptomColours[symptom_index % std::size(kSymptomColours)];
}

std::string seconds_text(double seconds) {
  char buffer[32];
  if (seconds >= 120) {
    std::snprintf(buffer, sizeof buffer, "+%.0f min", seconds / 60);
  } else {
    std::snprintf(buffer, sizeof buffer, seconds < 10 ? "+%.1f s" : "+%.0f s", seconds);
  }
  return seconds == 0 ? "0 s" : buffer;
}

std::string timeline_svg(const correlate::JobAnalysis& job) {
  bool by_time = true;
  auto points = timeline_points(job, by_time);
  std::vector<int> ranks = job.shape.ranks_seen;
  for (const auto& point : points) {
    if (std::find(ranks.begin(), ranks.end(), point.rank) == ranks.end()) ranks.push_back(point.rank);
  }
  std::sort(ranks.begin(), ranks.end());
  if (ranks.empty() || points.empty()) return "<p>No rank-attributed events to draw.</p>\n";
  double low = points.front().x, high = points.front().x;
  for (const auto& point : points) {
    low = std::min(low, point.x);
    high = std::max(high, point.x);
  }
  if (high <= low) high = low + 1;
  // Right margin: room for the label beside the initiating mark when it sits at the far right.
  const int left = 70, right = 210, top = 8, row = ranks.size() > 32 ? 12 : 24, width = 1080;
  int height = top + static_cast<int>(ranks.size()) * row + 44;
  auto x_of = [&](double x) { return left + (x - low) / (high - low) * (width - left - right); };
  auto y_of = [&](int rank) {
    auto at = std::find(ranks.begin(), ranks.end(), rank) - ranks.begin();
    return top + static_cast<int>(at) * row + row / 2;
  };
  int initiating = job.diagnosis && job.diagnosis->initiating_rank ? *job.diagnosis->initiating_rank : -1;
  char buffer[512];
  std::string svg = "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    std::to_string(width) + "\" height=\"" + std::to_string(height) +
                    "\" role=\"img\" aria-label=\"rank by time timeline\">\n";
  int label_every = row >= 20 ? 1 : 4;  // many ranks: label every 4th lane
  for (size_t i = 0; i < ranks.size(); ++i) {
    int rank = ranks[i];
    int y = y_of(rank);
    if (initiating == rank) {
      std::snprintf(
          buffer, sizeof buffer,
          "<rect class=\"lane-initiating\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>\n",
          y - row / 2, width - right + 12, row);
      svg += buffer;
    }
    if (static_cast<int>(i) % label_every == 0 || initiating == rank) {
      std::snprintf(buffer, sizeof buffer, "<text class=\"rank-label%s\" x=\"8\" y=\"%d\">rank %d</text>\n",
                    initiating == rank ? " initiating" : "", y + 4, rank);
      svg += buffer;
    }
    std::snprintf(buffer, sizeof buffer, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"lane\"/>\n",
                  left, y, width - right, y);
    svg += buffer;
  }
  int axis_y = top + static_cast<int>(ranks.size()) * row + 6;
  std::snprintf(buffer, sizeof buffer,
                "<line class=\"axis-line\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", left, axis_y,
                width - right, axis_y);
  svg += buffer;
  if (by_time) {
    for (int tick = 0; tick <= 4; ++tick) {
      double at = low + (high - low) * tick / 4;
      std::snprintf(
          buffer, sizeof buffer,
          "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text class=\"axis\" "
          "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
          x_of(at), axis_y, x_of(at), axis_y + 4, x_of(at), axis_y + 18, seconds_text(at - low).c_str());
      svg += buffer;
    }
  }
  bool aligned = false;
  for (const auto& group : job.findings) {
    for (const auto& mark : group.marks) aligned = aligned || mark.clock_offset != 0;
  }
  std::snprintf(buffer, sizeof buffer, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s →</text>\n", left,
                axis_y + 34,
                by_time ? (aligned ? "time since the first report, by timestamp (host clocks aligned)"
                                   : "time since the first report, by timestamp")
                        : "order in the logs (the lines have no common timestamps)");
  svg += buffer;
  // Symptoms first, so the initiating mark is drawn on top.
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    auto order = [](const std::string& kind) { return kind == "symptom" ? 0 : kind == "root" ? 1 : 2; };
    return order(a.kind) < order(b.kind);
  });
  int radius = row >= 20 ? 6 : 4;
  for (const auto& point : points) {
    int r = point.kind == "initiating" ? radius + 3 : radius;
    const char* fill = point.kind == "initiating" ? "#d0021b" : series_colour(job, point.series);
    std::snprintf(
        buffer, sizeof buffer,
        "<circle class=\"mark %s\" data-rank=\"%d\" data-series=\"%zu\" cx=\"%.1f\" cy=\"%d\" r=\"%d\" "
        "fill=\"%s\">",
        point.kind.c_str(), point.rank, point.series, x_of(point.x), y_of(point.rank), r, fill);
    svg += buffer;
    svg += "<title>" + escape_html(point.label) + "</title></circle>\n";
    if (point.kind == "initiating") {
      std::snprintf(buffer, sizeof buffer, "<text class=\"mark-label\" x=\"%.1f\" y=\"%d\">",
                    x_of(point.x) + r + 6, y_of(point.rank) + 4);
      svg += buffer;
      svg += "rank " + std::to_string(point.rank) + ": " +
             escape_html(job.findings[point.series].rule->cause) + "</text>\n";
    }
  }
  return svg + "</svg>\n";
}

// One legend entry per finding group drawn on the timeline.
std::string timeline_legend(const correlate::JobAnalysis& job) {
  std::string out = "<ul class=\"legend\">\n";
  std::optional<int> initiating = job.diagnosis ? job.diagnosis->initiating_rank : std::nullopt;
  if (initiating) {
    out += "<li><span class=\"dot\" style=\"background:#d0021b\"></span>initiating rank " +
           std::to_string(*initiating) + ": " + escape_html(job.findings.front().rule->title) +
           " <span class=\"muted\">(" + escape_html(job.findings.front().rule->cause) + ")</span></li>\n";
  }
  for (size_t i = 0; i < job.findings.size(); ++i) {
    if (series_of(job, i) != i) continue;
    std::set<int> folded;  // the ranks of every group of this entry
    for (size_t j = i; j < job.findings.size(); ++j) {
      if (series_of(job, j) != i || job.findings[j].marks.empty()) continue;
      if (j == 0 && initiating && job.findings[j].ranks == std::vector<int>{*initiating})
        continue;  // drawn as the initiating mark
      folded.insert(job.findings[j].ranks.begin(), job.findings[j].ranks.end());
    }
    if (folded.empty()) continue;
    const auto& group = job.findings[i];
    std::string ranks =
        (folded.size() == 1 ? "rank " : "ranks ") + format_ranges({folded.begin(), folded.end()});
    std::string role = group.rule->role == rules::Role::kSymptom ? "collateral" : "root cause";
    out += std::string("<li><span class=\"dot\" style=\"background:") + series_colour(job, i) + "\"></span>" +
           escape_html(group.rule->title) + " <span class=\"muted\">(" + escape_html(group.rule->cause) +
           ", " + role + "; " + escape_html(ranks) + ")</span></li>\n";
  }
  return out + "</ul>\n";
}

std::string evidence_rows(const RunReport& report, const correlate::FindingGroup& group) {
  std::string out;
  for (const auto& evidence : group.evidence) {
    std::string source = source_name(report, evidence.source);
    out += "<tr><td>" + escape_html(source) + ":" + std::to_string(evidence.line) + "</td><td>" +
           (evidence.rank >= 0 ? std::to_string(evidence.rank) : "?") + "</td><td><code>" +
           escape_html(evidence.text) + "</code></td></tr>\n";
  }
  return out;
}

// The other findings, one row per cause and role, as in the text report.
std::string also_seen(const RunReport& report, const correlate::JobAnalysis& job) {
  std::string rows;
  for (size_t i = 1; i < job.findings.size(); ++i) {
    if (series_of(job, i) != i && series_of(job, i) != 0) continue;
    if (series_of(job, i) == 0) continue;  // the diagnosis' own cause
    std::set<int> ranks;
    size_t occurrences = 0;
    for (size_t j = i; j < job.findings.size(); ++j) {
      if (series_of(job, j) != i) continue;
      ranks.insert(job.findings[j].ranks.begin(), job.findings[j].ranks.end());
      occurrences += std::max<size_t>(job.findings[j].occurrences, 1);
    }
    const auto& group = job.findings[i];
    std::string where, text;
    if (!group.evidence.empty()) {
      where = source_name(report, group.evidence.front().source) + ":" +
              std::to_string(group.evidence.front().line);
      text = group.evidence.front().text;
    }
    rows += "<tr><td>" + escape_html(group.rule->cause) + "</td><td>" + rules::to_string(group.rule->role) +
            "</td><td>" + (ranks.empty() ? std::string("?") : format_ranges({ranks.begin(), ranks.end()})) +
            "</td><td>" + std::to_string(occurrences) + "</td><td>" + escape_html(where) + "<br><code>" +
            escape_html(text) + "</code></td></tr>\n";
  }
  if (rows.empty()) return {};
  return "<h3>Also seen</h3>\n<table class=\"evidence\" id=\"also-seen\"><tr><th>cause</th><th>role</th>"
         "<th>ranks</th><th>count</th><th>first evidence</th></tr>\n" +
         rows + "</table>\n";
}

std::string coverage(const correlate::JobAnalysis& job) {
  std::string out =
      "<h3>Coverage</h3>\n<p id=\"coverage\">ranks seen: " +
      (job.shape.ranks_seen.empty() ? std::string("none") : format_ranges(job.shape.ranks_seen));
  if (job.coverage.world_size) out += " of a world of " + std::to_string(*job.coverage.world_size);
  if (!job.coverage.missing_ranks.empty())
    out += "; no lines from rank(s) " + format_ranges(job.coverage.missing_ranks);
  out += "</p>\n";
  for (const auto& source : job.shape.truncated_sources)
    out += "<p>" + escape_html(source) + " ends inside an error: the log may be cut</p>\n";
  return out;
}

void render_job(const RunReport& report, const correlate::JobAnalysis& job, std::string& out) {
  out += "<section class=\"job\">\n<h2>" + escape_html(job.job) + "</h2>\n";
  if (!job.diagnosis) {
    out += "<p id=\"verdict\" class=\"ok\">No failure found.</p>\n</section>\n";
    return;
  }
  const auto& diagnosis = *job.diagnosis;
  std::string rank = diagnosis.initiating_rank ? std::to_string(*diagnosis.initiating_rank) : "unknown";
  char confidence[16];
  std::snprintf(confidence, sizeof confidence, "%.2f", diagnosis.confidence);
  out += "<p id=\"verdict\" class=\"failed\"><span id=\"cause\">" + escape_html(diagnosis.cause) +
         "</span> — " + escape_html(diagnosis.title) +
         "</p>\n<p>Initiating rank: <strong id=\"initiating-rank\">" + rank + "</strong> · confidence " +
         confidence + "</p>\n";
  out +=
      "<h3>Timeline</h3>\n<div class=\"timeline\">" + timeline_svg(job) + "</div>\n" + timeline_legend(job);
  if (!diagnosis.story.empty()) {
    out += "<h3>What happened</h3>\n<ol>\n";
    for (const auto& step : diagnosis.story) out += "<li>" + escape_html(step) + "</li>\n";
    out += "</ol>\n";
  }
  out += "<h3>Evidence</h3>\n<table class=\"evidence\"><tr><th>where</th><th>rank</th><th>line</th></tr>\n" +
         evidence_rows(report, job.findings.front()) + "</table>\n";
  if (!diagnosis.explain.empty()) out += "<h3>Why</h3>\n<p>" + escape_html(diagnosis.explain) + "</p>\n";
  if (!diagnosis.fix.empty()) {
    out += "<h3>Fix</h3>\n<ul>\n";
    for (const auto& item : diagnosis.fix) out += "<li>" + escape_html(item) + "</li>\n";
    out += "</ul>\n";
  }
  if (!diagnosis.verify.empty()) out += "<h3>Verify</h3>\n<pre>" + escape_html(diagnosis.verify) + "</pre>\n";
  if (!diagnosis.confirm.empty()) {
    out += "<h3>Confirm</h3>\n<ul>\n";
    for (const auto& item : diagnosis.confirm) out += "<li>" + escape_html(item) + "</li>\n";
    out += "</ul>\n";
  }
  out += also_seen(report, job) + coverage(job);
  out += "<p class=\"muted\">Confidence rests on: " + escape_html(join(diagnosis.reasons, "; ")) + ".</p>\n";
  out += "</section>\n";
}

}  // namespace

std::string render_html(const RunReport& report) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>faultline "
      "report</title>\n<style>\n"
      "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d1d1f;max-width:1100px}\n"
      "code,pre{font:12px ui-monospace,monospace}pre{background:#f4f4f6;padding:8px}\n"
      ".failed{font-size:18px;color:#b00020}.ok{font-size:18px;color:#1b7f3b}\n"
      "table.evidence{border-collapse:collapse}table.evidence td,th{border-bottom:1px solid #ddd;padding:3px "
      "8px;text-align:left}\n"
      ".timeline{overflow-x:auto}.lane{stroke:#e6e6ea}.axis-line{stroke:#999}.lane-initiating{fill:#fdecee}\n"
      ".rank-label,.axis{font-size:12px;fill:#555}.rank-label.initiating{fill:#b00020;font-weight:600}\n"
      ".mark{stroke:#fff;stroke-width:1.5;fill-opacity:.9}.mark.initiating{stroke:#5c0010;stroke-width:2;"
      "fill-opacity:1}\n"
      ".mark-label{font-size:12px;font-weight:600;fill:#b00020}\n"
      "ul.legend{list-style:none;padding:0;margin:6px 0 0}ul.legend li{margin:2px 0}.muted{color:#777}\n"
      ".dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:8px}\n"
      "</style></head><body>\n<h1>faultline report</h1>\n";
  for (const auto& job : report.jobs) render_job(report, job, out);
  return out + "</body></html>\n";
}

}  // namespace faultline::report
