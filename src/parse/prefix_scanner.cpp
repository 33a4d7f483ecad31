#include "parse/prefix_scanner.hpp"

#include <array>

#include "base/text.hpp"

namespace faultline::parse {
namespace {

using std::string_view;

// Reads exactly `count` digits.
bool take_digits(string_view& text, size_t count, int& out) {
  if (text.size() < count) return false;
  int value = 0;
  for (size_t i = 0; i < count; ++i) {
    if (!is_digit(text[i])) return false;
    value = value * 10 + (text[i] - '0');
  }
  out = value;
  text.remove_prefix(count);
  return true;
}

bool take_char(string_view& text, char c) {
  if (text.empty() || text.front() != c) return false;
  text.remove_prefix(1);
  return true;
}

bool take_literal(string_view& text, string_view literal) {
  if (!text.starts_with(literal)) return false;
  text.remove_prefix(literal.size());
  return true;
}

// A fraction of a second after '.' or ','; returns nanoseconds.
int64_t take_fraction(string_view& text) {
  if (text.empty() || (text.front() != '.' && text.front() != ',')) return 0;
  string_view digits = text.substr(1);
  size_t count = 0;
  int64_t nanos = 0;
  while (count < digits.size() && is_digit(digits[count])) {
    if (count < 9) nanos = nanos * 10 + (digits[count] - '0');
    ++count;
  }
  if (count == 0) return 0;
  for (size_t i = count; i < 9; ++i) nanos *= 10;
  text.remove_prefix(1 + count);
  return nanos;
}

// HH:MM:SS
bool take_clock(string_view& text, int& hour, int& minute, int& second) {
  return take_digits(text, 2, hour) && take_char(text, ':') && take_digits(text, 2, minute) &&
         take_char(text, ':') && take_digits(text, 2, second);
}

// YYYY-MM-DD[T _]HH:MM:SS[.frac][Z|±HH:MM|±HHMM]: base's one ISO-8601 reader.
bool take_iso_datetime(string_view& text, Timestamp& time, char* separator_seen = nullptr) {
  auto parsed = take_iso8601(text, separator_seen);
  if (!parsed) return false;
  time = *parsed;
  return true;
}

constexpr std::array<std::pair<string_view, char>, 7> kLevels = {{
    {"ERROR", 'E'},
    {"WARNING", 'W'},
    {"INFO", 'I'},
    {"DEBUG", 'D'},
    {"CRITICAL", 'F'},
    {"FATAL", 'F'},
    {"WARN", 'W'},
}};

char take_level_word(string_view& text) {
  for (auto [word, letter] : kLevels) {
    if (starts_with_word(text, word)) {
      text.remove_prefix(word.size());
      return letter;
    }
  }
  return 0;
}

bool is_host_char(char c) {
  return is_alpha(c) || is_digit(c) || c == '-' || c == '.';
}

// Words that lead a line with ": " and are never a pdsh host.
bool is_reserved_word(string_view token) {
  for (string_view word : {"srun", "slurmstepd", "INFO", "WARNING", "WARN", "ERROR", "DEBUG", "CRITICAL",
                           "FATAL", "Note", "Warning", "Error", "Exception", "Traceback", "Failures"}) {
    if (token == word) return true;
  }
  for (string_view suffix : {"Error", "Exception", "Exit", "Interrupt", "Warning", "Failure", "Fault"}) {
    if (token.ends_with(suffix)) return true;
  }
  return false;
}

// "[rank3]:", "[default3]:", "[1,3]<", "3: " (srun): a prefix that names a rank.
bool starts_with_rank_prefix(string_view text) {
  if (!take_char(text, '[')) {
    text = trim_left(text);
    return take_integer(text) && text.starts_with(": ");
  }
  size_t letters = 0;
  while (letters < text.size() && (is_alpha(text[letters]) || text[letters] == '_')) ++letters;
  text.remove_prefix(letters);
  if (!take_integer(text)) return false;
  if (letters > 0) return text.starts_with("]:");
  return take_char(text, ',') && take_integer(text) && text.starts_with("]<");
}

class PrefixScanner {
 public:
  // A probe only asks whether a prefix starts the text: no hosts, roles or positional labels.
  PrefixScanner(string_view text, Line& line, const ScanContext& context, ScanNotes& notes, bool probe)
      : rest_(text), line_(line), context_(context), notes_(notes), probe_(probe) {}

  string_view run() {
    // A quoted paste indents whole lines, "[rank2]:" prefixes and all.
    if (string_view lead = trim_left(rest_); lead.starts_with("[rank") && starts_with_rank_prefix(lead))
      rest_ = lead;
    for (int round = 0; round < 12; ++round) {
      if (!take_one()) break;
    }
    return rest_;
  }

  bool take_one() {
    return take_paren_prefix() || take_bracketed() || take_iso_prefix() || take_syslog_prefix() ||
           take_ctime_prefix() || take_srun_label() || take_compose_prefix() || take_glog_header() ||
           take_vllm_header() || take_determined_tag() || take_host_prefix() || take_role_prefix() ||
           take_level_before_exception();
  }

 private:
  void set_rank(int rank) {
    line_.rank = rank;
    line_.rank_from_prefix = true;
  }
  void set_time(const Timestamp& time) {
    if (!line_.time.valid) line_.time = time;
  }
  void set_severity(char severity) {
    if (!line_.severity) line_.severity = severity;
  }

  // Determined AI's trial logs, after their time: "fa88a9df [rank=2] || " (the container's short
  // id, the rank, then the process's own line).
  bool take_determined_tag() {
    string_view rest = rest_;
    size_t hex = 0;
    while (hex < rest.size() && hex <= 16 && (is_digit(rest[hex]) || (rest[hex] >= 'a' && rest[hex] <= 'f')))
      ++hex;
    if (hex > 16 || (hex > 0 && hex < 6)) return false;
    rest.remove_prefix(hex);
    if (hex > 0 && !take_char(rest, ' ')) return false;
    if (!take_literal(rest, "[rank=")) return false;
    auto rank = take_integer(rest);
    if (!rank || !take_literal(rest, "] || ")) return false;
    set_rank(static_cast<int>(*rank));
    rest_ = rest;
    return true;
  }

  // "[INFO] RuntimeError: …", "ERROR: ValueError: …": a wrapper that logs a process's output
  // under its own level tag, in front of an exception line. The tag goes, so that the exception
  // leads the line as Python printed it; its level is the wrapper's, not the exception's, and is
  // not kept. Before any other text the tag stays: rules may read it.
  bool take_level_before_exception() {
    string_view rest = rest_;
    bool bracketed = take_char(rest, '[');
    if (!take_level_word(rest)) return false;
    if (bracketed ? !take_literal(rest, "] ") : !take_literal(rest, ": ")) return false;
    while (take_char(rest, ' ')) {
    }
    if (!starts_with_exception_name(rest)) return false;
    rest_ = rest;
    return true;
  }

  // "RuntimeError:", "torch.OutOfMemoryError:", "ValueError" alone at the end: a Python exception
  // class (a dotted name ending in Error or Exception) leading the text.
  static bool starts_with_exception_name(string_view text) {
    size_t length = 0;
    while (length < text.size() && (is_word(text[length]) || text[length] == '.')) ++length;
    string_view name = text.substr(0, length);
    if (!name.ends_with("Error") && !name.ends_with("Exception")) return false;
    return length == text.size() || text[length] == ':';
  }

  // Where `tag` ("TP", "PP") stands after '_' or ' ' with a digit after it, in a worker's name.
  static size_t parallel_tag(string_view name, string_view tag) {
    for (size_t at = name.find(tag); at != string_view::npos; at = name.find(tag, at + 1)) {
      bool after_separator = at > 0 && (name[at - 1] == '_' || name[at - 1] == ' ');
      if (after_separator && at + tag.size() < name.size() && is_digit(name[at + tag.size()])) return at;
    }
    return string_view::npos;
  }

  // "(RayWorkerWrapper pid=4823, ip=10.0.0.1) ", "(VllmWorker rank=1 pid=161) ",
  // "(Worker_PP0_TP1 pid=9) ", "(VllmWorker TP1 pid=9) ", "(EngineCore_DP0 pid=975) ", "(raylet) ",
  // "(autoscaler +15m30s) "
  bool take_paren_prefix() {
    if (rest_.empty() || rest_.front() != '(') return false;
    size_t close = rest_.find(')');
    if (close == string_view::npos || close > 200) return false;
    string_view inside = rest_.substr(1, close - 1);
    size_t pid_at = inside.find("pid=");
    if (pid_at == string_view::npos) {
      if (!inside.starts_with("raylet") && !inside.starts_with("autoscaler") &&
          !inside.starts_with("gcs_server")) {
        return false;
      }
    } else {
      string_view pid_text = inside.substr(pid_at + 4);
      auto pid = take_integer(pid_text);
      if (!pid) return false;
      line_.pid = *pid;
    }
    if (size_t ip_at = inside.find("ip="); ip_at != string_view::npos) {
      string_view ip = inside.substr(ip_at + 3);
      line_.host = ip.substr(0, ip.find_first_of(", )"));
    }
    if (size_t rank_at = inside.find("rank="); rank_at != string_view::npos) {
      string_view rank_text = inside.substr(rank_at + 5);
      if (auto rank = take_integer(rank_text)) name_rank(static_cast<int>(*rank));
    } else if (size_t tp_at = parallel_tag(inside, "TP"); tp_at != string_view::npos) {
      // vLLM names a worker by its tensor- (and pipeline-) parallel rank: "Worker_PP0_TP1",
      // "VllmWorker TP1". With PP the global rank is pp * tp_size + tp, and tp_size is not in
      // the name: leave the rank to the pid map (NCCL's ncclCommInitRank line) unless PP is 0.
      string_view tp_text = inside.substr(tp_at + 2);
      auto tp = take_integer(tp_text);
      int pp = 0;
      if (size_t pp_at = parallel_tag(inside, "PP"); pp_at != string_view::npos && pp_at < tp_at) {
        string_view pp_text = inside.substr(pp_at + 2);
        pp = static_cast<int>(take_integer(pp_text).value_or(1));
      }
      if (tp && pp == 0) name_rank(static_cast<int>(*tp));
    }
    rest_.remove_prefix(close + 1);
    take_char(rest_, ' ');
    return true;
  }

  void name_rank(int rank) {
    set_rank(rank);
    notes_.pid_of_rank = line_.pid;
  }

  bool take_bracketed() {
    if (rest_.size() < 3 || rest_.front() != '[') return false;
    return take_rank_bracket() || take_open_mpi_tag() || take_c10_header() || take_dated_bracket() ||
           take_lightning_rank() || take_nemo_header() || take_kubectl_prefix();
  }

  // "[rank3]:", "[default3]:", "[trainer12]:", "[3] " (MPICH, or a viewer's line number)
  bool take_rank_bracket() {
    string_view rest = rest_.substr(1);
    size_t letters = 0;
    while (letters < rest.size() &&
           (is_alpha(rest[letters]) || rest[letters] == '_' || rest[letters] == '-')) {
      ++letters;
    }
    string_view role = rest.substr(0, letters);
    rest.remove_prefix(letters);
    auto number = take_integer(rest);
    if (!number || !take_char(rest, ']')) return false;
    if (role.empty()) {  // MPICH "[3] text", or a viewer's "[80746] [rank0]:…"
      if (!positional_bracket_allowed() || !take_char(rest, ' ')) return false;
      // A bare number this large leading a line that names no rank is a process id (llama.cpp's
      // server prints "[57663] …"), not an MPI label: the line keeps it as text.
      constexpr int64_t kMaxLabelRank = 1 << 14;
      if (*number >= kMaxLabelRank && !context_.line_numbered && !starts_with_rank_prefix(rest)) return false;
      notes_.leading_number = *number;
      // A line number stands in front of a prefix that names the rank; MPICH's label stands
      // in front of the process's own text (which may be an NCCL or log line).
      if (context_.line_numbered || starts_with_rank_prefix(rest)) {
        notes_.leading_number_is_line = true;
        line_.display = rest;  // the viewer's number is not part of the log
      } else {
        set_rank(static_cast<int>(*number));
      }
    } else {
      if (!take_char(rest, ':')) return false;
      take_char(rest, ' ');
      if (role == "rank") {
        set_rank(static_cast<int>(*number));
      } else {
        line_.local_rank = static_cast<int>(*number);
      }
    }
    rest_ = rest;
    return true;
  }

  // srun, MPICH, compose labels and line numbers only ever lead the line.
  bool positional_bracket_allowed() const { return !probe_ && rest_.data() == line_.display.data(); }

  // Open MPI "[1,3]<stderr>:", PRRTE "[prterun-host-1@1,3]<stdout>: "
  bool take_open_mpi_tag() {
    size_t close = rest_.find("]<");
    if (close == string_view::npos || close > 120) return false;
    string_view inside = rest_.substr(1, close - 1);
    size_t comma = inside.rfind(',');
    if (comma == string_view::npos) return false;
    auto rank = parse_integer(inside.substr(comma + 1));
    if (!rank) return false;
    string_view rest = rest_.substr(close + 2);
    size_t end = rest.find(">:");
    if (end == string_view::npos || end > 10) return false;
    rest.remove_prefix(end + 2);
    take_char(rest, ' ');
    set_rank(static_cast<int>(*rank));
    rest_ = rest;
    return true;
  }

  // c10: "[E1129 10:22:33.123456789 ProcessGroupNCCL.cpp:1664] " or old "[E ProcessGroupNCCL.cpp:737] "
  bool take_c10_header() {
    string_view rest = rest_.substr(1);
    char severity = rest.front();
    if (severity != 'E' && severity != 'W' && severity != 'I' && severity != 'F') return false;
    rest.remove_prefix(1);
    Timestamp time;
    if (rest.front() != ' ') {
      // The month is not zero-padded: "[E321 02:07:08.408271257 …" is March 21.
      size_t digits = 0;
      while (digits < rest.size() && is_digit(rest[digits])) ++digits;
      if (digits != 3 && digits != 4) return false;
      int month, day, hour, minute, second;
      if (!take_digits(rest, digits - 2, month) || !take_digits(rest, 2, day) || !take_char(rest, ' ') ||
          !take_clock(rest, hour, minute, second)) {
        return false;
      }
      int64_t nanos = take_fraction(rest);
      time = make_timestamp(0, month, day, hour, minute, second, nanos, false);
    }
    if (!take_char(rest, ' ')) return false;
    size_t close = rest.find("] ");
    if (close == string_view::npos || close > 200 || rest.substr(0, close).find(':') == string_view::npos) {
      return false;
    }
    rest.remove_prefix(close + 2);
    set_severity(severity);
    set_time(time);
    rest_ = rest;
    return true;
  }

  // SGLang "[2026-11-29 10:22:33 TP3] ", "[2026-11-29 10:22:33.816 DP0 TP0 EP0] ";
  // DeepSpeed "[2026-11-29 10:22:33,902] [ERROR] [launch.py:78:main] "; NCCL ≥ 2.26 "[2026-11-29 10:22:33] "
  bool take_dated_bracket() {
    string_view rest = rest_.substr(1);
    Timestamp time;
    if (!take_iso_datetime(rest, time)) return false;
    std::optional<int> tp_rank;
    while (take_char(rest, ' ')) {
      size_t length = 0;
      while (length < rest.size() && is_alpha(rest[length])) ++length;
      string_view tag = rest.substr(0, length);
      string_view number_text = rest.substr(length);
      auto number = take_integer(number_text);
      if (length == 0 || !number) return false;
      if (tag == "TP") tp_rank = static_cast<int>(*number);
      rest = number_text;
    }
    if (!take_char(rest, ']')) return false;
    take_char(rest, ' ');
    set_time(time);
    if (tp_rank) set_rank(*tp_rank);
    if (take_char(rest, '[')) {  // DeepSpeed level and location
      string_view level_text = rest;
      if (char severity = take_level_word(level_text); severity && take_literal(level_text, "] ")) {
        set_severity(severity);
        rest = level_text;
        if (rest.starts_with('[')) {
          size_t close = rest.find("] ");
          if (close != string_view::npos && close < 200) rest.remove_prefix(close + 2);
        }
      } else {
        rest = string_view(rest.data() - 1, rest.size() + 1);
      }
    }
    rest_ = rest;
    return true;
  }

  // Lightning "[rank: 1] "
  bool take_lightning_rank() {
    string_view rest = rest_;
    if (!take_literal(rest, "[rank: ")) return false;
    auto rank = take_integer(rest);
    if (!rank || !take_literal(rest, "] ")) return false;
    set_rank(static_cast<int>(*rank));
    rest_ = rest;
    return true;
  }

  // NeMo "[NeMo E 2026-11-29 10:22:33 megatron_gpt_model:12] ", debug builds add " rank:N"
  // before the ']'. Continuation lines of the record follow with a 4-space indent.
  bool take_nemo_header() {
    string_view rest = rest_;
    if (!take_literal(rest, "[NeMo ") || rest.size() < 3 || !is_alpha(rest[0]) || rest[1] != ' ')
      return false;
    char level = rest[0];
    rest.remove_prefix(2);
    Timestamp time;
    if (!take_iso_datetime(rest, time) || !take_char(rest, ' ')) return false;
    size_t close = rest.find(']');
    if (close == string_view::npos || close > 200) return false;
    string_view location = rest.substr(0, close);
    if (size_t rank_at = location.find(" rank:"); rank_at != string_view::npos) {
      string_view rank_text = location.substr(rank_at + 6);
      if (auto rank = take_integer(rank_text)) set_rank(static_cast<int>(*rank));
    }
    rest.remove_prefix(close + 1);
    take_char(rest, ' ');
    char severity = level == 'C' ? 'F' : level;
    set_severity(severity);
    set_time(time);
    notes_.record_header = true;
    rest_ = rest;
    return true;
  }

  // kubectl logs --prefix "[pod/trainer-3/pytorch] ": the pod is the host.
  bool take_kubectl_prefix() {
    string_view rest = rest_;
    if (!take_literal(rest, "[pod/")) return false;
    size_t close = rest.find("] ");
    if (close == string_view::npos || close > 300) return false;
    string_view inside = rest.substr(0, close);
    size_t slash = inside.find('/');
    if (slash == string_view::npos || slash == 0 || inside.find(' ') != string_view::npos) return false;
    line_.host = inside.substr(0, slash);
    rest_ = rest.substr(close + 2);
    return true;
  }

  // kubectl --timestamps / CI "2026-11-29T10:22:33.123456789Z "; Python logging
  // "2026-11-29 10:22:33,123 - name - ERROR - ", "2026-11-29 10:22:33,123 ERROR ..."
  bool take_iso_prefix() {
    string_view rest = rest_;
    Timestamp time;
    char separator = 0;
    if (!take_iso_datetime(rest, time, &separator)) return false;
    if (!rest.empty() && rest.front() != ' ' && rest.front() != ':' && rest.front() != ']') return false;
    set_time(time);
    if (separator == ' ') take_python_logging_level(rest);
    take_char(rest, ' ');
    rest_ = rest;
    return true;
  }

  void take_python_logging_level(string_view& rest) {
    string_view probe = rest;
    if (take_literal(probe, " - ")) {  // "%(asctime)s - %(name)s - %(levelname)s - "
      size_t dash = probe.find(" - ");
      if (dash != string_view::npos && dash < 120) {
        string_view level = probe.substr(dash + 3);
        if (char severity = take_level_word(level); severity && take_literal(level, " - ")) {
          set_severity(severity);
          rest = level;
          return;
        }
        if (char severity = take_level_word(probe); severity && take_literal(probe, " - ")) {
          set_severity(severity);  // "%(asctime)s - %(levelname)s - %(message)s"
          rest = probe;
        }
      }
      return;
    }
    probe = rest;
    take_char(probe, ' ');
    if (char severity = take_level_word(probe)) {
      set_severity(severity);
      rest = probe;
    }
  }

  // A syslog line as /var/log/syslog, kern.log and `journalctl` (short) write it: "Apr 17 04:31:47
  // dgx-b12 kernel: NVRM: Xid ..." or "... dgx-b12 python[2214873]: ...": time without a year, the
  // host, the program and its pid. The host is where a kernel's GPU fault happened.
  bool take_syslog_prefix() {
    static constexpr string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
    if (rest_.size() < 20 || !is_alpha(rest_[0]) || rest_[3] != ' ') return false;
    size_t month_at = kMonths.find(rest_.substr(0, 3));
    if (month_at == string_view::npos || month_at % 3 != 0) return false;
    string_view rest = rest_.substr(4);
    if (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    auto day = take_integer(rest);
    int hour, minute, second;
    if (!day || !take_char(rest, ' ') || !take_clock(rest, hour, minute, second) || !take_char(rest, ' ')) {
      return false;
    }
    size_t host_length = 0;
    while (host_length < rest.size() && is_host_char(rest[host_length])) ++host_length;
    if (host_length == 0 || host_length >= rest.size() || rest[host_length] != ' ') return false;
    string_view host = rest.substr(0, host_length);
    rest.remove_prefix(host_length + 1);
    size_t program_length = 0;
    while (program_length < rest.size() && (is_host_char(rest[program_length]) ||
                                            rest[program_length] == '_' || rest[program_length] == '/')) {
      ++program_length;
    }
    if (program_length == 0) return false;
    rest.remove_prefix(program_length);
    std::optional<int64_t> pid;
    if (take_char(rest, '[')) {
      pid = take_integer(rest);
      if (!pid || !take_char(rest, ']')) return false;
    }
    if (!take_char(rest, ':')) return false;
    take_char(rest, ' ');
    Timestamp time = make_timestamp(0, static_cast<int>(month_at / 3) + 1, static_cast<int>(*day), hour,
                                    minute, second, 0);
    if (!time.valid) return false;
    set_time(time);
    line_.host = host;
    if (pid) line_.pid = *pid;
    rest_ = rest;
    return true;
  }

  // Open MPI --timestamp-output glues ctime() in front: "Sat Nov 29 10:22:33 2026[1,5]<stderr>:"
  bool take_ctime_prefix() {
    static constexpr string_view kMonths = "JanFebMarAprMayJunJulAugSepOctNovDec";
    if (rest_.size() < 24 || !is_alpha(rest_[0]) || rest_[3] != ' ' || rest_[7] != ' ') return false;
    size_t month_at = kMonths.find(rest_.substr(4, 3));
    if (month_at == string_view::npos || month_at % 3 != 0) return false;
    string_view rest = rest_.substr(8);
    if (rest.front() == ' ') rest.remove_prefix(1);
    auto day = take_integer(rest);
    int hour, minute, second, year;
    if (!day || !take_char(rest, ' ') || !take_clock(rest, hour, minute, second) || !take_char(rest, ' ') ||
        !take_digits(rest, 4, year)) {
      return false;
    }
    Timestamp time = make_timestamp(year, static_cast<int>(month_at / 3) + 1, static_cast<int>(*day), hour,
                                    minute, second, 0);
    if (!time.valid) return false;
    set_time(time);
    take_char(rest, ' ');
    rest_ = rest;
    return true;
  }

  // srun --label: "3: ", " 3: ", "03: "
  bool take_srun_label() {
    if (!positional_bracket_allowed()) return false;
    string_view rest = trim_left(rest_);
    if (rest.size() == rest_.size() && (rest_.empty() || !is_digit(rest_.front()))) return false;
    if (rest_.size() - rest.size() > 6) return false;
    auto task = take_integer(rest);
    if (!task || !take_literal(rest, ": ")) return false;
    set_rank(static_cast<int>(*task));
    rest_ = rest;
    return true;
  }

  // docker compose "trainer-1  | ", v1 "trainer_1  | ", or a service's container_name with no
  // replica number ("qwen3-next  | "): the container is the host. A name without the number must
  // start with a letter and join words with '-' or '_', as container names do; a bare word before
  // '|' ("loss | 0.52") is a table's cell.
  bool take_compose_prefix() {
    if (!positional_bracket_allowed()) return false;
    size_t length = 0;
    while (length < rest_.size() && (is_host_char(rest_[length]) || rest_[length] == '_')) ++length;
    if (length < 3 || length > 100) return false;
    string_view name = rest_.substr(0, length);
    size_t digits = 0;
    while (digits < name.size() && is_digit(name[name.size() - 1 - digits])) ++digits;
    bool replica = digits > 0 && digits + 1 < name.size() &&
                   (name[name.size() - 1 - digits] == '-' || name[name.size() - 1 - digits] == '_');
    bool container_name = is_alpha(name.front()) && name.find_first_of("-_") != string_view::npos &&
                          name.back() != '-' && name.back() != '_';
    if (!replica && !container_name) return false;
    string_view rest = rest_.substr(length);
    size_t spaces = 0;
    while (spaces < rest.size() && rest[spaces] == ' ') ++spaces;
    if (spaces == 0) return false;
    rest.remove_prefix(spaces);
    if (!take_char(rest, '|') || (!rest.empty() && !take_char(rest, ' '))) return false;
    line_.host = name;
    rest_ = rest;
    return true;
  }

  // glog: "E1129 10:22:33.123456 12345 file.cpp:123] "
  bool take_glog_header() {
    if (rest_.size() < 22) return false;
    char severity = rest_.front();
    if (severity != 'E' && severity != 'W' && severity != 'I' && severity != 'F') return false;
    string_view rest = rest_.substr(1);
    int month, day, hour, minute, second;
    if (!take_digits(rest, 2, month) || !take_digits(rest, 2, day) || !take_char(rest, ' ') ||
        !take_clock(rest, hour, minute, second)) {
      return false;
    }
    int64_t nanos = take_fraction(rest);
    size_t close = rest.find("] ");
    if (close == string_view::npos || close > 300) return false;
    rest.remove_prefix(close + 2);
    set_severity(severity);
    set_time(make_timestamp(0, month, day, hour, minute, second, nanos));
    rest_ = rest;
    return true;
  }

  // vLLM: "ERROR 11-29 10:22:33 [file.py:12] ", older "INFO 11-29 10:22:33 file.py:12] "
  bool take_vllm_header() {
    string_view rest = rest_;
    char severity = take_level_word(rest);
    int month, day, hour, minute, second;
    if (!severity || !take_char(rest, ' ') || !take_digits(rest, 2, month) || !take_char(rest, '-') ||
        !take_digits(rest, 2, day) || !take_char(rest, ' ') || !take_clock(rest, hour, minute, second)) {
      return false;
    }
    int64_t nanos = take_fraction(rest);
    take_char(rest, ' ');
    size_t close = rest.find("] ");
    if (close != string_view::npos && close < 200 && rest.substr(0, close).find(':') != string_view::npos) {
      rest.remove_prefix(close + 2);
    }
    set_severity(severity);
    set_time(make_timestamp(0, month, day, hour, minute, second, nanos));
    rest_ = rest;
    return true;
  }

  bool is_known_host(string_view token) const {
    if (!context_.known_hosts) return false;
    for (const auto& host : *context_.known_hosts) {
      if (host == token) return true;
    }
    return false;
  }

  // The rest after a host or role prefix: a first sighting needs another prefix (or NCCL's)
  // after it, so that "ValueError: text" or "note: text" stays a message.
  bool host_prefix_holds(string_view token, string_view rest) {
    if (is_known_host(token)) return true;
    if (!starts_with_prefix(rest)) return false;
    notes_.new_host = token;
    return true;
  }

  // pdsh / DeepSpeed multi-node "worker-1: ", bare "worker-1:" for NCCL's blank line.
  bool take_host_prefix() {
    if (probe_) return false;
    size_t length = 0;
    while (length < rest_.size() && is_host_char(rest_[length])) ++length;
    if (length == 0 || length > 100 || !(is_alpha(rest_[0]) || is_digit(rest_[0])) ||
        rest_[length - 1] == '.' || length >= rest_.size() || rest_[length] != ':') {
      return false;
    }
    string_view token = rest_.substr(0, length);
    if (is_reserved_word(token)) return false;
    string_view rest = rest_.substr(length + 1);
    if (rest.empty()) {  // "host:" alone: only for a host already seen
      if (!is_known_host(token)) return false;
    } else {
      if (!take_char(rest, ' ') || !host_prefix_holds(token, rest)) return false;
    }
    line_.host = token;
    rest_ = rest;
    return true;
  }

  // TorchX / NeMo-Run local scheduler "llama32_1b/0 ": role and replica (a node, not a rank).
  bool take_role_prefix() {
    if (probe_) return false;
    size_t length = 0;
    while (length < rest_.size() && (is_host_char(rest_[length]) || rest_[length] == '_')) ++length;
    if (length == 0 || length > 100 || length + 2 >= rest_.size() || rest_[length] != '/') return false;
    string_view rest = rest_.substr(length + 1);
    if (!take_integer(rest) || !take_char(rest, ' ')) return false;
    string_view token = rest_.substr(0, rest_.size() - rest.size() - 1);
    if (!host_prefix_holds(token, rest)) return false;
    line_.host = token;
    rest_ = rest;
    return true;
  }

  string_view rest_;
  Line& line_;
  const ScanContext& context_;
  ScanNotes& notes_;
  bool probe_;
};

}  // namespace

std::string_view scan_prefixes(std::string_view text, Line& line, const ScanContext& context,
                               ScanNotes& notes) {
  return PrefixScanner(text, line, context, notes, false).run();
}

bool starts_with_prefix(std::string_view text) {
  std::string_view host;
  int64_t pid = 0;
  if (take_nccl_prefix(text, host, pid)) return true;
  Line scratch;
  ScanContext context;
  ScanNotes notes;
  return PrefixScanner(text, scratch, context, notes, true).take_one();
}

bool take_nccl_prefix(std::string_view text, std::string_view& host, int64_t& pid, int* device) {
  size_t length = 0;
  while (length < text.size() && length <= 253 && text[length] != ':' && text[length] != ' ' &&
         text[length] != '[') {
    ++length;
  }
  if (length == 0 || length >= text.size() || text[length] != ':') return false;
  string_view rest = text.substr(length + 1);
  auto parsed_pid = take_integer(rest);
  if (!parsed_pid || !take_char(rest, ':') || !take_integer(rest) || !take_literal(rest, " [")) return false;
  auto parsed_device = take_integer(rest);
  if (!parsed_device || !take_literal(rest, "] ")) return false;
  host = text.substr(0, length);
  pid = *parsed_pid;
  if (device && *parsed_device >= 0 && *parsed_device < 1 << 16) *device = static_cast<int>(*parsed_device);
  return true;
}

}  // namespace faultline::parse
