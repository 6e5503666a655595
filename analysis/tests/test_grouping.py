# SPDX-License-Identifier: BSD-3-Clause
"""Which runs are repeats of one measurement (grouping.py): the command a run is grouped by
leaves out the output options and nothing else; groups are named, and copies kept apart."""
import pytest
from conftest import assert_ok, run_cli

from fabricbench_analysis import load
from fabricbench_analysis.model import grouping
from fabricbench_analysis.model.errors import UsageError

BASE = ("latency", "-m", "8,1K")


@pytest.mark.parametrize("line", [
    "fabricbench run latency -m 8,1K",
    "/usr/bin/fabricbench run latency -m 8,1K -o a.h5",
    "build/fabricbench run latency -m 8,1K --output=b.h5 --append",
    "fabricbench run latency -m 8,1K -oc.h5 --force --repeat 3",
    "fabricbench run latency -q -m 8,1K --json x.jsonl --csv=x.csv --samples --max-samples 10",
    "fabricbench run latency -m 8,1K -qo 'my file.h5' -vv --stall-timeout 30",
    "fabricbench run latency -m 8,1K --json-doc - --prom p.prom --wide --columns bytes,p50",
])
def test_output_options_are_left_out(line):
    assert grouping.command_words(line) == BASE


@pytest.mark.parametrize("line,words", [
    ("fabricbench run latency -m 8,1K -i 100", BASE + ("-i", "100")),
    ("fabricbench run latency -m 8,1K --validate", BASE + ("--validate",)),
    ("fabricbench run latency --sizes=8,1K", ("latency", "--sizes", "8,1K")),
    ("fabricbench run allreduce --root -1 -qc", ("allreduce", "--root", "-1", "-c")),
    ("fabricbench run gradsync --bucket 4M --inflight 2 -o g.h5",
     ("gradsync", "--bucket", "4M", "--inflight", "2")),
    ("fabricbench run latency 'unbalanced", ("latency", "'unbalanced")),
])
def test_measurement_options_are_kept(line, words):
    assert grouping.command_words(line) == words


def test_environment_options():
    assert grouping.env_words("FABRICBENCH_OUTPUT=x.h5 FABRICBENCH_SIZES=8,1K "
                              "FABRICBENCH_REPEAT=3 FABRICBENCH_WINDOW=16") == (
        "FABRICBENCH_SIZES=8,1K", "FABRICBENCH_WINDOW=16")
    assert grouping.env_words("") == ()
    # the analysis's own variables shape no run
    assert grouping.env_words("FABRICBENCH_ANALYZE_MAX_RUNS=5 FABRICBENCH_SIZES=8") == (
        "FABRICBENCH_SIZES=8",)


def test_parse_keys():
    assert grouping.parse_keys(None) == ("command", "fabric")
    assert grouping.parse_keys("none") == ()
    assert grouping.parse_keys("file,command") == ("command", "file")
    for bad in ("nosuch", "none,file", ","):
        with pytest.raises(UsageError):
            grouping.parse_keys(bad)


def test_groups_by_fabric_and_labels(known):
    """shm's and tcp's runs: two groups named by their fabric; a --label per file keeps files
    apart even where the runs share a command and fabric; --group fabric merges commands."""
    t = load([known.fabric_a, known.fabric_b, known.tcp1])
    groups = grouping.make_groups(t)
    assert [(g.name, len(g)) for g in groups] == [("shm", 3), ("tcp", 4)]
    t = load([known.base, known.slow], labels=["before", "after"])
    assert [(g.name, len(g)) for g in grouping.make_groups(t)] == [("before", 1), ("after", 1)]
    t = load([known.base, known.slow])
    assert [(g.name, len(g)) for g in grouping.make_groups(t)] == [("shm", 2)]
    assert [len(g) for g in grouping.make_groups(t, ("command", "fabric", "file"))] == [1, 1]
    # latency alone is another command; by fabric only, one group
    t = load([known.base, known.slow_plain])
    assert [len(g) for g in grouping.make_groups(t)] == [1, 1]
    assert [len(g) for g in grouping.make_groups(t, ("fabric",))] == [2]
    notes = grouping.differences(grouping.make_groups(t, ("fabric",))[0])
    assert any("command line" in n for n in notes), notes


def test_copies_of_a_file_are_not_repeats(known):
    t = load([known.bimodal3, known.bimodal3])
    groups = grouping.make_groups(t)
    assert [len(g) for g in groups] == [3, 3]
    assert len({g.name for g in groups}) == 2


def test_group_rows_medians(known):
    """A group row holds the median of its runs for every quantity, the worst run's
    validation errors and regimes, the first run's labels."""
    t = load([known.regimes_b])
    (g,) = grouping.make_groups(t)
    rows = {(r["kernel"], r["bytes"]): r for r in grouping.group_rows(t, g)}
    r = rows[("latency", 8)]
    assert r["p50_us"] == pytest.approx(1.5, rel=1e-12) and len(r["_runs"]) == 3
    assert r["regimes"] == 2 and grouping.row_regimes(r) == 2
    assert grouping.spread(r, "p50_us") == pytest.approx(0.02, rel=1e-9)
    assert r["label"] == g.members[0]["label"]


def test_reference_names_a_group(known):
    p = run_cli("compare", "--reference", "nosuch", known.fabric_a, known.fabric_b)
    assert p.returncode == 2 and "is not a group of runs: shm, tcp" in p.stderr, p.stderr
    for ref in ("tcp", "2", known.fabric_b, "fabric_b.h5"):
        p = run_cli("compare", "--reference", ref, known.fabric_a, known.fabric_b)
        assert_ok(p)
        assert p.stdout.startswith("reference: tcp;"), (ref, p.stdout[:80])
