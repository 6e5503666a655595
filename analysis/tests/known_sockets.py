# SPDX-License-Identifier: BSD-3-Clause
"""Result files of KNOWN values with socket kernels: tcp_stream instances (--streams 1,4) and
the UDP kernels udp_rate (an instance per offered rate, --rate 0.5G,1G,2G,4G) and udp_pps.

A known file of known_values.py (the run, and kernels such as bw) gets kernel groups added
the way fabricbench writes them (docs/SCHEMA.md): one group per instance, numbered after the
file's kernels, with the attributes `kernel`, `variant` (`--streams 4`, `--rate 2.5G`) and
`axis` (the column holding the instance's value: `streams`, `offered_Gbps`); udp_pps has
none. Their tables have the bw table's shape (its columns, dtypes, units and descriptions:
the template is a real file), and the UDP kernels' own columns are appended to EVERY table of
the run, NaN in the other kernels' rows, as fabricbench appends a kernel's columns. The UDP
kernels are not in the tree yet; their columns are those the issue gives (udp_sent, udp_drops,
udp_received, udp_ooo, udp_dup, jitter_us, loss_pct, rx_Gbps, rx_pps, offered_Gbps).

The VALUES:

  tcp_stream            Gb/s per (streams, bytes): TCP_GBPS (64K, 1M); the other columns those
                        of bw's known row (known_values.row), the rates replaced: MBps = 125 x
                        Gb/s, line_rate_pct = Gb/s / the run's line rate; tcp_retrans 0,
                        buffers 4 MiB
  udp_rate              offered 0.5, 1, 2, 4 Gb/s at 1472, 8K and 32K bytes; loss_pct per size
                        and rate: UDP_LOSS (1472: 0, 0.2, 3.5, 52 %: the knee is 1 Gb/s; 8K:
                        at most 0.3%: no knee up to 4 Gb/s; 32K: 3.5% already at 0.5 Gb/s);
                        Gbps = the offered rate, rx_Gbps = offered x (1 - loss)
  udp_pps               64 and 1472 bytes at 0.3 and 1.2 Gb/s, no loss, no axis
"""
import math

import h5py
import known_values
import numpy as np

TCP_SIZES = (65536, 1048576)
TCP_GBPS = {(1, 65536): 6.0, (1, 1048576): 9.2, (4, 65536): 8.0, (4, 1048576): 9.41}
UDP_RATES = (0.5, 1.0, 2.0, 4.0)
UDP_SIZES = (1472, 8192, 32768)
UDP_LOSS = {1472: (0.0, 0.2, 3.5, 52.0), 8192: (0.0, 0.0, 0.1, 0.3),
            32768: (3.5, 10.0, 30.0, 60.0)}
UDP_PPS_GBPS = {64: 0.3, 1472: 1.2}
# The UDP kernels' own columns: (name, units, description).
UDP_COLUMNS = (
    ("udp_sent", "count", "udp kernels: datagrams sent"),
    ("udp_drops", "count", "udp kernels: datagrams the receiver's socket dropped"),
    ("udp_received", "count", "udp kernels: datagrams received"),
    ("udp_ooo", "count", "udp kernels: datagrams received out of order"),
    ("udp_dup", "count", "udp kernels: datagrams received twice"),
    ("jitter_us", "us", "udp kernels: inter-arrival jitter (RFC 3550)"),
    ("loss_pct", "%", "udp kernels: datagrams lost, % of those sent"),
    ("rx_Gbps", "Gb/s", "udp kernels: payload received, 10^9 bits per second"),
    ("rx_pps", "datagrams/s", "udp kernels: datagrams received per second"),
    ("offered_Gbps", "Gb/s", "udp_rate: the rate offered (--rate); NaN for other kernels"),
)


def spec(tcp_streams=(1, 4), tcp_scale=None, udp=False, udp_pps=False, port=40000):
    """The socket kernels of one run: tcp_stream instances (their --streams values, in order;
    () none), tcp_scale {streams: factor} on their Gb/s, the udp_rate sweep and udp_pps;
    port: the port in their setup text (`detail`), which the OS chooses at every run."""
    return {"tcp_streams": tuple(tcp_streams), "tcp_scale": dict(tcp_scale or {}), "udp": udp,
            "udp_pps": udp_pps, "port": port}


def _set(attrs, name, value):
    known_values._set(attrs, name, value)


def _copy_table(src, dst, rows, extra):
    """A table shaped like src (columns, dtypes, attributes) holding rows, with the columns of
    `extra` [(name, units, description)] appended."""
    cols = [c for c in str(src.attrs["columns"]).split(",") if c in src]
    for c in cols:
        data = np.array([r.get(c, known_values._fill(src[c].dtype)) for r in rows],
                        dtype=src[c].dtype)
        ds = dst.create_dataset(c, data=data, maxshape=(None,), chunks=True)
        for a, v in src[c].attrs.items():
            ds.attrs[a] = v
    for name, units, desc in extra:
        ds = dst.create_dataset(name, data=np.array([r.get(name, math.nan) for r in rows],
                                                    dtype=np.float64),
                                maxshape=(None,), chunks=True)
        _set(ds.attrs, "units", units)
        _set(ds.attrs, "description", desc)
    _set(dst.attrs, "columns", ",".join(cols + [e[0] for e in extra]))


def _rates(r, gbps, line_rate):
    """A row's rate columns for a throughput of gbps Gb/s; its quality as fabricbench judges
    a socket kernel's row: not by the CPU share (its ranks sleep in the OS by design)."""
    r.update({"Gbps": gbps, "MBps": gbps * 125.0, "pair_MBps": gbps * 125.0,
              "msgps": gbps * 125.0e6 / r["bytes"], "pair_msgps": gbps * 125.0e6 / r["bytes"],
              "line_rate_pct": 100 * gbps / line_rate if math.isfinite(line_rate)
              else math.nan})
    r["quality"], r["quality_reason"] = known_values.row_quality(
        dict(r, cpu_rank_min_pct=100.0), r["blocks"])
    return r


def _tcp_rows(run, s, scale):
    rows = []
    for b in TCP_SIZES:
        r = _rates(known_values.row("bw", b, run), TCP_GBPS[(s, b)] * scale,
                   run["line_rate_gbps"])
        r.update({"tcp_retrans": 0.0, "sndbuf_bytes": 4194304.0, "rcvbuf_bytes": 4194304.0,
                  "streams": float(s)})
        rows.append(r)
    return rows


def _udp_row(run, b, gbps, loss, offered):
    r = _rates(known_values.row("bw", 1024, run), gbps, run["line_rate_gbps"])
    r["bytes"] = b
    sent = 1e6
    received = sent * (1 - loss / 100)
    r.update({"udp_sent": sent, "udp_drops": sent - received, "udp_received": received,
              "udp_ooo": 0.0, "udp_dup": 0.0, "jitter_us": 5.0, "loss_pct": loss,
              "rx_Gbps": gbps * (1 - loss / 100), "rx_pps": gbps * 1.25e8 / b *
              (1 - loss / 100), "offered_Gbps": offered})
    return r


def _instances(run, sock, port):
    """[(attributes, rows)] of every socket kernel instance of a run."""
    out = []
    for s in sock["tcp_streams"]:
        out.append(({"kernel": "tcp_stream", "variant": "--streams %d" % s, "axis": "streams",
                     "options": "bind= streams=%d sockbuf=0 omit=0" % s, "ranks": "all (2)",
                     "summary": "TCP throughput over sockets (known values)",
                     "detail": "1 pair(s) x %d TCP connection(s), 10.0.0.1 -> 10.0.0.2:%d "
                               "(known values)" % (s, port)},
                    _tcp_rows(run, s, sock["tcp_scale"].get(s, 1.0))))
    if sock["udp"]:
        for i, rate in enumerate(UDP_RATES):
            rows = [_udp_row(run, b, rate, UDP_LOSS[b][i], rate) for b in UDP_SIZES]
            out.append(({"kernel": "udp_rate", "variant": "--rate %gG" % rate,
                         "axis": "offered_Gbps", "options": "rate=%g" % (rate * 1e9),
                         "ranks": "all (2)", "summary": "UDP at an offered rate (known)",
                         "detail": "10.0.0.1 -> 10.0.0.2:%d (known values)" % port}, rows))
    if sock["udp_pps"]:
        rows = [_udp_row(run, b, g, 0.0, math.nan) for b, g in UDP_PPS_GBPS.items()]
        out.append(({"kernel": "udp_pps", "options": "", "ranks": "all (2)",
                     "summary": "UDP datagrams per second (known values)", "detail": ""},
                    rows))
    return out


def write(path, template, runs, sockets):
    """A known file (known_values.write_known: runs) at path with the socket kernels of
    `sockets` (one spec() per run) added to each run. Returns path."""
    known_values.write_known(path, template, runs)
    with h5py.File(path, "r+") as f:
        for i, (run, sock) in enumerate(zip(runs, sockets)):
            _add(f["runs/run_%04d" % i], run, sock, sock["port"] + i)
    return path


def _add(g, run, sock, port):
    ks = g["kernels"]
    bw = next(ks[k] for k in ks if ks[k].attrs["kernel"] == "bw")
    extra = UDP_COLUMNS if sock["udp"] or sock["udp_pps"] else ()
    n = max(int(kid.split("_", 1)[0]) for kid in ks) + 1  # numbered on after the run's
    if extra:  # the UDP kernels' columns in every table, NaN in the other kernels' rows
        for kid in list(ks):
            t = ks[kid]["table"]
            cols = str(t.attrs["columns"]).split(",")
            nrows = len(t["bytes"])
            for name, units, desc in extra:
                if name in t:  # a template written by a tool that has the UDP kernels
                    continue
                ds = t.create_dataset(name, data=np.full(nrows, math.nan), maxshape=(None,),
                                      chunks=True)
                _set(ds.attrs, "units", units)
                _set(ds.attrs, "description", desc)
            _set(t.attrs, "columns", ",".join(cols + [e[0] for e in extra if e[0] not in cols]))
    for j, (attrs, rows) in enumerate(_instances(run, sock, port)):
        kg = ks.create_group("%02d_%s" % (n + j, attrs["kernel"]))
        for a, v in bw.attrs.items():
            kg.attrs[a] = v
        for a, v in attrs.items():
            _set(kg.attrs, a, v)
        _set(kg.attrs, "rows", len(rows))
        _copy_table(bw["table"], kg.create_group("table"), rows,
                    [e for e in extra if e[0] not in bw["table"]])
