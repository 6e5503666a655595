# SPDX-License-Identifier: BSD-3-Clause
"""Tolerances, sizes and the rules file of `check --rules` (format: docs/ANALYSIS.md).

    # KERNEL   SIZES    METRIC       TOLERANCE  [fail|warn]
    latency    *        p50_us       15%
    latency    <=1K     p99_us       50%        warn
    bw         >=64K    MBps         5%
    bibw       *        *            skip

    tcp_stream[4] *     Gbps         10%
    udp_rate[rate=1G] * loss_pct   skip

Each row of the baseline starts with one check: its kind's metric (check's default) at
--tolerance, failing. Rules are applied in file order, so a later line wins: a rule whose
kernel and sizes match a row sets that metric's tolerance and severity (adding the metric if
it was not checked), `skip` removes the metric (`*` skip: the whole row). KERNEL alone matches
every instance of a kernel; KERNEL[VALUE] or KERNEL[OPTION=VALUE] one instance, by the value
of its list option (the variant `--streams 4`; rates compare by value: 1G is 1000M).
"""
import fnmatch
import math
import re
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from ..reading import files
from ..model.errors import AnalysisError, UsageError

_SIZE = re.compile(r"([0-9]+)([KMGkmg]?)\Z")
_SCALE = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
# A decimal number as people write one: digits, a point, an exponent; no sign, no hex, no
# blanks, no underscores, no other digits than 0-9 (Python's float() takes all of these).
_DECIMAL = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
MAX_TOLERANCE = 10.0  # 1000%: beyond, a check could not fail

Sizes = Callable[[int], bool]  # a size predicate (parse_sizes)
# {metric: (tolerance, severity, source)}: what checks_for gives for one row
Plan = Dict[str, Tuple[Any, str, str]]


def decimal(text: str) -> Optional[float]:
    """A decimal number written plainly (_DECIMAL) as a finite float, else None (NaN, inf,
    1e400, 0x10, ' 5', '1_0' are None)."""
    if not _DECIMAL.match(text):
        return None
    v = float(text)
    return v if math.isfinite(v) else None


def parse_tolerance(text: Any, where: str = "--tolerance") -> float:
    """'10%' or '0.1' -> 0.1. A bare number of 1 or more is refused: 10 could mean either.
    At most 1000%; nan, inf, 1e400, hex and padded numbers are refused."""
    from ..model.hostile import name_text  # lazy: hostile loads numpy; cli parses options first

    t = str(text)
    shown = name_text(t)
    pct = t.endswith("%")
    v = decimal(t[:-1] if pct else t)
    if v is None:
        raise UsageError("%s %s is not a tolerance" % (where, shown),
                         "write a percentage (10%) or a fraction (0.1): digits and a point, "
                         "from 0% to 1000%")
    if pct:
        v /= 100.0
    elif v >= 1:
        raise UsageError("%s %s: write a percentage (%s%%) or a fraction below 1" %
                         (where, shown, shown))
    if v > MAX_TOLERANCE:
        raise UsageError("%s %s: a tolerance is at most 1000%%" % (where, shown),
                         "beyond it no change could fail")
    return v


def parse_size(text: str, where: str) -> int:
    m = _SIZE.match(text)
    if not m:
        raise UsageError("%s: '%s' is not a size" % (where, _shown(text)),
                         "sizes are bytes with an optional K, M or G (powers of 1024): 8, 1K, 4M")
    return int(m.group(1)) * _SCALE[m.group(2).upper()]


def parse_sizes(text: str, where: str) -> Sizes:
    """A size predicate: *, N, A-B (either end may be left out), >=N, <=N, >N, <N."""
    t = text
    if t in ("*", "all"):
        return lambda b: True
    for op, fn in ((">=", lambda a, b: b >= a), ("<=", lambda a, b: b <= a),
                   (">", lambda a, b: b > a), ("<", lambda a, b: b < a)):
        if t.startswith(op):
            n = parse_size(t[len(op):], where)

            def compared(b: int, n: int = n, fn: Callable[[int, int], bool] = fn) -> bool:
                return fn(n, b)
            return compared
    if "-" in t:
        lo_text, _, hi_text = t.partition("-")
        lo = parse_size(lo_text, where) if lo_text else 0
        hi = parse_size(hi_text, where) if hi_text else None
        if hi is not None and hi < lo:
            raise UsageError("%s: the range %s is empty" % (where, _shown(t)))
        return lambda b: b >= lo and (hi is None or b <= hi)
    n = parse_size(t, where)
    return lambda b: b == n


# KERNEL: a kernel name or a shell pattern over kernel names (letters a-z, digits, _, with *, ?
# and classes [a-z], [!0-9]); KERNEL[VALUE] or KERNEL[OPTION=VALUE] one instance of it.
_GLOB = r"(?:[a-z0-9_*?]|\[!?[a-z0-9_-]+\])+"
_PATTERN = re.compile(_GLOB + r"\Z")
_SELECT = re.compile(r"(" + _GLOB + r")\[(?:([A-Za-z][A-Za-z0-9_-]*)=)?([^\[\]=\s]+)\]\Z")
_VARIANT = re.compile(r"^--([A-Za-z][\w-]*) (\S+)$")
_RATE = re.compile(r"^([0-9]+(?:\.[0-9]*)?|\.[0-9]+)([kKMGT]?)$")
_RATE_SCALE = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _value(text: str) -> Union[float, str]:
    """A list option's value as a number where it is one (4, 1G = 1e9, 2.5G), else the text."""
    m = _RATE.match(text)
    return float(m.group(1)) * _RATE_SCALE[m.group(2)] if m else text


def parse_kernel(text: str, where: str) -> Tuple[str, Optional[str], Union[float, str, None]]:
    """KERNEL, KERNEL[VALUE] or KERNEL[OPTION=VALUE] -> (pattern, option or None, value or
    None). KERNEL is a kernel name or a shell pattern over kernel names (`tcp_[a-z]*`);
    anything else (`tcp_stream[4`, `[`, `Latency`, `tcp_stream[streams=]`) is a usage error
    naming the line."""
    if text.endswith("]"):
        m = _SELECT.match(text)
        if m:
            return m.group(1), m.group(2), _value(m.group(3))
    elif _PATTERN.match(text):
        return text, None, None
    raise UsageError("%s: '%s' is not a kernel, a kernel pattern or a kernel instance" %
                     (where, _shown(text)),
                     "write KERNEL (a-z, 0-9, _; a shell pattern with * ? [a-z]), "
                     "KERNEL[VALUE] or KERNEL[OPTION=VALUE]: tcp_stream, tcp_*, tcp_stream[4], "
                     "udp_rate[rate=1G]")


def _shown(text: Any) -> str:
    from ..model.hostile import name_text  # lazy: hostile loads numpy; cli parses options first
    return name_text(text)


class Rule:
    def __init__(self, kernel: str, sizes: Sizes, size_text: str, metric: str,
                 tolerance: Optional[float], severity: str, where: str) -> None:
        self.kernel_text = kernel
        self.kernel, self.option, self.value = parse_kernel(kernel, where)
        self.sizes = sizes
        self.size_text = size_text
        self.metric = metric
        self.tolerance = tolerance  # None: skip
        self.severity = severity
        self.where = where

    def matches(self, kernel: str, nbytes: int, variant: Optional[str] = "") -> bool:
        if not (fnmatch.fnmatchcase(kernel, self.kernel) and self.sizes(nbytes)):
            return False
        if self.value is None:
            return True
        m = _VARIANT.match(variant or "")
        if not m or self.option not in (None, m.group(1)):
            return False
        v = _value(m.group(2))
        if isinstance(v, float) and isinstance(self.value, float):
            return math.isclose(v, self.value, rel_tol=1e-9)
        return v == self.value


MAX_RULES_BYTES = 1 << 20  # a rules file (fabricbench-analyze's: a few dozen lines)


def _rules_lines(path: str) -> List[Tuple[int, str]]:
    """(number, text) of the lines of the rules file: a regular file (files.open_input: a
    FIFO or a device is refused at once) of at most MAX_RULES_BYTES, UTF-8 line by line (a
    byte that is not is a usage error naming the line)."""
    shown = _shown(path)
    try:
        f = files.open_input(path, "a rules file")
    except UsageError:
        raise
    except AnalysisError as e:  # no such file, a directory, permissions: a usage error here
        raise UsageError("cannot read the rules file %s: %s" % (shown, e.message.replace(
            shown + ": ", "").replace(shown + " ", "")), "give the rules file (docs/ANALYSIS.md "
            "describes it)")
    try:
        data = f.read(MAX_RULES_BYTES + 1)
    except OSError as e:
        raise UsageError("cannot read the rules file %s: %s" % (shown, e.strerror or e))
    finally:
        f.close()
    if len(data) > MAX_RULES_BYTES:
        raise UsageError("the rules file %s is larger than %d KiB; a rules file is a few "
                         "lines of text" % (shown, MAX_RULES_BYTES >> 10),
                         "give the rules file (docs/ANALYSIS.md describes it)")
    out = []
    for n, raw in enumerate(data.split(b"\n"), 1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as e:
            raise UsageError("%s line %d: byte 0x%02X at column %d is not UTF-8; a rules file "
                             "is UTF-8 text" % (shown, n, raw[e.start], e.start + 1),
                             "save the rules file as UTF-8 (docs/ANALYSIS.md describes it)")
        out.append((n, line))
    return out


def parse_rules(path: str) -> List[Rule]:
    rules: List[Rule] = []
    for n, line in _rules_lines(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = "%s line %d" % (_shown(path), n)
        f = line.split()
        if len(f) not in (4, 5):
            raise UsageError("%s: expected KERNEL SIZES METRIC TOLERANCE [fail|warn], got %d "
                             "fields: %s" % (where, len(f), _shown(line)),
                             "docs/ANALYSIS.md describes the rules file")
        kernel, sizes, metric, tol = f[:4]
        severity = f[4].lower() if len(f) == 5 else "fail"
        if severity not in ("fail", "warn"):
            raise UsageError("%s: severity '%s' is neither fail nor warn" % (where,
                                                                            _shown(f[4])))
        if not (metric in ("*", "default") or _METRIC.match(metric)):
            raise UsageError("%s: metric '%s' is not a column name" % (where, _shown(metric)),
                             "name a column (p50_us, MBps, busbw_GBps), 'default' or * (with "
                             "skip)")
        if tol.lower() in ("skip", "ignore"):
            tolerance = None
        else:
            tolerance = parse_tolerance(tol, where + ": tolerance")
            if metric == "*":
                raise UsageError("%s: metric * only goes with skip" % where,
                                 "name a column (p50_us, MBps, busbw_GBps) or 'default'")
        rules.append(Rule(kernel, parse_sizes(sizes, where), sizes, metric, tolerance,
                          severity, where))
    return rules


_METRIC = re.compile(r"[A-Za-z0-9_]{1,64}\Z")


def checks_for(kernel: str, nbytes: int, default_metric: str, tolerance: Any,
               rules: Sequence[Rule], variant: Optional[str] = "") -> Plan:
    """{metric: (tolerance, severity, source)} for one row of the baseline (of the kernel
    instance `variant`)."""
    out: Plan = {default_metric: (tolerance, "fail", "--tolerance")}
    for r in rules:
        if not r.matches(kernel, nbytes, variant):
            continue
        metric = default_metric if r.metric == "default" else r.metric
        if r.tolerance is None:
            if r.metric == "*":
                out.clear()
            else:
                out.pop(metric, None)
        else:
            out[metric] = (r.tolerance, r.severity, r.where)
    return out
