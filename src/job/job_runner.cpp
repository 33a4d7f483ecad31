#include "job/job_runner.hpp"

#include <algorithm>
#include <functional>
#include <unordered_map>

#include "assemble/assembler.hpp"
#include "correlate/occurrence_fold.hpp"
#include "ingest/path_hints.hpp"
#include "ingest/record_reader.hpp"
#include "job/job_literals.hpp"
#include "parse/ansi.hpp"
#include "parse/line_parser.hpp"
#include "parse/process_lessons.hpp"
#include "screen/sparse_reader.hpp"

namespace faultline::job {

std::shared_ptr<const screen::Screens> make_screens(const rules::Engine& engine) {
  std::string_view prebuilt = engine.screen_literals_prebuilt() ? shipped_screen() : std::string_view();
  return std::make_shared<screen::Screens>([&engine] { return job_literals(engine); }, prebuilt);
}

namespace {

// An event whose rank its stream learned from a header before it (torch.multiprocessing.spawn's
// "-- Process 3 terminated with the following error:") gives that rank to the findings of line
// rules on its lines that named none: they were matched before the event was whole.
void give_event_rank(const assemble::Event& event, std::vector<rules::Finding>& findings) {
  for (auto it = findings.rbegin(); it != findings.rend() && it->sequence >= event.sequence; ++it) {
    if (it->rank >= 0 || it->evidence.empty()) continue;
    const rules::Evidence& first = it->evidence.front();
    bool on_event = std::any_of(event.lines.begin(), event.lines.end(), [&](const assemble::EventLine& line) {
      return line.source == first.source && line.number == first.line;
    });
    if (!on_event) continue;
    it->rank = event.rank;
    for (auto& evidence : it->evidence) {
      if (evidence.rank < 0) evidence.rank = event.rank;
    }
  }
}

}  // namespace

struct JobRunner::Stages {
  explicit Stages(JobRunner& runner)
      : parser(processes), assembler([&runner, this](assemble::Event&& event) {
          bool screens = runner.dense_head_bytes_ != UINT64_MAX;  // else every rule runs, as a check
          runner.engine_.match_event(event, runner.findings_, screens ? &owners_in : nullptr);
          if (event.rank_from_header) give_event_rank(event, runner.findings_);
        }) {
    // An event's candidate rules: the owners of the literals its text holds.
    owners_in = [&runner](std::string_view text, std::vector<uint32_t>& owners) {
      const screen::LiteralScreen* screen = runner.screens_->ready();
      thread_local std::vector<screen::LiteralScreen::Hit> hits;
      if (!screen || !screen->scan(text, hits)) return false;
      const screen::Declarations& literals = *runner.screens_->literals();
      for (const auto& hit : hits) {
        const auto& of_literal = literals[hit.literal].owners;
        owners.insert(owners.end(), of_literal.begin(), of_literal.end());
      }
      return true;
    };
  }
  ProcessTable processes;  // the job's, which the parser fills
  parse::LineParser parser;
  assemble::Assembler assembler;
  rules::Engine::OwnerFinder owners_in;
  // What spares take_time_from_skipped_lines its walk back, within the block at hand. By rank
  // (rank, local rank): where the last walk began, or the last line read with a time of its own;
  // the walk stops there, since the parser already holds what lies before it.
  std::unordered_map<uint64_t, const char*> time_settled;
  bool times_tracked = false;  // the block is screened: lines read record their times above
};

namespace {

uint64_t time_key(int rank, int local_rank) {
  return uint64_t{static_cast<uint32_t>(rank)} << 32 | static_cast<uint32_t>(local_rank);
}

}  // namespace

JobRunner::JobRunner(const rules::Engine& engine, std::shared_ptr<const screen::Screens> screens)
    : engine_(engine),
      screens_(screens ? std::move(screens) : make_screens(engine)),
      stages_(std::make_unique<Stages>(*this)) {}
JobRunner::~JobRunner() = default;

void JobRunner::process(const ingest::Record& record, std::optional<int> rank_hint,
                        const rules::Engine::BlockScreen& screen) {
  parse::Line line = stages_->parser.parse(record, rank_hint);
  do {  // a line may hold several (a flattened paste, two ranks' bytes interleaved)
    if (stages_->times_tracked && line.time.valid && !line.time_inherited) {
      stages_->time_settled[time_key(line.rank, line.local_rank)] = record.text.data();
    }
    uint64_t sequence = sequence_++;
    engine_.match_line(line, sequence, screen, findings_);
    stages_->assembler.push(line, sequence);
  } while (stages_->parser.next_piece(line));
  ++lines_parsed_;
  if (findings_.size() >= fold_at_) fold_findings_when_many();
}

// Memory bounded by distinct findings: once there are many, occurrences of the same finding that
// nothing still to come can change fold into their first. What folds little is tried again only
// when the findings have doubled, so a log of distinct findings costs no more than linear time.
void JobRunner::fold_findings_when_many() {
  std::vector<std::pair<uint32_t, uint64_t>> open_lines;
  stages_->assembler.collect_open_lines(open_lines);
  auto fold = correlate::fold_occurrences(findings_, open_lines, stages_->assembler.earliest_open_sequence());
  occurrences_folded_ += fold.folded;
  fold_at_ = std::max(fold_threshold_, 2 * findings_.size());
}

// Before a line that matters, after lines were skipped: the latest line of its rank in this block
// with a time of its own gives that time, as a full read would have (a line parsed since has
// already left its time). Walks back through the block, parsing at most kTimeSearchLines lines
// (a line whose prefix names another rank, or an NCCL pid line, is passed unparsed:
// parse::cannot_date), and not past where the rank's last walk began or its last line read with
// a time: the parser holds those. Lines read are passed over, counted, not looked at
// (SparseReader::unread_lines_before): one of the rank with a time would have settled the walk. (Each untimed
// NCCL line of a dense debug dump walked 256 lines back: 89% of its time.)
void JobRunner::take_time_from_skipped_lines(const screen::SparseReader& sparse, const ingest::Record& record,
                                             std::string_view block, std::optional<int> rank_hint) {
  constexpr size_t kTimeSearchLines = 256;
  parse::LineParser& parser = stages_->parser;
  auto wanted = parser.peek(record, rank_hint);
  if (wanted.time.valid) return;
  const char* low = block.data();
  const char* end = record.text.data();
  const char* stop = low;
  auto& settled = stages_->time_settled;
  uint64_t key = time_key(wanted.rank, wanted.local_rank);
  if (auto it = settled.find(key); it != settled.end() && it->second >= low && it->second < end)
    stop = it->second;
  if (settled.size() >= 4096) settled.clear();
  settled[key] = end;
  using Walk = screen::SparseReader::Walk;
  sparse.unread_lines_before(record, stop, kTimeSearchLines, [&](const ingest::Record& before) {
    if (parse::cannot_date(before.text, wanted.rank)) return Walk::kUncounted;
    auto peeked = parser.peek(before, rank_hint);
    if (!peeked.time.valid || peeked.rank != wanted.rank || peeked.local_rank != wanted.local_rank)
      return Walk::kCounted;
    parser.remember_time(record.source, peeked);
    return Walk::kStop;
  });
}

// The stages wired to the sparse reader: it hands on the records worth parsing, each with the
// rules whose literals it holds; the parser and the assembler say when the next line must be
// read whatever it holds.
void JobRunner::add_source(ingest::ByteSource& source, ingest::SourceInfo info) {
  using Kind = screen::SparseRead::Kind;
  auto index = static_cast<uint32_t>(sources_.size());
  auto records = ingest::open_records(source, index);
  ingest::RecordReader& reader = *records;
  Stages& stages = *stages_;
  bool screens = dense_head_bytes_ != UINT64_MAX;  // else: every line through RE2, as a check
  screen::SparseReader sparse(
      reader, screens ? screens_.get() : nullptr, {dense_head_bytes_, sampled_screen_bytes_, bytes_read_},
      [&stages] { return !stages.assembler.idle() || stages.parser.busy(); }, parse::lesson_stretch,
      [this](std::span<const uint32_t> owners, std::string_view line) {
        return engine_.line_rules_may_match(owners, line);
      });
  rules::Engine::BlockScreen block_screen;  // of a block the literals do not screen
  uint64_t parsed_before = lines_parsed_;
  screen::SparseRead read;
  while (sparse.next(read)) {
    if (read.new_block) {
      stages.time_settled.clear();
      stages.times_tracked = read.kind != Kind::kUnscreened;
      // Escapes are removed from the middle of lines: no block screen can speak for them.
      if (!stages.times_tracked)
        block_screen = parse::may_hold_ansi(read.block) ? rules::Engine::BlockScreen{}
                                                        : engine_.screen_block(read.block);
    }
    switch (read.kind) {
      case Kind::kUnscreened:
        process(read.record, info.rank_hint, block_screen);
        break;
      case Kind::kOutside:
        process(read.record, info.rank_hint, rules::Engine::BlockScreen{});
        break;
      case Kind::kCandidate:
        if (read.opens) {
          take_time_from_skipped_lines(sparse, read.record, read.block, info.rank_hint);
          for (const auto& before : read.lookback)
            process(before, info.rank_hint, rules::Engine::BlockScreen{false, {}});
        }
        process(read.record, info.rank_hint, engine_.screen_for_owners(read.owners));
        break;
    }
  }
  // A job this large will read more: build the sampled screen now, from this source's last block.
  bytes_read_ += reader.bytes();
  if (bytes_read_ > sampled_screen_bytes_ && screens) screens_->sampled(reader.buffered());
  info.format = reader.format() == "text" ? source.format() : reader.format();
  info.bytes = reader.bytes();
  info.lines = reader.lines();
  info.lines_parsed = lines_parsed_ - parsed_before;
  info.lines_cut = reader.lines_cut();
  info.bad_lines = reader.bad_lines();
  info.first_bad_line = reader.first_bad_line();
  if (const ingest::BinaryStretches* stretches = reader.binary_stretches()) {
    info.binary_stretches = stretches->first();
    info.binary_stretch_count = stretches->count();
    info.binary_bytes = stretches->bytes();
  }
  if (reader.lines() == 0) {
    skipped_.push_back({info.name,
                        reader.status() ? "empty file, nothing to analyse" : reader.status().message(),
                        source.damage_offset()});
    return;
  }
  if (!reader.status()) {
    info.error = reader.status().message();
    info.error_offset = source.damage_offset();
  }
  if (stages.assembler.has_open_event(index)) truncated_.push_back(info.name);
  sources_.push_back(std::move(info));
}

void JobRunner::add_path(const std::string& path, bool torchrun_layout_is_global) {
  ingest::for_each_source(
      path,
      [this](ingest::SourceInfo info, ingest::ByteSource& source) { add_source(source, std::move(info)); },
      [this](ingest::Skipped skipped) { skipped_.push_back(std::move(skipped)); }, {},
      torchrun_layout_is_global);
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
  rules::keep_highest_priority(findings_);
  return std::move(findings_);
}

correlate::JobAnalysis JobRunner::finish(std::string job_name, const std::set<std::string>& baseline) {
  stages_->assembler.finish();
  rules::keep_highest_priority(findings_);
  correlate::JobShape shape;
  shape.ranks_seen = stages_->processes.ranks_seen();
  shape.hosts = stages_->processes.hosts();
  shape.truncated_sources = truncated_;
  shape.processes = std::move(stages_->processes);
  return correlate::correlate(std::move(job_name), std::move(shape), std::move(findings_), baseline);
}

std::set<std::string> baseline_fingerprints(const rules::Engine& engine,
                                            const std::vector<std::string>& paths,
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

}  // namespace faultline::job
