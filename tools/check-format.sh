#!/usr/bin/env bash
# Fails when a tracked C++ or CUDA file differs from the repo's .clang-format, naming each file.
# `tools/check-format.sh --fix` rewrites them instead.
set -euo pipefail
cd "$(dirname "$0")/.."
format=clang-format
command -v clang-format-14 >/dev/null && format=clang-format-14
if ! command -v "$format" >/dev/null; then
  echo "check-format: clang-format is not installed (apt-get install clang-format)" >&2
  exit 2
fi
mapfile -t files < <(git ls-files '*.cpp' '*.hpp' '*.cu' '*.cuh' 2>/dev/null || find src tests tools -name '*.[ch]pp' -o -name '*.cu')
if [ "${1:-}" = --fix ]; then
  "$format" -i "${files[@]}"
  exit 0
fi
bad=()
for file in "${files[@]}"; do
  if ! "$format" --dry-run --Werror "$file" >/dev/null 2>&1; then bad+=("$file"); fi
done
if ((${#bad[@]})); then
  printf 'check-format: %s differs from .clang-format (tools/check-format.sh --fix)\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files match .clang-format"
