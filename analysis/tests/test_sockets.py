# SPDX-License-Identifier: BSD-3-Clause
"""Issue 18, the analysis side: kernel instances (variants) never merged, check --min-line-pct,
the socket and MPI layers side by side, and a UDP rate sweep's knee.

Every assertion on numbers reads files of known values (known_sockets.py, on known_values.py):
tcp_stream --streams 1 and 4 at 6.0/9.2 and 8.0/9.41 Gb/s (64K/1M) on a 10 Gb/s line, bw at
6.4/8.0 Gb/s there (80% at 1M); an ib run of bw alone at 80 Gb/s of 100; a udp_rate sweep over
0.5, 1, 2, 4 Gb/s whose loss at 1472 bytes is 0, 0.2, 3.5, 52 % (knee: 1 Gb/s). Most commands
run in-process (cli.main), which is what the launcher calls, to keep the tests fast."""
import json
import math
import shutil
import types

import h5py
import known_json
import known_sockets as ks
import known_values
import numpy as np
import pytest
from conftest import assert_error, run_cli

from fabricbench_analysis import cli, load
from fabricbench_analysis.checks import compare, linecheck
from fabricbench_analysis.model import grouping
from fabricbench_analysis.render import knee, summary
from fabricbench_analysis.model.errors import AnalysisError

TCP = "runs/run_0000/kernels/02_tcp_stream"  # after bw (01_bw): --streams 1, then 4


@pytest.fixture(scope="module")
def socks(results, tmp_path_factory):
    d = tmp_path_factory.mktemp("sockets")
    s = types.SimpleNamespace()
    run = known_values.run

    def make(name, spec, sock):
        return ks.write(str(d / (name + ".h5")), results.shm, [spec], [sock])

    tcp = run(kernels=("bw",), fabric="tcp", line_rate_gbps=10.0, bw_scale=0.1)
    s.tcp = make("tcp", tcp, ks.spec())
    # The same values, the instances in the other order, other ports (the OS chooses them)
    s.swapped = make("swapped", tcp, ks.spec(tcp_streams=(4, 1), port=41234))
    # --streams 4 30% slower, --streams 1 as it was
    s.slow4 = make("slow4", tcp, ks.spec(tcp_scale={4: 0.7}))
    s.norate = make("norate", run(kernels=("bw",), fabric="tcp", line_rate_gbps=math.nan,
                                  bw_scale=0.1), ks.spec())
    s.ib = make("ib", run(kernels=("bw",), fabric="ib"), ks.spec(tcp_streams=()))
    s.udp = make("udp", tcp, ks.spec(tcp_streams=(), udp=True, udp_pps=True))
    # A file from before variants: one tcp_stream, no variant or axis attribute
    s.old = make("old", tcp, ks.spec(tcp_streams=(1,)))
    with h5py.File(s.old, "r+") as f:
        for a in ("variant", "axis"):
            del f[TCP].attrs[a]
    s.lat = known_values.write_known(str(d / "lat.h5"), results.shm, [run(kernels=("latency",))])
    # bw at 1M measured while a rank ran 20% of the time (the socket kernels are not judged so)
    s.busybw = make("busybw", run(kernels=("bw",), fabric="tcp", line_rate_gbps=10.0,
                                  bw_scale=0.1, cpu_min={1048576: 20.0}), ks.spec())
    s.dir = d
    return s


def _main(capsys, *argv):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    assert "Traceback" not in out.err, out.err
    return code, out.out, out.err


# ------------------------------------------------------------------ variants


def test_instances_are_rows_of_their_own(socks):
    """Keyed by (kernel, variant, bytes): the two instances' rows stay apart, each with its
    own known Gb/s; the tidy table carries variant and axis."""
    t = load([socks.tcp])
    assert t.instances() == [("bw", ""), ("tcp_stream", "--streams 1"),
                             ("tcp_stream", "--streams 4")]
    g = grouping.make_groups(t)
    assert len(g) == 1
    rows = {grouping.row_key(r): r for r in grouping.group_rows(t, g[0])}
    for (s, b), gbps in ks.TCP_GBPS.items():
        r = rows[("tcp_stream", "--streams %d" % s, b)]
        assert r["Gbps"] == pytest.approx(gbps) and r["streams"] == s and r["axis"] == "streams"
    assert len(rows) == 4 + 2 + 2
    assert t.series()[0]["kernels"] == ["bw", "tcp_stream --streams 1", "tcp_stream --streams 4"]


def test_compare_per_instance(socks):
    """--streams 4 is 30% slower in slow4, --streams 1 is not: each instance is compared with
    its own, never with the other (merged, the medians would mix 6.0 and 8.0)."""
    res = compare.compare(load([socks.tcp, socks.slow4]), group_keys=("file",))
    blocks = {b["name"]: b for b in res["blocks"]}
    assert set(blocks) == {"bw", "tcp_stream --streams 1", "tcp_stream --streams 4"}
    for name, ratio in (("tcp_stream --streams 1", 1.0), ("tcp_stream --streams 4", 0.7)):
        b = blocks[name]
        assert b["variant"] == name.split(" ", 1)[1] and [r["bytes"] for r in b["rows"]] == \
            [65536, 1048576]
        for row in b["rows"]:
            assert row["cells"]["tcp (slow4)"]["ratio"] == pytest.approx(ratio)
    assert "== tcp_stream --streams 4: MBps" in compare.render_text(res)
    assert res["layers"] is None  # one fabric: no layers table


def test_check_baseline_by_instance(socks, capsys):
    """check --baseline matches rows by (kernel, variant, bytes): slow4 FAILs --streams 4 at
    both sizes (-30%) and passes --streams 1 unchanged; the same instances in the other order
    (and other ports in their setup) pass, with no setup warning."""
    code, out, _ = _main(capsys, "check", "--json", "--baseline", socks.tcp, socks.slow4)
    assert code == 1
    checks = json.loads(out)["files"][0]["checks"]
    got = {(c["kernel"], c["variant"], c["bytes"]): (c["status"], round(c["change"], 6))
           for c in checks if c["metric"] == "MBps"}
    assert got[("tcp_stream", "--streams 4", 65536)] == ("FAIL", -0.3)
    assert got[("tcp_stream", "--streams 4", 1048576)] == ("FAIL", -0.3)
    assert got[("tcp_stream", "--streams 1", 65536)] == ("PASS", 0.0)
    assert got[("tcp_stream", "--streams 1", 1048576)] == ("PASS", 0.0)
    assert len(got) == 8
    code, out, _ = _main(capsys, "check", "--baseline", socks.tcp, socks.swapped)
    assert code == 0 and "result: PASS (0 FAIL, 0 WARN, 8 PASS)" in out, out
    assert len([ln for ln in out.splitlines() if ln.startswith("PASS    tcp_stream --streams ")]) \
        == 4


def test_rules_target_one_instance(socks, capsys, tmp_path):
    """A rules file's KERNEL[VALUE] / KERNEL[OPTION=VALUE] selects one instance: slow4's
    --streams 4 is 30% slower. Loosened to 35% for --streams 4 alone, it passes; skipped for
    tcp_stream[4], only --streams 1's checks remain; KERNEL alone still takes both; a value
    no instance has matches nothing (the -30% FAILs stay); a malformed selector is a usage
    error naming the line."""
    rules = tmp_path / "rules.txt"

    def checks(text):
        rules.write_text(text)
        code, out, _ = _main(capsys, "check", "--json", "--baseline", socks.tcp, socks.slow4,
                             "--rules", rules)
        got = {(c["variant"], c["bytes"]): (c["status"], c["tolerance"])
               for c in json.loads(out)["files"][0]["checks"]
               if c["kernel"] == "tcp_stream" and c["metric"] == "MBps"}
        return code, got

    code, got = checks("tcp_stream[streams=4]  *  MBps  35%\n")
    assert code == 0 and got[("--streams 4", 65536)] == ("PASS", 0.35), got
    assert got[("--streams 1", 65536)][1] != 0.35  # --tolerance's, not the rule's
    code, got = checks("tcp_stream[4]  *  MBps  skip\n")
    assert code == 0 and sorted(got) == [("--streams 1", 65536), ("--streams 1", 1048576)]
    code, got = checks("tcp_stream  *  MBps  35%\n")
    assert code == 0 and len(got) == 4 and all(t == 0.35 for _, t in got.values())
    for miss in ("tcp_stream[8]", "tcp_stream[rate=4]", "bw[4]"):
        code, got = checks("%s  *  MBps  35%%\n" % miss)
        assert code == 1 and got[("--streams 4", 1048576)][0] == "FAIL", (miss, got)
    rules.write_text("# a comment\ntcp_stream[streams=]  *  MBps  35%\n")
    p = run_cli("check", "--baseline", socks.tcp, socks.slow4, "--rules", rules)
    assert_error(p, 2, "line 2", "tcp_stream[streams=]", "KERNEL[OPTION=VALUE]")


def test_file_before_variants(socks):
    """A tcp_stream without variant or axis attributes (written before them) is the kernel
    alone, variant ''; checked against itself, it passes."""
    t = load([socks.old])
    assert {(r["kernel"], r["variant"], r["axis"]) for r in t.rows} == {("bw", "", ""),
                                                                       ("tcp_stream", "", "")}
    assert summary.summarize(t)[0]["kernels"] == ["bw", "tcp_stream"]
    from fabricbench_analysis.checks.check import check
    res = check(t, load([socks.old]), 0.1)
    assert res["result"] == "PASS" and res["files"][0]["common"] == 6


@pytest.mark.parametrize("name,value,phrase", [
    ("variant", np.int64(4), "the attribute variant of /runs/run_0000/kernels/02_tcp_stream is "
                             "an integer; a string is expected"),
    ("variant", np.array(["--streams 1", "--streams 4"], dtype=object),
     "the attribute variant of /runs/run_0000/kernels/02_tcp_stream is an array of shape (2,)"),
    ("variant", "x" * 300, "is 300 characters long; a variant is at most 256"),
    ("axis", "../streams", "the attribute axis of /runs/run_0000/kernels/02_tcp_stream is "
                           "'../streams', not a column name"),
])
def test_hostile_variant_axis(socks, tmp_path, name, value, phrase):
    bad = str(tmp_path / "bad.h5")
    shutil.copyfile(socks.tcp, bad)
    with h5py.File(bad, "r+") as f:
        if isinstance(value, np.ndarray):
            f[TCP].attrs.create(name, value, dtype=h5py.string_dtype())
        else:
            f[TCP].attrs[name] = value
    with pytest.raises(AnalysisError) as e:
        load([bad])
    assert e.value.code == 3 and phrase in e.value.message, e.value.message


def test_json_input_keeps_instances(socks, tmp_path):
    """JSON Lines and the JSON document carry variant and axis in their kernel records: the
    same instances and the same check as from the HDF5 file."""
    from fabricbench_analysis.checks.check import check
    base = load([socks.tcp])
    for path in (known_json.write_jsonl(socks.slow4, str(tmp_path / "s.jsonl")),
                 known_json.write_document(socks.slow4, str(tmp_path / "s.json"))):
        t = load([path])
        assert t.instances() == base.instances()
        got = check(base, t, 0.1)["files"][0]["checks"]
        want = check(base, load([socks.slow4]), 0.1)["files"][0]["checks"]
        assert [(c["kernel"], c["variant"], c["bytes"], c["status"]) for c in got] == \
            [(c["kernel"], c["variant"], c["bytes"], c["status"]) for c in want]


def test_plot_a_curve_per_instance(socks):
    """One figure per kernel (file names from kernel names only), a curve per group of runs
    (--per-run: per run) and instance, the variant in its legend."""
    from fabricbench_analysis.render import plot
    t = load([socks.tcp, socks.slow4])
    for per_run, want in ((True, ("tcp --streams 1", "tcp --streams 4", "tcp (slow4) --streams 1",
                                  "tcp (slow4) --streams 4")),
                          (False, ("tcp (2 runs) --streams 1", "tcp (2 runs) --streams 4"))):
        figs = {name: fig for name, _, fig in plot.figures(t, per_run=per_run)}
        assert set(figs) == {"bw", "tcp_stream"}
        legend = [x.get_text() for x in figs["tcp_stream"].axes[0].get_legend().get_texts()]
        assert [x for x in legend if x.startswith("tcp")] == list(want), legend
        assert len([x for x in legend if x.startswith("line rate")]) == 1  # one rate: one line


# ------------------------------------------------------------------ --min-line-pct


def test_min_line_pct_pass_and_fail(socks, capsys):
    """At the largest size of each instance: tcp_stream 92.0% and 94.1% pass 90%, bw's 80.0%
    fails (exit 1) in a line naming kernel, variant, size, line% and threshold; at 80% all
    pass (exit 0)."""
    code, out, _ = _main(capsys, "check", "--min-line-pct", "90", socks.tcp)
    assert code == 1, out
    lines = out.splitlines()
    assert "FAIL    bw                         1M  8.000      10.00  80.0%  90%  80.0% of the " \
        "line rate, below 90%" in lines, out
    assert any(ln.startswith("PASS    tcp_stream --streams 1     1M  9.200") and "92.0%" in ln
               for ln in lines), out
    assert any(ln.startswith("PASS    tcp_stream --streams 4     1M  9.410") and "94.1%" in ln
               for ln in lines), out
    assert "result: FAIL (1 FAIL, 0 WARN, 2 PASS)" in lines
    code, out, _ = _main(capsys, "check", "--min-line-pct", "80%", socks.tcp)
    assert code == 0 and "result: PASS (0 FAIL, 0 WARN, 3 PASS)" in out, out


def test_min_line_pct_sizes_all_and_json(socks, capsys):
    code, out, _ = _main(capsys, "check", "--json", "--min-line-pct", "90", "--line-pct-sizes",
                         "all", socks.tcp)
    res = json.loads(out)
    items = res["files"][0]["checks"]
    assert code == 1 and res["baseline"] is None and res["line_judged"] == 8
    got = {(i["kernel"], i["variant"], i["bytes"]): (i["status"], round(i["value"], 6))
           for i in items}
    assert got[("tcp_stream", "--streams 1", 65536)] == ("FAIL", 60.0)
    assert got[("tcp_stream", "--streams 4", 1048576)] == ("PASS", 94.1)
    assert got[("bw", "", 8)] == ("FAIL", 8.0)
    assert all(i["threshold"] == 90 and i["metric"] == "line_rate_pct" for i in items)


def test_min_line_pct_unknown_and_nothing_to_judge(socks, capsys):
    """No line rate: every row is a WARN 'not judged', nothing passes silently, and with no
    row judged at all the exit is 4 (nothing to judge)."""
    code, out, err = _main(capsys, "check", "--min-line-pct", "90", socks.norate)
    assert code == 4, (out, err)
    warns = [ln for ln in out.splitlines() if ln.startswith("WARN")]
    assert len(warns) == 3 and all(ln.endswith("not judged: line rate unknown (give the tool "
                                               "--line-rate)") for ln in warns), out
    assert "PASS" not in out.replace("0 PASS", "")
    assert "error: nothing to judge against the line rate" in err
    # With the baseline as well: its checks pass, the line rate is still not judged (exit 4);
    # a FAIL (the ib run's bw at 80%) wins over it (exit 1)
    code, out, err = _main(capsys, "check", "--min-line-pct", "90", "--baseline", socks.tcp,
                           socks.norate)
    assert code == 4 and "(nothing judged against the line rate)" in out, out
    code, _, _ = _main(capsys, "check", "--min-line-pct", "90", socks.norate, socks.ib)
    assert code == 1


def test_min_line_pct_keeps_nothing_in_common_a_fail(socks, capsys):
    """Beside a baseline, a run with nothing in common with it stays a FAIL whatever the
    line-rate checks add (here none: latency alone)."""
    code, out, _ = _main(capsys, "check", "--json", "--baseline", socks.ib, "--min-line-pct",
                         "70", socks.ib, socks.lat)
    files = json.loads(out)["files"]
    assert code == 1 and [f["result"] for f in files] == ["PASS", "FAIL"], files
    assert files[1]["common"] == 0 and files[1]["line_judged"] == 0


def test_min_line_pct_udp_and_usage(socks, capsys):
    """UDP kernels are not judged (their rate is offered): a note, no item; bad values and a
    check with nothing to check are usage errors (exit 2)."""
    code, out, _ = _main(capsys, "check", "--json", "--min-line-pct", "90", socks.udp)
    res = json.loads(out)
    assert code == 1 and {i["kernel"] for i in res["files"][0]["checks"]} == {"bw"}
    assert any("udp_pps, udp_rate not judged against the line rate" in n for n in res["notes"])
    for bad in ("0", "150", "abc"):
        assert _main(capsys, "check", "--min-line-pct", bad, socks.tcp)[0] == 2
    p = run_cli("check", socks.tcp)  # through the launcher, as a user runs it
    assert_error(p, 2, "check needs --baseline BASE.h5, --min-line-pct PCT, or both")


def test_line_items_reasons():
    """The reasons of rows no file of known values holds: a rate known but the run within one
    host (line% NaN), a latency kernel and barrier (no throughput: not judged at all)."""
    def row(**kw):
        r = {"kernel": "bw", "variant": "", "kind": "bandwidth", "bytes": 1 << 20,
             "Gbps": 50.0, "busbw_GBps": math.nan, "line_rate_pct": math.nan,
             "line_rate_gbps": 100.0, "nhosts": 1}
        r.update(kw)
        return r
    items = linecheck.line_items([row(), row(kernel="latency", kind="latency"),
                                  row(kernel="barrier", kind="collective", bytes=0)], 90)
    assert len(items) == 1 and items[0]["status"] == "WARN"
    assert items[0]["reason"].startswith("not judged: within one host")


# ------------------------------------------------------------------ layers


def test_summary_layers_block(socks, capsys):
    """Per size both layers measured (64K, 1M): each tcp_stream instance, bw, and bw over the
    best socket instance (6.4 / 8.0 = 0.80x, 8.0 / 9.41 = 0.85x)."""
    rec = summary.summarize(load([socks.tcp]))[0]
    lay = rec["layers"]
    assert [(c["layer"], c["name"]) for c in lay["columns"]] == [
        ("socket", "tcp_stream --streams 1"), ("socket", "tcp_stream --streams 4"),
        ("MPI", "bw")]
    assert [r["bytes"] for r in lay["rows"]] == [65536, 1048576]
    assert lay["rows"][0]["Gbps"] == pytest.approx([6.0, 8.0, 6.4])
    assert lay["rows"][1]["Gbps"] == pytest.approx([9.2, 9.41, 8.0])
    assert [r["ratio"] for r in lay["rows"]] == pytest.approx([0.8, 8.0 / 9.41])
    code, out, _ = _main(capsys, "summary", socks.tcp)
    lines = out.splitlines()
    at = lines.index("layers of tcp, Gb/s per message size (bw/socket: bw over the best socket "
                     "instance)")
    assert lines[at + 1:at + 6] == [
        "            socket       socket    MPI",
        "bytes   tcp_stream   tcp_stream     bw  bw/socket",
        "       --streams 1  --streams 4",
        "  64K        6.000        8.000  6.400      0.80x",
        "   1M        9.200        9.410  8.000      0.85x"]
    assert code == 0 and max(len(ln) for ln in lines[at:at + 6]) <= 100
    assert summary.summarize(load([socks.ib]))[0]["layers"] is None  # MPI alone


def test_compare_layers_across_fabrics(socks, capsys):
    """tcp (socket and MPI) against ib (MPI alone): one table, per size both layers measured,
    every group's columns side by side."""
    res = compare.compare(load([socks.tcp, socks.ib]))
    lay = res["layers"]
    assert [(c["group"], c["layer"], c["name"]) for c in lay["columns"]] == [
        ("tcp", "socket", "tcp_stream --streams 1"), ("tcp", "socket", "tcp_stream --streams 4"),
        ("tcp", "MPI", "bw"), ("ib", "MPI", "bw")]
    assert [r["bytes"] for r in lay["rows"]] == [65536, 1048576]
    assert lay["rows"][0]["Gbps"] == pytest.approx([6.0, 8.0, 6.4, 64.0])
    assert lay["rows"][1]["Gbps"] == pytest.approx([9.2, 9.41, 8.0, 80.0])
    code, out, _ = _main(capsys, "compare", socks.tcp, socks.ib)
    lines = out.splitlines()
    at = lines.index("== layers: socket (the kernel's TCP) and MPI, Gb/s per message size "
                     "[higher is better]")
    assert lines[at + 1:at + 7] == [
        "               tcp          tcp    tcp     ib",
        "            socket       socket    MPI    MPI",
        "bytes   tcp_stream   tcp_stream     bw     bw",
        "       --streams 1  --streams 4",
        "  64K        6.000        8.000  6.400  64.00",
        "   1M        9.200        9.410  8.000  80.00"]
    assert code == 0


# ------------------------------------------------------------------ the knee


def test_udp_knee(socks, capsys):
    """1472 bytes: loss 0, 0.2, 3.5, 52 % at 0.5, 1, 2, 4 Gb/s: the knee is 1 Gb/s, then 2
    Gb/s loses 3.5%; 8K never loses more than 1% (0.3% at 4 Gb/s); 32K loses 3.5% already
    at 0.5 Gb/s. With --max-loss 5%: 2 Gb/s at 1472, 0.5 Gb/s at 32K."""
    ks_ = summary.summarize(load([socks.udp]))[0]["knees"]
    got = {k["bytes"]: (k["case"], k["knee"] and k["knee"]["offered"],
                        k["beyond"] and k["beyond"]["offered"]) for k in ks_}
    assert got == {1472: ("knee", 1.0, 2.0), 8192: ("no_loss", 4.0, None),
                   32768: ("lowest", None, 0.5)}
    assert ks_[0]["knee"]["rx_Gbps"] == pytest.approx(0.998)
    code, out, _ = _main(capsys, "summary", "--max-loss", "5%", socks.udp)
    assert code == 0
    assert "udp_rate knee of tcp: the highest offered rate whose loss stays <= 5% " \
        "(--max-loss)" in out
    assert "  1472: knee at 2 Gb/s offered (loss 3.5%, received 1.93 Gb/s); the next rate, " \
        "4 Gb/s, loses 52%" in out, out
    assert "  8K: no loss above 5% up to the highest rate offered, 4 Gb/s (loss 0.3%, " \
        "received 3.988 Gb/s)" in out, out
    assert "  32K: knee at 0.5 Gb/s offered (loss 3.5%, received 0.4825 Gb/s); the next " \
        "rate, 1 Gb/s, loses 10%" in out, out
    text = "\n".join(knee.text(ks_, "tcp"))
    assert "32K: loss already at the lowest rate offered: 0.5 Gb/s loses 3.5% (above 1%)" in text
    assert "8K: no loss above 1% up to the highest rate offered, 4 Gb/s" in text
    assert _main(capsys, "summary", "--max-loss", "x", socks.udp)[0] == 2


def test_report_shows_layers_knee_and_line_check(socks, tmp_path, capsys):
    out = str(tmp_path / "r.html")
    code, _, err = _main(capsys, "report", socks.tcp, socks.ib, socks.udp, "-o", out,
                         "--min-line-pct", "90")
    assert code == 0, err
    page = open(out, encoding="utf-8").read()
    for phrase in ("<h2>Line-rate check</h2>", "Layers of tcp", "Layers: socket and MPI",
                   "udp_rate knee of tcp (udp)", "1472: knee at 1 Gb/s offered",
                   "tcp_stream --streams 4"):
        assert phrase in page, phrase


def test_layers_mark_a_disturbed_row(socks, capsys):
    """The layers table marks bw's disturbed 1M row and takes no ratio from it; 64K as
    before (6.400 over 8.000: 0.80x)."""
    code, out, _ = _main(capsys, "summary", socks.busybw)
    assert code == 0
    lines = out.splitlines()
    at = lines.index([x for x in lines if x.startswith("layers of ")][0])
    table = lines[at:]
    assert [x for x in table if x.strip().startswith("64K")][0].split() == [
        "64K", "6.000", "8.000", "6.400", "0.80x"], table
    assert [x for x in table if x.strip().startswith("1M")][0].split() == [
        "1M", "9.200", "9.410", "8.000", "[disturbed]", "-"], table
