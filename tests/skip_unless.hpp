// A doctest decorator for a test that needs something a machine may lack (a tool, a package,
// ../shared/corpus-real): `TEST_CASE("..." * skip_unless(present, "why"))`. Without it the test
// is skipped, and counted so in doctest's summary, and the reason is written to stderr when the
// test registers, so a skip always says why.
#pragma once

#include <doctest/doctest.h>

#include <cstdio>

namespace faultline::testing {

inline doctest::skip skip_unless(bool present, const char* why) {
  if (!present) std::fprintf(stderr, "skipped: %s\n", why);
  return doctest::skip(!present);
}

}  // namespace faultline::testing
