#include "correlate/occurrence_fold.hpp"

#include <algorithm>
#include <charconv>
#include <map>
#include <string>
#include <unordered_map>

#include "correlate/diagnosis.hpp"
#include "correlate/fingerprint.hpp"
#include "rules/engine.hpp"

namespace faultline::correlate {

using Line = std::pair<uint32_t, uint64_t>;  // (source, line number)

namespace {

using rules::Finding;

constexpr std::string_view kUnrecognisedCause = "unrecognised";

// "388.00", "2.5": a measurement that changes from one occurrence to the next.
bool is_decimal_measurement(const Value& value) {
  const auto* text = std::get_if<std::string>(&value);
  if (!text || text->empty()) return false;
  bool dot = false;
  for (char c : *text) {
    if (c == '.' && !dot) {
      dot = true;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dot;
}

// What two occurrences must share to fold. For a rule that knows its error, the fingerprint of
// what it matched is correlate's; an error no rule knows is keyed by its whole text, which is
// finer than its template. The facts keep apart what correlate compares across occurrences.
std::string make_fold_key(const Finding& finding) {
  std::string key;
  key.reserve(160);
  key += finding.rule->id;
  key += '\x1f';
  if (finding.rule->cause == kUnrecognisedCause) {
    key += finding.matched;
  } else {
    key += fingerprint(finding.rule->cause, finding.matched);
  }
  auto number = [&key](int64_t value, char after) {
    char digits[24];
    auto end = std::to_chars(digits, digits + sizeof digits, value).ptr;
    key.append(digits, end);
    key += after;
  };
  key += '\x1f';
  number(finding.rank, '/');
  number(finding.local_rank, '/');
  number(finding.pid, '/');
  number(finding.device, '/');
  key += finding.host;
  key += '/';
  key += finding.logged_at;
  key += finding.time.valid ? 'T' : '-';
  key += finding.time_inherited ? 'i' : 'o';
  for (const auto& [name, value] : finding.facts) {
    key += '\x1f';
    key += name;
    key += '=';
    if (!is_decimal_measurement(value)) key += to_display(value);
  }
  return key;
}

// Lines sorted, for a lookup by binary search: a few open events' lines, a few live findings'.
class LineSet {
 public:
  void insert(Line line) { lines_.push_back(line); }
  void seal() {
    std::sort(lines_.begin(), lines_.end());
    lines_.erase(std::unique(lines_.begin(), lines_.end()), lines_.end());
  }
  bool contains(Line line) const { return std::binary_search(lines_.begin(), lines_.end(), line); }

 private:
  std::vector<Line> lines_;
};

}  // namespace

OccurrenceFold fold_occurrences(std::vector<Finding>& findings, const std::vector<Line>& open_event_lines,
                                uint64_t open_since) {
  OccurrenceFold result;
  LineSet in_open_event;
  for (const Line& line : open_event_lines) in_open_event.insert(line);
  in_open_event.seal();
  auto live = [&](const Finding& finding) {  // a line of it may still gain a finding
    return std::any_of(finding.evidence.begin(), finding.evidence.end(),
                       [&](const rules::Evidence& evidence) {
                         return in_open_event.contains({evidence.source, evidence.line});
                       });
  };
  // The yield keep_highest_priority will apply at the end, applied to what folds.
  rules::LinePriorities priorities(findings);
  LineSet live_lines;  // the lines of findings still live
  for (const auto& finding : findings) {
    if (live(finding)) {
      for (const auto& evidence : finding.evidence) live_lines.insert({evidence.source, evidence.line});
    }
  }
  live_lines.seal();
  // Settled: every finding that shares a line with it is here, and none can come.
  auto frozen = [&](const Finding& finding) {
    if (finding.evidence.empty()) return false;
    return std::none_of(finding.evidence.begin(), finding.evidence.end(),
                        [&](const rules::Evidence& evidence) {
                          Line line{evidence.source, evidence.line};
                          return in_open_event.contains(line) || live_lines.contains(line);
                        });
  };

  // Frozen findings by key, in input order; recoveries by rank, for errors no rule knows.
  std::vector<bool> remove(findings.size(), false);
  std::unordered_map<std::string_view, std::vector<size_t>> by_key;  // views of the findings' keys
  std::map<int, std::vector<uint64_t>> recoveries;
  for (const auto& finding : findings) {
    if (finding.rule->role == rules::Role::kRecovery) recoveries[finding.rank].push_back(finding.sequence);
  }
  for (auto& [rank, sequences] : recoveries) std::sort(sequences.begin(), sequences.end());
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& finding = findings[i];
    if (!frozen(finding)) continue;
    if (priorities.yields(finding)) {
      remove[i] = true;
      ++result.yielded;
      continue;
    }
    // An error no rule knows is weighed against the recoveries of its rank: fold it only where
    // no recovery can still come before it.
    if (finding.rule->cause == kUnrecognisedCause && finding.sequence >= open_since) continue;
    Finding& keyed = findings[i];
    if (keyed.fold_key.empty()) keyed.fold_key = make_fold_key(keyed);
    by_key[keyed.fold_key].push_back(i);
  }
  for (auto& [key, members] : by_key) {
    if (members.size() < 3) continue;
    std::stable_sort(members.begin(), members.end(),
                     [&](size_t a, size_t b) { return findings[a].sequence < findings[b].sequence; });
    // Runs of occurrences with no recovery of their rank between them (any rule but an error no
    // rule knows is one run).
    bool split_by_recovery = findings[members.front()].rule->cause == kUnrecognisedCause;
    const std::vector<uint64_t>* recovered = nullptr;
    if (auto it = recoveries.find(findings[members.front()].rank);
        split_by_recovery && it != recoveries.end())
      recovered = &it->second;
    auto recoveries_before = [&](uint64_t sequence) -> size_t {
      if (!recovered) return 0;
      return static_cast<size_t>(std::lower_bound(recovered->begin(), recovered->end(), sequence) -
                                 recovered->begin());
    };
    size_t run_begin = 0;
    while (run_begin < members.size()) {
      size_t run_end = run_begin + 1;
      size_t run_recoveries = recoveries_before(findings[members[run_begin]].sequence);
      while (run_end < members.size() &&
             recoveries_before(findings[members[run_end]].sequence) == run_recoveries)
        ++run_end;
      // Keep the first and the last of the run; the first counts the others.
      Finding& first = findings[members[run_begin]];
      for (size_t m = run_begin + 1; m + 1 < run_end; ++m) {
        Finding& other = findings[members[m]];
        first.folded += 1 + other.folded;
        result.folded += 1 + other.folded;
        for (auto& evidence : other.evidence) {
          if (first.evidence.size() >= FindingGroup::kMaxEvidence) break;
          first.evidence.push_back(std::move(evidence));
        }
        remove[members[m]] = true;
      }
      run_begin = run_end;
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < findings.size(); ++i) {
    if (remove[i]) continue;
    if (kept != i) findings[kept] = std::move(findings[i]);
    ++kept;
  }
  findings.resize(kept);
  return result;
}

}  // namespace faultline::correlate
