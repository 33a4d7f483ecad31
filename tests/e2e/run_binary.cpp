#include "run_binary.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace faultline::testing {
namespace {

std::string read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

}  // namespace

std::string source_dir() {
  return FAULTLINE_SOURCE_DIR;
}
std::string binary_dir() {
  return FAULTLINE_BINARY_DIR;
}
bool have_schema_validators() {
  return std::filesystem::exists(std::filesystem::path(source_dir()) / "tests" / "schema" / "node_modules");
}

RunResult run_faultline(const std::vector<std::string>& arguments, const std::string& stdin_text) {
  return run_faultline_in("", arguments, stdin_text);
}

RunResult run_faultline_in(const std::string& directory, const std::vector<std::string>& arguments,
                           const std::string& stdin_text) {
  namespace fs = std::filesystem;
  fs::path scratch = fs::temp_directory_path() / ("faultline-e2e-" + std::to_string(::getpid()));
  fs::create_directories(scratch);
  std::string in_path = (scratch / "stdin").string();
  std::string out_path = (scratch / "stdout").string();
  std::string err_path = (scratch / "stderr").string();
  std::ofstream(in_path, std::ios::binary) << stdin_text;

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, in_path.c_str(), O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (!directory.empty()) posix_spawn_file_actions_addchdir_np(&actions, directory.c_str());
  std::vector<std::string> argv_storage = {FAULTLINE_BINARY};
  argv_storage.insert(argv_storage.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& argument : argv_storage) argv.push_back(argument.data());
  argv.push_back(nullptr);

  RunResult result;
  pid_t pid = 0;
  if (posix_spawn(&pid, FAULTLINE_BINARY, &actions, nullptr, argv.data(), environ) == 0) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  }
  posix_spawn_file_actions_destroy(&actions);
  result.out = read_file(out_path);
  result.err = read_file(err_path);
  fs::remove_all(scratch);
  return result;
}

std::string corpus_log(const std::string& name) {
  return (std::filesystem::path(source_dir()) / "corpus" / name / "log.txt").string();
}

std::pair<int, std::string> shell(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) return {-1, output};
  char buffer[4096];
  while (size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) output.append(buffer, n);
  int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace faultline::testing
