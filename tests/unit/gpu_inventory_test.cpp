// The GPU inventory preflight reads (src/preflight/gpu_inventory): nvidia-smi's CSV with its
// header, the line an unreadable row is on, and which GPUs differ in model or memory.
#include "preflight/gpu_inventory.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

using faultline::preflight::Gpu;
using faultline::preflight::heterogeneity;
using faultline::preflight::parse_gpu_csv;

namespace {

const char* kHeader = "index, name, memory.total [MiB]\n";

}  // namespace

TEST_CASE("gpu inventory: nvidia-smi's CSV, header and blank lines passed over, fields trimmed") {
  std::string csv = std::string(kHeader) +
                    "0, NVIDIA A100-SXM4-80GB, 81920 MiB\n"
                    "\n"
                    "1,NVIDIA A100-SXM4-80GB ,  81920 MiB\r\n";
  auto gpus = parse_gpu_csv(csv, "gpus.csv");
  REQUIRE_MESSAGE(gpus, gpus.status().message());
  REQUIRE(gpus->size() == 2);
  CHECK((*gpus)[0].index == "0");
  CHECK((*gpus)[0].name == "NVIDIA A100-SXM4-80GB");
  CHECK((*gpus)[0].memory == "81920 MiB");
  CHECK((*gpus)[1].index == "1");
  CHECK((*gpus)[1].name == "NVIDIA A100-SXM4-80GB");
  CHECK((*gpus)[1].memory == "81920 MiB");
  CHECK(heterogeneity(*gpus) == "");
}

TEST_CASE("gpu inventory: a row with fewer than three fields is refused at its line") {
  auto gpus = parse_gpu_csv(std::string(kHeader) + "0, NVIDIA H100 80GB HBM3, 81559 MiB\n1, NVIDIA H100\n",
                            "gpus.csv");
  REQUIRE_FALSE(gpus);
  CHECK(gpus.status().message() ==
        "gpus.csv:3: expected 'index, name, memory.total' (nvidia-smi --query-gpu=index,name,memory.total "
        "--format=csv)");
}

TEST_CASE("gpu inventory: a file with no GPU rows is an error naming it") {
  auto header_only = parse_gpu_csv(kHeader, "empty.csv");
  REQUIRE_FALSE(header_only);
  CHECK(header_only.status().message() == "empty.csv: no GPUs listed");
  auto empty = parse_gpu_csv("", "nvidia-smi");
  REQUIRE_FALSE(empty);
  CHECK(empty.status().message() == "nvidia-smi: no GPUs listed");
}

TEST_CASE("gpu inventory: GPUs of two models or two memory sizes are listed by kind") {
  std::vector<Gpu> gpus = {{"0", "NVIDIA A100-SXM4-80GB", "81920 MiB"},
                           {"1", "NVIDIA A100-SXM4-40GB", "40960 MiB"},
                           {"2", "NVIDIA A100-SXM4-80GB", "81920 MiB"},
                           {"3", "NVIDIA A100-SXM4-80GB", "81920 MiB"}};
  CHECK(heterogeneity(gpus) ==
        "NVIDIA A100-SXM4-40GB (40960 MiB): GPU 1; NVIDIA A100-SXM4-80GB (81920 MiB): GPU 0,2,3");
  // The same model with less memory free or fitted is another kind.
  std::vector<Gpu> memory = {{"0", "Tesla V100-SXM2", "16160 MiB"}, {"1", "Tesla V100-SXM2", "32510 MiB"}};
  CHECK(heterogeneity(memory) == "Tesla V100-SXM2 (16160 MiB): GPU 0; Tesla V100-SXM2 (32510 MiB): GPU 1");
  CHECK(heterogeneity({}) == "");
}
