// Value: what a fact holds. Facts are captured from log text (integers or strings) or
// computed by rule expressions (integers, lists of integers, lists of strings).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace faultline {

using IntList = std::vector<int64_t>;
using StringList = std::vector<std::string>;
using Value = std::variant<int64_t, std::string, IntList, StringList>;

// "32", "text", "1, 2, 4, 8".
std::string to_display(const Value& value);
// A captured string becomes an integer when it is all digits, with an optional leading '-'.
Value value_from_capture(std::string_view text);

// Facts keep the order in which they were captured.
using Facts = std::vector<std::pair<std::string, Value>>;
const Value* find_fact(const Facts& facts, std::string_view name);
// The fact as text (to_display), empty when there is none.
std::string fact_text(const Facts& facts, std::string_view name);
// The fact when it is an integer; nothing when it is missing or not one.
std::optional<int64_t> int_fact(const Facts& facts, std::string_view name);
void set_fact(Facts& facts, std::string name, Value value);

}  // namespace faultline
