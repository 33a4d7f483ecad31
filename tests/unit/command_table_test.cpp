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
