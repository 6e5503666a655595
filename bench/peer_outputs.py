# SPDX-License-Identifier: BSD-3-Clause
"""Readers shared by the bench/ analyses (sweep_vs_osu.py, coll_vs_peers.py, vs_peers.py):
the output of OSU's and IMB's programs, fabricbench's CSV, and size names."""
import csv
import re


def human(n):
    """1048576 -> 1M, 65536 -> 64K, 8 -> 8."""
    for unit, div in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= div and n % div == 0:
            return "%d%s" % (n // div, unit)
    return str(n)


def read_osu(path):
    """An OSU program's table: {size: [the numbers after the size]} (osu_latency: [us];
    osu_bw, osu_bibw: [MB/s]; osu_mbw_mr: [MB/s, messages/s]; collectives with -f:
    [avg, min, max, iterations])."""
    rows = {}
    with open(path) as f:
        for line in f:
            if re.match(r"^\s*\d", line):
                p = line.split()
                try:
                    rows[int(p[0])] = [float(x) for x in p[1:]]
                except ValueError:
                    continue
    return rows


def read_imb(path):
    """IMB-MPI1's collective table: {bytes: {"min", "max", "avg"}} (#bytes #repetitions
    t_min t_max t_avg, in us)."""
    rows = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) == 5 and all(re.match(r"^[\d.]+$", x) for x in p):
                rows[int(p[0])] = {"min": float(p[2]), "max": float(p[3]), "avg": float(p[4])}
    return rows


def read_fb(path):
    """fabricbench's --csv: {kernel: {bytes: row (column -> text)}}."""
    vals = {}
    with open(path) as f:
        for row in csv.DictReader(f):
            vals.setdefault(row["kernel"], {})[int(row["bytes"])] = row
    return vals
