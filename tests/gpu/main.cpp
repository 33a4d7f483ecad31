// Tests that need a CUDA GPU. Without one (cudaGetDeviceCount fails or finds none) they exit
// with 77, which CTest reports as skipped (SKIP_RETURN_CODE in tests/CMakeLists.txt).
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>

#include "repro/cuda_backend.hpp"

int main(int argc, char** argv) {
  std::string why_not;
  if (faultline::repro::cuda_device_count(why_not) == 0) {
    std::printf("skipped: %s\n", why_not.c_str());
    return 77;
  }
  doctest::Context context(argc, argv);
  return context.run();
}
