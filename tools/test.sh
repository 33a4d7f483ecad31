#!/usr/bin/env bash
# Sets up and builds faultline, checks the formatting (tools/check-format.sh), then runs every
# test (unit, end to end, corpus, rules).
set -euo pipefail
cd "$(dirname "$0")/.."
FAULTLINE_TEST_TOOLS=1 tools/setup.sh
tools/check-format.sh
ctest --test-dir build --output-on-failure -j"$(nproc)"
