# SPDX-License-Identifier: BSD-3-Clause
"""Result files of KNOWN values, for the tests of statistics, noise and verdicts.

A run measured during the test session is as noisy as the machine is busy: a verdict computed
from it (PASS, WARN, FAIL, better, worse) depends on the machine, not on the code. So every test
whose assertion depends on measured values reads files written here instead, whose every number
is chosen; the real runs (conftest.py `results`) serve the tests of shapes, definitions and exit
codes.

The SHAPE of a known file is taken from a real file written by fabricbench (`template`): its
root attributes, the run and kernel attributes, the kernel groups' names, and every table column
its `columns` attribute lists, with the column's dtype, chunking and `units`/`description`
attributes (docs/SCHEMA.md). So a column the tool adds (p9999_us, ...) appears here too, and one
an older tool lacks is simply absent, as in a real file. The VALUES are these:

  sizes                 8, 1K, 64K, 1M (bytes)
  latency p50_us        1, 2, 10, 100 us (one way)
  bw MBps               1000, 5000, 8000, 10000 MB/s (window 64): Gbps 8, 40, 64, 80
  allreduce busbw_GBps  0.5, 2, 4, 5 GB/s (2 ranks: bus factor 1, algbw = busbw)
  msgrate msgps         9e6, 3e6, 2e5, 1.2e4 messages/s (window 64, one pair; only when a
                        run's kernels name it)
  gradsync              one row: 1e8 float32 parameters, bytes = 4e8; a run's (bucket,
                        inflight) gives its time per sync, 6e5 x (1 + 1M / bucket) / inflight
                        us (0.624 s at 25M, 1), busbw = algbw = bytes / time (only when a
                        run's kernels name it)
  iterations            10000 per size, stddev_us = 1% of the mean
  time columns of a row with central time t (p50_us = mean_us = loop_us = t):
                        min 0.95t, p90 1.05t, p99 1.2t, p999 1.5t, p9999 2t, max 3t
  run                   complete, fabric shm, 2 ranks on 1 host, line rate 100 Gb/s

What the analysis derives from them (noise.py), worked by hand:

- noise_mean_rel = stddev / sqrt(n) / mean = 0.01 / sqrt(10000) = 1e-4 for every row;
- noise_p50_rel: s = sqrt(0.5 * 0.5 / 10000) = 0.005; the quantile function interpolated
  between (0, 0.95t), (0.5, t), (0.9, 1.05t) gives 0.9995t at 0.495 and 1.000625t at 0.505, so
  (1.000625 - 0.9995) / 2 = 5.625e-4.

A run's knobs (`run()`) each move only their own columns, so that a test knows exactly which
checks they change: `bw_scale` multiplies the bandwidth columns (BANDWIDTH_COLUMNS: what a
slower fabric shows) and leaves the times, and so the latency checks and the noise, as they
are; `time_scale` multiplies the time columns and leaves the rates; `iterations` and
`rel_stddev` set the noise; `drift` adds per-iteration samples (--samples) whose 10 batch means
step by `drift` x t from one batch to the next; `blocks` (factors f) makes the rows adaptive
ones with block medians f x t (the blocks group; `blocks` column = their number), and
`regimes` sets the rows' regimes column.

Row quality (docs/METRICS.md, "Row quality"): the known runs are quiet by default, every rank
busy all the time (cpu_rank_min_pct 100, as polling ranks are), an interval of the median
(ci_pct 0.11%), 1.0 runnable task per CPU: quality ok. `cpu_min` (a rank's least CPU share,
%) and `runnable` (runnable tasks per CPU) disturb a run, `iterations` below 10 makes its rows
invalid; each may be one value or {bytes: value} for some sizes only. The rows' `quality` and
`quality_reason` are what fabricbench would write for them (cpu < 80 or runnable > 1.25:
disturbed; iterations < 10: invalid; regimes > 1 or a missed --precision: noisy).
`quality_columns` says whether the file has those columns: "template" (as the real file the
shape comes from), True (added: a file of schema version 2) or False (left out: a file from
before them, whose quality the analysis derives from iterations, ci_pct and the CPU share).
"""
import math

import h5py
import numpy as np

SIZES = (8, 1024, 65536, 1048576)
LATENCY_P50_US = {8: 1.0, 1024: 2.0, 65536: 10.0, 1048576: 100.0}
BW_MBPS = {8: 1000.0, 1024: 5000.0, 65536: 8000.0, 1048576: 10000.0}
ALLREDUCE_BUSBW_GBPS = {8: 0.5, 1024: 2.0, 65536: 4.0, 1048576: 5.0}
KERNELS = ("latency", "bw", "allreduce")
# Kernels a run may name besides (their template: a real run of them, write_known's templates).
MSGRATE_MSGPS = {8: 9e6, 1024: 3e6, 65536: 2e5, 1048576: 1.2e4}
GRADSYNC_PARAMS = 1e8
GRADSYNC_BYTES = 400000000  # 1e8 parameters x 4 bytes (float32)
GRADSYNC = (26214400, 1)  # the default bucket (25M) and buckets in flight
ITERATIONS = 10000
REL_STDDEV = 0.01
WINDOW = 64
BUS_FACTOR = 1.0
LINE_RATE_GBPS = 100.0
# Relative standard errors of every row of a run with the defaults (worked out above).
NOISE_MEAN_REL = REL_STDDEV / math.sqrt(ITERATIONS)  # 1e-4
NOISE_P50_REL = 5.625e-4
CI_PCT = 0.11  # the median's 95% interval, +-% of p50 (about 1.96 x NOISE_P50_REL)
CPU_MIN_PCT = 100.0  # a polling rank on a quiet machine runs all the time
RUNNABLE = 1.0  # one polling rank per CPU
# The row quality columns and run attributes of schema version 2 (docs/SCHEMA.md).
QUALITY_COLUMNS = {"quality": "name", "quality_reason": "words", "cpu_steal_pct": "%",
                   "ctx_invol_per_s": "1/s", "runnable_per_cpu": "count"}
QUALITY_ATTRS = ("rows_invalid", "rows_disturbed", "rows_noisy", "disturbance", "budget_s",
                 "budget_cap_s", "measure_s")

BANDWIDTH_COLUMNS = ("MBps", "Gbps", "pair_MBps", "msgps", "pair_msgps", "algbw_GBps",
                     "busbw_GBps", "line_rate_pct")
# Time quantiles of a row as multiples of its central time t.
TIME_SHAPE = {"min_us": 0.95, "p50_us": 1.0, "mean_us": 1.0, "p90_us": 1.05, "p99_us": 1.2,
              "p999_us": 1.5, "p9999_us": 2.0, "max_us": 3.0, "loop_us": 1.0}
TRANSPORTS = "sysv/memory[am am_bw#0] cma/memory[rma_bw#0]"
HOST = "knownhost"

# Run attributes the analysis reads, set to known values (the others are the template's).
RUN_ATTRS = {
    "status": "complete", "stop_reason": "", "start_time": "2026-01-01T00:00:00Z",
    "end_time": "2026-01-01T00:01:00Z",
    "command_line": "fabricbench run latency,bw,allreduce -m 8,1K,64K,1M --fabric shm "
                    "--line-rate 100G (known values: analysis/tests/known_values.py)",
    "pml": "ucx", "pml_detection": "loaded component", "ucx_transports": TRANSPORTS,
    "ucx_transports_by_pair": "", "fabric_requested": "shm", "fabric": "shm",
    "fabric_description": "shared memory within one host (no network)",
    "fabric_choice": "the fastest active", "fabric_device": "", "fabric_port": 0,
    "fabric_netdev": "", "fabric_gid_index": -1, "fabric_env": "UCX_TLS=sm,self",
    "fabric_expect": "sysv,posix,cma,knem,xpmem", "fabric_check": "match",
    "fabric_check_reason": "", "line_rate_source": "--line-rate", "nranks": 2, "nhosts": 1,
    "ranks_per_node": HOST + ":2", "slurm_job_id": "", "slurm_step_id": "",
    "slurm_nodelist": "",
}


def run(bw_scale=1.0, time_scale=1.0, iterations=ITERATIONS, rel_stddev=REL_STDDEV,
        kernels=KERNELS, line_rate_gbps=LINE_RATE_GBPS, drift=None, blocks=None, regimes=0,
        fabric="shm", gradsync=GRADSYNC, cpu_min=CPU_MIN_PCT, runnable=RUNNABLE,
        quality_columns="template", repeat=1):
    """The knobs of one run of a known file (see the module's docstring); `fabric` names the
    fabric (its command line says --fabric FABRIC), `gradsync` its (bucket, inflight);
    `iterations`, `cpu_min` and `runnable` a value or {bytes: value}; `repeat` the N of the
    --repeat N its command line says."""
    return {"bw_scale": bw_scale, "time_scale": time_scale, "iterations": iterations,
            "rel_stddev": rel_stddev, "kernels": tuple(kernels), "line_rate_gbps": line_rate_gbps,
            "drift": drift, "blocks": blocks, "regimes": regimes, "fabric": fabric,
            "gradsync": tuple(gradsync), "cpu_min": cpu_min, "runnable": runnable,
            "quality_columns": quality_columns, "repeat": repeat}


def at(knob, nbytes):
    """A knob's value at a message size: the value, or {bytes: value} (the default elsewhere:
    what run() gives when the knob is not set for that size)."""
    if not isinstance(knob, dict):
        return knob
    return knob.get(nbytes)


def _knob(spec, name, nbytes, default):
    v = at(spec.get(name, default), nbytes)
    return default if v is None else v


def row_quality(r, blocks):
    """(quality, quality_reason) of a known row as fabricbench judges it (src/measure/
    quality.h: the floor, then the machine, then regimes and --precision)."""
    why = []
    if r["iterations"] < 10:
        why.append("samples")
    if blocks and r["blocks"] < 3:
        why.append("blocks")
    if r["cpu_rank_min_pct"] < 80:
        why.append("cpu")
    if r["runnable_per_cpu"] > 1.25:
        why.append("runnable")
    if r["regimes"] > 1:
        why.append("regimes")
    if r["target_met"] == 0:
        why.append("precision")
    cls = {"samples": 3, "blocks": 3, "cpu": 2, "runnable": 2, "regimes": 1, "precision": 1}
    worst = max([cls[w] for w in why] or [0])
    return ("ok", "noisy", "disturbed", "invalid")[worst], ";".join(why)


def gradsync_time_us(bucket, inflight):
    """The known time of one gradient sync."""
    return 6e5 * (1 + 1048576 / bucket) / inflight


def command_line(spec):
    b, k = spec["gradsync"]
    own = " --bucket %d --inflight %d" % (b, k) if "gradsync" in spec["kernels"] else ""
    if spec.get("repeat", 1) > 1:
        own += " --repeat %d" % spec["repeat"]
    return ("fabricbench run %s -m 8,1K,64K,1M --fabric %s --line-rate 100G%s (known values: "
            "analysis/tests/known_values.py)" % (",".join(spec["kernels"]), spec["fabric"], own))


def central_time_us(kernel, nbytes, spec=None):
    """t of a row: one-way latency; bw's and msgrate's time of one window; allreduce's time
    per call; gradsync's time per sync."""
    if kernel == "latency":
        return LATENCY_P50_US[nbytes]
    if kernel == "bw":
        return WINDOW * nbytes / BW_MBPS[nbytes]  # bytes / (MB/s) = us
    if kernel == "msgrate":
        return WINDOW * 1e6 / MSGRATE_MSGPS[nbytes]
    if kernel == "allreduce":
        return nbytes / (ALLREDUCE_BUSBW_GBPS[nbytes] / BUS_FACTOR * 1000.0)
    if kernel == "gradsync":
        return gradsync_time_us(*(spec or run())["gradsync"])
    raise ValueError("no known values for kernel %s" % kernel)


def row(kernel, nbytes, spec):
    """Every known column of one row (those the template's table lacks are not written)."""
    t0 = central_time_us(kernel, nbytes, spec)
    t = t0 * spec["time_scale"]
    iterations = _knob(spec, "iterations", nbytes, ITERATIONS)
    cpu = _knob(spec, "cpu_min", nbytes, CPU_MIN_PCT)
    r = {"bytes": nbytes, "iterations": iterations, "warmup": 100,
         "stddev_us": spec["rel_stddev"] * t, "validation_errors": -1, "percentiles_exact": 1,
         "algbw_GBps": math.nan, "busbw_GBps": math.nan, "slowest_rank": -1,
         "slowest_share": math.nan, "comm_us": math.nan, "overlap_pct": math.nan,
         "line_rate_pct": math.nan, "cpu_rank_pct": cpu, "cpu_rank_min_pct": cpu,
         "cpu_rank_max_pct": cpu, "cpu_rank_max_rank": 0, "cpu_node_user_pct": cpu,
         "cpu_node_sys_pct": 0.0, "cpu_node_softirq_pct": 0.0,
         "ci_pct": CI_PCT if iterations >= 6 else math.nan,
         "blocks": len(spec["blocks"] or ()), "blocks_ci_pct": math.nan,
         "target_met": 0 if spec["blocks"] else -1, "regimes": spec["regimes"],
         "cpu_steal_pct": 0.0, "ctx_invol_per_s": 0.0,
         "runnable_per_cpu": _knob(spec, "runnable", nbytes, RUNNABLE)}
    r["quality"], r["quality_reason"] = row_quality(r, spec["blocks"])
    r.update({c: f * t for c, f in TIME_SHAPE.items()})
    # Rates from the unscaled time t0: time_scale moves the times only.
    if kernel == "latency":
        r["MBps"] = nbytes / t0
        r["msgps"] = 1e6 / t0
    elif kernel == "bw":
        r["MBps"] = BW_MBPS[nbytes]
        r["msgps"] = WINDOW * 1e6 / t0
    elif kernel == "msgrate":
        r["msgps"] = MSGRATE_MSGPS[nbytes]
        r["MBps"] = r["msgps"] * nbytes / 1e6
    elif kernel == "gradsync":
        r["algbw_GBps"] = r["busbw_GBps"] = nbytes / t0 / 1000.0
        r["MBps"] = nbytes / t0
        r["msgps"] = 1e6 / t0
        r["slowest_rank"] = 0
        r["slowest_share"] = 0.5
    else:
        r["algbw_GBps"] = ALLREDUCE_BUSBW_GBPS[nbytes] / BUS_FACTOR
        r["busbw_GBps"] = ALLREDUCE_BUSBW_GBPS[nbytes]
        r["MBps"] = nbytes / t0
        r["msgps"] = 1e6 / t0
        r["slowest_rank"] = 0
        r["slowest_share"] = 0.5
    r["Gbps"] = r["MBps"] * 8 / 1000
    r["pair_MBps"] = r["MBps"]
    r["pair_msgps"] = r["msgps"]
    rate = spec["line_rate_gbps"]
    if kernel != "latency" and math.isfinite(rate):  # the tool leaves latency's NaN
        gbps = r["busbw_GBps"] * 8 if kernel in ("allreduce", "gradsync") else r["Gbps"]
        r["line_rate_pct"] = 100 * gbps / rate
    for c in BANDWIDTH_COLUMNS:
        r[c] *= spec["bw_scale"]
    return r


def samples(t, n, drift):
    """n per-iteration times whose 10 contiguous batches are constant, batch i at
    t x (1 + drift x (i - 4.5)): mean t, and a batch-means relative standard error of
    drift x stdev(0..9) / sqrt(10) = drift x 0.957427 (noise.batch_rel_se)."""
    i = np.arange(n) * 10 // n
    return t * (1 + drift * (i - 4.5))


def _fill(dtype):
    """A column the known values do not define (a newer tool's): NaN, -1 / 0, or "" for text
    (type, redop)."""
    if dtype.kind == "f":
        return math.nan
    if dtype.kind == "O":
        return ""
    return -1 if dtype.kind == "i" else 0


def _set(attrs, name, value):
    """An attribute with the schema's types: 64-bit integers, doubles, UTF-8 strings."""
    if isinstance(value, bool) or isinstance(value, int):
        attrs[name] = np.int64(value)
    elif isinstance(value, float):
        attrs[name] = np.float64(value)
    else:
        attrs[name] = value


def _strings(group, name, values):
    group.create_dataset(name, data=np.array(values, dtype=object), dtype=h5py.string_dtype())


def _template_kernels(runs, kernels):
    """(id, group) of each kernel in its first template run that has it, in the templates'
    order; kernels: those the known file needs."""
    found = {}
    for tr in runs:
        for kid in sorted(tr["kernels"]):
            k = tr["kernels"][kid]
            name = k.attrs.get("kernel", "")
            if name in kernels and name not in found and "table" in k:
                found[name] = (kid, k)
    missing = [k for k in kernels if k not in found]
    if missing:
        raise ValueError("the templates %s have no %s: known files need a real run of %s" %
                         (", ".join(tr.file.filename for tr in runs), ", ".join(missing),
                          ",".join(kernels)))
    return list(found.values())


def _write_run(g, trs, spec):
    tr = trs[0]
    for a, v in tr.attrs.items():
        g.attrs[a] = v
    for a, v in RUN_ATTRS.items():
        _set(g.attrs, a, v)
    for a in QUALITY_ATTRS:  # the template run's own are not the known run's
        if a in g.attrs:
            del g.attrs[a]
    for a in ("fabric", "fabric_requested"):
        _set(g.attrs, a, spec["fabric"])
    _set(g.attrs, "command_line", command_line(spec))
    _set(g.attrs, "line_rate_gbps", float(spec["line_rate_gbps"]))
    if not math.isfinite(spec["line_rate_gbps"]):
        _set(g.attrs, "line_rate_source", "unknown (known values: none given)")
    _strings(g, "hostnames", [HOST, HOST])
    _strings(g, "placement", ["rank %d %s: cpus %d, NUMA 0, none (not bound)" % (i, HOST, i)
                              for i in range(2)])
    env = g.create_group("env")
    for a, v in (("OMPI_MCA_pml", "ucx"), ("UCX_TLS", "sm,self")):
        _set(env.attrs, a, v)
    ks = g.create_group("kernels")
    every = []
    wrote_quality = False
    for kid, tk in _template_kernels(trs, spec["kernels"]):
        kernel = tk.attrs["kernel"]
        kg = ks.create_group(kid)
        for a, v in tk.attrs.items():
            kg.attrs[a] = v
        _set(kg.attrs, "status", "complete")
        _set(kg.attrs, "rows", 1 if kernel == "gradsync" else len(SIZES))
        _set(kg.attrs, "window", WINDOW if kernel in ("bw", "msgrate") else 0)
        _set(kg.attrs, "validate", 0)
        _set(kg.attrs, "iteration_policy", "fixed: %s iterations per size" % spec["iterations"])
        if kernel in ("allreduce", "gradsync"):
            _set(kg.attrs, "bus_factor", BUS_FACTOR)
            _set(kg.attrs, "dtype", "float32")
            _set(kg.attrs, "op", "sum")
        if kernel == "gradsync":
            b, k = spec["gradsync"]
            _set(kg.attrs, "options", "params=%g bucket=%d inflight=%d" % (GRADSYNC_PARAMS,
                                                                           b, k))
            _set(kg.attrs, "detail", "1e+08 params x float32 (4 B) = 400 MB gradient in "
                 "buckets of %d B, %s (known values)" % (
                     b, "blocking MPI_Allreduce" if k == 1 else "MPI_Iallreduce, %d in "
                     "flight" % k))
        tt = tk["table"]
        sizes = (GRADSYNC_BYTES,) if kernel == "gradsync" else SIZES
        rows = [row(kernel, b, spec) for b in sizes]
        every += rows
        cols = [c for c in str(tt.attrs["columns"]).split(",") if c in tt]
        if spec["quality_columns"] is False:
            cols = [c for c in cols if c not in QUALITY_COLUMNS]
        elif spec["quality_columns"] is True:
            cols += [c for c in QUALITY_COLUMNS if c not in cols]
        table = kg.create_group("table")
        for c in cols:
            if c in tt:
                src = tt[c]
                data = np.array([r.get(c, _fill(src.dtype)) for r in rows], dtype=src.dtype)
                ds = table.create_dataset(c, data=data, maxshape=(None,),
                                          chunks=src.chunks or True)
                for a, v in src.attrs.items():
                    ds.attrs[a] = v
            else:  # a quality column the template lacks (run(quality_columns=True))
                text = c in ("quality", "quality_reason")
                data = np.array([r[c] for r in rows], dtype=object if text else np.float64)
                ds = table.create_dataset(c, data=data, maxshape=(None,), chunks=True,
                                          dtype=h5py.string_dtype() if text else None)
                _set(ds.attrs, "units", QUALITY_COLUMNS[c])
        _set(table.attrs, "columns", ",".join(cols))
        wrote_quality = "quality" in cols
        if spec["blocks"]:
            bg = kg.create_group("blocks")
            for r in rows:
                ds = bg.create_dataset(str(r["bytes"]), data=np.array(
                    [f * r["p50_us"] for f in spec["blocks"]], dtype=np.float64))
                _set(ds.attrs, "units", "us")
                _set(ds.attrs, "regimes", spec["regimes"])
        if spec["drift"] is not None:
            sg = kg.create_group("samples")
            n = at(spec["iterations"], None) or ITERATIONS
            for r in rows:
                ds = sg.create_dataset(str(r["bytes"]), data=samples(r["p50_us"], n,
                                                                     spec["drift"]),
                                       chunks=(min(n, 65536),), compression="gzip",
                                       compression_opts=4, shuffle=True)
                _set(ds.attrs, "units", "us")
                _set(ds.attrs, "iterations", n)
                _set(ds.attrs, "complete", 1)
    if wrote_quality:
        _write_quality_attrs(g, every)


def _write_quality_attrs(g, rows):
    """The run attributes of schema version 2: the rows counted in their worst class, and the
    run's disturbance in fabricbench's words (output/runmeta.c)."""
    q = [r["quality"] for r in rows]
    for name, cls in (("rows_invalid", "invalid"), ("rows_disturbed", "disturbed"),
                      ("rows_noisy", "noisy")):
        _set(g.attrs, name, q.count(cls))
    busy = [r for r in rows if "cpu" in r["quality_reason"] or
            "runnable" in r["quality_reason"]]
    if busy:
        what = []
        cpus = [r["cpu_rank_min_pct"] for r in busy if "cpu" in r["quality_reason"]]
        if cpus:
            lo, hi = min(cpus), max(cpus)
            what.append("a rank ran only %s of the time" % (
                "%.0f%%" % lo if round(lo) == round(hi) else "%.0f-%.0f%%" % (lo, hi)))
        run_ = [r["runnable_per_cpu"] for r in busy if "runnable" in r["quality_reason"]]
        if run_:
            what.append("up to %.1f runnable tasks per CPU" % max(run_))
        text = "busy: %s; %d of %d rows disturbed" % (", ".join(what), q.count("disturbed"),
                                                      len(rows))
        if q.count("invalid"):
            text += ", %d invalid" % q.count("invalid")
    else:
        text = "quiet" + ("; %d of %d rows invalid (below the floor)" % (
            q.count("invalid"), len(rows)) if q.count("invalid") else "")
    _set(g.attrs, "disturbance", text)
    for name in ("budget_s", "budget_cap_s", "measure_s"):
        _set(g.attrs, name, math.nan)  # the known runs are of fixed iterations (no budget)


def write_known(path, template, runs=None):
    """Write a result file of known values at `path`, shaped like the real file `template`
    (or a list of them: a kernel's shape comes from the first that has it, the run's from the
    first file): one run per spec of `runs` (default: one run with the defaults), run_0000,
    run_0001, ... Returns path."""
    runs = list(runs or [run()])
    templates = [template] if isinstance(template, str) else list(template)
    srcs = [h5py.File(t, "r") for t in templates]
    try:
        with h5py.File(path, "w") as dst:
            for a in ("schema", "schema_version"):
                dst.attrs[a] = srcs[0].attrs[a]
            trs = [src["runs"][sorted(src["runs"])[0]] for src in srcs]
            for i, spec in enumerate(runs):
                name = "run_%04d" % i
                _write_run(dst.create_group("runs/" + name), trs, spec)
            _set(dst.attrs, "latest_run", name)
    finally:
        for src in srcs:
            src.close()
    return path
