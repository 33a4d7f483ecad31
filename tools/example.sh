#!/usr/bin/env bash
# Sets up and builds faultline, then diagnoses the bundled example: an 8-rank torchrun job in
# which rank 3 fails the attention-heads check and the other ranks then time out.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh faultline >/dev/null
status=0
build/faultline diagnose corpus/001-torchrun-rank-vllm-heads-32-tp6-rank3/log.txt || status=$?
# Exit code 1 means "failure diagnosed": the expected outcome for this example.
[ "$status" -eq 1 ] || { echo "example: unexpected exit code $status" >&2; exit 1; }
