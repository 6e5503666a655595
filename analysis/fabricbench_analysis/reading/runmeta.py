# SPDX-License-Identifier: BSD-3-Clause
"""A run's metadata as the result schema has it, shared by the HDF5 reader (loading.py) and
the JSON reader (jsonload.py): the schema's name and version, the run and kernel attributes
the analysis reads, the tidy columns the loader makes itself, and what a run's metadata gets
from its host list, file and environment."""
import math
import os
import re
import shlex
from typing import Any, Callable, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from ..model import hostile, schema
from ..model.table import DERIVED_COLUMNS, KERNEL_COLUMNS, RUN_COLUMNS, Row

# A check of a value read: None when it is possible, else what is wrong (hostile.py).
Check = Callable[[Any], Optional[str]]
# How one attribute is read: (attribute, type, default[, check]) (hostile.attribute).
AttrSpec = Tuple[Any, ...]

# The schema's name and version: schema.json, which the C side reads too (CMakeLists.txt).
SCHEMA = schema.NAME
SCHEMA_VERSION = schema.VERSION

# What the analysis reads of a run and of a kernel: tidy column -> attribute (the schema's
# run_attributes and kernel_attributes give its type), in the tidy table's order; then the
# defaults (of a file from before the attribute) where they are not "", -1 or NaN, and the
# checks of the values (hostile.py).
_RUN_READ: Tuple[Tuple[str, str], ...] = (
    ("run_status", "status"), ("stop_reason", "stop_reason"), ("start_time", "start_time"),
    ("end_time", "end_time"), ("tool_version", "tool_version"), ("git_commit", "git_commit"),
    ("command_line", "command_line"), ("mpi_library", "mpi_library"),
    ("ucx_version", "ucx_version"), ("pml", "pml"), ("ucx_transports", "ucx_transports"),
    ("fabric", "fabric"), ("fabric_requested", "fabric_requested"),
    ("fabric_device", "fabric_device"), ("fabric_port", "fabric_port"),
    ("fabric_netdev", "fabric_netdev"), ("fabric_check", "fabric_check"),
    ("fabric_check_reason", "fabric_check_reason"), ("line_rate_gbps", "line_rate_gbps"),
    ("line_rate_source", "line_rate_source"), ("nranks", "nranks"), ("nhosts", "nhosts"),
    ("ranks_per_node", "ranks_per_node"), ("slurm_job_id", "slurm_job_id"), ("timer", "timer"),
    ("timer_cost_ns", "timer_cost_ns"),
    # How disturbed the run was (schema version 2; -1, "" and NaN in files before it).
    ("rows_invalid", "rows_invalid"), ("rows_disturbed", "rows_disturbed"),
    ("rows_noisy", "rows_noisy"), ("disturbance", "disturbance"), ("budget_s", "budget_s"),
    ("budget_cap_s", "budget_cap_s"), ("measure_s", "measure_s"),
)
_KERNEL_READ: Tuple[Tuple[str, str], ...] = (
    ("kernel", "kernel"), ("variant", "variant"), ("axis", "axis"), ("kind", "kind"),
    ("kernel_status", "status"), ("dtype", "dtype"), ("op", "op"), ("bus_factor", "bus_factor"),
    ("window", "window"), ("kernel_detail", "detail"), ("time_columns", "time_columns"),
    ("kernel_options", "options"),
)
# A kernel's status is no field of output/kernelmeta.c's list: each output writes it as the
# kernel starts (running) and ends (output/hdf5.c, output/jsonrec.c).
_KERNEL_EXTRA: Dict[str, schema.Entry] = {"status": {"name": "status", "type": "str"}}
_DEFAULTS: Dict[str, Any] = {"fabric_port": 0, "window": 0}
_TIME = hostile.float_range(0.0, hostile.MAX_VALUE, what="a time")
_CHECKS: Dict[str, Check] = {
    "fabric_port": hostile.int_at_least(0),
    "line_rate_gbps": hostile.float_range(0.0, hostile.MAX_VALUE, what="a line rate"),
    "nranks": hostile.int_at_least(1), "nhosts": hostile.int_at_least(1),
    "timer_cost_ns": _TIME,
    "rows_invalid": hostile.int_at_least(0), "rows_disturbed": hostile.int_at_least(0),
    "rows_noisy": hostile.int_at_least(0),
    "budget_s": _TIME, "budget_cap_s": _TIME, "measure_s": _TIME,
    "kernel": hostile.matches(hostile.KERNEL_NAME,
                              "a kernel name (a-z, 0-9 and _, starting with a letter)"),
    "variant": hostile.at_most(hostile.MAX_VARIANT, "a variant"),
    "axis": hostile.matches(hostile.AXIS_NAME, "a column name (letters, digits and _)"),
    "kind": hostile.one_of(hostile.KINDS),
    "bus_factor": hostile.float_range(0.0, hostile.MAX_VALUE, what="a bus factor"),
    "window": hostile.int_at_least(0),
}
_EMPTY: Dict[str, Any] = {"str": "", "int": -1, "float": math.nan}


def _spec(read: Sequence[Tuple[str, str]],
          declared: Mapping[str, schema.Entry]) -> Dict[str, AttrSpec]:
    """tidy column -> (attribute, type, default[, value check]), for hostile.attribute."""
    out: Dict[str, AttrSpec] = {}
    for col, attr in read:
        kind = schema.kind(declared[attr])
        spec: AttrSpec = (attr, kind, _DEFAULTS.get(col, _EMPTY[kind]))
        out[col] = spec + ((_CHECKS[col],) if col in _CHECKS else ())
    return out


RUN_ATTRS = _spec(_RUN_READ, schema.RUN_ATTRIBUTES)
KERNEL_ATTRS = _spec(_KERNEL_READ, dict(schema.KERNEL_ATTRIBUTES, **_KERNEL_EXTRA))


def transport_short(ucx_transports: Optional[str], pml: Optional[str]) -> str:
    """'sysv/memory[am am_bw#0] cma/memory[rma_bw#0]' -> 'sysv+cma'; 'tcp/lo[...]' -> 'tcp/lo'.

    What fabricbench writes when it has no probe result is not a transport: 'not used (pml
    ob1; ...)' gives the pml; 'not probed (the run stopped early)', 'not probed (needs two
    ranks)' and 'probed after the measurements (last line)' (a run killed before its probe)
    give '' (unknown)."""
    s = (ucx_transports or "").strip()
    if not s or s.startswith("not ") or s.startswith("probed"):
        return pml if pml and pml != "ucx" else ""
    parts: List[str] = []
    for tok in re.sub(r"\[[^\]]*\]", " ", s).split():
        tl, _, dev = tok.partition("/")
        if tl == "self":
            continue
        p = tl if dev in ("", "memory") else tl + "/" + dev
        if p not in parts:
            parts.append(p)
    return "+".join(parts)


def finish_run_meta(meta: Row, hosts: Sequence[str], path: str, name: str) -> None:
    """What a run's metadata (RUN_ATTRS, read from an HDF5 file or JSON) gets from its host
    list, file and run name, and the defaults of files from before a field."""
    uniq: List[str] = []
    seen = set()
    for h in hosts:
        if h not in seen:
            seen.add(h)
            uniq.append(h)
    meta["hosts"] = ",".join(uniq)
    meta["rank_hosts"] = list(hosts)  # per rank: a straggler's host (loading.py)
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


def env_options(pairs: Iterable[Tuple[str, str]]) -> str:
    """The FABRICBENCH_* variables a run recorded, from (name, value) pairs, as `NAME=value`
    words in name order, values shell-quoted: options given in the environment, which the
    command line does not show (grouping.py). Other variables (UCX_*, SLURM_*) are left out."""
    return " ".join("%s=%s" % (n, shlex.quote(v)) for n, v in sorted(pairs)
                    if n.startswith("FABRICBENCH_") and hostile.ENV_NAME.match(n))


# Columns of the tidy table that loading makes itself: a table column may not take their names.
RESERVED = frozenset(RUN_COLUMNS) | frozenset(KERNEL_COLUMNS) | frozenset(DERIVED_COLUMNS)
