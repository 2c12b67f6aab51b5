#!/usr/bin/env python3
"""L(i) call overhead: pybind11 and nanobind over the same C++ (flat.hpp), and tfspec's module,
50,000 calls each, best of N (see CMakeLists.txt for the build). Prints microseconds per call."""
import sys
import timeit

SHAPE, STRIDE = (32, 32, 32, 32), (1, 1024, 32, 32768)  # ((32,32),(32,32)):((1,1024),(32,32768)) flattened


def per_call(fn, repeat):
    best = min(timeit.repeat(lambda: [fn(i) for i in range(50000)], number=1, repeat=repeat))
    return best / 50000 * 1e6


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    import ovh_nanobind
    import ovh_pybind11
    rows = [("pybind11", ovh_pybind11.FlatLayout(list(SHAPE), list(STRIDE))),
            ("nanobind", ovh_nanobind.FlatLayout(list(SHAPE), list(STRIDE)))]
    try:
        import tfspec
        rows.append(("tfspec.Layout (pybind11, reference C++)", tfspec.Layout(((32, 32), (32, 32)), ((1, 1024), (32, 32768)))))
    except ImportError:
        pass
    first = rows[0][1]
    for name, fn in rows:
        assert all(fn(i) == first(i) for i in range(0, 1 << 20, 997)), name  # the same function
    loop = min(timeit.repeat(lambda: [i for i in range(50000)], number=1, repeat=repeat)) / 50000 * 1e6
    print(f"{'binding':42} {'us per L(i)':>12} {'minus the loop':>15}")
    for name, fn in rows:
        t = per_call(fn, repeat)
        print(f"{name:42} {t:12.3f} {t - loop:15.3f}")
    print(f"{'(the list comprehension alone)':42} {loop:12.3f}")


if __name__ == "__main__":
    main()
