#!/usr/bin/env bash
# Sets up and builds faultline, checks the formatting (tools/check-format.sh), then runs every
# test (unit, end to end, corpus, rules), and then the unit and end-to-end suites again built
# with ASan and UBSan (tools/sanitizers.sh, in build-sanitize/; FAULTLINE_SANITIZERS=0 skips it).
set -euo pipefail
cd "$(dirname "$0")/.."
FAULTLINE_TEST_TOOLS=1 tools/setup.sh
tools/check-format.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
if [ "${FAULTLINE_SANITIZERS:-1}" != 0 ]; then
  tools/sanitizers.sh
fi
