// Correlate: the Findings of one job ─▶ JobAnalysis. Folds identical errors across ranks,
// then names the initiating failure: root causes beat symptoms; among them errors beat
// warnings; then the earliest, by timestamp when every candidate has one, otherwise by input
// order. Pure: no I/O.
#pragma once

#include <string>
#include <vector>

#include "correlate/diagnosis.hpp"

namespace faultline::correlate {

JobAnalysis correlate(std::string job, JobShape shape, std::vector<rules::Finding> findings);

}  // namespace faultline::correlate
