# SPDX-License-Identifier: BSD-3-Clause
"""Command line: fabricbench-analyze summary|compare|matrix|plot|report|check|export
(docs/ANALYSIS.md)."""
import argparse
import json
import math
import os
import sys
from typing import IO, TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple

from .model.errors import (EXIT_FAIL, EXIT_INPUT, EXIT_INTERNAL, EXIT_NOTHING_IN_COMMON, EXIT_OK,
                     EXIT_USAGE, AnalysisError, UsageError)

if TYPE_CHECKING:  # for the type checker only: nothing is imported when the program runs
    from .model.table import Table

# The commands' modules are imported by the functions that run them, not here: --help,
# --version and the message of a missing numpy or h5py come without loading either
# (tests/style/test_analysis_imports.py allows this in the entry points only).

PROG = "fabricbench-analyze"

EPILOG = """exit codes: 0 done (check: no FAIL; WARN allowed; matrix: healthy), 1 check found a
FAIL (matrix: a verdict named suspects), 2 usage error (bad option or rules file), 3 an input
could not be read (not HDF5, damaged, newer schema; matrix: no pairs kernel) or an output not
written, 4 nothing in common to compare or check (check: no verdict, every row it needs
disturbed or invalid; check --min-line-pct: no row with a known line rate; matrix: no verdict
yet, the run was stopped, or its row disturbed), 5 an unexpected error (a bug of
fabricbench-analyze; FABRICBENCH_ANALYZE_DEBUG=1 shows where).
A row fabricbench marked disturbed or invalid (or, in a file from before those marks, with a
rank's CPU share below 80% or fewer than 10 iterations) is shown marked and never judged.
docs/ANALYSIS.md describes every command, the table's columns, row quality and the noise
method."""


def _one_line(msg: object) -> str:
    """A message as one line for a terminal: control characters (a newline in a path, an
    escape sequence) as \\xNN. Text from files is escaped already when it is loaded."""
    from .model.hostile import safe_text
    return safe_text(str(msg))


def _note(msg: str) -> None:
    print("%s: note: %s" % (PROG, _one_line(msg)), file=sys.stderr)


def _json_default(o: Any) -> Any:
    if hasattr(o, "item"):
        return o.item()
    raise TypeError(type(o))


def _clean(o: Any) -> Any:
    """NaN -> None, recursively, for strict JSON."""
    if isinstance(o, float) and not math.isfinite(o):
        return None
    if isinstance(o, dict):
        return {k: _clean(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_clean(v) for v in o]
    return o


def _dump_json(obj: Any, out: Optional[IO[str]] = None) -> None:
    out = out or sys.stdout
    json.dump(_clean(obj), out, indent=1, default=_json_default, allow_nan=False)
    out.write("\n")


def _load(args: argparse.Namespace, files: Optional[Sequence[str]] = None,
          run: Optional[str] = None) -> "Table":
    from .reading.loading import load
    return load(files if files is not None else args.files,
                run=run if run is not None else args.run, labels=args.label or None,
                warn=_note)


def _sigma(text: str) -> float:
    from .checks.rules import decimal

    v = decimal(text)
    if v is None:
        raise argparse.ArgumentTypeError("'%s' is not a number (digits and a point)" %
                                         _one_line(text))
    if not 0 < v <= 1000:
        raise argparse.ArgumentTypeError("must be above 0 and at most 1000")
    return v


def _groups(args: argparse.Namespace) -> Optional[Tuple[str, ...]]:
    """--group as grouping.parse_keys reads it (a UsageError for a bad one); None without
    --group: the default, which also keeps apart files that hold repeats of their own."""
    from .model import grouping
    return None if args.group is None else grouping.parse_keys(args.group)


def _check_out(args: argparse.Namespace) -> None:
    """Refuse the output path (-o) before any work when what is there may not be replaced:
    a symlink, FIFO, device or socket without --force, a directory (files.py)."""
    from .reading import files
    if args.output not in (None, "-"):
        files.check_output(args.output, args.force)


def _write_out(args: argparse.Namespace, write: Callable[[IO[str]], Any]) -> bool:
    """write(f) to standard output (-o -, or no -o), else to the output file, written safely
    (files.write_output: a temporary file renamed into place, never through a link)."""
    from .reading import files
    if args.output in (None, "-"):
        write(sys.stdout)
        return False
    files.write_output(args.output, args.force, write)
    return True


def cmd_summary(args: argparse.Namespace) -> int:
    from .render import summary
    from .render.knee import parse_max_loss
    keys = _groups(args)
    max_loss = parse_max_loss(args.max_loss)
    table = _load(args)
    recs = summary.summarize(table, keys, max_loss)
    if args.json:
        _dump_json(recs)
    elif args.csv:
        import csv
        flat = [summary.flat(r) for r in recs]
        cols = list(flat[0])
        w = csv.writer(sys.stdout, lineterminator="\n")
        w.writerow(cols)
        for r in flat:
            w.writerow(["" if isinstance(r[k], float) and not math.isfinite(r[k]) else
                        ("" if r[k] is None else r[k]) for k in cols])
    else:
        from .model import splitgroups
        sys.stdout.write(summary.render_text(recs, keys))
        sys.stdout.write(splitgroups.render_text(splitgroups.compare_groups(table)))
    return EXIT_OK


def cmd_compare(args: argparse.Namespace) -> int:
    from .checks import compare
    keys = _groups(args)
    table = _load(args)
    result = compare.compare(table, metrics=args.metric or None, reference=args.reference,
                             sigma=args.sigma, group_keys=keys)
    if args.json:
        _dump_json(result)
    else:
        sys.stdout.write(compare.render_text(result))
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from .reading import files
    from .render import plot
    from .model.errors import NoRows
    from .model.table import Table
    outdir = files.OutputDir(args.output, args.force)
    outdir.check()  # before any work: a DIR that is a link, or not a directory, is refused
    try:
        table = _load(args)
    except NoRows:
        # A run killed during its first kernel, a pairs kernel: no row, but the matrix of the
        # rounds it finished. Without one, the error stands.
        if not _matrices(args.files, args.run):
            raise
        _note("no measured rows in %s: only the pairs matrices are drawn" %
              ", ".join(args.files))
        table = Table([], [], {})
    formats = [f.strip().lower() for f in args.format.split(",") if f.strip()]
    bad = [f for f in formats if f not in ("png", "svg", "pdf")]
    if bad or not formats:
        raise UsageError("--format %s: formats are png, svg and pdf" % args.format)
    for path in plot.save(table, outdir, formats, _matrices(args.files, args.run),
                          per_run=args.per_run, group_keys=_groups(args),
                          ladders=_ladders(args.files, args.run)):
        print(path)
    for t in plot.tables(table) if len(table) else ():
        _note("%s not plotted: %s; fabricbench-analyze report shows it as a table" %
              (t["kernel"], t["why"]))
    return EXIT_OK


def _ladders(files: Sequence[str], run: Optional[str]) -> List[Dict[str, Any]]:
    """The layer ladders (`fabricbench run ladder`) of the files' selected runs."""
    from .reading.ladder_load import load_ladders
    return load_ladders(files, run)


def _matrices(files: Sequence[str], run: Optional[str], kernel: Optional[str] = None,
              table: Optional["Table"] = None) -> List[Dict[str, Any]]:
    """The matrices of the pairs kernels in the files (--kernel: of that kernel only), each
    with its kernel row's quality (quality.annotate_matrices). table: the rows of the same
    files and runs, where the caller has loaded them already (else they are loaded here)."""
    from .model.errors import NoRows
    from .reading.loading import load
    from .reading.matrix_load import load_matrices
    from .model.quality import annotate_matrices
    ms = load_matrices(files, run=run, warn=_note)
    if ms:
        try:
            # the loading's notes are the command's own
            annotate_matrices(ms, table if table is not None else load(files, run=run))
        except NoRows:  # a run killed in its first pairs kernel: a matrix but no row
            pass
    if kernel is not None:
        names = sorted({m["kernel"] for m in ms})
        ms = [m for m in ms if m["kernel"] == kernel]
        if not ms and names:
            raise UsageError("--kernel %s: no such pairs kernel in %s (it has %s)" % (
                kernel, ", ".join(files), ", ".join(names)),
                "give one of the pairs kernels listed")
    return ms


def cmd_matrix(args: argparse.Namespace) -> int:
    from .render import matrix
    ms = _matrices(args.files, args.run, args.kernel)
    if not ms:
        raise AnalysisError("%s: no pairs kernel (pairs_latency, pairs_bw) with a matrix in "
                            "%s" % (", ".join(args.files), "the runs selected" if args.run !=
                                    "all" else "any run"),
                            "measure one: fabricbench run pairs_latency,pairs_bw ...")
    if args.worst < 0:
        raise UsageError("--worst %d: give 0 or more" % args.worst)
    if args.json:
        _dump_json([matrix.summarize(m, args.worst) for m in ms])
    else:
        sys.stdout.write(matrix.render_text(ms, args.worst))
    st = matrix.exit_status(ms)
    return EXIT_FAIL if st == "suspects" else EXIT_NOTHING_IN_COMMON if st == "incomplete" \
        else EXIT_OK


def _check_result(args: argparse.Namespace, table: Optional["Table"] = None) -> Dict[str, Any]:
    """check's result: against --baseline (check.py; the pairs matrices, matrix_check.py),
    and/or the line rate (--min-line-pct, linecheck.py)."""
    from .checks import check, linecheck, rules as rules_mod
    from .model.grouping import measurements, repeat_count
    from .reading import loading
    tol = rules_mod.parse_tolerance(args.tolerance)
    rules = rules_mod.parse_rules(args.rules) if args.rules else []
    spread = rules_mod.parse_tolerance(args.run_spread, where="--run-spread")
    line = None if args.min_line_pct is None else \
        linecheck.parse_min_line_pct(args.min_line_pct)
    if not args.baseline and line is None:
        raise UsageError("check needs --baseline BASE.h5, --min-line-pct PCT, or both",
                         "--baseline compares with a reference run; --min-line-pct 90 judges "
                         "every link at 90% of its line rate")
    base = loading.load([args.baseline], run=args.baseline_run, warn=_note) \
        if args.baseline else None
    # The runs of one --repeat N are one measurement (check.measurements): 'latest' is a
    # file's last run and the others of its --repeat, so a file whose last run was one of a
    # --repeat is read whole (the notes of the reading that counts are printed).
    cur = table
    cur_run = None  # the runs cur holds, where loaded here (its matrices need the same rows)
    if cur is None:
        notes: List[str] = []
        cur_run = args.run
        cur = loading.load(args.files, run=args.run, warn=notes.append)
        if args.run == "latest" and any(repeat_count(s) > 1 for s in cur.series()):
            cur_run = "all"
            cur = loading.load(args.files, run="all", warn=_note)
        else:
            for n in notes:
                _note(n)
    sets = measurements(cur, args.run)
    if base is None:
        result = linecheck.without_baseline(args.sigma, spread)
    else:
        result = check.check(base, cur, tol, rules, sigma=args.sigma, strict=args.strict,
                             run_spread=spread, sets=sets)
        # The pairs kernels' matrices, pair by pair (matrix_check.py)
        from .checks.matrix_check import add_pair_checks
        base_ms = _matrices([args.baseline], args.baseline_run, table=base)
        if base_ms:
            # pair by pair only where both measurements are comparable (quality.py)
            ms_run = "all" if args.run == "latest" else args.run
            cur_ms = _matrices(args.files, ms_run, table=cur if cur_run == ms_run else None)
            check.pairs_not_comparable(result, base_ms, cur_ms)
            add_pair_checks(result, [m for m in base_ms if _comparable_matrix(m)],
                            [m for m in cur_ms if _comparable_matrix(m)], tol, rules,
                            args.sigma, spread, args.strict)
    if line is not None:
        linecheck.add_line_checks(result, cur, line, args.line_pct_sizes, sets)
    return result


def _comparable_matrix(m: Dict[str, Any]) -> bool:
    return m.get("quality") not in ("disturbed", "invalid")


def cmd_check(args: argparse.Namespace) -> int:
    from .checks import check
    result = _check_result(args)
    if args.json:
        _dump_json(result)
    else:
        sys.stdout.write(check.render_text(result, show=args.show))
    if result["result"] == "FAIL":
        return EXIT_FAIL
    if result.get("not_comparable") and not result.get("judged") and \
            not result.get("line_judged"):
        raise AnalysisError(
            "no verdict: every row the check needs is disturbed or invalid (%d not comparable: "
            "measured while the machine took the ranks' CPU, or below the floor of samples)" %
            result["not_comparable"],
            "measure again on a quiet machine (fabricbench's header and `summary` say how busy "
            "it was), or with more time (-t); docs/METRICS.md, Row quality",
            EXIT_NOTHING_IN_COMMON)
    if result.get("line_judged") == 0:
        raise AnalysisError(
            "nothing to judge against the line rate: no bandwidth or collective row of %s has "
            "a known line rate" % ", ".join(args.files),
            "fabricbench knows the rate of the port --fabric chose where the port reports it "
            "(virtual NICs often do not), and applies none within one host; give it with "
            "fabricbench run --line-rate RATE",
            EXIT_NOTHING_IN_COMMON)
    return EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from .checks import compare
    from .render import report
    from .render.knee import parse_max_loss
    _check_out(args)
    keys = _groups(args)
    max_loss = parse_max_loss(args.max_loss)
    table = _load(args)
    compare.check_metrics(table, args.metric)  # also when there is no comparison to make
    cmp_result, cmp_error = report.compare_or_note(
        table, lambda t: compare.compare(t, metrics=args.metric or None,
                                         reference=args.reference, sigma=args.sigma,
                                         group_keys=keys))
    chk = _check_result(args, table) if args.baseline or args.min_line_pct is not None \
        else None
    base_ms = _matrices([args.baseline], args.baseline_run) if args.baseline else []
    page = report.build(table, cmp_result, cmp_error, chk, title=args.title,
                        matrices=_matrices(args.files, args.run), base_matrices=base_ms,
                        group_keys=keys, max_loss=max_loss, per_run=args.per_run,
                        ladders=_ladders(args.files, args.run))
    if _write_out(args, lambda f: f.write(page)):
        print(args.output)
    return EXIT_OK


def cmd_export(args: argparse.Namespace) -> int:
    from .render import export
    _check_out(args)
    table = _load(args)
    if args.list_columns:
        for c in table.columns:
            print("%s\t%s" % (c, table.units.get(c, "")))
        return EXIT_OK
    cols = [c.strip() for c in args.columns.split(",") if c.strip()] if args.columns else None
    export.select_columns(table, cols)  # refuse unknown names before creating the file
    if args.format == "gpcnet":
        from .render import gpcnet  # lazy: only this format needs it
        _write_out(args, lambda f: gpcnet.write(table, f))
    elif args.json or args.format == "json":
        _write_out(args, lambda f: export.write_jsonl(table, f, cols))
    else:
        _write_out(args, lambda f: export.write_csv(table, f, cols))
    return EXIT_OK


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=PROG, description="Summaries, comparisons, plots, reports and baseline checks of "
        "fabricbench result files (HDF5).", epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version="%(prog)s " + _version())
    sub = p.add_subparsers(dest="command", metavar="COMMAND")

    def common(sp: argparse.ArgumentParser, files: bool = True, run_default: str = "all",
               run_help: Optional[str] = None) -> None:
        if files:
            sp.add_argument("files", nargs="+", metavar="FILE.h5", help="result files")
        sp.add_argument("--run", default=run_default, metavar="RUN",
                        help=run_help or "which runs of each file: all, latest, a run name "
                        "(run_0001) or number [default: %s]" % run_default)
        sp.add_argument("--label", action="append", metavar="TEXT",
                        help="name of a file's curve and column, once per file in order "
                        "[default: its fabric, or the transport UCX used]")

    def group(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--group", default=None, metavar="KEYS",
                        help="which runs are repeats of one measurement, whose median and "
                        "run-to-run spread are shown: runs sharing the KEYS, a comma-separated "
                        "choice of command (the kernels and options, output options aside), "
                        "fabric, hosts, file; or none (every run on its own); runs of files "
                        "with different --label are never grouped [default: command,fabric, "
                        "and where several files each hold 2 runs or more of a group, each "
                        "file is a group of its own]")

    def per_run(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--per-run", action="store_true",
                        help="plots: a curve per run, not per group of runs (by default the "
                        "repeats of one measurement are one curve, their median, with the "
                        "range of the runs shaded)")

    def max_loss(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--max-loss", default="1%", metavar="PCT",
                        help="a rate sweep's knee (udp_rate --rate 0.5G,1G,...): the highest "
                        "offered rate whose loss stays at or below PCT [default: 1%%]")

    def noise(sp: argparse.ArgumentParser) -> None:
        sp.add_argument("--sigma", type=_sigma, default=3.0, metavar="Z",
                        help="a difference counts when it exceeds Z combined standard errors "
                        "[default: 3]")

    sp = sub.add_parser("summary", help="one line per group of repeated runs (or per run): "
                        "fabric, latency, peak bandwidth, message rate, allreduce busbw; "
                        "medians and run-to-run spreads")
    common(sp)
    group(sp)
    max_loss(sp)
    g = sp.add_mutually_exclusive_group()
    g.add_argument("--json", action="store_true", help="JSON instead of text")
    g.add_argument("--csv", action="store_true", help="CSV instead of text")
    sp.set_defaults(func=cmd_summary)

    sp = sub.add_parser("compare", help="side-by-side table per kernel and size of the groups "
                        "of repeated runs, with ratios and which differences exceed the noise "
                        "and the run-to-run spread")
    common(sp)
    group(sp)
    noise(sp)
    sp.add_argument("--metric", action="append", metavar="COLUMN",
                    help="compare this column (repeatable) [default: p50_us and p99_us for "
                    "latency, MBps for bandwidth kernels, busbw_GBps for collectives]")
    sp.add_argument("--reference", metavar="NAME|N|FILE",
                    help="the group the others are compared with: its name, number from 1, a "
                    "run's label or a file [default: the first]")
    sp.add_argument("--json", action="store_true", help="JSON instead of text")
    sp.set_defaults(func=cmd_compare)

    sp = sub.add_parser("matrix", help="the pairs kernels' all-pairs matrix: verdict, suspects, "
                        "worst pairs; exit 1 when suspects are named",
                        description="Per pairs kernel (pairs_latency, pairs_bw): the schedule, "
                        "members, the verdict and its suspects, thresholds and medians, the "
                        "worst pairs, and the matrix itself up to 12 members. Exit 0 healthy, "
                        "1 suspects named, 4 no verdict yet (a stopped run), 3 no pairs "
                        "kernel or a bad file.")
    common(sp)
    sp.add_argument("--kernel", metavar="K", help="only this pairs kernel")
    sp.add_argument("--worst", type=int, default=10, metavar="N",
                    help="list the N worst pairs (lowest bandwidth or highest latency) "
                    "[default: 10]")
    sp.add_argument("--json", action="store_true", help="JSON instead of text")
    sp.set_defaults(func=cmd_matrix)

    sp = sub.add_parser("plot", help="latency, bandwidth, message rate and busbw vs message "
                        "size, gradsync vs bucket size or buckets in flight, the congestion kernels' "
                        "canaries alone vs congested per congestor pattern; PNG and SVG")
    common(sp)
    group(sp)
    per_run(sp)
    sp.add_argument("-o", "--output", required=True, metavar="DIR",
                    help="directory for the plots (created if missing)")
    sp.add_argument("--format", default="png,svg", metavar="FMT[,FMT]",
                    help="png, svg, pdf [default: png,svg]")
    _force(sp, "a plot's file")
    sp.set_defaults(func=cmd_plot)

    sp = sub.add_parser("report", help="one self-contained HTML page: the verdicts first (a "
                        "baseline check with --baseline, pairs kernels), summary, comparison, "
                        "congestion (CIFs, the canaries that suffered most, warnings), plots")
    common(sp)
    group(sp)
    noise(sp)
    sp.add_argument("-o", "--output", required=True, metavar="REPORT.html",
                    help="the page to write (- for standard output)")
    sp.add_argument("--title", help="the page's title")
    _force(sp, "the page")
    sp.add_argument("--metric", action="append", metavar="COLUMN",
                    help="comparison columns, as for compare")
    sp.add_argument("--reference", metavar="NAME|N|FILE", help="as for compare")
    per_run(sp)
    max_loss(sp)
    _check_options(sp)
    sp.set_defaults(func=cmd_report)

    sp = sub.add_parser("check", help="PASS/WARN/FAIL against a baseline file, noise-aware, "
                        "and/or against the line rate (--min-line-pct); exit 1 on FAIL",
                        description="Check runs against a baseline file (--baseline), against "
                        "the line rate (--min-line-pct), or both. The runs of one --repeat N "
                        "are one measurement: each row their median. A disturbed or invalid "
                        "row is not comparable: a WARN, never a FAIL. Exit 0 no FAIL (WARN "
                        "allowed), 1 a FAIL, 2 usage, 3 a bad file, 4 nothing to judge (no "
                        "kernel and size in common with the baseline; every row it needs "
                        "disturbed or invalid: no verdict; no row with a known line rate).")
    common(sp, run_default="latest", run_help="which runs of each file: latest (its last run "
           "and the others of that --repeat N, as one measurement: each row their median), all "
           "(every such measurement), a run name (run_0001) or number (that run alone) "
           "[default: latest]")
    noise(sp)
    _check_options(sp)
    sp.add_argument("--json", action="store_true", help="JSON instead of text")
    sp.add_argument("--show", choices=("all", "problems"), default="all",
                    help="print every check, or only WARN and FAIL [default: all]")
    sp.set_defaults(func=cmd_check)

    sp = sub.add_parser("export", help="the tidy table (run x kernel x size) as CSV or JSON "
                        "Lines")
    common(sp)
    g = sp.add_mutually_exclusive_group()
    g.add_argument("--csv", action="store_true", help="CSV (the default)")
    g.add_argument("--json", action="store_true", help="JSON Lines, one object per row")
    g.add_argument("--list-columns", action="store_true", help="print the columns and units")
    g.add_argument("--format", choices=("csv", "json", "gpcnet"), help="csv, json (as --csv, "
                   "--json) or gpcnet: the congestion kernels' rows as GPCNeT's two tables, "
                   "the canaries alone and congested, then the congestion impact factors")
    sp.add_argument("-o", "--output", metavar="FILE", help="write here [default: standard "
                    "output]")
    sp.add_argument("--columns", metavar="A,B,...", help="only these columns, in this order")
    _force(sp, "the file")
    sp.set_defaults(func=cmd_export)
    return p


def _force(sp: argparse.ArgumentParser, what: str) -> None:
    sp.add_argument("--force", action="store_true",
                    help="replace a symlink where %s goes (the link itself, never what it "
                    "points to; without --force a link is refused; a regular file is always "
                    "replaced; a FIFO, device, socket or directory never)" % what)


def _check_options(sp: argparse.ArgumentParser) -> None:
    sp.add_argument("--baseline", metavar="BASE.h5",
                    help="the reference result file (all its runs pooled)")
    sp.add_argument("--min-line-pct", metavar="PCT",
                    help="every throughput row (a bandwidth kernel's Gb/s, a collective's "
                    "busbw) at or above PCT%% of the line rate passes, below FAILs; a row "
                    "whose line rate is unknown is a WARN, not judged (with or without "
                    "--baseline)")
    sp.add_argument("--line-pct-sizes", choices=("largest", "all"), default="largest",
                    help="the sizes --min-line-pct judges: the largest of each kernel "
                    "instance (small messages never reach the line rate), or all "
                    "[default: largest]")
    sp.add_argument("--baseline-run", default="all", metavar="RUN",
                    help="which runs of the baseline [default: all; several runs add their "
                    "spread to the noise]")
    sp.add_argument("--tolerance", default="10%", metavar="PCT",
                    help="how much worse is still a pass: 10%% or 0.1 [default: 10%%]")
    sp.add_argument("--rules", metavar="FILE",
                    help="per kernel (or kernel instance: tcp_stream[4]), size and metric "
                    "tolerances (docs/ANALYSIS.md)")
    sp.add_argument("--strict", action="store_true",
                    help="a size of the baseline missing from the run FAILs (default: WARN)")
    sp.add_argument("--run-spread", default="5%", metavar="PCT",
                    help="run-to-run spread (relative standard deviation) assumed at least when "
                    "the baseline has fewer than 3 runs (with 3 or more, their spread is "
                    "measured); it widens the noise band to at least sigma x PCT, so smaller "
                    "changes WARN rather than FAIL; 0 trusts each run's own statistics "
                    "[default: 5%%]")


def _version() -> str:
    from . import __version__
    return __version__


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_usage(sys.stderr)
        print("%s: error: a command is required (summary, compare, matrix, plot, report, "
              "check, export)" % PROG, file=sys.stderr)
        return EXIT_USAGE
    try:
        code: int = args.func(args)
        return code
    except AnalysisError as e:
        print("%s: error: %s" % (PROG, _one_line(e.message)), file=sys.stderr)
        if e.hint:
            print("hint: %s" % _one_line(e.hint), file=sys.stderr)
        return e.code
    except ImportError as e:
        print("%s: error: a Python module is missing: %s (Python: %s)" %
              (PROG, e, sys.executable), file=sys.stderr)
        print("hint: apt-get install python3-h5py python3-numpy python3-matplotlib, and run "
              "with Debian's /usr/bin/python3", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:
        # Output piped to `head` and the like: stop quietly.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # last resort: one line and a code of its own, never a traceback
        if os.environ.get("FABRICBENCH_ANALYZE_DEBUG"):
            raise
        print("%s: error: unexpected %s: %s" % (PROG, type(e).__name__,
                                                " ".join(str(e).split())), file=sys.stderr)
        print("hint: this is a bug of fabricbench-analyze, not of the files given; report it "
              "with the command line (FABRICBENCH_ANALYZE_DEBUG=1 prints the traceback)",
              file=sys.stderr)
        return EXIT_INTERNAL
