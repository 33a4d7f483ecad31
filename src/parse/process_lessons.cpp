#include "parse/process_lessons.hpp"

#include <algorithm>
#include <vector>

#include "base/text.hpp"

namespace faultline::parse {

namespace {

// "[default3]:node5:9279:9533 [3]" less its thread id: the part before the last ':' and the part
// from the space. The thread teaches the table nothing, and an NCCL process prints from several.
std::string_view without_thread(std::string_view prefix) {
  size_t space = prefix.rfind(' ');
  size_t colon = space == std::string_view::npos ? std::string_view::npos : prefix.rfind(':', space);
  if (colon == std::string_view::npos) return prefix;
  thread_local std::string key;
  key.assign(prefix.substr(0, colon));
  key.append(prefix.substr(space));
  return key;
}

}  // namespace

std::optional<std::string_view> lesson_stretch(std::string_view before, std::string_view after) {
  size_t nccl = before.find(" NCCL ");
  if (nccl != std::string_view::npos &&
      (after.find(" rank ") != std::string_view::npos || after.find("Using") != std::string_view::npos ||
       before.find("Using") != std::string_view::npos)) {
    return std::nullopt;
  }
  if (nccl != std::string_view::npos) return without_thread(before.substr(0, nccl));
  return std::string_view(before.data() + (before.size() > 96 ? before.size() - 96 : 0),
                          std::min<size_t>(before.size(), 96) + std::min<size_t>(after.size(), 64));
}

namespace {

using std::string_view;

// The integer after `label` in `text`, or nothing.
std::optional<int64_t> integer_after(string_view text, string_view label) {
  size_t at = find_text(text, label);
  if (at == string_view::npos) return std::nullopt;
  string_view rest = text.substr(at + label.size());
  return take_integer(rest);
}

// An integer that may be negative (an exit code that is a signal).
std::optional<int64_t> take_signed(string_view& text) {
  bool negative = text.starts_with('-');
  if (negative) text.remove_prefix(1);
  auto value = take_integer(text);
  if (!value) return std::nullopt;
  return negative ? -*value : *value;
}

bool word_char(char c) {
  return is_word(c);
}

// Where `key` starts a summary field in `text` ("rank      : 3", not "local_rank: 3"), from `from`.
size_t find_field(string_view text, string_view key, size_t from) {
  for (size_t at = text.find(key, from); at != string_view::npos; at = text.find(key, at + 1)) {
    if (at > 0 && word_char(text[at - 1])) continue;
    string_view rest = trim_left(text.substr(at + key.size()));
    if (rest.starts_with(':')) return at;
  }
  return string_view::npos;
}

// vLLM's "rank 1 in world size 4 is assigned as DP rank 0, PP rank 0, TP rank 1, …": the rank and
// the world size.
bool engine_rank_line(string_view text, int64_t& rank, int64_t& size) {
  size_t world = find_text(text, " in world size ");
  if (world == string_view::npos || find_text(text, " is assigned as ") == string_view::npos) return false;
  string_view before = text.substr(0, world);
  size_t word = before.rfind("rank ");
  if (word == string_view::npos || (word > 0 && word_char(before[word - 1]))) return false;
  string_view number = before.substr(word + 5);
  auto parsed_rank = take_integer(number);
  string_view after = text.substr(world + 15);
  auto parsed_size = take_integer(after);
  if (!parsed_rank || !number.empty() || !parsed_size) return false;
  rank = *parsed_rank;
  size = *parsed_size;
  return true;
}

// nccl-tests' table of the job, one line a rank, before any test runs:
// "#  Rank  8 Group  0 Pid   9930 on      nodeB device  0 [0x53] NVIDIA H100 80GB HBM3".
struct TableRank {
  int64_t rank = -1, pid = 0, device = -1;
  string_view host;
};
std::optional<TableRank> nccl_tests_rank_line(string_view text) {
  if (!text.starts_with('#')) return std::nullopt;
  string_view rest = trim_left(text.substr(1));
  auto field = [&rest](string_view label) -> std::optional<int64_t> {
    if (!rest.starts_with(label)) return std::nullopt;
    rest = trim_left(rest.substr(label.size()));
    auto value = take_integer(rest);
    rest = trim_left(rest);
    return value;
  };
  TableRank row;
  auto rank = field("Rank");
  auto group = field("Group");
  auto pid = field("Pid");
  if (!rank || !group || !pid || !rest.starts_with("on ")) return std::nullopt;
  rest = trim_left(rest.substr(3));
  size_t host_end = rest.find(' ');
  if (host_end == 0 || host_end == string_view::npos) return std::nullopt;
  row.host = rest.substr(0, host_end);
  rest = trim_left(rest.substr(host_end));
  auto device = field("device");
  if (!device) return std::nullopt;
  row.rank = *rank;
  row.pid = *pid;
  row.device = *device;
  return row;
}

}  // namespace

void ProcessLessons::learn(const Line& line, string_view text, job::ProcessTable& table) {
  if (line.pid != 0 && find_text(text, "NCCL INFO") != string_view::npos) {
    // "ncclCommInitRank comm 0x55d0 rank 3 nranks 8 cudaDev 3 …", "comm 0x55d0 rank 3 nRanks 8 nNodes 1 …"
    size_t comm = find_text(text, "comm 0x");
    if (comm != string_view::npos) {
      string_view rest = text.substr(comm);
      auto rank = integer_after(rest, " rank ");
      auto size = integer_after(rest, " nranks ");
      if (!size) size = integer_after(rest, " nRanks ");
      if (rank && size) table.learn_communicator_rank(line.pid, static_cast<int>(*rank), *size, line.host);
    }
    return;
  }
  // vLLM's own rank lines, under a worker's process prefix.
  if (line.pid != 0 && text.size() > 20 && (text[0] == 'r' || text[0] == 'w' || text[0] == 'v')) {
    int64_t rank = 0, size = 0;
    if (engine_rank_line(text, rank, size)) {
      table.learn_engine_rank(line.pid, static_cast<int>(rank), size, line.host, line.number);
      return;
    }
    // "world_size=4 rank=1 local_rank=1 distributed_init_method=tcp://10.0.0.1:29500 backend=nccl"
    if (text.starts_with("world_size=") &&
        find_text(text, " distributed_init_method=") != string_view::npos) {
      auto world = integer_after(text, "world_size=");
      auto rank_of = integer_after(text, " rank=");
      auto local = integer_after(text, " local_rank=");
      if (world && rank_of)
        table.learn_engine_rank(line.pid, static_cast<int>(*rank_of), *world, line.host, line.number);
      if (local) table.learn_local_rank(line.pid, static_cast<int>(*local));
      return;
    }
  }
  if (auto row = nccl_tests_rank_line(text); row && row->rank < (1 << 20) && row->device < (1 << 10)) {
    learn_test_table_row(row->rank, row->pid, row->host, row->device, table);
    return;
  }
  // torchrun agent: "failed (exitcode: 1) local_rank: 3 (pid: 12345) of binary: …"
  if (find_text(text, "failed (exitcode: ") != string_view::npos) {
    auto local_rank = integer_after(text, "local_rank: ");
    auto pid = integer_after(text, "(pid: ");
    if (local_rank && pid) table.learn_local_rank(*pid, static_cast<int>(*local_rank));
    return;
  }
  learn_summary(line, text, table);
}

// A row of nccl-tests' table: the rank drives that device of that host; the pid is that rank's
// while it drives no other (a second row of the same pid takes the pid's rank back).
void ProcessLessons::learn_test_table_row(int64_t rank_of, int64_t pid, string_view host, int64_t device,
                                          job::ProcessTable& table) {
  int rank = static_cast<int>(rank_of);
  table.observe(host, rank, {});
  table.observe_device(host, static_cast<int>(device), rank);
  table.learn_pid_host(pid, host);
  constexpr size_t kMaxTablePids = 4096;  // the table is a job's own: as many rows as ranks
  if (test_table_pids_.size() >= kMaxTablePids && !test_table_pids_.contains(pid)) return;
  auto [known, first] = test_table_pids_.try_emplace(pid, rank);
  if (first) {
    table.learn_launcher_rank(pid, rank);
  } else if (known->second != rank && known->second >= 0) {
    known->second = -1;
    table.forget_rank(pid);
  }
}

// torchelastic's failure summary, one field a line, or flattened onto one ("Root Cause (first
// observed failure): [0]: time: … host: node-3 rank: 5 (local_rank: 1) exitcode: 1 (pid: 4242) …").
void ProcessLessons::learn_summary(const Line& line, string_view text, job::ProcessTable& table) {
  constexpr string_view kRootCause = "Root Cause (first observed failure)";
  if (size_t at = find_text(text, kRootCause); at != string_view::npos) {
    root_cause_ = true;
    summary_host_.clear();
    summary_time_.clear();
    summary_rank_ = summary_local_rank_ = -1;
    text.remove_prefix(at + kRootCause.size());
    // Fields on the same line: each from its key to the next.
    std::vector<size_t> starts;
    for (string_view key : {"time", "host", "rank", "exitcode"}) {
      if (size_t field = find_field(text, key, 0); field != string_view::npos) starts.push_back(field);
    }
    std::sort(starts.begin(), starts.end());
    for (size_t i = 0; i < starts.size(); ++i) {
      size_t end = i + 1 < starts.size() ? starts[i + 1] : text.size();
      learn_summary_field(line, text.substr(starts[i], end - starts[i]), table);
    }
    return;
  }
  learn_summary_field(line, text, table);
}

// "  time      : 2026-11-29_10:22:19", "  host      : node-3", "  rank      : 5 (local_rank: 1)", "  exitcode
// : 1 (pid: 4242)"
void ProcessLessons::learn_summary_field(const Line& line, string_view text, job::ProcessTable& table) {
  text = trim_left(text);
  if (text.empty() ||
      (text.front() != 'h' && text.front() != 'r' && text.front() != 'e' && text.front() != 't'))
    return;
  auto value_of = [&](string_view key) -> std::optional<string_view> {
    if (!text.starts_with(key)) return std::nullopt;
    string_view rest = trim_left(text.substr(key.size()));
    if (!rest.starts_with(": ")) return std::nullopt;
    return trim(rest.substr(2));
  };
  if (auto time = value_of("time")) {
    summary_time_.assign(*time);
  } else if (auto host = value_of("host")) {
    summary_host_.assign(*host);
  } else if (auto rank = value_of("rank")) {
    string_view rest = *rank;
    summary_rank_ = static_cast<int>(take_integer(rest).value_or(-1));
    summary_local_rank_ = static_cast<int>(integer_after(rest, "(local_rank: ").value_or(-1));
    summary_rank_line_ = line.number;
  } else if (auto exit = value_of("exitcode")) {
    auto pid = integer_after(*exit, "(pid: ");
    string_view code = *exit;
    if (auto exitcode = take_signed(code); exitcode && summary_rank_ >= 0) {
      table.note_worker_failure({summary_rank_, summary_local_rank_, summary_host_, pid.value_or(0),
                                 *exitcode, root_cause_, summary_time_, line.source, summary_rank_line_});
    }
    root_cause_ = false;
    if (pid && (summary_rank_ >= 0 || summary_local_rank_ >= 0)) {
      table.learn_launcher_rank(*pid, summary_rank_);
      table.learn_local_rank(*pid, summary_local_rank_);
      table.learn_pid_host(*pid, summary_host_);
    }
    summary_host_.clear();
    summary_time_.clear();
    summary_rank_ = summary_local_rank_ = -1;
  }
}

void ProcessLessons::apply(Line& line, const job::ProcessTable& table) {
  const job::ProcessTable::PidFacts* known = table.pid_facts(line.pid);
  if (!known) return;
  if (!line.rank_from_prefix && known->rank >= 0) {
    line.rank = known->rank;
    line.rank_from_pid = true;
  }
  if (line.local_rank < 0 && known->local_rank >= 0 && !line.rank_from_prefix)
    line.local_rank = known->local_rank;
  if (line.host.empty() && !known->host.empty()) line.host = known->host;
}

}  // namespace faultline::parse
