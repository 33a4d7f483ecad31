// The job stage: the pipeline of one job, wired stage to stage: ingest ─▶ parse ─▶ assemble ─▶
// rules ─▶ correlate, with the job's table of processes (process_table.hpp) that parse fills and
// correlate reads. Only src/job wires stages together (design.md); src/cli runs commands with it.
// A large source is read sparsely (screen/sparse_reader.hpp), with the literals every stage
// declares (job_literals.hpp). The Engine must outlive the JobRunner; a JobRunner is
// single-threaded.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "correlate/correlate.hpp"
#include "ingest/byte_source.hpp"
#include "ingest/inputs.hpp"
#include "ingest/record.hpp"
#include "rules/engine.hpp"
#include "screen/screens.hpp"

namespace faultline::screen {
class SparseReader;
}

namespace faultline::job {

// The literal screens of a job's stages (job_literals.hpp) for `engine`, which must outlive
// them: the build's prebuilt screen when the rules are the shipped ones. Thread-safe, and shared
// by the jobs of a scan, so that the sampled screen is built once.
std::shared_ptr<const screen::Screens> make_screens(const rules::Engine& engine);

class JobRunner {
 public:
  // `screens` from make_screens(engine); without, the runner makes its own.
  explicit JobRunner(const rules::Engine& engine, std::shared_ptr<const screen::Screens> screens = nullptr);
  ~JobRunner();

  // Reads one input to its end. A source that yields nothing (empty, binary, unreadable)
  // goes to skipped() with its reason; a source that fails part-way keeps what was read and
  // records the error in its SourceInfo.
  void add_source(ingest::ByteSource& source, ingest::SourceInfo info);
  // Opens and reads a path ("-" for stdin). `torchrun_layout_is_global`: see ingest::for_each_source.
  void add_path(const std::string& path, bool torchrun_layout_is_global = true);
  void add_skipped(ingest::Skipped skipped) { skipped_.push_back(std::move(skipped)); }

  // `baseline`: fingerprints of a healthy run's findings (baseline_fingerprints()).
  correlate::JobAnalysis finish(std::string job_name, const std::set<std::string>& baseline = {});
  // The raw findings, before correlation (rule examples look at these).
  std::vector<rules::Finding> take_findings();

  const std::vector<ingest::SourceInfo>& sources() const { return sources_; }
  const std::vector<ingest::Skipped>& skipped() const { return skipped_; }
  bool had_input_errors() const;

  // Bytes of each source read line by line before the sparse read may start (tests set 0 to
  // read everything sparsely). UINT64_MAX reads every line and screens none with the literal
  // screen: each line's rules are found with RE2 alone (--read-every-line, and the check of the
  // sparse read in tests).
  void set_dense_head_bytes(uint64_t bytes) { dense_head_bytes_ = bytes; }
  // Bytes of a job read before its sparse read looks for sampled anchors rather than for the
  // literals themselves (screen::Screens::sampled); tests set 0.
  void set_sampled_screen_bytes(uint64_t bytes) { sampled_screen_bytes_ = bytes; }
  // Findings held before repeated occurrences are folded into their first (correlate/
  // occurrence_fold.hpp), and again each time they have doubled since; tests set a few.
  void set_fold_threshold(size_t findings) { fold_at_ = fold_threshold_ = findings; }
  // Occurrences folded so far; each still counts in its finding group's occurrences.
  uint64_t occurrences_folded() const { return occurrences_folded_; }
  const screen::Screens& screens() const { return *screens_; }

 private:
  struct Stages;
  void process(const ingest::Record& record, std::optional<int> rank_hint,
               const rules::Engine::BlockScreen& screen);
  void take_time_from_skipped_lines(const screen::SparseReader& sparse, const ingest::Record& record,
                                    std::string_view block, std::optional<int> rank_hint);
  void fold_findings_when_many();

  const rules::Engine& engine_;
  std::shared_ptr<const screen::Screens> screens_;
  std::unique_ptr<Stages> stages_;
  std::vector<ingest::SourceInfo> sources_;
  std::vector<ingest::Skipped> skipped_;
  std::vector<rules::Finding> findings_;
  std::vector<std::string> truncated_;  // sources that end inside an error
  uint64_t sequence_ = 0;
  uint64_t lines_parsed_ = 0;
  uint64_t bytes_read_ = 0;
  // The first bytes of every source are read line by line: pastes and small files always are,
  // and a large log's banners, NCCL set-up and first steps teach the parser its prefixes, hosts
  // and pids. Past them, a source is read sparsely where its literals can be screened. (A 4 MiB head
  // made a scan of 8 MB jobs only 1.25-1.6 times faster on two threads than on one, 1 MiB 1.95.)
  uint64_t dense_head_bytes_ = uint64_t{1} << 20;
  // Building the sampled screen takes ~25 ms, once per engine: not for a paste, but for any log
  // a little larger, and for a scan, whose jobs share it.
  uint64_t sampled_screen_bytes_ = uint64_t{2} << 20;
  // 4,096 findings are a few MiB (a 64-rank OOM spam of 200 MB held 380 MiB of them, unfolded);
  // no corpus case comes near, so what correlate sees of a small log is never folded.
  size_t fold_threshold_ = 4096;
  size_t fold_at_ = 4096;
  uint64_t occurrences_folded_ = 0;
};

// The fingerprints of every finding in a healthy run (`--baseline`); errors go to `skipped`.
std::set<std::string> baseline_fingerprints(const rules::Engine& engine,
                                            const std::vector<std::string>& paths,
                                            std::vector<ingest::Skipped>& skipped);

// Runs the whole pipeline over text held in memory, as one source named `name`.
std::vector<rules::Finding> findings_for_text(const rules::Engine& engine, std::string_view text,
                                              const std::string& name = "<example>");

}  // namespace faultline::job
