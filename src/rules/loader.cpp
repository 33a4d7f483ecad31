// Loads rule packs with yaml-cpp; its exceptions stop here (style.md, convention 3).
#include <re2/re2.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "base/text.hpp"
#include "rules/rule_set.hpp"
#include "rules/template_match.hpp"

namespace faultline::rules {
namespace {

const std::set<std::string, std::less<>> kRuleKeys = {
    "id",      "cause",    "title",   "category", "role",        "reports",   "logged", "severity",
    "scope",   "match",    "unless",  "frames",   "skip_frames", "priority",  "when",   "derive",
    "explain", "symptoms", "confirm", "fix",      "verify",      "narrative", "refs",   "examples"};

// YAML aliases repeat a node without repeating its text: a 1 MiB anchored string referenced
// 2,000 times is 2 GB to convert, and deeper nesting grows exponentially. Before the pack is
// loaded, its events are walked once, each anchored node's expanded size remembered, and a pack
// that would expand past kMaxExpandedBytes (or use more than kMaxAliases aliases) is refused at
// the alias that passed the limit. Syntax errors are left for YAML::Load to report.
class AliasBudget final : public YAML::EventHandler {
 public:
  static constexpr uint64_t kMaxExpandedBytes = uint64_t{4} << 20;
  static constexpr uint64_t kMaxAliases = 10'000;

  explicit AliasBudget(uint64_t text_bytes) : limit_(kMaxExpandedBytes + text_bytes) {}
  const std::optional<std::pair<YAML::Mark, std::string>>& refusal() const { return refusal_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { add(mark, anchor, 1); }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto found = sizes_.find(anchor);
    uint64_t size = found == sizes_.end() ? 1 : found->second;
    if (++aliases_ > kMaxAliases && !refusal_) {
      refusal_.emplace(mark, "the pack uses more than " + std::to_string(kMaxAliases) +
                                 " YAML aliases; a rule pack may use at most " + std::to_string(kMaxAliases));
    }
    add(mark, 0, size);
  }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string& value) override {
    add(mark, anchor, value.size() + 1);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open_.push_back({anchor, 1});
    (void)mark;
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open_.push_back({anchor, 1});
    (void)mark;
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YAML::anchor_t anchor;
    uint64_t size;
  };
  void add(const YAML::Mark& mark, YAML::anchor_t anchor, uint64_t size) {
    if (anchor != 0) sizes_[anchor] = size;
    if (!open_.empty()) open_.back().size = std::min(open_.back().size + size, limit_ + 1);
    total_ = std::min(total_ + size, limit_ + 1);
    if (total_ > limit_ && !refusal_) {
      refusal_.emplace(mark, "YAML aliases expand the pack past " + std::to_string(limit_ >> 20) +
                                 " MiB; a rule pack may expand to at most its own size plus " +
                                 std::to_string(kMaxExpandedBytes >> 20) + " MiB");
    }
  }
  void close() {
    if (open_.empty()) return;
    Open done = open_.back();
    open_.pop_back();
    if (done.anchor != 0) sizes_[done.anchor] = done.size;
    if (!open_.empty()) open_.back().size = std::min(open_.back().size + done.size, limit_ + 1);
  }

  uint64_t limit_;
  uint64_t total_ = 0;  // every scalar as often as the pack's aliases repeat it
  uint64_t aliases_ = 0;
  std::map<YAML::anchor_t, uint64_t> sizes_;
  std::vector<Open> open_;
  std::optional<std::pair<YAML::Mark, std::string>> refusal_;
};

// "origin:line:col: message" when `text`'s aliases expand it past the limits.
std::optional<std::string> refuse_alias_bombs(std::string_view text, const std::string& origin) {
  std::istringstream in{std::string(text)};
  AliasBudget budget(text.size());
  try {
    YAML::Parser parser(in);
    while (!budget.refusal() && parser.HandleNextDocument(budget)) {
    }
  } catch (const YAML::Exception&) {
    return std::nullopt;  // YAML::Load reports it, with its place
  }
  if (!budget.refusal()) return std::nullopt;
  const auto& [mark, message] = *budget.refusal();
  return origin + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": " +
         message;
}

class PackLoader {
 public:
  explicit PackLoader(std::string origin) : origin_(std::move(origin)) {}

  Result<std::vector<Rule>> load(std::string_view text) {
    if (auto refused = refuse_alias_bombs(text, origin_)) return Status::error(*refused);
    YAML::Node root;
    try {
      root = YAML::Load(std::string(text));
    } catch (const YAML::Exception& e) {
      return Status::error(where(e.mark) + e.msg);
    }
    try {
      load_root(root);
    } catch (const YAML::Exception& e) {
      error(e.mark, e.msg);
    }
    if (!errors_.empty()) return Status::error(join(errors_, "\n"));
    return std::move(rules_);
  }

 private:
  std::string where(const YAML::Mark& mark) const {
    if (mark.is_null()) return origin_ + ": ";
    return origin_ + ":" + std::to_string(mark.line + 1) + ":" + std::to_string(mark.column + 1) + ": ";
  }
  void error(const YAML::Mark& mark, const std::string& message) { errors_.push_back(where(mark) + message); }

  void load_root(const YAML::Node& root) {
    if (!root.IsMap() || !root["rules"]) {
      error(root.Mark(), "a rule pack is a mapping with a 'rules:' list");
      return;
    }
    for (auto it = root.begin(); it != root.end(); ++it) {
      if (it->first.as<std::string>() != "rules") {
        error(it->first.Mark(),
              "unknown key '" + it->first.as<std::string>() + "' (a pack holds only 'rules')");
      }
    }
    YAML::Node list = root["rules"];
    if (!list.IsSequence()) {
      error(list.Mark(), "'rules' must be a list");
      return;
    }
    std::set<std::string> ids;
    for (const auto& node : list) {
      Rule rule;
      size_t errors_before = errors_.size();
      load_rule(node, rule);
      if (errors_.size() != errors_before) continue;
      if (!ids.insert(rule.id).second) {
        error(node["id"].Mark(), "duplicate rule id '" + rule.id + "'");
        continue;
      }
      rules_.push_back(std::move(rule));
    }
  }

  std::optional<std::string> scalar(const YAML::Node& node, const char* key) {
    if (!node.IsScalar()) {
      error(node.Mark(), std::string("'") + key + "' must be a string");
      return std::nullopt;
    }
    return node.as<std::string>();
  }

  std::vector<std::pair<std::string, YAML::Mark>> string_list(const YAML::Node& node, const char* key) {
    std::vector<std::pair<std::string, YAML::Mark>> out;
    if (node.IsScalar()) {
      out.emplace_back(node.as<std::string>(), node.Mark());
    } else if (node.IsSequence()) {
      for (const auto& item : node) {
        if (auto text = scalar(item, key)) out.emplace_back(*text, item.Mark());
      }
    } else {
      error(node.Mark(), std::string("'") + key + "' must be a string or a list of strings");
    }
    return out;
  }

  std::vector<Pattern> patterns(const YAML::Node& node, const char* key) {
    std::vector<Pattern> out;
    for (auto& [text, mark] : string_list(node, key)) {
      auto pattern = compile_pattern(std::move(text));
      if (!pattern) {
        error(mark, std::string("bad regex in '") + key + "': " + pattern.status().message());
        continue;
      }
      out.push_back(std::move(*pattern));
    }
    return out;
  }

  // Reports names an expression or template reads that no pattern captures or derives.
  void check_facts(const std::vector<std::string>& names, const YAML::Mark& mark, const char* key) {
    for (const auto& name : names) {
      // `host`, the host that reported the failure, is known to every rule; an item that needs
      // it is left out when the logs name none.
      if (name == "host") continue;
      if (std::find(known_facts_.begin(), known_facts_.end(), name) == known_facts_.end()) {
        error(mark, std::string("unknown fact '") + name + "' in '" + key + "' (known: " +
                        (known_facts_.empty() ? std::string("none") : join(known_facts_, ", ")) + ")");
      }
    }
  }

  std::optional<Expression> expression(const YAML::Node& node, const char* key) {
    auto text = scalar(node, key);
    if (!text) return std::nullopt;
    auto parsed = Expression::parse(*text);
    if (!parsed) {
      error(node.Mark(), std::string("in '") + key + "': " + parsed.status().message());
      return std::nullopt;
    }
    check_facts(parsed->fact_names(), node.Mark(), key);
    return std::move(*parsed);
  }

  std::optional<Template> template_text(const std::string& text, const YAML::Mark& mark, const char* key) {
    auto parsed = Template::parse(text);
    if (!parsed) {
      error(mark, std::string("in '") + key + "': " + parsed.status().message());
      return std::nullopt;
    }
    check_facts(parsed->fact_names(), mark, key);
    return std::move(*parsed);
  }

  std::vector<Template> template_list(const YAML::Node& node, const char* key) {
    std::vector<Template> out;
    for (auto& [text, mark] : string_list(node, key)) {
      if (auto parsed = template_text(text, mark, key)) out.push_back(std::move(*parsed));
    }
    return out;
  }

  template <typename Enum>
  void choice(const YAML::Node& node, const char* key,
              std::initializer_list<std::pair<const char*, Enum>> options, Enum& out) {
    auto text = scalar(node, key);
    if (!text) return;
    std::vector<std::string> names;
    for (auto [name, value] : options) {
      if (*text == name) {
        out = value;
        return;
      }
      names.push_back(name);
    }
    error(node.Mark(),
          std::string("'") + key + "' must be one of " + join(names, ", ") + ", not '" + *text + "'");
  }

  void load_examples(const YAML::Node& node, Rule& rule) {
    if (!node.IsMap()) {
      error(node.Mark(), "'examples' must be a mapping with 'match' and 'no_match'");
      return;
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = it->first.as<std::string>();
      YAML::Node value = it->second;  // a copy: it->second lives in a temporary of the iterator
      if (key == "no_match") {
        for (auto& [text, mark] : string_list(value, "no_match")) rule.no_match_examples.push_back(text);
      } else if (key == "match") {
        if (!value.IsSequence()) {
          error(value.Mark(), "'match' examples must be a list");
          continue;
        }
        for (const auto& item : value) load_match_example(item, rule);
      } else {
        error(it->first.Mark(), "unknown key '" + key + "' in examples (match, no_match)");
      }
    }
  }

  void load_match_example(const YAML::Node& item, Rule& rule) {
    MatchExample example;
    if (item.IsScalar()) {
      example.text = item.as<std::string>();
      rule.match_examples.push_back(std::move(example));
      return;
    }
    if (!item.IsMap() || !item["text"]) {
      error(item.Mark(), "a match example is a string or a mapping with 'text' and 'facts'");
      return;
    }
    for (auto it = item.begin(); it != item.end(); ++it) {
      std::string key = it->first.as<std::string>();
      if (key == "text") {
        if (auto text = scalar(it->second, "text")) example.text = *text;
      } else if (key == "facts") {
        if (!it->second.IsMap()) {
          error(it->second.Mark(), "'facts' must be a mapping");
          continue;
        }
        for (auto fact = it->second.begin(); fact != it->second.end(); ++fact) {
          std::string name = fact->first.as<std::string>();
          check_facts({name}, fact->first.Mark(), "facts");
          if (fact->second.IsSequence()) {
            std::vector<std::string> items;
            for (const auto& value : fact->second) items.push_back(value.as<std::string>());
            example.facts.emplace_back(name, join(items, ", "));
          } else if (auto value = scalar(fact->second, "facts")) {
            example.facts.emplace_back(name, *value);
          }
        }
      } else {
        error(it->first.Mark(), "unknown key '" + key + "' in a match example (text, facts)");
      }
    }
    rule.match_examples.push_back(std::move(example));
  }

  void load_rule(const YAML::Node& node, Rule& rule) {
    if (!node.IsMap()) {
      error(node.Mark(), "a rule is a mapping");
      return;
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string key = it->first.as<std::string>();
      if (!kRuleKeys.contains(key)) error(it->first.Mark(), "unknown key '" + key + "'");
    }
    rule.origin = origin_ + ":" + std::to_string(node.Mark().line + 1);
    if (!node["id"]) {
      error(node.Mark(), "a rule needs an 'id'");
      return;
    }
    if (auto id = scalar(node["id"], "id")) rule.id = *id;
    rule.cause = rule.id;
    if (node["cause"]) {
      if (auto cause = scalar(node["cause"], "cause")) rule.cause = *cause;
    }
    if (!is_known_cause(rule.cause)) {
      error((node["cause"] ? node["cause"] : node["id"]).Mark(),
            "unknown cause '" + rule.cause + "' (causes are the ids of causes.md)");
    }
    if (!node["title"])
      error(node.Mark(), "rule '" + rule.id + "' needs a 'title'");
    else if (auto title = scalar(node["title"], "title"))
      rule.title = *title;
    if (node["category"]) {
      if (auto category = scalar(node["category"], "category")) rule.category = *category;
    }
    if (node["role"])
      choice(node["role"], "role",
             {{"root_cause", Role::kRootCause},
              {"symptom", Role::kSymptom},
              {"recovery", Role::kRecovery},
              {"fact", Role::kFact}},
             rule.role);
    if (node["reports"]) {
      choice(node["reports"], "reports", {{"self", false}, {"peer", true}}, rule.reports_peer);
      if (rule.reports_peer && rule.role != Role::kSymptom)
        error(node["reports"].Mark(), "'reports: peer' needs 'role: symptom'");
    }
    if (node["logged"]) {
      choice(node["logged"], "logged", {{"any", false}, {"error", true}}, rule.logged_error);
    }
    if (node["scope"]) {
      choice(node["scope"], "scope",
             {{"message", Scope::kMessage}, {"event", Scope::kEvent}, {"line", Scope::kLine}}, rule.scope);
    }
    if (node["severity"]) {
      std::string severity = "error";
      choice(node["severity"], "severity",
             {{"error", std::string("error")},
              {"warning", std::string("warning")},
              {"info", std::string("info")}},
             severity);
      rule.severity = severity;
    }
    if (!node["match"]) {
      error(node.Mark(), "rule '" + rule.id + "' needs 'match' patterns");
      return;
    }
    rule.match = patterns(node["match"], "match");
    if (node["unless"]) rule.unless = patterns(node["unless"], "unless");
    for (auto [key, list] :
         {std::pair{"frames", &rule.frames}, std::pair{"skip_frames", &rule.skip_frames}}) {
      if (!node[key]) continue;
      if (rule.scope != Scope::kMessage)
        error(node[key].Mark(), "'" + std::string(key) + "' needs 'scope: message'");
      *list = patterns(node[key], key);
    }
    if (rule.logged_error && rule.scope != Scope::kMessage)
      error(node["logged"].Mark(), "'logged: error' needs 'scope: message'");
    if (!rule.skip_frames.empty() && rule.frames.empty())
      error(node["skip_frames"].Mark(), "'skip_frames' needs 'frames'");
    if (node["priority"]) {
      auto text = scalar(node["priority"], "priority");
      int value = 0;
      auto [end, failure] = text ? std::from_chars(text->data(), text->data() + text->size(), value)
                                 : std::from_chars_result{nullptr, std::errc::invalid_argument};
      if (text &&
          (failure != std::errc() || end != text->data() + text->size() || value < -1000 || value > 1000)) {
        error(node["priority"].Mark(), "'priority' must be an integer from -1000 to 1000");
      }
      rule.priority = value;
    }
    known_facts_.clear();
    for (const auto* list : {&rule.match, &rule.frames}) {
      for (const auto& pattern : *list) {
        for (const auto& [name, index] : pattern.captures) {
          if (std::find(known_facts_.begin(), known_facts_.end(), name) == known_facts_.end())
            known_facts_.push_back(name);
        }
      }
    }
    if (node["derive"]) load_derive(node["derive"], rule);
    if (node["when"]) rule.when = expression(node["when"], "when");
    if (node["explain"]) {
      if (auto text = scalar(node["explain"], "explain"))
        rule.explain = template_text(*text, node["explain"].Mark(), "explain");
    }
    if (node["symptoms"]) rule.symptoms = template_list(node["symptoms"], "symptoms");
    if (node["confirm"]) rule.confirm = template_list(node["confirm"], "confirm");
    if (node["fix"]) rule.fix = template_list(node["fix"], "fix");
    if (node["verify"]) {
      if (auto text = scalar(node["verify"], "verify"))
        rule.verify = template_text(*text, node["verify"].Mark(), "verify");
    }
    if (node["narrative"]) {
      if (auto text = scalar(node["narrative"], "narrative")) {
        rule.narrative = template_text(*text, node["narrative"].Mark(), "narrative");
      }
    }
    if (node["refs"]) {
      for (auto& [text, mark] : string_list(node["refs"], "refs")) rule.refs.push_back(text);
    }
    if (node["examples"]) load_examples(node["examples"], rule);
  }

  void load_derive(const YAML::Node& node, Rule& rule) {
    if (!node.IsMap()) {
      error(node.Mark(), "'derive' must be a mapping of fact names to expressions");
      return;
    }
    for (auto it = node.begin(); it != node.end(); ++it) {
      std::string name = it->first.as<std::string>();
      if (auto parsed = expression(it->second, "derive")) {
        rule.derive.emplace_back(name, std::move(*parsed));
        known_facts_.push_back(name);
      }
    }
  }

  std::string origin_;
  std::vector<std::string> errors_;
  std::vector<Rule> rules_;
  std::vector<std::string> known_facts_;
};

}  // namespace

struct Pattern::Compiled {
  std::once_flag once;
  std::unique_ptr<RE2> regex;
  bool digit_uniform = false;
  uint64_t serial = next_serial();

  static uint64_t next_serial() {
    static std::atomic<uint64_t> counter{0};
    return counter.fetch_add(1, std::memory_order_relaxed) + 1;
  }
};

namespace {

std::unique_ptr<RE2> compile_regex(const std::string& text) {
  RE2::Options options;
  options.set_log_errors(false);
  return std::make_unique<RE2>(text, options);
}

}  // namespace

const RE2& Pattern::regex() const {
  std::call_once(compiled->once, [this] {
    if (!compiled->regex) compiled->regex = compile_regex(text);
    compiled->digit_uniform = rules::digit_uniform(text);
  });
  return *compiled->regex;
}

bool Pattern::digit_uniform() const {
  regex();
  return compiled->digit_uniform;
}

uint64_t Pattern::serial() const {
  return compiled->serial;
}

Result<Pattern> compile_pattern(std::string text) {
  auto regex = compile_regex(text);
  if (!regex->ok()) return Status::error(regex->error());
  Pattern pattern{std::move(text), {}, std::make_shared<Pattern::Compiled>()};
  for (const auto& [name, index] : regex->NamedCapturingGroups()) pattern.captures.emplace_back(name, index);
  std::sort(pattern.captures.begin(), pattern.captures.end(),
            [](const auto& a, const auto& b) { return a.second < b.second; });
  pattern.compiled->regex = std::move(regex);
  return pattern;
}

Pattern deferred_pattern(std::string text, std::vector<std::pair<std::string, int>> captures) {
  return Pattern{std::move(text), std::move(captures), std::make_shared<Pattern::Compiled>()};
}

Result<std::vector<Rule>> load_pack(std::string_view yaml_text, const std::string& origin) {
  return PackLoader(origin).load(yaml_text);
}

Result<std::vector<Rule>> load_pack_file(const std::string& path) {
  auto file = read_small_file(path);
  if (!file.ok) return Status::error(file.text);
  return load_pack(file.text, path);
}

}  // namespace faultline::rules
