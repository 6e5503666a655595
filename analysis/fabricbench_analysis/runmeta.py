# SPDX-License-Identifier: BSD-3-Clause
"""A run's metadata as the result schema has it, shared by the HDF5 reader (loading.py) and
the JSON reader (jsonload.py): the schema's name and version, the run and kernel attributes
the analysis reads, the tidy columns the loader makes itself, and what a run's metadata gets
from its host list, file and environment."""
import json
import math
import os
import re
import shlex

from . import hostile
from .table import DERIVED_COLUMNS, KERNEL_COLUMNS, RUN_COLUMNS

# The schema's name and version: schema.json, which the C side reads too (CMakeLists.txt).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "schema.json"),
          encoding="utf-8") as _f:
    _SCHEMA = json.load(_f)
SCHEMA = _SCHEMA["name"]
SCHEMA_VERSION = _SCHEMA["version"]

# tidy column -> (run attribute, type, default, value check), as docs/SCHEMA.md has them
RUN_ATTRS = {
    "run_status": ("status", "str", ""), "stop_reason": ("stop_reason", "str", ""),
    "start_time": ("start_time", "str", ""), "end_time": ("end_time", "str", ""),
    "tool_version": ("tool_version", "str", ""), "git_commit": ("git_commit", "str", ""),
    "command_line": ("command_line", "str", ""), "mpi_library": ("mpi_library", "str", ""),
    "ucx_version": ("ucx_version", "str", ""), "pml": ("pml", "str", ""),
    "ucx_transports": ("ucx_transports", "str", ""), "fabric": ("fabric", "str", ""),
    "fabric_requested": ("fabric_requested", "str", ""),
    "fabric_device": ("fabric_device", "str", ""),
    "fabric_port": ("fabric_port", "int", 0, hostile.int_at_least(0)),
    "fabric_netdev": ("fabric_netdev", "str", ""),
    "fabric_check": ("fabric_check", "str", ""),
    "fabric_check_reason": ("fabric_check_reason", "str", ""),
    "line_rate_gbps": ("line_rate_gbps", "float", math.nan,
                       hostile.float_range(0.0, hostile.MAX_VALUE, what="a line rate")),
    "line_rate_source": ("line_rate_source", "str", ""),
    "nranks": ("nranks", "int", -1, hostile.int_at_least(1)),
    "nhosts": ("nhosts", "int", -1, hostile.int_at_least(1)),
    "ranks_per_node": ("ranks_per_node", "str", ""), "slurm_job_id": ("slurm_job_id", "str", ""),
    "timer": ("timer", "str", ""),
    "timer_cost_ns": ("timer_cost_ns", "float", math.nan,
                      hostile.float_range(0.0, hostile.MAX_VALUE, what="a time")),
    # How disturbed the run was (schema version 2; -1, "" and NaN in files before it).
    "rows_invalid": ("rows_invalid", "int", -1, hostile.int_at_least(0)),
    "rows_disturbed": ("rows_disturbed", "int", -1, hostile.int_at_least(0)),
    "rows_noisy": ("rows_noisy", "int", -1, hostile.int_at_least(0)),
    "disturbance": ("disturbance", "str", ""),
    "budget_s": ("budget_s", "float", math.nan,
                 hostile.float_range(0.0, hostile.MAX_VALUE, what="a time")),
    "budget_cap_s": ("budget_cap_s", "float", math.nan,
                     hostile.float_range(0.0, hostile.MAX_VALUE, what="a time")),
    "measure_s": ("measure_s", "float", math.nan,
                  hostile.float_range(0.0, hostile.MAX_VALUE, what="a time")),
}
KERNEL_ATTRS = {
    "kernel": ("kernel", "str", "", hostile.matches(
        hostile.KERNEL_NAME, "a kernel name (a-z, 0-9 and _, starting with a letter)")),
    "variant": ("variant", "str", "", hostile.at_most(hostile.MAX_VARIANT, "a variant")),
    "axis": ("axis", "str", "", hostile.matches(
        hostile.AXIS_NAME, "a column name (letters, digits and _)")),
    "kind": ("kind", "str", "", hostile.one_of(hostile.KINDS)),
    "kernel_status": ("status", "str", ""),
    "dtype": ("dtype", "str", ""), "op": ("op", "str", ""),
    "bus_factor": ("bus_factor", "float", math.nan,
                   hostile.float_range(0.0, hostile.MAX_VALUE, what="a bus factor")),
    "window": ("window", "int", 0, hostile.int_at_least(0)),
    "kernel_detail": ("detail", "str", ""), "time_columns": ("time_columns", "str", ""),
    "kernel_options": ("options", "str", ""),
}


def transport_short(ucx_transports, pml):
    """'sysv/memory[am am_bw#0] cma/memory[rma_bw#0]' -> 'sysv+cma'; 'tcp/lo[...]' -> 'tcp/lo'.

    What fabricbench writes when it has no probe result is not a transport: 'not used (pml
    ob1; ...)' gives the pml; 'not probed (the run stopped early)', 'not probed (needs two
    ranks)' and 'probed after the measurements (last line)' (a run killed before its probe)
    give '' (unknown)."""
    s = (ucx_transports or "").strip()
    if not s or s.startswith("not ") or s.startswith("probed"):
        return pml if pml and pml != "ucx" else ""
    parts = []
    for tok in re.sub(r"\[[^\]]*\]", " ", s).split():
        tl, _, dev = tok.partition("/")
        if tl == "self":
            continue
        p = tl if dev in ("", "memory") else tl + "/" + dev
        if p not in parts:
            parts.append(p)
    return "+".join(parts)



def finish_run_meta(meta, hosts, path, name):
    """What a run's metadata (RUN_ATTRS, read from an HDF5 file or JSON) gets from its host
    list, file and run name, and the defaults of files from before a field."""
    uniq = []
    seen = set()
    for h in hosts:
        if h not in seen:
            seen.add(h)
            uniq.append(h)
    meta["hosts"] = ",".join(uniq)
    if meta["nhosts"] == -1 and uniq:
        meta["nhosts"] = len(uniq)
    if meta["nranks"] == -1 and hosts:
        meta["nranks"] = len(hosts)
    if not meta["fabric"]:
        meta["fabric"] = "any"  # files from before --fabric: UCX chose
    meta["transport"] = transport_short(meta["ucx_transports"], meta["pml"])
    meta["file"] = path
    meta["file_name"] = os.path.basename(path)
    meta["run"] = name


MAX_ENV = 10000  # attributes of a run's env group (the recorded environment variables)


def env_options(pairs):
    """The FABRICBENCH_* variables a run recorded, from (name, value) pairs, as `NAME=value`
    words in name order, values shell-quoted: options given in the environment, which the
    command line does not show (grouping.py). Other variables (UCX_*, SLURM_*) are left out."""
    return " ".join("%s=%s" % (n, shlex.quote(v)) for n, v in sorted(pairs)
                    if n.startswith("FABRICBENCH_") and hostile.ENV_NAME.match(n))


# Columns of the tidy table that loading makes itself: a table column may not take their names.
RESERVED = frozenset(RUN_COLUMNS) | frozenset(KERNEL_COLUMNS) | frozenset(DERIVED_COLUMNS)
