#!/usr/bin/env bash
# The test command (README): release build + every test, then the sanitizer build + every test,
# then a fixed-seed slice of each libFuzzer target. The sanitizer build is one clang++ build
# (preset `asan`: ASan+UBSan and libFuzzer's instrumentation) that holds both the sanitizer tests
# and the fuzz targets, so the slices need no build of their own; without clang++ it is the g++
# ASan+UBSan build (preset `asan-gcc`) and the slices are skipped. Each stage's time goes to
# build/stage-times.txt, printed at the end, so every run (CI's included) shows what it cost.
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
mkdir -p build
TIMES=build/stage-times.txt
: >"$TIMES"
stage() {  # stage NAME COMMAND...: runs it and records its wall time
  local name=$1 start=$SECONDS
  shift
  "$@"
  printf '%-28s %5d s\n' "$name" $((SECONDS - start)) >>"$TIMES"
}
# Both builds compile in unity chunks (TFSPEC_UNITY, cmake/unity.cmake): about half the compile work.
echo "== release build and tests"
stage "release configure" cmake --preset default -DTFSPEC_WERROR=ON -DTFSPEC_UNITY=ON >/dev/null
stage "release build" cmake --build --preset default -j "$JOBS"
# The NCCL executor (issue 35) is compiled and linked wherever the CUDA toolkit ships NCCL (this
# project's machines: nccl.h beside nvcc's include/): a build that lost it fails here, not silently.
NVCC=$(command -v nvcc || true)
if [ -n "$NVCC" ] && [ -f "$(dirname "$NVCC")/../include/nccl.h" ]; then
  [ -f build/multigpu/libtfspec_multigpu_nccl.a ] || { echo "test.sh: the CUDA toolkit ships NCCL but the NCCL executor was not built"; exit 1; }
  ldd build/cli/tfspec | grep libnccl >/dev/null || { echo "test.sh: build/cli/tfspec does not link libnccl (reshard-run --executor nccl)"; exit 1; }
  echo "== NCCL executor built and linked into build/cli/tfspec"
fi
stage "release tests" ctest --preset default -j "$JOBS"
SAN=asan-gcc
command -v clang++ >/dev/null && SAN=asan
echo "== sanitizer build (ASan+UBSan, preset $SAN) and tests"
stage "asan configure" cmake --preset "$SAN" -DTFSPEC_WERROR=ON -DTFSPEC_UNITY=ON >/dev/null
stage "asan build" cmake --build --preset "$SAN" -j "$JOBS"  # with clang++: the fuzz targets too
stage "asan tests" ctest --preset "$SAN" -j "$JOBS"
if [ "$SAN" = asan ]; then
  echo "== libFuzzer targets, a fixed-seed slice of ${FUZZ_RUNS:-20000} runs each (fuzz/RESULTS.md)"
  # The targets that run Z3 or propagate per input get a smaller count, so the count still bounds them.
  # (Counts cut by a third on 2026-12-06 to keep CI under 30 minutes; longer campaigns: scripts/fuzz.sh.)
  export FUZZ_RUNS_smt2_path=${FUZZ_RUNS_smt2_path:-1000} FUZZ_RUNS_propagate_program=${FUZZ_RUNS_propagate_program:-2000} \
    FUZZ_RUNS_reshard_plan_request=${FUZZ_RUNS_reshard_plan_request:-1700} FUZZ_RUNS_symbolic_layout=${FUZZ_RUNS_symbolic_layout:-200} \
    FUZZ_RUNS_layout_text=${FUZZ_RUNS_layout_text:-7000} FUZZ_RUNS_smem_request=${FUZZ_RUNS_smem_request:-1000} \
    FUZZ_RUNS_rerun_report=${FUZZ_RUNS_rerun_report:-3500} FUZZ_RUNS_kernel_pipeline=${FUZZ_RUNS_kernel_pipeline:-700} \
    FUZZ_RUNS=${FUZZ_RUNS:-13000}
  stage "fuzz slices" scripts/fuzz.sh "${FUZZ_SECONDS:-120}"  # the run count bounds it; the time only caps a slow machine
fi
echo "== stage times ($TIMES)"
cat "$TIMES"
