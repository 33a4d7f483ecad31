#include "rules/rule_literals.hpp"

#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "base/text.hpp"

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
  return fnv1a(text);
}

constexpr std::string_view kMagic = "FLRULELITERALS";
constexpr uint32_t kFormat = 1;

template <typename T>
void put(std::string& out, T value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

// Bounds-checked reading of encode_rule_literals' bytes.
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

  bool at_end() const { return bytes_.empty(); }

 private:
  std::string_view bytes_;
};

}  // namespace

std::vector<std::string> patterns_without_literals(const std::vector<const Rule*>& rules) {
  std::vector<std::string> out;
  for (const Rule* rule : rules) {
    for (const auto& pattern : rule->match) {
      if (!literal_cover(pattern.text)) out.push_back(rule->id + ": " + pattern.text);
    }
  }
  return out;
}

std::optional<screen::Declarations> plan_rule_literals(const std::vector<const Rule*>& rules) {
  screen::Declarations plan;
  std::map<std::string, size_t> atom_index;
  for (uint32_t owner = 0; owner < rules.size(); ++owner) {
    for (const auto& pattern : rules[owner]->match) {
      auto cover = literal_cover(pattern.text);
      if (!cover) return std::nullopt;
      for (auto& atom : *cover) {
        auto [it, added] = atom_index.emplace(atom, plan.size());
        if (added) plan.push_back({{atom, true}, screen::Stop::kRead, {}});
        auto& owners = plan[it->second].owners;
        if (owners.empty() || owners.back() != owner) owners.push_back(owner);
      }
    }
  }
  for (auto& declared : plan) {
    bool in_traceback = std::all_of(declared.owners.begin(), declared.owners.end(), [&](uint32_t owner) {
      const Rule& rule = *rules[owner];
      return rule.scope != Scope::kLine && (!rule.frames.empty() || rule.priority <= kCatchAllPriority);
    });
    if (in_traceback) declared.stop = screen::Stop::kPass;
  }
  return plan;
}

std::string encode_rule_literals(const std::vector<const Rule*>& rules) {
  auto plan = plan_rule_literals(rules);
  if (!plan) return {};
  std::string out(kMagic);
  put(out, kFormat);
  put(out, fingerprint(rules));
  put(out, static_cast<uint32_t>(plan->size()));
  for (const auto& declared : *plan) {
    put(out, static_cast<uint32_t>(declared.literal.text.size()));
    out += declared.literal.text;
    put(out, static_cast<uint8_t>(declared.literal.caseless));
    put(out, static_cast<uint8_t>(declared.stop));
    put(out, static_cast<uint32_t>(declared.owners.size()));
    for (uint32_t owner : declared.owners) put(out, owner);
  }
  return out;
}

std::optional<screen::Declarations> decode_rule_literals(std::string_view bytes,
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
  screen::Declarations plan;
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t length = 0;
    std::string_view text;
    uint8_t caseless = 0;
    uint8_t stop = 0;
    uint32_t owners = 0;
    if (!in.get(length) || !in.get(text, length) || !in.get(caseless) || !in.get(stop) ||
        stop > static_cast<uint8_t>(screen::Stop::kWholeBlock) || !in.get(owners)) {
      return std::nullopt;
    }
    auto& declared = plan.emplace_back();
    declared.literal = {std::string(text), caseless != 0};
    declared.stop = static_cast<screen::Stop>(stop);
    for (uint32_t o = 0; o < owners; ++o) {
      uint32_t owner = 0;
      if (!in.get(owner) || owner >= rules.size()) return std::nullopt;
      declared.owners.push_back(owner);
    }
  }
  if (!in.at_end()) return std::nullopt;
  return plan;
}

}  // namespace faultline::rules
