// Job facts, for correlate: what the job says it is (rules of role `fact`: arguments, model,
// layout), each name's first statement with its line, and the sizes the model catalogue gives for
// a model the job names; and the facts a diagnosis rests on. Pure: no I/O.
#pragma once

#include <vector>

#include "correlate/diagnosis.hpp"
#include "rules/finding.hpp"

namespace faultline::correlate {

// Each fact's first statement in input order, then what the catalogue holds of a model the job
// names (a diagnosis' own `model` fact, or a fact rule's).
std::vector<JobFact> collect_job_facts(const std::vector<rules::Finding>& findings);

// The facts a diagnosis rests on: its group's, then what the job's other reports of the same
// cause captured that it did not (a generic wording beside the framework's own line, a line
// rule beside an event rule), earliest first, then the job's facts.
Facts diagnosis_facts(const FindingGroup& chosen, const std::vector<FindingGroup>& candidates,
                      const std::vector<JobFact>& job_facts);

}  // namespace faultline::correlate
