// Status and Result (src/base/status): an ok Status has no message; an error keeps its message
// whole; a Result holds either its value or the Status that says why there is none.
#include "base/status.hpp"

#include <doctest/doctest.h>

#include <memory>
#include <string>
#include <vector>

using faultline::Result;
using faultline::Status;

TEST_CASE("status: ok has no message, and default-constructed is ok") {
  CHECK(Status().is_ok());
  CHECK(Status::ok().is_ok());
  CHECK(static_cast<bool>(Status::ok()));
  CHECK(Status::ok().message() == "");
}

TEST_CASE("status: an error keeps its message whole and is false") {
  const std::string message = "logs/rank3.log: gzip stream truncated at byte 1048576";
  Status status = Status::error(message);
  CHECK_FALSE(status.is_ok());
  CHECK_FALSE(static_cast<bool>(status));
  CHECK(status.message() == message);
  // An error is an error even with nothing to say: the message does not decide it.
  Status silent = Status::error("");
  CHECK_FALSE(silent.is_ok());
  CHECK(silent.message() == "");
}

TEST_CASE("status: copies and moves keep the message") {
  Status original = Status::error("x.yaml:3:1: end of sequence flow not found");
  Status copy = original;
  CHECK(copy.message() == original.message());
  Status moved = std::move(copy);
  CHECK_FALSE(moved.is_ok());
  CHECK(moved.message() == "x.yaml:3:1: end of sequence flow not found");
  Status assigned = Status::ok();
  assigned = moved;
  CHECK(assigned.message() == moved.message());
}

TEST_CASE("result: a value is ok and reachable through value, * and ->") {
  Result<std::string> result = std::string("rank3.log");
  REQUIRE(result.is_ok());
  CHECK(static_cast<bool>(result));
  CHECK(result.value() == "rank3.log");
  CHECK(*result == "rank3.log");
  CHECK(result->size() == 9);
  result->append(".gz");  // the value is the Result's own, not a copy
  CHECK(result.value() == "rank3.log.gz");
  const Result<std::string>& view = result;
  CHECK(*view == "rank3.log.gz");
  CHECK(view->ends_with(".gz"));
}

TEST_CASE("result: an error Status makes it not ok, with the Status's message") {
  Result<int> result = Status::error("--tp must be a positive integer, not 'six'");
  CHECK_FALSE(result.is_ok());
  CHECK_FALSE(static_cast<bool>(result));
  CHECK(result.status().message() == "--tp must be a positive integer, not 'six'");
}

TEST_CASE("result: holds move-only values, moved out whole") {
  Result<std::unique_ptr<std::vector<int>>> result = std::make_unique<std::vector<int>>(3, 7);
  REQUIRE(result);
  std::unique_ptr<std::vector<int>> taken = std::move(result.value());
  REQUIRE(taken);
  CHECK(*taken == std::vector<int>{7, 7, 7});
}
