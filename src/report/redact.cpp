#include "report/redact.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <array>
#include <optional>

#include "base/text.hpp"
#include "report/redact_shapes.hpp"

namespace faultline::report {
namespace {

using redaction::all_digits;
using redaction::is_address_host;
using redaction::is_file_extension;
using redaction::is_fqdn;
using redaction::is_redacted;
using redaction::looks_like_key;
using redaction::looks_random;
using redaction::valid_ipv6;

using Groups = std::vector<re2::StringPiece>;

// An optional quote around a key or value: plain, escaped inside a JSON string, or an HTML entity.
#define FAULTLINE_QUOTE R"((?:\\?["']|&quot;|&#39;|&#34;|&#x27;)?)"

// The words that name a secret in an option or an assignment: --password X, api_key=X.
#define FAULTLINE_SECRET_WORD \
  R"((?:password|passwd|passphrase|token|secret|api[_-]?key|access[_-]?key|account[_-]?key|private[_-]?key|credentials?))"

struct Patterns {
  // Private key blocks (PEM, OpenSSH), whole, across lines or JSON's \n escapes.
  RE2 private_key_block{R"((?s)-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----.*?-----END [A-Z0-9 ]*PRIVATE KEY-----)"};
  RE2 private_key_begin{R"(-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----)"};
  RE2 jwt{R"(eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*)"};
  // Credentials in URLs of any scheme: user:password@ and a token alone (https://TOKEN@host).
  RE2 url_credentials{R"(://([^/\s:@"'\\<>&]*)(:[^/\s@"'\\<>&]+)?@)"};
  // Signed-URL and query-string secrets: ?sig=, &X-Amz-Signature=, ?access_token=.
  RE2 query_secret{
      R"((?i)([?&](?:sig|signature|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|access_token|token|key|code)=)([^&\s"'\\<>#]+))"};
  RE2 token{
      R"(hf_[A-Za-z0-9]{20,}|sk-[A-Za-z0-9_-]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{20,}|(?:AKIA|ASIA)[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|xox[abprs]-[A-Za-z0-9-]{10,})"};
  // What is left of a token that a report cut short ("hf_Zq8Lm2…").
  RE2 cut_token{
      R"((?:hf_|sk-|gh[pousr]_|github_pat_|glpat-|AKIA|ASIA|AIza|xox[abprs]-|eyJ)[A-Za-z0-9_.-]*…)"};
  // A run of base64 long enough to be a key: an AWS secret key, a private key's body line.
  RE2 key_blob{R"([A-Za-z0-9+/]{16,}={0,2})"};
  // An option that names a secret, with its value as the next word: --password X, --hf-token X.
  RE2 secret_option{R"((?i)(--?[A-Za-z0-9_.-]*)" FAULTLINE_SECRET_WORD
                    R"()(\s+)([^\s"'\\<>&,;-][^\s"'\\<>&,;]*))"};
  RE2 authorization{R"((?i)(authorization)" FAULTLINE_QUOTE R"(\s*[:=]\s*)" FAULTLINE_QUOTE
                    R"(((?:bearer|basic|token|digest)\s+)?)([^\s"'\\<>&,;]+))"};
  RE2 bearer{R"((?i)(bearer\s+)([A-Za-z0-9._~+/=-]{12,}))"};
  RE2 secret_assignment{R"((?i)([A-Za-z0-9_.-]*)" FAULTLINE_SECRET_WORD FAULTLINE_QUOTE
                        R"(\s*[=:]\s*)" FAULTLINE_QUOTE R"()([^\s"'\\<>&,;]+))"};
  RE2 env_secret{R"(([A-Z][A-Z0-9_]+)" FAULTLINE_QUOTE R"((?:=|:\s*))" FAULTLINE_QUOTE
                 R"()([A-Za-z0-9+/]{20,}={0,2}))"};
  RE2 email{R"([A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,})"};
  // User names in paths: /home/alice, /Users/alice, /users/alice, /user/alice (HDFS, S3
  // prefixes), /scratch/alice, C:\Users\alice (its backslashes perhaps doubled by JSON), ~alice.
  RE2 user_path{
      R"((/home/|/Users/|/users/|/user/|/scratch/|[A-Za-z]:(?:\\{1,2}|/)Users(?:\\{1,2}|/))([^/\\\s"'<>&:;,]+))"};
  RE2 tilde_user{R"((~)([A-Za-z_][A-Za-z0-9_.-]*))"};
  RE2 ipv4{R"([0-9]{1,3}(?:\.[0-9]{1,3}){3})"};
  RE2 ipv6{R"(([0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})(%[A-Za-z0-9_.-]+)?)"};
  RE2 mac{R"([0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(?:[:-][0-9A-Fa-f]{2}){4})"};
  RE2 host_assignment{R"((?i)((?:hostname|host|master_addr|node_?name))" FAULTLINE_QUOTE
                      R"(\s*[=:]\s*)" FAULTLINE_QUOTE R"()([A-Za-z][A-Za-z0-9_.-]*))"};
};
#undef FAULTLINE_QUOTE
#undef FAULTLINE_SECRET_WORD

const Patterns& patterns() {
  static const Patterns compiled;
  return compiled;
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

// A match that begins a word, not the rest of one.
bool starts_word(std::string_view all, size_t begin) {
  return !is_word(before(all, begin));
}

// Tokens by their form: JWTs, a URL's credentials, secrets in query strings, provider tokens
// (whole, or cut short by the report).
std::string mask_tokens(std::string text) {
  const Patterns& re = patterns();
  auto masked = [](std::string_view) { return std::optional<std::string>("REDACTED"); };
  text = replace_matches(text, re.jwt, [&](std::string_view all, size_t begin, size_t, const Groups& groups) {
    return starts_word(all, begin) ? masked(view(groups[0])) : std::nullopt;
  });
  text =
      replace_matches(text, re.url_credentials, [](std::string_view, size_t, size_t, const Groups& groups) {
        if (is_redacted(view(groups[1]))) return std::optional<std::string>();
        return std::optional<std::string>("://REDACTED@");
      });
  text = replace_matches(text, re.query_secret, [](std::string_view, size_t, size_t, const Groups& groups) {
    if (is_redacted(view(groups[2]))) return std::optional<std::string>();
    return std::optional<std::string>(std::string(view(groups[1])) + "REDACTED");
  });
  text = replace_matches(text, re.token, [&](std::string_view all, size_t begin, size_t, const Groups&) {
    return starts_word(all, begin) ? std::optional<std::string>("REDACTED") : std::nullopt;
  });
  text = replace_matches(text, re.cut_token, [&](std::string_view all, size_t begin, size_t, const Groups&) {
    return starts_word(all, begin) ? std::optional<std::string>("REDACTED…") : std::nullopt;
  });
  return text;
}

// Secrets by their name: command-line options, Authorization and Bearer headers, assignments to
// a secret's name, environment variables with random-looking values, and key material (`in_key`:
// the text holds a private key block whose end it does not show).
std::string mask_secret_values(std::string text, bool in_key) {
  const Patterns& re = patterns();
  text = replace_matches(text, re.secret_option,
                         [&](std::string_view all, size_t begin, size_t, const Groups& groups) {
                           std::string_view value = view(groups[3]);
                           if (!starts_word(all, begin) || is_redacted(value))
                             return std::optional<std::string>();
                           return std::optional<std::string>(std::string(view(groups[1])) +
                                                             std::string(view(groups[2])) + "REDACTED");
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
        std::string key(view(groups[1]));
        std::transform(key.begin(), key.end(), key.begin(),
                       [](char c) { return static_cast<char>(c | 0x20); });
        bool counts = key.find("token") != std::string::npos;  // token: 4096 may be a count
        if (!starts_word(all, begin) || (counts && all_digits(value)) || is_redacted(value))
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
  text =
      replace_matches(text, re.key_blob, [&](std::string_view all, size_t begin, size_t end, const Groups&) {
        char previous = before(all, begin);
        char next = after(all, end);
        if (is_name(previous) || is_name(next)) return std::optional<std::string>();
        std::string_view value = all.substr(begin, end - begin);
        return looks_like_key(value, in_key) ? std::optional<std::string>("REDACTED") : std::nullopt;
      });
  return text;
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
    } else if (first_dot != std::string_view::npos &&
               hosts_.contains(std::string(word.substr(0, first_dot))) &&
               !is_file_extension(word.substr(word.rfind('.') + 1)) &&
               !is_digit(word.substr(word.rfind('.') + 1).empty() ? '0' : word[word.rfind('.') + 1])) {
      // A known host with its domain: the domain names the organisation, so all of it goes.
      result += host_alias(std::string(word.substr(0, first_dot)));
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

// E-mail addresses and user names in home paths (~alice, /home/alice), learning the names so
// that mask_words masks them elsewhere too.
std::string Redactor::mask_people(std::string text) {
  const Patterns& re = patterns();
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
  text = replace_matches(
      text, re.tilde_user, [&](std::string_view all, size_t begin, size_t end, const Groups& groups) {
        // ~alice/ and ~alice, not a C++ destructor (~WorkNCCL(), c10d::~ProcessGroupNCCL).
        std::string name(view(groups[2]));
        char previous = before(all, begin);
        char next = after(all, end);
        bool lower = std::all_of(name.begin(), name.end(), [](char c) { return !(c >= 'A' && c <= 'Z'); });
        if (is_name(previous) || previous == ':' || previous == '/' || next == '(' || !lower ||
            name == "USER")
          return std::optional<std::string>();
        if (name.size() >= 3 && !all_digits(name)) user_names_.insert(name);
        return std::optional<std::string>("~USER");
      });
  return text;
}

// IPv4, IPv6 and MAC addresses, each given an alias numbered in order of first appearance.
std::string Redactor::mask_addresses(std::string text) {
  const Patterns& re = patterns();
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
        bool one_separator = std::all_of(address.begin(), address.end(),
                                         [&](char c) { return is_hex_digit(c) || c == separator; });
        bool letter = std::any_of(address.begin(), address.end(),
                                  [](char c) { return is_hex_digit(c) && !is_digit(c); });
        if (is_name(previous) || previous == ':' || is_name(next) || next == ':' || !one_separator ||
            (separator == '-' && !letter)) {
          return std::optional<std::string>();
        }
        std::string lower(address);
        std::transform(lower.begin(), lower.end(), lower.begin(),
                       [](char c) { return c == '-' ? ':' : static_cast<char>(c | 0x20); });
        return std::optional<std::string>(alias(mac_aliases_, "MAC-", lower));
      });
  return text;
}

// A host named by an assignment (host=, hostname:, MASTER_ADDR=): masked, and learned for
// mask_words.
std::string Redactor::mask_host_assignments(std::string text) {
  const Patterns& re = patterns();
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
  return text;
}

std::string Redactor::redact(std::string_view input) {
  const Patterns& re = patterns();
  std::string text(input);
  if (text.find("PRIVATE KEY-----") != std::string::npos) {
    text = replace_matches(text, re.private_key_block, [](std::string_view, size_t, size_t, const Groups&) {
      return std::optional<std::string>("[PRIVATE KEY REDACTED]");
    });
  }
  // A block whose end is not in this text (a report cut it): its body lines are masked below.
  bool in_key = text.find("PRIVATE KEY-----") != std::string::npos;
  text = mask_tokens(std::move(text));
  text = mask_secret_values(std::move(text), in_key);
  text = mask_people(std::move(text));
  text = mask_addresses(std::move(text));
  text = mask_host_assignments(std::move(text));
  return mask_words(text);
}

}  // namespace faultline::report
