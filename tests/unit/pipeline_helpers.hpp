// Unit tests that run text through the whole pipeline with the shipped rules: one engine for
// the test binary, and a job made of one log held in memory.
#pragma once

#include <string>

#include "job/job_runner.hpp"
#include "rules/rule_set.hpp"

namespace faultline::testing {

inline const rules::Engine& shipped_engine() {
  static const rules::RuleSet rules = rules::RuleSet::shipped();
  static const rules::Engine engine(rules);
  return engine;
}

// `log` as the job's only source, named job.log.
inline correlate::JobAnalysis diagnose_log(const std::string& log, const std::string& job = "job") {
  job::JobRunner runner(shipped_engine());
  auto source = ingest::memory_source(log);
  ingest::SourceInfo info;
  info.name = "job.log";
  runner.add_source(*source, std::move(info));
  return runner.finish(job);
}

}  // namespace faultline::testing
