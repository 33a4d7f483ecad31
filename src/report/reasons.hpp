// The words of what a diagnosis' confidence rests on (correlate::ConfidenceReason): "only rank 3
// reported it", "rank 7 never reached collective SeqNum 4, …". Every renderer says a reason with
// these words, the reasons of one diagnosis joined by "; "; the JSON carries them beside the
// reason's fields.
#pragma once

#include <string>
#include <vector>

#include "correlate/confidence_reason.hpp"

namespace faultline::report {

std::string reason_text(const correlate::ConfidenceReason& reason);
// Every reason's words, joined by "; ".
std::string reasons_text(const std::vector<correlate::ConfidenceReason>& reasons);

}  // namespace faultline::report
