// The verify command of a diagnosis, split into words and run without a shell.
#include "cli/verify_command.hpp"

#include <doctest/doctest.h>

using faultline::cli::run_verify;
using faultline::cli::split_command;
using Words = std::vector<std::string>;

TEST_CASE("split_command separates words on blanks") {
  auto words = split_command("faultline  repro --heads 32\t--tp 4 ");
  REQUIRE(words);
  CHECK(*words == Words{"faultline", "repro", "--heads", "32", "--tp", "4"});
}

TEST_CASE("split_command keeps quoted text as one word, without the quotes") {
  auto words =
      split_command(R"(faultline preflight --config 'my model/config.json' --gpus "gpus list.csv" a"b"'c')");
  REQUIRE(words);
  CHECK(*words == Words{"faultline", "preflight", "--config", "my model/config.json", "--gpus",
                        "gpus list.csv", "abc"});
}

TEST_CASE("split_command keeps operators inside single quotes and escaped characters as they are") {
  auto words = split_command(R"(echo 'a; b | c $d' "e \"f\" \$g" h\ i '')");
  REQUIRE(words);
  CHECK(*words == Words{"echo", "a; b | c $d", "e \"f\" $g", "h i", ""});
}

TEST_CASE("split_command drops a comment that starts a word") {
  auto words = split_command("faultline repro --tp 4   # then compare a#b");
  REQUIRE(words);
  CHECK(*words == Words{"faultline", "repro", "--tp", "4"});
  CHECK(*split_command("a#b") == Words{"a#b"});
}

TEST_CASE("split_command refuses shell operators, naming the character and its column") {
  const char* needs_shell = ": the command needs a shell, and faultline runs it without one";
  CHECK(split_command("faultline repro --tp 4; rm x").status().message() ==
        "';' at column 23" + std::string(needs_shell));
  CHECK(split_command("faultline repro | head").status().message() ==
        "'|' at column 17" + std::string(needs_shell));
  CHECK(split_command("a && b").status().message() == "'&' at column 3" + std::string(needs_shell));
  CHECK(split_command("a > out").status().message() == "'>' at column 3" + std::string(needs_shell));
  CHECK(split_command("a < in").status().message() == "'<' at column 3" + std::string(needs_shell));
  CHECK(split_command("(a)").status().message() == "'(' at column 1" + std::string(needs_shell));
  CHECK(split_command("a\nb").status().message() == "a newline at column 2" + std::string(needs_shell));
}

TEST_CASE("split_command refuses expansions, in double quotes too, and globs") {
  const char* expansion = ": a shell expansion; fill in the value and run the command yourself";
  CHECK(split_command("faultline preflight --tp $TP").status().message() ==
        "'$' at column 26" + std::string(expansion));
  CHECK(split_command("a `b`").status().message() == "'`' at column 3" + std::string(expansion));
  CHECK(split_command("a \"$HOME\"").status().message() == "'$' at column 4" + std::string(expansion));
  CHECK(split_command("ls *.log").status().message() ==
        "'*' at column 4: a glob; the command needs a shell, and faultline runs it without one");
}

TEST_CASE("split_command refuses an unclosed quote and a trailing backslash") {
  CHECK(split_command("a 'b c").status().message() == "the quote at column 3 is not closed");
  CHECK(split_command("a \"b").status().message() == "the quote at column 3 is not closed");
  CHECK(split_command("a b\\").status().message() == "the command ends with a backslash");
}

TEST_CASE(
    "run_verify runs a faultline preflight command, captures its output and passes on exit code 0 only") {
  auto rules = faultline::rules::RuleSet::shipped();
  auto fits = run_verify("faultline preflight --heads 32 --kv-heads 8 --tp 4", rules);
  CHECK(fits.ran);
  CHECK(fits.exit_code == 0);
  CHECK(fits.passed());
  CHECK(fits.output.find("32 heads, 8 KV heads") != std::string::npos);
  auto does_not_fit = run_verify("faultline preflight --heads 32 --tp 6", rules);
  CHECK(does_not_fit.ran);
  CHECK(does_not_fit.exit_code == 1);
  CHECK_FALSE(does_not_fit.passed());
}

TEST_CASE("run_verify does not run other programs, other faultline commands, or the shell") {
  auto rules = faultline::rules::RuleSet::shipped();
  auto other = run_verify("nvidia-smi -L; sudo dmesg -T", rules);
  CHECK_FALSE(other.ran);
  CHECK(
      other.output ==
      "not a faultline command: run it yourself where the job ran (faultline runs only its own preflight and "
      "repro commands)");
  auto diagnose = run_verify("faultline diagnose job.log", rules);
  CHECK_FALSE(diagnose.ran);
  CHECK(diagnose.output ==
        "faultline runs only 'faultline preflight' and 'faultline repro' as a verify command");
  auto placeholder = run_verify("faultline preflight --config config.json --tp $TP", rules);
  CHECK_FALSE(placeholder.ran);
  CHECK(placeholder.output ==
        "'$' at column 47: a shell expansion; fill in the value and run the command yourself");
  CHECK_FALSE(run_verify("", rules).ran);
}

TEST_CASE("run_verify says plainly that the config file is not here") {
  auto rules = faultline::rules::RuleSet::shipped();
  auto verification = run_verify("faultline preflight --config no-such-dir/config.json --tp 4", rules);
  CHECK_FALSE(verification.ran);
  CHECK(verification.output ==
        "the command reads 'no-such-dir/config.json', which is not here: run it where the model's "
        "config.json is, "
        "or give the model's sizes as options (--heads N, --kv-heads N, --hidden N, --ffn N, --vocab N, "
        "--layers N)");
}

TEST_CASE("run_verify leaves the CUDA backend to the user") {
  auto rules = faultline::rules::RuleSet::shipped();
  auto verification = run_verify("faultline repro --heads 32 --tp 4 --backend cuda", rules);
  CHECK_FALSE(verification.ran);
  CHECK(verification.output == "--backend cuda runs on GPUs through faultline-cuda: run it yourself");
}
