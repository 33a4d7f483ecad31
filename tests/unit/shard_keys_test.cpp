// ShardKeys (src/scan/shard.hpp): jobs given as several roots are keyed under the roots'
// common parent, so a glob of run folders spreads over the shards like their parent folder.
#include <doctest/doctest.h>

#include <set>
#include <string>
#include <vector>

#include "../e2e/scratch.hpp"
#include "scan/shard.hpp"

using faultline::scan::ShardKeys;

TEST_CASE("shards over a glob: each root's job is keyed by its path under the roots' common parent") {
  faultline::testing::Scratch scratch;
  std::vector<std::string> runs;
  for (int i = 0; i < 3; ++i)
    runs.push_back(scratch.write("logs/run-" + std::to_string(i) + "/rank0.log", "x\n"));
  std::string logs = scratch.path("logs");
  ShardKeys glob({logs + "/run-0", logs + "/run-1", logs + "/run-2"});
  CHECK(glob.key(logs + "/run-0") == "run-0");
  CHECK(glob.key(logs + "/run-2") == "run-2");
  ShardKeys parent({logs});
  CHECK(parent.key(logs + "/run-1") == "run-1");  // the same key as from the glob
  CHECK(parent.key(logs) == ".");
  ShardKeys trailing({logs + "/"});
  CHECK(trailing.key(logs + "/run-1") == "run-1");
  ShardKeys file({runs[0]});
  CHECK(file.key(runs[0]) == "rank0.log");
}

TEST_CASE("shards over a glob: many run folders spread over every shard") {
  faultline::testing::Scratch scratch;
  std::vector<std::string> roots;
  for (int i = 0; i < 64; ++i) {
    scratch.write("logs/run-" + std::to_string(i) + "/rank0.log", "x\n");
    roots.push_back(scratch.path("logs/run-" + std::to_string(i)));
  }
  ShardKeys keys(roots);
  std::set<uint32_t> used;
  for (const auto& root : roots) {
    for (uint32_t index = 0; index < 4; ++index) {
      if ((faultline::scan::Shard{index, 4}).holds(keys.key(root))) used.insert(index);
    }
  }
  CHECK(used.size() == 4);
}
