#include "job/job_literals.hpp"

#include "assemble/assembler.hpp"
#include "parse/ansi.hpp"
#include "parse/process_lessons.hpp"

namespace faultline::job {

std::optional<screen::Declarations> job_literals(const rules::Engine& engine) {
  const screen::Declarations* rule_literals = engine.screen_literals();
  if (!rule_literals) return std::nullopt;
  screen::Declarations literals = *rule_literals;
  auto declare = [&](std::string_view text, screen::Stop stop) {
    literals.push_back({{std::string(text), false}, stop, {}});
  };
  for (std::string_view opener : assemble::kEventOpeners) declare(opener, screen::Stop::kRead);
  for (std::string_view source : parse::kPidRankSources) declare(source, screen::Stop::kLesson);
  for (std::string_view introducer : parse::kEscapeIntroducers)
    declare(introducer, screen::Stop::kWholeBlock);
  return literals;
}

}  // namespace faultline::job
