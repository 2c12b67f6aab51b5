"""tfspec.adapter (pure Python): the protocol of spec/PROTOCOL.md as an adapter sees it. The
conformance runner against the example adapter is the ctest pair python_adapter_conform_*."""
import io
import json

from tfspec.adapter import Adapter, Layout, Refused, Skipped


def session(adapter, *requests):
    out = io.StringIO()
    lines = [json.dumps(r) if isinstance(r, dict) else r for r in requests]
    adapter.serve(io.StringIO("\n".join(lines) + "\n"), out)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def make():
    a = Adapter(name="test-adapter", version="2")

    @a.op("cosize")
    def cosize(layout):
        assert isinstance(layout, Layout)
        return 1 + sum((s - 1) * d for s, d in zip(layout.shape, layout.stride))

    @a.op("composition")
    def composition(a_, b):  # own parameter names: arguments come in protocol order (a, tiler)
        if b.stride == 3:
            raise Refused("composition-stride-divisibility", "6:3 does not divide", "§3")
        if b.shape == 7:
            raise Skipped("not today")
        return Layout((b.shape,), (b.stride * a_.stride[0],))

    @a.op("product")
    def product(t):
        if t == (0,):
            raise ZeroDivisionError("a bug in the adapter")
        n = 1
        for x in t:
            n *= x
        return n

    @a.op("shard.canon")  # an op the base has no forms for: JSON arguments by keyword
    def canon(layout, mesh=None):
        return {"got": layout, "mesh": mesh}

    return a


def test_handshake_lists_the_registered_ops():
    (start,) = session(make(), {"cmd": "start", "protocol": 1})
    assert start == {"cmd": "start", "protocol": 1, "implementation": {"name": "test-adapter", "version": "2"},
                     "ops": ["composition", "cosize", "product", "shard.canon"]}


def test_layout_forms_in_and_out_with_seq_echoed():
    replies = session(make(),
                      {"seq": 7, "op": "cosize", "args": {"layout": "(4,8):(8,1)"}},                 # 1 + 3*8 + 7*1
                      {"seq": 8, "op": "cosize", "args": {"layout": {"kind": "layout", "shape": [4, 8]}}},  # 1 + 3 + 7*4
                      {"seq": 9, "op": "composition", "args": {"a": "(4,8):(8,1)", "tiler": 2}},
                      {"seq": 10, "op": "product", "args": {"t": [4294967296, "4294967296"]}})
    assert [r["seq"] for r in replies] == [7, 8, 9, 10]
    assert replies[0]["result"] == 32 and replies[1]["result"] == 32
    assert replies[2]["result"] == {"kind": "layout", "shape": [2], "stride": [8]}
    assert replies[3]["result"] == "18446744073709551616"  # beyond 2^53: a decimal string


def test_refused_skipped_and_protocol_errors():
    r = session(make(),
                {"seq": 1, "op": "composition", "args": {"a": "(4,6,8):(2,3,5)", "tiler": "6:3"}},
                {"seq": 2, "op": "composition", "args": {"a": "8:1", "tiler": "7:1"}},
                {"seq": 3, "op": "composition", "args": {"a": "8:1"}},
                {"seq": 4, "op": "cosize", "args": {"layout": "(4,8):(8"}},
                {"seq": 5, "op": "cosize", "args": {"layout": "(M,8):(1,M)"}},
                {"seq": 6, "op": "frobnicate", "args": {}},
                {"seq": 7, "op": "composition", "args": {"a": "8:1", "tiler": "2:1", "domain": "extend"}},
                "not json",
                {"seq": 8, "op": "cosize", "args": {"layout": {"kind": "layout", "shape": [2, 2], "stride": [1]}}})
    assert r[0]["error"] == {"rule": "composition-stride-divisibility", "message": "6:3 does not divide", "clause": "§3"}
    assert r[1]["skipped"] == {"reason": "not today"}
    assert r[2]["error"]["rule"] == "protocol-missing-arg"
    assert r[3]["error"]["rule"] == "parse-error"
    assert r[4]["error"]["rule"] == "needs-concrete"  # the base's forms are concrete
    assert "skipped" in r[5]
    assert "domain" in r[6]["skipped"]["reason"]  # a given argument is never dropped silently
    assert r[7] == {"seq": None, "error": {"rule": "protocol-malformed", "message": r[7]["error"]["message"], "clause": "-"}}
    assert r[8]["error"]["rule"] == "stride-congruent"


def test_an_adapter_bug_is_an_internal_error_and_serving_goes_on(capsys):
    r = session(make(), {"seq": 1, "op": "product", "args": {"t": [0]}}, {"seq": 2, "op": "product", "args": {"t": [2, 3]}},
                {"cmd": "stop"}, {"seq": 3, "op": "product", "args": {"t": [1]}})
    assert r[0]["error"]["rule"] == "internal" and "ZeroDivisionError" in r[0]["error"]["message"]
    assert r[1]["result"] == 6 and r[2] == {"cmd": "stop"} and len(r) == 3  # nothing answered after stop
    assert "ZeroDivisionError" in capsys.readouterr().err  # the traceback goes to stderr


def test_raw_ops_get_json_by_keyword():
    (r,) = session(make(), {"seq": 1, "op": "shard.canon", "args": {"layout": "(8 @ m.x)", "mesh": "x=2"}})
    assert r["result"] == {"got": "(8 @ m.x)", "mesh": "x=2"}
