#include "report/redact.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <optional>

#include "base/text.hpp"

namespace faultline::report {
namespace {

using Groups = std::vector<re2::StringPiece>;

// An optional quote around a key or value: plain, escaped inside a JSON string, or an HTML entity.
#define FAULTLINE_QUOTE R"((?:\\?["']|&quot;|&#39;|&#34;|&#x27;)?)"

struct Patterns {
  RE2 url_credentials{R"(://([^/\s:@"'\\<>&]+):([^/\s@"'\\<>&]+)@)"};
  RE2 token{
      R"(hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16}|xox[abprs]-[A-Za-z0-9-]{10,})"};
  RE2 authorization{R"((?i)(authorization)" FAULTLINE_QUOTE R"(\s*[:=]\s*)" FAULTLINE_QUOTE
                    R"(((?:bearer|basic|token|digest)\s+)?)([^\s"'\\<>&,;]+))"};
  RE2 bearer{R"((?i)(bearer\s+)([A-Za-z0-9._~+/=-]{12,}))"};
  RE2 secret_assignment{
      R"((?i)([A-Za-z0-9_.-]*(?:password|passwd|token|secret|api[_-]?key|access[_-]?key|private[_-]?key))" FAULTLINE_QUOTE
      R"(\s*[=:]\s*)" FAULTLINE_QUOTE R"()([^\s"'\\<>&,;]+))"};
  RE2 env_secret{R"(([A-Z][A-Z0-9_]+)" FAULTLINE_QUOTE R"((?:=|:\s*))" FAULTLINE_QUOTE
                 R"()([A-Za-z0-9+/]{20,}={0,2}))"};
  RE2 email{R"([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})"};
  RE2 user_path{R"((/home/|/Users/)([^/\s"'\\<>&:;,]+))"};
  RE2 ipv4{R"([0-9]{1,3}(?:\.[0-9]{1,3}){3})"};
  RE2 ipv6{R"(([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})(%[A-Za-z0-9_.-]+)?)"};
  RE2 mac{R"([0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){4})"};
  RE2 host_assignment{R"((?i)((?:hostname|host|master_addr|node_?name))" FAULTLINE_QUOTE
                      R"(\s*[=:]\s*)" FAULTLINE_QUOTE R"()([A-Za-z][A-Za-z0-9_.-]*))"};
};
#undef FAULTLINE_QUOTE

const Patterns& patterns() {
  static const Patterns compiled;
  return compiled;
}

bool is_hex(char c) {
  return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_name(char c) {
  return is_word(c) || c == '-' || c == '.';
}

// Whether text[at] is the letter of a JSON escape (`\n`, `\t`...): the letter belongs to the
// escape, not to the word after it.
bool is_escape_letter(std::string_view text, size_t at) {
  if (at == 0 || at >= text.size() || text[at - 1] != '\\') return false;
  size_t backslashes = 0;
  for (size_t i = at; i > 0 && text[i - 1] == '\\'; --i) ++backslashes;
  return backslashes % 2 == 1 && std::string_view("nrtbfu").find(text[at]) != std::string_view::npos;
}

// The character before `at`, as a word boundary sees it: none after a JSON escape letter.
char before(std::string_view text, size_t at) {
  if (at == 0 || is_escape_letter(text, at - 1)) return ' ';
  return text[at - 1];
}
char after(std::string_view text, size_t at) {
  return at < text.size() ? text[at] : ' ';
}

std::string_view view(const re2::StringPiece& piece) {
  return {piece.data(), piece.size()};
}

// Replaces every match of `re` by what `replace(text, begin, end, groups)` returns; where it
// returns nothing, the match stays and the search goes on one byte later. A match starting at
// the letter of a JSON escape starts after it.
template <class Replace>
std::string replace_matches(std::string_view text, const RE2& re, Replace&& replace) {
  Groups groups(static_cast<size_t>(re.NumberOfCapturingGroups()) + 1);
  int count = static_cast<int>(groups.size());
  re2::StringPiece input(text.data(), text.size());
  std::string result;
  size_t copied = 0;
  size_t position = 0;
  while (position < text.size() &&
         re.Match(input, position, text.size(), RE2::UNANCHORED, groups.data(), count)) {
    auto begin = static_cast<size_t>(groups[0].data() - text.data());
    if (is_escape_letter(text, begin) &&
        !re.Match(input, begin + 1, text.size(), RE2::ANCHOR_START, groups.data(), count)) {
      position = begin + 1;
      continue;
    }
    begin = static_cast<size_t>(groups[0].data() - text.data());
    size_t end = begin + groups[0].size();
    std::optional<std::string> replacement = end > begin ? replace(text, begin, end, groups) : std::nullopt;
    if (!replacement) {
      position = begin + 1;
      continue;
    }
    result.append(text.substr(copied, begin - copied));
    result += *replacement;
    copied = position = end;
  }
  if (copied == 0) return std::string(text);
  result.append(text.substr(copied));
  return result;
}

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
    hex = hex && (is_hex(c) || c == '=');
  }
  if (!digit || !(upper || lower)) return false;
  if (hex) return value.size() >= 32;
  return upper && lower && value.size() >= 20;
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
  static constexpr std::array<std::string_view, 9> kPublic = {"com", "net", "org",   "edu", "gov",
                                                              "io",  "ai",  "cloud", "dev"};
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

}  // namespace

void Redactor::add_hosts(const std::vector<std::string>& hosts) {
  for (const auto& host : hosts) {
    if (host.size() < 2 || all_digits(host) || is_redacted(host)) continue;
    if (!std::all_of(host.begin(), host.end(), is_name)) continue;
    hosts_.insert(host);
  }
}

const std::string& Redactor::alias(std::map<std::string, std::string>& aliases, const std::string& prefix,
                                   const std::string& name) {
  auto found = aliases.find(name);
  if (found != aliases.end()) return found->second;
  return aliases.emplace(name, prefix + std::to_string(aliases.size() + 1)).first->second;
}

const std::string& Redactor::host_alias(const std::string& name) {
  return alias(host_aliases_, "host-", name);
}

// Known hosts, FQDNs, address-named hosts and learned user names, word by word: a word is a run
// of letters, digits, '_', '-' and '.'. A word that is not a host as a whole may hold one as a
// dotted label (node-3.log).
std::string Redactor::mask_words(std::string_view text) {
  std::string result;
  result.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    if (!is_name(text[i]) || is_escape_letter(text, i)) {
      result += text[i++];
      continue;
    }
    size_t end = i;
    while (end < text.size() && is_name(text[end])) ++end;
    std::string_view word = text.substr(i, end - i);
    std::string_view trailing;
    while (!word.empty() && (word.back() == '.' || word.back() == '-')) word.remove_suffix(1);
    trailing = text.substr(i + word.size(), end - i - word.size());
    std::string name(word);
    size_t first_dot = word.find('.');
    if (hosts_.contains(name) || is_address_host(word)) {
      result += host_alias(name);
    } else if (user_names_.contains(name)) {
      result += "USER";
    } else if (is_fqdn(word)) {
      std::string first_label(word.substr(0, first_dot));
      result += host_alias(hosts_.contains(first_label) ? first_label : name);
    } else if (first_dot != std::string_view::npos) {
      size_t start = 0;
      while (start <= word.size()) {
        size_t dot = word.find('.', start);
        if (dot == std::string_view::npos) dot = word.size();
        std::string label(word.substr(start, dot - start));
        if (hosts_.contains(label))
          result += host_alias(label);
        else if (user_names_.contains(label))
          result += "USER";
        else
          result += label;
        if (dot < word.size()) result += '.';
        start = dot + 1;
      }
    } else {
      result += word;
    }
    result += trailing;
    i = end;
  }
  return result;
}

std::string Redactor::redact(std::string_view input) {
  const Patterns& re = patterns();
  std::string text(input);
  auto starts_word = [](std::string_view all, size_t begin) { return !is_word(before(all, begin)); };

  text = replace_matches(text, re.url_credentials, [](std::string_view, size_t, size_t, const Groups&) {
    return std::optional<std::string>("://REDACTED@");
  });
  text = replace_matches(text, re.token, [&](std::string_view all, size_t begin, size_t, const Groups&) {
    return starts_word(all, begin) ? std::optional<std::string>("REDACTED") : std::nullopt;
  });
  text = replace_matches(
      text, re.authorization, [&](std::string_view all, size_t begin, size_t, const Groups& groups) {
        if (!starts_word(all, begin)) return std::optional<std::string>();
        std::string_view match = view(groups[0]);
        size_t value_at = static_cast<size_t>(groups[3].data() - groups[0].data());
        return std::optional<std::string>(std::string(match.substr(0, value_at)) + "REDACTED");
      });
  text =
      replace_matches(text, re.bearer, [&](std::string_view all, size_t begin, size_t, const Groups& groups) {
        if (!starts_word(all, begin) || is_redacted(view(groups[2]))) return std::optional<std::string>();
        return std::optional<std::string>(std::string(view(groups[1])) + "REDACTED");
      });
  text = replace_matches(
      text, re.secret_assignment, [&](std::string_view all, size_t begin, size_t, const Groups& groups) {
        std::string_view value = view(groups[2]);
        if (!starts_word(all, begin) || all_digits(value) || is_redacted(value))
          return std::optional<std::string>();
        std::string_view match = view(groups[0]);
        return std::optional<std::string>(std::string(match.substr(0, match.size() - value.size())) +
                                          "REDACTED");
      });
  text = replace_matches(
      text, re.env_secret, [&](std::string_view all, size_t begin, size_t end, const Groups& groups) {
        std::string_view value = view(groups[2]);
        char next = after(all, end);
        if (!starts_word(all, begin) || is_name(next) || next == '+' || next == '/' || !looks_random(value)) {
          return std::optional<std::string>();
        }
        std::string_view match = view(groups[0]);
        return std::optional<std::string>(std::string(match.substr(0, match.size() - value.size())) +
                                          "REDACTED");
      });
  text = replace_matches(text, re.email, [](std::string_view all, size_t begin, size_t, const Groups&) {
    char previous = before(all, begin);  // not the rest of a word, nor a URL's masked credentials
    if (is_word(previous) || previous == ':' || previous == '/') return std::optional<std::string>();
    return std::optional<std::string>("EMAIL");
  });
  text = replace_matches(text, re.user_path, [&](std::string_view, size_t, size_t, const Groups& groups) {
    std::string name(view(groups[2]));
    if (name != "USER" && name.size() >= 3 && !all_digits(name)) user_names_.insert(name);
    return std::optional<std::string>(std::string(view(groups[1])) + "USER");
  });
  text = replace_matches(text, re.ipv4,
                         [&](std::string_view all, size_t begin, size_t end, const Groups& groups) {
                           char previous = before(all, begin);
                           char next = after(all, end);
                           if (is_digit(previous) || previous == '.' || is_digit(next) ||
                               (next == '.' && is_digit(after(all, end + 1)))) {
                             return std::optional<std::string>();
                           }
                           std::string_view address = view(groups[0]);
                           size_t start = 0;
                           while (start < address.size()) {
                             size_t dot = std::min(address.find('.', start), address.size());
                             if (std::stoi(std::string(address.substr(start, dot - start))) > 255)
                               return std::optional<std::string>();
                             start = dot + 1;
                           }
                           return std::optional<std::string>(alias(ip_aliases_, "IP-", std::string(address)));
                         });
  text = replace_matches(
      text, re.ipv6, [&](std::string_view all, size_t begin, size_t end, const Groups& groups) {
        char previous = before(all, begin);
        char next = after(all, end);
        if (is_word(previous) || previous == ':' || previous == '.' || is_word(next) || next == ':' ||
            !valid_ipv6(view(groups[1]))) {
          return std::optional<std::string>();
        }
        return std::optional<std::string>(alias(ip_aliases_, "IP-", std::string(view(groups[1]))));
      });
  text = replace_matches(
      text, re.mac, [&](std::string_view all, size_t begin, size_t end, const Groups& groups) {
        std::string_view address = view(groups[0]);
        char separator = view(groups[1]).front();
        char previous = before(all, begin);
        char next = after(all, end);
        bool one_separator =
            std::all_of(address.begin(), address.end(), [&](char c) { return is_hex(c) || c == separator; });
        bool letter =
            std::any_of(address.begin(), address.end(), [](char c) { return is_hex(c) && !is_digit(c); });
        if (is_name(previous) || previous == ':' || is_name(next) || next == ':' || !one_separator ||
            (separator == '-' && !letter)) {
          return std::optional<std::string>();
        }
        std::string lower(address);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](char c) { return c == '-' ? ':' : static_cast<char>(c | 0x20); });
        return std::optional<std::string>(alias(mac_aliases_, "MAC-", lower));
      });
  text = replace_matches(
      text, re.host_assignment, [&](std::string_view all, size_t begin, size_t end, const Groups& groups) {
        std::string_view value = view(groups[2]);
        if (!starts_word(all, begin) || is_redacted(value) || is_name(after(all, end)))
          return std::optional<std::string>();
        while (!value.empty() && (value.back() == '.' || value.back() == '-')) value.remove_suffix(1);
        if (value.size() < 2) return std::optional<std::string>();
        hosts_.insert(std::string(value));
        std::string_view match = view(groups[0]);
        return std::optional<std::string>(
            std::string(match.substr(0, static_cast<size_t>(value.data() - match.data()))) +
            host_alias(std::string(value)) +
            std::string(match.substr(static_cast<size_t>(value.data() - match.data()) + value.size())));
      });
  return mask_words(text);
}

}  // namespace faultline::report
