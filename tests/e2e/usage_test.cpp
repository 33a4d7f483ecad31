// faultline as its users' other tools behave: help from the command table, short usage errors
// with "did you mean", colour that honours NO_COLOR, CLICOLOR_FORCE and TERM=dumb, a report that
// fits the terminal, exit codes for scripts, and an install with a man page and completions.
#include <doctest/doctest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_binary.hpp"
#include "scratch.hpp"

namespace fs = std::filesystem;
using namespace faultline::testing;

namespace {

// Runs the binary with stdout and stderr on a terminal of `columns` columns, with `environment`
// ("NAME=value") added; returns what the terminal showed, "\r\n" made "\n".
std::string run_on_terminal(const std::vector<std::string>& arguments, unsigned short columns,
                            const std::vector<std::string>& environment = {}) {
  winsize size{};
  size.ws_col = columns;
  size.ws_row = 50;
  int terminal = -1;
  pid_t pid = forkpty(&terminal, nullptr, nullptr, &size);
  if (pid == 0) {
    ::unsetenv("NO_COLOR");
    ::unsetenv("CLICOLOR_FORCE");
    ::unsetenv("COLUMNS");
    ::setenv("TERM", "xterm", 1);
    for (const auto& variable : environment) ::putenv(const_cast<char*>(variable.c_str()));
    std::vector<std::string> storage = {FAULTLINE_BINARY};
    storage.insert(storage.end(), arguments.begin(), arguments.end());
    std::vector<char*> argv;
    for (auto& argument : storage) argv.push_back(argument.data());
    argv.push_back(nullptr);
    ::execv(FAULTLINE_BINARY, argv.data());
    ::_exit(127);
  }
  std::string shown;
  char buffer[4096];
  for (ssize_t n; (n = ::read(terminal, buffer, sizeof buffer)) > 0;)
    shown.append(buffer, static_cast<size_t>(n));
  ::close(terminal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  std::string out;
  for (char c : shown) {
    if (c != '\r') out += c;
  }
  return out;
}

// The binary through a shell, stdout piped, with environment variables set or unset first.
std::string run_piped(const std::string& environment, const std::string& arguments) {
  return shell("env -u NO_COLOR -u CLICOLOR_FORCE -u COLUMNS " + environment + " " + FAULTLINE_BINARY + " " +
               arguments + " 2>/dev/null")
      .second;
}

size_t widest_line(const std::string& text) {
  size_t widest = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    size_t columns = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      if (line[i] == '\x1b') {
        while (i < line.size() && line[i] != 'm') ++i;
        continue;
      }
      if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++columns;
    }
    widest = std::max(widest, columns);
  }
  return widest;
}

std::string key_case() {
  return corpus_log("001-torchrun-rank-vllm-heads-32-tp6-rank3");
}

}  // namespace

TEST_CASE("faultline with no arguments prints a short usage on stderr and exits 2") {
  RunResult run = run_faultline({});
  CHECK(run.exit_code == 2);
  CHECK(run.out.empty());
  CHECK(run.err ==
        "usage: faultline COMMAND [OPTIONS] [FILE...]\n"
        "  faultline diagnose [FILE|DIR...]   diagnose one job from files, directories or stdin\n"
        "Run 'faultline help' for the commands, 'faultline COMMAND --help' for one command.\n");
}

TEST_CASE("a misspelt command or option gets a two-line error with did you mean, and exit 2") {
  RunResult command = run_faultline({"diagnos", "x.log"});
  CHECK(command.exit_code == 2);
  CHECK(command.err ==
        "faultline: unknown command 'diagnos'; did you mean 'diagnose'?\nRun 'faultline help' for the "
        "commands.\n");
  RunResult option = run_faultline({"diagnose", "--fromat", "json", "x.log"});
  CHECK(option.exit_code == 2);
  CHECK(option.err ==
        "faultline: unknown option '--fromat'; did you mean '--format'?\n"
        "Run 'faultline diagnose --help' for its options.\n");
  RunResult sub = run_faultline({"rules", "lsit"});
  CHECK(sub.exit_code == 2);
  CHECK(sub.err ==
        "faultline: unknown 'rules' command 'lsit'; did you mean 'list'? (list, test, check, patterns, docs, "
        "suggest)\n"
        "Run 'faultline help' for the commands.\n");
  RunResult other = run_faultline({"diagnose", "--tp", "4", "x.log"});
  CHECK(other.exit_code == 2);
  CHECK(other.err ==
        "faultline: --tp is for 'preflight', 'repro'\nRun 'faultline diagnose --help' for its options.\n");
  RunResult nothing_near = run_faultline({"frobnicate"});
  CHECK(nothing_near.err ==
        "faultline: unknown command 'frobnicate'\nRun 'faultline help' for the commands.\n");
}

TEST_CASE("a first word that is a file, a folder or - is a diagnosis of it, as 'diagnose' would give") {
  std::string log = source_dir() + "/corpus/001-torchrun-rank-vllm-heads-32-tp6-rank3/log.txt";
  RunResult direct = run_faultline({log, "--format", "json"});
  RunResult spelled = run_faultline({"diagnose", log, "--format", "json"});
  CHECK(direct.exit_code == 1);
  CHECK(direct.exit_code == spelled.exit_code);
  CHECK(direct.out == spelled.out);
  CHECK(direct.out.find("\"tp.heads_not_divisible\"") != std::string::npos);
  std::string text = "[rank1]: RuntimeError: CUDA error: an illegal memory access was encountered\n";
  RunResult piped = run_faultline({"-"}, text);
  CHECK(piped.out == run_faultline({"diagnose"}, text).out);
  CHECK(piped.exit_code == 1);
  RunResult missing = run_faultline({"no-such-dir/crash.log"});
  CHECK(missing.exit_code == 2);
  CHECK(missing.err ==
        "faultline: 'no-such-dir/crash.log' is neither a command nor a file or folder that exists\n"
        "Run 'faultline help' for the commands.\n");
}

TEST_CASE("each command's --help lists its own options and an example") {
  RunResult preflight = run_faultline({"preflight", "--help"});
  CHECK(preflight.exit_code == 0);
  CHECK(preflight.out.find("Usage: faultline preflight (--config FILE | --heads N ...)") == 0);
  CHECK(preflight.out.find("\n  --config FILE         the model's Hugging Face config.json\n") !=
        std::string::npos);
  CHECK(preflight.out.find("\n  --heads N             attention heads (replaces the config's)\n") !=
        std::string::npos);
  CHECK(preflight.out.find("--baseline") == std::string::npos);
  CHECK(
      preflight.out.find("\nExamples:\n  $ faultline preflight --config config.json --tp 8 --gpus auto\n") !=
      std::string::npos);
  CHECK(preflight.out.find("\nExit codes:\n  0  the plan fits the model\n") != std::string::npos);
  RunResult repro = run_faultline({"repro", "--help"});
  CHECK(repro.out.find("\n  --backend cpu|cuda    cpu (default; always built) or cuda") != std::string::npos);
  CHECK(repro.out.find("\n  --config FILE ") != std::string::npos);
  RunResult diagnose = run_faultline({"diagnose", "-h"});
  CHECK(diagnose.out.find("\n  --format FORMAT       text (default), json, jsonl, markdown, html, sarif\n") !=
        std::string::npos);
  CHECK(diagnose.out.find("--tp") == std::string::npos);
  CHECK(diagnose.out.find("\n  1  a failure diagnosed (in any job, even when some input was skipped") !=
        std::string::npos);
  CHECK(run_faultline({"help", "diagnose"}).out == diagnose.out);
  RunResult suggest = run_faultline({"rules", "suggest", "--help"});
  CHECK(suggest.exit_code == 0);
  CHECK(suggest.out.find("Usage: faultline rules suggest (LOG... | SCAN.jsonl...)") == 0);
}

TEST_CASE("faultline help lists every command, one line each, and the exit codes") {
  RunResult run = run_faultline({"help"});
  CHECK(run.exit_code == 0);
  for (const char* command : {"diagnose", "scan", "merge", "preflight", "repro", "rules list", "rules test",
                              "rules check", "rules patterns", "rules docs", "rules suggest", "explain"}) {
    INFO(command);
    CHECK(run.out.find("\n  faultline " + std::string(command) + " ") != std::string::npos);
  }
  CHECK(run.out.find(
            "\nExit codes:\n  0  no failure found\n  1  a failure diagnosed (in any job, even when some "
            "input was skipped: it is named on stderr)\n  2  a usage error, or an input error that left "
            "nothing diagnosed\n") != std::string::npos);
  CHECK(run_faultline({"--help"}).out == run.out);
}

TEST_CASE("the last of a repeated option wins") {
  RunResult text = run_faultline({"diagnose", "--format", "json", "--format", "text", key_case()});
  CHECK(text.exit_code == 1);
  CHECK(text.out.find("Diagnosis: tp.heads_not_divisible") == 0);
  RunResult tp = run_faultline({"preflight", "--heads", "32", "--tp", "6", "--tp", "4"});
  CHECK(tp.exit_code == 0);
}

TEST_CASE("colour follows --color, then NO_COLOR, CLICOLOR_FORCE and TERM=dumb, then the terminal") {
  std::string log = key_case();
  auto coloured = [](const std::string& text) { return text.find("\x1b[") != std::string::npos; };
  CHECK(!coloured(run_piped("", "diagnose " + log)));  // a pipe: no colour
  CHECK(coloured(run_piped("CLICOLOR_FORCE=1", "diagnose " + log)));
  CHECK(!coloured(run_piped("CLICOLOR_FORCE=0", "diagnose " + log)));
  CHECK(!coloured(run_piped("CLICOLOR_FORCE=1 NO_COLOR=1", "diagnose " + log)));
  CHECK(!coloured(run_piped("CLICOLOR_FORCE=1", "diagnose --color never " + log)));
  CHECK(coloured(run_piped("NO_COLOR=1", "diagnose --color always " + log)));
  CHECK(coloured(run_on_terminal({"diagnose", log}, 120)));
  CHECK(!coloured(run_on_terminal({"diagnose", log}, 120, {"NO_COLOR=1"})));
  CHECK(!coloured(run_on_terminal({"diagnose", log}, 120, {"TERM=dumb"})));
}

TEST_CASE(
    "on a terminal the report is wrapped to its width; piped, only evidence beside the diagnosis' is cut") {
  std::string log = key_case();
  std::string narrow = run_on_terminal({"diagnose", "--color", "never", log}, 72);
  CHECK(narrow.find("Diagnosis: tp.heads_not_divisible") == 0);
  CHECK(widest_line(narrow) <= 72);
  CHECK(widest_line(run_on_terminal({"diagnose", log}, 100, {"COLUMNS=64"})) <= 64);
  std::string piped = run_piped("", "diagnose " + log);
  // The Why paragraph is one line in a pipe; Also seen evidence is cut with an ellipsis.
  CHECK(
      piped.find(
          "\nWhy\n  vLLM shards attention heads evenly across tensor-parallel ranks. The model has 32 "
          "attention heads, which cannot be split evenly over 6 ranks, so the engine refuses to start.\n") !=
      std::string::npos);
  size_t also = piped.find("\nAlso seen\n");
  REQUIRE(also != std::string::npos);
  std::string tail = piped.substr(also);
  CHECK(widest_line(tail) <= 100);
  CHECK(tail.find("…\n") != std::string::npos);
}

TEST_CASE("a core dump beside the log is skipped and named, and the diagnosed failure still exits 1") {
  Scratch scratch;
  std::string log =
      scratch.write("run/rank3.log",
                    "[rank3]: ValueError: Total number of attention heads (40) must be divisible by "
                    "tensor parallel size (6).\n");
  std::string core = scratch.write("run/core.12345", std::string("\x7f"
                                                                 "ELF\x02\x01\x01\0\0\0\0",
                                                                 12) +
                                                         std::string(4096, '\0'));
  RunResult run = run_faultline({"diagnose", "--color", "never", scratch.path("run")});
  CHECK(run.exit_code == 1);
  CHECK(run.err == "faultline: " + core +
                       ": skipped: binary file (4 of the 7 bytes other than NUL in its first " +
                       std::to_string(12 + 4096) + " are control bytes or invalid UTF-8), not a log\n");
  CHECK(run.out.find("Diagnosis: tp.heads_not_divisible") == 0);
  // Nothing diagnosed and an input skipped: 2.
  RunResult nothing = run_faultline({"diagnose", core});
  CHECK(nothing.exit_code == 2);
}

TEST_CASE("cmake --install puts stripped binaries, the man page, completions and the rule docs in place") {
  Scratch scratch;
  std::string prefix = scratch.path("prefix");
  auto install = shell("cmake --install " + binary_dir() + " --prefix " + prefix + " 2>&1");
  INFO(install.second);  // no structured binding: INFO captures it in a lambda
  REQUIRE(install.first == 0);
  CHECK(fs::exists(prefix + "/share/man/man1/faultline.1"));
  CHECK(fs::exists(prefix + "/share/bash-completion/completions/faultline"));
  // zsh and fish completions, as the source tree has them (generated from the command table).
  struct Completion {
    std::string installed, source;
  };
  for (const Completion& file :
       {Completion{"/share/zsh/site-functions/_faultline", "/tools/completions/_faultline"},
        Completion{"/share/fish/vendor_completions.d/faultline.fish", "/tools/completions/faultline.fish"}}) {
    INFO(file.installed);
    REQUIRE(fs::exists(prefix + file.installed));
    std::ifstream a(prefix + file.installed, std::ios::binary),
        b(source_dir() + file.source, std::ios::binary);
    std::ostringstream got, want;
    got << a.rdbuf();
    want << b.rdbuf();
    CHECK(got.str() == want.str());
  }
  CHECK(shell("head -1 " + prefix + "/share/zsh/site-functions/_faultline").second ==
        "#compdef faultline faultline-cuda\n");
  CHECK(shell("grep -c -- \"-l format\" " + prefix + "/share/fish/vendor_completions.d/faultline.fish")
            .second != "0\n");
  CHECK(fs::exists(prefix + "/share/doc/faultline/rules/tp.heads_not_divisible.md"));
  std::string binary = prefix + "/bin/faultline";
  REQUIRE(fs::exists(binary));
  if (shell("command -v file >/dev/null").first == 0) {
    CHECK(shell("file " + binary).second.find("not stripped") == std::string::npos);
  }
  // The installed binary explains a shipped rule by its pack: no path of the source tree.
  auto [explain_status, explain] =
      shell("cd " + scratch.path() + " && " + binary + " explain cuda.oom.pytorch");
  CHECK(explain_status == 0);
  CHECK(explain.find("\ndefined:  cuda.yaml:") != std::string::npos);
  CHECK(explain.find("(shipped pack cuda, compiled into faultline)\n") != std::string::npos);
  CHECK(explain.find("rules/cuda.yaml") == std::string::npos);
  // The completions know every command and each command's options, from its --help.
  auto [completion_status, completion] =
      shell("bash -c 'source " + prefix + "/share/bash-completion/completions/faultline && PATH=" + prefix +
            "/bin:$PATH && COMP_WORDS=(faultline preflight --he) COMP_CWORD=2 && _faultline && echo "
            "${COMPREPLY[*]}'");
  CHECK(completion_status == 0);
  CHECK(completion.find("--heads") != std::string::npos);
  CHECK(completion.find("--help") != std::string::npos);
}
