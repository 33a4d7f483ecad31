#include "rules/pack_codec.hpp"

#include <limits>
#include <optional>

namespace faultline::rules {
namespace {

class Writer {
 public:
  void byte(uint8_t value) { out_.push_back(static_cast<char>(value)); }
  void u32(size_t value) {
    for (int shift = 0; shift < 32; shift += 8) byte(static_cast<uint8_t>(value >> shift));
  }
  void string(std::string_view text) {
    u32(text.size());
    out_.append(text);
  }
  void strings(const std::vector<std::string>& texts) {
    u32(texts.size());
    for (const auto& text : texts) string(text);
  }
  void templates(const std::vector<Template>& templates) {
    u32(templates.size());
    for (const auto& item : templates) string(item.source());
  }
  template <typename T, typename Source>
  void optional(const std::optional<T>& item, Source source) {
    byte(item ? 1 : 0);
    if (item) string(source(*item));
  }
  void patterns(const std::vector<Pattern>& patterns) {
    u32(patterns.size());
    for (const auto& pattern : patterns) {
      string(pattern.text);
      u32(pattern.captures.size());
      for (const auto& [name, index] : pattern.captures) {
        string(name);
        u32(static_cast<size_t>(index));
      }
    }
  }

  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

uint8_t role_byte(Role role) {
  return static_cast<uint8_t>(role);
}

uint8_t scope_byte(Scope scope) {
  switch (scope) {
    case Scope::kMessage:
      return 0;
    case Scope::kEvent:
      return 1;
    case Scope::kLine:
      return 2;
  }
  return 0;
}

void encode_rule(const Rule& rule, Writer& out) {
  out.string(rule.origin);
  out.string(rule.id);
  out.string(rule.cause);
  out.string(rule.title);
  out.string(rule.category);
  out.byte(role_byte(rule.role));
  out.string(rule.severity);
  out.byte(scope_byte(rule.scope));
  out.byte(rule.reports_peer ? 1 : 0);
  out.byte(rule.logged_error ? 1 : 0);
  out.patterns(rule.match);
  out.patterns(rule.unless);
  out.patterns(rule.frames);
  out.patterns(rule.skip_frames);
  out.u32(static_cast<uint32_t>(rule.priority + 1000));
  out.optional(rule.when, [](const Expression& when) { return when.text(); });
  out.u32(rule.derive.size());
  for (const auto& [name, expression] : rule.derive) {
    out.string(name);
    out.string(expression.text());
  }
  auto source = [](const Template& text) { return text.source(); };
  out.optional(rule.explain, source);
  out.templates(rule.symptoms);
  out.templates(rule.confirm);
  out.templates(rule.fix);
  out.optional(rule.verify, source);
  out.optional(rule.narrative, source);
  out.strings(rule.refs);
  out.u32(rule.match_examples.size());
  for (const auto& example : rule.match_examples) {
    out.string(example.text);
    out.u32(example.facts.size());
    for (const auto& [name, value] : example.facts) {
      out.string(name);
      out.string(value);
    }
  }
  out.strings(rule.no_match_examples);
}

// Reads what Writer wrote. The first problem sticks: later reads return empty values and the
// decoder stops at the end of the rule it is in.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  bool failed() const { return error_.has_value(); }
  bool at_end() const { return position_ == bytes_.size(); }
  size_t position() const { return position_; }
  size_t left() const { return bytes_.size() - position_; }
  const std::string& error() const { return *error_; }
  void fail(size_t at, const std::string& message) {
    if (!error_) error_ = "byte " + std::to_string(at) + ": " + message;
  }

  std::string_view bytes(size_t count, const char* what) {
    if (failed()) return {};
    if (count > left()) {
      fail(position_, std::string(what) + " of " + std::to_string(count) + " bytes with " +
                          std::to_string(left()) + " left");
      return {};
    }
    std::string_view out = bytes_.substr(position_, count);
    position_ += count;
    return out;
  }
  uint8_t byte(const char* what) {
    auto read = bytes(1, what);
    return read.empty() ? 0 : static_cast<uint8_t>(read[0]);
  }
  uint32_t u32(const char* what) {
    auto read = bytes(4, what);
    uint32_t value = 0;
    for (size_t i = 0; i < read.size(); ++i) value |= uint32_t{static_cast<uint8_t>(read[i])} << (8 * i);
    return value;
  }
  std::string string() {
    uint32_t size = u32("a string length");
    return std::string(bytes(size, "a string"));
  }
  // A list's count. Every item takes at least four bytes, so a count the bytes left cannot
  // hold is corrupt, and is caught before any item is read.
  uint32_t count() {
    size_t at = position_;
    uint32_t count = u32("a count");
    if (!failed() && count > left() / 4) {
      fail(at, "a count of " + std::to_string(count) + " with " + std::to_string(left()) + " bytes left");
      return 0;
    }
    return count;
  }
  std::vector<std::string> strings() {
    std::vector<std::string> out;
    for (uint32_t i = count(); i > 0 && !failed(); --i) out.push_back(string());
    return out;
  }
  std::optional<std::string> optional_string() {
    size_t at = position_;
    switch (byte("an optional's flag")) {
      case 0:
        return std::nullopt;
      case 1:
        return string();
      default:
        fail(at, "an optional's flag is neither 0 nor 1");
        return std::nullopt;
    }
  }

 private:
  std::string_view bytes_;
  size_t position_ = 0;
  std::optional<std::string> error_;
};

// Decodes one rule and compiles what it holds. A problem past the byte layout (a pattern RE2
// rejects, captures that differ from those encoded, a template that no longer parses) names
// the rule and where it came from.
class RuleDecoder {
 public:
  RuleDecoder(Reader& in, PatternCompile compile) : in_(in), compile_(compile) {}

  std::optional<Rule> decode() {
    start_ = in_.position();
    Rule rule;
    rule.origin = in_.string();
    rule.id = in_.string();
    rule.cause = in_.string();
    rule.title = in_.string();
    rule.category = in_.string();
    rule.role = role(in_.byte("a role"));
    rule.severity = in_.string();
    rule.scope = scope(in_.byte("a scope"));
    rule.reports_peer = in_.byte("a reporter") != 0;
    rule.logged_error = in_.byte("a logged level") != 0;
    rule.match = patterns(rule, "match");
    rule.unless = patterns(rule, "unless");
    rule.frames = patterns(rule, "frames");
    rule.skip_frames = patterns(rule, "skip_frames");
    rule.priority = static_cast<int>(in_.u32("a priority")) - 1000;
    if (auto text = in_.optional_string()) rule.when = expression(rule, *text, "when");
    for (uint32_t i = in_.count(); i > 0 && !in_.failed(); --i) {
      std::string name = in_.string();
      if (auto parsed = expression(rule, in_.string(), "derive")) {
        rule.derive.emplace_back(std::move(name), std::move(*parsed));
      }
    }
    if (auto text = in_.optional_string()) rule.explain = template_text(rule, *text, "explain");
    rule.symptoms = templates(rule, "symptoms");
    rule.confirm = templates(rule, "confirm");
    rule.fix = templates(rule, "fix");
    if (auto text = in_.optional_string()) rule.verify = template_text(rule, *text, "verify");
    if (auto text = in_.optional_string()) rule.narrative = template_text(rule, *text, "narrative");
    rule.refs = in_.strings();
    for (uint32_t i = in_.count(); i > 0 && !in_.failed(); --i) {
      MatchExample example;
      example.text = in_.string();
      for (uint32_t j = in_.count(); j > 0 && !in_.failed(); --j) {
        std::string name = in_.string();
        example.facts.emplace_back(std::move(name), in_.string());
      }
      rule.match_examples.push_back(std::move(example));
    }
    rule.no_match_examples = in_.strings();
    if (in_.failed()) return std::nullopt;
    return rule;
  }

 private:
  void fail(const Rule& rule, const std::string& message) {
    in_.fail(start_, "rule '" + rule.id + "' (" + rule.origin + "): " + message);
  }

  Role role(uint8_t value) {
    if (value > 3) {
      in_.fail(in_.position() - 1, "role " + std::to_string(value) +
                                       " is none of 0 (root_cause), 1 (symptom), 2 (recovery), 3 (fact)");
      return Role::kRootCause;
    }
    return static_cast<Role>(value);
  }

  Scope scope(uint8_t value) {
    switch (value) {
      case 0:
        return Scope::kMessage;
      case 1:
        return Scope::kEvent;
      case 2:
        return Scope::kLine;
    }
    in_.fail(in_.position() - 1,
             "scope " + std::to_string(value) + " is none of 0 (message), 1 (event), 2 (line)");
    return Scope::kMessage;
  }

  std::vector<Pattern> patterns(const Rule& rule, const char* key) {
    std::vector<Pattern> out;
    for (uint32_t i = in_.count(); i > 0 && !in_.failed(); --i) {
      std::string text = in_.string();
      std::vector<std::pair<std::string, int>> captures;
      for (uint32_t j = in_.count(); j > 0 && !in_.failed(); --j) {
        std::string name = in_.string();
        uint32_t index = in_.u32("a capture's group index");
        if (index > static_cast<uint32_t>(std::numeric_limits<int>::max())) {
          in_.fail(in_.position() - 4, "capture group index " + std::to_string(index));
        }
        captures.emplace_back(std::move(name), static_cast<int>(index));
      }
      if (in_.failed()) break;
      if (compile_ == PatternCompile::kOnFirstUse) {
        out.push_back(deferred_pattern(std::move(text), std::move(captures)));
        continue;
      }
      auto pattern = compile_pattern(std::move(text));
      if (!pattern) {
        fail(rule, std::string("bad regex in '") + key + "': " + pattern.status().message());
        break;
      }
      if (pattern->captures != captures) {
        fail(rule, std::string("the captures of '") + key + "' pattern '" + pattern->text +
                       "' differ from those it was compiled with");
        break;
      }
      out.push_back(std::move(*pattern));
    }
    return out;
  }

  std::optional<Expression> expression(const Rule& rule, const std::string& text, const char* key) {
    if (in_.failed()) return std::nullopt;
    auto parsed = Expression::parse(text);
    if (!parsed) {
      fail(rule, std::string("in '") + key + "': " + parsed.status().message());
      return std::nullopt;
    }
    return std::move(*parsed);
  }

  std::optional<Template> template_text(const Rule& rule, const std::string& text, const char* key) {
    if (in_.failed()) return std::nullopt;
    if (compile_ == PatternCompile::kOnFirstUse) return Template::deferred(text);
    auto parsed = Template::parse(text);
    if (!parsed) {
      fail(rule, std::string("in '") + key + "': " + parsed.status().message());
      return std::nullopt;
    }
    return std::move(*parsed);
  }

  std::vector<Template> templates(const Rule& rule, const char* key) {
    std::vector<Template> out;
    for (uint32_t i = in_.count(); i > 0 && !in_.failed(); --i) {
      if (auto parsed = template_text(rule, in_.string(), key)) out.push_back(std::move(*parsed));
    }
    return out;
  }

  Reader& in_;
  PatternCompile compile_;
  size_t start_ = 0;
};

}  // namespace

std::string encode_rules(const std::vector<Rule>& rules) {
  Writer out;
  for (char c : kPackMagic) out.byte(static_cast<uint8_t>(c));
  out.u32(kPackFormatVersion);
  out.u32(rules.size());
  for (const auto& rule : rules) encode_rule(rule, out);
  return out.take();
}

Result<std::vector<Rule>> decode_rules(std::string_view bytes, PatternCompile compile) {
  Reader in(bytes);
  if (in.bytes(kPackMagic.size(), "the magic") != kPackMagic) {
    if (!in.failed()) in.fail(0, "not a compiled rule pack (no '" + std::string(kPackMagic) + "' magic)");
    return Status::error(in.error());
  }
  uint32_t version = in.u32("the format version");
  if (!in.failed() && version != kPackFormatVersion) {
    in.fail(kPackMagic.size(), "format version " + std::to_string(version) +
                                   ", this faultline reads version " + std::to_string(kPackFormatVersion));
  }
  std::vector<Rule> rules;
  for (uint32_t i = in.count(); i > 0 && !in.failed(); --i) {
    if (auto rule = RuleDecoder(in, compile).decode()) rules.push_back(std::move(*rule));
  }
  if (!in.failed() && !in.at_end()) {
    in.fail(in.position(), std::to_string(in.left()) + " bytes after the last rule");
  }
  if (in.failed()) return Status::error(in.error());
  return rules;
}

}  // namespace faultline::rules
