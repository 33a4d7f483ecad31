// Fingerprints: a stable id for "the same failure" across reruns, rank renumbering and
// hosts. Made of the cause and the message with numbers, addresses and quoted paths masked.
#pragma once

#include <string>
#include <string_view>

namespace faultline::correlate {

// The message with volatile parts masked: "rank 3 at 0x7f3a" ─▶ "rank # at #".
std::string mask_volatile(std::string_view message);
// 16 hex digits.
std::string fingerprint(std::string_view cause, std::string_view message);

}  // namespace faultline::correlate
