// Fuzz target: the whole pipeline on one in-memory log (job::JobRunner with the shipped rules:
// ingest, parse, assemble, rules, correlate), read once line by line and once sparsely, and the
// analysis rendered in every report format.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "job/job_runner.hpp"
#include "report/report.hpp"
#include "rules/rule_set.hpp"

namespace {

using namespace faultline;

const rules::Engine& shipped_engine() {
  static const rules::RuleSet rules = rules::RuleSet::shipped();
  static const rules::Engine engine(rules);
  return engine;
}

report::RunReport analyse(std::string_view bytes, bool sparse) {
  job::JobRunner runner(shipped_engine());
  if (sparse) {
    runner.set_dense_head_bytes(0);
    runner.set_sampled_screen_bytes(0);
  }
  auto source = ingest::memory_source(bytes);
  ingest::SourceInfo info;
  info.name = "attempt_0/3/stderr.log";
  info.rank_hint = 3;
  runner.add_source(*source, std::move(info));
  report::RunReport run;
  run.jobs.push_back(runner.finish("job"));
  run.sources = runner.sources();
  run.skipped = runner.skipped();
  return run;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  analyse(bytes, /*sparse=*/true);
  report::RunReport run = analyse(bytes, /*sparse=*/false);
  report::render_text(run, {});
  report::render_text(run, {.color = true, .quiet = false, .width = 80});
  report::render_json(run, true);
  report::render_jsonl(run);
  report::render_markdown(run);
  report::render_html(run);
  report::render_sarif(run);
  return 0;
}
