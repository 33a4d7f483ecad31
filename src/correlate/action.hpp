// The remedy a scheduler or a person can apply: what kind of action the diagnosis calls for,
// whether a plain restart would succeed, and for tensor- and pipeline-parallel causes the
// layouts the model accepts, computed from every fact the job gives (its error lines, its
// printed arguments and config, the model catalogue), with a layout that keeps its GPU count.
// Pure: takes the diagnosis' facts and the job's, gives data; report renders it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/value.hpp"
#include "rules/finding.hpp"
#include "tp/layout.hpp"

namespace faultline::correlate {

// A fact the job states about itself, with where it said so.
struct JobFact {
  std::string name;
  Value value;
  rules::Evidence where;  // the line; source 0 and line 0 with `catalogue` set for catalogue facts
  std::string catalogue;  // the catalogue model id the fact came from, when it did
};

enum class ActionKind { kFixConfig, kRestart, kReplaceHardware, kFixEnvironment, kInvestigate };
const char* to_string(ActionKind kind);

struct Action {
  ActionKind kind = ActionKind::kInvestigate;
  bool retryable = false;
  std::vector<int64_t> valid_tp;  // empty when not computed
  std::vector<int64_t> valid_pp;
  std::optional<tp::Suggestion> suggest;
  std::optional<int64_t> gpus;                            // the job's GPU count the suggestion keeps
  std::vector<std::pair<std::string, int64_t>> settings;  // the framework's own option names
  std::vector<std::string> exclude_hosts;
  std::vector<std::string> used;     // the facts the valid TP sizes rest on: "heads", "kv_heads" ...
  std::vector<std::string> unknown;  // facts that would narrow the valid sizes, not known
  bool strict_kv_heads = false;      // the framework does not replicate KV heads (Megatron ...)
};

// `facts`: the diagnosis' facts with the job's merged in (diagnosis' first). `rule_id` tells the
// framework where it matters (Megatron/NeMo/DeepSpeed do not replicate KV heads; TGI does not pad
// the vocabulary). `hosts`: those of the initiating failure, for hardware faults.
Action plan_action(const std::string& cause, const std::string& rule_id, const Facts& facts,
                   const std::vector<std::string>& hosts);

// `faultline preflight` with every size known and the layout given: a command that fails on the
// layout that crashed and passes on the suggested one. Empty when too little is known.
std::string verify_command(const Facts& facts, int64_t tp, int64_t pp);

}  // namespace faultline::correlate
