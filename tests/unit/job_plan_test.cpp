// Scan's plan of jobs (src/scan/job_plan): which files make one job under each --job-by, with
// torchrun's attempt_N folders folded into their run and Slurm outputs grouped by job id.
#include "scan/job_plan.hpp"

#include <doctest/doctest.h>

#include <map>
#include <string>
#include <vector>

#include "../e2e/scratch.hpp"

using faultline::scan::is_archive_name;
using faultline::scan::JobBy;
using faultline::scan::parse_job_by;
using faultline::scan::plan_jobs;
using faultline::scan::ScanPlan;
using faultline::testing::Scratch;

namespace {

// Job name -> its files, relative to the scratch folder.
std::map<std::string, std::vector<std::string>> jobs_of(const ScanPlan& plan, const Scratch& scratch) {
  std::map<std::string, std::vector<std::string>> out;
  const std::string prefix = scratch.path() + "/";
  for (const auto& job : plan.jobs) {
    std::vector<std::string> files;
    for (const auto& file : job.files) files.push_back(file.substr(prefix.size()));
    out[job.name.substr(prefix.size())] = files;
  }
  return out;
}

// A scan root holding a torchrun --log-dir with a restart, a Slurm folder and an archive.
void write_runs(const Scratch& scratch) {
  scratch.write("runs/run-1/attempt_0/0/stderr.log", "[rank0]: step 1\n");
  scratch.write("runs/run-1/attempt_0/1/stderr.log", "[rank1]: step 1\n");
  scratch.write("runs/run-1/attempt_1/0/stderr.log", "[rank0]: step 2\n");
  scratch.write("runs/run-1/console.log", "agent\n");
  scratch.write("runs/slurm/slurm-1234-0.out", "task 0\n");
  scratch.write("runs/slurm/slurm-1234-1.out", "task 1\n");
  scratch.write("runs/slurm/slurm-1235_7.out", "array task 7\n");
  scratch.write("runs/slurm/notes.txt", "notes\n");
  scratch.write("runs/packed.tar.gz", "not really an archive, named as one\n");
}

}  // namespace

TEST_CASE("job plan: by run, a torchrun log dir is one job, Slurm outputs one per job id, an archive one") {
  Scratch scratch;
  write_runs(scratch);
  ScanPlan plan = plan_jobs({scratch.path("runs")}, JobBy::kRun, {}, {});
  using Files = std::vector<std::string>;
  CHECK(jobs_of(plan, scratch) ==
        std::map<std::string, Files>{
            {"runs/packed.tar.gz", {"runs/packed.tar.gz"}},
            {"runs/run-1",
             {"runs/run-1/attempt_0/0/stderr.log", "runs/run-1/attempt_0/1/stderr.log",
              "runs/run-1/attempt_1/0/stderr.log", "runs/run-1/console.log"}},
            {"runs/slurm", {"runs/slurm/notes.txt"}},
            {"runs/slurm/slurm-1234", {"runs/slurm/slurm-1234-0.out", "runs/slurm/slurm-1234-1.out"}},
            {"runs/slurm/slurm-1235_7", {"runs/slurm/slurm-1235_7.out"}},
        });
  for (const auto& job : plan.jobs) {
    CAPTURE(job.name);
    CHECK(job.name == scratch.path("runs") + "/" + job.key);  // the key is the job under its root
    CHECK(job.disk_bytes > 0);
  }
  CHECK(plan.skipped.empty());
}

TEST_CASE("job plan: by dir, each folder that holds files; by file, each file") {
  Scratch scratch;
  write_runs(scratch);
  auto by_dir = jobs_of(plan_jobs({scratch.path("runs")}, JobBy::kDir, {}, {}), scratch);
  std::vector<std::string> dirs;
  for (const auto& [name, files] : by_dir) dirs.push_back(name);
  CHECK(dirs == std::vector<std::string>{"runs", "runs/run-1", "runs/run-1/attempt_0/0",
                                         "runs/run-1/attempt_0/1", "runs/run-1/attempt_1/0", "runs/slurm"});
  CHECK(by_dir["runs"] == std::vector<std::string>{"runs/packed.tar.gz"});
  CHECK(by_dir["runs/slurm"].size() == 4);
  auto by_file = plan_jobs({scratch.path("runs")}, JobBy::kFile, {}, {});
  CHECK(by_file.jobs.size() == 9);
  for (const auto& job : by_file.jobs) CHECK(job.files.size() == 1);
}

TEST_CASE("job plan: by archive, other files are skipped with the reason and their key") {
  Scratch scratch;
  write_runs(scratch);
  ScanPlan plan = plan_jobs({scratch.path("runs")}, JobBy::kArchive, {}, {});
  REQUIRE(plan.jobs.size() == 1);
  CHECK(plan.jobs[0].key == "packed.tar.gz");
  CHECK(plan.skipped.size() == 8);
  for (const auto& skip : plan.skipped) {
    CAPTURE(skip.skipped.source);
    CHECK(skip.skipped.reason == "not an archive (--job-by archive)");
    CHECK(skip.skipped.source == scratch.path("runs") + "/" + skip.key);
  }
}

TEST_CASE("job plan: a file named on the command line is one job whatever --job-by says; slashes trimmed") {
  Scratch scratch;
  std::string log = scratch.write("one/rank3.log", "[rank3]: hello\n");
  for (JobBy job_by : {JobBy::kRun, JobBy::kDir, JobBy::kFile, JobBy::kArchive}) {
    ScanPlan plan = plan_jobs({log}, job_by, {}, {});
    REQUIRE(plan.jobs.size() == 1);
    CHECK(plan.jobs[0].name == log);
    CHECK(plan.jobs[0].key == "rank3.log");
    CHECK(plan.jobs[0].files == std::vector<std::string>{log});
  }
  ScanPlan trailing = plan_jobs({scratch.path("one") + "//"}, JobBy::kRun, {}, {});
  REQUIRE(trailing.jobs.size() == 1);
  CHECK(trailing.jobs[0].name == scratch.path("one"));
  CHECK(trailing.jobs[0].key == ".");
}

TEST_CASE("job plan: --include and --exclude choose the files as diagnose's walk does") {
  Scratch scratch;
  write_runs(scratch);
  auto included = jobs_of(plan_jobs({scratch.path("runs")}, JobBy::kRun, {"*.out"}, {}), scratch);
  std::vector<std::string> names;
  for (const auto& [name, files] : included) names.push_back(name);
  CHECK(names == std::vector<std::string>{"runs/slurm/slurm-1234", "runs/slurm/slurm-1235_7"});
  auto excluded = jobs_of(plan_jobs({scratch.path("runs")}, JobBy::kRun, {}, {"attempt_1"}), scratch);
  CHECK(excluded["runs/run-1"] == std::vector<std::string>{"runs/run-1/attempt_0/0/stderr.log",
                                                           "runs/run-1/attempt_0/1/stderr.log",
                                                           "runs/run-1/console.log"});
}

TEST_CASE("job plan: --job-by values and archive names") {
  CHECK(parse_job_by("run").value() == JobBy::kRun);
  CHECK(parse_job_by("dir").value() == JobBy::kDir);
  CHECK(parse_job_by("file").value() == JobBy::kFile);
  CHECK(parse_job_by("archive").value() == JobBy::kArchive);
  CHECK_FALSE(parse_job_by("folder"));
  for (const char* name : {"a.tar", "a.tar.gz", "a.tgz", "a.tar.bz2", "a.tbz2", "a.tar.xz", "a.txz",
                           "a.tar.zst", "a.tzst", "a.tar.lz4", "a.zip", "A.ZIP"}) {
    CAPTURE(name);
    CHECK(is_archive_name(name));
  }
  for (const char* name : {"a.gz", "a.log", "tar", "a.tar.gz.log", "a.zst"}) {
    CAPTURE(name);
    CHECK_FALSE(is_archive_name(name));
  }
}
