#!/usr/bin/env bash
# Runs one libFuzzer target of a FAULTLINE_FUZZ build (tests/fuzz) on its seeds, with ASan and
# UBSan as that build has them:
#   tools/fuzz.sh TARGET [SECONDS] [BUILD_DIR]     tools/fuzz.sh pipeline 600 build-clang
# TARGET is line_parser, pipeline, envelope, rule_pack or archive. New inputs go to
# BUILD_DIR/fuzz-corpus/TARGET (the seeds in BUILD_DIR/fuzz-seeds/TARGET are only read), and a
# crash, leak, timeout or out-of-memory input to BUILD_DIR/fuzz-crashes/TARGET/. Exits non-zero
# when libFuzzer found one; replay an input with BUILD_DIR/fuzz/fuzz_TARGET FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${1:?usage: tools/fuzz.sh TARGET [SECONDS] [BUILD_DIR]}
seconds=${2:-600}
build=${3:-build-clang}
# The longest input tried: enough for several tracebacks, an archive of a few logs or a few rules;
# longer inputs only slow each run down.
case $target in
  line_parser | envelope | rule_pack) max_len=16384 ;;
  pipeline) max_len=32768 ;;
  archive) max_len=65536 ;;
  *) echo "fuzz: unknown target '$target' (line_parser, pipeline, envelope, rule_pack, archive)" >&2; exit 2 ;;
esac
binary=$build/fuzz/fuzz_$target
if [ ! -x "$binary" ]; then
  echo "fuzz: $binary is not built (cmake -S . -B $build -DCMAKE_CXX_COMPILER=clang++-14 -DFAULTLINE_FUZZ=ON" \
    "-DFAULTLINE_ASAN=ON -DFAULTLINE_UBSAN=ON; cmake --build $build --target fuzz_$target)" >&2
  exit 2
fi
mkdir -p "$build/fuzz-corpus/$target" "$build/fuzz-crashes/$target"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec "$binary" -max_total_time="$seconds" -max_len="$max_len" -timeout=25 -rss_limit_mb=2048 \
  -print_final_stats=1 -artifact_prefix="$build/fuzz-crashes/$target/" \
  "$build/fuzz-corpus/$target" "$build/fuzz-seeds/$target"
