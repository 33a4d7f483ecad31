// faultline: parse the command line, run, map to an exit code. Nothing else lives here.
#include "cli/commands.hpp"

int main(int argc, char** argv) {
  return faultline::cli::run(argc, argv);
}
