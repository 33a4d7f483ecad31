// How much memory this machine has to give, so that a --full-size job is refused with a clear
// message rather than killed by the kernel halfway through making its weights.
#pragma once

#include <cstdint>
#include <string>

namespace faultline::repro {

// MemAvailable from /proc/meminfo, else available physical pages × page size; 0 when unknown.
uint64_t available_memory_bytes();

// "1.5 GiB", "12.0 MiB".
std::string format_bytes(uint64_t bytes);

}  // namespace faultline::repro
