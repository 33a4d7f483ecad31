// Fingerprints: a stable id for "the same failure" across reruns, rank renumbering and
// hosts. Made of the cause and the message with numbers, addresses and quoted paths masked.
#pragma once

#include <string>
#include <string_view>

namespace faultline::correlate {

// The message with volatile parts masked: "rank 3 at 0x7f3a" ─▶ "rank # at #".
std::string mask_volatile(std::string_view message);
// 16 hex digits.
std::string fingerprint(std::string_view cause, std::string_view message);

// What an error no rule knows looks like whatever its data: the exception type, the message with
// its volatile tokens masked (numbers, hex, quoted strings, paths, host names), and where it was
// raised (the frame's file name and function; line numbers move). Five KeyErrors on different
// keys in one collate function share a template:
//   "KeyError: <str> @ collate.py in collate"
// From the facts of the `unrecognised` rules (exception, message, frame_file, frame_function).
std::string failure_template(std::string_view exception, std::string_view message,
                             std::string_view frame_file, std::string_view frame_function);
// mask_volatile, and quoted strings, long hex runs and dotted host names as well.
std::string mask_template(std::string_view message);

}  // namespace faultline::correlate
