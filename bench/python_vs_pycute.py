#!/usr/bin/env python3
"""tfspec's Python module against NVIDIA's pycute, in one process, on the same machine (issue 31).

    PYTHONPATH=build/python:PYCUTE_DIR python3 bench/python_vs_pycute.py [--repeat N]

PYCUTE_DIR holds the `pycute` package of CUTLASS (its python/ folder, or the nvidia-cutlass
wheel unpacked). NumPy, where importable, adds the offsets() row against numpy.copy and the
crd2idx row. Each row is the best of N repetitions (default 5) of the same work for both, the two
interleaved (the machine's load changes); the ratio is pycute's time over
tfspec's (above 1: tfspec is faster). Results go to bench/RESULTS.md by hand, with the date and
commit. Nothing here is a test: speed is measured, not asserted.
"""
import argparse
import sys
import time


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def pair(name, t_fn, p_fn, repeat):
    """(name, tfspec's best, pycute's best), the repetitions interleaved so that both see the same
    load on a shared machine."""
    t, p = [], []
    for _ in range(repeat):
        t.append(best(t_fn, 1))
        p.append(best(p_fn, 1))
    return (name, min(t), min(p))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    import tfspec
    try:
        import pycute
    except ImportError:
        print("skipped: pycute is not importable (put CUTLASS's python/ folder on PYTHONPATH)")
        return 77

    rows = []
    # L(i) over 50,000 indices of a 2^20-point layout (the measurement).
    shape, stride = ((32, 32), (32, 32)), ((1, 1024), (32, 32768))
    t_l = tfspec.Layout(shape, stride)
    p_l = pycute.Layout(shape, stride)
    assert all(t_l(i) == p_l(i) for i in range(0, 1 << 20, 977)), "the two disagree"
    rows.append(pair("L(i), 50,000 indices", lambda: [t_l(i) for i in range(50000)],
                     lambda: [p_l(i) for i in range(50000)], args.repeat))
    rows.append(pair("L((i, j)), 50,000 coordinates", lambda: [t_l((i & 1023, i >> 10)) for i in range(50000)],
                     lambda: [p_l((i & 1023, i >> 10)) for i in range(50000)], args.repeat))
    rows.append(pair("size() and cosize(), 50,000 each", lambda: [t_l.size() + t_l.cosize() for _ in range(50000)],
                     lambda: [pycute.size(p_l) + pycute.cosize(p_l) for _ in range(50000)], args.repeat))
    # The algebra, 5,000 calls each.
    a_t, b_t = tfspec.Layout((4, 8, 16), (8, 1, 32)), tfspec.Layout((2, 4), (1, 4))
    a_p, b_p = pycute.Layout((4, 8, 16), (8, 1, 32)), pycute.Layout((2, 4), (1, 4))
    rows.append(pair("composition, 5,000 calls", lambda: [tfspec.composition(a_t, b_t) for _ in range(5000)],
                     lambda: [pycute.composition(a_p, b_p) for _ in range(5000)], args.repeat))
    rows.append(pair("coalesce, 5,000 calls", lambda: [tfspec.coalesce(a_t) for _ in range(5000)],
                     lambda: [pycute.coalesce(a_p) for _ in range(5000)], args.repeat))
    # A coalesce / complement result is held flat until first used (python/src/convert.hpp): the
    # same calls with the result used once (r(1)), which builds it, so that cost shows too.
    rows.append(pair("coalesce + r(1), 5,000 calls", lambda: [tfspec.coalesce(a_t)(1) for _ in range(5000)],
                     lambda: [pycute.coalesce(a_p)(1) for _ in range(5000)], args.repeat))
    rows.append(pair("complement + r(1), 5,000 calls", lambda: [tfspec.complement(a_t, 8192)(1) for _ in range(5000)],
                     lambda: [pycute.complement(a_p, 8192)(1) for _ in range(5000)], args.repeat))
    # logical_divide((4,8,16):(8,1,32), (2,4):(1,4)) and complement((4,8,16):(8,1,32), 8192)
    assert str(tfspec.logical_divide(a_t, b_t)) == str(pycute.logical_divide(a_p, b_p)).replace(" ", "")
    rows.append(pair("logical_divide, 5,000 calls", lambda: [tfspec.logical_divide(a_t, b_t) for _ in range(5000)],
                     lambda: [pycute.logical_divide(a_p, b_p) for _ in range(5000)], args.repeat))
    assert str(tfspec.complement(a_t, 8192)) == str(pycute.complement(a_p, 8192)).replace(" ", "")
    rows.append(pair("complement, 5,000 calls", lambda: [tfspec.complement(a_t, 8192) for _ in range(5000)],
                     lambda: [pycute.complement(a_p, 8192) for _ in range(5000)], args.repeat))
    # offsets() of a 2^22-point layout against the per-index loop of pycute (first 2^16 indices,
    # scaled) and, where NumPy is here, numpy.copy of as many int64.
    big_t = tfspec.Layout(((64, 64), (32, 32)), ((1, 4096), (64, 262144)))
    offsets = best(lambda: big_t.offsets(), args.repeat)
    big_p = pycute.Layout(((64, 64), (32, 32)), ((1, 4096), (64, 262144)))
    per_index = best(lambda: [big_p(i) for i in range(1 << 16)], 1) * 64
    rows.append(("offsets() of 2^22 points (pycute: its loop)", offsets, per_index))
    try:
        import numpy
    except ImportError:
        numpy = None
        print("numpy is not importable: the offsets()/numpy.copy and crd2idx rows are left out")
    if numpy is not None:
        arr = numpy.arange(1 << 22, dtype=numpy.int64)
        pairs = [(best(lambda: big_t.offsets(), 1), best(lambda: numpy.copy(arr), 1)) for _ in range(max(10, args.repeat))]
        offsets, copy = min(p[0] for p in pairs), min(p[1] for p in pairs)  # interleaved: the same load on both
        print(f"offsets() of 2^22 points: {offsets * 1e3:.2f} ms; numpy.copy of 2^22 int64: {copy * 1e3:.2f} ms; "
              f"ratio {offsets / copy:.2f} (best of {len(pairs)}, interleaved)")
        # crd2idx of 2^16 coordinates (i, j) in one call against pycute's loop over the same rows
        coords = numpy.stack([numpy.arange(1 << 16) & 1023, numpy.arange(1 << 16) >> 10], axis=1)
        rows_p = [tuple(int(x) for x in r) for r in coords]
        assert t_l.crd2idx(coords)[:4096].tolist() == [p_l(r) for r in rows_p[:4096]], "the two disagree"
        rows.append(pair("L.crd2idx(2^16 coordinates) (pycute: its loop)", lambda: t_l.crd2idx(coords),
                     lambda: [p_l(r) for r in rows_p], args.repeat))

    print(f"{'work':48} {'tfspec':>12} {'pycute':>12} {'pycute/tfspec':>14}")
    for name, t, p in rows:
        print(f"{name:48} {t * 1e3:10.2f} ms {p * 1e3:10.2f} ms {p / t:13.1f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
