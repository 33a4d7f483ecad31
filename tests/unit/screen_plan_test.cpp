// The literal screen's plan and its prebuilt form: made once at build time for the shipped rules,
// taken at run time only for those very rules, and the same as planning afresh.
#include "rules/screen_plan.hpp"

#include <doctest/doctest.h>

#include <algorithm>

#include "../skip_unless.hpp"
#include "rules/engine.hpp"
#include "rules/literal_screen.hpp"
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

TEST_CASE("a prebuilt screen loads as the plan made afresh, and finds the same literals" *
          faultline::testing::skip_unless(faultline::rules::LiteralScreen::built_in(),
                                          "built without Hyperscan")) {
  const auto& rules = shipped().rules();
  auto plan = plan_screen(rules);
  REQUIRE(plan);
  std::string bytes = prebuild_screen(rules);
  REQUIRE_FALSE(bytes.empty());
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

TEST_CASE("the shipped rules come with their literal screen prebuilt, and the engine takes it" *
          faultline::testing::skip_unless(faultline::rules::LiteralScreen::built_in(),
                                          "built without Hyperscan")) {
  faultline::rules::Engine engine(shipped());
  REQUIRE(engine.sparse_screen());
  REQUIRE(engine.prebuilt_screen() != nullptr);
  auto plan = plan_screen(shipped().rules());
  REQUIRE(plan);
  CHECK(engine.prebuilt_screen()->roles == plan->roles);
  CHECK(engine.prebuilt_screen()->rules == plan->rules);
  CHECK(engine.prebuilt_screen()->event_rules == plan->event_rules);
}

TEST_CASE("the shipped rules' literals stay off the lines of a healthy torchrun log" *
          faultline::testing::skip_unless(faultline::rules::LiteralScreen::built_in(),
                                          "built without Hyperscan")) {
  // A sparse read parses the lines the literal screen hits (and a few before them): a literal
  // that common words hold (say 'fault', in every "[default1]:" prefix) makes it read nearly all
  // of a log. Lines a healthy multi-rank job prints by the million must not be hit.
  faultline::rules::Engine engine(shipped());
  const auto* screen = engine.prebuilt_screen();
  REQUIRE(screen);
  const std::vector<std::string> healthy = {
      "[default1]:[rank1]:     forward-compute ................................: (685.33, 686.62)",
      "[default3]:[rank3]:     optimizer ......................................: (316.95, 320.17)",
      "node1:9042:9313 [1] NCCL INFO 32 coll channels, 32 collnet channels, 0 nvls channels, 32 p2p channels",
      "node1:9055:9307 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via P2P/IPC",
      "[rank5]: [2024-11-29 12:27:25,705] [INFO] [timer.py:260:stop] "
      "epoch=0/micro_step=56024/global_step=7003, "
      "RunningAvgSamplesPerSec=818.600, CurrSamplesPerSec=822.200, MemAllocated=43.21GB",
      "[rank0]: iteration     1200/  100000 | consumed samples:      2457600 | elapsed time per iteration "
      "(ms): "
      "812.4 | learning rate: 2.999E-04 | global batch size:  2048 | lm loss: 2.412E+00 | loss scale: 1.0 | "
      "grad norm: 0.311 | number of skipped iterations:   0 | number of nan iterations:   0 |",
      "[rank2]: {'loss': 1.9344, 'grad_norm': 3.11, 'learning_rate': 2e-05, 'epoch': 0.42}",
      " 42%|████▏     | 1310/3120 [12:03<16:40,  1.81it/s]",
      "INFO 11-30 09:15:22 [loggers.py:116] Engine 000: Avg prompt throughput: 8123.4 tokens/s, Avg "
      "generation "
      "throughput: 412.0 tokens/s, Running: 64 reqs, Waiting: 0 reqs, GPU KV cache usage: 38.1%",
  };
  for (const auto& line : healthy) {
    CAPTURE(line);
    std::vector<faultline::rules::LiteralScreen::Hit> hits;
    REQUIRE(screen->screen->scan(line + "\n", hits));
    std::vector<std::string> found;
    for (const auto& hit : hits) found.push_back(screen->literals[hit.literal].text);
    CHECK(found == std::vector<std::string>{});
  }
}
