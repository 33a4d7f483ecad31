// "Did you mean": the nearest spelling of a misspelt command, option or value, as ninja's
// spellcheck gives it. Used by option parsing (options.cpp); pure functions of their arguments.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace faultline::cli {

// Edit distance with adjacent transpositions counted once (`fromat` is 1 from `format`).
size_t edit_distance(std::string_view a, std::string_view b);
// The candidate nearest to `word`, when it is near enough to be a misspelling; else empty.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);
// "; did you mean '--format'?" for the nearest candidate (with `prefix` before it), or empty.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::string_view prefix = "");

}  // namespace faultline::cli
