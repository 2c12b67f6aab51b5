"""Hypothesis properties (issue 31): the module's answers equal `tfspec serve`'s (the CLI binary, a
separate process reaching the op registry) on random layouts, and bulk offsets() equals the
per-index loop. Skipped, with the reason, where hypothesis is not importable."""
import json
import os
import subprocess

import pytest

hypothesis = pytest.importorskip("hypothesis", reason="hypothesis is not installed (apt-get install python3-hypothesis)")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import tfspec  # noqa: E402

CLI = os.environ.get("TFSPEC_CLI")


@st.composite
def layouts(draw):
    n = draw(st.integers(1, 4))
    shape = [draw(st.integers(1, 6)) for _ in range(n)]
    stride = [draw(st.integers(-8, 40)) for _ in range(n)]
    if n >= 2 and draw(st.booleans()):
        shape = [tuple(shape[:2])] + shape[2:]
        stride = [tuple(stride[:2])] + stride[2:]
    return tfspec.Layout(tuple(shape), tuple(stride))


class Serve:
    def __init__(self):
        self.p = subprocess.Popen([CLI, "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __call__(self, op, **args):
        self.p.stdin.write(json.dumps({"seq": 1, "op": op, "args": args}) + "\n")
        self.p.stdin.flush()
        reply = json.loads(self.p.stdout.readline())
        return ("ok", reply["result"]) if "result" in reply else ("error", reply["error"]["rule"])


@pytest.fixture(scope="module")
def serve():
    if not CLI:
        pytest.skip("TFSPEC_CLI (the tfspec binary) is not set: run under ctest")
    s = Serve()
    yield s
    s.p.stdin.close()
    s.p.wait(timeout=30)


def module(fn, *args):
    try:
        r = fn(*args)
        return ("ok", r.to_json() if isinstance(r, tfspec.Layout) else r)
    except tfspec.SpecError as e:
        return ("error", e.rule)


@settings(max_examples=300, deadline=None)
@given(a=layouts(), b=layouts(), data=st.data())
def test_module_agrees_with_serve(serve, a, b, data):
    n = a.size()
    i = data.draw(st.integers(0, n - 1))
    assert ("ok", a(i)) == serve("eval", layout=a.to_json(), coord=i)
    assert ("ok", n) == serve("size", layout=a.to_json())
    assert module(a.cosize) == serve("cosize", layout=a.to_json())
    for op in ("coalesce", "filter", "complement", "right_inverse", "left_inverse"):
        assert module(getattr(tfspec, op), a) == serve(op, layout=a.to_json()), (op, str(a))
    for op in ("composition", "logical_divide", "logical_product"):
        assert module(getattr(tfspec, op), a, b) == serve(op, a=a.to_json(), tiler=b.to_json()), (op, str(a), str(b))


@settings(max_examples=300, deadline=None)
@given(a=layouts())
def test_bulk_offsets_equal_the_loop(a):
    n = a.size()
    assert list(memoryview(a.offsets())) == [a(i) for i in range(n)]
