# SPDX-License-Identifier: BSD-3-Clause
"""The JSON outputs of a result file: what `fabricbench run --json` (JSON Lines) and `--json-doc`
(the JSON document) write for the same runs, made from an HDF5 file (a known-values file of
known_values.py, or a real one), record by record as docs/SCHEMA.md describes them.

So a test can give the analysis the same data in all three formats and require the same
verdicts. A real run's own JSON outputs are tested against its HDF5 file as well
(test_json_input.py), which keeps this writer honest about the format.
"""
import json
import math

import h5py
import numpy as np

# The run fields written at the end (JSON Lines' end record), as output/runmeta.c has them.
END_FIELDS = ("end_time", "status", "stop_reason", "ucx_transports", "ucx_transports_by_pair",
              "fabric_check", "fabric_check_reason", "rows_invalid", "rows_disturbed",
              "rows_noisy", "disturbance", "budget_s", "budget_cap_s", "measure_s")
# What crash safety cost: HDF5 attributes only.
H5_ONLY = ("commits", "commit_seconds_total", "commit_seconds_max")


def _value(v):
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bytes):
        v = v.decode("utf-8")
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return v


def exit_code(status):
    return {"complete": 0, "interrupted": 4, "failed": 3, "running": 3}.get(
        status, 1 if status.startswith("complete") else 3)


def runs(path):
    """[(run record, [(kernel record, [row records], kernel_end record)], end record or None)]
    of every run of the HDF5 file at path."""
    out = []
    with h5py.File(path, "r") as f:
        for name in sorted(f["runs"]):
            g = f["runs"][name]
            a = {k: _value(v) for k, v in g.attrs.items()}
            run = {"record": "run", "schema": _value(f.attrs["schema"]),
                   "schema_version": _value(f.attrs["schema_version"])}
            for k, v in a.items():
                if k in END_FIELDS or k in H5_ONLY:
                    continue
                if k == "inventory_json":
                    run["inventory"] = json.loads(v) if v else {}
                else:
                    run[k] = v
            for ds in ("hostnames", "placement"):
                if ds in g:
                    run[ds] = [_value(x) for x in g[ds].asstr()[:]]
            if "env" in g:
                run["env"] = {k: _value(v) for k, v in g["env"].attrs.items()}
            kernels, units = [], {}
            for kname in sorted(g["kernels"]):
                k = g["kernels"][kname]
                ka = {x: _value(v) for x, v in k.attrs.items()}
                krec = {"record": "kernel"}
                krec.update({x: v for x, v in ka.items() if x not in ("status", "rows")})
                t = k["table"]
                cols = t.attrs["columns"].split(",")
                for c in cols:
                    units.setdefault(c, _value(t[c].attrs["units"]))
                n = len(t["bytes"])
                rows = []
                for i in range(n):
                    row = {"record": "row", "kernel": ka["kernel"], "kind": ka["kind"]}
                    for c in cols:
                        row[c] = _value(t[c][i])
                    key = str(row["bytes"])
                    if "blocks" in k and key in k["blocks"]:
                        row["block_medians_us"] = [_value(x) for x in k["blocks"][key][:]]
                    rows.append(row)
                kend = {"record": "kernel_end", "kernel": ka["kernel"],
                        "status": ka.get("status", ""), "rows": n}
                kernels.append((krec, rows, kend))
            run["units"] = units
            end = None
            if a.get("status", "running") != "running":
                end = {"record": "end"}
                end.update({x: a[x] for x in END_FIELDS if x in a})
                end["exit_code"] = exit_code(a["status"])
            out.append((run, kernels, end))
    return out


def _dumps(obj):
    return json.dumps(obj, allow_nan=False, separators=(",", ":"))


def write_jsonl(h5path, out):
    """The JSON Lines of every run of h5path, written to out; returns out."""
    with open(out, "w", encoding="utf-8") as f:
        for run, kernels, end in runs(h5path):
            f.write(_dumps(run) + "\n")
            for krec, rows, kend in kernels:
                f.write(_dumps(krec) + "\n")
                for r in rows:
                    f.write(_dumps(r) + "\n")
                f.write(_dumps(kend) + "\n")
            if end is not None:
                f.write(_dumps(end) + "\n")
    return out


def _strip(rec, *keys):
    return {k: v for k, v in rec.items() if k not in keys}


def write_document(h5path, out):
    """The JSON document of the runs of h5path, written to out; returns out."""
    docruns, last = [], "complete"
    for run, kernels, end in runs(h5path):
        status = end["status"] if end else "running"
        last = status
        docruns.append({
            "status": status, "run": _strip(run, "record"),
            "kernels": [dict(_strip(krec, "record"), status=kend["status"],
                             rows=[_strip(r, "record", "kernel", "kind") for r in rows])
                        for krec, rows, kend in kernels],
            "end": _strip(end, "record") if end else None})
    first = docruns[0]["run"] if docruns else {}
    doc = {"schema": first.get("schema"), "schema_version": first.get("schema_version"),
           "status": "complete" if last.startswith("complete") else last, "runs": docruns}
    with open(out, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, allow_nan=False, indent=1) + "\n")
    return out
