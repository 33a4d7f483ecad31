#include "screen/sparse_reader.hpp"

#include <algorithm>
#include <cstring>

namespace faultline::screen {

namespace {

constexpr size_t kMaxLessons = 4096;
// Lines longer than this are read rather than confirmed: a megabyte line with thousands of hits
// would have its owners' patterns run over it once a hit.
constexpr size_t kMaxConfirmedLine = 4096;

// The line of `block` that holds the byte before `end`, without its newline or carriage return.
std::string_view line_of(std::string_view block, uint32_t end) {
  size_t begin = block.substr(0, end).rfind('\n');
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  size_t stop = block.find('\n', end);
  std::string_view line = block.substr(begin, (stop == std::string_view::npos ? block.size() : stop) - begin);
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line;
}

}  // namespace

SparseReader::SparseReader(ingest::RecordReader& reader, const Screens* screens, SparseSettings settings,
                           std::function<bool()> holding, LessonStretch lesson_stretch, Confirm confirm)
    : reader_(reader),
      screens_(screens),
      settings_(settings),
      holding_(std::move(holding)),
      lesson_stretch_(std::move(lesson_stretch)),
      confirm_(std::move(confirm)) {}

// The prebuilt screen names each line's candidates in a head, and picks the lines to read past
// it. Once a job has read enough for it to pay, the block at hand is the sample of the sampled
// screen, which finds the same hits faster; while another job's thread builds it, or where none
// is prebuilt, the other serves.
void SparseReader::start_block(SparseRead& read) {
  refills_seen_ = reader_.refills();
  block_ = reader_.buffered();
  skipped_.clear();  // their views die with the old block
  read_runs_.clear();
  to_note_.clear();
  next_hit_ = 0;
  read.new_block = true;
  past_head_ = reader_.bytes() > settings_.dense_head_bytes;
  const LiteralScreen* screen = nullptr;
  if (screens_) {
    bool large = settings_.bytes_before + reader_.bytes() > settings_.sampled_screen_bytes;
    if (screens_->sampled_built() || (past_head_ && (large || !screens_->prebuilt())))
      screen = screens_->sampled(block_);
    if (!screen) screen = screens_->prebuilt();
  }
  block_screened_ = false;
  if (!screen) return;
  literals_ = screens_->literals();
  block_screened_ = screen->scan(block_, hits_);
  // An escape sequence may sit inside a stage's literal: such a block is read line by line.
  block_screened_ = block_screened_ && std::none_of(hits_.begin(), hits_.end(), [&](const auto& hit) {
                      return (*literals_)[hit.literal].stop == Stop::kWholeBlock;
                    });
  std::sort(hits_.begin(), hits_.end(), [](const auto& a, const auto& b) { return a.end < b.end; });
}

bool SparseReader::next(SparseRead& read) {
  // The lines handed on last time count as read only now: a caller's walk back from them
  // (unread_lines_before) still saw the lines before them as unread.
  for (const auto& [begin, size] : to_note_) note_read(begin, size);
  to_note_.clear();
  read.new_block = false;
  while (reader_.next(read.record)) {
    if (reader_.refills() != refills_seen_) start_block(read);
    read.block = block_;
    read.owners.clear();
    read.lookback.clear();
    read.opens = false;
    if (!block_screened_) {
      read.kind = SparseRead::Kind::kUnscreened;
      return true;
    }
    const ingest::Record& record = read.record;
    if (record.text.data() < block_.data() ||
        record.text.data() + record.text.size() > block_.data() + block_.size()) {
      read.kind = SparseRead::Kind::kOutside;
      return true;
    }
    if (screened_read(read)) return true;
  }
  return false;
}

// A screened record: handed on (true) or passed over with the lines after it that hold no hit.
bool SparseReader::screened_read(SparseRead& read) {
  const ingest::Record& record = read.record;
  // The hits inside this line: those ending after its first byte and at most at its end.
  auto start = static_cast<uint64_t>(record.text.data() - block_.data());
  uint64_t stop = start + record.text.size();
  while (next_hit_ < hits_.size() && hits_[next_hit_].end <= start) ++next_hit_;
  size_t first_hit = next_hit_;
  bool opens = false;    // a hit that may let an owner match or open something
  bool teaches = false;  // a hit on a line some stage learns from
  size_t last_hit = first_hit;
  for (; last_hit < hits_.size() && hits_[last_hit].end <= stop; ++last_hit) {
    Stop kind = (*literals_)[hits_[last_hit].literal].stop;
    opens = opens || (kind == Stop::kRead && confirmed(hits_[last_hit], record.text));
    teaches = teaches || (kind == Stop::kLesson && !repeats_a_lesson(hits_[last_hit], true));
  }
  // A line with a lesson not seen before is read: the skip below stops only at those.
  bool must_read = !past_head_ || opens || teaches || (holding_ && holding_());
  if (!must_read) {
    if (skipped_.size() == kLookbackLines) skipped_.erase(skipped_.begin());
    skipped_.push_back(record);
    // Nothing open: pass over the lines up to a few before the next hit without looking at them.
    size_t next = last_hit;  // the next hit worth stopping at
    // kPass literals do not stop the skip (a traceback's header would), nor lessons learned.
    while (next < hits_.size() &&
           ((*literals_)[hits_[next].literal].stop == Stop::kPass || repeats_a_lesson(hits_[next], false) ||
            ((*literals_)[hits_[next].literal].stop == Stop::kRead &&
             !confirmed(hits_[next], line_of(block_, hits_[next].end)))))
      ++next;
    size_t target = next < hits_.size() ? hits_[next].end - 1 : block_.size();
    if (reader_.skip_lines_before(target, lookback_for(next)) > 0) skipped_.clear();
    return false;
  }
  read.kind = SparseRead::Kind::kCandidate;
  read.opens = opens;
  if (opens) {
    for (const auto& before : skipped_) to_note_.emplace_back(before.text.data(), before.text.size());
    read.lookback.swap(skipped_);
  }
  skipped_.clear();
  to_note_.emplace_back(record.text.data(), record.text.size());
  for (size_t i = first_hit; i < last_hit; ++i) {
    const auto& owners = (*literals_)[hits_[i].literal].owners;
    read.owners.insert(read.owners.end(), owners.begin(), owners.end());
  }
  if (last_hit - first_hit > 1) {
    std::sort(read.owners.begin(), read.owners.end());
    read.owners.erase(std::unique(read.owners.begin(), read.owners.end()), read.owners.end());
  }
  return true;
}

void SparseReader::note_read(const char* begin, size_t size) {
  const char* line_end = begin + size;
  const char* block_end = block_.data() + block_.size();
  const void* newline = std::memchr(line_end, '\n', static_cast<size_t>(block_end - line_end));
  const char* next = newline ? static_cast<const char*>(newline) + 1 : block_end;
  if (!read_runs_.empty() && read_runs_.back().next == begin) {
    read_runs_.back().next = next;
    ++read_runs_.back().lines;
  } else {
    read_runs_.push_back({begin, next, 1});
  }
}

// The lines to read before the line of hits_[first]: kLookbackLines when a hit in that line may
// open something (kRead), none when they only teach or pass.
size_t SparseReader::lookback_for(size_t first) const {
  if (first >= hits_.size()) return 0;
  const void* newline = std::memchr(block_.data() + hits_[first].end, '\n', block_.size() - hits_[first].end);
  size_t line_end =
      newline ? static_cast<size_t>(static_cast<const char*>(newline) - block_.data()) : block_.size();
  for (size_t i = first; i < hits_.size() && hits_[i].end <= line_end; ++i) {
    Stop kind = (*literals_)[hits_[i].literal].stop;
    if (kind != Stop::kLesson && kind != Stop::kPass) return kLookbackLines;
  }
  return 0;
}

// Whether `hit` is a kLesson literal on a line that can teach nothing new: its stretch
// (LessonStretch) was handed on already. `remember`: record a stretch not seen before, as read;
// a bounded number.
bool SparseReader::repeats_a_lesson(const LiteralScreen::Hit& hit, bool remember) {
  if ((*literals_)[hit.literal].stop != Stop::kLesson) return false;
  std::string_view before = block_.substr(0, hit.end);
  if (size_t newline = before.rfind('\n'); newline != std::string_view::npos)
    before.remove_prefix(newline + 1);
  std::string_view after = block_.substr(hit.end);
  if (size_t newline = after.find('\n'); newline != std::string_view::npos) after = after.substr(0, newline);
  std::optional<std::string_view> stretch =
      lesson_stretch_ ? lesson_stretch_(before, after)
                      : std::string_view(before.data(), before.size() + after.size());
  if (!stretch) {
    if (remember) lessons_.clear();
    return false;
  }
  // std::hash reads 8 bytes at a step, FNV-1a one: this runs at every NCCL line of a log.
  uint64_t hash = std::hash<std::string_view>{}(*stretch);
  if (lessons_.contains(hash)) return true;
  if (remember && lessons_.size() < kMaxLessons) lessons_.insert(hash);
  return false;
}

// Whether a kRead hit stands: its literal has no owners, no Confirm was given, the line is long,
// or Confirm says its owners may want the line. (`sendb`, a word of a pipeline schedule's SendB
// actions, is in every `sendbuff` of an NCCL debug dump.)
bool SparseReader::confirmed(const LiteralScreen::Hit& hit, std::string_view line) const {
  const Declared& literal = (*literals_)[hit.literal];
  if (!confirm_ || literal.owners.empty() || line.size() > kMaxConfirmedLine) return true;
  return confirm_(literal.owners, line);
}

// Runs of lines handed on are passed over, counted, not visited: the caller saw them.
void SparseReader::unread_lines_before(const ingest::Record& record, const char* stop, size_t max_lines,
                                       const std::function<Walk(const ingest::Record&)>& visit) const {
  const char* low = block_.data();
  const char* end = record.text.data();  // the line's first byte; a newline is before it
  if (end < low || end > low + block_.size()) return;
  const auto& runs = read_runs_;
  auto after = std::upper_bound(runs.begin(), runs.end(), end,
                                [](const char* at, const ReadRun& run) { return at < run.next; });
  auto run = static_cast<size_t>(after - runs.begin());  // runs[0, run) end at or before `end`
  for (size_t looked = 0; looked < max_lines && end > stop;) {
    if (run > 0 && runs[run - 1].next == end) {  // the line before `end` was read: so was its run
      if (runs[run - 1].begin <= stop) return;   // every line since `stop` was read
      looked += runs[run - 1].lines;
      end = runs[run - 1].begin;
      --run;
      continue;
    }
    const char* newline = end - 1;  // ends the previous line
    auto length = static_cast<size_t>(newline - low);
    const void* previous = length ? memrchr(low, '\n', length) : nullptr;
    const char* begin = previous ? static_cast<const char*>(previous) + 1 : low;
    ingest::Record before = record;
    before.text = std::string_view(begin, static_cast<size_t>(newline - begin));
    if (!before.text.empty() && before.text.back() == '\r') before.text.remove_suffix(1);
    Walk walk = visit(before);
    if (walk == Walk::kStop) return;
    if (walk == Walk::kCounted) ++looked;
    end = begin;
  }
}

}  // namespace faultline::screen
