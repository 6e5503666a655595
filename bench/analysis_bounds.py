#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Crafted inputs for fabricbench-analyze's bounds (docs/ANALYSIS.md, "Bounds"), and the time
every command takes on them.

From a real result file (TEMPLATE.h5, with the --json-doc document of the same run) it writes
into OUTDIR:

  attr_fabric.h5    the template with its run attribute `fabric` 50 MB long ('x' x 50e6)
  attr_command.h5   the same for `command_line`
  attr_detail.h5    the same for the first kernel's `detail`
  doc5000.json      a JSON document of 5,000 runs (the template's run repeated)
  jsonl5000.jsonl   the same runs as JSON Lines
  runs3000.h5       an HDF5 file of 3,000 runs (the template's run copied; with a template of
                    about 400 KB a run, the issue's 1.2 GB)

With --caps, instead, files AT the caps of fabricbench_analysis/reading/limits.py (the runs, kernel
groups and table rows one command reads), to show what the caps are worth:

  caps_runs.h5      MAX_RUNS runs of the template's run
  caps_kernels.h5   MAX_KERNELS kernel groups of one row each (in MAX_RUNS runs)
  caps_rows.h5      MAX_ROWS rows: kernel groups of 64 rows (fabricbench's most sizes), in
                    runs of the template's kernels

then runs `fabricbench-analyze` summary, compare (with TEMPLATE; at the caps, the file alone,
--group none: every run compared), matrix, plot, report, check (--baseline TEMPLATE; at the
caps, every run against the file itself: --baseline FILE FILE --run all) and export on each, one at a time, each with a time limit (--timeout, default 60 s),
and prints per file and command: the wall time, the exit code and the bytes written to
standard output and standard error.

usage: analysis_bounds.py TEMPLATE.h5 TEMPLATE.json OUTDIR [--analyze LAUNCHER] [--timeout S]
                          [--only NAME,NAME] [--keep] [--caps]
  LAUNCHER defaults to analysis/fabricbench-analyze of this tree. --keep: reuse the crafted
  files of an earlier call (they take a minute or two to write)."""
import argparse
import json
import os
import subprocess
import sys
import time

import h5py
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
BIG = 50 * 1000 * 1000
COMMANDS = ("summary", "compare", "matrix", "plot", "report", "check", "export")


def _big_attr(template, out, where, name):
    if os.path.exists(out):
        os.unlink(out)
    with open(template, "rb") as src, open(out, "wb") as dst:
        dst.write(src.read())
    with h5py.File(out, "r+") as f:
        g = f[where]
        g.attrs[name] = "x" * BIG


def _first_kernel(f):
    ks = f["runs/run_0000/kernels"]
    return "runs/run_0000/kernels/" + sorted(ks)[0]


def craft(template, doc, outdir, keep):
    os.makedirs(outdir, exist_ok=True)
    files = {}

    def made(name):
        path = os.path.join(outdir, name)
        files[name] = path
        return keep and os.path.exists(path)

    if not made("attr_fabric.h5"):
        _big_attr(template, files["attr_fabric.h5"], "runs/run_0000", "fabric")
    if not made("attr_command.h5"):
        _big_attr(template, files["attr_command.h5"], "runs/run_0000", "command_line")
    if not made("attr_detail.h5"):
        with h5py.File(template, "r") as f:
            k = _first_kernel(f)
        _big_attr(template, files["attr_detail.h5"], k, "detail")
    with open(doc, encoding="utf-8") as f:
        d = json.load(f)
    run = d["runs"][0]
    if not made("doc5000.json"):
        d5 = dict(d)
        d5["runs"] = [run] * 5000
        with open(files["doc5000.json"], "w", encoding="utf-8") as f:
            json.dump(d5, f)
    if not made("jsonl5000.jsonl"):
        with open(files["jsonl5000.jsonl"], "w", encoding="utf-8") as f:
            recs = [dict(run["run"], record="run", schema=d["schema"],
                         schema_version=d["schema_version"])]
            for k in run["kernels"]:
                kr = {a: v for a, v in k.items() if a not in ("rows", "status")}
                recs.append(dict(kr, record="kernel"))
                for r in k["rows"]:
                    recs.append(dict(r, record="row", kernel=k["kernel"], kind=k["kind"]))
                recs.append({"record": "kernel_end", "kernel": k["kernel"],
                             "status": k["status"], "rows": len(k["rows"])})
            recs.append(dict(run["end"], record="end"))
            text = "".join(json.dumps(r) + "\n" for r in recs)
            for _ in range(5000):
                f.write(text)
    if not made("runs3000.h5"):
        out = files["runs3000.h5"]
        with h5py.File(template, "r") as src, h5py.File(out, "w") as dst:
            for a, v in src.attrs.items():
                dst.attrs[a] = v
            runs = dst.create_group("runs")
            src.copy("runs/run_0000", runs, name="run_0000")
            for i in range(1, 3000):
                dst.copy("runs/run_0000", runs, name="run_%04d" % i)
            dst.attrs["latest_run"] = "run_2999"
    return files


def _shaped_run(src, parent, name, kernels, rows):
    """parent[name]: a copy of the run src with `kernels` kernel groups (src's cycled), each
    table of `rows` rows (src's values repeated, sizes made distinct)."""
    src.file.copy(src, parent, name=name)
    g = parent[name]
    ks = g["kernels"]
    names = sorted(ks)
    tmpl = [ks[n] for n in names]
    for i in range(kernels):
        t = tmpl[i % len(tmpl)]
        kid = "%03d_%s" % (i, t.attrs["kernel"])
        k = g.create_group("kernels_new/" + kid)
        for a, v in t.attrs.items():
            k.attrs[a] = v
        k.attrs["rows"] = np.int64(rows)
        tab = k.create_group("table")
        for a, v in t["table"].attrs.items():
            tab.attrs[a] = v
        for c, ds in t["table"].items():
            v = ds[()]
            if c == "bytes":
                new = (np.arange(rows, dtype=v.dtype) + 1) * 8
            else:
                new = np.resize(v, rows) if len(v) else v
            out = tab.create_dataset(c, data=new)
            for a, av in ds.attrs.items():
                out.attrs[a] = av
    del g["kernels"]
    g.move("kernels_new", "kernels")


def craft_caps(template, outdir, keep):
    sys.path.insert(0, os.path.join(HERE, "..", "analysis"))
    from fabricbench_analysis import limits

    os.makedirs(outdir, exist_ok=True)
    files = {}
    with h5py.File(template, "r") as f:
        nk = len(f["runs/run_0000/kernels"])
    plans = {"caps_runs.h5": (limits.MAX_RUNS, None, None),
             "caps_kernels.h5": (limits.MAX_RUNS, limits.MAX_KERNELS // limits.MAX_RUNS, 1),
             "caps_rows.h5": (limits.MAX_ROWS // (64 * nk), nk, 64)}
    for name, (runs, kernels, rows) in plans.items():
        path = files[name] = os.path.join(outdir, name)
        if keep and os.path.exists(path):
            continue
        with h5py.File(template, "r") as src, h5py.File(path, "w") as dst:
            for a, v in src.attrs.items():
                dst.attrs[a] = v
            rg = dst.create_group("runs")
            if kernels is None:
                src.copy("runs/run_0000", rg, name="run_0000")
            else:
                _shaped_run(src["runs/run_0000"], rg, "run_0000", kernels, rows)
            for i in range(1, runs):
                dst.copy("runs/run_0000", rg, name="run_%04d" % i)
            dst.attrs["latest_run"] = "run_%04d" % (runs - 1)
    return files


def time_all(files, template, launcher, timeout, outdir, caps=False):
    print("%-16s %-8s %8s %5s %12s %10s" % ("file", "command", "seconds", "exit", "stdout B",
                                            "stderr B"))
    for name, path in files.items():
        size = os.path.getsize(path)
        print("# %s: %.1f MB" % (name, size / 1e6))
        for cmd in COMMANDS:
            args = [cmd, path]
            if cmd == "compare":  # at the caps: every run a group of its own, all compared
                args = [cmd, path, "--group", "none"] if caps else [cmd, path, template]
            elif cmd == "plot":
                args += ["-o", os.path.join(outdir, "plots-" + name)]
            elif cmd == "report":
                args += ["-o", os.path.join(outdir, "report-" + name + ".html")]
            elif cmd == "check":  # at the caps: every run against every run
                args = [cmd, "--baseline", path, path, "--run", "all"] if caps else \
                    [cmd, "--baseline", template, path]
            elif cmd == "export":
                args += ["--csv"]
            t0 = time.monotonic()
            try:
                p = subprocess.run([sys.executable, launcher] + args, capture_output=True,
                                   timeout=timeout)
                code, nout, nerr = p.returncode, len(p.stdout), len(p.stderr)
                last = p.stderr.decode("utf-8", "replace").strip().splitlines()
                last = last[0][:150] if last else ""
            except subprocess.TimeoutExpired as e:
                code, nout, nerr = "T/O", len(e.stdout or b""), len(e.stderr or b"")
                last = "killed after %d s" % timeout
            dt = time.monotonic() - t0
            print("%-16s %-8s %8.2f %5s %12d %10d  %s" % (name, cmd, dt, code, nout, nerr,
                                                          last), flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("template")
    ap.add_argument("doc")
    ap.add_argument("outdir")
    ap.add_argument("--analyze", default=os.path.join(HERE, "..", "analysis",
                                                      "fabricbench-analyze"))
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("--only", default="", help="only these crafted files (names, comma-separated)")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--caps", action="store_true", help="files at the caps instead")
    a = ap.parse_args()
    files = craft_caps(a.template, a.outdir, a.keep) if a.caps else \
        craft(a.template, a.doc, a.outdir, a.keep)
    if a.only:
        files = {k: v for k, v in files.items() if k in a.only.split(",")}
    time_all(files, a.template, a.analyze, a.timeout, a.outdir, a.caps)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
