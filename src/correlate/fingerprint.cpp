#include "correlate/fingerprint.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>

#include "base/text.hpp"

namespace faultline::correlate {

std::string mask_volatile(std::string_view message) {
  std::string out;
  out.reserve(message.size());
  size_t line_end = message.find('\n');
  if (line_end != std::string_view::npos) message = message.substr(0, line_end);
  for (size_t i = 0; i < message.size();) {
    // What needs no mask goes over in one piece, up to the next digit or slash.
    size_t plain = i;
    while (plain < message.size() && !is_digit(message[plain]) && message[plain] != '/') ++plain;
    out.append(message.data() + i, plain - i);
    i = plain;
    if (i == message.size()) break;
    char c = message[i];
    bool hex = c == '0' && i + 1 < message.size() && (message[i + 1] == 'x' || message[i + 1] == 'X');
    if (is_digit(c)) {
      i += hex ? 2 : 0;
      while (i < message.size() &&
             (is_digit(message[i]) || (hex && std::isxdigit(static_cast<unsigned char>(message[i])))))
        ++i;
      out += '#';
      continue;
    }
    if (i == 0 || !is_word(message[i - 1])) {  // a path: up to the next space or quote
      while (i < message.size() && !is_space(message[i]) && message[i] != '"' && message[i] != '\'') ++i;
      out += "<path>";
      continue;
    }
    out += c;
    ++i;
  }
  std::string_view kept = trim(out);
  if (kept.size() == out.size()) return out;
  return std::string(kept);
}

std::string fingerprint(std::string_view cause, std::string_view message) {
  std::string masked = mask_volatile(message);
  std::string keyed;
  keyed.reserve(cause.size() + 1 + masked.size());
  keyed.append(cause);
  keyed += '\n';
  keyed += masked;
  uint64_t hash = fnv1a(keyed);
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

namespace {

// A token of 8 or more hex digits holding at least one digit and one letter (a hash, an id).
size_t hex_run(std::string_view text, size_t i) {
  size_t end = i;
  bool digit = false, letter = false;
  while (end < text.size() && is_hex_digit(text[end])) {
    (is_digit(text[end]) ? digit : letter) = true;
    ++end;
  }
  bool bounded = (i == 0 || !is_word(text[i - 1])) && (end == text.size() || !is_word(text[end]));
  return bounded && digit && letter && end - i >= 8 ? end - i : 0;
}

// A host name: two or more dots between word characters, such as node-3.cluster.example.
size_t host_run(std::string_view text, size_t i) {
  if (i > 0 && (is_word(text[i - 1]) || text[i - 1] == '.' || text[i - 1] == '-')) return 0;
  size_t end = i, dots = 0;
  while (end < text.size() && (is_word(text[end]) || text[end] == '-' || text[end] == '.')) {
    if (text[end] == '.') {
      if (end + 1 >= text.size() || !is_word(text[end + 1])) break;
      ++dots;
    }
    ++end;
  }
  if (dots < 2) return 0;
  // Python's dotted names (torch.nn.Module) are not hosts: a host's first label holds a digit or
  // a hyphen (node-3, gpu017, ip-10-0-0-1), and its last label is a word of letters.
  std::string_view run = text.substr(i, end - i);
  std::string_view first = run.substr(0, run.find('.'));
  std::string_view last = run.substr(run.rfind('.') + 1);
  bool first_like_host =
      std::any_of(first.begin(), first.end(), [](char c) { return is_digit(c) || c == '-'; });
  bool last_alphabetic =
      !last.empty() && std::all_of(last.begin(), last.end(), [](char c) { return is_alpha(c); });
  return first_like_host && last_alphabetic ? run.size() : 0;
}

}  // namespace

std::string mask_template(std::string_view message) {
  size_t line_end = message.find('\n');
  if (line_end != std::string_view::npos) message = message.substr(0, line_end);
  std::string out;
  out.reserve(message.size());
  for (size_t i = 0; i < message.size();) {
    char c = message[i];
    if ((c == '\'' || c == '"') && (i == 0 || !is_word(message[i - 1]))) {
      size_t close = message.find(c, i + 1);
      if (close != std::string_view::npos) {
        out += "<str>";
        i = close + 1;
        continue;
      }
    }
    if (size_t run = hex_run(message, i)) {
      out += '#';
      i += run;
      continue;
    }
    if (size_t run = host_run(message, i)) {
      out += "<host>";
      i += run;
      continue;
    }
    out += c;
    ++i;
  }
  return mask_volatile(out);
}

std::string failure_template(std::string_view exception, std::string_view message,
                             std::string_view frame_file, std::string_view frame_function) {
  std::string out(exception);
  if (std::string masked = mask_template(message); !masked.empty()) out += ": " + masked;
  if (!frame_file.empty() || !frame_function.empty()) {
    size_t slash = frame_file.find_last_of("/\\");
    out += " @ " + std::string(slash == std::string_view::npos ? frame_file : frame_file.substr(slash + 1));
    if (!frame_function.empty()) out += " in " + std::string(frame_function);
  }
  return out;
}

}  // namespace faultline::correlate
