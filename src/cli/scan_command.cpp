// `faultline scan`: many jobs at once. The scan stage plans the jobs (src/scan); here each
// job runs through its own JobRunner on a pool of threads that share one rules::Engine (const,
// thread-safe), and every finished job is written as one whole JSONL line under a lock.
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "ingest/path_hints.hpp"
#include "job/job_runner.hpp"
#include "report/report.hpp"
#include "scan/job_plan.hpp"
#include "scan/scan_record.hpp"
#include "scan/shard.hpp"
#include "scan/summary.hpp"

namespace faultline::cli {
namespace {

using Clock = std::chrono::steady_clock;

scan::JobRecord record_of(const scan::PlannedJob& job, const report::RunReport& report) {
  scan::JobRecord record;
  record.job = job.name;
  record.key = job.key;
  record.files = job.files.size();
  for (const auto& source : report.sources) {
    ++record.inputs;
    record.bytes += source.bytes;
    record.lines += source.lines;
    if (!source.error.empty() || source.bad_lines) ++record.read_errors;
  }
  record.skipped = report.skipped;
  if (report.jobs.empty()) return record;
  const correlate::JobAnalysis& analysis = report.jobs.front();
  record.hosts = analysis.shape.hosts;
  for (const auto& group : analysis.findings) record.fingerprints.push_back(group.fingerprint);
  if (const auto& diagnosis = analysis.diagnosis) {
    record.cause = diagnosis->cause;
    record.rule = diagnosis->rule ? diagnosis->rule->id : "";
    record.fingerprint = diagnosis->fingerprint;
    record.failure_template = diagnosis->failure_template;
    if (diagnosis->initiating_rank) record.initiating_rank = *diagnosis->initiating_rank;
    record.confidence = diagnosis->confidence;
    if (!analysis.findings.empty() && analysis.findings.front().fingerprint == diagnosis->fingerprint) {
      record.failing_hosts = analysis.findings.front().hosts;
      if (!analysis.findings.front().evidence.empty())
        record.example_line = analysis.findings.front().evidence.front().text;
    }
    if (record.failing_hosts.empty() && record.hosts.size() == 1) record.failing_hosts = record.hosts;
  }
  return record;
}

// One job, whole, as its JSONL line. Whatever a job throws stays in that job: it is written
// as a failed job whose files are all listed as skipped with the reason.
std::string analyse_job(const scan::PlannedJob& job, const rules::Engine& engine,
                        const std::shared_ptr<const screen::Screens>& screens) {
  uint64_t members = 0;
  std::string failure;
  report::RunReport report;
  try {
    job::JobRunner runner(engine, screens);
    bool one_node_log_dir = !ingest::torchrun_layouts_span_nodes(job.files);
    for (const auto& file : job.files) {
      ingest::for_each_source(
          file,
          [&](ingest::SourceInfo info, ingest::ByteSource& source) {
            if (info.name != file) ++members;
            runner.add_source(source, std::move(info));
          },
          [&](ingest::Skipped skipped) {
            if (skipped.source != file) ++members;
            runner.add_skipped(std::move(skipped));
          },
          {}, one_node_log_dir);
    }
    report.jobs.push_back(runner.finish(job.name));
    report.sources = runner.sources();
    report.skipped = runner.skipped();
  } catch (const std::exception& error) {
    failure = error.what();
  } catch (...) {
    failure = "unknown exception";
  }
  if (!failure.empty()) {
    report = {};
    members = 0;
    for (const auto& file : job.files) report.skipped.push_back({file, "job analysis failed: " + failure});
  }
  scan::JobRecord record = record_of(job, report);
  record.members = members;
  if (!failure.empty()) record.error = "analysis failed: " + failure;
  return scan::job_line(record, report::render_json(report, false));
}

std::string format_bytes(double bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f MB", bytes / 1e6);
  return text;
}

// What the workers have finished, for the progress line.
struct Progress {
  explicit Progress(const std::vector<scan::PlannedJob>& jobs) : total_jobs(jobs.size()) {
    for (const auto& job : jobs) {
      total_files += job.files.size();
      total_bytes += job.disk_bytes;
    }
  }

  std::atomic<uint64_t> jobs{0}, files{0}, bytes{0};
  uint64_t total_jobs = 0, total_files = 0, total_bytes = 0;
  Clock::time_point start = Clock::now();

  std::string line() const {
    double seconds = std::chrono::duration<double>(Clock::now() - start).count();
    double done = static_cast<double>(bytes.load());
    double rate = seconds > 0 ? done / seconds : 0;
    std::string text = "scan: " + std::to_string(jobs.load()) + "/" + std::to_string(total_jobs) + " jobs, " +
                       std::to_string(files.load()) + "/" + std::to_string(total_files) + " files, " +
                       format_bytes(done) + "/" + format_bytes(static_cast<double>(total_bytes)) + ", " +
                       format_bytes(rate) + "/s";
    if (rate > 0 && done > 0) {
      auto eta = static_cast<int64_t>((static_cast<double>(total_bytes) - done) / rate);
      text += ", ETA " + std::to_string(std::max<int64_t>(eta, 0)) + " s";
    }
    return text;
  }
};

// Where finished jobs go: each job's line to `out`, its record to `summary`, its counts to
// `progress`. `mutex` guards `out` and `summary`, for the workers and the progress line alike.
struct JobSink {
  Output& out;
  scan::Summary& summary;
  Progress& progress;
  std::mutex mutex;

  void write(const scan::PlannedJob& job, const std::string& line) {
    auto parsed = scan::parse_line(line);
    std::lock_guard lock(mutex);
    if (parsed) out.learn_hosts(parsed->job.hosts);
    out.out(line);
    if (parsed)
      summary.add(parsed->job);
    else
      out.err("faultline: " + job.name +
              ": internal error, unreadable scan line: " + parsed.status().message() + "\n");
    progress.jobs += 1;
    progress.files += job.files.size();
    progress.bytes += job.disk_bytes;
  }
};

// The progress line on stderr, redrawn every 250 ms by a thread of its own from construction
// until stop(), which erases it.
class ProgressLine {
 public:
  explicit ProgressLine(JobSink& sink) : sink_(sink), thread_([this] { redraw_until_stopped(); }) {}
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;
  ~ProgressLine() { stop(); }

  void stop() {
    if (!thread_.joinable()) return;
    {
      std::lock_guard lock(wake_mutex_);
      stopped_ = true;
    }
    wake_.notify_all();
    thread_.join();
    std::lock_guard lock(sink_.mutex);
    sink_.out.err("\r\x1b[K");
  }

 private:
  void redraw_until_stopped() {
    std::unique_lock wait_lock(wake_mutex_);
    while (!wake_.wait_for(wait_lock, std::chrono::milliseconds(250), [&] { return stopped_; })) {
      std::lock_guard lock(sink_.mutex);
      sink_.out.err("\r" + sink_.progress.line() + "\x1b[K");
    }
  }

  JobSink& sink_;
  std::mutex wake_mutex_;
  std::condition_variable wake_;
  bool stopped_ = false;
  std::thread thread_;  // last: it starts once the members it reads are made
};

// Analyses every job on `threads` threads, this one among them, each taking the next job not
// yet taken; every job is written to `sink` as it finishes.
void analyse_jobs(const std::vector<scan::PlannedJob>& jobs, const rules::Engine& engine, size_t threads,
                  JobSink& sink) {
  // The jobs share the literal screens: the sampled one is built by the first job to read 2 MiB,
  // from a sample of it (screen/screens.hpp); jobs read with the prebuilt screen until then (the
  // reports are the same).
  auto screens = job::make_screens(engine);
  std::atomic<size_t> next_job{0};
  auto work = [&] {
    for (size_t index; (index = next_job++) < jobs.size();)
      sink.write(jobs[index], analyse_job(jobs[index], engine, screens));
  };
  std::vector<std::thread> workers;
  for (size_t i = 1; i < threads; ++i) workers.emplace_back(work);
  work();
  for (auto& worker : workers) worker.join();
}

// -j N, else one thread per core; never more threads than jobs, never none.
size_t worker_count(const Options& options, size_t jobs) {
  size_t threads = options.threads > 0 ? static_cast<size_t>(options.threads)
                                       : std::max(1u, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min(threads, jobs));
}

// The roots that exist. One that does not is an input error, as in diagnose: named on stderr and
// added to `missing`, never a job with nothing in it.
std::vector<std::string> existing_roots(const std::vector<std::string>& inputs,
                                        std::vector<scan::PlannedSkip>& missing, Output& out) {
  std::vector<std::string> roots;
  for (const auto& root : inputs) {
    struct stat info {};
    if (root != "-" && ::stat(root.c_str(), &info) != 0) {
      std::string reason = std::strerror(errno);
      out.err("faultline: " + root + ": " + reason + "\n");
      missing.push_back({{root, reason}, std::filesystem::path(root).filename().string()});
      continue;
    }
    roots.push_back(root);
  }
  return roots;
}

// The jobs and skipped inputs of this scan's shard.
scan::ScanPlan plan_shard(const Options& options, scan::JobBy job_by, const scan::Shard& shard, Output& out) {
  std::vector<scan::PlannedSkip> missing;
  std::vector<std::string> roots = existing_roots(options.inputs, missing, out);
  scan::ScanPlan plan = scan::plan_jobs(roots, job_by, options.include, options.exclude);
  plan.skipped.insert(plan.skipped.begin(), missing.begin(), missing.end());
  // Shards hash each job's path under the roots' common parent: with several roots (a glob),
  // every root's own jobs would otherwise be keyed '.' and land on one shard.
  scan::ShardKeys shard_keys(roots);
  std::erase_if(plan.jobs,
                [&](const scan::PlannedJob& job) { return !shard.holds(shard_keys.key(job.name)); });
  std::erase_if(plan.skipped, [&](const scan::PlannedSkip& skip) {
    return !shard.holds(shard_keys.key(skip.skipped.source));
  });
  return plan;
}

int exit_code(const scan::Summary& summary, bool rule_errors) {
  if (rule_errors || summary.skipped() || summary.failed() || summary.read_errors()) return 2;
  return summary.diagnosed() ? 1 : 0;
}

}  // namespace

int run_scan(const Options& options, const rules::RuleSet& rules, Output& out) {
  auto job_by = scan::parse_job_by(options.job_by);
  auto shard = scan::parse_shard(options.shard.empty() ? "0/1" : options.shard);
  if (!job_by || !shard) {
    out.err("faultline: " + (!job_by ? job_by.status() : shard.status()).message() + "\n");
    return 2;
  }
  scan::ScanPlan plan = plan_shard(options, *job_by, *shard, out);

  rules::Engine engine(rules);
  scan::Summary summary;
  if (!options.shard.empty()) summary.set_shard(*shard);
  for (const auto& skip : plan.skipped) {
    out.out(scan::skipped_line(skip));
    summary.add(skip);
  }
  Progress progress(plan.jobs);
  JobSink sink{out, summary, progress, {}};
  std::optional<ProgressLine> progress_line;
  if (out.err_is_terminal() && !options.quiet) progress_line.emplace(sink);
  analyse_jobs(plan.jobs, engine, worker_count(options, plan.jobs.size()), sink);
  if (progress_line) progress_line->stop();

  out.out(summary.to_json());
  if (!options.quiet) out.err(summary.to_text());
  return exit_code(summary, !rules.errors().empty());
}

}  // namespace faultline::cli
