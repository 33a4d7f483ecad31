#!/usr/bin/env bash
# Scan a directory of job logs with a Slurm job array: one shard per array task, then one
# merge job that runs when every task has finished.
#
#   tools/scan-slurm.sh LOGDIR OUTDIR [SHARDS]      # submits; prints the two Slurm job ids
#
# Each task runs `faultline scan --shard I/SHARDS LOGDIR` into OUTDIR/shard-I.jsonl; the
# merge writes OUTDIR/summary.jsonl (the summary line) and OUTDIR/summary.txt. LOGDIR and
# OUTDIR must be on a file system every node sees. Settings by environment: FAULTLINE (the
# binary, default `faultline` on PATH), SBATCH_ARGS (more sbatch options: partition,
# account, time). Tasks use the CPUs Slurm gives them (-j $SLURM_CPUS_PER_TASK).
#SBATCH --job-name=faultline-scan
#SBATCH --cpus-per-task=4
#SBATCH --time=01:00:00
#SBATCH --output=faultline-scan-%A_%a.log
set -euo pipefail

FAULTLINE=${FAULTLINE:-faultline}

# faultline exits 0 (no failure), 1 (failures diagnosed) or 2 (some inputs skipped): all of
# them are a finished scan. Anything else is an error of the task.
run_faultline() {
  local status=0
  "$FAULTLINE" "$@" || status=$?
  if (( status > 2 )); then
    echo "faultline $1 failed with exit code $status" >&2
    exit "$status"
  fi
}

case "${1:-}" in
  --task)  # inside one array task: --task LOGDIR OUTDIR SHARDS
    logs=$2 out=$3 shards=$4 index=${SLURM_ARRAY_TASK_ID:?not inside a Slurm array task}
    run_faultline scan -q -j "${SLURM_CPUS_PER_TASK:-1}" --shard "$index/$shards" "$logs" > "$out/shard-$index.jsonl.part"
    mv "$out/shard-$index.jsonl.part" "$out/shard-$index.jsonl"  # complete results only
    ;;
  --merge)  # the merge job: --merge OUTDIR SHARDS
    out=$2 shards=$3
    files=()
    for (( index = 0; index < shards; ++index )); do
      [[ -f "$out/shard-$index.jsonl" ]] || { echo "missing $out/shard-$index.jsonl" >&2; exit 3; }
      files+=("$out/shard-$index.jsonl")
    done
    run_faultline merge -q "${files[@]}" > "$out/summary.jsonl"
    run_faultline merge --format text "${files[@]}" > "$out/summary.txt"
    cat "$out/summary.txt"
    ;;
  ""|-h|--help)
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
    ;;
  *)  # submit: LOGDIR OUTDIR [SHARDS]
    logs=$(realpath "$1") out=$2 shards=${3:-8}
    mkdir -p "$out"
    out=$(realpath "$out")
    script=$(realpath "$0")
    # shellcheck disable=SC2086  # SBATCH_ARGS is a list of options
    array=$(sbatch --parsable ${SBATCH_ARGS:-} --array="0-$((shards - 1))" "$script" --task "$logs" "$out" "$shards")
    array=${array%%;*}
    # shellcheck disable=SC2086
    merge=$(sbatch --parsable ${SBATCH_ARGS:-} --dependency="afterok:$array" --cpus-per-task=1 --job-name=faultline-merge \
                   --output="$out/merge-%j.log" "$script" --merge "$out" "$shards")
    echo "scan array: $array ($shards tasks), merge: ${merge%%;*}; results in $out"
    ;;
esac
