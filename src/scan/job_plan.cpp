#include "scan/job_plan.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <system_error>

#include "base/text.hpp"

namespace faultline::scan {
namespace fs = std::filesystem;

namespace {

bool ends_with(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::string lowercase(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

bool is_attempt_folder(std::string_view name) {
  constexpr std::string_view kPrefix = "attempt_";
  if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix) return false;
  return std::all_of(name.begin() + kPrefix.size(), name.end(), is_digit);
}

// "slurm-1234.out", "slurm-1234-3.out" -> "slurm-1234"; "slurm-1234_7.out" -> "slurm-1234_7".
std::string slurm_job_of(std::string_view file_name) {
  constexpr std::string_view kPrefix = "slurm-";
  if (file_name.substr(0, kPrefix.size()) != kPrefix) return {};
  std::string_view rest = file_name.substr(kPrefix.size());
  size_t end = 0;
  while (end < rest.size() && is_digit(rest[end])) ++end;
  if (end == 0) return {};
  if (end + 1 < rest.size() && rest[end] == '_' && is_digit(rest[end + 1])) {
    ++end;
    while (end < rest.size() && is_digit(rest[end])) ++end;
  }
  if (end < rest.size() && rest[end] != '.' && rest[end] != '-') return {};
  return std::string(kPrefix) + std::string(rest.substr(0, end));
}

// The folder above the last attempt_N component ("run/attempt_0/3" -> "run"), or `folder`.
fs::path fold_torchrun(const fs::path& folder) {
  std::vector<fs::path> parts(folder.begin(), folder.end());
  auto last = std::find_if(parts.rbegin(), parts.rend(),
                           [](const fs::path& part) { return is_attempt_folder(part.string()); });
  if (last == parts.rend()) return folder;
  fs::path kept;
  for (auto part = parts.begin(); part != last.base() - 1; ++part) kept /= *part;
  return kept;
}

std::string key_string(const fs::path& relative) {
  std::string text = relative.generic_string();
  return text.empty() ? "." : text;
}

std::string job_name(const std::string& root, const std::string& key) {
  if (key == ".") return root;
  return root + "/" + key;
}

std::string trim_slashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

uint64_t disk_size(const std::string& path) {
  std::error_code error;
  auto size = fs::file_size(path, error);
  return error ? 0 : size;
}

}  // namespace

Result<JobBy> parse_job_by(std::string_view text) {
  if (text == "run") return JobBy::kRun;
  if (text == "dir") return JobBy::kDir;
  if (text == "file") return JobBy::kFile;
  if (text == "archive") return JobBy::kArchive;
  return Status::error("unknown --job-by '" + std::string(text) + "' (run, dir, file, archive)");
}

bool is_archive_name(std::string_view file_name) {
  std::string name = lowercase(file_name);
  for (std::string_view suffix : {".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tbz2", ".tar.xz", ".txz",
                                  ".tar.zst", ".tzst", ".tar.lz4", ".zip"}) {
    if (ends_with(name, suffix)) return true;
  }
  return false;
}

ScanPlan plan_jobs(const std::vector<std::string>& roots, JobBy job_by,
                   const std::vector<std::string>& include_globs,
                   const std::vector<std::string>& exclude_globs) {
  ScanPlan plan;
  std::map<std::string, PlannedJob> jobs;  // by name
  for (const auto& given : roots) {
    std::string root = trim_slashes(given);
    std::error_code error;
    if (!fs::is_directory(root, error)) {
      auto& job = jobs[root];
      job.name = root;
      job.key = fs::path(root).filename().string();
      job.files.push_back(root);
      continue;
    }
    ingest::InputList inputs = ingest::expand_inputs({root}, include_globs, exclude_globs);
    for (auto& skipped : inputs.skipped) {
      std::string key = key_string(fs::path(skipped.source).lexically_relative(root));
      plan.skipped.push_back({std::move(skipped), std::move(key)});
    }
    for (const auto& file : inputs.files) {
      fs::path relative = fs::path(file).lexically_relative(root);
      std::string file_name = relative.filename().string();
      fs::path folder = relative.parent_path();
      std::string key;
      switch (job_by) {
        case JobBy::kFile:
          key = key_string(relative);
          break;
        case JobBy::kDir:
          key = key_string(folder);
          break;
        case JobBy::kArchive:
          if (!is_archive_name(file_name)) {
            plan.skipped.push_back({{file, "not an archive (--job-by archive)"}, key_string(relative)});
            continue;
          }
          key = key_string(relative);
          break;
        case JobBy::kRun: {
          if (is_archive_name(file_name)) {
            key = key_string(relative);
            break;
          }
          std::string slurm = slurm_job_of(file_name);
          fs::path run = fold_torchrun(folder);
          key = slurm.empty() ? key_string(run) : key_string(run / slurm);
          break;
        }
      }
      auto& job = jobs[job_name(root, key)];
      job.name = job_name(root, key);
      job.key = key;
      job.files.push_back(file);
    }
  }
  for (auto& [name, job] : jobs) {
    std::sort(job.files.begin(), job.files.end());
    job.files.erase(std::unique(job.files.begin(), job.files.end()), job.files.end());
    for (const auto& file : job.files) job.disk_bytes += disk_size(file);
    plan.jobs.push_back(std::move(job));
  }
  return plan;
}

}  // namespace faultline::scan
