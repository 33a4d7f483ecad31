// What correlate hands to report: the findings of one job folded across ranks, and the
// diagnosis (the initiating failure) with the reasons it rests on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/timestamp.hpp"
#include "base/value.hpp"
#include "correlate/action.hpp"
#include "correlate/confidence_reason.hpp"
#include "correlate/peers.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

// Where one rank first reported a finding: a point of the job's timeline.
struct RankMark {
  int rank = -1;
  Timestamp time;
  uint64_t sequence = 0;
  // Seconds the rank's host clock runs ahead of the job's common clock (see clock_skew.hpp);
  // 0 when no offset was estimated. `time` is as printed: subtract this to compare across hosts.
  double clock_offset = 0;
};

// Identical errors (same rule, same message up to numbers) folded across ranks.
struct FindingGroup {
  static constexpr size_t kMaxEvidence = 8;

  const rules::Rule* rule = nullptr;
  std::string fingerprint;
  std::vector<int> ranks;  // sorted, unique; empty when no rank was known
  std::vector<std::string> hosts;
  Timestamp first_time;
  double first_clock_offset = 0;  // of the host that printed first_time (see RankMark)
  uint64_t first_sequence = 0;
  int first_rank = -1;
  Facts facts;                            // of the earliest occurrence
  std::string message;                    // the earliest occurrence's matched text
  std::vector<rules::Evidence> evidence;  // earliest first, capped at kMaxEvidence
  size_t occurrences = 0;
  std::vector<RankMark> marks;   // each rank's first report, earliest first
  std::string collateral_of;     // the diagnosis' cause, for symptoms that follow it
  bool in_baseline = false;      // a healthy run of the job shows it too
  std::string failure_template;  // cause `unrecognised`: what it looks like (see fingerprint.hpp)
};

// One step of what happened, as data (report/story.hpp says it in words).
struct StoryItem {
  enum class Kind {
    kFailedFirst,  // the initiating failure: `ranks` holds the initiating rank when one is named
    kOthers,       // what the ranks of another cause did: `ranks` holds them all
  };
  Kind kind = Kind::kFailedFirst;
  std::vector<int> ranks;  // sorted
  std::string cause;
  std::string title;  // kFailedFirst: the diagnosis' title
  Timestamp at;       // kFailedFirst: when it was first seen, when a line says
  std::string did;    // kOthers: the rule's narrative, or "reported CAUSE (TITLE)"
  // kOthers: seconds from the initiating failure to the cause's earliest report, on the job's
  // common clock; and by the printed times where aligning the host clocks changed it.
  std::optional<int64_t> seconds_later;
  std::optional<int64_t> printed_seconds_later;
  bool collateral = false;  // kOthers: a symptom of the diagnosis' cause
};
const char* to_string(StoryItem::Kind kind);

struct Diagnosis {
  const rules::Rule* rule = nullptr;
  std::string cause;
  std::string title;
  double confidence = 0;
  std::vector<ConfidenceReason> reasons;  // what the confidence rests on (confidence_reason.hpp)
  std::string fingerprint;
  std::string failure_template;  // cause `unrecognised`: the error's template (fingerprint.hpp)
  std::optional<int> initiating_rank;
  // Where the initiating failure happened: the one host its lines came from, or the host the job's
  // table of processes places the initiating rank on; empty when no line says.
  std::string initiating_host;
  Timestamp first_seen;
  Facts facts;
  std::string explain;
  std::vector<std::string> symptoms;
  std::vector<std::string> confirm;
  std::vector<std::string> fix;
  std::string verify;
  // What to do: the kind of action, whether a restart would do, and for layout causes the sizes
  // the model accepts from every known fact (action.hpp).
  Action action;
  // What happened, in order: the initiating failure, then what the other ranks did. Delays are
  // on the job's common clock when host clock offsets were estimated.
  std::vector<StoryItem> story;
};

// What the job's lines said about its shape, gathered while reading.
struct JobShape {
  std::vector<int> ranks_seen;
  std::vector<std::string> hosts;
  std::vector<std::string> truncated_sources;  // ended inside a traceback or error block
  job::ProcessTable processes;                 // who is where: rank, host, pid, device
};

// How much of the job the logs show: a partial log still deserves an answer, but says so.
struct Coverage {
  std::optional<int64_t> world_size;  // as the logs state it (world_size / nranks facts)
  std::vector<int> missing_ranks;     // below the world size (or the highest rank seen) with no line
};

struct JobAnalysis {
  std::string job;
  JobShape shape;
  Coverage coverage;
  std::optional<Diagnosis> diagnosis;
  std::vector<FindingGroup> findings;  // the diagnosis' group first, then root causes, then symptoms
  // What the job says it is (arguments, model, layout; rules of role `fact`), and the sizes the
  // model catalogue gives for a model it names: the first statement of each fact.
  std::vector<JobFact> job_facts;
};

}  // namespace faultline::correlate
