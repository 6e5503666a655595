# SPDX-License-Identifier: BSD-3-Clause
"""fabricbench's JSON outputs as input: JSON Lines (--json) and the JSON document (--json-doc)
read like the HDF5 file (jsonload.py), recognised by their content.

- Known values: the known-value files of known_values.py written as JSON Lines and as a JSON
  document (known_json.py: the same data, record by record); `check` gives the same verdicts,
  changes and noise bands whichever format the baseline and the file under test are in, and
  the verdicts known_values.py works out (a 30% bandwidth loss FAILs against a one-run
  baseline). The tidy table (export) is the same, block medians and their noise included.
- A real run's own three outputs (-o, --json, --json-doc of one run): the same tidy table and
  the same check results, so the reader and the writer agree on the format.
- Hostile inputs: JSON Lines and documents edited one thing at a time (a cut line, wrong
  types, missing keys, NaN and Infinity, numbers beyond a double or 64-bit integer, a key
  twice, impossible values, bytes that are not UTF-8, records out of order) give exit 3 and one
  error line naming the file, the line or record and what was wrong; a run without its end
  record and a last line cut short (what kill -9 leaves) load with a note.
"""
import json
import os
import random
import re

import known_json
import pytest
from conftest import assert_error, assert_ok, run_cli

from fabricbench_analysis import load
from fabricbench_analysis.model.errors import AnalysisError
from fabricbench_analysis.reading.loading import SCHEMA_VERSION

# (baseline, file under test) pairs of the `known` fixture, and the result check gives.
PAIRS = (("base", "base", "PASS"), ("base", "slow", "FAIL"), ("base", "mild", "WARN"),
         ("base", "noisy", "WARN"), ("base3", "slow", "FAIL"), ("blocks", "slow_regimes", "WARN"),
         ("base", "interrupted", "WARN"))
# The tidy table's columns that name the file (they differ by design between the copies).
FILE_COLUMNS = ("label", "file", "file_name")


@pytest.fixture(scope="session")
def known_formats(known, tmp_path_factory):
    """{name: {"h5": path, "jsonl": path, "doc": path}} of every known-value file."""
    d = tmp_path_factory.mktemp("known_json")
    out = {}
    for name in ("base", "slow", "mild", "noisy", "base3", "blocks", "slow_regimes",
                 "interrupted", "multi"):
        h5 = getattr(known, name)
        out[name] = {"h5": h5,
                     "jsonl": known_json.write_jsonl(h5, str(d / (name + ".jsonl"))),
                     "doc": known_json.write_document(h5, str(d / (name + ".json")))}
    return out


def _check(base, cur, *extra):
    p = run_cli("check", "--json", "--baseline", base, cur, *extra)
    # 4: no verdict, every row disturbed or invalid (a real run on a busy machine)
    assert p.returncode in (0, 1, 4), p.stdout + p.stderr
    assert "Traceback" not in p.stderr
    res = json.loads(p.stdout)
    checks = [(c["status"], c["kernel"], c["bytes"], c["metric"], c["baseline"], c["value"],
               c["change"], c["noise"], c["reason"]) for f in res["files"] for c in f["checks"]]
    return p.returncode, res["result"], checks


@pytest.mark.parametrize("base,cur,result", PAIRS)
def test_check_same_verdicts_in_every_format(known_formats, base, cur, result):
    """The baseline and the file under test in any of the three formats: the same checks, to
    the last digit of change and noise, and the known result."""
    b, c = known_formats[base], known_formats[cur]
    ref = _check(b["h5"], c["h5"])
    assert ref[1] == result, ref
    for fb, fc in (("jsonl", "h5"), ("h5", "jsonl"), ("doc", "jsonl"), ("h5", "doc"),
                   ("doc", "doc")):
        got = _check(b[fb], c[fc])
        assert got == ref, "baseline %s as %s, %s as %s:\n%s\nvs HDF5:\n%s" % (
            base, fb, cur, fc, got, ref)


def test_check_json_baseline_fails_30_percent_less_bandwidth(known_formats):
    """The JSON Lines baseline judges as the HDF5 one: the 30% bandwidth loss of `slow` FAILs
    every bw and allreduce row (beyond 10% and the 15.00006% noise band), latency PASSes."""
    code, result, checks = _check(known_formats["base"]["jsonl"], known_formats["slow"]["h5"])
    assert code == 1 and result == "FAIL"
    for status, kernel, *_ in checks:
        assert status == ("PASS" if kernel == "latency" else "FAIL"), checks


def _export(path, run="all"):
    p = run_cli("export", "--json", "--run", run, path)
    assert_ok(p)
    rows = [json.loads(line) for line in p.stdout.splitlines()]
    return [{k: v for k, v in r.items() if k not in FILE_COLUMNS} for r in rows]


@pytest.mark.parametrize("name", ("base", "blocks", "base3", "interrupted", "multi"))
def test_export_same_tidy_table(known_formats, name):
    """Every column of every row, the noise estimates included (the block medians of `blocks`
    give noise_method table+blocks), and every run of a file of several."""
    f = known_formats[name]
    ref = _export(f["h5"])
    assert ref and _export(f["jsonl"]) == ref and _export(f["doc"]) == ref
    if name == "blocks":
        assert {r["noise_method"] for r in ref} == {"table+blocks"}
    assert _export(f["jsonl"], "latest") == _export(f["h5"], "latest")


def test_run_without_end_and_cut_last_line_load_with_a_note(known_formats, tmp_path):
    """What kill -9 leaves: no end record (a run that never finished, as an HDF5 file's status
    running), and a last line cut short while it was written."""
    lines = open(known_formats["base"]["jsonl"]).read().splitlines(True)
    f = tmp_path / "killed.jsonl"
    f.write_text("".join(lines[:-1]) + lines[-2][:40])  # no end; a row cut short
    p = run_cli("summary", f)
    assert_ok(p)
    assert "never finished (status running" in p.stderr
    assert "is cut short" in p.stderr and "left out" in p.stderr
    assert "running" in p.stdout


# ------------------------------------------------------------------ a real run's outputs


def test_live_outputs_read_alike(live):
    """One real run written three ways: the same tidy table (every column, the noise from the
    block medians included), and check of each against each gives the same checks."""
    ref = _export(live["h5"])
    assert len(ref) == 2 * 9
    assert _export(live["jsonl"]) == ref
    assert _export(live["doc"]) == ref
    want = _check(live["h5"], live["h5"], "--run", "latest")
    for b, c in (("jsonl", "h5"), ("h5", "doc"), ("doc", "jsonl")):
        assert _check(live[b], live[c], "--run", "latest") == want, (b, c)


# ------------------------------------------------------------------ hostile JSON Lines


def _edited(known_formats, tmp_path, edit, name="edited.jsonl"):
    """The base JSON Lines with edit(lines) applied (lines: the records as dicts, or text)."""
    recs = [json.loads(line) for line in open(known_formats["base"]["jsonl"])]
    text = edit(recs)
    if not isinstance(text, str):
        text = "".join(json.dumps(r) + "\n" for r in text)
    f = tmp_path / name
    f.write_bytes(text.encode("utf-8", "surrogateescape") if isinstance(text, str) else text)
    return f


def _row_at(recs, n=0):
    """The index of the n-th row record."""
    return [i for i, r in enumerate(recs) if r["record"] == "row"][n]


def _set_row(field, value, n=0):
    def edit(recs):
        recs[_row_at(recs, n)][field] = value
        return recs
    return edit


def _text_edit(fn):
    def edit(recs):
        return fn(["%s\n" % json.dumps(r) for r in recs])
    return edit


def _line_of_row(n=0):
    return lambda recs: _row_at(recs, n) + 1


HOSTILE = [
    ("a line cut in the middle", _text_edit(lambda ls: "".join(ls[:3] + [ls[3][:50] + "\n"] +
                                                                ls[4:])),
     ("line 4", "is not JSON")),
    ("a string for a time", _set_row("p50_us", "1.0"),
     ("line 3 (row record)", "p50_us is a string", "a number (or null) is expected")),
    ("a boolean for a count", _set_row("validation_errors", True),
     ("line 3 (row record)", "validation_errors is a boolean", "an integer is expected")),
    ("a fraction for the size", _set_row("bytes", 8.5),
     ("line 3 (row record)", "bytes is the number 8.5", "an integer is expected")),
    ("a row without a column", lambda recs: [dict((k, v) for k, v in r.items() if
                                                 not (r["record"] == "row" and k == "p50_us"))
                                            for r in recs],
     ("line 3 (row record)", "has no p50_us")),
    ("no units", lambda recs: [dict((k, v) for k, v in r.items() if k != "units")
                               for r in recs], ("line 1 (run record)", "has no units")),
    ("no schema_version", lambda recs: [dict((k, v) for k, v in r.items()
                                             if k != "schema_version") for r in recs],
     ("line 1 (run record)", "has no schema_version")),
    ("another schema", lambda recs: [dict(r, schema="other") if r["record"] == "run" else r
                                     for r in recs], ("field schema", "is 'other'")),
    ("NaN", _text_edit(lambda ls: "".join(ls[:2] + [ls[2].replace('"p50_us": 1.0',
                                                                  '"p50_us": NaN')] + ls[3:])),
     ("line 3 (row record)", "p50_us is NaN, which is not JSON")),
    ("Infinity", _text_edit(lambda ls: "".join(ls[:2] + [ls[2].replace(
        '"p50_us": 1.0', '"p50_us": -Infinity')] + ls[3:])),
     ("line 3 (row record)", "-Infinity, which is not JSON")),
    ("a number beyond a double", _text_edit(lambda ls: "".join(ls[:2] + [ls[2].replace(
        '"p50_us": 1.0', '"p50_us": 1e999')] + ls[3:])),
     ("line 3 (row record)", "1e999, beyond the range of a double")),
    ("an integer beyond 64 bits", _text_edit(lambda ls: "".join(ls[:2] + [ls[2].replace(
        '"bytes": 8,', '"bytes": 123456789012345678901234567890,')] + ls[3:])),
     ("line 3 (row record)", "beyond the range of a 64-bit integer")),
    ("a key twice", _text_edit(lambda ls: "".join(ls[:2] + [ls[2].replace(
        '"p50_us": 1.0', '"p50_us": 1.0, "p50_us": 0.5')] + ls[3:])),
     ("line 3", "has the key p50_us twice")),
    ("an impossible value", _set_row("p50_us", -1.0),
     ("line 3 (row record)", "p50_us is -1.0: impossible, a time cannot be negative")),
    ("a byte that is not UTF-8", lambda recs: ("".join(json.dumps(r) + "\n" for r in recs[:2]) +
                                               '{"record": "row", "kernel": "lat\udcffency"}\n'),
     ("line 3", "is not valid UTF-8 (byte 0xFF")),
    ("a row before its run", lambda recs: recs[2:3] + recs,
     ("line 1 (row record)", "comes before any run record")),
    ("an array for a record", _text_edit(lambda ls: "".join(ls[:2] + ["[1, 2]\n"] + ls[3:])),
     ("line 3", "an array", "a JSON object (one record per line) is expected")),
    ("a hostile kernel name", lambda recs: [dict(r, kernel="../../x") if r["record"] in
                                            ("kernel", "row", "kernel_end") and
                                            r.get("kernel") == "latency" else r for r in recs],
     ("line 2 (kernel record): field kernel", "not a kernel name")),
    ("a string among the block medians", _set_row("block_medians_us", [1.0, "x"]),
     ("line 3 (row record): block_medians_us element 1", "a time is expected")),
    ("a record without its type", lambda recs: recs[:3] + [{"kernel": "latency"}] + recs[3:],
     ("line 4", "has no \"record\"")),
    ("a newer schema", lambda recs: [dict(r, schema_version=SCHEMA_VERSION + 1)
                                     if r["record"] == "run" else r for r in recs],
     ("schema_version %d" % (SCHEMA_VERSION + 1), "reads version %d" % SCHEMA_VERSION)),
]


@pytest.mark.parametrize("what,edit,phrases", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_jsonl(known_formats, tmp_path, what, edit, phrases):
    f = _edited(known_formats, tmp_path, edit)
    for cmd in ("summary", "check"):
        args = ("check", "--baseline", f, known_formats["base"]["h5"]) if cmd == "check" \
            else ("summary", f)
        p = run_cli(*args)
        assert_error(p, 3, str(f), *phrases)
        errors = [line for line in p.stderr.splitlines() if "error:" in line]
        assert len(errors) == 1, p.stderr


def test_control_characters_come_out_escaped(known_formats, tmp_path):
    f = _edited(known_formats, tmp_path, lambda recs: [dict(r, fabric="ib\x1b[31m\u202e")
                                                        if r["record"] == "run" else r
                                                        for r in recs])
    p = run_cli("summary", f)
    assert_ok(p)
    assert "ib\\x1B[31m\\u202E" in p.stdout and "\x1b" not in p.stdout + p.stderr


# ------------------------------------------------------------------ hostile documents


def _doc_edited(known_formats, tmp_path, edit):
    doc = json.load(open(known_formats["base"]["doc"]))
    text = edit(doc)
    f = tmp_path / "edited.json"
    f.write_text(text if isinstance(text, str) else json.dumps(doc, indent=1))
    return f


def _drop_p50(doc):
    del doc["runs"][0]["kernels"][0]["rows"][1]["p50_us"]


def _nan(doc):
    return json.dumps(doc, indent=1).replace('"p50_us": 1.0', '"p50_us": NaN', 1)


HOSTILE_DOC = [
    ("cut in half", lambda doc: json.dumps(doc, indent=1)[:5000], ("(JSON document)",
                                                                   "is not JSON")),
    ("runs not an array", lambda doc: doc.update(runs={"x": 1}), ("runs", "an array is expected")),
    ("a row without a column", _drop_p50, ("runs[0].kernels[0].rows[1]", "has no p50_us")),
    ("NaN", _nan, ("runs[0].kernels[0].rows[0]", "p50_us is NaN, which is not JSON")),
    ("a kernel that is a string", lambda doc: doc["runs"][0]["kernels"].append("bw"),
     ("runs[0].kernels[3]", "is a string", "an object is expected")),
    ("a wrong type in the run", lambda doc: doc["runs"][0]["run"].update(nranks="2"),
     ("runs[0].run: field nranks", "an integer is expected")),
    ("no runs", lambda doc: doc.pop("runs"), ("has no runs",)),
]


@pytest.mark.parametrize("what,edit,phrases", HOSTILE_DOC, ids=[h[0] for h in HOSTILE_DOC])
def test_hostile_document(known_formats, tmp_path, what, edit, phrases):
    f = _doc_edited(known_formats, tmp_path, edit)
    p = run_cli("check", "--baseline", f, known_formats["base"]["h5"])
    assert_error(p, 3, str(f), *phrases)
    assert len([line for line in p.stderr.splitlines() if "error:" in line]) == 1, p.stderr


def test_document_of_a_running_run(known_formats, tmp_path):
    """A document read while its run goes (or after kill -9): status running, end null."""
    def running(doc):
        doc["status"] = "running"
        doc["runs"][0]["status"] = "running"
        doc["runs"][0]["end"] = None
    f = _doc_edited(known_formats, tmp_path, running)
    p = run_cli("summary", f)
    assert_ok(p)
    assert "never finished (status running" in p.stderr


# ------------------------------------------------------------------ mutants


def _mutants(text, rng, n):
    """n edits of text: cut, a byte changed, a number replaced, a key dropped, lines swapped."""
    numbers = [m.span() for m in re.finditer(r"-?\d+(\.\d+)?([eE][-+]?\d+)?", text)]
    keys = [m.span() for m in re.finditer(r'"[a-z_0-9A-Z]+": ?', text)]
    lines = text.splitlines(True)
    for i in range(n):
        kind = i % 6
        if kind == 0:
            yield text[:rng.randrange(len(text))]
        elif kind == 1:
            at = rng.randrange(len(text))
            yield text[:at] + chr(rng.randrange(1, 256)) + text[at + 1:]
        elif kind == 2:
            a, b = rng.choice(numbers)
            yield text[:a] + rng.choice(("-1", "1e308", "1e999", "NaN", "true", '"7"', "null",
                                         "18446744073709551616", "0.5", "[]", "{}")) + text[b:]
        elif kind == 3:
            a, b = rng.choice(keys)
            yield text[:a] + '"x_%d": ' % i + text[b:]
        elif kind == 4 and len(lines) > 2:
            ls = list(lines)
            x, y = rng.randrange(len(ls)), rng.randrange(len(ls))
            ls[x], ls[y] = ls[y], ls[x]
            yield "".join(ls)
        else:
            ls = list(lines)
            x = rng.randrange(len(ls))
            yield "".join(ls[:x] + [ls[x]] + ls[x:])


@pytest.mark.parametrize("fmt", ("jsonl", "doc"))
def test_mutants_never_crash_the_reader(known_formats, tmp_path, fmt):
    """400 mutants of a known file (deterministic): each loads, or is an AnalysisError (exit 3
    at the command line) whose message names the file, in one line; never another exception."""
    src = open(known_formats["blocks"][fmt], encoding="utf-8").read()
    rng = random.Random(17)
    f = tmp_path / ("mutant." + ("jsonl" if fmt == "jsonl" else "json"))
    outcomes = {"loaded": 0, "refused": 0}
    for text in _mutants(src, rng, 400):
        f.write_bytes(text.encode("utf-8", "surrogateescape"))
        try:
            load([str(f)])
            outcomes["loaded"] += 1
        except AnalysisError as e:
            assert str(f) in e.message and "\n" not in e.message, e.message
            assert "could not be read:" not in e.message, "a bug, not the file: " + e.message
            outcomes["refused"] += 1
    assert outcomes["refused"] > 100 and outcomes["loaded"] > 0, outcomes
