#!/usr/bin/env bash
# The GPU check (issues 11 and 13), one prepared run for a session that has a GPU (an H200 with
# 16 cores: about 6-8 minutes). Writes every log and report under $OUT (default ./gpu-check-out):
#   summary.txt            each step's exit code, PASS / FAIL, the device
#   check-kernels/         static check: ptxas --resource-usage, PTX, per-kernel table (no GPU needed)
#   gpu-tests.log/.xml     gpu_tests (CUDA backend tests; the kernel report: registers, occupancy)
#   fuzz-cuda-OP.log/.xml  fixed-seed `tfspec fuzz --backend cuda` slice, every op in turn
#   fuzz-host.log          the same seed on the host backend (cases/s side by side)
#   fuzz-props-cuda.log    props_tests FuzzCuda.* (every op, fixed seed, against the reference)
#   bench_gpu.json/.log    GPU benchmarks with cudaMemcpy device-to-device in the same run, 2^26+
#                          elements: offset tables, gather, contiguous-run reshard
#   nccl-reshard-run-*.log `tfspec reshard-run --executor nccl` under `mpiexec -n 1` (issue 35): a
#                          1-rank NCCL communicator runs a plan end to end on this GPU (an
#                          ncclAllReduce on a 1-rank communicator, local copies as cudaMemcpyAsync)
# Needs nvcc and the Debian packages of scripts/setup.sh already installed (no network there).
# Without a usable device it prints why, skips the device steps and exits 3 (a skip is never a
# pass); any failed step makes it exit 1.
#   FUZZ_SECONDS (per op, default 20), BUILD (default build-gpu-check), OUT, JOBS (default nproc)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-check-out}
BUILD=${BUILD:-build-gpu-check}
FUZZ_SECONDS=${FUZZ_SECONDS:-20}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"
: >"$OUT/summary.txt"
status=0
step() {  # step NAME LIMIT_S CMD...: runs CMD under a time limit, output to $OUT/NAME.log and the terminal
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*"
  local t0=$SECONDS
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$OUT/$name.log"
  local rc=${PIPESTATUS[0]}
  echo "== $name: exit $rc ($((SECONDS - t0)) s)" | tee -a "$OUT/summary.txt"
  [ "$rc" -eq 0 ] || status=1
  return "$rc"
}
{
  echo "gpu-check $(date -u +%Y-%m-%dT%H:%M:%SZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv,noheader 2>&1 || echo "nvidia-smi: not available"
  command -v nvcc >/dev/null && nvcc --version | tail -1
} | tee -a "$OUT/summary.txt"

if ! command -v nvcc >/dev/null; then
  echo "gpu-check: SKIP: no nvcc on PATH (the CUDA backend cannot be built)" | tee -a "$OUT/summary.txt"
  exit 3
fi
# Static kernel check first: it needs no device.
step check-kernels 300 scripts/check-kernels.sh --out "$OUT/check-kernels"

step configure 300 cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DTFSPEC_BENCH=ON \
  -DCMAKE_CUDA_ARCHITECTURES="90-real;90-virtual" || { echo "gpu-check: FAIL (configure)" | tee -a "$OUT/summary.txt"; exit 1; }
step build 600 cmake --build "$BUILD" -j"$JOBS" --target gpu_tests props_tests tfspec bench_gpu ||
  { echo "gpu-check: FAIL (build)" | tee -a "$OUT/summary.txt"; exit 1; }

# Is there a device? tfspec fuzz --backend cuda exits 5 with the CUDA error's name when not.
if ! "$BUILD/cli/tfspec" fuzz --backend cuda --max-cases 1 --quiet >"$OUT/device-probe.log" 2>&1; then
  {
    echo "gpu-check: SKIP the device steps: no usable CUDA device:"
    cat "$OUT/device-probe.log"
    echo "gpu-check: NOT A PASS (exit 3); the static kernel check above ran"
  } | tee -a "$OUT/summary.txt"
  exit 3
fi

step gpu-tests 300 "$BUILD/gpu/gpu_tests" --gtest_output="xml:$OUT/gpu-tests.xml"
grep -q "SKIPPED \]" "$OUT/gpu-tests.log" && { echo "== gpu-tests: a GPU test was skipped" | tee -a "$OUT/summary.txt"; status=1; }
step fuzz-props-cuda 300 "$BUILD/props/props_tests" --gtest_filter='*FuzzCuda.*' --gtest_output="xml:$OUT/fuzz-props-cuda.xml"
for op in offsets crd2idx gather scatter reshard; do
  step "fuzz-cuda-$op" $((FUZZ_SECONDS + 120)) "$BUILD/cli/tfspec" fuzz --backend cuda --seconds "$FUZZ_SECONDS" --seed 1 --op "$op" \
    --junit "$OUT/fuzz-cuda-$op.xml"
done
step fuzz-host 120 "$BUILD/cli/tfspec" fuzz --backend host --seconds 20 --seed 1
# The NCCL executor (issue 35, spec/MULTIGPU.md "An NCCL executor: build and test"): built when
# CMake found NCCL (the CUDA toolkit ships it) and MPI. One GPU: one rank, so the plans' groups
# have one device and the collectives degenerate (NCCL still runs their kernels on the stream).
if ! grep -q "^TFSPEC_NCCL_LIBRARY:FILEPATH=/" "$BUILD/CMakeCache.txt"; then
  echo "== nccl-reshard-run: SKIP: this build has no NCCL executor (CMake found no nccl.h / libnccl; see $OUT/configure.log)" | tee -a "$OUT/summary.txt"
  status=1
elif ! command -v mpiexec >/dev/null; then
  echo "== nccl-reshard-run: SKIP: no mpiexec on PATH (openmpi-bin, scripts/setup.sh)" | tee -a "$OUT/summary.txt"
  status=1
else
  nccl_run() {  # nccl_run NAME SRC DST SHAPE DTYPE: must exit 0 with the OK line
    step "nccl-reshard-run-$1" 120 mpiexec --allow-run-as-root -n 1 "$BUILD/cli/tfspec" reshard-run "$2" "$3" "$4" --dtype "$5" --executor nccl &&
      { grep -q "^OK: every rank's DST equals the reference's reshard" "$OUT/nccl-reshard-run-$1.log" ||
        { echo "== nccl-reshard-run-$1: no OK line" | tee -a "$OUT/summary.txt"; status=1; }; }
  }
  nccl_run allreduce-sum '(64, 1024) where x=P("sum") on x=1' '(64, 1024) on x=1' '(64,1024)' float32
  nccl_run allreduce-max 'shard((64,1024):None; P(max); device(1)|x=1)' 'shard((64,1024):None; B; device(1)|x=1)' '(64,1024)' int8
  nccl_run local-copies '(64 @ m.x, 1024) on x=1' '(64, 1024 @ m.x) on x=1' '(64,1024)' bfloat16
fi
step bench-gpu 420 "$BUILD/bench/bench_gpu" --benchmark_filter='Cuda' --benchmark_out="$OUT/bench_gpu.json" --benchmark_out_format=json
echo "gpu-check: $([ $status -eq 0 ] && echo PASS || echo FAIL); results in $OUT" | tee -a "$OUT/summary.txt"
exit $status
