# SPDX-License-Identifier: BSD-3-Clause
"""The tidy table: one row per run x kernel x message size, with the run's metadata on every row.

Everything after loading (summary, compare, check, plot, report, export) reads only this.

A row is a dict, not a class of its own: its columns are the file's (a kernel's own columns,
those of a newer tool) besides the schema's, and every command reads them by name (`r[c]`,
`r.get(c)`); Row says so for the type checker. The table itself is a dataclass.
"""
import math
import re
from dataclasses import dataclass, field
from typing import (Any, Dict, Hashable, Iterable, Iterator, List, Optional, Set, Tuple, TypeVar,
                    Union)

# One row: column name -> value (int, float, str); every row of a table has every column.
Row = Dict[str, Any]
# A series (one file and run): its run's metadata columns, rows and kernels (Table.series).
Series = Dict[str, Any]
# A kernel instance: (kernel, variant), variant "" for a kernel without one.
Instance = Tuple[str, str]
_T = TypeVar("_T", bound=Hashable)


@dataclass(eq=False)
class Table:
    """rows: list of dicts (every row has every column); columns: their order; units: column ->
    unit string ('' when none); notes: what loading had to say (interrupted runs, ...)."""

    rows: List[Row]
    columns: List[str]
    units: Dict[str, str]
    notes: List[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.notes = list(self.notes or [])

    def __len__(self) -> int:
        return len(self.rows)

    def __iter__(self) -> Iterator[Row]:
        return iter(self.rows)

    def labels(self) -> List[str]:
        """Series labels (one per file and run) in load order."""
        return _unique(r["label"] for r in self.rows)

    def kernels(self) -> List[str]:
        """Kernel names in the order they first appear."""
        return _unique(r["kernel"] for r in self.rows)

    def instances(self) -> List[Instance]:
        """Kernel instances, (kernel, variant), in the order they first appear: a kernel run
        once per value of a list option (tcp_stream --streams 1,4) is one instance per value,
        never merged with another; a kernel without one is (kernel, "")."""
        return _unique(instance(r) for r in self.rows)

    def where(self, **conds: Any) -> List[Row]:
        return [r for r in self.rows if all(r.get(k) == v for k, v in conds.items())]

    def series(self) -> List[Series]:
        """One dict per series: the run metadata columns of its first row, and its row count."""
        out: Dict[str, Series] = {}
        for r in self.rows:
            s = out.get(r["label"])
            if s is None:
                s = out[r["label"]] = {c: r.get(c, "") for c in RUN_COLUMNS}
                s["rows"] = 0
                s["kernels"] = []
            s["rows"] += 1
            name = kernel_name(r)
            if name not in s["kernels"]:
                s["kernels"].append(name)
        return list(out.values())

    def has_values(self, column: str) -> bool:
        return any(finite(r.get(column)) for r in self.rows)


def _unique(it: Iterable[_T]) -> List[_T]:
    seen: Set[_T] = set()
    out: List[_T] = []
    for x in it:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def instance(row: Row) -> Instance:
    """The key of a row's kernel instance: (kernel, variant), variant "" for a kernel without
    one (and in files from before variants)."""
    return row["kernel"], row.get("variant") or ""


def row_key(row: Row) -> Tuple[str, str, int]:
    """What identifies a row within a run: kernel, variant and message size. Rows of different
    instances of one kernel (tcp_stream --streams 1 and --streams 4) are never merged or
    compared with each other."""
    return instance(row) + (row["bytes"],)


_PORT = re.compile(r"(\d+\.\d+\.\d+\.\d+|\]):\d+\b")


def setup_text(detail: Any) -> str:
    """A kernel's setup in words (its `detail`) as compared between runs: the socket kernels'
    ports (chosen by the OS at every run: `127.0.0.1:40585`) as `:*`, so that they alone do not
    make two setups differ."""
    return _PORT.sub(r"\1:*", str(detail))


def kernel_name(row: Union[Row, str], variant: Optional[str] = None) -> str:
    """A kernel instance as people read it: 'tcp_stream --streams 4', or the kernel alone;
    row is a row (or anything with kernel and variant) or a kernel name with `variant`."""
    if isinstance(row, str):
        kernel, variant = row, variant or ""
    else:
        kernel, variant = instance(row)
    return "%s %s" % (kernel, variant) if variant else kernel


# Run metadata columns of the tidy table (the same on every row of a run), in order.
RUN_COLUMNS = (
    "label", "file", "file_name", "run", "run_status", "stop_reason", "start_time", "end_time",
    "tool_version", "git_commit", "command_line", "mpi_library", "ucx_version", "pml",
    "ucx_transports", "transport", "fabric", "fabric_requested", "fabric_device", "fabric_port",
    "fabric_netdev", "fabric_check", "fabric_check_reason", "line_rate_gbps", "line_rate_source",
    "nranks", "nhosts", "hosts", "ranks_per_node", "slurm_job_id", "timer", "timer_cost_ns",
    "env_options", "label_base", "label_given", "rows_invalid", "rows_disturbed", "rows_noisy",
    "disturbance", "budget_s", "budget_cap_s", "measure_s",
)
# Kernel columns (the same on every row of a kernel).
# variant and axis: an instance of a kernel run once per value of a list option (its value as
# given, `--streams 4`, and the column holding it); "" for other kernels.
KERNEL_COLUMNS = ("kernel_id", "kernel", "variant", "axis", "kind", "kernel_status", "dtype", "op",
                  "bus_factor", "window", "kernel_detail", "time_columns", "kernel_options")
# The result table's columns in the schema's order (docs/SCHEMA.md); others follow as found.
TABLE_COLUMNS = (
    "bytes", "iterations", "warmup", "min_us", "p50_us", "mean_us", "p90_us", "p99_us",
    "p999_us", "max_us", "stddev_us", "loop_us", "MBps", "Gbps", "msgps", "pair_MBps",
    "pair_msgps", "validation_errors", "percentiles_exact", "algbw_GBps", "busbw_GBps",
    "slowest_rank", "slowest_share", "comm_us", "overlap_pct", "line_rate_pct", "cpu_rank_pct",
    "cpu_node_user_pct", "cpu_node_sys_pct", "cpu_node_softirq_pct", "cpu_rank_min_pct",
    "cpu_rank_max_pct", "cpu_rank_max_rank",
    # schema version 2: a row's quality and the machine's disturbance during it; files before
    # it get a quality derived while loading (quality.py) and NaN for the rest
    "quality", "quality_reason", "cpu_steal_pct", "ctx_invol_per_s", "runnable_per_cpu",
    # the peers' definitions of a time (OSU's avg, IMB's t_min and t_max); NaN before them
    "osu_avg_us", "imb_tmin_us", "imb_tmax_us",
    # the MPI component under a row (the one-sided kernels' osc component); "" before it
    "component",
    # collectives' arrival skew (docs/METRICS.md, "Stragglers"); -1 and NaN before them
    "late_rank", "late_share", "late_p50_us", "late_p99_us", "late_explains", "straggler_rank",
)
# Integer table columns: missing ones are filled with these rather than NaN.
INT_DEFAULTS: Dict[str, float] = {"validation_errors": -1, "slowest_rank": -1,
                                   "percentiles_exact": -1, "cpu_rank_max_rank": -1,
                                   "late_rank": -1, "straggler_rank": -1}
# straggler_host: the host of straggler_rank (the run's hostnames), "" when none is named
DERIVED_COLUMNS = ("n_samples", "noise_method", "noise_mean_rel", "noise_p50_rel",
                   "noise_p90_rel", "noise_p99_rel", "noise_p999_rel", "quality_from",
                   "straggler_host")

META_UNITS = {"line_rate_gbps": "Gb/s", "timer_cost_ns": "ns", "nranks": "count",
              "nhosts": "count", "bus_factor": "factor", "window": "messages",
              "n_samples": "count", "noise_mean_rel": "fraction", "noise_p50_rel": "fraction",
              "noise_p90_rel": "fraction", "noise_p99_rel": "fraction",
              "noise_p999_rel": "fraction", "rows_invalid": "count", "rows_disturbed": "count",
              "rows_noisy": "count", "budget_s": "s", "budget_cap_s": "s", "measure_s": "s"}

# What is better for a column: -1 lower, +1 higher, 0 neither.
HIGHER_IS_BETTER = ("MBps", "Gbps", "msgps", "pair_MBps", "pair_msgps", "algbw_GBps",
                    "busbw_GBps", "line_rate_pct", "overlap_pct")


def direction(column: str) -> int:
    if column in HIGHER_IS_BETTER:
        return 1
    if column.endswith("_us") or column.startswith("cpu_") or column == "validation_errors":
        return -1
    if column.startswith("cif_"):  # the congestion impact factor: 1 is no harm
        return -1
    return 0


def size_label(n: Any) -> str:
    """8, 1K, 64K, 1M: as on fabricbench's command line (K, M, G = 1024^n)."""
    try:
        n = int(n)
    except (TypeError, ValueError):
        return str(n)
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return str(n)


def fmt_num(x: Any, digits: int = 4) -> str:
    """A number for a table: 4 significant digits, no exponent for everyday magnitudes."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "n/a"
    if isinstance(x, int) and not isinstance(x, bool):
        return str(x)
    ax = abs(x)
    if ax == 0:
        return "0"
    if ax >= 10 ** digits:
        return "%.0f" % x
    if ax < 1e-3:
        return "%.*g" % (digits - 1, x)
    places = max(0, digits - 1 - int(math.floor(math.log10(ax))))
    return "%.*f" % (places, x)
