// Pack codec: the rules of one pack as bytes and back, so that the shipped packs are validated
// once, when faultline is built (faultline-packc loads them from YAML and encodes them), and
// the binary starts without parsing YAML (RuleSet::shipped decodes them).
//
// The bytes hold every field of every Rule as text: patterns, expressions and templates are
// stored as their source; decoding parses expressions and templates again (Expression::parse,
// Template::parse) and compiles patterns now or at their first use (decode_rules). The format:
//
//   "FLRP", format version (u32), rule count (u32), then each rule's fields in the order of
//   encode_rule in pack_codec.cpp.
//
// Integers are little-endian u32; a string is its length (u32) then its bytes; a list is its
// count (u32) then its items; an optional is a byte 0 or 1 then the item when 1; role and scope
// are one byte each. A change to the layout changes kFormatVersion.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "rules/rule.hpp"

namespace faultline::rules {

inline constexpr std::string_view kPackMagic = "FLRP";
inline constexpr uint32_t kPackFormatVersion = 4;

// The rules in order, ready for decode_rules. The rules are those load_pack returns: their
// patterns compiled, expressions and templates parsed.
std::string encode_rules(const std::vector<Rule>& rules);

// The rules encode_rules wrote. Checks every length against the bytes left, so truncated or
// corrupt bytes give an error ("byte 812: a string of 4096 bytes with 12 left"), never a crash.
// The rules copy what they keep; `bytes` may go once it returns. Thread-safe: packs may be
// decoded on threads of their own.
//
// kNow compiles every pattern anew and checks its captures against the stored ones (the build
// does, in faultline-packc); kOnFirstUse leaves each to compile when a rule first runs it
// (deferred_pattern), which is what a run wants of patterns the build has checked.
enum class PatternCompile { kNow, kOnFirstUse };
Result<std::vector<Rule>> decode_rules(std::string_view bytes, PatternCompile compile = PatternCompile::kNow);

}  // namespace faultline::rules
