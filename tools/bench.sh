#!/usr/bin/env bash
# bench.sh: measures faultline's throughput on a large synthetic torchrun log, side by side with
# ripgrep searching for the same rule patterns and with `cat` as the I/O floor.
#
#   tools/bench.sh [SIZE]        SIZE as genlog takes it (K/M/G suffix), default 1G
#
# It measures issue 7's three targets, each as a ratio against a reference run in the same run:
#   1. single-thread throughput: `faultline diagnose` on the log against `rg -c -f` over the
#      same patterns (`faultline rules patterns`);
#   2. multi-core: `faultline scan -j 2` against `scan -j 1` over a directory of BENCH_JOBS
#      job archives (.tar.gz of a torchrun log folder, SIZE/8 in all);
#   3. latency: `faultline diagnose` on the log's first 10,000 lines (a paste) against `cat`
#      of the same file, median of BENCH_LATENCY_REPEATS runs.
#
# and issue 16's dense cases, where most lines matter, each against rg and cat in the same run:
#   oom-spam     a 64-rank serving loop retrying a CUDA OOM (genlog --dense oom-spam), SIZE;
#   nccl-debug   an NCCL_DEBUG=INFO/TRACE dump of 64 ranks (genlog --dense nccl-debug), SIZE;
#   crash-tree   `scan -j 1` and `scan -j 2` over BENCH_CRASH_JOBS crashed jobs of genjobs
#                (mixed layouts, gzip and tar.gz, each job failed many times: --attempts), about
#                SIZE uncompressed, against `rg -z` over the tree.
# BENCH_CASES picks them (default "sparse oom-spam nccl-debug crash-tree"). rg searches
# patterns.txt less the few patterns it cannot take (a multi-line event pattern: rg is line
# by line) and with `\"` written `"`; the report says how many were left out.
#
# Builds faultline and faultline-genlog in build/ only if they are missing, generates the log
# once into $BENCH_DIR (reused on later runs with the same size, ranks and seed; delete it after
# changing genlog), runs every measurement BENCH_REPEATS times (interleaved, after one untimed
# read to warm the page cache) and prints the medians: wall seconds, GB/s (10^9 bytes) and peak
# RSS. The table is also written to $BENCH_DIR/bench-results.txt.
#
# Environment: BENCH_DIR (default ${TMPDIR:-/tmp}/faultline-bench), BENCH_SEED (42),
# BENCH_RANKS (8), BENCH_REPEATS (3), BENCH_TIME_BIN (/usr/bin/time), and FAULTLINE, GENLOG
# (paths to the binaries, to skip the lookup in build/).
# Needs bash, coreutils and awk. Peak RSS comes from /usr/bin/time (Debian package `time`);
# without it the RSS column reads n/a and everything else still works.
set -euo pipefail

readonly size="${1:-1G}"
readonly seed="${BENCH_SEED:-42}"
readonly ranks="${BENCH_RANKS:-8}"
readonly repeats="${BENCH_REPEATS:-3}"
readonly bench_dir="${BENCH_DIR:-${TMPDIR:-/tmp}/faultline-bench}"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
readonly repo_root
readonly build_dir="$repo_root/build"
readonly gnu_time="${BENCH_TIME_BIN:-/usr/bin/time}"
readonly job_count="${BENCH_JOBS:-16}"
readonly latency_repeats="${BENCH_LATENCY_REPEATS:-10}"
readonly cases="${BENCH_CASES:-sparse oom-spam nccl-debug crash-tree}"
readonly dense_ranks="${BENCH_DENSE_RANKS:-64}"
readonly crash_jobs="${BENCH_CRASH_JOBS:-64}"

note() { printf 'bench: %s\n' "$*" >&2; }
die() { note "$*"; exit 2; }

# --- binaries -------------------------------------------------------------------------------

find_built_binary() {  # NAME: prints the path of an executable NAME under build/, if any
  [[ -d "$build_dir" ]] || return 0
  if [[ -x "$build_dir/$1" ]]; then echo "$build_dir/$1"; return 0; fi
  find "$build_dir" -maxdepth 4 -type f -name "$1" -perm -u+x -print -quit 2>/dev/null
}

build_missing_binaries() {
  if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
    note "configuring $build_dir (Release)"
    cmake -S "$repo_root" -B "$build_dir" -DCMAKE_BUILD_TYPE=Release >&2
  fi
  note "building faultline and faultline-genlog"
  cmake --build "$build_dir" --target faultline faultline-genlog faultline-genjobs -j "$(nproc)" >&2 ||
    note "build failed; benchmarking whatever is available"
}

locate_binaries() {
  faultline="${FAULTLINE:-$(find_built_binary faultline)}"
  genlog="${GENLOG:-$(find_built_binary faultline-genlog)}"
  genjobs="${GENJOBS:-$(find_built_binary faultline-genjobs)}"
  if [[ -z "$faultline" || -z "$genlog" || -z "$genjobs" ]]; then
    build_missing_binaries
    faultline="${FAULTLINE:-$(find_built_binary faultline)}"
    genlog="${GENLOG:-$(find_built_binary faultline-genlog)}"
    genjobs="${GENJOBS:-$(find_built_binary faultline-genjobs)}"
  fi
  [[ -n "$genlog" ]] || die "faultline-genlog not found and could not be built"
  [[ -n "$faultline" ]] || note "faultline not found: its rows (and rg's, which need its patterns) are skipped"
}

# --- input ----------------------------------------------------------------------------------

generate_log_once() {  # sets $log
  log="$bench_dir/genlog-$size-r$ranks-s$seed.log"
  if [[ -s "$log" ]]; then
    note "reusing $log"
    return
  fi
  note "generating $size log with $ranks ranks, seed $seed"
  "$genlog" --size "$size" --ranks "$ranks" --seed "$seed" -o "$log.partial"
  mv "$log.partial" "$log"
}

write_patterns() {  # sets $patterns (empty when unavailable) and $rg_patterns, $rg_left_out
  patterns=""
  rg_patterns=""
  rg_left_out=0
  [[ -n "$faultline" ]] || return 0
  local file="$bench_dir/patterns.txt"
  if "$faultline" rules patterns >"$file" 2>"$bench_dir/patterns.err" && [[ -s "$file" ]]; then
    patterns="$file"
  else
    note "'faultline rules patterns' failed or printed nothing (see $bench_dir/patterns.err): rg skipped"
    return 0
  fi
  command -v rg >/dev/null || return 0
  # rg's regex crate refuses `\"` and, line by line, a pattern that must match a newline.
  rg_patterns="$bench_dir/patterns-rg.txt"
  local pattern
  : >"$rg_patterns"
  while IFS= read -r pattern; do
    pattern="${pattern//\\\"/\"}"
    if printf 'x\n' | rg --no-unicode -q -e "$pattern" 2>/dev/null || [[ $? -eq 1 ]]; then
      printf '%s\n' "$pattern" >>"$rg_patterns"
    else
      rg_left_out=$((rg_left_out + 1))
    fi
  done <"$patterns"
}

# A dense log (issue 16), generated once: KIND is genlog's --dense; sets $dense_log.
generate_dense_log_once() {
  dense_log="$bench_dir/genlog-$1-$size-r$dense_ranks-s$seed.log"
  if [[ -s "$dense_log" ]]; then
    note "reusing $dense_log"
    return
  fi
  note "generating $size $1 log with $dense_ranks ranks, seed $seed"
  "$genlog" --dense "$1" --size "$size" --ranks "$dense_ranks" --seed "$seed" -o "$dense_log.partial"
  mv "$dense_log.partial" "$dense_log"
}

# BENCH_CRASH_JOBS crashed jobs of genjobs, about SIZE uncompressed (a job-attempt is ~4.3 KB);
# sets $crash_dir and $crash_bytes (uncompressed, as scan counts them).
prepare_crash_tree_once() {
  local bytes attempts
  bytes="$(numfmt --from=iec "$size")"
  attempts=$((bytes / (crash_jobs * 4300) + 1))
  crash_dir="$bench_dir/crash-tree-$size-j$crash_jobs-s$seed"
  if [[ ! -d "$crash_dir/logs" ]]; then
    note "generating $crash_jobs crashed jobs, $attempts attempts each"
    rm -rf "$crash_dir.partial"
    "$genjobs" --jobs "$crash_jobs" --attempts "$attempts" --seed "$seed" --out-dir "$crash_dir.partial" 2>/dev/null
    mv "$crash_dir.partial" "$crash_dir"
  fi
  crash_bytes="$("$faultline" scan -q -j 2 "$crash_dir/logs" 2>/dev/null | tail -n 1 |
    grep -o '"bytes":[0-9]*' | tail -n 1 | cut -d: -f2 || true)"
  [[ -n "$crash_bytes" ]] || crash_bytes="$(du -sb "$crash_dir/logs" | cut -f1)"
}

prepare_jobs_once() {  # sets $jobs_dir: BENCH_JOBS job archives, SIZE/8 in all
  jobs_dir="$bench_dir/jobs-$size-j$job_count-s$seed"
  if [[ -d "$jobs_dir/archives" ]]; then
    note "reusing $jobs_dir"
    return
  fi
  note "generating $job_count job archives"
  local bytes
  bytes="$(numfmt --from=iec "$size")"
  rm -rf "$jobs_dir.partial"
  "$genlog" --files "$job_count" --out-dir "$jobs_dir.partial/folders" --size "$((bytes / 8))" \
    --ranks "$ranks" --seed "$seed" >/dev/null
  mkdir -p "$jobs_dir.partial/archives"
  local job
  for job in "$jobs_dir.partial/folders"/*/; do
    tar -C "$job" -czf "$jobs_dir.partial/archives/$(basename "$job").tar.gz" .
  done
  rm -rf "$jobs_dir.partial/folders"
  mv "$jobs_dir.partial" "$jobs_dir"
}

prepare_paste_once() {  # sets $paste: the log's first 10,000 lines
  paste="$bench_dir/paste-10k-$size-s$seed.log"
  [[ -s "$paste" ]] || head -n 10000 "$log" >"$paste"
}

# --- measuring ------------------------------------------------------------------------------

# measure NAME OK_CODES OUTPUT CMD...: runs CMD once with stdout to OUTPUT and appends
# "seconds rss_kb" to $bench_dir/NAME.times. Wall time comes from the nanosecond clock (GNU
# time's %e has only 10 ms steps); peak RSS from /usr/bin/time when present. OK_CODES lists
# the exit codes that are not errors, like "0 1".
measure() {
  local name="$1" ok_codes="$2" output="$3"
  shift 3
  local rss_file="$bench_dir/$name.rss" errors="$bench_dir/$name.err" code=0 start end rss="n/a"
  start="$(date +%s%N)"
  if [[ -x "$gnu_time" ]]; then
    "$gnu_time" -f '%M' -o "$rss_file" "$@" >"$output" 2>"$errors" || code=$?
  else
    "$@" >"$output" 2>"$errors" || code=$?
  fi
  end="$(date +%s%N)"
  # GNU time writes "Command exited with non-zero status N" before the format line.
  [[ -x "$gnu_time" ]] && rss="$(tail -n 1 "$rss_file")"
  if [[ " $ok_codes " != *" $code "* ]]; then
    note "$name exited with $code (see $errors)"
    failed_tools+=" $name"
  fi
  awk -v ns="$((end - start))" -v rss="$rss" 'BEGIN { printf "%.3f %s\n", ns / 1e9, rss }' \
    >>"$bench_dir/$name.times"
}

median_column() {  # FILE COLUMN: median of a numeric column, or n/a
  awk -v column="$2" '$column ~ /^[0-9.]+$/ { print $column }' "$1" | sort -g |
    awk '{ values[NR] = $1 } END {
           if (NR == 0) { print "n/a"; exit }
           median = (NR % 2) ? values[(NR + 1) / 2] : (values[NR / 2] + values[NR / 2 + 1]) / 2
           printf "%.3f\n", median }'
}

has_case() { [[ " $cases " == *" $1 "* ]]; }

# One round of a log case: cat, rg and faultline over LOG, named PREFIX_cat etc.
measure_log_case() {
  local prefix="$1" log_file="$2"
  measure "${prefix}cat" "0" /dev/null cat "$log_file"
  if [[ -n "$rg_patterns" ]]; then  # not /dev/null: some tools stop early when output is discarded
    # --no-unicode: RE2, which faultline uses, gives \b \d \w \s their ASCII meaning; with
    # Unicode classes rg leaves its fast engines for these patterns and takes minutes.
    measure "${prefix}rg" "0 1" "$bench_dir/${prefix}rg.out" rg -c --no-unicode -f "$rg_patterns" "$log_file"
  fi
  [[ -z "$faultline" ]] ||
    measure "${prefix}faultline" "0 1" /dev/null "$faultline" diagnose --format json "$log_file"
}

run_measurements() {
  rm -f "$bench_dir"/*.times "$bench_dir"/*.rss "$bench_dir"/*.timing
  local round
  for ((round = 1; round <= repeats; round++)); do
    note "round $round/$repeats"
    if has_case sparse; then
      cat "$log" >/dev/null  # warm the page cache, untimed
      measure_log_case "" "$log"
      if [[ -n "$faultline" ]]; then
        measure scan_j1 "0 1 2" /dev/null "$faultline" scan -q -j 1 "$jobs_dir/archives"
        measure scan_j2 "0 1 2" /dev/null "$faultline" scan -q -j 2 "$jobs_dir/archives"
      fi
    fi
    if has_case oom-spam; then
      cat "$oom_log" >/dev/null
      measure_log_case oom_ "$oom_log"
    fi
    if has_case nccl-debug; then
      cat "$nccl_log" >/dev/null
      measure_log_case nccl_ "$nccl_log"
    fi
    if has_case crash-tree && [[ -n "$faultline" ]]; then
      # rg exits 2 at the tree's truncated .gz and reads on, as scan does.
      [[ -z "$rg_patterns" ]] ||
        measure crash_rg "0 1 2" "$bench_dir/crash_rg.out" rg -z -c --no-unicode -f "$rg_patterns" "$crash_dir/logs"
      measure crash_scan_j1 "0 1 2" /dev/null "$faultline" scan -q -j 1 "$crash_dir/logs"
      measure crash_scan_j2 "0 1 2" /dev/null "$faultline" scan -q -j 2 "$crash_dir/logs"
    fi
  done
  has_case sparse || return 0
  local run
  for ((run = 1; run <= latency_repeats; run++)); do
    measure cat_paste "0" /dev/null cat "$paste"
    [[ -z "$faultline" ]] || measure paste "0 1" /dev/null "$faultline" diagnose "$paste"
  done
}

# --- report ---------------------------------------------------------------------------------

throughput() {  # SECONDS [BYTES]: GB/s of BYTES (default: the log), or n/a
  awk -v bytes="${2:-$log_bytes}" -v seconds="$1" 'BEGIN {
    if (seconds !~ /^[0-9.]+$/) print "n/a"
    else if (seconds == 0) print "inf"
    else printf "%.3f", bytes / 1e9 / seconds }'
}

ratio() {  # A B: A / B to two places, or n/a
  awk -v a="$1" -v b="$2" 'BEGIN {
    if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || b == 0) print "n/a"; else printf "%.2fx", a / b }'
}

table_row() {  # TOOL COMMAND [-|BYTES]: with "-", no GB/s; with BYTES, GB/s of BYTES
  local tool="$1" command="$2" over_log="${3:-yes}" times="$bench_dir/$1.times"
  [[ -s "$times" ]] || return 0
  local seconds rss_kb rss_mib
  seconds="$(median_column "$times" 1)"
  rss_kb="$(median_column "$times" 2)"
  rss_mib="$(awk -v kb="$rss_kb" 'BEGIN { if (kb ~ /^[0-9.]+$/) printf "%.1f", kb / 1024; else print "n/a" }')"
  local gbps="-"
  if [[ "$over_log" =~ ^[0-9]+$ ]]; then
    gbps="$(throughput "$seconds" "$over_log")"
  elif [[ "$over_log" != "-" ]]; then
    gbps="$(throughput "$seconds")"
  fi
  printf -v "${tool}_gbps" '%s' "$gbps"
  printf '%-16s %9s %8s %14s   %s\n' "$tool" "$seconds" "$gbps" "$rss_mib" "$command"
}

print_dense_case() {  # PREFIX TITLE LOG
  local prefix="$1" title="$2" log_file="$3" log_bytes
  log_bytes="$(stat -c %s "$log_file")"
  printf '\n%s: %s (%s bytes, %s ranks)\n' "$title" "$log_file" "$log_bytes" "$dense_ranks"
  printf '%-16s %9s %8s %14s   %s\n' tool seconds GB/s "peak RSS MiB" command
  table_row "${prefix}cat" "cat LOG > /dev/null"
  table_row "${prefix}rg" "rg -c --no-unicode -f patterns-rg.txt LOG ($(cat "$bench_dir/${prefix}rg.out" 2>/dev/null || echo 0) lines matched)"
  table_row "${prefix}faultline" "faultline diagnose --format json LOG > /dev/null"
  local fl rg cat  # same bytes: throughput ratios are inverse time ratios
  fl="$(median_column "$bench_dir/${prefix}faultline.times" 1 2>/dev/null || echo n/a)"
  rg="$(median_column "$bench_dir/${prefix}rg.times" 1 2>/dev/null || echo n/a)"
  cat="$(median_column "$bench_dir/${prefix}cat.times" 1 2>/dev/null || echo n/a)"
  printf '   faultline throughput / rg throughput: %s (target 1x); / cat throughput: %s\n' \
    "$(ratio "$rg" "$fl")" "$(ratio "$cat" "$fl")"
}

print_report() {
  local cat_gbps="n/a" rg_gbps="n/a" faultline_gbps="n/a"
  local rg_version pattern_count="-"
  rg_version="$(rg --version 2>/dev/null | head -n 1 || true)"
  if [[ -n "$patterns" ]]; then
    pattern_count="$(grep -c . "$patterns") ($rg_left_out left out for rg)"
  fi
  printf 'faultline benchmark, %s\n' "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  printf 'cpu: %s, %s cores; %s; patterns: %s; median of %s runs\n' \
    "$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null)" "$(nproc)" \
    "${rg_version:-rg n/a}" "$pattern_count" "$repeats"
  [[ -x "$gnu_time" ]] || printf 'note: /usr/bin/time missing (apt-get install time); no RSS\n'
  if has_case sparse; then
    printf '\nsparse: %s (%s bytes, %s ranks, seed %s)\n' "$log" "$log_bytes" "$ranks" "$seed"
    printf '%-16s %9s %8s %14s   %s\n' tool seconds GB/s "peak RSS MiB" command
    table_row cat "cat LOG > /dev/null"
    table_row rg "rg -c --no-unicode -f patterns-rg.txt LOG ($(cat "$bench_dir/rg.out" 2>/dev/null || echo 0) lines matched)"
    table_row faultline "faultline diagnose --format json LOG > /dev/null"
    table_row scan_j1 "faultline scan -j 1 JOBS ($job_count job archives)" -
    table_row scan_j2 "faultline scan -j 2 JOBS" -
    table_row cat_paste "cat PASTE (10,000 lines)" -
    table_row paste "faultline diagnose PASTE" -
    local scan_j1_seconds scan_j2_seconds paste_seconds cat_paste_seconds
    scan_j1_seconds="$(median_column "$bench_dir/scan_j1.times" 1 2>/dev/null || echo n/a)"
    scan_j2_seconds="$(median_column "$bench_dir/scan_j2.times" 1 2>/dev/null || echo n/a)"
    paste_seconds="$(median_column "$bench_dir/paste.times" 1 2>/dev/null || echo n/a)"
    cat_paste_seconds="$(median_column "$bench_dir/cat_paste.times" 1 2>/dev/null || echo n/a)"
    printf '1. single thread: faultline throughput / rg throughput:  %s (target 6x)\n' \
      "$(ratio "$faultline_gbps" "$rg_gbps")"
    printf '   faultline throughput / cat throughput: %s\n' "$(ratio "$faultline_gbps" "$cat_gbps")"
    printf '2. scan -j 2 throughput / scan -j 1 throughput: %s (target 1.8x)\n' \
      "$(ratio "$scan_j1_seconds" "$scan_j2_seconds")"
    printf '3. paste of 10,000 lines: %s s (target 0.030 s); faultline time / cat time: %s\n' \
      "$paste_seconds" "$(ratio "$paste_seconds" "$cat_paste_seconds")"
  fi
  has_case oom-spam && print_dense_case oom_ "oom-spam" "$oom_log"
  has_case nccl-debug && print_dense_case nccl_ "nccl-debug" "$nccl_log"
  if has_case crash-tree; then
    printf '\ncrash-tree: %s (%s jobs, %s bytes uncompressed)\n' "$crash_dir/logs" "$crash_jobs" "$crash_bytes"
    printf '%-16s %9s %8s %14s   %s\n' tool seconds GB/s "peak RSS MiB" command
    table_row crash_rg "rg -z -c --no-unicode -f patterns-rg.txt TREE" "$crash_bytes"
    table_row crash_scan_j1 "faultline scan -q -j 1 TREE" "$crash_bytes"
    table_row crash_scan_j2 "faultline scan -q -j 2 TREE" "$crash_bytes"
    local rg j1 j2
    rg="$(median_column "$bench_dir/crash_rg.times" 1 2>/dev/null || echo n/a)"
    j1="$(median_column "$bench_dir/crash_scan_j1.times" 1 2>/dev/null || echo n/a)"
    j2="$(median_column "$bench_dir/crash_scan_j2.times" 1 2>/dev/null || echo n/a)"
    printf '   scan -j 1 throughput / rg -z throughput: %s (target 1x); scan -j 2 / scan -j 1: %s (target 1.8x)\n' \
      "$(ratio "$rg" "$j1")" "$(ratio "$j1" "$j2")"
  fi
  [[ -z "$failed_tools" ]] || printf 'warning: unexpected exit codes from:%s\n' "$failed_tools"
}

main() {
  command -v rg >/dev/null || note "rg not found (apt-get install ripgrep): rg skipped"
  mkdir -p "$bench_dir"
  cd "$repo_root"
  locate_binaries
  write_patterns
  log_bytes=0
  if has_case sparse; then
    generate_log_once
    log_bytes="$(stat -c %s "$log")"
    prepare_jobs_once
    prepare_paste_once
  fi
  if has_case oom-spam; then
    generate_dense_log_once oom-spam
    oom_log="$dense_log"
  fi
  if has_case nccl-debug; then
    generate_dense_log_once nccl-debug
    nccl_log="$dense_log"
  fi
  if has_case crash-tree; then
    [[ -n "$genjobs" ]] || die "faultline-genjobs not found and could not be built"
    prepare_crash_tree_once
  fi
  failed_tools=""
  run_measurements
  print_report | tee "$bench_dir/bench-results.txt"
  note "results written to $bench_dir/bench-results.txt"
}

main
