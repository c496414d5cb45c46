#!/usr/bin/env bash
# The bounded fuzz run of make test (after ctest): builds the libFuzzer binaries with
# clang in <build>/fuzz (the library itself instrumented: CMake option VIGIL_FUZZ), and
# for each harness (mq_fuzz: the shared-memory queue; net_fuzz: the sockets API's data
# operation sequences; conn_fuzz: its listen/accept/connect sequences) replays every input kept in the tree (fuzz/corpus/<h>: the seed
# corpus; fuzz/crashes/<h>: every crash, hang or model disagreement found so far:
# fuzz/README.md), then fuzzes deterministically (-seed=1, a fixed number of runs, at
# most FUZZ_MAX_S seconds) from them. Prints one result line per harness:
# "fuzz: <h> PASS|FAILED|SKIPPED ...". Exit 1 on a failure; a missing clang is a skip
# with its reason (exit 0), never a silent pass.
# Usage: scripts/fuzz.sh <build dir> [mq runs]   (FUZZ_RUNS, FUZZ_NET_RUNS, FUZZ_CONN_RUNS, FUZZ_MAX_S override)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz.sh <build dir> [runs]}
mq_runs=${2:-${FUZZ_RUNS:-30000}}
net_runs=${FUZZ_NET_RUNS:-2000}
conn_runs=${FUZZ_CONN_RUNS:-2000}
max_s=${FUZZ_MAX_S:-60}
dir="$build/fuzz"
mkdir -p "$dir"
log="$dir/fuzz.log"
: > "$log"

skip() { echo "fuzz: mq_fuzz, net_fuzz, conn_fuzz SKIPPED: $*"; exit 0; }

cc=$(command -v clang-14 || command -v clang || true)
[ -n "$cc" ] || skip "no clang-14 (scripts/deps.sh test installs clang-14 and libclang-rt-14-dev)"
# libFuzzer's runtime is a separate Debian package (libclang-rt-14-dev): try a link.
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n; }\n' > "$dir/probe.c"
"$cc" -fsanitize=fuzzer,address "$dir/probe.c" -o "$dir/probe" >> "$log" 2>&1 ||
  skip "$cc cannot link -fsanitize=fuzzer (libclang-rt-14-dev missing?): see $log"

t0=$(date +%s)
if ! { CC="$cc" cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIGIL_FUZZ=ON -DVIGIL_WERROR=ON &&
       cmake --build "$dir" --target mq_fuzz net_fuzz conn_fuzz -j "$(nproc)" -- --no-print-directory; } >> "$log" 2>&1; then
  tail -n 20 "$log"
  echo "fuzz: mq_fuzz, net_fuzz, conn_fuzz FAILED: the clang fuzz build failed (log: $log)"
  exit 1
fi
t1=$(date +%s)
echo "fuzz: clang build $((t1 - t0)) s"

# fuzz_one <harness> <kept dir name> <runs>: prints the harness's result line; 1 on failure.
fuzz_one() {
  local h=$1 k=$2 runs=$3
  local bin="$dir/fuzz/$h" hlog="$dir/$h.log"
  : > "$hlog"
  local ta tb tc
  ta=$(date +%s)
  # 1. Replay: each kept input once; any crash, hang (-timeout) or model disagreement fails.
  local kept
  mapfile -t kept < <(find "$root/fuzz/corpus/$k" "$root/fuzz/crashes/$k" -type f ! -name 'README*' 2>/dev/null | sort)
  if [ ${#kept[@]} -gt 0 ]; then
    if ! "$bin" -timeout=10 "${kept[@]}" >> "$hlog" 2>&1; then
      grep -E "^($h|==[0-9]+==|SUMMARY)" "$hlog" | tail -n 12
      local bad
      bad=$(grep -E '^Running: ' "$hlog" | tail -n 1 | cut -d' ' -f2-)
      echo "fuzz: $h FAILED: an input kept in the tree fails again: $bad (reproduce: $bin $bad; log: $hlog)"
      return 1
    fi
  fi
  tb=$(date +%s)
  # 2. Fuzz: a fresh work corpus (new inputs go there, never into the tree); the kept
  #    inputs are the seeds. Artifacts (crash-*, timeout-*) land in $dir/artifacts-<h>/.
  local work="$dir/work-$h" art="$dir/artifacts-$h"
  rm -rf "$work" "$art"
  mkdir -p "$work" "$art"
  "$bin" -seed=1 -runs="$runs" -max_total_time="$max_s" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$art/" "$work" "$root/fuzz/corpus/$k" "$root/fuzz/crashes/$k" >> "$hlog" 2>&1
  local rc=$?
  tc=$(date +%s)
  local cov done_runs
  cov=$(grep -oE 'cov: [0-9]+' "$hlog" | tail -n 1 | grep -oE '[0-9]+')
  done_runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$hlog" | grep -oE '[0-9]+$' | tail -n 1)
  if [ $rc -ne 0 ]; then
    grep -E "^($h|==[0-9]+==|SUMMARY|artifact_prefix|    #[0-9] )" "$hlog" | tail -n 20
    local a
    a=$(ls "$art" 2>/dev/null | head -n 1)
    echo "fuzz: $h FAILED: a crash, hang or model disagreement after ${done_runs:-?} runs; input: $art/$a (reproduce: $bin $art/$a; keep it in fuzz/crashes/$k/ with the fix; log: $hlog)"
    return 1
  fi
  local note=""
  [ "${done_runs:-0}" -lt "$runs" ] && note=" (stopped at the ${max_s} s cap: a slow machine)"
  echo "fuzz: $h PASS: replayed ${#kept[@]} kept inputs ($((tb - ta)) s), then ${done_runs:-?} of $runs runs with -seed=1 in $((tc - tb)) s$note, cov: ${cov:-?} edges, no crash (log: $hlog)"
  return 0
}

rc=0
fuzz_one mq_fuzz mq "$mq_runs" || rc=1
fuzz_one net_fuzz net "$net_runs" || rc=1
fuzz_one conn_fuzz conn "$conn_runs" || rc=1
exit $rc
