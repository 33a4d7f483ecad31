#include "job/job_runner.hpp"

#include <algorithm>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <unordered_set>

#include "assemble/assembler.hpp"
#include "correlate/occurrence_fold.hpp"
#include "ingest/path_hints.hpp"
#include "ingest/record_reader.hpp"
#include "parse/line_parser.hpp"

namespace faultline::job {

namespace {

// Lines read before each line that matters, which give it its rank's latest time and the
// head of a record it may continue.
constexpr size_t kLookbackLines = 8;
// Stretches of lines that taught the process table, remembered so that a log repeating them is not re-read.
constexpr size_t kMaxLessons = 4096;

// The lines to read before the line of hits[first]: kLookbackLines when a hit in that line may
// open an event, none when they only teach the process table.
size_t lookback_for(const rules::Engine::SparseScreen& sparse, std::string_view block,
                    const std::vector<rules::LiteralScreen::Hit>& hits, size_t first) {
  if (first >= hits.size()) return 0;
  const void* newline = std::memchr(block.data() + hits[first].end, '\n', block.size() - hits[first].end);
  size_t line_end =
      newline ? static_cast<size_t>(static_cast<const char*>(newline) - block.data()) : block.size();
  for (size_t i = first; i < hits.size() && hits[i].end <= line_end; ++i) {
    auto role = sparse.roles[hits[i].literal];
    if (role != rules::Engine::SparseScreen::Role::kPidRankSource &&
        role != rules::Engine::SparseScreen::Role::kInTraceback)
      return kLookbackLines;
  }
  return 0;
}

// Whether `hit`, a literal of the process lessons, is on a line that can teach the process table
// nothing new. An NCCL line teaches what its prefix says (host, pid and device:
// `[default3]:node5:9279:9533 [3] NCCL INFO AllGather: ... comm 0x...`), unless it names a rank or
// an address (`comm 0x... rank 3 nranks 8`, `NET/IB : Using ...`), which it always teaches: a
// prefix seen since the table last learnt a rank teaches nothing. Any other line teaches what the
// stretch around the literal says. `remember`: record a prefix or stretch not seen before, as read.
bool repeats_a_lesson(const rules::Engine::SparseScreen& sparse, std::string_view block,
                      const rules::LiteralScreen::Hit& hit, std::unordered_set<uint64_t>& lessons,
                      bool remember) {
  if (sparse.roles[hit.literal] != rules::Engine::SparseScreen::Role::kPidRankSource) return false;
  std::string_view before = block.substr(0, hit.end);
  if (size_t newline = before.rfind('\n'); newline != std::string_view::npos)
    before.remove_prefix(newline + 1);
  std::string_view after = block.substr(hit.end);
  if (size_t newline = after.find('\n'); newline != std::string_view::npos) after = after.substr(0, newline);
  size_t nccl = before.find(" NCCL ");
  if (nccl != std::string_view::npos &&
      (after.find(" rank ") != std::string_view::npos || after.find("Using") != std::string_view::npos ||
       before.find("Using") != std::string_view::npos)) {
    if (remember) lessons.clear();  // what the table learns may give the prefixes seen a rank
    return false;
  }
  // Any other line teaches what its stretch around the literal says: 96 bytes before its end, 64 after.
  std::string_view stretch =
      nccl != std::string_view::npos
          ? before.substr(0, nccl)
          : std::string_view(before.data() + (before.size() > 96 ? before.size() - 96 : 0),
                             std::min<size_t>(before.size(), 96) + std::min<size_t>(after.size(), 64));
  // std::hash reads 8 bytes at a step, FNV-1a one: this runs at every NCCL line of a log.
  uint64_t hash = std::hash<std::string_view>{}(stretch);
  if (lessons.contains(hash)) return true;
  if (remember && lessons.size() < kMaxLessons) lessons.insert(hash);
  return false;
}

}  // namespace

struct JobRunner::Stages {
  explicit Stages(JobRunner& runner)
      : parser(processes), assembler([&runner](assemble::Event&& event) {
          runner.engine_.match_event(event, runner.findings_, runner.dense_head_bytes_ != UINT64_MAX);
        }) {}
  ProcessTable processes;  // the job's, which the parser fills
  parse::LineParser parser;
  assemble::Assembler assembler;
  // The sparse read: the scan of the current block and the lines skipped since the last one read.
  std::vector<rules::LiteralScreen::Hit> hits;
  std::vector<ingest::Record> skipped;
  std::unordered_set<uint64_t> learned_lessons;
  // What spares take_time_from_skipped_lines its walk back, within the block at hand. By rank
  // (rank, local rank): where the last walk began, or the last line read with a time of its own;
  // the walk stops there, since the parser already holds what lies before it.
  std::unordered_map<uint64_t, const char*> time_settled;
  bool times_tracked = false;  // the block is screened: lines read record their times above
  // Runs of lines read with no skip between them, in block order: [begin, next) holds `lines`
  // lines, `next` being the first byte after the last one's newline. A walk passes over them.
  struct ReadRun {
    const char* begin;
    const char* next;
    uint64_t lines;
  };
  std::vector<ReadRun> read_runs;
};

namespace {

uint64_t time_key(int rank, int local_rank) {
  return uint64_t{static_cast<uint32_t>(rank)} << 32 | static_cast<uint32_t>(local_rank);
}

}  // namespace

JobRunner::JobRunner(const rules::Engine& engine)
    : engine_(engine), stages_(std::make_unique<Stages>(*this)) {}
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
// already left its time). Walks back at most kTimeSearchLines lines, within the block.
// Before a line that matters, after lines were skipped: the latest line of its rank in this block
// with a time of its own gives that time, as a full read would have (a line parsed since has
// already left its time). Walks back at most kTimeSearchLines lines, within the block, and not
// past where the rank's last walk began or its last line read with a time: the parser holds
// those. Runs of lines read are passed over, counted, not looked at: one of the rank with a time
// would have settled the walk. (Each untimed NCCL line of a dense debug dump walked 256 lines
// back: 89% of its time.)
void JobRunner::take_time_from_skipped_lines(const ingest::Record& record, std::string_view block,
                                             std::optional<int> rank_hint) {
  constexpr size_t kTimeSearchLines = 256;
  parse::LineParser& parser = stages_->parser;
  auto wanted = parser.peek(record, rank_hint);
  if (wanted.time.valid) return;
  const char* low = block.data();
  const char* end = record.text.data();  // the line's first byte; a newline is before it
  const char* stop = low;
  auto& settled = stages_->time_settled;
  uint64_t key = time_key(wanted.rank, wanted.local_rank);
  if (auto it = settled.find(key); it != settled.end() && it->second >= low && it->second < end)
    stop = it->second;
  if (settled.size() >= 4096) settled.clear();
  settled[key] = end;
  const auto& runs = stages_->read_runs;
  auto after = std::upper_bound(runs.begin(), runs.end(), end,
                                [](const char* at, const Stages::ReadRun& run) { return at < run.next; });
  auto run = static_cast<size_t>(after - runs.begin());  // runs[0, run) end at or before `end`
  for (size_t looked = 0; looked < kTimeSearchLines && end > stop;) {
    if (run > 0 && runs[run - 1].next == end) {  // the line before `end` was read: so was its run
      if (runs[run - 1].begin <= stop) return;   // every line since `stop` was read
      looked += runs[run - 1].lines;
      end = runs[run - 1].begin;
      --run;
      continue;
    }
    ++looked;
    const char* newline = end - 1;  // ends the previous line
    auto length = static_cast<size_t>(newline - low);
    const void* previous = length ? memrchr(low, '\n', length) : nullptr;
    const char* begin = previous ? static_cast<const char*>(previous) + 1 : low;
    ingest::Record before = record;
    before.text = std::string_view(begin, static_cast<size_t>(newline - begin));
    if (!before.text.empty() && before.text.back() == '\r') before.text.remove_suffix(1);
    auto peeked = parser.peek(before, rank_hint);
    if (peeked.time.valid && peeked.rank == wanted.rank && peeked.local_rank == wanted.local_rank) {
      parser.remember_time(record.source, peeked);
      return;
    }
    end = begin;
  }
}

void JobRunner::add_source(ingest::ByteSource& source, ingest::SourceInfo info) {
  using Role = rules::Engine::SparseScreen::Role;
  auto index = static_cast<uint32_t>(sources_.size());
  auto records = ingest::open_records(source, index);
  ingest::RecordReader& reader = *records;
  ingest::Record record;
  Stages& stages = *stages_;
  const rules::Engine::SparseScreen* sparse = nullptr;
  rules::Engine::BlockScreen block_screen;  // without a sparse screen
  bool block_screened = false;              // with one: the hits cover this block
  uint64_t screened = 0;
  bool past_head = false;
  size_t next_hit = 0;
  uint64_t parsed_before = lines_parsed_;
  bool assembler_idle = true;
  while (reader.next(record)) {
    if (reader.refills() != screened) {
      screened = reader.refills();
      std::string_view block = reader.buffered();
      stages.skipped.clear();  // their views die with the old block
      stages.time_settled.clear();
      stages.read_runs.clear();
      next_hit = 0;
      assembler_idle = stages.assembler.idle();  // lines read without the screen may have opened an event
      past_head = reader.bytes() > dense_head_bytes_;
      bool screens = dense_head_bytes_ != UINT64_MAX;  // else: every line through RE2, as a check
      // The prebuilt screen names each line's candidate rules in a head, and picks the lines to
      // read past it. Once a job has read enough for it to pay, the block at hand is the sample
      // of the sampled screen, which finds the same hits faster; while another job's thread
      // builds it, or where none is prebuilt, the other serves.
      sparse = nullptr;
      if (screens) {
        bool large = bytes_read_ + reader.bytes() > sampled_screen_bytes_;
        if (engine_.sparse_screen_built() || (past_head && (large || !engine_.prebuilt_screen()))) {
          sparse = engine_.sparse_screen(block);
        }
        if (!sparse) sparse = engine_.prebuilt_screen();
      }
      block_screened = false;
      if (sparse) {
        block_screened = sparse->screen->scan(block, stages.hits);
        // An escape sequence may sit inside a rule's words: such a block is screened line by line.
        block_screened =
            block_screened && std::none_of(stages.hits.begin(), stages.hits.end(), [&](const auto& hit) {
              return sparse->roles[hit.literal] == Role::kEscape;
            });
        std::sort(stages.hits.begin(), stages.hits.end(),
                  [](const auto& a, const auto& b) { return a.end < b.end; });
      }
      if (!block_screened) block_screen = engine_.screen_block(block);
      stages.times_tracked = block_screened;
    }
    if (!block_screened) {
      process(record, info.rank_hint, block_screen);
      continue;
    }
    // The hits inside this line: those ending after its first byte and at most at its end.
    std::string_view block = reader.buffered();
    if (record.text.data() < block.data() ||
        record.text.data() + record.text.size() > block.data() + block.size()) {
      process(record, info.rank_hint, rules::Engine::BlockScreen{});  // not in the block: unscreened
      assembler_idle = stages.assembler.idle();
      continue;
    }
    auto start = static_cast<uint64_t>(record.text.data() - block.data());
    uint64_t stop = start + record.text.size();
    const auto& hits = stages.hits;
    while (next_hit < hits.size() && hits[next_hit].end <= start) ++next_hit;
    size_t first_hit = next_hit;
    bool opens = false;    // a hit that may let a rule match or open an event
    bool teaches = false;  // a hit on a line the process table learns from
    size_t last_hit = first_hit;
    for (; last_hit < hits.size() && hits[last_hit].end <= stop; ++last_hit) {
      Role role = sparse->roles[hits[last_hit].literal];
      bool lesson = role == Role::kPidRankSource;
      opens = opens || (!lesson && role != Role::kInTraceback);
      teaches = teaches ||
                (lesson && !repeats_a_lesson(*sparse, block, hits[last_hit], stages.learned_lessons, true));
    }
    // A line the process table learns from is read: the skip below stops only at lessons not seen before.
    bool must_read = !past_head || opens || teaches || !assembler_idle || stages.parser.busy();
    if (!must_read) {
      if (stages.skipped.size() == kLookbackLines) stages.skipped.erase(stages.skipped.begin());
      stages.skipped.push_back(record);
      // Nothing open: pass over the lines up to a few before the next hit without looking at them.
      size_t next = last_hit;  // the next hit worth stopping at
      // Words that matter only inside a traceback do not stop the skip: its header would.
      while (next < hits.size() &&
             (sparse->roles[hits[next].literal] == Role::kInTraceback ||
              repeats_a_lesson(*sparse, block, hits[next], stages.learned_lessons, false)))
        ++next;
      size_t target = next < hits.size() ? hits[next].end - 1 : block.size();
      if (reader.skip_lines_before(target, lookback_for(*sparse, block, hits, next)) > 0)
        stages.skipped.clear();
      continue;
    }
    auto note_read = [&](const ingest::Record& read) {
      const char* line_end = read.text.data() + read.text.size();
      const char* block_end = block.data() + block.size();
      const void* newline = std::memchr(line_end, '\n', static_cast<size_t>(block_end - line_end));
      const char* next = newline ? static_cast<const char*>(newline) + 1 : block_end;
      auto& runs = stages.read_runs;
      if (!runs.empty() && runs.back().next == read.text.data()) {
        runs.back().next = next;
        ++runs.back().lines;
      } else {
        runs.push_back({read.text.data(), next, 1});
      }
    };
    if (opens) {
      take_time_from_skipped_lines(record, block, info.rank_hint);
      for (const auto& before : stages.skipped) {
        note_read(before);
        process(before, info.rank_hint, rules::Engine::BlockScreen{false, {}});
      }
    }
    stages.skipped.clear();
    note_read(record);
    process(record, info.rank_hint,
            rules::Engine::screen_for_hits(*sparse, hits.data() + first_hit, hits.data() + last_hit));
    assembler_idle = stages.assembler.idle();
  }
  // A job this large will read more: build the sampled screen now, from this source's last block.
  bytes_read_ += reader.bytes();
  if (bytes_read_ > sampled_screen_bytes_ && dense_head_bytes_ != UINT64_MAX) {
    engine_.sparse_screen(reader.buffered());
  }
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
