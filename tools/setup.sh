#!/usr/bin/env bash
# Installs what faultline needs from Debian's packages (only what is missing), then
# configures and builds it in build/: everything, or the targets named
# (`tools/setup.sh faultline`). Safe to run again: it does nothing twice.
# With FAULTLINE_TEST_TOOLS=1 it also installs what the tests drive: headless Chromium (the
# HTML report), the archivers the archive tests pack with, and Node.js with the schema
# validators in tests/schema, and nettle-dev (the golden test hashes corpus-real reports with it).
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(g++ cmake make pkg-config libre2-dev libsimdjson-dev libyaml-cpp-dev
          libboost-program-options-dev doctest-dev libarchive-dev
          zlib1g-dev libzstd-dev liblzma-dev libbz2-dev)
# Hyperscan for the sparse read of large logs: the original on x86, its port elsewhere.
if [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ]; then packages+=(libhyperscan-dev); else packages+=(libvectorscan-dev); fi
if [ "${FAULTLINE_TEST_TOOLS:-0}" = 1 ]; then
  packages+=(chromium zstd xz-utils bzip2 zip clang-format nettle-dev)
  command -v node >/dev/null && command -v npm >/dev/null || packages+=(nodejs npm)
fi
missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]})); then
  sudo=""
  if [ "$(id -u)" != 0 ]; then sudo="sudo"; fi
  echo "setup: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${FAULTLINE_TEST_TOOLS:-0}" = 1 ] && [ ! -d tests/schema/node_modules ]; then
  (cd tests/schema && npm install --silent >/dev/null) || echo "setup: npm install in tests/schema failed; the SARIF schema check will be skipped" >&2
fi

build_type="${BUILD_TYPE:-RelWithDebInfo}"
if [ ! -f build/CMakeCache.txt ]; then
  cmake -S . -B build -DCMAKE_BUILD_TYPE="$build_type" >/dev/null
fi
targets=()
for target in "$@"; do targets+=(--target "$target"); done
cmake --build build -j"$(nproc)" "${targets[@]}"
