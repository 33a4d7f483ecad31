#include "repro/host_memory.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>

namespace faultline::repro {

uint64_t available_memory_bytes() {
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit) {
    if (key == "MemAvailable:") return kib * 1024;
  }
  long pages = sysconf(_SC_AVPHYS_PAGES);
  long page_size = sysconf(_SC_PAGESIZE);
  if (pages > 0 && page_size > 0) return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page_size);
  return 0;
}

std::string format_bytes(uint64_t bytes) {
  char buffer[32];
  double value = static_cast<double>(bytes);
  if (bytes >= (uint64_t{1} << 30))
    std::snprintf(buffer, sizeof buffer, "%.1f GiB", value / (1 << 30));
  else
    std::snprintf(buffer, sizeof buffer, "%.1f MiB", value / (1 << 20));
  return buffer;
}

}  // namespace faultline::repro
