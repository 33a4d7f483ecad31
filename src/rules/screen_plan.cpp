#include "rules/screen_plan.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "assemble/assembler.hpp"
#include "base/text.hpp"
#include "parse/ansi.hpp"
#include "parse/process_lessons.hpp"

namespace faultline::rules {

namespace {

// Words (lower case), one of which every match of `pattern` holds; nullopt when there are none
// (a pattern such as `\d+ \w+`). FilteredRE2 gives a pattern's atoms and says, for any set of
// atoms present, whether the pattern may match; the cover is grown from the longest atoms until
// the pattern cannot match without one of them, then trimmed of atoms it does not need.
std::optional<std::vector<std::string>> literal_cover(const std::string& pattern) {
  constexpr int kMinAtomLength = 3;
  re2::FilteredRE2 filter(kMinAtomLength);
  RE2::Options options;
  options.set_log_errors(false);
  int id = 0;
  if (filter.Add(pattern, options, &id) != RE2::NoError) return std::nullopt;
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  std::vector<int> potentials;
  auto matches_without = [&](const std::set<size_t>& removed) {
    std::vector<int> present;
    for (size_t i = 0; i < atoms.size(); ++i) {
      if (!removed.contains(i)) present.push_back(static_cast<int>(i));
    }
    potentials.clear();
    filter.AllPotentials(present, &potentials);
    return !potentials.empty();
  };
  std::set<size_t> all;
  for (size_t i = 0; i < atoms.size(); ++i) all.insert(i);
  if (matches_without(all)) return std::nullopt;  // matches with no atom at all
  std::vector<size_t> order(atoms.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return atoms[a].size() > atoms[b].size(); });
  std::set<size_t> chosen;
  for (size_t atom : order) {
    chosen.insert(atom);
    if (!matches_without(chosen)) break;
  }
  for (auto it = order.rbegin(); it != order.rend(); ++it) {  // shortest first: drop what is not needed
    if (!chosen.contains(*it)) continue;
    chosen.erase(*it);
    if (matches_without(chosen)) chosen.insert(*it);
  }
  std::vector<std::string> cover;
  for (size_t atom : chosen) cover.push_back(atoms[atom]);
  return cover;
}

// What a plan depends on besides the rules: the literals the assembler, the process lessons and the escape
// handling give.
template <typename Visit>
void for_each_fixed_literal(Visit visit) {
  for (std::string_view opener : assemble::kEventOpeners) visit(opener, ScreenPlan::Role::kEventOpener);
  for (std::string_view source : parse::kPidRankSources) visit(source, ScreenPlan::Role::kPidRankSource);
  for (std::string_view introducer : parse::kEscapeIntroducers) visit(introducer, ScreenPlan::Role::kEscape);
}

uint64_t fingerprint(const std::vector<const Rule*>& rules) {
  std::string text;
  for (const Rule* rule : rules) {
    text += rule->id;
    text += '\0';
    text += static_cast<char>('0' + static_cast<int>(rule->scope));
    for (const auto& pattern : rule->match) {
      text += '\0';
      text += pattern.text;
    }
    text += '\x1e';
  }
  for_each_fixed_literal([&](std::string_view literal, ScreenPlan::Role role) {
    text += literal;
    text += static_cast<char>('0' + static_cast<int>(role));
  });
  return fnv1a(text);
}

constexpr std::string_view kMagic = "FLSCREEN";
constexpr uint32_t kFormat = 2;

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Bounds-checked reading of prebuild_screen's bytes.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  bool get(T& value) {
    if (bytes_.size() < sizeof value) return false;
    std::memcpy(&value, bytes_.data(), sizeof value);
    bytes_.remove_prefix(sizeof value);
    return true;
  }
  bool get(std::string_view& text, size_t length) {
    if (bytes_.size() < length) return false;
    text = bytes_.substr(0, length);
    bytes_.remove_prefix(length);
    return true;
  }

 private:
  std::string_view bytes_;
};

}  // namespace

std::optional<ScreenPlan> plan_screen(const std::vector<const Rule*>& rules) {
  ScreenPlan plan;
  std::map<std::string, size_t> atom_index;
  for (const Rule* rule : rules) {
    for (const auto& pattern : rule->match) {
      auto cover = literal_cover(pattern.text);
      if (!cover) return std::nullopt;
      for (auto& atom : *cover) {
        auto [it, added] = atom_index.emplace(atom, plan.literals.size());
        if (added) {
          plan.literals.push_back({atom, true});
          plan.roles.push_back(ScreenPlan::Role::kRule);
          plan.rules.emplace_back();
          plan.event_rules.emplace_back();
        }
        (rule->scope == Scope::kLine ? plan.rules : plan.event_rules)[it->second].push_back(rule);
      }
    }
  }
  for (size_t i = 0; i < plan.literals.size(); ++i) {
    bool in_traceback =
        plan.rules[i].empty() &&
        std::all_of(plan.event_rules[i].begin(), plan.event_rules[i].end(), [](const Rule* rule) {
          return !rule->frames.empty() || rule->priority <= kCatchAllPriority;
        });
    if (in_traceback) plan.roles[i] = ScreenPlan::Role::kInTraceback;
  }
  for_each_fixed_literal([&](std::string_view literal, ScreenPlan::Role role) {
    plan.literals.push_back({std::string(literal), false});
    plan.roles.push_back(role);
    plan.rules.emplace_back();
    plan.event_rules.emplace_back();
  });
  for (auto* by_literal : {&plan.rules, &plan.event_rules}) {
    for (auto& candidates : *by_literal) {
      std::sort(candidates.begin(), candidates.end());
      candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    }
  }
  return plan;
}

std::string prebuild_screen(const std::vector<const Rule*>& rules) {
  auto plan = plan_screen(rules);
  if (!plan) return {};
  LiteralScreen screen(plan->literals);
  std::string database = screen.serialize();
  if (database.empty()) return {};
  std::map<const Rule*, uint32_t> position;
  for (uint32_t i = 0; i < rules.size(); ++i) position.emplace(rules[i], i);
  std::string out(kMagic);
  put(out, kFormat);
  put(out, fingerprint(rules));
  put(out, static_cast<uint32_t>(plan->literals.size()));
  for (size_t i = 0; i < plan->literals.size(); ++i) {
    const auto& literal = plan->literals[i];
    put(out, static_cast<uint32_t>(literal.text.size()));
    out += literal.text;
    put(out, static_cast<uint8_t>(literal.caseless));
    put(out, static_cast<uint8_t>(plan->roles[i]));
    put(out, static_cast<uint32_t>(plan->rules[i].size() + plan->event_rules[i].size()));
    for (const Rule* rule : plan->rules[i]) put(out, position.at(rule));
    for (const Rule* rule : plan->event_rules[i]) put(out, position.at(rule));
  }
  put(out, static_cast<uint64_t>(database.size()));
  out += database;
  return out;
}

std::optional<PlannedScreen> load_prebuilt_screen(std::string_view bytes,
                                                  const std::vector<const Rule*>& rules) {
  if (!bytes.starts_with(kMagic)) return std::nullopt;
  Reader in(bytes.substr(kMagic.size()));
  uint32_t format = 0;
  uint64_t made_from = 0;
  uint32_t count = 0;
  if (!in.get(format) || format != kFormat || !in.get(made_from) || made_from != fingerprint(rules) ||
      !in.get(count)) {
    return std::nullopt;
  }
  PlannedScreen prebuilt;
  ScreenPlan& plan = prebuilt;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t length = 0;
    std::string_view text;
    uint8_t caseless = 0;
    uint8_t role = 0;
    uint32_t candidates = 0;
    if (!in.get(length) || !in.get(text, length) || !in.get(caseless) || !in.get(role) ||
        role > static_cast<uint8_t>(ScreenPlan::Role::kInTraceback) || !in.get(candidates)) {
      return std::nullopt;
    }
    plan.literals.push_back({std::string(text), caseless != 0});
    plan.roles.push_back(static_cast<ScreenPlan::Role>(role));
    auto& line_rules = plan.rules.emplace_back();
    auto& event_rules = plan.event_rules.emplace_back();
    for (uint32_t c = 0; c < candidates; ++c) {
      uint32_t index = 0;
      if (!in.get(index) || index >= rules.size()) return std::nullopt;
      (rules[index]->scope == Scope::kLine ? line_rules : event_rules).push_back(rules[index]);
    }
    std::sort(line_rules.begin(), line_rules.end());  // by address, as plan_screen leaves them
    std::sort(event_rules.begin(), event_rules.end());
  }
  uint64_t size = 0;
  std::string_view database;
  if (!in.get(size) || !in.get(database, size)) return std::nullopt;
  prebuilt.screen = LiteralScreen::deserialize(plan.literals, database);
  return prebuilt;
}

}  // namespace faultline::rules
