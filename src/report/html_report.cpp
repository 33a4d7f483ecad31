// One HTML file that works offline: the diagnosis, and a rank × time timeline (inline SVG)
// marking each rank's first error, the initiating rank and the collateral wave.
#include <algorithm>
#include <cstdio>

#include "base/text.hpp"
#include "report/report.hpp"

namespace faultline::report {
namespace {

std::string escape_html(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

struct Point {
  int rank;
  double x;  // seconds or input order
  std::string kind;  // "initiating", "root", "symptom"
  std::string label;
};

// The x of a mark: seconds when every mark has a comparable timestamp, else input order.
std::vector<Point> timeline_points(const correlate::JobAnalysis& job, bool& by_time) {
  by_time = true;
  for (const auto& group : job.findings) {
    for (const auto& mark : group.marks) by_time = by_time && mark.time.valid;
  }
  std::vector<Point> points;
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const auto& group = job.findings[i];
    for (const auto& mark : group.marks) {
      if (mark.rank < 0) continue;
      std::string kind = group.rule->role == rules::Role::kSymptom ? "symptom" : "root";
      if (i == 0 && job.diagnosis && job.diagnosis->initiating_rank == mark.rank) kind = "initiating";
      double x = by_time ? static_cast<double>(mark.time.seconds_in_year()) +
                               (mark.time.fraction_is_wall_clock ? static_cast<double>(mark.time.nanos) / 1e9 : 0.0)
                         : static_cast<double>(mark.sequence);
      std::string when = mark.time.valid ? mark.time.to_string() : "line order " + std::to_string(mark.sequence);
      points.push_back({mark.rank, x, kind, "rank " + std::to_string(mark.rank) + ": " + group.rule->cause + " (" + when + ")"});
    }
  }
  return points;
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
  const int left = 90, right = 40, top = 30, row = 26, width = 960;
  int height = top + static_cast<int>(ranks.size()) * row + 40;
  auto x_of = [&](double x) { return left + (x - low) / (high - low) * (width - left - right); };
  auto y_of = [&](int rank) {
    auto at = std::find(ranks.begin(), ranks.end(), rank) - ranks.begin();
    return top + static_cast<int>(at) * row + row / 2;
  };
  char buffer[512];
  std::string svg = "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height) + "\" role=\"img\" aria-label=\"rank by time timeline\">\n";
  for (int rank : ranks) {
    int y = y_of(rank);
    std::snprintf(buffer, sizeof buffer,
                  "<text class=\"rank-label\" x=\"10\" y=\"%d\">rank %d</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"lane\"/>\n",
                  y + 4, rank, left, y, width - right, y);
    svg += buffer;
  }
  std::snprintf(buffer, sizeof buffer, "<text class=\"axis\" x=\"%d\" y=\"%d\">%s →</text>\n", left, height - 12,
                by_time ? "time (seconds)" : "order in the logs (no common timestamps)");
  svg += buffer;
  // Symptoms first, so the initiating mark is drawn on top.
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    auto order = [](const std::string& kind) { return kind == "symptom" ? 0 : kind == "root" ? 1 : 2; };
    return order(a.kind) < order(b.kind);
  });
  for (const auto& point : points) {
    int radius = point.kind == "initiating" ? 9 : 6;
    std::snprintf(buffer, sizeof buffer, "<circle class=\"mark %s\" data-rank=\"%d\" cx=\"%.1f\" cy=\"%d\" r=\"%d\">",
                  point.kind.c_str(), point.rank, x_of(point.x), y_of(point.rank), radius);
    svg += buffer;
    svg += "<title>" + escape_html(point.label) + "</title></circle>\n";
  }
  return svg + "</svg>\n";
}

std::string evidence_rows(const RunReport& report, const correlate::FindingGroup& group) {
  std::string out;
  for (const auto& evidence : group.evidence) {
    std::string source = source_name(report, evidence.source);
    out += "<tr><td>" + escape_html(source) + ":" + std::to_string(evidence.line) + "</td><td>" +
           (evidence.rank >= 0 ? std::to_string(evidence.rank) : "?") + "</td><td><code>" + escape_html(evidence.text) +
           "</code></td></tr>\n";
  }
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
  out += "<p id=\"verdict\" class=\"failed\"><span id=\"cause\">" + escape_html(diagnosis.cause) + "</span> — " +
         escape_html(diagnosis.title) + "</p>\n<p>Initiating rank: <strong id=\"initiating-rank\">" + rank +
         "</strong> · confidence " + confidence + "</p>\n";
  out += "<h3>Timeline</h3>\n" + timeline_svg(job);
  out += "<p class=\"legend\"><span class=\"dot initiating\"></span> initiating rank <span class=\"dot root\"></span> "
         "other root cause <span class=\"dot symptom\"></span> collateral</p>\n";
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
  out += "</section>\n";
}

}  // namespace

std::string render_html(const RunReport& report) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>faultline report</title>\n<style>\n"
      "body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d1d1f;max-width:1100px}\n"
      "code,pre{font:12px ui-monospace,monospace}pre{background:#f4f4f6;padding:8px}\n"
      ".failed{font-size:18px;color:#b00020}.ok{font-size:18px;color:#1b7f3b}\n"
      "table.evidence{border-collapse:collapse}table.evidence td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left}\n"
      ".lane{stroke:#e3e3e8}.rank-label,.axis{font-size:12px;fill:#555}\n"
      ".mark.initiating{fill:#d0021b;stroke:#000}.mark.root{fill:#f5a623}.mark.symptom{fill:#8aa4c8}\n"
      ".dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin:0 4px 0 12px}\n"
      ".dot.initiating{background:#d0021b}.dot.root{background:#f5a623}.dot.symptom{background:#8aa4c8}\n"
      "</style></head><body>\n<h1>faultline report</h1>\n";
  for (const auto& job : report.jobs) render_job(report, job, out);
  return out + "</body></html>\n";
}

}  // namespace faultline::report
