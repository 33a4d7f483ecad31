#include "parse/process_lessons.hpp"

#include "base/text.hpp"

namespace faultline::parse {
namespace {

using std::string_view;

// The integer after `label` in `text`, or nothing.
std::optional<int64_t> integer_after(string_view text, string_view label) {
  size_t at = find_text(text, label);
  if (at == string_view::npos) return std::nullopt;
  string_view rest = text.substr(at + label.size());
  return take_integer(rest);
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
  // torchrun agent: "failed (exitcode: 1) local_rank: 3 (pid: 12345) of binary: …"
  if (find_text(text, "failed (exitcode: ") != string_view::npos) {
    auto local_rank = integer_after(text, "local_rank: ");
    auto pid = integer_after(text, "(pid: ");
    if (local_rank && pid) table.learn_local_rank(*pid, static_cast<int>(*local_rank));
    return;
  }
  learn_summary_line(text, table);
}

// "  host      : node-3", "  rank      : 5 (local_rank: 1)", "  exitcode  : 1 (pid: 4242)"
void ProcessLessons::learn_summary_line(string_view text, job::ProcessTable& table) {
  text = trim_left(text);
  if (text.empty() || (text.front() != 'h' && text.front() != 'r' && text.front() != 'e')) return;
  auto value_of = [&](string_view key) -> std::optional<string_view> {
    if (!text.starts_with(key)) return std::nullopt;
    string_view rest = trim_left(text.substr(key.size()));
    if (!rest.starts_with(": ")) return std::nullopt;
    return trim(rest.substr(2));
  };
  if (auto host = value_of("host")) {
    summary_host_.assign(*host);
  } else if (auto rank = value_of("rank")) {
    string_view rest = *rank;
    summary_rank_ = static_cast<int>(take_integer(rest).value_or(-1));
    summary_local_rank_ = static_cast<int>(integer_after(rest, "(local_rank: ").value_or(-1));
  } else if (auto exit = value_of("exitcode")) {
    auto pid = integer_after(*exit, "(pid: ");
    if (pid && (summary_rank_ >= 0 || summary_local_rank_ >= 0)) {
      table.learn_launcher_rank(*pid, summary_rank_);
      table.learn_local_rank(*pid, summary_local_rank_);
      table.learn_pid_host(*pid, summary_host_);
    }
    summary_host_.clear();
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
