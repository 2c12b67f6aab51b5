#!/usr/bin/env python3
"""The host backend's ratios of issue 23, from one bench_gpu run (single thread, CPU time, the
fastest of N repetitions: the machine is shared, so the minimum is the least disturbed run).

  offsets 2^20 / plain loop 2^20     >= 1.0   (in cache)
  offsets 2^22 / memcpy 2^22         >= 0.95  (same bytes written)
  gather 2^20 / memcpy 2^20          >= 0.5   (within 2x of memcpy)
  packed reshard 2^22 / memcpy 2^22  >= 0.95

Usage: bench/host-ratios.py BENCH_GPU [REPETITIONS]   (prints a Markdown table)
"""
import json, subprocess, sys

bench = sys.argv[1]
reps = sys.argv[2] if len(sys.argv) > 2 else "10"
names = ["Offsets_Host/20/1", "Offsets_Host/22/1", "Offsets_PlainLoop/20", "Offsets_PlainLoop/22", "Offsets_PlainLoopAvx2/20",
         "Memcpy_Host/20", "Memcpy_Host/22", "Gather_Host/1", "ReshardPacked_Host/1", "Memcpy_Host_RunBaseline/22"]
flt = "^(" + "|".join(n.replace("/", "/") for n in names) + ")$"
out = subprocess.run([bench, "--benchmark_filter=" + flt, "--benchmark_repetitions=" + reps, "--benchmark_min_time=0.1",
                      "--benchmark_format=json"], capture_output=True, text=True, check=True).stdout
best = {}
for b in json.loads(out)["benchmarks"]:
    if b.get("run_type") != "iteration":
        continue
    best[b["run_name"]] = min(best.get(b["run_name"], float("inf")), b["cpu_time"])
def ratio(fast, slow):  # speed of `fast` relative to `slow` (same elements): time(slow) / time(fast)
    return best[slow] / best[fast]
rows = [("offset table 2^20 vs plain loop 2^20 (-O2 + vectorizer, any x86-64)", ratio("Offsets_Host/20/1", "Offsets_PlainLoop/20"), 1.0),
        ("offset table 2^20 vs plain loop 2^20 compiled for AVX2", ratio("Offsets_Host/20/1", "Offsets_PlainLoopAvx2/20"), 1.0),
        ("offset table 2^22 vs memcpy of the same bytes", ratio("Offsets_Host/22/1", "Memcpy_Host/22"), 0.95),
        ("gather 2^20 (permuted layout) vs memcpy 2^20", ratio("Gather_Host/1", "Memcpy_Host/20"), 0.5),
        ("packed reshard 2^22 (runs) vs memcpy 2^22", ratio("ReshardPacked_Host/1", "Memcpy_Host_RunBaseline/22"), 0.95)]
print("| ratio (1 thread, fastest of %s) | measured | goal | |" % reps)
print("|---|---|---|---|")
for name, r, goal in rows:
    print("| %s | %.2fx | >= %.2fx | %s |" % (name, r, goal, "met" if r >= goal else "not met"))
print()
for n in names:
    print("- %s: %.3f ms CPU" % (n, best.get(n, float("nan"))))
