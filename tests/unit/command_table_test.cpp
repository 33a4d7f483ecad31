// The command table (src/cli/command_table.cpp): spelling suggestions, and the man page and
// completions made from it.
#include "cli/command_table.hpp"

#include <doctest/doctest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string_view>
#include <vector>

#include "cli/docs.hpp"
#include "cli/help.hpp"
#include "cli/spelling.hpp"

using namespace faultline;
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
  CHECK(find_command("rules suggest") != nullptr);
}

TEST_CASE("every command is named once, and every option it takes is a row of the option table") {
  std::set<std::string_view> names;
  for (const auto& command : command_table()) {
    INFO(command.name);
    CHECK(names.insert(command.name).second);
    std::set<std::string_view> taken;
    for (const auto& option : command.options) {
      INFO(option.name);
      CHECK(find_option(option.name) != nullptr);
      CHECK(taken.insert(option.name).second);
    }
  }
}

namespace {

Result<Options> parse(std::vector<const char*> words) {
  words.insert(words.begin(), "faultline");
  return parse_options(static_cast<int>(words.size()), words.data());
}

}  // namespace

TEST_CASE("parse_options gives the row the words name, and the row's check decides its words") {
  auto list = parse({"rules", "list"});
  REQUIRE(list);
  CHECK(list->command == find_command("rules list"));
  auto scan = parse({"scan", "logs/"});
  REQUIRE(scan);
  CHECK(scan->command == find_command("scan"));
  CHECK(scan->format == Format::kJsonl);  // scan's check makes its only format the format
  CHECK(scan->inputs == std::vector<std::string>{"logs/"});

  auto explain = parse({"explain"});
  REQUIRE(!explain);
  CHECK(explain.status().message() == "'explain' takes one rule id or cause");
  auto extra = parse({"rules", "patterns", "logs/"});
  REQUIRE(!extra);
  CHECK(extra.status().message() == "unexpected argument 'logs/'");
}

TEST_CASE("help and --version are commands too, --version outside the table the help lists") {
  auto help = parse({"diagnose", "--help"});
  REQUIRE(help);
  CHECK(help->command == find_command("help"));
  CHECK(help->help_topic == "diagnose");
  auto bare = parse({});
  REQUIRE(bare);
  CHECK(bare->command == find_command("help"));
  CHECK(bare->help_topic.empty());
  auto version = parse({"--version"});
  REQUIRE(version);
  CHECK(version->command == &version_command());
  CHECK(static_cast<bool>(version_command().run));
  CHECK(find_command("--version") == nullptr);
  CHECK(usage().find("--version") != std::string::npos);  // as a common option
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

namespace {

std::string source_file(const std::string& relative) {
  std::ifstream file(std::string(FAULTLINE_TEST_SOURCE_DIR) + "/" + relative, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  return text.str();
}

// The value of `local NAME="..."` in a shell script, or "" when there is none.
std::string shell_local(const std::string& script, const std::string& name) {
  std::string start = "local " + name + "=\"";
  size_t at = script.find(start);
  if (at == std::string::npos) return "";
  at += start.size();
  return script.substr(at, script.find('"', at) - at);
}

std::set<std::string> words_of(const std::string& text) {
  std::istringstream in(text);
  std::set<std::string> words;
  for (std::string word; in >> word;) words.insert(word);
  return words;
}

}  // namespace

// The bash completion and the README's list of commands are written by hand: a command added to
// the table must be added to them too.
TEST_CASE("tools/completions/faultline.bash offers every command of the table") {
  std::set<std::string> top, rules;
  for (const auto& command : command_table()) {
    std::string name(command.name);
    if (name.starts_with("rules ")) {
      top.insert("rules");
      rules.insert(name.substr(6));
    } else {
      top.insert(name);
    }
  }
  std::string script = source_file("tools/completions/faultline.bash");
  CHECK(words_of(shell_local(script, "commands")) == top);
  CHECK(words_of(shell_local(script, "rules_commands")) == rules);
}

TEST_CASE("the README's usage names every command of the table") {
  std::string readme = source_file("README.md");
  for (const auto& command : command_table()) {
    INFO(command.name);
    CHECK(readme.find("\nfaultline " + std::string(command.name)) != std::string::npos);
  }
}
