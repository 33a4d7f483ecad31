#include "ingest/envelope_time.hpp"

namespace faultline::ingest {

Timestamp parse_rfc3339(std::string_view text) {
  return take_iso8601(text).value_or(Timestamp{});
}

}  // namespace faultline::ingest
