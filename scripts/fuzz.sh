#!/usr/bin/env bash
# scripts/fuzz.sh SECONDS [TARGET...]: builds the libFuzzer targets in the sanitizer build (preset
# `asan`, clang++, build-asan/: the build scripts/test.sh also runs the sanitizer tests in) and
# runs each for SECONDS, JOBS (default 2) at a time; no TARGET: every target fuzz/CMakeLists.txt defines
# (build-asan/fuzz/targets.txt). The seed corpus (fuzz/corpus/TARGET) is read-only; new inputs go
# to build-asan/fuzz-corpus/TARGET, crashes to build-asan/fuzz-artifacts/. Exit 1 on a finding.
# Without clang++ it says so and exits 0 (the fuzz targets need libFuzzer). FUZZ_SEED (default 1)
# fixes libFuzzer's seed; FUZZ_RUNS bounds the executions as well, so CI's slice is reproducible
# (FUZZ_RUNS_<target> sets one target's count: the targets that run the solver or propagate
# itself execute tens of inputs per second, not thousands).
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
TARGETS=("$@")
if ! command -v clang++ >/dev/null; then
  echo "fuzz: clang++ not found; skipping the libFuzzer targets"
  exit 0
fi
JOBS=${JOBS:-2}
B=build-asan
cmake --preset asan >/dev/null  # keeps the cache's other settings (scripts/test.sh: -DTFSPEC_WERROR=ON)
[ ${#TARGETS[@]} -eq 0 ] && mapfile -t TARGETS <"$B/fuzz/targets.txt"
cmake --build "$B" -j "$JOBS" --target "${TARGETS[@]/#/fuzz_}"
mkdir -p "$B/fuzz-artifacts"
# One target per core at a time (JOBS, default 2): each target is one single-threaded libFuzzer
# process, so running them side by side halves the slices' wall time and changes no run.
run_one() {  # run_one TARGET: its slice; the summary goes to $B/fuzz/fuzz_TARGET.summary, exit 1 on a finding
  local t=$1 runs_var="FUZZ_RUNS_$1"  # a slow target's own count (FUZZ_RUNS_smt2_path=2000), else FUZZ_RUNS
  local runs=${!runs_var:-${FUZZ_RUNS:-}} log="$B/fuzz/fuzz_$1.log" sum="$B/fuzz/fuzz_$1.summary"
  mkdir -p "$B/fuzz-corpus/$t"
  echo "== fuzz_$t for ${SECONDS_EACH}s" >"$sum"
  if ! "$B/fuzz/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
        -seed="${FUZZ_SEED:-1}" ${runs:+-runs=$runs} \
        -dict=fuzz/tfspec.dict -artifact_prefix="$B/fuzz-artifacts/$t-" -print_final_stats=1 \
        "$B/fuzz-corpus/$t" "fuzz/corpus/$t" >"$log" 2>&1; then
    { echo "fuzz_$t: FINDING (see $log and $B/fuzz-artifacts/)"; tail -n 40 "$log"; } >>"$sum"
    return 1
  fi
  grep -E "^stat::number_of_executed_units|^Done [0-9]+ runs" "$log" >>"$sum" || true
}
status=0
pids=()
names=()
for t in "${TARGETS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
  run_one "$t" &
  pids+=($!)
  names+=("$t")
done
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || status=1
  cat "$B/fuzz/fuzz_${names[$i]}.summary"
done
exit $status
