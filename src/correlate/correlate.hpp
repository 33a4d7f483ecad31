// Correlate: the Findings of one job ─▶ JobAnalysis. Folds identical errors across ranks,
// then names the initiating failure: root causes beat symptoms; among them errors beat
// warnings; then the earliest, by timestamp when every candidate has one, otherwise by input
// order. Pure: no I/O.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "correlate/diagnosis.hpp"

namespace faultline::correlate {

// `baseline` holds the fingerprints of a healthy run of the same job (--baseline): findings
// with those are listed, marked in_baseline, and never become the diagnosis.
JobAnalysis correlate(std::string job, JobShape shape, std::vector<rules::Finding> findings,
                      const std::set<std::string>& baseline = {});

}  // namespace faultline::correlate
