#include "correlate/fingerprint.hpp"

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
    char c = message[i];
    bool hex = c == '0' && i + 1 < message.size() && (message[i + 1] == 'x' || message[i + 1] == 'X');
    if (is_digit(c) || hex) {
      i += hex ? 2 : 0;
      while (i < message.size() && (is_digit(message[i]) || (hex && std::isxdigit(static_cast<unsigned char>(message[i]))))) ++i;
      out += '#';
      continue;
    }
    if (c == '/' && (i == 0 || !is_word(message[i - 1]))) {  // a path: up to the next space or quote
      while (i < message.size() && !is_space(message[i]) && message[i] != '"' && message[i] != '\'') ++i;
      out += "<path>";
      continue;
    }
    out += c;
    ++i;
  }
  return std::string(trim(out));
}

std::string fingerprint(std::string_view cause, std::string_view message) {
  uint64_t hash = fnv1a(std::string(cause) + "\n" + mask_volatile(message));
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

}  // namespace faultline::correlate
