// A scratch folder for one test (end-to-end or unit), removed when the test ends.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace faultline::testing {

class Scratch {
 public:
  Scratch()
      : path_(std::filesystem::temp_directory_path() /
              ("faultline-e2e-" + std::to_string(counter_++) + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~Scratch() { std::filesystem::remove_all(path_); }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  // Writes `content` to `name` (folders made as needed); returns its path.
  std::string write(const std::string& name, const std::string& content) const {
    auto file = path_ / name;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file, std::ios::binary) << content;
    return file.string();
  }
  // The folder itself, or `name` inside it.
  std::string path(const std::string& name = "") const {
    return name.empty() ? path_.string() : (path_ / name).string();
  }

 private:
  static inline int counter_ = 0;
  std::filesystem::path path_;
};

}  // namespace faultline::testing
