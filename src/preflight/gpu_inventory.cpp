#include "preflight/gpu_inventory.hpp"

#include <cstdio>
#include <map>

#include "base/text.hpp"

namespace faultline::preflight {
namespace {

std::vector<std::string_view> split_csv(std::string_view line) {
  std::vector<std::string_view> fields;
  while (true) {
    size_t comma = line.find(',');
    fields.push_back(trim(line.substr(0, comma)));
    if (comma == std::string_view::npos) break;
    line.remove_prefix(comma + 1);
  }
  return fields;
}

}  // namespace

Result<std::vector<Gpu>> parse_gpu_csv(std::string_view csv, const std::string& name) {
  std::vector<Gpu> gpus;
  size_t line_number = 0;
  while (!csv.empty()) {
    size_t newline = csv.find('\n');
    std::string_view line = trim(csv.substr(0, newline));
    csv = newline == std::string_view::npos ? std::string_view() : csv.substr(newline + 1);
    ++line_number;
    if (line.empty() || line.starts_with("index")) continue;  // the CSV header
    auto fields = split_csv(line);
    if (fields.size() < 3) {
      return Status::error(name + ":" + std::to_string(line_number) +
                           ": expected 'index, name, memory.total' (nvidia-smi "
                           "--query-gpu=index,name,memory.total --format=csv)");
    }
    gpus.push_back({std::string(fields[0]), std::string(fields[1]), std::string(fields[2])});
  }
  if (gpus.empty()) return Status::error(name + ": no GPUs listed");
  return gpus;
}

Result<std::vector<Gpu>> read_gpu_inventory(const std::string& path) {
  auto file = read_small_file(path);
  if (!file.ok) return Status::error(file.text);
  return parse_gpu_csv(file.text, path);
}

Result<std::vector<Gpu>> query_gpu_inventory() {
  FILE* pipe = ::popen("nvidia-smi --query-gpu=index,name,memory.total --format=csv 2>/dev/null", "r");
  if (!pipe) return Status::error("nvidia-smi: cannot run");
  std::string output;
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = ::pclose(pipe);
  if (status != 0 || output.empty()) {
    return Status::error("nvidia-smi: not available or failed (use --gpus N or --gpus FILE)");
  }
  return parse_gpu_csv(output, "nvidia-smi");
}

std::string heterogeneity(const std::vector<Gpu>& gpus) {
  std::map<std::string, std::vector<std::string>> by_kind;
  for (const auto& gpu : gpus) by_kind[gpu.name + " (" + gpu.memory + ")"].push_back(gpu.index);
  if (by_kind.size() <= 1) return {};
  std::string out;
  for (const auto& [kind, indices] : by_kind) {
    if (!out.empty()) out += "; ";
    out += kind + ": GPU " + join(std::vector<std::string>(indices.begin(), indices.end()), ",");
  }
  return out;
}

}  // namespace faultline::preflight
