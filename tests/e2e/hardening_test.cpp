// Damaged, hostile and odd inputs (issue 18): what can be read is read, nothing hangs, and
// whatever is refused is named with its reason.
#include <doctest/doctest.h>
#include <poll.h>
#include <pty.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "messages.hpp"
#include "report_reader.hpp"
#include "run_binary.hpp"
#include "scratch.hpp"

using namespace faultline::testing;

namespace {

constexpr const char* kOomLine =
    "[rank3]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total "
    "capacity of 79.10 GiB of which 1.20 GiB is free.";

std::string shell_quoted(const std::string& path) {
  return "'" + path + "'";
}

}  // namespace

TEST_CASE("zero tail: a log whose node crashed and left zeros after the OOM is diagnosed") {
  Scratch scratch;
  std::string log = scratch.write(
      "rank3.log", std::string("[rank3]: step 1\n") + kOomLine + std::string(size_t{2} << 20, '\0'));
  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(run.err == "");
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
}

TEST_CASE("NUL inside: a log with NUL bytes in its first 64 KiB is read, not skipped as binary") {
  Scratch scratch;
  std::string text = "[rank3]: step 1\n";
  text += std::string(100, '\0') + "\n";
  text += std::string(kOomLine) + "\n";
  std::string log = scratch.write("rank3.log", text);
  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
}

TEST_CASE(
    "binary stretches: the NUL and binary stretches of a text log are reported with offset and length") {
  Scratch scratch;
  std::string text;
  for (int i = 0; i < 200; ++i) text += "[rank3]: step " + std::to_string(i) + "\n";
  uint64_t garbage_at = text.size();
  std::string garbage;
  for (int i = 0; i < 48; ++i) garbage += static_cast<char>(i % 2 ? 0x01 : 0xfe);
  text += garbage + "\n" + kOomLine + "\n";
  uint64_t tail_at = text.size();
  text += std::string(size_t{1} << 20, '\0');
  std::string log = scratch.write("rank3.log", text);

  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
  auto field = [](const std::string& key, uint64_t value) {
    return "\"" + key + "\": " + std::to_string(value);
  };
  CHECK(run.out.find("\"binary\": {") != std::string::npos);
  size_t first = run.out.find(field("offset", garbage_at) + ",\n");
  size_t second = run.out.find(field("offset", tail_at) + ",\n");
  CHECK(first != std::string::npos);
  CHECK(second != std::string::npos);
  CHECK(run.out.find(field("length", garbage.size()), first) < second);
  CHECK(run.out.find(field("length", uint64_t{1} << 20), second) != std::string::npos);
  CHECK(run.out.find(field("count", 2)) != std::string::npos);

  RunResult html = run_faultline({"diagnose", "--format", "html", log});
  CHECK(html.out.find("<p class=\"muted\">note: " + log + ": read around 2 stretches of binary data") !=
        std::string::npos);
  RunResult text_run = run_faultline({"diagnose", "--color", "never", log});
  CHECK(text_run.out.find("\nnote: " + log + ": read around 2 stretches of binary data (" +
                          std::to_string(garbage.size() + (size_t{1} << 20)) +
                          " bytes): " + std::to_string(garbage.size()) + " binary bytes at byte " +
                          std::to_string(garbage_at) + ", " + std::to_string(size_t{1} << 20) +
                          " NUL bytes at byte " + std::to_string(tail_at) + "\n") != std::string::npos);
}

TEST_CASE(
    "binary head: a log that starts with binary data is read from its first text; one binary to its end is "
    "skipped") {
  Scratch scratch;
  std::string garbage;
  for (size_t i = 0; garbage.size() < (size_t{200} << 10); ++i)
    garbage += static_cast<char>((i * 7919 + 13) % 256);
  std::string steps;
  for (int i = 0; i < 4000; ++i) steps += "[rank3]: step " + std::to_string(i) + "\n";
  std::string log = scratch.write("rank3.log", garbage + "\n" + steps + kOomLine + "\n");
  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
  CHECK(run.out.find("\"kind\": \"binary\"") != std::string::npos);

  std::string core = scratch.write("core.12345", garbage + garbage);
  RunResult binary = run_faultline({"diagnose", "--format", "json", core});
  CHECK(binary.exit_code == 2);
  const std::string skipped = "faultline: " + core + ": skipped: ";
  REQUIRE(binary.err.starts_with(skipped));
  REQUIRE(binary.err.ends_with("\n"));
  std::string reason = binary.err.substr(skipped.size(), binary.err.size() - skipped.size() - 1);
  CHECK_MESSAGE(is_binary_file_reason(reason), binary.err);
}

TEST_CASE("a long carriage-return line: the OOM glued after a 5 MB progress bar is diagnosed") {
  Scratch scratch;
  std::string text = "[rank3]: loading\n";
  for (int i = 0; text.size() < (size_t{5} << 20); ++i)
    text += "Loading safetensors checkpoint shards:  " + std::to_string(i % 100) + "% Completed | 1/4\r";
  text += std::string(kOomLine) + "\n";
  std::string log = scratch.write("rank3.log", text);
  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.exit_code == 1);
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
}

TEST_CASE("a huge envelope record: a valid 1 MiB journald record is decoded and its OOM kept") {
  Scratch scratch;
  std::string padding(size_t{1} << 20, 'x');
  std::string record =
      "{\"__REALTIME_TIMESTAMP\":\"1700000000000000\",\"_HOSTNAME\":\"node1\",\"_PID\":\"42\","
      "\"MESSAGE\":\"" +
      std::string(kOomLine) + " " + padding + "\"}\n";
  std::string log = scratch.write("journal.json", record);
  RunResult run = run_faultline({"diagnose", "--format", "json", log});
  CHECK(run.err.find("not valid JSON") == std::string::npos);
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
}

namespace {

// A log whose OOM comes first, then enough healthy lines that the compressed file has several
// deflate blocks or zstd blocks after it.
std::string oom_then_steps() {
  std::string text = std::string("[rank3]: step 0\n") + kOomLine + "\n";
  for (int i = 1; i <= 3000; ++i) text += "[rank3]: step " + std::to_string(i * 7919 % 100003) + " loss ok\n";
  return text;
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace

TEST_CASE("truncated gz: the OOM before the cut is diagnosed, and the cut is reported with its offset") {
  Scratch scratch;
  std::string log = scratch.write("run/rank3.log", oom_then_steps());
  REQUIRE(shell("gzip -n -c " + shell_quoted(log) + " > " + shell_quoted(log + ".gz")).first == 0);
  std::filesystem::remove(log);
  std::string gz = log + ".gz";
  uint64_t cut = std::filesystem::file_size(gz) / 2;
  std::filesystem::resize_file(gz, cut);
  std::string damage = gz + ": read stopped: gzip stream truncated at byte " + std::to_string(cut) + "; the ";

  RunResult run = run_faultline({"diagnose", "--format", "json", gz});
  CHECK(run.exit_code == 1);  // a diagnosis, though the input was read in part
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
  CHECK(run.out.find("\"error_offset\": " + std::to_string(cut) + "\n") != std::string::npos);
  // The whole message; only the count of bytes decoded before the cut is read from it.
  const std::string before = " bytes before it were analysed\n";
  const std::string start = "faultline: " + damage;
  REQUIRE(run.err.starts_with(start));
  REQUIRE(run.err.ends_with(before));
  std::string decoded = run.err.substr(start.size(), run.err.size() - start.size() - before.size());
  CHECK(!decoded.empty());
  CHECK(decoded.find_first_not_of("0123456789") == std::string::npos);
  CHECK(run.err == start + decoded + before);

  RunResult text = run_faultline({"diagnose", "--color", "never", gz});
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("\nnote: " + damage) != std::string::npos);

  RunResult scan = run_faultline({"scan", "-q", scratch.path("run")});
  CHECK(scan.exit_code == 2);  // scan counts a read error as an input error (README)
  CHECK(scan.out.find("\"status\":\"diagnosed\"") != std::string::npos);
  CHECK(scan.out.find("\"error_offset\":" + std::to_string(cut) + "}") != std::string::npos);
}

TEST_CASE("bad zstd checksum: every byte before the frame's checksum is analysed, the mismatch named") {
  if (shell("command -v zstd >/dev/null").first != 0) {
    MESSAGE("zstd is not installed (tools/setup.sh with FAULTLINE_TEST_TOOLS=1): not tested");
    return;
  }
  Scratch scratch;
  std::string text = oom_then_steps();
  std::string log = scratch.write("rank3.log", text);
  std::string zst = log + ".zst";
  REQUIRE(shell("zstd -q --check -c " + shell_quoted(log) + " > " + shell_quoted(zst)).first == 0);
  std::string bytes = file_bytes(zst);
  bytes.back() = static_cast<char>(bytes.back() ^ 0x5a);  // the checksum is the frame's last 4 bytes
  scratch.write("rank3.log.zst", bytes);

  RunResult run = run_faultline({"diagnose", "--format", "json", zst});
  CHECK(run.exit_code == 1);
  CHECK(outcome_from_report(run.out).cause == "cuda.oom");
  CHECK(run.err == "faultline: " + zst + ": read stopped: zstd stream damaged at byte " +
                       std::to_string(bytes.size() - 4) + ": Restored data doesn't match checksum; the " +
                       std::to_string(text.size()) + " bytes before it were analysed\n");
}

TEST_CASE("a FIFO argument does not block the run; the inputs after it are read") {
  Scratch scratch;
  std::string fifo = scratch.path("pipe");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::string log = scratch.write("rank3.log", std::string(kOomLine) + "\n");
  auto [status, out] =
      shell("timeout 20 " + shell_quoted(binary_dir() + "/faultline") + " diagnose --format json " +
            shell_quoted(fifo) + " " + shell_quoted(log) + " 2>/dev/null");
  CHECK((status == 1 || status == 2));  // not 124: timeout did not have to end it
  CHECK(outcome_from_report(out).cause == "cuda.oom");
}

TEST_CASE("a character device named as an input is refused with its reason") {
  Scratch scratch;
  std::string log = scratch.write("rank3.log", std::string(kOomLine) + "\n");
  RunResult run = run_faultline({"diagnose", "/dev/zero", log});
  CHECK(run.err == "faultline: /dev/zero: skipped: is a character device, not a log\n");
  CHECK(run.out.find("cuda.oom") != std::string::npos);
}

TEST_CASE("a missing path: scan names it on stderr, lists it as skipped and plans no job for it") {
  Scratch scratch;
  std::string missing = scratch.path("no-such-run");
  RunResult run = run_faultline({"scan", "-q", missing});
  CHECK(run.exit_code == 2);
  CHECK(run.err == "faultline: " + missing + ": No such file or directory\n");
  CHECK(run.out.find("{\"type\":\"skipped\",\"key\":\"no-such-run\",\"source\":\"" + missing +
                     "\",\"reason\":\"No such file or directory\"}\n") == 0);
  CHECK(run.out.find("\"type\":\"job\"") == std::string::npos);
}

TEST_CASE("a .py beside the log: source code in a directory is skipped with its reason, not diagnosed") {
  Scratch scratch;
  scratch.write("run/rank0.log", "[rank0]: iteration 5 | loss 2.1\n");
  std::string source =
      scratch.write("run/check.py",
                    "raise ValueError(\"Total number of attention heads (40) must be divisible by tensor "
                    "parallel size (6).\")\n");
  RunResult run = run_faultline({"diagnose", "--format", "json", scratch.path("run")});
  CHECK(run.out.find("tp.heads_not_divisible") == std::string::npos);
  CHECK(run.err == "faultline: " + source + ": skipped: source code (.py), not a log\n");

  SUBCASE("named on the command line, it is read") {
    RunResult named = run_faultline({"diagnose", "--format", "json", source});
    CHECK(named.out.find("tp.heads_not_divisible") != std::string::npos);
  }
}

TEST_CASE(
    "/dev/full: a write error on stdout is an error on stderr and exit code 2; a closed pipe stays quiet") {
  Scratch scratch;
  std::string log = scratch.write("rank3.log", std::string(kOomLine) + "\n");
  std::string faultline = shell_quoted(binary_dir() + "/faultline");
  auto [full_status, full_err] = shell(faultline + " diagnose " + shell_quoted(log) + " 2>&1 >/dev/full");
  CHECK(full_status == 2);
  CHECK(full_err == "faultline: error writing to stdout: No space left on device\n");
  auto [closed_status, closed_err] = shell(faultline + " diagnose " + shell_quoted(log) + " 2>&1 >&-");
  CHECK(closed_status == 2);
  CHECK(closed_err == "faultline: error writing to stdout: Bad file descriptor\n");
  auto [piped_status, piped_out] =
      shell("(" + faultline + " diagnose " + shell_quoted(log) + " 2>&1; echo \"exit $?\" >&2) | head -c 1");
  CHECK(piped_out == "D");
}

TEST_CASE("shards over a glob: run folders given one by one shard as their parent folder does") {
  Scratch scratch;
  std::vector<std::string> roots;
  for (int i = 0; i < 12; ++i) {
    std::string run = "logs/run-" + std::to_string(i);
    scratch.write(run + "/rank3.log", std::string(kOomLine) + "\n");
    roots.push_back(scratch.path(run));
  }
  size_t shards_used = 0, jobs_seen = 0;
  for (int shard = 0; shard < 3; ++shard) {
    std::vector<std::string> glob = {"scan", "-q", "--shard", std::to_string(shard) + "/3"};
    glob.insert(glob.end(), roots.begin(), roots.end());
    RunResult from_glob = run_faultline(glob);
    RunResult from_parent =
        run_faultline({"scan", "-q", "--shard", std::to_string(shard) + "/3", scratch.path("logs")});
    size_t jobs = 0;
    for (size_t at = 0; (at = from_glob.out.find("\"type\":\"job\"", at)) != std::string::npos; ++at) ++jobs;
    for (int i = 0; i < 12; ++i) {
      std::string job = "\"job\":\"" + scratch.path("logs/run-" + std::to_string(i)) + "\"";
      CHECK((from_glob.out.find(job) != std::string::npos) ==
            (from_parent.out.find(job) != std::string::npos));
    }
    shards_used += jobs > 0;
    jobs_seen += jobs;
  }
  CHECK(jobs_seen == 12);
  CHECK(shards_used == 3);
}

TEST_CASE("merge of a shard given twice warns once for the file, and not at all with -q") {
  Scratch scratch;
  for (int i = 0; i < 3; ++i)
    scratch.write("logs/run-" + std::to_string(i) + "/rank3.log", std::string(kOomLine) + "\n");
  RunResult scan = run_faultline({"scan", "-q", "-j", "1", scratch.path("logs")});
  std::string shard = scratch.write("shard0.jsonl", scan.out);
  std::string again = scratch.write("shard0-again.jsonl", scan.out);
  RunResult merged = run_faultline({"merge", "--format", "text", shard, again});
  CHECK(merged.err == "faultline: " + again + ": 3 jobs seen before (the first, '" +
                          scratch.path("logs/run-0") + "', in " + shard +
                          "); each is counted once (a shard given twice?)\n");
  RunResult quiet = run_faultline({"merge", "-q", "--format", "text", shard, again});
  CHECK(quiet.err == "");
  CHECK(quiet.out == merged.out);
}

TEST_CASE("merge of shards with one missing warns once for it, and not at all with -q") {
  Scratch scratch;
  for (int i = 0; i < 12; ++i)
    scratch.write("logs/run-" + std::to_string(i) + "/rank3.log", std::string(kOomLine) + "\n");
  std::vector<std::string> files;
  for (int index : {0, 1, 3}) {
    std::string shard = std::to_string(index) + "/4";
    RunResult scan = run_faultline({"scan", "-q", "-j", "1", "--shard", shard, scratch.path("logs")});
    CHECK(scan.out.find("\"type\":\"summary\",\"schema\":\"faultline.scan/1\",\"shard\":{\"index\":" +
                        std::to_string(index) + ",\"count\":4}") != std::string::npos);
    files.push_back(scratch.write("shard" + std::to_string(index) + ".jsonl", scan.out));
  }
  const std::string missing =
      "faultline: shard 2/4 is missing: none of the files holds its summary line, so its jobs are not "
      "counted\n";
  RunResult merged = run_faultline({"merge", "--format", "text", files[0], files[1], files[2]});
  CHECK(merged.err == missing);
  RunResult twice = run_faultline({"merge", "--format", "text", files[0], files[0], files[1]});
  CHECK(twice.err == repeated_jobs_warning(files[0]) + missing +
                         "faultline: shard 3/4 is missing: none of the files holds its summary line, so its "
                         "jobs are not counted\n");
  RunResult quiet = run_faultline({"merge", "-q", "--format", "text", files[0], files[1], files[2]});
  CHECK(quiet.err == "");
  CHECK(quiet.out == merged.out);

  SUBCASE("an unsharded scan's summary names no shard, and merge has nothing to warn about") {
    RunResult whole = run_faultline({"scan", "-q", "-j", "1", scratch.path("logs")});
    CHECK(whole.out.find("\"shard\":") == std::string::npos);
    std::string file = scratch.write("whole.jsonl", whole.out);
    CHECK(run_faultline({"merge", "--format", "text", file}).err == "");
  }
}

namespace {

// Runs faultline on a pseudo-terminal (stdin, stdout and stderr), typing `typed` into it; what
// it wrote, or "TIMEOUT" when it had not exited after 20 s.
std::string run_on_terminal(const std::vector<std::string>& arguments, const std::string& typed) {
  int master = -1;
  pid_t child = ::forkpty(&master, nullptr, nullptr, nullptr);
  if (child == 0) {
    std::vector<std::string> words = {binary_dir() + "/faultline"};
    words.insert(words.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  if (child < 0) return "forkpty failed";
  for (char c : typed) {  // a keystroke at a time, as a paste arrives
    if (::write(master, &c, 1) != 1) break;
  }
  std::string seen;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (;;) {
    pollfd poll_fd{master, POLLIN, 0};
    if (::poll(&poll_fd, 1, 100) > 0) {
      char buffer[4096];
      ssize_t n = ::read(master, buffer, sizeof buffer);
      if (n > 0) seen.append(buffer, static_cast<size_t>(n));
      if (n <= 0) break;  // EIO: the child closed the terminal
    }
    int status = 0;
    if (::waitpid(child, &status, WNOHANG) == child) {
      while (::poll(&poll_fd, 1, 50) > 0) {
        char buffer[4096];
        ssize_t n = ::read(master, buffer, sizeof buffer);
        if (n <= 0) break;
        seen.append(buffer, static_cast<size_t>(n));
      }
      child = 0;
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(child, SIGKILL);
      ::waitpid(child, nullptr, 0);
      ::close(master);
      return "TIMEOUT";
    }
  }
  if (child > 0) ::waitpid(child, nullptr, 0);
  ::close(master);
  return seen;
}

}  // namespace

TEST_CASE("one Ctrl-D: a log pasted into a terminal ends at the first end of file") {
  std::string seen = run_on_terminal({"diagnose", "--color", "never"}, std::string(kOomLine) + "\n\x04");
  CHECK(seen != "TIMEOUT");
  CHECK(seen.find("cuda.oom") != std::string::npos);
}

TEST_CASE("control bytes: BEL, backspace, cursor moves and C1 from a log do not reach a terminal") {
  Scratch scratch;
  std::string log = scratch.write("rank3.log", std::string(kOomLine) +
                                                   " \a\b \x1b[2J \x1b]0;pwned\a \xc2\x9b"
                                                   "31m\n");
  for (std::string format : {"text", "markdown", "html"}) {
    CAPTURE(format);
    std::string seen = run_on_terminal({"diagnose", "--format", format, log}, "");
    REQUIRE(seen != "TIMEOUT");
    CHECK(seen.find("cuda.oom") != std::string::npos);
    CHECK(seen.find('\a') == std::string::npos);
    CHECK(seen.find('\b') == std::string::npos);
    CHECK(seen.find("\x1b[2J") == std::string::npos);
    CHECK(seen.find("\x1b]") == std::string::npos);
    CHECK(seen.find("\xc2\x9b") == std::string::npos);
  }
}
