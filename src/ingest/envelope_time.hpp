// Timestamps as log envelopes write them: RFC 3339 text (docker json-file, CRI, JSON lines)
// and counts since the Unix epoch (journald's microseconds, torchelastic's seconds). Every
// timestamp that carries a zone is turned into UTC (keeping its zone), so lines from different
// envelopes compare.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/timestamp.hpp"

namespace faultline::ingest {

// "2020-12-07T15:32:38.994574754Z", "2020-01-26T03:17:29.346494690+00:00", "-05:00" zones,
// a space for the T, Python's "2021-01-22 09:22:46,028" comma and no zone at all (taken as
// UTC). Anything after the timestamp is ignored. An invalid Timestamp when it is not one.
// It is base's take_iso8601, which keeps the zone; counts since the epoch are base's
// from_unix_time.
Timestamp parse_rfc3339(std::string_view text);

}  // namespace faultline::ingest
