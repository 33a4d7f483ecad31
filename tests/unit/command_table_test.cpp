// The command table (src/cli/options.cpp): spelling suggestions, and the man page made from it.
#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/options.hpp"

using namespace faultline::cli;

TEST_CASE("a transposition is one edit, so --fromat is near --format") {
  CHECK(edit_distance("fromat", "format") == 1);
  CHECK(edit_distance("diagnos", "diagnose") == 1);
  CHECK(edit_distance("", "abc") == 3);
  CHECK(nearest("fromat", {"format", "rules", "color"}) == "format");
  CHECK(nearest("diagnos", {"diagnose", "scan", "merge"}) == "diagnose");
  CHECK(nearest("xyz", {"diagnose", "scan", "merge"}).empty());  // nothing near: no guess
}

TEST_CASE("every command of the table has a summary, an example and a run function") {
  for (const auto& command : command_table()) {
    INFO(command.name);
    CHECK(!command.summary.empty());
    CHECK(!command.examples.empty());
    CHECK(static_cast<bool>(command.run));
    for (const auto& option : command.options) CHECK(std::string(option.name) != "");
  }
  CHECK(find_command(Command::kRulesSuggest) != nullptr);
}

TEST_CASE("docs/faultline.1 is the man page the command table makes") {
  std::string path = std::string(FAULTLINE_TEST_SOURCE_DIR) + "/docs/faultline.1";
  if (std::getenv("FAULTLINE_UPDATE_DOCS")) std::ofstream(path, std::ios::binary) << man_page();
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  INFO("regenerate with: FAULTLINE_UPDATE_DOCS=1 build/tests/faultline_unit_tests -tc='docs/faultline.1*'");
  CHECK(text.str() == man_page());
}

namespace {

// A file of the source tree that a generator makes, kept current like the man page.
void check_generated(const std::string& relative, const std::string& made) {
  std::string path = std::string(FAULTLINE_TEST_SOURCE_DIR) + "/" + relative;
  if (std::getenv("FAULTLINE_UPDATE_DOCS")) std::ofstream(path, std::ios::binary) << made;
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  INFO("regenerate with: FAULTLINE_UPDATE_DOCS=1 build/tests/faultline_unit_tests -tc='*completion*'");
  CHECK(text.str() == made);
}

}  // namespace

TEST_CASE("tools/completions/_faultline and faultline.fish are the completions the command table makes") {
  check_generated("tools/completions/_faultline", zsh_completion());
  check_generated("tools/completions/faultline.fish", fish_completion());
}

TEST_CASE("the zsh and fish completions offer every command and each command's options") {
  std::string zsh = zsh_completion(), fish = fish_completion();
  CHECK(zsh.starts_with("#compdef faultline faultline-cuda\n"));
  for (const auto& command : command_table()) {
    INFO(command.name);
    std::string name(command.name);
    CHECK(zsh.find("    '" + name + "')\n      _arguments -s") != std::string::npos);
    if (name.starts_with("rules ")) {
      std::string word = name.substr(6);
      CHECK(fish.find("__fish_seen_subcommand_from rules; and __fish_seen_subcommand_from " + word + "'") !=
            std::string::npos);
    } else {
      CHECK(fish.find("complete -c faultline -n '__fish_use_subcommand' -a " + name + " -d '") !=
            std::string::npos);
    }
    for (const auto& option : command.options)
      CHECK(fish.find(" -l " + std::string(option.name)) != std::string::npos);
  }
  CHECK(zsh.find(
            "'--format[text (default), json, jsonl, markdown, html, sarif]:FORMAT:(text json jsonl markdown "
            "html sarif)'") != std::string::npos);
  CHECK(zsh.find("'*--rules[") != std::string::npos);  // repeatable
  CHECK(
      fish.find("complete -c faultline -n '__fish_seen_subcommand_from diagnose' -l format -x -a 'text json "
                "jsonl markdown html sarif' -d 'text (default), json, jsonl, markdown, html, sarif'\n") !=
      std::string::npos);
  CHECK(fish.find("complete -c faultline -n '__fish_seen_subcommand_from scan' -l jobs -s j -x -d ") !=
        std::string::npos);
}
