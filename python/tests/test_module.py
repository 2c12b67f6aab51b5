"""import tfspec: layouts, the algebra ops, the shard model, prove, check, errors, pictures and
pycute interop. Expected values are derived by hand in the comments (or come from pycute, an
independent implementation), never copied from the module's output."""
import os
import sys
import xml.etree.ElementTree as ET

import pytest

import tfspec


def test_layout_basics():
    a = tfspec.Layout("(2,(3,4)):(1,(2,6))")
    assert a.shape == (2, (3, 4)) and a.stride == (1, (2, 6))
    assert a.size() == 24                      # 2*3*4
    assert a.cosize() == 24                    # 1 + 1*1 + 2*2 + 3*6
    assert a(5) == 5                           # 5 -> (1,(2,0)) colexicographic (D1): 1 + 2*2
    assert a((1, (2, 3))) == 23                # 1 + 2*2 + 3*6
    assert a(1, (2, 3)) == 23
    assert str(a) == "(2,(3,4)):(1,(2,6))" and repr(a) == "Layout('(2,(3,4)):(1,(2,6))')"
    assert a == tfspec.Layout((2, (3, 4)), (1, (2, 6))) == "(2,(3,4)):(1,(2,6))"
    assert a == tfspec.Layout("(2,(3,4))") != tfspec.Layout("(2,(3,4)):(1,(2,7))")  # (1,(2,6)) is compact
    assert tfspec.Layout("(2,(3,4))").stride == (1, (2, 6)) and a[1] == tfspec.Layout("(3,4):(2,6)")
    assert a.kind == "layout" and a.rank() == 2 and a.depth() == 2
    assert len({a, tfspec.Layout("(2,(3,4)):(1,(2,6))")}) == 1
    assert a != "(2,(3,4" and a != 3  # not a layout: unequal, no exception


def test_star_import_leaves_builtins_alone():
    names = {}
    exec("from tfspec import *", names)
    assert "composition" in names and "Layout" in names
    assert not {"eval", "filter", "slice"} & set(names) - {"__builtins__"}
    assert tfspec.filter("(2,1):(1,5)") == "2:1"  # still there by its name: the size-1 mode dropped


def _python_c_examples(path):
    """(code, expected output) of each indented `$ ... python[3] -c "CODE"` line of a Markdown file,
    the output being the indented lines after it up to the next `$` or a blank line."""
    import re
    import shlex
    lines = open(path, encoding="utf-8").read().splitlines()
    out = []
    for i, line in enumerate(lines):
        m = re.match(r"^    \$ .*\bpython3? -c (\".*\")\s*$", line)
        if not m:
            continue
        expected = []
        for nxt in lines[i + 1:]:
            if not nxt.startswith("    ") or nxt.startswith("    $"):
                break
            expected.append(nxt[4:])
        out.append((shlex.split(m.group(1))[0], "\n".join(expected)))
    return out


def test_the_python_examples_of_the_readme_and_docs_print_what_they_say():
    # README "From Python" and docs/python.md: the commands a reader copies, run against this module
    import subprocess
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    examples = _python_c_examples(os.path.join(root, "README.md")) + _python_c_examples(os.path.join(root, "docs", "python.md"))
    assert len(examples) >= 5 and any("logical_divide(L, (128, 64))" in code for code, _ in examples)
    for code, expected in examples:
        got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        assert got.returncode == 0 and got.stdout.rstrip("\n") == expected, (code, got.stdout, got.stderr)


def test_the_readme_example():
    # mode by mode (§3): 4:8 / 2:1 = (2,2):(8,16); 8:1 / 4:1 = (4,2):(1,4)
    got = tfspec.logical_divide(tfspec.Layout("(4,8):(8,1)"), "(2:1,4:1)")
    assert got == tfspec.Layout("((2,2),(4,2)):((8,16),(1,4))")


def test_algebra_accepts_layouts_and_text():
    # A o B with A = (4,8):(8,1), B = (2,2):(1,4): B's offsets 0,1,4,5 -> A(0)=0, A(1)=8, A(4)=1, A(5)=9
    assert tfspec.composition("(4,8):(8,1)", tfspec.Layout("(2,2):(1,4)")) == "(2,2):(8,1)"
    # complement of 4:2 in 16: the gaps (2:1) then the rest (2:8)
    assert tfspec.complement("4:2", 16) == "(2,2):(1,8)"
    assert tfspec.coalesce("(2,(1,6)):(1,(6,2))") == "12:1"
    assert tfspec.zipped_divide("(4,8):(8,1)", "(2:1,4:1)") == "((2,4),(2,2)):((8,1),(16,4))"
    extended = tfspec.composition("6:1", "4:2", domain="extend")  # offsets 0,2,4,6: one past size 6
    assert extended["layout"] == "4:2" and extended["outside"] == 1


def test_refusals_are_spec_errors_with_rule_clause_kind():
    with pytest.raises(tfspec.SpecError) as e:  # spec/PROTOCOL.md's example refusal
        tfspec.composition("(4,6,8):(2,3,5)", "6:3")
    assert (e.value.rule, e.value.clause, e.value.kind) == ("composition-stride-divisibility", "§3", "refusal")
    assert "composition-stride-divisibility" in str(e.value)
    with pytest.raises(tfspec.SpecError) as e:
        tfspec.Layout("(2,3")
    assert e.value.rule == "parse-error" and e.value.kind == "input"
    assert isinstance(e.value, ValueError)


def test_misuse_is_a_python_error_never_a_crash():
    with pytest.raises(TypeError):
        tfspec.composition("2:1", "2:1", "strict", "extra")
    with pytest.raises(TypeError):
        tfspec.composition("2:1", tiler="2:1", nonsense=1)
    with pytest.raises(TypeError):
        tfspec.Layout(object())
    with pytest.raises(TypeError):
        tfspec.Layout("2:1 o 0 o 2:1").stride  # a composed layout has no single stride
    deep = []
    for _ in range(10000):
        deep = [deep]
    with pytest.raises(ValueError):
        tfspec.size(deep)
    with pytest.raises(tfspec.SpecError) as e:
        tfspec.Layout("(4,8):(8,1)")((9, 0))
    assert e.value.rule == "coord-in-domain"


def test_shard_model():
    # spec/PROTOCOL.md's typeinfer example: G = (2,4,3,32,4) with S(0) S(1) S(3) on x=2,y=4,t=32;
    # the per-instance form toward rmem (D4): stride 0 on Split dims, C order over local (1,1,3,1,4)
    sl = tfspec.ShardLayout("(2 @ m.x, 12 @ m.y, 128 @ m.t)", mesh="x=2,y=4,t=32")
    assert sl.attrs == ("S(0)", "S(1)", "S(3)") and sl.kind == "shard"
    assert tfspec.local_shape(sl) == (1, 1, 3, 1, 4)
    t = tfspec.typeinfer(sl, shape=(2, 1536), src_storage="gmem", dst_storage="rmem")
    assert t["local_shape"] == (1, 1, 3, 1, 4) and t["storage"] == "rmem"
    assert t["layout"].layout == tfspec.Layout("(2,4,3,32,4):(0,0,4,0,1)")
    canon = tfspec.canon("(2 @ m.x, 12 @ m.y, 128 @ m.t) on x=2,y=4,t=32")
    assert isinstance(canon, tfspec.ShardLayout) and canon.layout.shape == (2, 4, 3, 32, 4)
    # Broadcast over x=3 (every engine holds all three values) to one value per engine: preserved
    r = tfspec.reshard("shard((3):(1); B; x=3)", "shard((3):(1); S(0); x=3)", shape=(3,), src_storage="rmem",
                       dst_storage="rmem")
    assert r["preserved"] is True


def test_check_returns_violations_and_undecided():
    ok = tfspec.check("(2,3):(1,2)")
    assert ok.ok and ok.verdict == "ok" and not ok.violations and not ok.undecided
    # x=2 with (3) split on it: 3 is not divisible by 2 (§6 divisibility)
    bad = tfspec.check("shard((3):(1); S(0); x=2)")
    assert not bad.ok and bad.violations and all(v.rule and v.clause for v in bad.violations)
    # more (engine, element) pairs than the reference enumerates: undecided, never a violation
    big = tfspec.check("shard((2048,1024):(0,1); B,B; x=2,y=2)")
    assert big.undecided and not big.violations and big.verdict == "undecided"


def test_prove_verdicts():
    v = tfspec.prove("injective", "(M,N):(1,M)", assume=["M >= 1", "N >= 1"], timeout=5)
    assert v.proved and bool(v) and v.verdict == "PROVED" and v.goal == "injective"
    r = tfspec.prove("injective", "(M,N):(1,K)", assume=["K < M", "N >= 2"], timeout=5)
    assert r.refuted and not r
    cex = r.counterexample
    layout = tfspec.Layout(cex["layout"])  # the concrete layout under the counterexample's symbols
    c0, c1 = cex["coords"]
    assert c0 != c1 and layout(c0) == layout(c1) == cex["offset"]
    with pytest.raises(tfspec.SpecError):
        tfspec.prove("injective", "(M,N", timeout=1)


def test_prove_refuses_a_bad_timeout_or_goal_as_the_docs_promise():
    # Issue 44: docs/python.md promises tfspec.SpecError for a refusal and TypeError for a wrong
    # call; a NaN or infinite timeout was a bare ValueError / OverflowError from int(round(...)),
    # and a negative one became 1 ms without a word.
    for bad in (float("nan"), float("inf"), float("-inf"), 0, -1, 0.0001, 601):
        with pytest.raises(tfspec.SpecError) as e:
            tfspec.prove("injective", "(M,N):(1,M)", timeout=bad)
        assert (e.value.rule, e.value.kind) == ("prove-usage", "input"), bad
        assert "timeout is a finite number of seconds from 0.001 to 600" in e.value.message, bad
    for wrong in ("2", True, [1]):
        with pytest.raises(TypeError):
            tfspec.prove("injective", "(M,N):(1,M)", timeout=wrong)
    with pytest.raises(tfspec.SpecError) as e:
        tfspec.prove("injectiv", "(M,N):(1,M)")
    assert e.value.rule == "prove-usage" and "no prove goal 'injectiv'" in e.value.message
    assert "injective" in e.value.message  # the goals are listed
    with pytest.raises(TypeError):
        tfspec.prove(None, "(M,N):(1,M)")
    # the bounds themselves are accepted: 600 s is the op's 600000 ms
    assert tfspec.prove("injective", "(4,8):(1,4)", timeout=600).proved


def test_svg_repr_parses():
    for obj in (tfspec.Layout("(2,(3,4)):(1,(2,6))"), tfspec.ShardLayout("shard((4,2):(2,1); S(0); x=4)")):
        root = ET.fromstring(obj._repr_svg_())
        assert root.tag.endswith("svg")
        assert root.findall(".//{http://www.w3.org/2000/svg}rect") or root.findall(".//rect")
    # what a notebook embeds is capped at 1024 domain points (a 32 x 32 tile); .svg() draws past it
    assert ET.fromstring(tfspec.Layout((32, 32), (32, 1))._repr_svg_()).tag.endswith("svg")
    middle = tfspec.Layout((64, 64), (64, 1))  # 4096 cells: more than the repr's cap, within draw's
    assert middle._repr_svg_() is None and ET.fromstring(middle.svg()).tag.endswith("svg")
    big = tfspec.Layout("(256,256):(256,1)")  # 65536 cells, past draw's 16384
    assert big._repr_svg_() is None
    with pytest.raises(tfspec.SpecError) as e:
        big.svg()
    assert e.value.rule == "draw-too-large"


def pycute():
    sys.path.append(os.environ.get("TFSPEC_PYCUTE_DIR", "/work/ext/cutlass/python"))
    return pytest.importorskip("pycute", reason="pycute (CUTLASS python/pycute) is not importable")


def test_pycute_interop():
    cute = pycute()
    p = cute.Layout((2, (3, 4)), (1, (2, 6)))
    a = tfspec.Layout.from_pycute(p)
    assert a == "(2,(3,4)):(1,(2,6))"
    back = a.to_pycute()
    assert back.shape == p.shape and back.stride == p.stride
    # pycute as an independent implementation of composition on a case where both answer
    A, B = cute.Layout((4, 8), (8, 1)), cute.Layout((2, 2), (1, 4))
    ours = tfspec.composition(A, B)  # pycute layouts are accepted as arguments (duck-typed)
    theirs = cute.composition(A, B)
    assert [ours(i) for i in range(ours.size())] == [theirs(i) for i in range(cute.size(theirs))]


# ---- issue 31: the fast paths answer what the protocol path answers ---------------------------

import json
import random


def _random_layout(rng):
    """A small concrete layout: 1-4 modes, one level of nesting now and then, strides of any sign."""
    n = rng.randint(1, 4)
    shape = [rng.randint(1, 6) for _ in range(n)]
    stride = [rng.choice([0, 1, 2, 3, 5, 8, -1, -4, rng.randint(-40, 40)]) for _ in range(n)]
    if n >= 2 and rng.random() < 0.3:
        shape = [tuple(shape[:2])] + shape[2:]
        stride = [tuple(stride[:2])] + stride[2:]
    return tfspec.Layout(tuple(shape), tuple(stride))


def _by_protocol(op, *layouts, **kw):
    """The protocol path itself: JSON arguments through the op registry, as `tfspec serve` runs it."""
    names = {"composition": ("a", "tiler"), "logical_divide": ("a", "tiler"), "zipped_divide": ("a", "tiler"),
             "logical_product": ("a", "tiler")}.get(op, ("layout",))
    args = {name: layout.to_json() for name, layout in zip(names, layouts)}
    args.update(kw)
    try:
        return ("ok", json.loads(tfspec._tfspec._call_json(op, json.dumps(args))))
    except tfspec.SpecError as e:
        return ("error", e.rule)


def _by_module(fn, *args):
    try:
        r = fn(*args)
        return ("ok", r.to_json() if isinstance(r, tfspec.Layout) else r)
    except tfspec.SpecError as e:
        return ("error", e.rule)


def test_fast_paths_equal_the_protocol_path_on_random_layouts():
    rng = random.Random(20261202)
    for _ in range(400):
        a, b = _random_layout(rng), _random_layout(rng)
        # L(i), size, cosize against the eval / size / cosize ops
        n = a.size()
        assert ("ok", n) == _by_protocol("size", a)
        assert _by_module(a.cosize) == _by_protocol("cosize", a)
        for i in {0, n - 1, rng.randrange(n)}:
            assert ("ok", a(i)) == ("ok", json.loads(tfspec._tfspec._call_json("eval", json.dumps({"layout": a.to_json(), "coord": i}))))
        for op in ("coalesce", "filter", "right_inverse", "left_inverse", "complement"):
            assert _by_module(getattr(tfspec, op), a) == _by_protocol(op, a), (op, str(a))
        for op in ("composition", "logical_divide", "zipped_divide", "logical_product"):
            assert _by_module(getattr(tfspec, op), a, b) == _by_protocol(op, a, b), (op, str(a), str(b))


def test_offsets_in_bulk_equal_the_per_index_loop():
    rng = random.Random(31)
    layouts = [_random_layout(rng) for _ in range(100)] + [tfspec.Layout("Sw<3,3,3> o 0 o (8,64):(64,1)"),
                                                          tfspec.Layout("(4,2):(1,4) o 3 o (2,2):(1,2)")]
    for layout in layouts:
        n = layout.size()
        bulk = list(memoryview(layout.offsets()))
        assert bulk == [layout(i) for i in range(n)], str(layout)
        if n > 2:
            assert list(memoryview(layout.offsets(1, n - 1))) == bulk[1:n - 1]
    # docs/python.md's example, derived by hand: 4:2 reaches 0, 2, 4, 6; Sw<1,0,1> xors bit 1 into bit 0
    assert list(memoryview(tfspec.Layout("Sw<1,0,1> o 0 o 4:2").offsets())) == [0, 3, 4, 7]
    with pytest.raises(tfspec.SpecError) as e:
        tfspec.Layout("4:1").offsets(2, 9)
    assert e.value.rule == "coord-in-domain"


def test_out_of_domain_and_symbolic_calls_keep_their_answers():
    with pytest.raises(tfspec.SpecError) as e:
        tfspec.Layout("4:1")(4)
    assert e.value.rule == "coord-in-domain"
    assert tfspec.Layout("(2,3):(1,2)")((1, 2)) == 5
    assert tfspec.Layout("(M,4):(1,M)").size()["result"] == "4*M"  # symbolic: the op's answer
    assert tfspec.Layout(((32, 32), (32, 32)), ((1, 1024), (32, 32768)))(1 << 19) == 32768 * 16


def test_an_uninitialised_layout_raises_instead_of_crashing():
    # Layout.__new__ without __init__ (what copy/pickle machinery and careless subclasses do): every
    # use is a TypeError naming the problem, never pybind11 reading unconstructed memory.
    for cls in (tfspec.Layout, tfspec.ShardLayout, tfspec.LinearLayout):
        bare = cls.__new__(cls)
        for use in (str, repr, hash, lambda x: x.size(), lambda x: x(1), lambda x: x.shape, lambda x: x == x,
                    tfspec.coalesce, lambda x: tfspec.complement(x, 8), lambda x: tfspec.composition(tfspec.Layout("4:1"), x),
                    lambda x: tfspec.logical_divide(tfspec.Layout((4, 8), (8, 1)), (x, 2)), tfspec.to_json):
            with pytest.raises(TypeError, match="__init__ never ran"):
                use(bare)


def test_coalesce_and_complement_fast_paths_keep_the_references_answers():
    # hand-derived (§3, pycute's rules): 2:1 then (1,6):(6,2) -> the 6:2 continues 2:1 (2*1 = 2): 12:1
    assert tfspec.coalesce(tfspec.Layout((2, (1, 6)), (1, (6, 2)))) == "12:1"
    assert tfspec.coalesce(tfspec.Layout((1, 1), (3, 5))) == "1:0"              # only size-1 modes
    assert tfspec.coalesce(tfspec.Layout((2, 3), (0, 0))) == "6:0"              # 2*0 == 0: merged
    # complement((4,8,16):(8,1,32), 8192): sorted 8:1, 4:8, 16:32 span 0..511 without gaps; 16 copies reach 8192
    assert tfspec.complement(tfspec.Layout((4, 8, 16), (8, 1, 32)), 8192) == "16:512"
    assert tfspec.complement(tfspec.Layout(4, 2)) == "2:1"                      # cotarget cosize 7: the gap 2:1, then ceil(7/8) = 1
    # a result held flat (not yet a reference layout) answers everything a built one does, and
    # feeds the next fast call: against the protocol path on chains over random layouts
    rng = random.Random(31)
    for _ in range(200):
        a = _random_layout(rng)
        for chain in ((tfspec.coalesce, tfspec.coalesce), (tfspec.complement, tfspec.coalesce), (tfspec.coalesce, tfspec.complement)):
            try:
                mid = chain[0](a)
            except tfspec.SpecError:
                continue
            assert _by_module(chain[1], mid) == _by_protocol(chain[1].__name__, tfspec.Layout(str(mid))), (str(a), chain)
            fresh = tfspec.Layout(str(mid))
            assert (mid == fresh, hash(mid) == hash(fresh), mid.size(), mid.cosize(), mid.shape, mid.stride) == \
                   (True, True, fresh.size(), fresh.cosize(), fresh.shape, fresh.stride)
            assert [mid(i) for i in range(min(mid.size(), 64))] == [fresh(i) for i in range(min(fresh.size(), 64))]
    # refusals keep the reference's rule, clause and kind
    for args, rule in (((tfspec.Layout((2, 2), (1, 1)), 8), "complement-disjoint"), ((tfspec.Layout(4, -1), 8), "complement-negative-stride"),
                       ((tfspec.Layout(4, 2), 0), "complement-cotarget"), ((tfspec.Layout((2, 3), (1 << 62, 1)),), "int64-overflow")):
        with pytest.raises(tfspec.SpecError) as e:
            (tfspec.complement if len(args) == 2 else tfspec.coalesce)(*args)
        assert e.value.rule == rule and e.value.clause and e.value.kind, (args, rule)


def test_a_symbolic_size_is_a_size_object_not_a_dict():
    # (M,N):(1,M) has M*N points (§3: the product of the extents) and reaches 1 + (M-1)*1 + (N-1)*M = M*N
    n = tfspec.Layout("(M,N):(1,M)").size()
    assert isinstance(n, tfspec.Symbolic) and not isinstance(n, dict)
    assert n == "M*N" and str(n) == "M*N" and n.expression == "M*N" and repr(n) == "Symbolic('M*N')"
    assert n["result"] == "M*N" and "conditions" in n and n == tfspec.cosize("(M,N):(1,M)")
    assert json.loads(tfspec.to_json(n))["result"] == "M*N"  # its protocol form, as before
    assert tfspec.Layout((4, 8), (8, 1)).size() == 32 and isinstance(tfspec.Layout((4, 8), (8, 1)).size(), int)


def test_symbolic_values_are_equal_by_their_normal_form():
    # Issue 46 item 6: size("(K,M)") is the product of the extents, K*M (§3); (M,K):(K,1) has the
    # same extents, so the same size, though its answer's conditions and validation counts differ.
    a, b = tfspec.size("(K,M)"), tfspec.Layout("(M,K):(K,1)").size()
    assert str(a) == str(b) == "K*M"
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1 and hash(a) == hash("K*M")
    assert a != tfspec.size("(K,M,2)")  # 2*K*M
    # A symbolic L(coord) is a Symbolic: (M,K):(K,1) at (3,5) is 3*K + 5*1 (§3 crd2idx).
    v = tfspec.Layout("(M,K):(K,1)")((3, 5))
    assert isinstance(v, tfspec.Symbolic) and not isinstance(v, dict)
    assert v == tfspec.eval("(M,K):(K,1)", (3, 5)) == "3*K+5"
    assert tfspec.Layout((4, 8), (8, 1))((3, 5)) == 3 * 8 + 5 and isinstance(tfspec.Layout((4, 8), (8, 1))(7), int)


def test_a_shape_where_a_layout_is_expected_is_its_compact_layout():
    # pycute / CuTe DSL habits: `size((4, 8))`, `blocked_product(L, (2, 2))`. A shape there is
    # Layout(shape), column-major compact: (4,8) is (4,8):(1,4), size 32, cosize 32.
    assert tfspec.size((4, 8)) == 32 and tfspec.size(((2, 2), 8)) == 32 and tfspec.size(6) == 6
    assert tfspec.cosize([4, 8]) == 32
    L = tfspec.Layout((4, 8), (8, 1))
    # blocked_product(a, b): b = (2,2):(1,2) scaled by cosize(a) = 32 is (2,2):(32,64), each of
    # its modes placed outside a's mode of the same index: ((4,2),(8,2)):((8,32),(1,64)).
    assert str(tfspec.blocked_product(L, (2, 2))) == "((4,2),(8,2)):((8,32),(1,64))"
    assert tfspec.blocked_product(L, (2, 2)) == tfspec.blocked_product(L, tfspec.Layout((2, 2)))
    # A tiler keeps its by-mode meaning: (2, 4) divides mode 0 by 2 and mode 1 by 4.
    assert str(tfspec.logical_divide(L, (2, 4))) == "((2,2),(4,2)):((8,16),(1,4))"
    with pytest.raises(tfspec.SpecError):
        tfspec.size(True)  # a bool is no shape
