#!/usr/bin/env python3
"""Runs every `$ tfspec ...` example of the given Markdown files and compares what it prints.

    scripts/doctest.py --tfspec build/cli/tfspec README.md docs/*.md spec/*.md

An example is an indented line `$ COMMAND` (continued by a trailing backslash) whose command
starts with `tfspec`, pipes into it or runs it after `;`, `&&` or `(`; the indented lines after
it, up to a blank line or the next `$`, are its expected output (stdout and stderr together).
Conventions (docs/testing.md, "Examples that cannot drift"):

  - `…` inside a line matches any text (a time, an absolute path, a long list);
  - a line that is only `…` or `...` matches any number of lines;
  - durations (`0.861 s`, `51 ms`) compare as durations, not values;
  - a trailing `# exit N` comment checks the exit code (`; echo $?` shows it in the output);
  - `<!-- doctest: skip REASON -->` on the line before a block skips the block's examples;
  - `<!-- doctest: needs MODULE ... -->` runs the block only where `python3` imports every MODULE
    (a peer library: jax, torch), and says so where it does not; in such a block every `$` line is
    an example (a script that uses the library, e.g. `python3 docs/examples/jax_owners.py`),
    with the tfspec binary in the environment as $TFSPEC;
  - a file the example writes under docs/ must equal the committed one byte for byte;
    docs/kernels/ (the kernel pipeline cases, inputs only) is linked into the scratch docs/.

Each example runs in a scratch directory that mirrors the repository (so `docs/` writes never
touch the checkout), with a 120 s limit. Exit 0 when every example matches, 1 otherwise.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

DURATION = re.compile(r"\b\d+(\.\d+)? ?(s|ms)\b")
EXIT_COMMENT = re.compile(r"\s+#\s*exit\s+(\d+)\s*$")
SKIP = re.compile(r"<!--\s*doctest:\s*skip\b(.*?)-->")
NEEDS = re.compile(r"<!--\s*doctest:\s*needs\s+([\w. ]+?)\s*-->")
RUNS_TFSPEC = re.compile(r"(^|[|;&(]\s*)tfspec\b")


class Example:
    def __init__(self, path, line, command, expected, needs=()):
        self.path, self.line, self.command, self.expected, self.needs = path, line, command, expected, needs


def indent_of(line):
    return len(line) - len(line.lstrip(" "))


def examples_in(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    found, skip_block, needs, i = [], False, (), 0
    while i < len(lines):
        line = lines[i]
        if SKIP.search(line):
            skip_block = True
        elif NEEDS.search(line):
            needs = tuple(NEEDS.search(line).group(1).split())
        elif line.strip() and indent_of(line) < 4:
            skip_block, needs = False, ()  # prose ends the block a marker applies to
        stripped = line.strip()
        if indent_of(line) >= 4 and stripped.startswith("$ "):
            start, ind = i + 1, indent_of(line)
            command = stripped[2:]
            while command.endswith("\\") and i + 1 < len(lines):
                i += 1
                command = command[:-1].rstrip() + " " + lines[i].strip()
            expected = []
            while i + 1 < len(lines):
                nxt = lines[i + 1]
                if not nxt.strip() or indent_of(nxt) < ind or nxt.strip().startswith("$ "):
                    break
                expected.append(nxt[ind:])
                i += 1
            if (RUNS_TFSPEC.search(command) or needs) and not skip_block:
                found.append(Example(path, start, command, expected, needs))
        i += 1
    return found


def line_matches(pattern, text):
    pattern, text = DURATION.sub("<duration>", pattern), DURATION.sub("<duration>", text)
    parts = pattern.split("…")
    regex = ".*".join(re.escape(p) for p in parts)
    return re.fullmatch(regex, text) is not None


def output_matches(expected, actual):
    """Expected lines against actual lines; a lone `…`/`...` line matches any run of lines."""
    memo = {}

    def match(e, a):
        if (e, a) in memo:
            return memo[(e, a)]
        if e == len(expected):
            ok = a == len(actual)
        elif expected[e].strip() in ("…", "..."):
            ok = any(match(e + 1, k) for k in range(a, len(actual) + 1))
        else:
            ok = a < len(actual) and line_matches(expected[e].rstrip(), actual[a].rstrip()) and match(e + 1, a + 1)
        memo[(e, a)] = ok
        return ok

    return match(0, 0)


INPUT_DIRS = ("kernels", "examples")  # folders of docs/ that examples read (never write)


def mirror(repo, scratch):
    for name in os.listdir(repo):
        if name in ("docs", ".git") or name.startswith("build"):
            continue
        os.symlink(os.path.join(repo, name), os.path.join(scratch, name))
    os.mkdir(os.path.join(scratch, "docs"))
    for name in INPUT_DIRS:
        os.symlink(os.path.join(repo, "docs", name), os.path.join(scratch, "docs", name))


def run(example, tfspec, repo):
    exit_match = EXIT_COMMENT.search(example.command)
    command = RUNS_TFSPEC.sub(lambda m: m.group(1) + tfspec, example.command)
    problems = []
    with tempfile.TemporaryDirectory(prefix="tfspec-doctest-") as scratch:
        mirror(repo, scratch)
        try:
            p = subprocess.run(["bash", "-c", command], cwd=scratch, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, timeout=120, env=dict(os.environ, TFSPEC=tfspec))
        except subprocess.TimeoutExpired:
            return ["timed out after 120 s"]
        actual = p.stdout.decode("utf-8", "replace").rstrip("\n").split("\n") if p.stdout.strip() else []
        if not output_matches(example.expected, actual):
            problems.append("output differs\n  expected:\n" + "".join("    " + l + "\n" for l in example.expected)
                            + "  actual:\n" + "".join("    " + l + "\n" for l in actual))
        if exit_match and p.returncode != int(exit_match.group(1)):
            problems.append("exit code %d, the example says %s" % (p.returncode, exit_match.group(1)))
        docs = os.path.join(scratch, "docs")
        for name in sorted(set(os.listdir(docs)) - set(INPUT_DIRS)):
            committed = os.path.join(repo, "docs", name)
            written = open(os.path.join(docs, name), "rb").read()
            if not os.path.exists(committed):
                problems.append("writes docs/%s, which is not committed" % name)
            elif open(committed, "rb").read() != written:
                problems.append("docs/%s differs from the committed picture (regenerate it with the example)" % name)
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tfspec", required=True, help="the tfspec binary")
    ap.add_argument("--repo", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("files", nargs="+")
    args = ap.parse_args()
    tfspec = os.path.abspath(args.tfspec)
    if not os.access(tfspec, os.X_OK):
        print("doctest: %s is not an executable" % tfspec)
        return 3
    total, failed, skipped, importable = 0, 0, 0, {}
    for path in args.files:
        for ex in examples_in(path):
            missing = [m for m in ex.needs if not importable.setdefault(
                m, subprocess.run(["python3", "-c", "import " + m], capture_output=True).returncode == 0)]
            if missing:
                skipped += 1
                print("skipped %s:%d: needs %s, which python3 does not import" % (os.path.relpath(ex.path, args.repo), ex.line, ", ".join(missing)))
                continue
            total += 1
            problems = run(ex, tfspec, os.path.abspath(args.repo))
            if problems:
                failed += 1
                print("FAIL %s:%d: $ %s" % (os.path.relpath(ex.path, args.repo), ex.line, ex.command))
                for p in problems:
                    print("  " + p.rstrip("\n").replace("\n", "\n  "))
    print("doctest: %d examples, %d failed" % (total, failed) + (", %d skipped (a peer library is missing)" % skipped if skipped else ""))
    if total == 0:
        print("doctest: no example found: nothing was tested")
        return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
