// The summary of a scan: what fails, how often, where. Built from scan lines alone
// (scan_record.hpp), so a merge of sharded results and a single run give the same summary:
// every list is sorted and every example is the smallest job name, whatever the order the
// lines arrive in. Not thread-safe: one Summary per thread, or a lock.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "scan/scan_record.hpp"
#include "scan/shard.hpp"

namespace faultline::scan {

class Summary {
 public:
  // False when a job of the same name was added before (the line is then ignored).
  bool add(const JobRecord& job);
  void add(const PlannedSkip& skip);

  uint64_t jobs() const { return jobs_; }
  uint64_t diagnosed() const { return diagnosed_; }
  uint64_t failed() const { return failed_.size(); }
  uint64_t skipped() const { return skipped_.size(); }
  uint64_t read_errors() const { return read_errors_; }
  // The shard this summary is of (scan --shard I/N), written in its JSON so that merge can tell
  // which shards it was given and which are missing.
  void set_shard(Shard shard) { shard_ = shard; }

  // {"type":"summary","schema":"faultline.scan/1",...} on one line, with its '\n'.
  std::string to_json() const;
  // For people: counts, the top of each list (`limit` entries), and what was skipped.
  std::string to_text(size_t limit = 20) const;

 private:
  struct Print {
    std::string cause;
    uint64_t jobs = 0;
    std::string example;        // the smallest job name
    std::string template_text;  // cause `unrecognised`: the error's template
    std::string line;           // the example job's evidence line
  };

  // The fingerprints of cause `unrecognised` (one per template), with their job counts.
  std::map<std::string, uint64_t> unrecognised_counts() const;

  std::set<std::string> names_;
  uint64_t jobs_ = 0, diagnosed_ = 0;
  uint64_t files_ = 0, members_ = 0, inputs_ = 0, bytes_ = 0, lines_ = 0, read_errors_ = 0;
  std::map<std::string, uint64_t> causes_;
  std::map<std::string, Print> fingerprints_;
  std::map<std::string, uint64_t> failing_hosts_;
  std::set<std::string> no_diagnosis_;
  std::map<std::string, std::string> failed_;              // job -> why
  std::set<std::pair<std::string, std::string>> skipped_;  // (source, reason)
  std::optional<Shard> shard_;
};

}  // namespace faultline::scan
