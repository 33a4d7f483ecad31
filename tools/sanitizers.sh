#!/usr/bin/env bash
# The sanitizer step of CI (tools/test.sh): builds with AddressSanitizer (LeakSanitizer included)
# and UndefinedBehaviorSanitizer in build-sanitize/ and runs tests there.
#   tools/sanitizers.sh        the unit tests of the stages that read the input (CI)
#   tools/sanitizers.sh all    every suite: unit, end to end, the rules' examples
#
# What CI runs, and why: the whole suite under both sanitizers costs two cores about as long as
# the rest of CI together (the step alone would take it past ten minutes), so CI builds only the
# stages that read hostile bytes (base, tp, ingest, parse, assemble, rules, the process table) and
# runs their unit tests, tests/CMakeLists.txt's faultline_input_tests: archives, compressed and
# damaged streams, envelopes, line reading and parsing, paste repair, the assembler, rule packs
# and their codec, the literal screen, the engine. Every sanitizer report found so far was in
# those stages. faultline-packc is built and run under the sanitizers too, on every shipped pack.
# Left to `all` (and to the fuzz targets, tests/fuzz): correlate, report, scan, job, cli, and
# the end-to-end suites. At -Og with line tables only (-g1: reports still name file and line),
# GCC compiles a file with both sanitizers in under half the time -O1 takes.
#
# A sanitizer report fails the step: the sanitizers stop the process at the first report
# (-fno-sanitize-recover=all, halt_on_error) and abort it, so its exit is a signal, never the
# 0, 1 or 2 that scripts read; and the tests' whole output is searched for reports as well, so
# one that a test survived (a process whose failure it expected) fails the step too.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build-sanitize
if [ ! -f "$dir/CMakeCache.txt" ]; then
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-Og -g1" \
    -DFAULTLINE_ASAN=ON -DFAULTLINE_UBSAN=ON -DFAULTLINE_CUDA=OFF >/dev/null
fi
log="$dir/sanitizers.log"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:abort_on_error=1:print_stacktrace=1"
status=0
if [ "${1:-}" = all ]; then
  cmake --build "$dir" -j"$(nproc)" --target faultline faultline_unit_tests faultline_e2e_tests
  ctest --test-dir "$dir" -R '^(unit|e2e|rules_test)$' --output-on-failure -j"$(nproc)" --output-log "$log" || status=$?
else
  cmake --build "$dir" -j"$(nproc)" --target faultline_input_tests
  "$dir/tests/faultline_input_tests" 2>&1 | tee "$log" || status=$?
fi
report=':[0-9]+:[0-9]+: runtime error: |==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)'
if grep -E -q "$report" "$log"; then
  echo "sanitizers: a sanitizer report, in $log:" >&2
  grep -E -A8 "$report" "$log" >&2
  exit 1
fi
exit "$status"
