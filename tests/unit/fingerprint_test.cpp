// Fingerprints (src/correlate/fingerprint.hpp): the same failure gets the same id across
// ranks, pids, addresses and paths.
#include "correlate/fingerprint.hpp"

#include <doctest/doctest.h>

using faultline::correlate::fingerprint;
using faultline::correlate::mask_volatile;

TEST_CASE("numbers and hex addresses are masked") {
  CHECK(mask_volatile("rank 3 at 0x7f3a") == "rank # at #");
  CHECK(mask_volatile("pid=4823 seq 1580") == "pid=# seq #");
}

TEST_CASE("absolute paths are masked up to a space or quote") {
  CHECK(mask_volatile("File \"/home/a/train.py\", line 3") == "File \"<path>\", line #");
  CHECK(mask_volatile("open /tmp/x.bin failed") == "open <path> failed");
}

TEST_CASE("only the first line of a message counts") {
  CHECK(mask_volatile("ValueError: x\nmore detail") == "ValueError: x");
}

TEST_CASE("a fingerprint is 16 hex digits") {
  auto print = fingerprint("cuda.oom", "CUDA out of memory");
  CHECK(print.size() == 16);
  CHECK(print.find_first_not_of("0123456789abcdef") == std::string::npos);
}

TEST_CASE("the same failure on different ranks has the same fingerprint") {
  CHECK(fingerprint("nccl.watchdog_timeout",
                    "[Rank 3] Watchdog caught collective operation timeout: SeqNum=1580") ==
        fingerprint("nccl.watchdog_timeout",
                    "[Rank 5] Watchdog caught collective operation timeout: SeqNum=1580"));
}

TEST_CASE("pids, hex addresses and paths do not change the fingerprint") {
  CHECK(fingerprint("cuda.illegal_memory_access", "pid 4823: illegal address 0x7f3a00 in /opt/a/lib.so") ==
        fingerprint("cuda.illegal_memory_access", "pid 99: illegal address 0xdeadbeef in /usr/lib/other.so"));
}

TEST_CASE("different causes give different fingerprints") {
  CHECK(fingerprint("cuda.oom", "CUDA out of memory") != fingerprint("cuda.no_device", "CUDA out of memory"));
}

TEST_CASE("different messages give different fingerprints") {
  CHECK(fingerprint("cuda.oom", "CUDA out of memory") !=
        fingerprint("cuda.oom", "CUDA error: out of memory"));
}

TEST_CASE("a fingerprint is the FNV-1a of cause, newline and masked message") {
  // Computed independently: FNV-1a 64 of "cuda.oom\nCUDA out of memory".
  CHECK(fingerprint("cuda.oom", "CUDA out of memory") == "15e977b6c3e8478e");
  CHECK(fingerprint("", "") == "af63c74c8601c8dd");
}
