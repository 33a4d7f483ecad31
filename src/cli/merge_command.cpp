// `faultline merge`: the summary of sharded scans, rebuilt from their JSONL lines alone.
// A job that appears in two files (a shard run twice) counts once, with one warning for the
// file that repeats it; the files' own summary lines are not added up, but the shards they
// name (scan --shard I/N) tell which shards of N none of the files holds, one warning each.
// -q silences the warnings.
#include <algorithm>
#include <cstdint>
#include <fstream>
#include <map>
#include <set>

#include "cli/commands.hpp"
#include "scan/scan_record.hpp"
#include "scan/summary.hpp"

namespace faultline::cli {

int run_merge(const Options& options, Output& out) {
  scan::Summary summary;
  bool input_errors = false;
  std::map<std::string, std::string> first_file;  // job -> the file that held it first
  std::map<uint32_t, std::set<uint32_t>> shards;  // count N -> the indices I of the summaries read
  for (const auto& path : options.inputs) {
    uint64_t repeated = 0;
    std::string example, example_file;
    std::ifstream file(path, std::ios::binary);
    if (!file) {
      out.err("faultline: " + path + ": cannot be read\n");
      input_errors = true;
      continue;
    }
    std::string line;
    for (uint64_t number = 1; std::getline(file, line); ++number) {
      if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
      auto parsed = scan::parse_line(line);
      std::string where = path + ":" + std::to_string(number) + ": ";
      if (!parsed) {
        out.err("faultline: " + where + parsed.status().message() + ", line ignored\n");
        input_errors = true;
        continue;
      }
      if (parsed->type == scan::LineType::kJob) out.learn_hosts(parsed->job.hosts);
      if (parsed->type == scan::LineType::kSkipped) summary.add(parsed->skip);
      if (parsed->type == scan::LineType::kSummary && parsed->shard)
        shards[parsed->shard->count].insert(parsed->shard->index);
      if (parsed->type == scan::LineType::kJob) {
        auto [seen, first] = first_file.emplace(parsed->job.job, path);
        if (!summary.add(parsed->job) && repeated++ == 0) {
          example = parsed->job.job;
          example_file = first ? path : seen->second;
        }
      }
    }
    if (repeated > 0 && !options.quiet) {
      out.err("faultline: " + path + ": " + std::to_string(repeated) + (repeated == 1 ? " job" : " jobs") +
              " seen before (the first, '" + example + "', in " + example_file +
              "); each is counted once (a shard given twice?)\n");
    }
  }
  // One warning per missing shard, up to a screenful; past that, how many more.
  constexpr uint32_t kMissingShown = 16;
  for (const auto& [count, indices] : shards) {
    if (options.quiet) break;
    uint32_t missing = count - static_cast<uint32_t>(indices.size());
    uint32_t shown = 0;
    for (uint32_t index = 0; index < count && shown < std::min(missing, kMissingShown); ++index) {
      if (indices.count(index)) continue;
      ++shown;
      out.err("faultline: shard " + std::to_string(index) + "/" + std::to_string(count) +
              " is missing: none of the files holds its summary line, so its jobs are not counted\n");
    }
    if (missing > shown) {
      out.err("faultline: " + std::to_string(missing - shown) + " more shards of " + std::to_string(count) +
              " are missing\n");
    }
  }
  if (options.format == Format::kText) {
    out.out(summary.to_text(SIZE_MAX));
  } else {
    out.out(summary.to_json());
    if (!options.quiet) out.err(summary.to_text());
  }
  if (input_errors || summary.skipped() || summary.failed() || summary.read_errors()) return 2;
  return summary.diagnosed() ? 1 : 0;
}

}  // namespace faultline::cli
