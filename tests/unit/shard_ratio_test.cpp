// The shape arithmetic of a checkpoint loaded with another layout (src/tp/shard_ratio): shapes
// made as a TP-sharded model makes them, and the TP sizes read back from them.
#include "tp/shard_ratio.hpp"

#include <doctest/doctest.h>

#include <vector>

namespace tp = faultline::tp;
using Shape = std::vector<int64_t>;

namespace {

// A column-parallel QKV weight's shard on one of `tp` ranks: [3 * hidden / tp, hidden].
Shape qkv_shard(int64_t hidden, int64_t tp) {
  return {3 * hidden / tp, hidden};
}

// One rank's rows of an embedding Megatron pads to a multiple of 128 × TP.
int64_t padded_rows(int64_t vocab, int64_t tp) {
  int64_t unit = 128 * tp;
  return (vocab + unit - 1) / unit * unit / tp;
}

}  // namespace

TEST_CASE("a checkpoint sharded for a larger TP is a smaller shard, and its TP is read back") {
  for (int64_t saved : {2, 4, 8}) {
    for (int64_t loaded : {1, 2}) {
      if (saved <= loaded) continue;
      CAPTURE(saved);
      CAPTURE(loaded);
      auto ratio = tp::shard_ratio(qkv_shard(4096, saved), qkv_shard(4096, loaded));
      REQUIRE(ratio);
      CHECK(ratio->dimension == 0);
      CHECK(ratio->saved_smaller);
      CHECK_FALSE(ratio->padded);
      CHECK(ratio->factor == saved / loaded);
      CHECK(tp::saved_tp(*ratio, loaded) == saved);
    }
  }
}

TEST_CASE(
    "a checkpoint sharded for a smaller TP is a larger shard; a factor that does not divide the TP is no TP "
    "shard") {
  auto ratio = tp::shard_ratio(qkv_shard(8192, 4), qkv_shard(8192, 8));
  REQUIRE(ratio);
  CHECK_FALSE(ratio->saved_smaller);
  CHECK(ratio->factor == 2);
  CHECK(tp::saved_tp(*ratio, 8) == 4);
  CHECK_FALSE(tp::saved_tp(*ratio, 3));
  CHECK_FALSE(tp::saved_tp(*ratio, 0));
}

TEST_CASE("a row-parallel weight differs in its second dimension") {
  Shape saved = {2560, 10240 / 4};
  Shape current = {2560, 10240 / 2};
  auto ratio = tp::shard_ratio(saved, current);
  REQUIRE(ratio);
  CHECK(ratio->dimension == 1);
  CHECK(tp::saved_tp(*ratio, 2) == 4);
}

TEST_CASE("a vocabulary padded for another TP is off from the factor by its padding only") {
  for (int64_t vocab : {50257, 32000, 151851}) {
    CAPTURE(vocab);
    Shape saved = {padded_rows(vocab, 2), 6144};
    Shape current = {padded_rows(vocab, 1), 6144};
    auto ratio = tp::shard_ratio(saved, current);
    REQUIRE(ratio);
    CHECK(ratio->factor == 2);
    CHECK(ratio->saved_smaller);
    CHECK(ratio->padded == (saved[0] * 2 != current[0]));
    CHECK(tp::saved_tp(*ratio, 1) == 2);
  }
}

TEST_CASE("shapes that are not shards of one tensor give no ratio") {
  CHECK_FALSE(tp::shard_ratio(Shape{32000, 4096}, Shape{32001, 4096}));  // one added token
  CHECK_FALSE(tp::shard_ratio(Shape{4096, 68}, Shape{4096, 72}));        // another variant
  CHECK_FALSE(tp::shard_ratio(Shape{2048, 2048}, Shape{4096, 4096}));    // two dimensions differ
  CHECK_FALSE(tp::shard_ratio(Shape{4096}, Shape{4096}));                // equal
  CHECK_FALSE(tp::shard_ratio(Shape{4096, 4096}, Shape{4096}));          // another rank
  CHECK_FALSE(tp::shard_ratio(Shape{1000}, Shape{10}, 16));              // past the factor limit
  CHECK_FALSE(tp::shard_ratio(Shape{}, Shape{}));
  CHECK_FALSE(tp::shard_ratio(Shape{0, 8}, Shape{0, 16}));
}
