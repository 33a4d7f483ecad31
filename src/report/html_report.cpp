// One HTML file that works offline: the diagnosis, and a rank × time timeline (inline SVG)
// marking each rank's first error, the initiating rank and the collateral wave.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "base/text.hpp"
#include "report/reasons.hpp"
#include "report/report.hpp"
#include "report/source_notes.hpp"
#include "report/story.hpp"

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

// Days since 1970-01-01 of a civil date (H. Hinnant's days_from_civil).
int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<int64_t>(doe) - 719468;
}

// Seconds of a printed time on one clock for every format the parser reads: from the date when
// every time has a year (ISO, syslog with year, TRT-LLM), else within the year (c10 glog, vLLM's
// MM-DD); a monotonic fraction (c10) is left out.
double clock_seconds(const Timestamp& time, bool with_years) {
  double whole = with_years ? static_cast<double>(days_from_civil(time.year, time.month, time.day)) * 86400 +
                                  time.hour * 3600 + time.minute * 60 + time.second
                            : static_cast<double>(time.seconds_in_year());
  return whole + (time.fraction_is_wall_clock ? static_cast<double>(time.nanos) / 1e9 : 0.0);
}

struct Axis {
  bool by_time = false;
  size_t placed = 0;  // marks without a timestamp, placed at the time of the line before them
};

// The x of a mark: seconds on the job's common clock (less its host's clock offset, so that
// hosts line up) when most marks carry a timestamp, else input order. A mark without one takes
// the time of the latest timed mark before it in the logs.
std::vector<Point> timeline_points(const correlate::JobAnalysis& job, Axis& axis) {
  // Marks with no rank are not drawn, so they do not decide the axis.
  size_t drawn = 0, timed = 0;
  bool with_years = true;
  for (const auto& group : job.findings) {
    for (const auto& mark : group.marks) {
      if (mark.rank < 0) continue;
      ++drawn;
      if (!mark.time.valid) continue;
      ++timed;
      with_years = with_years && mark.time.year != 0;
    }
  }
  axis.by_time = timed > 0 && timed * 2 >= drawn;
  // Timed marks by input order, for the marks without a time.
  std::vector<std::pair<uint64_t, double>> timed_at;
  double year_wrap = 0;
  if (axis.by_time) {
    double low = 0, high = 0;
    bool first = true;
    for (const auto& group : job.findings) {
      for (const auto& mark : group.marks) {
        if (mark.rank < 0 || !mark.time.valid) continue;
        double at = clock_seconds(mark.time, with_years);
        low = first ? at : std::min(low, at);
        high = first ? at : std::max(high, at);
        first = false;
      }
    }
    // No year and more than half a year apart: the job ran across New Year.
    if (!with_years && high - low > 183 * 86400.0) year_wrap = 365 * 86400.0;
    for (const auto& group : job.findings) {
      for (const auto& mark : group.marks) {
        if (mark.rank < 0 || !mark.time.valid) continue;
        double at = clock_seconds(mark.time, with_years) - mark.clock_offset;
        if (year_wrap > 0 && mark.time.month <= 6) at += year_wrap;
        timed_at.emplace_back(mark.sequence, at);
      }
    }
    std::sort(timed_at.begin(), timed_at.end());
    // A mark without a time before every timed one has no time to take: input order, then.
    for (const auto& group : job.findings) {
      for (const auto& mark : group.marks) {
        if (mark.rank >= 0 && !mark.time.valid && mark.sequence < timed_at.front().first)
          axis.by_time = false;
      }
    }
  }
  std::vector<Point> points;
  for (size_t i = 0; i < job.findings.size(); ++i) {
    const auto& group = job.findings[i];
    for (const auto& mark : group.marks) {
      if (mark.rank < 0) continue;
      std::string kind = group.rule->role == rules::Role::kSymptom ? "symptom" : "root";
      if (i == 0 && job.diagnosis && job.diagnosis->initiating_rank == mark.rank) kind = "initiating";
      double x = static_cast<double>(mark.sequence);
      std::string when =
          mark.time.valid ? display_time(mark.time) : "line order " + std::to_string(mark.sequence);
      if (axis.by_time && mark.time.valid) {
        x = clock_seconds(mark.time, with_years) - mark.clock_offset;
        if (year_wrap > 0 && mark.time.month <= 6) x += year_wrap;
      } else if (axis.by_time) {
        auto after = std::upper_bound(timed_at.begin(), timed_at.end(), std::make_pair(mark.sequence, 1e300));
        x = std::prev(after)->second;
        when = "no timestamp: placed at the line before it";
        ++axis.placed;
      }
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

// One lane of the timeline: a rank, or a host with its ranks folded onto it.
struct Lane {
  std::string label;
  std::vector<int> ranks;  // sorted
  bool initiating = false;
};

struct Geometry {
  int left = 70, right = 210, width = 1080;
  double low = 0, high = 1;
  double x_of(double x) const { return left + (x - low) / (high - low) * (width - left - right); }
};

// Symptoms first, so the initiating mark is drawn on top.
void order_for_drawing(std::vector<Point>& points) {
  std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) {
    auto order = [](const std::string& kind) { return kind == "symptom" ? 0 : kind == "root" ? 1 : 2; };
    return order(a.kind) < order(b.kind);
  });
}

// The marks of `ranks` on the lane at `y`; `host` marks are the folded ones.
std::string lane_marks(const correlate::JobAnalysis& job, const std::vector<Point>& points, const Geometry& g,
                       const std::vector<int>& ranks, int y, int radius, bool host) {
  std::string svg;
  char buffer[512];
  for (const auto& point : points) {
    if (!std::binary_search(ranks.begin(), ranks.end(), point.rank)) continue;
    int r = point.kind == "initiating" ? radius + 3 : radius;
    const char* fill = point.kind == "initiating" ? "#d0021b" : series_colour(job, point.series);
    std::snprintf(buffer, sizeof buffer,
                  "<circle class=\"mark %s%s\" data-rank=\"%d\" data-series=\"%zu\" cx=\"%.1f\" cy=\"%d\" "
                  "r=\"%d\" fill=\"%s\">",
                  host ? "host-mark " : "", point.kind.c_str(), point.rank, point.series, g.x_of(point.x), y,
                  r, fill);
    svg += buffer;
    svg += "<title>" + escape_html(point.label) + "</title></circle>\n";
    if (point.kind == "initiating") {
      std::snprintf(buffer, sizeof buffer, "<text class=\"mark-label\" x=\"%.1f\" y=\"%d\">",
                    g.x_of(point.x) + r + 6, y + 4);
      svg += buffer;
      svg += "rank " + std::to_string(point.rank) + ": " +
             escape_html(job.findings[point.series].rule->cause) + "</text>\n";
    }
  }
  return svg;
}

// Lanes stacked in one SVG, `row` pixels each, from `top`.
std::string lanes_body(const correlate::JobAnalysis& job, const std::vector<Point>& points, const Geometry& g,
                       const std::vector<Lane>& lanes, int top, int row, int label_x, bool host) {
  std::string svg;
  char buffer[512];
  int radius = row >= 20 ? 6 : 4;
  for (size_t i = 0; i < lanes.size(); ++i) {
    int y = top + static_cast<int>(i) * row + row / 2;
    if (lanes[i].initiating) {
      std::snprintf(
          buffer, sizeof buffer,
          "<rect class=\"lane-initiating\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>\n",
          y - row / 2, g.width - g.right + 12, row);
      svg += buffer;
    }
    std::snprintf(buffer, sizeof buffer, "<text class=\"rank-label%s\" x=\"%d\" y=\"%d\">",
                  lanes[i].initiating ? " initiating" : "", label_x, y + 4);
    svg += buffer;
    svg += escape_html(lanes[i].label) + "</text>\n";
    std::snprintf(buffer, sizeof buffer, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" class=\"lane\"/>\n",
                  g.left, y, g.width - g.right, y);
    svg += buffer;
    svg += lane_marks(job, points, g, lanes[i].ranks, y, radius, host);
  }
  return svg;
}

// The time axis: a line and five ticks at `axis_y`.
std::string axis_ticks(const Geometry& g, const Axis& axis, int axis_y) {
  std::string svg;
  char buffer[512];
  std::snprintf(buffer, sizeof buffer,
                "<line class=\"axis-line\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", g.left, axis_y,
                g.width - g.right, axis_y);
  svg += buffer;
  if (!axis.by_time) return svg;
  for (int tick = 0; tick <= 4; ++tick) {
    double at = g.low + (g.high - g.low) * tick / 4;
    std::snprintf(
        buffer, sizeof buffer,
        "<line class=\"axis-line\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text class=\"axis\" "
        "x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
        g.x_of(at), axis_y, g.x_of(at), axis_y + 4, g.x_of(at), axis_y + 18,
        seconds_text(at - g.low).c_str());
    svg += buffer;
  }
  return svg;
}

std::string axis_caption(const correlate::JobAnalysis& job, const Axis& axis) {
  bool aligned = false;
  for (const auto& group : job.findings) {
    for (const auto& mark : group.marks) aligned = aligned || mark.clock_offset != 0;
  }
  std::string text = axis.by_time
                         ? (aligned ? "time since the first report, by timestamp (host clocks aligned)"
                                    : "time since the first report, by timestamp")
                         : "order in the logs (the lines have no common timestamps)";
  if (axis.placed)
    text +=
        "; " + std::to_string(axis.placed) + " mark(s) without a timestamp placed at the line before them";
  return text;
}

// The lanes of a job folded by host: each host's ranks, in rank order, when the job is large and
// the logs say where its ranks ran; else nothing.
std::vector<Lane> host_lanes(const correlate::JobAnalysis& job, const std::vector<int>& ranks, int initiating,
                             size_t& inferred) {
  constexpr size_t kFoldAbove = 32;  // ranks; fewer fit one lane each
  const auto& by_host = job.shape.processes.ranks_by_host();
  if (ranks.size() <= kFoldAbove || by_host.size() < 2) return {};
  std::vector<Lane> lanes;
  std::set<int> placed;
  for (const auto& [host, host_ranks] : by_host) {
    Lane lane{host, {}, false};
    for (int rank : host_ranks) {
      if (placed.insert(rank).second && std::binary_search(ranks.begin(), ranks.end(), rank))
        lane.ranks.push_back(rank);
    }
    if (lane.ranks.empty()) continue;
    lane.initiating = std::binary_search(lane.ranks.begin(), lane.ranks.end(), initiating);
    lanes.push_back(std::move(lane));
  }
  // Hosts that each hold one aligned block of ranks (8 per host: 0-7, 8-15, ...) take the ranks
  // of their block that no line placed.
  size_t block = 0;
  for (const auto& lane : lanes) block = std::max(block, lane.ranks.size());
  std::map<int, size_t> lane_of_block;
  for (size_t i = 0; i < lanes.size() && block; ++i) {
    int first = lanes[i].ranks.front() / static_cast<int>(block);
    bool aligned = lanes[i].ranks.back() / static_cast<int>(block) == first && !lane_of_block.count(first);
    if (!aligned) {
      block = 0;
      break;
    }
    lane_of_block[first] = i;
  }
  Lane unknown{"host unknown", {}, false};
  for (int rank : ranks) {
    if (placed.count(rank)) continue;
    auto at = block ? lane_of_block.find(rank / static_cast<int>(block)) : lane_of_block.end();
    if (at == lane_of_block.end()) {
      unknown.ranks.push_back(rank);
    } else {
      auto& into = lanes[at->second].ranks;
      into.insert(std::upper_bound(into.begin(), into.end(), rank), rank);
      ++inferred;
    }
  }
  for (auto& lane : lanes)
    lane.initiating = std::binary_search(lane.ranks.begin(), lane.ranks.end(), initiating);
  unknown.initiating = std::binary_search(unknown.ranks.begin(), unknown.ranks.end(), initiating);
  if (!unknown.ranks.empty()) lanes.push_back(std::move(unknown));
  std::stable_sort(lanes.begin(), lanes.end(),
                   [](const Lane& a, const Lane& b) { return a.ranks.front() < b.ranks.front(); });
  return lanes;
}

std::string timeline_svg(const correlate::JobAnalysis& job) {
  Axis axis;
  auto points = timeline_points(job, axis);
  std::vector<int> ranks = job.shape.ranks_seen;
  for (const auto& point : points) {
    if (std::find(ranks.begin(), ranks.end(), point.rank) == ranks.end()) ranks.push_back(point.rank);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty() || points.empty()) return "<p>No rank-attributed events to draw.</p>\n";
  Geometry g;
  g.low = g.high = points.front().x;
  for (const auto& point : points) {
    g.low = std::min(g.low, point.x);
    g.high = std::max(g.high, point.x);
  }
  if (g.high <= g.low) g.high = g.low + 1;
  order_for_drawing(points);
  int initiating = job.diagnosis && job.diagnosis->initiating_rank ? *job.diagnosis->initiating_rank : -1;
  size_t inferred = 0;
  std::vector<Lane> hosts = host_lanes(job, ranks, initiating, inferred);
  char buffer[512];
  if (hosts.empty()) {
    // One lane per rank, in one SVG, the axis below.
    const int top = 8, row = ranks.size() > 32 ? 12 : 24;
    std::vector<Lane> lanes;
    for (int rank : ranks) lanes.push_back({"rank " + std::to_string(rank), {rank}, rank == initiating});
    int axis_y = top + static_cast<int>(ranks.size()) * row + 6;
    std::snprintf(buffer, sizeof buffer,
                  "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                  "role=\"img\" aria-label=\"rank by time timeline\">\n",
                  g.width, axis_y + 38);
    std::string svg =
        buffer + lanes_body(job, points, g, lanes, top, row, 8, false) + axis_ticks(g, axis, axis_y);
    std::snprintf(buffer, sizeof buffer, "<text class=\"axis\" x=\"%d\" y=\"%d\">", g.left, axis_y + 34);
    return svg + buffer + escape_html(axis_caption(job, axis)) + " →</text>\n</svg>\n";
  }
  // Folded: one lane per host, its ranks' marks on it; a host opens to a lane per rank. The axis
  // stays at the top of the scrolling lanes.
  g.left = 170;
  const int host_row = 22, rank_row = 16;
  std::string out = "<p class=\"fold-note\" id=\"fold-note\">" + std::to_string(ranks.size()) + " ranks on " +
                    std::to_string(hosts.size()) +
                    " hosts: one lane per host, its ranks' marks on it; open a host for a lane per rank" +
                    (inferred ? "; " + std::to_string(inferred) +
                                    " rank(s) with no host line are placed by their host's block of ranks"
                              : std::string()) +
                    ".</p>\n";
  out += "<div class=\"lanes\" id=\"timeline\" role=\"img\" aria-label=\"host by time timeline\">\n";
  std::snprintf(buffer, sizeof buffer,
                "<svg class=\"axis-top\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"34\">\n",
                g.width);
  out += buffer + axis_ticks(g, axis, 8) + "</svg>\n";
  for (const auto& host : hosts) {
    std::string range = format_ranges(host.ranks);
    Lane lane{host.label + " · " + (host.ranks.size() == 1 ? "rank " : "ranks ") + range, host.ranks,
              host.initiating};
    out += "<details class=\"host\" data-host=\"" + escape_html(host.label) + "\" data-ranks=\"" + range +
           "\"" + (host.initiating ? " open" : "") + ">\n<summary>";
    std::snprintf(
        buffer, sizeof buffer,
        "<svg class=\"host-lane\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n",
        g.width, host_row);
    out += buffer;
    out +=
        "<text class=\"chevron\" x=\"4\" y=\"15\">▸</text><text class=\"chevron open\" x=\"4\" "
        "y=\"15\">▾</text>\n";
    out += lanes_body(job, points, g, {lane}, 0, host_row, 20, true) + "</svg></summary>\n";
    std::vector<Lane> rank_lanes;
    for (int rank : host.ranks)
      rank_lanes.push_back({"rank " + std::to_string(rank), {rank}, rank == initiating});
    std::snprintf(
        buffer, sizeof buffer,
        "<svg class=\"rank-lanes\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n",
        g.width, static_cast<int>(rank_lanes.size()) * rank_row);
    out += buffer + lanes_body(job, points, g, rank_lanes, 0, rank_row, 36, false) + "</svg>\n</details>\n";
  }
  out += "</div>\n<p class=\"axis\">" + escape_html(axis_caption(job, axis)) + " →</p>\n";
  return out;
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
    std::string role = rules::to_string(job.findings[i].rule->role);
    std::string collateral_of;
    bool in_baseline = false;
    for (size_t j = i; j < job.findings.size(); ++j) {
      if (series_of(job, j) != i) continue;
      ranks.insert(job.findings[j].ranks.begin(), job.findings[j].ranks.end());
      occurrences += std::max<size_t>(job.findings[j].occurrences, 1);
      if (collateral_of.empty()) collateral_of = job.findings[j].collateral_of;
      in_baseline = in_baseline || job.findings[j].in_baseline;
    }
    if (!collateral_of.empty()) role += ", collateral of " + collateral_of;
    if (in_baseline) role += ", also in the baseline run";
    const auto& group = job.findings[i];
    std::string where, text;
    if (!group.evidence.empty()) {
      where = source_name(report, group.evidence.front().source) + ":" +
              std::to_string(group.evidence.front().line);
      text = group.evidence.front().text;
    }
    rows += "<tr><td>" + escape_html(group.rule->cause) + "</td><td>" + escape_html(role) + "</td><td>" +
            (ranks.empty() ? std::string("?") : format_ranges({ranks.begin(), ranks.end()})) + "</td><td>" +
            std::to_string(occurrences) + "</td><td>" + escape_html(where) + "<br><code>" +
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

void render_job(const RunReport& report, size_t index, std::string& out) {
  const correlate::JobAnalysis& job = report.jobs[index];
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
         "</p>\n<p>Initiating rank: <strong id=\"initiating-rank\">" + rank + "</strong>" +
         (diagnosis.first_seen.valid ? " · first seen <span id=\"first-seen\">" +
                                           escape_html(display_time(diagnosis.first_seen)) + "</span>"
                                     : std::string()) +
         " · confidence " + confidence + "</p>\n";
  const auto& primary = job.findings.front();
  out += "<p id=\"rule\">rule <code>" + escape_html(primary.rule->id) + "</code> · seen on " +
         (primary.ranks.empty()
              ? std::string("no rank named")
              : (primary.ranks.size() == 1 ? "rank " : "ranks ") + format_ranges(primary.ranks)) +
         "</p>\n";
  if (!diagnosis.facts.empty()) {
    std::vector<std::string> facts;
    for (const auto& [name, value] : diagnosis.facts) facts.push_back(name + "=" + to_display(value));
    out += "<p id=\"facts\">facts: <code>" + escape_html(join(facts, "  ")) + "</code></p>\n";
  }
  out +=
      "<h3>Timeline</h3>\n<div class=\"timeline\">" + timeline_svg(job) + "</div>\n" + timeline_legend(job);
  if (!diagnosis.story.empty()) {
    out += "<h3>What happened</h3>\n<ol>\n";
    for (const auto& step : diagnosis.story)
      out += "<li>" + escape_html(human_durations(story_text(step))) + "</li>\n";
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
  out +=
      "<p class=\"muted\">Confidence rests on: " + escape_html(reasons_text(diagnosis.reasons)) + ".</p>\n";
  if (const Verification* verification = verification_of(report, index))
    out += "<h3>Verify run</h3>\n<pre id=\"verification\">" +
           escape_html(render_verification_text(*verification)) + "</pre>\n";
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
      ".lanes{max-height:62vh;overflow-y:auto;border:1px solid #e6e6ea;border-radius:4px}\n"
      ".axis-top{position:sticky;top:0;background:#fff;z-index:1;display:block}\n"
      "details.host>summary{list-style:none;cursor:pointer}details.host>summary::-webkit-details-marker{"
      "display:none}\n"
      ".host-lane,.rank-lanes{display:block}.chevron{font-size:11px;fill:#777}.chevron.open{display:none}\n"
      "details[open]>summary .chevron{display:none}details[open]>summary .chevron.open{display:inline}\n"
      "details.host:hover>summary .lane{stroke:#c9c9d2}.fold-note{margin:4px 0}\n"
      ".dot{display:inline-block;width:10px;height:10px;border-radius:5px;margin-right:8px}\n"
      "</style></head><body>\n<h1>faultline report</h1>\n";
  for (size_t i = 0; i < report.jobs.size(); ++i) render_job(report, i, out);
  for (const auto& source : report.sources) {
    for (const auto& note : source_notes(source))
      out += "<p class=\"muted\">note: " + escape_html(note) + "</p>\n";
  }
  return out + "</body></html>\n";
}

}  // namespace faultline::report
