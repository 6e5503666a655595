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
        fabric="shm", gradsync=GRADSYNC):
    """The knobs of one run of a known file (see the module's docstring); `fabric` names the
    fabric (its command line says --fabric FABRIC), `gradsync` its (bucket, inflight)."""
    return {"bw_scale": bw_scale, "time_scale": time_scale, "iterations": iterations,
            "rel_stddev": rel_stddev, "kernels": tuple(kernels), "line_rate_gbps": line_rate_gbps,
            "drift": drift, "blocks": blocks, "regimes": regimes, "fabric": fabric,
            "gradsync": tuple(gradsync)}


def gradsync_time_us(bucket, inflight):
    """The known time of one gradient sync."""
    return 6e5 * (1 + 1048576 / bucket) / inflight


def command_line(spec):
    b, k = spec["gradsync"]
    own = " --bucket %d --inflight %d" % (b, k) if "gradsync" in spec["kernels"] else ""
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
    r = {"bytes": nbytes, "iterations": spec["iterations"], "warmup": 100,
         "stddev_us": spec["rel_stddev"] * t, "validation_errors": -1, "percentiles_exact": 1,
         "algbw_GBps": math.nan, "busbw_GBps": math.nan, "slowest_rank": -1,
         "slowest_share": math.nan, "comm_us": math.nan, "overlap_pct": math.nan,
         "line_rate_pct": math.nan, "cpu_rank_pct": 50.0, "cpu_rank_min_pct": 50.0,
         "cpu_rank_max_pct": 50.0, "cpu_rank_max_rank": 0, "cpu_node_user_pct": 50.0,
         "cpu_node_sys_pct": 0.0, "cpu_node_softirq_pct": 0.0, "ci_pct": math.nan,
         "blocks": len(spec["blocks"] or ()), "blocks_ci_pct": math.nan,
         "target_met": 0 if spec["blocks"] else -1, "regimes": spec["regimes"]}
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
    for kid, tk in _template_kernels(trs, spec["kernels"]):
        kernel = tk.attrs["kernel"]
        kg = ks.create_group(kid)
        for a, v in tk.attrs.items():
            kg.attrs[a] = v
        _set(kg.attrs, "status", "complete")
        _set(kg.attrs, "rows", 1 if kernel == "gradsync" else len(SIZES))
        _set(kg.attrs, "window", WINDOW if kernel in ("bw", "msgrate") else 0)
        _set(kg.attrs, "validate", 0)
        _set(kg.attrs, "iteration_policy", "fixed: %d iterations per size" % spec["iterations"])
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
        cols = [c for c in str(tt.attrs["columns"]).split(",") if c in tt]
        table = kg.create_group("table")
        for c in cols:
            src = tt[c]
            data = np.array([r.get(c, _fill(src.dtype)) for r in rows], dtype=src.dtype)
            ds = table.create_dataset(c, data=data, maxshape=(None,),
                                      chunks=src.chunks or True)
            for a, v in src.attrs.items():
                ds.attrs[a] = v
        _set(table.attrs, "columns", ",".join(cols))
        if spec["blocks"]:
            bg = kg.create_group("blocks")
            for r in rows:
                ds = bg.create_dataset(str(r["bytes"]), data=np.array(
                    [f * r["p50_us"] for f in spec["blocks"]], dtype=np.float64))
                _set(ds.attrs, "units", "us")
                _set(ds.attrs, "regimes", spec["regimes"])
        if spec["drift"] is not None:
            sg = kg.create_group("samples")
            n = spec["iterations"]
            for r in rows:
                ds = sg.create_dataset(str(r["bytes"]), data=samples(r["p50_us"], n,
                                                                     spec["drift"]),
                                       chunks=(min(n, 65536),), compression="gzip",
                                       compression_opts=4, shuffle=True)
                _set(ds.attrs, "units", "us")
                _set(ds.attrs, "iterations", n)
                _set(ds.attrs, "complete", 1)


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
