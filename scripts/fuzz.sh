#!/usr/bin/env bash
# The bounded fuzz run of make test (after ctest): builds the libFuzzer binary with
# clang in <build>/fuzz (the library itself instrumented: CMake option VIGIL_FUZZ),
# replays every input kept in the tree (fuzz/corpus/mq: the seed corpus; fuzz/crashes/mq:
# every crash, hang or model disagreement found so far: fuzz/README.md), then fuzzes
# deterministically (-seed=1, a fixed number of runs, at most FUZZ_MAX_S seconds) from
# them. Prints one result line: "fuzz: mq_fuzz PASS|FAILED|SKIPPED ...". Exit 1 on a
# failure; a missing clang is a skip with its reason (exit 0), never a silent pass.
# Usage: scripts/fuzz.sh <build dir> [runs]     (FUZZ_RUNS, FUZZ_MAX_S override)
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:?usage: fuzz.sh <build dir> [runs]}
runs=${2:-${FUZZ_RUNS:-30000}}
max_s=${FUZZ_MAX_S:-60}
dir="$build/fuzz"
mkdir -p "$dir"
log="$dir/fuzz.log"
: > "$log"

skip() { echo "fuzz: mq_fuzz SKIPPED: $*"; exit 0; }
fail() { echo "fuzz: mq_fuzz FAILED: $*"; exit 1; }

cc=$(command -v clang-14 || command -v clang || true)
[ -n "$cc" ] || skip "no clang-14 (scripts/deps.sh test installs clang-14 and libclang-rt-14-dev)"
# libFuzzer's runtime is a separate Debian package (libclang-rt-14-dev): try a link.
printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { return d && n; }\n' > "$dir/probe.c"
"$cc" -fsanitize=fuzzer,address "$dir/probe.c" -o "$dir/probe" >> "$log" 2>&1 ||
  skip "$cc cannot link -fsanitize=fuzzer (libclang-rt-14-dev missing?): see $log"

t0=$(date +%s)
if ! { CC="$cc" cmake -S "$root" -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DVIGIL_FUZZ=ON -DVIGIL_WERROR=ON &&
       cmake --build "$dir" --target mq_fuzz -j "$(nproc)" -- --no-print-directory; } >> "$log" 2>&1; then
  tail -n 20 "$log"
  fail "the clang fuzz build failed (log: $log)"
fi
bin="$dir/fuzz/mq_fuzz"
t1=$(date +%s)

# 1. Replay: each kept input once; any crash, hang (-timeout) or model disagreement fails.
mapfile -t kept < <(find "$root/fuzz/corpus/mq" "$root/fuzz/crashes/mq" -type f 2>/dev/null | sort)
if [ ${#kept[@]} -gt 0 ]; then
  if ! "$bin" -timeout=10 "${kept[@]}" >> "$log" 2>&1; then
    grep -E '^(mq_fuzz|==[0-9]+==|SUMMARY)' "$log" | tail -n 12
    bad=$(grep -E '^Running: ' "$log" | tail -n 1 | cut -d' ' -f2-)
    fail "an input kept in the tree fails again: $bad (reproduce: $bin $bad; log: $log)"
  fi
fi
t2=$(date +%s)

# 2. Fuzz: a fresh work corpus (new inputs go there, never into the tree); the kept
#    inputs are the seeds. Artifacts (crash-*, timeout-*) land in $dir/artifacts/.
rm -rf "$dir/work" "$dir/artifacts"
mkdir -p "$dir/work" "$dir/artifacts"
"$bin" -seed=1 -runs="$runs" -max_total_time="$max_s" -timeout=10 -print_final_stats=1 \
  -artifact_prefix="$dir/artifacts/" "$dir/work" "$root/fuzz/corpus/mq" "$root/fuzz/crashes/mq" >> "$log" 2>&1
rc=$?
t3=$(date +%s)
cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | grep -oE '[0-9]+')
done_runs=$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' | tail -n 1)
if [ $rc -ne 0 ]; then
  grep -E '^(mq_fuzz|==[0-9]+==|SUMMARY|artifact_prefix|    #[0-9] )' "$log" | tail -n 20
  art=$(ls "$dir/artifacts" 2>/dev/null | head -n 1)
  fail "a crash, hang or model disagreement after ${done_runs:-?} runs; input: $dir/artifacts/$art (reproduce: $bin $dir/artifacts/$art; keep it in fuzz/crashes/mq/ with the fix; log: $log)"
fi
note=""
[ "${done_runs:-0}" -lt "$runs" ] && note=" (stopped at the ${max_s} s cap: a slow machine)"
echo "fuzz: mq_fuzz PASS: replayed ${#kept[@]} kept inputs ($((t2 - t1)) s), then ${done_runs:-?} of $runs runs with -seed=1 in $((t3 - t2)) s$note, cov: ${cov:-?} edges, no crash (clang build $((t1 - t0)) s; log: $log)"
exit 0
