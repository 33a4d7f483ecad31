#include "correlate/job_facts.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "tp/model_catalogue.hpp"

namespace faultline::correlate {
namespace {

using rules::Finding;
using rules::Role;

bool has_job_fact(const std::vector<JobFact>& facts, std::string_view name) {
  return std::any_of(facts.begin(), facts.end(), [name](const JobFact& fact) { return fact.name == name; });
}

// The names of the sizes the catalogue gives, as facts.
void add_catalogue_facts(const tp::CatalogueModel& model, std::vector<JobFact>& out) {
  const tp::Geometry& g = model.geometry;
  for (auto [name, size] :
       {std::pair{"heads", g.heads}, std::pair{"kv_heads", g.kv_heads}, std::pair{"hidden", g.hidden},
        std::pair{"ffn", g.ffn}, std::pair{"moe_ffn", g.moe_ffn}, std::pair{"experts", g.experts},
        std::pair{"vocab", g.vocab}, std::pair{"layers", g.layers}}) {
    if (!size) continue;
    if (!has_job_fact(out, name)) out.push_back({name, Value(*size), {}, model.id});
  }
}

}  // namespace

std::vector<JobFact> collect_job_facts(const std::vector<Finding>& findings) {
  std::vector<const Finding*> stated;
  for (const auto& finding : findings) {
    if (finding.rule->role == Role::kFact) stated.push_back(&finding);
  }
  std::stable_sort(stated.begin(), stated.end(),
                   [](const Finding* a, const Finding* b) { return a->sequence < b->sequence; });
  std::vector<JobFact> out;
  // A GPU table's rows (nvidia-smi) each state one GPU's index: the GPUs of a node are the
  // highest index plus one, stated where that row is.
  std::optional<JobFact> node_gpus;
  for (const Finding* finding : stated) {
    rules::Evidence where = finding->evidence.empty() ? rules::Evidence{} : finding->evidence.front();
    for (const auto& [name, value] : finding->facts) {
      if (name == "gpu_index") {
        auto index = std::get_if<int64_t>(&value);
        if (index && *index >= 0 && (!node_gpus || std::get<int64_t>(node_gpus->value) <= *index))
          node_gpus = JobFact{"node_gpus", Value(*index + 1), where, ""};
        continue;
      }
      if (has_job_fact(out, name)) continue;
      out.push_back({name, value, where, ""});
    }
  }
  if (node_gpus && !has_job_fact(out, "node_gpus")) out.push_back(std::move(*node_gpus));
  std::vector<std::string> models;
  for (const auto& fact : out) {
    if (fact.name == "model" && std::holds_alternative<std::string>(fact.value))
      models.push_back(std::get<std::string>(fact.value));
  }
  for (const auto& finding : findings) {
    const Value* model = find_fact(finding.facts, "model");
    if (model && std::holds_alternative<std::string>(*model)) models.push_back(std::get<std::string>(*model));
  }
  for (const auto& name : models) {
    if (const tp::CatalogueModel* model = tp::find_model(name)) {
      add_catalogue_facts(*model, out);
      break;
    }
  }
  return out;
}

Facts diagnosis_facts(const FindingGroup& chosen, const std::vector<FindingGroup>& candidates,
                      const std::vector<JobFact>& job_facts) {
  Facts facts = chosen.facts;
  // Each group of an error no rule knows is another error: its class and message say nothing
  // of this one (where it was raised, the exit code, still may).
  bool unknown_error = chosen.rule->cause == "unrecognised";
  for (const auto& group : candidates) {
    if (&group == &chosen || group.rule->cause != chosen.rule->cause) continue;
    for (const auto& [name, value] : group.facts) {
      if (unknown_error && (name == "exception" || name == "message")) continue;
      if (!find_fact(facts, name)) set_fact(facts, name, value);
    }
  }
  for (const auto& fact : job_facts) {
    if (!find_fact(facts, fact.name)) set_fact(facts, fact.name, fact.value);
  }
  return facts;
}

}  // namespace faultline::correlate
