"""Issue 31's bulk calls and compiled algebra functions, each checked against something
independent of the code under test: the reference per index (L(i), L(coord): the reference's
C++, not gpu/'s core), the protocol ops (owners, distribute: the reference's placement law),
or a hand derivation in the comments. Runs with and without NumPy (ctest runs it under both
interpreters); the NumPy-only tests skip where NumPy is absent."""
import json
import math
import random

import pytest

import tfspec


def ints(array):
    """The values of a result (a NumPy array, or an OffsetBuffer without NumPy) as Python ints."""
    return memoryview(array).tolist()


def random_layout(rng):
    """1-4 modes of extent 1-6, one level of nesting now and then, strides of any sign."""
    n = rng.randint(1, 4)
    shape = [rng.randint(1, 6) for _ in range(n)]
    stride = [rng.choice([0, 1, 2, 3, 5, 8, -1, -4, rng.randint(-40, 40)]) for _ in range(n)]
    if n >= 2 and rng.random() < 0.4:
        shape = [tuple(shape[:2])] + shape[2:]
        stride = [tuple(stride[:2])] + stride[2:]
    return tfspec.Layout(tuple(shape), tuple(stride))


def flat_extents(shape):
    return [e for m in shape for e in flat_extents(m)] if isinstance(shape, tuple) else [shape]


def nest(flat, shape):
    """Flat coordinates as the coordinate congruent with `shape` (what L(coord) takes)."""
    it = iter(flat)

    def build(s):
        return tuple(build(m) for m in s) if isinstance(s, tuple) else next(it)
    return build(shape)


def modes_of(shape):
    return shape if isinstance(shape, tuple) else (shape,)


# ---- compiled algebra functions (no Python frame, no op-name lookup) ---------------------------

FAST = ("coalesce", "filter", "right_inverse", "left_inverse", "complement", "composition", "logical_divide",
        "zipped_divide", "tiled_divide", "flat_divide", "logical_product", "zipped_product", "tiled_product", "flat_product")


def by_protocol(op, args):
    """The op through the registry with JSON arguments (`tfspec serve`'s path), or its refusal's rule."""
    try:
        return ("ok", json.loads(tfspec._tfspec._call_json(op, json.dumps(args))))
    except tfspec.SpecError as e:
        return ("error", e.rule)


def by_function(fn, *args):
    try:
        r = fn(*args)
        return ("ok", r.to_json() if isinstance(r, tfspec.Layout) else r)
    except tfspec.SpecError as e:
        return ("error", e.rule)


def test_the_hot_ops_are_compiled_functions_with_their_signatures():
    for name in FAST:
        fn = getattr(tfspec, name)
        assert type(fn).__name__ == "builtin_function_or_method", name
        assert fn.__name__ == name and fn.__module__ == "tfspec"
    assert str(__import__("inspect").signature(tfspec.logical_divide)) == "(a, tiler, domain=None)"


def test_compiled_functions_equal_the_protocol_path_on_random_layouts():
    rng = random.Random(3131)
    for _ in range(300):
        a, b = random_layout(rng), random_layout(rng)
        for op in ("coalesce", "filter", "right_inverse", "left_inverse", "complement"):
            assert by_function(getattr(tfspec, op), a) == by_protocol(op, {"layout": a.to_json()}), (op, str(a))
        cotarget = rng.randint(1, 200)
        assert by_function(tfspec.complement, a, cotarget) == by_protocol("complement", {"layout": a.to_json(), "cotarget": cotarget})
        for op in FAST[5:]:
            assert by_function(getattr(tfspec, op), a, b) == by_protocol(op, {"a": a.to_json(), "tiler": b.to_json()}), (op, str(a), str(b))


def test_compiled_functions_pass_every_other_call_on():
    a = tfspec.Layout((4, 8), (8, 1))
    # A o B with B = (2,2):(1,4): B's offsets 0,1,4,5 -> A(0)=0, A(1)=8, A(4)=1, A(5)=9 -> (2,2):(8,1)
    assert str(tfspec.composition(a, "(2,2):(1,4)")) == "(2,2):(8,1)"                       # text
    assert str(tfspec.composition(a, tfspec.Layout("(2,2):(1,4)"), domain="strict")) == "(2,2):(8,1)"  # a keyword
    assert str(tfspec.composition(a=a, tiler="(2,2):(1,4)")) == "(2,2):(8,1)"                  # keywords only
    # by-mode tiler (A4): mode 0 (4:8) divided by 2 -> (2,2):(8,16); mode 1 (8:1) by 4 -> (4,2):(1,4)
    assert str(tfspec.logical_divide(a, (2, 4))) == "((2,2),(4,2)):((8,16),(1,4))"
    # 6:1 o 4:2 reaches 0,2,4,6; 6 is past the domain: refused under strict, one outside under extend
    assert tfspec.composition("6:1", "4:2", domain="extend") == {"layout": tfspec.Layout("4:2"), "outside": 1}
    assert str(tfspec.complement(tfspec.Layout("4:2"), 16)) == "(2,2):(1,8)"  # 4:2 covers 0,2,4,6; the rest of 16: (2,2):(1,8)
    with pytest.raises(tfspec.SpecError) as e:  # the op's own refusal, as before
        tfspec.coalesce()
    assert e.value.rule == "protocol-missing-arg"
    with pytest.raises(TypeError):
        tfspec.coalesce(a, nonsense=1)


def test_a_layout_whose_init_never_ran_is_a_type_error_not_a_crash():
    blank = tfspec.Layout.__new__(tfspec.Layout)
    for call in (lambda: tfspec.coalesce(blank), lambda: tfspec.composition(tfspec.Layout("4:1"), blank),
                 lambda: tfspec._tfspec._call("coalesce", blank)):
        with pytest.raises(TypeError, match="__init__ never ran"):
            call()


def test_refusals_of_compiled_functions_carry_rule_clause_kind():
    # (4,6,8):(2,3,5) o 6:3: stride 3 does not divide the first mode's extent 4
    with pytest.raises(tfspec.SpecError) as e:
        tfspec.composition(tfspec.Layout("(4,6,8):(2,3,5)"), tfspec.Layout("6:3"))
    assert (e.value.rule, e.value.clause, e.value.kind) == ("composition-stride-divisibility", "§3", "refusal")
    assert isinstance(e.value, ValueError)


# ---- L.offsets() -------------------------------------------------------------------------------

def test_offsets_equal_the_reference_per_index():
    rng = random.Random(4)
    for _ in range(100):
        layout = random_layout(rng)
        assert ints(layout.offsets()) == [layout(i) for i in range(layout.size())], str(layout)
    # 4:2 reaches 0, 2, 4, 6; Sw<1,0,1> xors bit 1 into bit 0: 0, 3, 4, 7
    assert ints(tfspec.Layout("Sw<1,0,1> o 0 o 4:2").offsets()) == [0, 3, 4, 7]


def test_offsets_of_a_large_layout_sampled_against_the_reference():
    big = tfspec.Layout(((64, 64), (32, 32)), ((1, 4096), (64, 262144)))
    values = memoryview(big.offsets())
    assert len(values) == 1 << 22
    rng = random.Random(22)
    for i in [0, 1, 63, 64, 4095, 4096, (1 << 22) - 1] + [rng.randrange(1 << 22) for _ in range(2000)]:
        assert values[i] == big(i), i
    # index 2^22 - 1: every coordinate at its last value: 63*1 + 63*4096 + 31*64 + 31*262144
    assert values[(1 << 22) - 1] == 63 + 63 * 4096 + 31 * 64 + 31 * 262144


def test_offsets_is_an_int64_numpy_array_where_numpy_is():
    np = pytest.importorskip("numpy")
    a = tfspec.Layout("(4,8):(8,1)").offsets()
    assert isinstance(a, np.ndarray) and a.dtype == np.int64 and a.shape == (32,)
    assert a[:5].tolist() == [0, 8, 16, 24, 1]  # colexicographic: i = 0..3 walk mode 0 (stride 8)


# Issue 44: two threads whose first bulk call looks numpy up at the same moment. The module once
# imported numpy inside a C++ function-local static initializer: the import runs Python code, so
# the second thread took the GIL and waited on the initializer's guard, and the first could never
# take the GIL back. A stand-in numpy whose import sleeps (the GIL released) makes the overlap
# certain; it then fails to import, so both calls take the no-NumPy path. The run is a child
# process with a timeout, so the old behaviour fails this test instead of hanging it.
FIRST_CALLS_FROM_TWO_THREADS = """
import threading, time
import tfspec
layouts = [tfspec.Layout("(4,8):(8,1)"), tfspec.Layout("(2,3):(3,1)")]
results = [None, None]
def first_call(k):
    results[k] = memoryview(layouts[k].offsets()).tolist()
threads = [threading.Thread(target=first_call, args=(k,)) for k in range(2)]
threads[0].start()
time.sleep(0.2)  # thread 0 is inside the numpy import (sleeping) when thread 1 starts
threads[1].start()
for t in threads:
    t.join()
print(results)
"""


def test_first_bulk_calls_from_two_threads_do_not_deadlock(tmp_path):
    import os
    import subprocess
    import sys
    (tmp_path / "numpy.py").write_text("import time\ntime.sleep(1.0)\nraise ImportError('a stand-in numpy')\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tmp_path)] + [p for p in sys.path if p])
    try:
        run = subprocess.run([sys.executable, "-c", FIRST_CALLS_FROM_TWO_THREADS], env=env,
                             capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("two threads' first Layout.offsets() deadlocked (no answer in 60 s)")
    assert run.returncode == 0, run.stderr
    # (4,8):(8,1) colexicographic: i = r + 4c -> 8r + c; (2,3):(3,1): i = r + 2c -> 3r + c
    first = [8 * r + c for c in range(8) for r in range(4)]
    second = [3 * r + c for c in range(3) for r in range(2)]
    assert run.stdout.strip() == str([first, second])


# ---- L.crd2idx(coords) -------------------------------------------------------------------------

def test_crd2idx_equals_the_reference_on_flat_mode_and_index_rows():
    rng = random.Random(5)
    for _ in range(150):
        layout = random_layout(rng)
        shape = layout.shape
        ext = flat_extents(shape)
        flat_rows = [tuple(rng.randrange(e) for e in ext) for _ in range(20)]
        assert ints(layout.crd2idx(flat_rows)) == [layout(nest(r, shape)) for r in flat_rows], str(layout)
        sizes = [math.prod(flat_extents(m)) for m in modes_of(shape)]
        mode_rows = [tuple(rng.randrange(s) for s in sizes) for _ in range(20)]
        assert ints(layout.crd2idx(mode_rows)) == [layout(r if isinstance(shape, tuple) else r[0]) for r in mode_rows], str(layout)
        indices = [rng.randrange(layout.size()) for _ in range(20)]
        assert ints(layout.crd2idx(indices)) == [layout(i) for i in indices]


def test_crd2idx_by_hand():
    a = tfspec.Layout(((2, 4), 3), ((1, 6), 2))
    # flat (1, 3, 2): 1*1 + 3*6 + 2*2 = 23; by mode (7, 2): 7 = (1, 3) in (2,4) -> 1 + 18, + 2*2 = 23;
    # index 23 = (1, 3, 2) colexicographically over (2, 4, 3) (1 + 2*3 + 8*2 = 23) -> 23
    assert ints(a.crd2idx([(1, 3, 2)])) == [23]
    assert ints(a.crd2idx([(7, 2)])) == [23]
    assert ints(a.crd2idx([23, 0])) == [23, 0]
    assert ints(a.crd2idx([])) == []  # no rows, no answers
    # docs/python.md: (2,3):(3,1) at (1,2) is 1*3 + 2*1 = 5, at (0,1) is 1
    assert ints(tfspec.Layout("(2,3):(3,1)").crd2idx([(1, 2), (0, 1)])) == [5, 1]


def test_crd2idx_refuses_bad_input_clearly():
    a = tfspec.Layout(((2, 4), 3), ((1, 6), 2))
    with pytest.raises(ValueError, match=r"rows of 4 coordinates; the domain \(\(2,4\),3\) takes 3 \(flat\) or 2 \(one per mode\)"):
        a.crd2idx([(0, 0, 0, 0)])
    with pytest.raises(tfspec.SpecError, match=r"row 1: mode 0 coordinate 8 is outside \[0, 8\)") as e:
        a.crd2idx([(0, 0), (8, 0)])
    assert e.value.rule == "coord-in-domain"
    with pytest.raises(tfspec.SpecError) as e:
        a.crd2idx([(0, 0, 3)])  # flat: 3 is past the last mode's extent 3
    assert e.value.rule == "coord-in-domain"
    with pytest.raises(tfspec.SpecError, match=r"row 0: index 24 is outside \[0, 24\)"):
        a.crd2idx([24])
    with pytest.raises(ValueError, match="row 1 has 1 entries; row 0 has 2|inhomogeneous"):  # ours, or NumPy's
        a.crd2idx([(0, 1), (2,)])  # ragged rows
    with pytest.raises(ValueError, match="rows of 0 coordinates"):
        a.crd2idx([()])
    with pytest.raises(ValueError, match=r"takes 2 \(flat\), or a 1-D array of indices"):
        tfspec.Layout("(2,3):(3,1)").crd2idx([(0,)])
    assert ints(tfspec.Layout("():()").crd2idx([(), ()])) == [0, 0]  # a domain of rank 0: one point, the coordinate ()
    with pytest.raises(TypeError):
        a.crd2idx("0,1")


def test_crd2idx_takes_numpy_and_refuses_wrong_arrays():
    np = pytest.importorskip("numpy")
    a = tfspec.Layout(((2, 4), 3), ((1, 6), 2))
    out = a.crd2idx(np.array([[1, 3, 2], [0, 0, 1]], dtype=np.int32))
    assert out.dtype == np.int64 and out.tolist() == [23, 2]  # (0,0,1): 1*2
    assert a.crd2idx(np.array([[7, 2]], dtype=np.uint16)).tolist() == [23]
    with pytest.raises(TypeError, match="dtype float64"):
        a.crd2idx(np.array([[1.0, 3.0, 2.0]]))
    with pytest.raises(ValueError, match="rows of 0 coordinates"):
        a.crd2idx(np.zeros((1, 0), dtype=np.int64))  # a (1, 0) array is no index array
    with pytest.raises(ValueError, match=r"shape \(1, 1, 3\)"):
        a.crd2idx(np.zeros((1, 1, 3), dtype=np.int64))
    with pytest.raises(ValueError, match="larger than int64"):
        a.crd2idx(np.array([[2 ** 63, 0]], dtype=np.uint64))
    cols = np.stack([np.arange(8), np.zeros(8, dtype=np.int64)], axis=1)  # Fortran-ordered views work too
    assert a.crd2idx(np.asfortranarray(cols)).tolist() == [a((i, 0)) for i in range(8)]


# ---- ShardLayout.device_offsets(device, shape, storage) ------------------------------------------

def engine_key(buffers, device, storage):
    return str(device) if storage == "rmem" else next(iter(buffers))


def check_against_owners_and_distribute(sl, shape, storage):
    """Every device: its elements are shard.owners' list, and distribute(1..n) put element e + 1
    (or 0, a sum-Partial contribution) at each offset."""
    n = math.prod(shape)
    owners = tfspec.owners(sl, shape)["devices"]
    buffers = tfspec.distribute(sl, shape, storage, list(range(1, n + 1)))["buffers"]
    every = sl.device_offsets(None, shape, storage)
    assert sorted(every) == sorted(d["device"] for d in owners)
    for d in owners:
        elements, offsets = sl.device_offsets(d["device"], shape, storage)
        assert ints(elements) == list(d["elements"]), (str(sl), d)
        assert (ints(every[d["device"]][0]), ints(every[d["device"]][1])) == (ints(elements), ints(offsets))
        buf = buffers[engine_key(buffers, d["device"], storage)]
        for e, o in zip(ints(elements), ints(offsets)):
            assert buf[o] == e + 1 or (d["partial"] and buf[o] == 0), (str(sl), d["device"], e, o)


def test_device_offsets_by_hand():  # docs/python.md's example
    sl = tfspec.ShardLayout("shard((2,4):(4,1); S(0),B; x=2,y=2)")
    # rows split over x, replicated over y; devices 2 and 3 (x = 1) hold row 1, elements 4..7, whose
    # offsets are 1*4 + j (explicit strides are kept, D4)
    elements, offsets = sl.device_offsets(2, (2, 4), "rmem")
    assert (ints(elements), ints(offsets)) == ([4, 5, 6, 7], [4, 5, 6, 7])
    elements, offsets = sl.device_offsets(1, (2, 4), "gmem")
    assert (ints(elements), ints(offsets)) == ([0, 1, 2, 3], [0, 1, 2, 3])


def test_device_offsets_equal_owners_and_distribute():
    docs = tfspec.typeinfer(tfspec.ShardLayout("(2 @ m.x, 12 @ m.y, 128 @ m.t)", mesh="x=2,y=4,t=32"), (2, 1536), "gmem", "rmem")["layout"]
    cases = [(tfspec.ShardLayout("shard((2,4):(4,1); S(0),B; x=2,y=2)"), (2, 4), ("rmem", "gmem")),
             (tfspec.ShardLayout("shard((2,2):(2,1); P(),S(1); x=2,y=2|layout=(2,2):(1,2))"), (2, 2), ("rmem",)),
             (tfspec.ShardLayout('shard((3,2,4):(4,0,1); S(1),P("max"); x=2,y=3)'), (3, 2, 4), ("rmem",)),
             (docs, (2, 1536), ("rmem",))]
    for sl, shape, storages in cases:
        for storage in storages:
            check_against_owners_and_distribute(sl, shape, storage)


def test_device_offsets_refuses_bad_input_clearly():
    sl = tfspec.ShardLayout("shard((2,4):(4,1); S(0),B; x=2,y=2)")
    with pytest.raises(ValueError, match="no device 4 in the mesh"):
        sl.device_offsets(4, (2, 4), "rmem")
    with pytest.raises(tfspec.SpecError):
        sl.device_offsets(0, (2, 4), "disk")
    with pytest.raises(tfspec.SpecError):
        sl.device_offsets(0, (3, 4), "rmem")  # 2 rows in the layout, 3 in T.shape
    partial = tfspec.ShardLayout("shard((2,2):(2,1); P(),S(1); x=2,y=2|layout=(2,2):(1,2))")
    with pytest.raises(tfspec.SpecError) as e:  # one gmem engine: the two sum contributions would share a slot
        partial.device_offsets(0, (2, 2), "gmem")
    assert e.value.rule == "partial-aliased"
    with pytest.raises(TypeError):
        sl.device_offsets(0, "two by four", "rmem")
    with pytest.raises(TypeError, match="device is an int"):
        sl.device_offsets("0", (2, 4), "rmem")
