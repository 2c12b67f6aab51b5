#!/usr/bin/env bash
# The GPU check (issue 11): build for sm_90, run the GPU tests, a fixed-seed CUDA fuzz slice and
# the GPU benchmarks, and write every log and report under $OUT (default ./gpu-check-out).
# Needs nvcc and a CUDA device (and the Debian packages of scripts/setup.sh already installed:
# the device machine has no network). Exits non-zero when any step fails, and when the CUDA
# backend is unavailable (tfspec fuzz exits 5 then: a skip is never a pass).
#   FUZZ_SECONDS (default 60), BUILD (default build-gpu-check), OUT
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
BUILD=${BUILD:-build-gpu-check}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
mkdir -p "$OUT"
status=0
step() {  # step NAME CMD...: runs CMD, its output to $OUT/NAME.log and the terminal
  local name=$1
  shift
  echo "== $name: $*"
  "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc" | tee -a "$OUT/summary.txt"
  [ "$rc" -eq 0 ] || status=1
}
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>&1 || echo "nvidia-smi: not available"
} | tee "$OUT/summary.txt"
step configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual"
step build cmake --build "$BUILD" -j"$(nproc)" --target gpu_tests tfspec bench_gpu
step gpu-tests "$BUILD/gpu/gpu_tests" --gtest_output="xml:$OUT/gpu_tests.xml"
grep -q "SKIPPED" "$OUT/gpu-tests.log" && { echo "== gpu-tests: a GPU test was skipped (no usable device)" | tee -a "$OUT/summary.txt"; status=1; }
step fuzz-cuda "$BUILD/cli/tfspec" fuzz --backend cuda --seconds "$FUZZ_SECONDS" --seed 1 --junit "$OUT/fuzz-cuda.xml"
step bench-gpu "$BUILD/bench/bench_gpu" --benchmark_min_time=0.5 --benchmark_out="$OUT/bench_gpu.json" --benchmark_out_format=json
echo "gpu-check: $([ $status -eq 0 ] && echo PASS || echo FAIL); results in $OUT" | tee -a "$OUT/summary.txt"
exit $status
