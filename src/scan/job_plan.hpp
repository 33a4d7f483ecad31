// Scan stage, first step: turns the paths given to `faultline scan` into jobs, one group of
// input files per job, before anything is read. Comes after ingest (whose directory walk it
// uses); src/cli hands each job to a job::JobRunner.
//
// The default rule (--job-by run) finds run directories:
//  - an archive (.tar, .tar.gz, .tgz, .tar.bz2, .tar.xz, .tar.zst, .zip, ...) is one job;
//  - other files belong to the directory that holds them, except that torchrun's
//    `--log-dir` layout (`RUN/attempt_0/3/stderr.log`) is folded into RUN, the folder above
//    the last `attempt_N` component, so every rank and restart of a run is one job;
//  - Slurm output files in one folder (`slurm-1234.out`, `slurm-1234-3.out`,
//    `slurm-1234_7.out` of an array) are one job per Slurm job id (or array task).
// --job-by dir: one job per directory that directly holds files, archives included, no folding.
// --job-by file: one job per file (an archive is a file).
// --job-by archive: one job per archive; other files in scanned folders are skipped, with the
// reason. A path named on the command line that is not a directory is always one job.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.hpp"
#include "ingest/inputs.hpp"

namespace faultline::scan {

enum class JobBy { kRun, kDir, kFile, kArchive };
Result<JobBy> parse_job_by(std::string_view text);

struct PlannedJob {
  std::string name;  // as reports show it: "logs/run-42", "logs/run-43.tar.gz", "logs/slurm-1234"
  std::string key;   // the job relative to the scan root that holds it; shards hash this
  std::vector<std::string> files;  // sorted
  uint64_t disk_bytes = 0;         // on-disk size of the files, for progress only
};

// Something found while walking the scan roots that belongs to no job.
struct PlannedSkip {
  ingest::Skipped skipped;
  std::string key;  // relative to its scan root, for sharding
};

struct ScanPlan {
  std::vector<PlannedJob> jobs;  // sorted by name
  std::vector<PlannedSkip> skipped;
};

// Directories are walked as `faultline diagnose` walks them (ingest::expand_inputs), with
// the same --include/--exclude globs.
ScanPlan plan_jobs(const std::vector<std::string>& roots, JobBy job_by,
                   const std::vector<std::string>& include_globs,
                   const std::vector<std::string>& exclude_globs);

// By name: .tar, .tar.gz/.tgz, .tar.bz2/.tbz2, .tar.xz/.txz, .tar.zst/.tzst, .tar.lz4, .zip.
bool is_archive_name(std::string_view file_name);

}  // namespace faultline::scan
