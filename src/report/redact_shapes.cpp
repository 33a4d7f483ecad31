#include "report/redact_shapes.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "base/text.hpp"

namespace faultline::report::redaction {

bool all_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return is_digit(c) || c == '.'; });
}

bool is_redacted(std::string_view value) {
  return value == "REDACTED" || value == "USER" || value == "EMAIL" || value.starts_with("IP-") ||
         value.starts_with("host-") || value.starts_with("MAC-");
}

// A value that looks like a key rather than a word or a number: base64 with upper and lower
// case and digits, or hex of 32 digits or more.
bool looks_random(std::string_view value) {
  bool upper = false, lower = false, digit = false, hex = true;
  for (char c : value) {
    upper = upper || (c >= 'A' && c <= 'Z');
    lower = lower || (c >= 'a' && c <= 'z');
    digit = digit || is_digit(c);
    hex = hex && (is_hex_digit(c) || c == '=');
  }
  if (!digit || !(upper || lower)) return false;
  if (hex) return value.size() >= 32;
  return upper && lower && value.size() >= 20;
}

// A run of base64 that is a key rather than a word, a path or a hash: long enough, with upper
// and lower case and digits mixed. Inside an unterminated private key block (`in_key`), the
// shorter lines of its body count too.
bool looks_like_key(std::string_view value, bool in_key) {
  size_t upper = 0, lower = 0, digits = 0, changes = 0;
  int last_kind = -1;
  for (char c : value) {
    int kind = (c >= 'A' && c <= 'Z') ? 0 : (c >= 'a' && c <= 'z') ? 1 : is_digit(c) ? 2 : 3;
    upper += kind == 0;
    lower += kind == 1;
    digits += kind == 2;
    changes += last_kind >= 0 && kind != last_kind;
    last_kind = kind;
  }
  if (in_key) return value.size() >= 16 && upper >= 2 && lower >= 2 && digits >= 1;
  // A path is cut by slashes every few letters; base64 has one in 64 characters.
  size_t slashes = static_cast<size_t>(std::count(value.begin(), value.end(), '/'));
  if (value.front() == '/' || slashes * 12 > value.size()) return false;
  return value.size() >= 40 && upper >= 3 && lower >= 3 && digits >= 1 && changes >= 10;
}

// The last label of a dotted word that makes it a file name rather than a host's domain.
bool is_file_extension(std::string_view label) {
  static constexpr std::array<std::string_view, 22> kExtensions = {
      "log", "txt",  "out", "err", "json", "jsonl", "gz",  "zst", "xz",     "bz2",    "tar",
      "zip", "yaml", "yml", "csv", "py",   "sh",    "cfg", "pid", "stderr", "stdout", "lock"};
  std::string lower(label);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](char c) { return static_cast<char>(c | 0x20); });
  return std::find(kExtensions.begin(), kExtensions.end(), lower) != kExtensions.end();
}

bool valid_ipv6(std::string_view address) {
  size_t double_colon = address.find("::");
  if (double_colon != std::string_view::npos &&
      address.find("::", double_colon + 1) != std::string_view::npos)
    return false;
  if (address.find(":::") != std::string_view::npos) return false;
  size_t groups = 0, hex_digits = 0, group_length = 0;
  for (char c : address) {
    if (c == ':') {
      if (group_length) ++groups;
      group_length = 0;
      continue;
    }
    ++hex_digits;
    if (++group_length > 4) return false;
  }
  if (group_length) ++groups;
  if (hex_digits == 0) return false;
  return double_colon == std::string_view::npos ? groups == 8 : groups <= 7;
}

// Top-level domains an FQDN may end with: public ones need three labels (a.example.com), site
// ones two (node1.cluster).
bool is_fqdn(std::string_view name) {
  static constexpr std::array<std::string_view, 17> kPublic = {"com", "net",   "org", "edu",     "gov", "io",
                                                               "ai",  "cloud", "dev", "example", "us",  "uk",
                                                               "de",  "info",  "app", "tech",    "co"};
  static constexpr std::array<std::string_view, 8> kSite = {"local", "localdomain", "internal", "lan",
                                                            "corp",  "intra",       "cluster",  "svc"};
  size_t labels = 1 + static_cast<size_t>(std::count(name.begin(), name.end(), '.'));
  if (labels < 2 || name.find('_') != std::string_view::npos || name.find("..") != std::string_view::npos)
    return false;
  std::string tld(name.substr(name.rfind('.') + 1));
  std::transform(tld.begin(), tld.end(), tld.begin(), [](char c) { return static_cast<char>(c | 0x20); });
  if (std::find(kSite.begin(), kSite.end(), tld) != kSite.end()) return true;
  return labels >= 3 && std::find(kPublic.begin(), kPublic.end(), tld) != kPublic.end();
}

// AWS-style host names carry their address: ip-10-0-0-1.
bool is_address_host(std::string_view name) {
  if (!name.starts_with("ip-")) return false;
  size_t dashes = 0;
  for (char c : name.substr(3)) {
    if (c == '-')
      ++dashes;
    else if (!is_digit(c))
      return false;
  }
  return dashes == 3;
}

}  // namespace faultline::report::redaction
