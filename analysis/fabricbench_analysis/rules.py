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

from .errors import UsageError

_SIZE = re.compile(r"^(\d+)([KMG]?)$", re.I)
_SCALE = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_tolerance(text, where="--tolerance"):
    """'10%' or '0.1' -> 0.1. A bare number of 1 or more is refused: 10 could mean either."""
    t = str(text).strip()
    try:
        if t.endswith("%"):
            v = float(t[:-1]) / 100.0
        else:
            v = float(t)
            if v >= 1:
                raise UsageError("%s %s: write a percentage (%s%%) or a fraction below 1" %
                                 (where, t, t))
    except ValueError:
        raise UsageError("%s %s is not a tolerance" % (where, t),
                         "write a percentage (10%) or a fraction (0.1)")
    if not v >= 0:
        raise UsageError("%s %s: a tolerance cannot be negative" % (where, t))
    return v


def parse_size(text, where):
    m = _SIZE.match(text.strip())
    if not m:
        raise UsageError("%s: '%s' is not a size" % (where, text),
                         "sizes are bytes with an optional K, M or G (powers of 1024): 8, 1K, 4M")
    return int(m.group(1)) * _SCALE[m.group(2).upper()]


def parse_sizes(text, where):
    """A size predicate: *, N, A-B (either end may be left out), >=N, <=N, >N, <N."""
    t = text.strip()
    if t in ("*", "all"):
        return lambda b: True
    for op, fn in ((">=", lambda a, b: b >= a), ("<=", lambda a, b: b <= a),
                   (">", lambda a, b: b > a), ("<", lambda a, b: b < a)):
        if t.startswith(op):
            n = parse_size(t[len(op):], where)
            return lambda b, n=n, fn=fn: fn(n, b)
    if "-" in t:
        lo, _, hi = t.partition("-")
        lo = parse_size(lo, where) if lo else 0
        hi = parse_size(hi, where) if hi else None
        if hi is not None and hi < lo:
            raise UsageError("%s: the range %s is empty" % (where, t))
        return lambda b: b >= lo and (hi is None or b <= hi)
    n = parse_size(t, where)
    return lambda b: b == n


_SELECT = re.compile(r"^([^\[\]]+)\[(?:([A-Za-z][\w-]*)=)?([^\[\]=]+)\]$")
_VARIANT = re.compile(r"^--([A-Za-z][\w-]*) (\S+)$")
_RATE = re.compile(r"^(\d+(?:\.\d*)?|\.\d+)([kKMGT]?)$")
_RATE_SCALE = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def _value(text):
    """A list option's value as a number where it is one (4, 1G = 1e9, 2.5G), else the text."""
    m = _RATE.match(text)
    return float(m.group(1)) * _RATE_SCALE[m.group(2)] if m else text


def parse_kernel(text, where):
    """KERNEL, KERNEL[VALUE] or KERNEL[OPTION=VALUE] -> (pattern, option or None, value or
    None). A KERNEL that does not end in ']' is a shell pattern as it is (`tcp_[a-z]*`)."""
    if not text.endswith("]"):
        return text, None, None
    m = _SELECT.match(text)
    if not m:
        raise UsageError("%s: '%s' is not a kernel or a kernel instance" % (where, text),
                         "write KERNEL, KERNEL[VALUE] or KERNEL[OPTION=VALUE]: tcp_stream, "
                         "tcp_stream[4], udp_rate[rate=1G]")
    return m.group(1), m.group(2), _value(m.group(3)) if m.group(3) is not None else None


class Rule:
    def __init__(self, kernel, sizes, size_text, metric, tolerance, severity, where):
        self.kernel_text = kernel
        self.kernel, self.option, self.value = parse_kernel(kernel, where)
        self.sizes = sizes
        self.size_text = size_text
        self.metric = metric
        self.tolerance = tolerance  # None: skip
        self.severity = severity
        self.where = where

    def matches(self, kernel, nbytes, variant=""):
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


def parse_rules(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise UsageError("cannot read the rules file %s: %s" % (path, e.strerror or e))
    rules = []
    for n, line in enumerate(text.splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        where = "%s line %d" % (path, n)
        f = line.split()
        if len(f) not in (4, 5):
            raise UsageError("%s: expected KERNEL SIZES METRIC TOLERANCE [fail|warn], got %d "
                             "fields: %s" % (where, len(f), line),
                             "docs/ANALYSIS.md describes the rules file")
        kernel, sizes, metric, tol = f[:4]
        severity = f[4].lower() if len(f) == 5 else "fail"
        if severity not in ("fail", "warn"):
            raise UsageError("%s: severity '%s' is neither fail nor warn" % (where, f[4]))
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


def checks_for(kernel, nbytes, default_metric, tolerance, rules, variant=""):
    """{metric: (tolerance, severity, source)} for one row of the baseline (of the kernel
    instance `variant`)."""
    out = {default_metric: (tolerance, "fail", "--tolerance")}
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
