// Rule: one failure signature, loaded from a YAML pack (docs/rule-format.md) or decoded from a
// compiled one (rules/pack_codec.hpp). Immutable after loading and shared by every thread that
// matches.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.hpp"
#include "rules/expression.hpp"
#include "rules/template.hpp"

namespace re2 {
class RE2;
}

namespace faultline::rules {

// kRecovery: a sign that the job went on after an error (a retry, a skip, a completed run); such
// findings are never reported, they set aside the errors no rule knows that they follow.
// kFact: a line where the job states what it is (its arguments, its model, its layout); its
// captures are the job's facts, which the diagnosis and its remedy draw on.
enum class Role { kRootCause, kSymptom, kRecovery, kFact };
enum class Scope { kMessage, kEvent, kLine };

const char* to_string(Role role);
const char* to_string(Scope scope);

// A rule's regular expression. Copies share its compiled form; regex() is thread-safe.
struct Pattern {
  std::string text;
  std::vector<std::pair<std::string, int>> captures;  // fact name, group index

  // Compiled with the options of every rule pattern; compiled at the first call when the pattern
  // was made by deferred_pattern.
  const re2::RE2& regex() const;
  // Whether the pattern treats every digit alike (template_match.hpp), and a number no other
  // pattern of the run has: with it, its matches are cached by template.
  bool digit_uniform() const;
  uint64_t serial() const;

  struct Compiled;
  std::shared_ptr<Compiled> compiled;
};

// Compiles `text` now, with its named groups as captures in group order. The error is RE2's own.
Result<Pattern> compile_pattern(std::string text);
// A pattern the build has compiled and checked already (a compiled pack's): compiled at its first
// use, so that a run compiles only the patterns its text reaches.
Pattern deferred_pattern(std::string text, std::vector<std::pair<std::string, int>> captures);

struct MatchExample {
  std::string text;
  std::vector<std::pair<std::string, std::string>> facts;  // expected, as displayed
};

struct Rule {
  std::string id;
  std::string cause;
  std::string title;
  std::string category;
  Role role = Role::kRootCause;
  // `reports: peer`, of a symptom: the rank that prints it is alive and reports that a peer
  // failed (a collective timed out, the remote process exited). It is a witness, never by
  // itself the rank that started the failure.
  bool reports_peer = false;
  // `logged: error`: only a record its logger printed at error level or above (message scope),
  // whatever its words; for errors no rule knows, which such a record states.
  bool logged_error = false;
  std::string severity = "error";
  Scope scope = Scope::kMessage;
  std::vector<Pattern> match;
  std::vector<Pattern> unless;
  // `scope: message` only: the traceback frames that must name what failed, nearest the exception
  // first (see docs/rule-format.md, "Frames"); frames matching a skip_frames pattern are passed by.
  std::vector<Pattern> frames;
  std::vector<Pattern> skip_frames;
  // Among the rules that match one event, only those of the highest priority keep their findings.
  int priority = 0;
  std::optional<Expression> when;
  std::vector<std::pair<std::string, Expression>> derive;
  std::optional<Template> explain;
  std::vector<Template> symptoms;
  std::vector<Template> confirm;
  std::vector<Template> fix;
  std::optional<Template> verify;
  std::optional<Template> narrative;  // what the ranks did, for the collateral story
  std::vector<std::string> refs;
  std::vector<MatchExample> match_examples;
  std::vector<std::string> no_match_examples;
  std::string origin;  // "rules/tensor_parallel.yaml:12"
};

// The cause ids of causes.md, with what each means.
struct Cause {
  std::string_view id;
  std::string_view meaning;
};
const std::vector<Cause>& known_causes();
const Cause* find_cause(std::string_view id);
bool is_known_cause(std::string_view cause);

}  // namespace faultline::rules
