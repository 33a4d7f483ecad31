// Helpers for checking faultline's messages word for word where a part of them is counted from
// the input's bytes: the counts are read from the message, and the rest must match exactly.
#pragma once

#include <cstdio>
#include <fstream>
#include <string>

namespace faultline::testing {

// The reason a binary input is skipped with: "binary file (B of the O bytes other than NUL in
// its first H are control bytes or invalid UTF-8), not a log", with B over a tenth of O and O at
// most H.
inline bool is_binary_file_reason(const std::string& reason) {
  unsigned long long bad = 0, others = 0, head = 0;
  if (std::sscanf(reason.c_str(), "binary file (%llu of the %llu bytes other than NUL in its first %llu",
                  &bad, &others, &head) != 3)
    return false;
  return reason == "binary file (" + std::to_string(bad) + " of the " + std::to_string(others) +
                       " bytes other than NUL in its first " + std::to_string(head) +
                       " are control bytes or invalid UTF-8), not a log" &&
         bad * 10 > others && others <= head;
}

// merge's warning for a results file whose every job line was read before, from an earlier
// argument that is the same file: "N jobs seen before (the first, 'JOB', in FILE); ...". A job
// line starts {"type":"job","job":"JOB", and the tests' job names need no JSON escapes.
inline std::string repeated_jobs_warning(const std::string& results) {
  std::ifstream file(results, std::ios::binary);
  const std::string job_start = R"({"type":"job","job":")";
  std::string line, first;
  size_t jobs = 0;
  while (std::getline(file, line)) {
    if (!line.starts_with(job_start)) continue;
    if (jobs++ == 0)
      first = line.substr(job_start.size(), line.find('"', job_start.size()) - job_start.size());
  }
  return "faultline: " + results + ": " + std::to_string(jobs) + (jobs == 1 ? " job" : " jobs") +
         " seen before (the first, '" + first + "', in " + results +
         "); each is counted once (a shard given twice?)\n";
}

}  // namespace faultline::testing
