// The literals that the stages of a job declare for the literal screen (src/screen), wired into
// one list: the rules' words (rules/rule_literals.hpp; owners: rule indices into Engine::rules()),
// the assembler's event openers (screen::Stop::kRead), the lines the parser teaches the process
// table from (kLesson) and the escape introducers that the parser removes from the middle of
// lines (kWholeBlock: a block holding one is read in full). Only the rules' literals have owners.
#pragma once

#include <memory>
#include <optional>
#include <string_view>

#include "rules/engine.hpp"
#include "screen/screens.hpp"

namespace faultline::job {

// nullopt when some rule pattern has no literal to stand for it (then every line is read).
std::optional<screen::Declarations> job_literals(const rules::Engine& engine);

// The screen of job_literals for the shipped rules, prebuilt when faultline was built
// (faultline-screenc, src/job/screenc.cpp); empty without Hyperscan.
std::string_view shipped_screen();

}  // namespace faultline::job
