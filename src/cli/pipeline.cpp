#include "cli/pipeline.hpp"

#include "assemble/assembler.hpp"
#include "ingest/record_reader.hpp"
#include "ingest/path_hints.hpp"
#include "parse/line_parser.hpp"

namespace faultline::cli {

struct JobRunner::Stages {
  explicit Stages(JobRunner& runner)
      : assembler([&runner](assemble::Event&& event) { runner.engine_.match_event(event, runner.findings_); }) {}
  parse::LineParser parser;
  assemble::Assembler assembler;
};

JobRunner::JobRunner(const rules::Engine& engine) : engine_(engine), stages_(std::make_unique<Stages>(*this)) {}
JobRunner::~JobRunner() = default;

void JobRunner::add_source(ingest::ByteSource& source, ingest::SourceInfo info) {
  auto index = static_cast<uint32_t>(sources_.size());
  auto records = ingest::open_records(source, index);
  ingest::RecordReader& reader = *records;
  ingest::Record record;
  rules::Engine::BlockScreen screen;
  uint64_t screened = 0;
  while (reader.next(record)) {
    if (reader.refills() != screened) {
      screened = reader.refills();
      screen = engine_.screen_block(reader.buffered());
    }
    parse::Line line = stages_->parser.parse(record, info.rank_hint);
    do {  // a line may hold several (a flattened paste, two ranks' bytes interleaved)
      if (line.rank >= 0) ranks_seen_.insert(line.rank);
      if (!line.host.empty()) hosts_.insert(std::string(line.host));
      host_directory_.observe(line.host, line.rank, line.pid ? line.text : std::string_view{});
      uint64_t sequence = sequence_++;
      engine_.match_line(line, sequence, screen, findings_);
      stages_->assembler.push(line, sequence);
    } while (stages_->parser.next_piece(line));
  }
  info.format = reader.format() == "text" ? source.format() : reader.format();
  info.bytes = reader.bytes();
  info.lines = reader.lines();
  info.lines_cut = reader.lines_cut();
  info.bad_lines = reader.bad_lines();
  info.first_bad_line = reader.first_bad_line();
  if (reader.lines() == 0) {
    skipped_.push_back({info.name, reader.status() ? "empty file, nothing to analyse" : reader.status().message()});
    return;
  }
  if (!reader.status()) info.error = reader.status().message();
  if (stages_->assembler.has_open_event(index)) truncated_.push_back(info.name);
  sources_.push_back(std::move(info));
}

void JobRunner::add_path(const std::string& path) {
  ingest::for_each_source(
      path, [this](ingest::SourceInfo info, ingest::ByteSource& source) { add_source(source, std::move(info)); },
      [this](ingest::Skipped skipped) { skipped_.push_back(std::move(skipped)); });
}

bool JobRunner::had_input_errors() const {
  if (!skipped_.empty()) return true;
  for (const auto& source : sources_) {
    if (!source.error.empty() || source.bad_lines) return true;
  }
  return false;
}

std::vector<rules::Finding> JobRunner::take_findings() {
  stages_->assembler.finish();
  return std::move(findings_);
}

correlate::JobAnalysis JobRunner::finish(std::string job_name, const std::set<std::string>& baseline) {
  stages_->assembler.finish();
  correlate::JobShape shape;
  shape.ranks_seen.assign(ranks_seen_.begin(), ranks_seen_.end());
  shape.hosts.assign(hosts_.begin(), hosts_.end());
  shape.truncated_sources = truncated_;
  shape.host_directory = std::move(host_directory_);
  return correlate::correlate(std::move(job_name), std::move(shape), std::move(findings_), baseline);
}

std::set<std::string> baseline_fingerprints(const rules::Engine& engine, const std::vector<std::string>& paths,
                                            std::vector<ingest::Skipped>& skipped) {
  JobRunner runner(engine);
  for (const auto& path : ingest::expand_inputs(paths).files) runner.add_path(path);
  for (const auto& item : runner.skipped()) skipped.push_back({"baseline " + item.source, item.reason});
  std::set<std::string> prints;
  for (const auto& group : runner.finish("baseline").findings) prints.insert(group.fingerprint);
  return prints;
}

std::vector<rules::Finding> findings_for_text(const rules::Engine& engine, std::string_view text,
                                              const std::string& name) {
  JobRunner runner(engine);
  auto source = ingest::memory_source(text);
  ingest::SourceInfo info;
  info.name = name;
  info.rank_hint = ingest::rank_from_path(name);
  runner.add_source(*source, std::move(info));
  return runner.take_findings();
}

}  // namespace faultline::cli
