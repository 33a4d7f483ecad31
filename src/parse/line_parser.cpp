#include "parse/line_parser.hpp"

#include <array>

#include "base/text.hpp"
#include "parse/ansi.hpp"

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

// YYYY-MM-DD[T ]HH:MM:SS[.frac][Z|±HH:MM|±HHMM]
bool take_iso_datetime(string_view& text, Timestamp& time, char* separator_seen = nullptr) {
  string_view rest = text;
  int year, month, day, hour, minute, second;
  if (!take_digits(rest, 4, year) || !take_char(rest, '-') || !take_digits(rest, 2, month) ||
      !take_char(rest, '-') || !take_digits(rest, 2, day) || rest.empty() ||
      (rest.front() != 'T' && rest.front() != ' ' && rest.front() != '_')) {
    return false;
  }
  char separator = rest.front();
  rest.remove_prefix(1);
  if (!take_clock(rest, hour, minute, second)) return false;
  int64_t nanos = take_fraction(rest);
  if (!take_char(rest, 'Z') && !rest.empty() && (rest.front() == '+' || rest.front() == '-')) {
    string_view zone = rest.substr(1);
    int zone_hours, zone_minutes;
    if (take_digits(zone, 2, zone_hours) && (take_char(zone, ':') || true) &&
        take_digits(zone, 2, zone_minutes)) {
      rest = zone;
    }
  }
  Timestamp parsed = make_timestamp(year, month, day, hour, minute, second, nanos);
  if (!parsed.valid) return false;
  time = parsed;
  if (separator_seen) *separator_seen = separator;
  text = rest;
  return true;
}

constexpr std::array<std::pair<string_view, char>, 7> kLevels = {{
    {"ERROR", 'E'}, {"WARNING", 'W'}, {"INFO", 'I'}, {"DEBUG", 'D'},
    {"CRITICAL", 'F'}, {"FATAL", 'F'}, {"WARN", 'W'},
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

class PrefixScanner {
 public:
  PrefixScanner(string_view text, Line& line) : rest_(text), line_(line) {}

  string_view run() {
    for (int round = 0; round < 10; ++round) {
      bool took = take_paren_prefix() || take_bracketed() || take_iso_prefix() || take_ctime_prefix() ||
                  take_srun_label() || take_glog_header() || take_vllm_header();
      if (!took) break;
    }
    return rest_;
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

  // "(RayWorkerWrapper pid=4823, ip=10.0.0.1) ", "(VllmWorker rank=1 pid=161) ",
  // "(Worker_PP0_TP1 pid=9) ", "(EngineCore_DP0 pid=975) "
  bool take_paren_prefix() {
    if (rest_.empty() || rest_.front() != '(') return false;
    size_t close = rest_.find(')');
    if (close == string_view::npos || close > 200) return false;
    string_view inside = rest_.substr(1, close - 1);
    size_t pid_at = inside.find("pid=");
    if (pid_at == string_view::npos) return false;
    string_view pid_text = inside.substr(pid_at + 4);
    auto pid = take_integer(pid_text);
    if (!pid) return false;
    line_.pid = *pid;
    if (size_t ip_at = inside.find("ip="); ip_at != string_view::npos) {
      string_view ip = inside.substr(ip_at + 3);
      line_.host = ip.substr(0, ip.find_first_of(", )"));
    }
    if (size_t rank_at = inside.find("rank="); rank_at != string_view::npos) {
      string_view rank_text = inside.substr(rank_at + 5);
      if (auto rank = take_integer(rank_text)) set_rank(static_cast<int>(*rank));
    } else if (size_t tp_at = inside.find("_TP"); tp_at != string_view::npos) {
      string_view tp_text = inside.substr(tp_at + 3);
      if (auto rank = take_integer(tp_text)) set_rank(static_cast<int>(*rank));
    }
    rest_.remove_prefix(close + 1);
    take_char(rest_, ' ');
    return true;
  }

  bool take_bracketed() {
    if (rest_.size() < 3 || rest_.front() != '[') return false;
    return take_rank_bracket() || take_open_mpi_tag() || take_c10_header() ||
           take_dated_bracket() || take_lightning_rank();
  }

  // "[rank3]:", "[default3]:", "[trainer12]:", "[3] " (MPICH)
  bool take_rank_bracket() {
    string_view rest = rest_.substr(1);
    size_t letters = 0;
    while (letters < rest.size() && (is_alpha(rest[letters]) || rest[letters] == '_' || rest[letters] == '-')) {
      ++letters;
    }
    string_view role = rest.substr(0, letters);
    rest.remove_prefix(letters);
    auto number = take_integer(rest);
    if (!number || !take_char(rest, ']')) return false;
    if (role.empty()) {  // MPICH "[3] text"
      if (!positional_bracket_allowed() || !take_char(rest, ' ')) return false;
      set_rank(static_cast<int>(*number));
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

  // srun and MPICH labels only ever lead the line.
  bool positional_bracket_allowed() const { return rest_.data() == line_.display.data(); }

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
      int month, day, hour, minute, second;
      if (!take_digits(rest, 2, month) || !take_digits(rest, 2, day) || !take_char(rest, ' ') ||
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
  // DeepSpeed "[2026-11-29 10:22:33,902] [ERROR] [launch.py:78:main] "
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
    Timestamp time = make_timestamp(year, static_cast<int>(month_at / 3) + 1, static_cast<int>(*day), hour, minute, second, 0);
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
    if (!severity || !take_char(rest, ' ') || !take_digits(rest, 2, month) ||
        !take_char(rest, '-') || !take_digits(rest, 2, day) || !take_char(rest, ' ') ||
        !take_clock(rest, hour, minute, second)) {
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

  string_view rest_;
  Line& line_;
};

// A line pasted into an issue wrapped in Markdown bold: "**RuntimeError: ...** ".
string_view strip_markdown_bold(string_view text) {
  string_view inner = trim_right(text);
  if (inner.size() > 4 && inner.starts_with("**") && inner.ends_with("**")) {
    return inner.substr(2, inner.size() - 4);
  }
  return text;
}

}  // namespace

Line LineParser::parse(const ingest::Record& record, std::optional<int> rank_hint) {
  Line line;
  line.source = record.source;
  line.number = record.line;
  string_view text = record.text;
  if (has_ansi(text)) {
    scratch_.clear();
    strip_ansi(text, scratch_);
    text = scratch_;
  }
  line.display = text;
  line.host = record.host;
  line.pid = record.pid;
  line.time = record.time;
  line.text = strip_markdown_bold(PrefixScanner(text, line).run());
  if (line.rank < 0 && rank_hint) line.rank = *rank_hint;
  carry_time(line);
  return line;
}

void LineParser::carry_time(Line& line) {
  auto matches = [&](const LastTime& entry) {
    return entry.source == line.source && entry.rank == line.rank && entry.local_rank == line.local_rank;
  };
  LastTime* entry = nullptr;
  if (last_hit_ < last_times_.size() && matches(last_times_[last_hit_])) {
    entry = &last_times_[last_hit_];
  } else {
    for (size_t i = 0; i < last_times_.size(); ++i) {
      if (matches(last_times_[i])) {
        entry = &last_times_[i];
        last_hit_ = i;
        break;
      }
    }
  }
  if (line.time.valid) {
    if (entry) {
      entry->time = line.time;
    } else if (last_times_.size() < 4096) {
      last_times_.push_back({line.source, line.rank, line.local_rank, line.time});
      last_hit_ = last_times_.size() - 1;
    }
  } else if (entry) {
    line.time = entry->time;
    line.time_inherited = true;
  }
}

}  // namespace faultline::parse
