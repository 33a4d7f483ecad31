// The literal screen's plan and its prebuilt form: made once at build time for the shipped rules,
// taken at run time only for those very rules, and the same as planning afresh.
#include "rules/screen_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "rules/engine.hpp"
#include "rules/rule_set.hpp"

using faultline::rules::LiteralScreen;
using faultline::rules::load_prebuilt_screen;
using faultline::rules::plan_screen;
using faultline::rules::prebuild_screen;
using faultline::rules::Rule;
using faultline::rules::RuleSet;

namespace {

const RuleSet& shipped() {
  static const RuleSet set = RuleSet::shipped();
  return set;
}

std::vector<std::pair<uint32_t, uint32_t>> hits_of(const LiteralScreen& screen, std::string_view text) {
  std::vector<LiteralScreen::Hit> hits;
  REQUIRE(screen.scan(text, hits));
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& hit : hits) out.emplace_back(hit.end, hit.literal);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("a prebuilt screen loads as the plan made afresh, and finds the same literals") {
  const auto& rules = shipped().rules();
  auto plan = plan_screen(rules);
  REQUIRE(plan);
  std::string bytes = prebuild_screen(rules);
  if (bytes.empty()) {
    MESSAGE("built without Hyperscan: nothing is prebuilt");
    return;
  }
  auto loaded = load_prebuilt_screen(bytes, rules);
  REQUIRE(loaded);
  CHECK(loaded->roles == plan->roles);
  CHECK(loaded->rules == plan->rules);
  CHECK(loaded->event_rules == plan->event_rules);
  REQUIRE(loaded->literals.size() == plan->literals.size());
  for (size_t i = 0; i < plan->literals.size(); ++i) {
    CHECK(loaded->literals[i].text == plan->literals[i].text);
    CHECK(loaded->literals[i].caseless == plan->literals[i].caseless);
  }
  REQUIRE(loaded->screen);
  REQUIRE(loaded->screen->available());
  LiteralScreen fresh(plan->literals);
  std::string text =
      "[rank3]: RuntimeError: CUDA error: an illegal memory access was encountered\n"
      "node1:9042:9312 [1] NCCL INFO comm 0x55d5 rank 1 nranks 8 - Init COMPLETE\n"
      "torch.distributed.elastic.multiprocessing.api: failed (exitcode: -9) local_rank: 3\n"
      "\x1b[31mERROR\x1b[0m Watchdog caught collective operation timeout: WorkNCCL(SeqNum=9)\n";
  auto expected = hits_of(fresh, text);
  CHECK(expected.size() > 5);
  CHECK(hits_of(*loaded->screen, text) == expected);
}

TEST_CASE("a prebuilt screen is refused for other rules and for damaged bytes") {
  const auto& rules = shipped().rules();
  std::string bytes = prebuild_screen(rules);
  if (bytes.empty()) return;
  SUBCASE("a rule fewer") {
    std::vector<const Rule*> fewer(rules.begin(), rules.end() - 1);
    CHECK_FALSE(load_prebuilt_screen(bytes, fewer));
  }
  SUBCASE("a pattern changed") {
    Rule changed = *rules.front();
    // A pattern of its own: copies share their compiled form, which must stay the shipped one's.
    const auto& first = changed.match.front();
    changed.match.front() = faultline::rules::deferred_pattern(first.text + "x", first.captures);
    std::vector<const Rule*> edited(rules.begin(), rules.end());
    edited.front() = &changed;
    CHECK_FALSE(load_prebuilt_screen(bytes, edited));
  }
  SUBCASE("truncated anywhere") {
    for (size_t length : {size_t{0}, size_t{5}, size_t{20}, bytes.size() / 2, bytes.size() - 1}) {
      CHECK_FALSE(load_prebuilt_screen(std::string_view(bytes).substr(0, length), rules));
    }
  }
  SUBCASE("not a prebuilt screen") {
    std::string other = bytes;
    other[0] = 'X';
    CHECK_FALSE(load_prebuilt_screen(other, rules));
  }
}

TEST_CASE("the shipped rules come with their literal screen prebuilt, and the engine takes it") {
  faultline::rules::Engine engine(shipped());
  if (!engine.sparse_screen()) {
    MESSAGE("built without Hyperscan: nothing is prebuilt");
    return;
  }
  REQUIRE(engine.prebuilt_screen() != nullptr);
  auto plan = plan_screen(shipped().rules());
  REQUIRE(plan);
  CHECK(engine.prebuilt_screen()->roles == plan->roles);
  CHECK(engine.prebuilt_screen()->rules == plan->rules);
  CHECK(engine.prebuilt_screen()->event_rules == plan->event_rules);
}
