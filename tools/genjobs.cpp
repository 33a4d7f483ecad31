// faultline-genjobs: a directory of many small generated job logs for `faultline scan`
// tests and demos, with the truth about each job.
//
//   faultline-genjobs --jobs 1000 --out-dir DIR [--seed 7] [--attempts N]
//
// writes DIR/logs/ (the jobs, in mixed formats) and DIR/truth.jsonl (one line per job:
// {"job": path relative to DIR/logs as scan names it, "cause": expected cause or null,
// "layout", "entries": files or archive members it holds, "corrupt": [what is broken]}).
// Layouts, in turn: plain per-rank files, gzip-compressed per-rank files, a tar.gz of a
// torchrun --log-dir run (attempt_0/R/stderr.log), the same run as a directory, one docker
// json-file stream of all ranks, a Slurm output file (srun --label) among others in one
// folder. Causes, in turn: tp.heads_not_divisible, cuda.oom, nccl.watchdog_timeout, none.
// Every 50th job gets a file of binary garbage, and every 50th gzip job a truncated .gz;
// neither changes the job's expected cause. Same seed, same bytes.
// With --attempts N (a crash archive, dense: issue 16), each job failed N times: every rank's
// log holds N attempts of a few steps each, every one ending in the job's failure.
#include <archive.h>
#include <archive_entry.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Random {
  uint64_t state;
  uint64_t next() {  // splitmix64
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int below(int n) { return static_cast<int>(next() % static_cast<uint64_t>(n)); }
};

enum class Cause { kHeads, kOom, kTimeout, kNone };
constexpr const char* kCauseNames[] = {"tp.heads_not_divisible", "cuda.oom", "nccl.watchdog_timeout",
                                       nullptr};
enum class Layout { kPlain, kGzip, kTorchrunTar, kTorchrunDir, kDocker, kSlurm };
constexpr const char* kLayoutNames[] = {"plain",        "gzip",        "torchrun-tar.gz",
                                        "torchrun-dir", "docker-json", "slurm"};

std::string two(int value) {
  char text[8];
  std::snprintf(text, sizeof text, "%02d", value);
  return text;
}

// One rank's lines, without any launcher prefix; `minute` places them on the job's clock.
std::vector<std::string> rank_lines(Random& random, Cause cause, int rank, int ranks, int failing_rank,
                                    int steps) {
  std::vector<std::string> lines;
  std::string host = "node" + std::to_string(rank / 8 + 1);
  int pid = 40000 + rank * 17;
  lines.push_back(host + ":" + std::to_string(pid) + ":" + std::to_string(pid + 5) + " [" +
                  std::to_string(rank % 8) + "] NCCL INFO comm 0x55d0c0 rank " + std::to_string(rank) +
                  " nranks " + std::to_string(ranks) + " cudaDev " + std::to_string(rank % 8) + " busId " +
                  std::to_string(rank % 8) + "000 - Init COMPLETE");
  for (int step = 1; step <= steps; ++step) {
    lines.push_back("step " + std::to_string(step * 10) + " | loss " +
                    std::to_string(2 + random.below(100) / 100.0).substr(0, 4) +
                    " | lr 3.0e-04 | grad_norm 1." + std::to_string(random.below(90) + 10) + " | 1.8" +
                    std::to_string(random.below(10)) + " it/s");
  }
  std::string stamp =
      "1203 14:" + two(30 + steps % 20) + ":" + two(rank % 60) + ".1185" + std::to_string(100000 + rank);
  auto watchdog = [&] {
    std::string seq =
        "SeqNum=12047, OpType=ALLREDUCE, NumelIn=25166336, NumelOut=25166336, Timeout(ms)=600000";
    lines.push_back("[E" + stamp + " ProcessGroupNCCL.cpp:616] [Rank " + std::to_string(rank) +
                    "] Watchdog caught collective operation timeout: WorkNCCL(" + seq + ") ran for 6000" +
                    std::to_string(60 + rank) + " milliseconds before timing out.");
    lines.push_back(
        "[E" + stamp + " ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) Rank " +
        std::to_string(rank) +
        "] Exception (either an error or timeout) detected by watchdog at work: 12047, last enqueued NCCL "
        "work: 12049, last completed NCCL work: 12046.");
    lines.push_back("[E" + stamp + " ProcessGroupNCCL.cpp:636] [Rank " + std::to_string(rank) +
                    "] To avoid data inconsistency, we are taking the entire process down.");
  };
  switch (cause) {
    case Cause::kNone:
      lines.push_back("training finished: " + std::to_string(steps * 10) +
                      " steps, checkpoint saved to /ckpt/step" + std::to_string(steps * 10));
      break;
    case Cause::kTimeout:
      watchdog();
      break;
    case Cause::kHeads:
    case Cause::kOom:
      if (rank != failing_rank) {
        watchdog();
        break;
      }
      lines.push_back("Traceback (most recent call last):");
      lines.push_back("  File \"/app/train.py\", line 212, in <module>");
      lines.push_back("    main()");
      lines.push_back("  File \"/app/train.py\", line 188, in main");
      if (cause == Cause::kHeads) {
        lines.push_back("    model = build_model(args)");
        lines.push_back(
            "ValueError: Total number of attention heads (40) must be divisible by tensor parallel size "
            "(6).");
      } else {
        lines.push_back("    loss.backward()");
        lines.push_back(
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.91 GiB. GPU " +
            std::to_string(rank % 8) +
            " has a total capacity of 79.10 GiB of which 2.47 GiB is free. Including non-PyTorch memory, "
            "this "
            "process has 76.61 GiB memory in use. Of the allocated memory 71.38 GiB is allocated by PyTorch, "
            "and 4.12 GiB is reserved by PyTorch but unallocated.");
      }
      break;
  }
  return lines;
}

std::string joined(const std::vector<std::string>& lines, const std::string& prefix) {
  std::string out;
  for (const auto& line : lines) out += prefix + line + "\n";
  return out;
}

void write_file(const fs::path& path, const std::string& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream file(path, std::ios::binary);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!file) {
    std::cerr << "faultline-genjobs: " << path.string() << ": cannot write\n";
    std::exit(1);
  }
}

[[noreturn]] void archive_failed(archive* writer) {
  std::cerr << "faultline-genjobs: " << archive_error_string(writer) << "\n";
  std::exit(1);
}

// `members` as (name, bytes); raw = one gzip stream of the only member instead of a tar.
std::string compress(const std::vector<std::pair<std::string, std::string>>& members, bool raw) {
  archive* writer = archive_write_new();
  archive_write_add_filter_gzip(writer);
  if (raw)
    archive_write_set_format_raw(writer);
  else
    archive_write_set_format_pax_restricted(writer);
  std::vector<char> buffer(1 << 22);
  size_t used = 0;
  if (archive_write_open_memory(writer, buffer.data(), buffer.size(), &used) != ARCHIVE_OK)
    archive_failed(writer);
  for (const auto& [name, bytes] : members) {
    archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, name.c_str());
    archive_entry_set_size(entry, static_cast<la_int64_t>(bytes.size()));
    archive_entry_set_filetype(entry, AE_IFREG);
    archive_entry_set_perm(entry, 0644);
    archive_entry_set_mtime(entry, 1733236117, 0);
    if (archive_write_header(writer, entry) != ARCHIVE_OK) archive_failed(writer);
    if (archive_write_data(writer, bytes.data(), bytes.size()) < 0) archive_failed(writer);
    archive_entry_free(entry);
  }
  if (archive_write_close(writer) != ARCHIVE_OK) archive_failed(writer);
  archive_write_free(writer);
  return std::string(buffer.data(), used);
}

std::string json_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string garbage(Random& random, size_t size) {
  std::string bytes(size, '\0');
  for (auto& byte : bytes) byte = static_cast<char>(random.below(256));
  bytes[7] = '\0';  // a core dump's bytes: NUL early
  return bytes;
}

int usage() {
  std::cerr << "usage: faultline-genjobs --jobs N --out-dir DIR [--seed S] [--attempts N]\n";
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int jobs = 0;
  uint64_t seed = 7;
  int attempts = 1;
  std::string out_dir;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (i + 1 >= argc) return usage();
    if (arg == "--jobs")
      jobs = std::atoi(argv[++i]);
    else if (arg == "--out-dir")
      out_dir = argv[++i];
    else if (arg == "--seed")
      seed = std::strtoull(argv[++i], nullptr, 10);
    else if (arg == "--attempts")
      attempts = std::atoi(argv[++i]);
    else
      return usage();
  }
  if (jobs < 1 || out_dir.empty() || attempts < 1) return usage();
  fs::path logs = fs::path(out_dir) / "logs";
  fs::create_directories(logs);
  std::ofstream truth(fs::path(out_dir) / "truth.jsonl");
  Random random{seed};
  uint64_t files = 0;
  for (int job = 0; job < jobs; ++job) {
    auto layout = static_cast<Layout>(job % 6);
    auto cause = static_cast<Cause>((job / 6 + job) % 4);
    int ranks = 2 + random.below(7);
    int failing_rank = random.below(ranks);
    int steps = 10 + random.below(90);
    char id[16];
    std::snprintf(id, sizeof id, "job-%04d", job);
    std::vector<std::string> corrupt;
    std::vector<std::vector<std::string>> per_rank;
    for (int rank = 0; rank < ranks; ++rank)
      per_rank.push_back(rank_lines(random, cause, rank, ranks, failing_rank, steps));
    for (int attempt = 1; attempt < attempts; ++attempt) {
      int attempt_steps = 1 + random.below(5);
      for (int rank = 0; rank < ranks; ++rank) {
        auto lines = rank_lines(random, cause, rank, ranks, failing_rank, attempt_steps);
        per_rank[size_t(rank)].insert(per_rank[size_t(rank)].end(), lines.begin(), lines.end());
      }
    }
    std::string name;
    int entries = 0;
    bool directory_layout =
        layout == Layout::kPlain || layout == Layout::kGzip || layout == Layout::kTorchrunDir;
    switch (layout) {
      case Layout::kPlain:
        for (int rank = 0; rank < ranks; ++rank)
          write_file(logs / id / ("rank" + std::to_string(rank) + ".log"),
                     joined(per_rank[size_t(rank)], ""));
        name = id;
        entries = ranks;
        break;
      case Layout::kGzip: {
        int broken = job % 50 == 1 ? (failing_rank + 1) % ranks : -1;  // never the failing rank
        for (int rank = 0; rank < ranks; ++rank) {
          std::string file = "rank" + std::to_string(rank) + ".log.gz";
          std::string bytes =
              compress({{file.substr(0, file.size() - 3), joined(per_rank[size_t(rank)], "")}}, true);
          if (rank == broken) {
            bytes.resize(std::min<size_t>(bytes.size(), 24));
            corrupt.push_back(file + ": truncated gzip");
          }
          write_file(logs / id / file, bytes);
        }
        name = id;
        entries = ranks;
        break;
      }
      case Layout::kTorchrunTar: {
        std::vector<std::pair<std::string, std::string>> members;
        for (int rank = 0; rank < ranks; ++rank) {
          members.push_back({std::string(id) + "/attempt_0/" + std::to_string(rank) + "/stderr.log",
                             joined(per_rank[size_t(rank)], "")});
        }
        name = std::string(id) + ".tar.gz";
        write_file(logs / name, compress(members, false));
        entries = ranks;
        break;
      }
      case Layout::kTorchrunDir:
        for (int rank = 0; rank < ranks; ++rank) {
          write_file(logs / id / "attempt_0" / std::to_string(rank) / "stderr.log",
                     joined(per_rank[size_t(rank)], ""));
        }
        name = id;
        entries = ranks;
        break;
      case Layout::kDocker: {
        std::string stream;
        for (int rank = 0; rank < ranks; ++rank) {
          for (const auto& line : per_rank[size_t(rank)]) {
            stream += "{\"log\":\"[rank" + std::to_string(rank) + "]:" + json_escaped(line) +
                      "\\n\",\"stream\":\"stderr\",\"time\":\"2024-12-03T14:30:00.000000000Z\"}\n";
          }
        }
        write_file(logs / id / "4f1c2a9e0b7d3c5e8a6f1b2d4c3e5a7b9d0f2e4c6a8b1d3f5e7a9c0b2d4e6f8a-json.log",
                   stream);
        name = id;
        entries = 1;
        break;
      }
      case Layout::kSlurm: {
        std::string output;
        for (int rank = 0; rank < ranks; ++rank)
          output += joined(per_rank[size_t(rank)], std::to_string(rank) + ": ");
        name = "slurm/slurm-" + std::to_string(100000 + job);
        write_file(logs / (name + ".out"), output);
        entries = 1;
        break;
      }
    }
    if (directory_layout && job % 50 == 3) {
      write_file(logs / id / "core.bin", garbage(random, 4096));
      corrupt.push_back("core.bin: binary garbage");
      ++entries;
    }
    files += static_cast<uint64_t>(layout == Layout::kTorchrunTar ? 1 : entries);
    truth << "{\"job\":\"" << name << "\",\"cause\":";
    if (kCauseNames[int(cause)])
      truth << "\"" << kCauseNames[int(cause)] << "\"";
    else
      truth << "null";
    truth << ",\"layout\":\"" << kLayoutNames[int(layout)] << "\",\"ranks\":" << ranks
          << ",\"entries\":" << entries << ",\"corrupt\":[";
    for (size_t i = 0; i < corrupt.size(); ++i) truth << (i ? "," : "") << "\"" << corrupt[i] << "\"";
    truth << "]}\n";
  }
  std::cerr << "faultline-genjobs: " << jobs << " jobs, " << files << " files in " << logs.string() << "\n";
  return 0;
}
