"""The module's answers are the CLI's: a sample of spec/corpus run in process through the Python
functions (arguments as Python values, results converted back to JSON) and through one
`tfspec serve` process; results equal, refusals carry the same rule id, clause and kind. (Whether
those answers are the spec's is the corpus's own test: `tfspec conform` on the reference.)"""
import json
import os
import pathlib
import subprocess

import pytest

import tfspec
from tfspec import _tfspec

ROOT = pathlib.Path(__file__).resolve().parents[2]
CORPUS = ROOT / "spec" / "corpus"
STEP = 7  # every 7th case of each file: ~670 cases, every op group represented


def sample():
    cases = []
    for path in sorted(CORPUS.glob("*.json")):
        doc = json.loads(path.read_text())
        for i, case in enumerate(doc.get("cases", [])):
            # kernel.check is not in the module (tfspec.kernel.check runs the CLI's op itself)
            if i % STEP == 0 and isinstance(case.get("args"), dict) and not case["op"].startswith("kernel."):
                cases.append(case)
    return cases


CASES = sample()


def args(case):
    """The request's arguments: the case's own, its options merged in (as the runner sends them)."""
    return {**case["args"], **case.get("options", {})}


@pytest.fixture(scope="module")
def cli_replies():
    """The CLI's reply to every sampled case, by case id (one serve process for all of them)."""
    requests = [json.dumps({"seq": i, "op": c["op"], "args": args(c)}) for i, c in enumerate(CASES)]
    run = subprocess.run([os.environ.get("TFSPEC_CLI", str(ROOT / "build/cli/tfspec")), "serve"], input="\n".join(requests) + "\n",
                         capture_output=True, text=True, timeout=300)
    replies = [json.loads(line) for line in run.stdout.splitlines() if line.strip()]
    assert len(replies) == len(CASES), run.stderr
    return {CASES[r["seq"]]["id"]: r for r in replies}


def module_function(op):
    name = op.split(".")[-1].replace("-", "_")
    if op in ("check", "shard.check"):
        return lambda **args: _tfspec._call(op, **args)  # tfspec.check wraps these in a CheckResult
    fn = getattr(tfspec, name, None)
    return fn if fn is not None and not op.startswith("prove.") else (lambda **args: _tfspec._call(op, **args))


def as_json(value, like):
    """The module's value as protocol JSON; a layout answer with extra members (domain="extend")
    comes as {"layout": L, ...} and is merged back into one object as the wire form has it."""
    j = json.loads(tfspec.to_json(value))
    if isinstance(j, dict) and isinstance(like, dict) and "kind" in like and "layout" in j and "kind" not in j:
        return {**j.pop("layout"), **j}
    return j


def test_the_sample_covers_the_op_groups():
    groups = [c["op"].split(".")[0] if "." in c["op"] else "layout" for c in CASES]
    assert {"layout", "shard", "prove"} <= set(groups) and groups.count("prove") >= 5
    assert any(c["op"] == "propagate" for c in CASES) and any(c.get("options") for c in CASES)
    assert len(CASES) > 300


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_module_answers_as_the_cli(case, cli_replies):
    reply = cli_replies[case["id"]]
    try:
        got = module_function(case["op"])(**args(case))
    except tfspec.SpecError as e:
        assert "error" in reply, "module refused %s, CLI answered %s" % (e, reply)
        assert (e.rule, e.clause) == (reply["error"]["rule"], reply["error"]["clause"])
        assert e.kind == reply["error"]["kind"]
        return
    assert "result" in reply, "module answered %r, CLI %s" % (got, reply)
    expected = reply["result"]
    if case["op"].startswith("prove."):  # timings and the solver's wording vary between runs
        for volatile in ("seconds", "attempts", "reason"):
            expected.pop(volatile, None)
            got.pop(volatile, None)
    assert as_json(got, expected) == expected
