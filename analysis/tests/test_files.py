# SPDX-License-Identifier: BSD-3-Clause
"""What the analysis reads and writes (files.py; docs/ANALYSIS.md, "Files"): inputs are regular
files (a FIFO or a device is exit 2 at once, never read), a rules file is UTF-8 and every
selector and tolerance in it well formed (else exit 2 naming the line), and no output (report,
export, plot) is ever written through a link or into a FIFO or a device.

A FIFO made the old reader wait forever (check --rules FIFO blocked; so did a FIFO as a result
file or an output), so those cases run through the launcher in a process of their own with a
time limit; the others run in this process."""
import os
import subprocess

import pytest
from conftest import assert_error, assert_ok, run_cli

LIMIT = 60  # s: far beyond what these take; a command that waits on a FIFO never ends


def _launch(*args):
    """The launcher with a time limit: a command still running then has waited on a FIFO."""
    try:
        return run_launcher_limited(*args)
    except subprocess.TimeoutExpired:
        pytest.fail("fabricbench-analyze %s did not end within %d s (it waits on a FIFO)" %
                    (" ".join(str(a) for a in args), LIMIT))


def run_launcher_limited(*args):
    import sys

    import conftest
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    env.pop("MPLBACKEND", None)
    return subprocess.run([sys.executable, conftest.LAUNCHER] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=LIMIT, env=env)


# --- inputs ----------------------------------------------------------------------------------

def _input_args(known, where, path):
    return {"file": ("summary", path),
            "baseline": ("check", "--baseline", path, known.base),
            "rules": ("check", "--baseline", known.base, known.base, "--rules", path)}[where]


@pytest.mark.parametrize("where", ["file", "baseline", "rules"])
def test_fifo_input_refused_at_once(known, tmp_path, where):
    """Was: the command waited forever (check --rules FIFO, a FIFO as a result file)."""
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    p = _launch(*_input_args(known, where, fifo))
    assert_error(p, 2, "in.fifo is a FIFO (named pipe), not a regular file")


@pytest.mark.parametrize("where", ["file", "baseline", "rules"])
def test_device_input_refused(known, where):
    """Was: /dev/null read as an empty rules file (no rule) or an empty result file."""
    p = run_cli(*_input_args(known, where, "/dev/null"))
    assert_error(p, 2, "/dev/null is a character device, not a regular file")


def test_rules_not_utf8_names_the_line(known, tmp_path):
    """Was exit 5, 'this is a bug'."""
    rules = tmp_path / "rules.txt"
    rules.write_bytes(b"# fine\nbw * MBps 5%\nlatency * p50_us 1\xff0%\n")
    p = run_cli("check", "--baseline", known.base, known.slow, "--rules", rules)
    assert_error(p, 2, "rules.txt line 3: byte 0xFF at column 19 is not UTF-8")


BAD_RULES = {
    "unclosed instance": ("tcp_stream[4 * Gbps 10%", "'tcp_stream[4' is not a kernel"),
    "a bracket": ("[ * MBps 10%", "'[' is not a kernel"),
    "upper case": ("Latency * p50_us 5%", "'Latency' is not a kernel"),
    "inf%": ("bw * MBps inf%", "tolerance inf% is not a tolerance"),
    "nan": ("bw * MBps nan", "tolerance nan is not a tolerance"),
    "1e400": ("bw * MBps 1e400", "tolerance 1e400 is not a tolerance"),
    "1e400%": ("bw * MBps 1e400%", "tolerance 1e400% is not a tolerance"),
    "underscore": ("bw * MBps 1_0%", "tolerance 1_0% is not a tolerance"),
    "beyond 1000%": ("bw * MBps 2000%", "tolerance 2000%: a tolerance is at most 1000%"),
}


@pytest.mark.parametrize("case", sorted(BAD_RULES))
def test_malformed_rule_refused_naming_the_line(known, tmp_path, case):
    """Was: accepted silently (a selector matching nothing, an infinite tolerance), or refused
    with a wrong reason (nan: 'cannot be negative')."""
    line, phrase = BAD_RULES[case]
    rules = tmp_path / "rules.txt"
    rules.write_text("# KERNEL SIZES METRIC TOLERANCE\nlatency * p50_us 15%\n" + line + "\n")
    p = run_cli("check", "--baseline", known.base, known.slow, "--rules", rules)
    assert_error(p, 2, "rules.txt line 3: " + phrase)


@pytest.mark.parametrize("args,phrase", [
    (("--tolerance", "inf%"), "--tolerance inf% is not a tolerance"),
    (("--run-spread", "nan"), "--run-spread nan is not a tolerance"),
    (("--sigma", "inf"), "'inf' is not a number"),
    (("--min-line-pct", "9_0"), "--min-line-pct 9_0 is not a percentage"),
], ids=["tolerance", "run-spread", "sigma", "min-line-pct"])
def test_numbers_on_the_command_line_are_plain(known, args, phrase):
    p = run_cli("check", "--baseline", known.base, known.slow, *args)
    assert_error(p, 2, phrase)


def test_well_formed_selectors_still_work(known, tmp_path):
    rules = tmp_path / "rules.txt"
    rules.write_text("b[!x]* * MBps 50%\n?w >=8 MBps 45%\nallreduce * * skip\n"
                     "tcp_stream[4] * Gbps 10%\nudp_rate[rate=1G] * loss_pct skip\n")
    p = run_cli("check", "--json", "--baseline", known.base, known.slow, "--rules", rules)
    assert p.returncode == 0, p.stderr  # bw 30% slower, within the 45% of the later rule
    assert '"rule": "%s line 2"' % rules in p.stdout


# --- outputs ---------------------------------------------------------------------------------

def _output(known, tmp_path, cmd):
    """(argv, the output path a link is planted at, the directory that holds it)."""
    d = tmp_path / "out"
    d.mkdir()
    if cmd == "report":
        return ["report", known.drift, "-o", d / "report.html"], d / "report.html", d
    if cmd == "export":
        return ["export", known.drift, "--csv", "-o", d / "t.csv"], d / "t.csv", d
    return ["plot", known.drift, "--format", "png", "-o", d], d / "latency.png", d


def _elsewhere(tmp_path):
    e = tmp_path / "elsewhere"
    e.mkdir()
    victim = e / "victim.txt"
    victim.write_text("precious\n")
    return victim, e / "never-created"


@pytest.mark.parametrize("plant", ["symlink", "dangling"])
@pytest.mark.parametrize("cmd", ["report", "export", "plot"])
def test_output_never_written_through_a_link(known, tmp_path, cmd, plant):
    """Was: report -o, export -o and plot's files followed a planted link: the file it points
    to overwritten, the target of a dangling one created."""
    argv, out, d = _output(known, tmp_path, cmd)
    victim, nowhere = _elsewhere(tmp_path)
    os.symlink(victim if plant == "symlink" else nowhere, out)
    p = run_cli(*argv)
    assert_error(p, 2, "%s is a symbolic link to %s" % (out, victim if plant == "symlink"
                                                        else nowhere),
                 "never writes through a link")
    if plant == "dangling":
        assert "(dangling: it points to nothing)" in p.stderr
    assert victim.read_text() == "precious\n" and not nowhere.exists()
    assert os.path.islink(out)
    assert sorted(x.name for x in d.iterdir()) == [out.name], "written beside the link"
    # --force replaces the link itself, never what it points to
    p = run_cli(*(argv + ["--force"]))
    assert_ok(p)
    assert not os.path.islink(out) and out.is_file() and out.stat().st_size > 0
    assert victim.read_text() == "precious\n" and not nowhere.exists()
    assert not [x.name for x in d.iterdir() if x.name.startswith(".")], "a temporary is left"


@pytest.mark.parametrize("cmd", ["report", "export", "plot"])
def test_output_fifo_refused_at_once(known, tmp_path, cmd):
    """Was: the command waited forever, opening the FIFO to write into it. A FIFO is never
    replaced, not even with --force."""
    argv, out, d = _output(known, tmp_path, cmd)
    os.mkfifo(out)
    p = _launch(*argv)
    assert_error(p, 2, "%s is a FIFO (named pipe), not a regular file" % out)
    p = run_cli(*(argv + ["--force"]))
    assert_error(p, 2, "never replaces a FIFO")
    assert os.path.exists(out) and not out.is_file()
    assert sorted(x.name for x in d.iterdir()) == [out.name]


def test_output_device_refused(known):
    """Was: the CSV written into the device."""
    assert_error(run_cli("export", known.drift, "-o", "/dev/null"), 2,
                 "/dev/null is a character device")
    assert_error(run_cli("export", known.drift, "-o", "/dev/null", "--force"), 2,
                 "/dev/null is a character device")
    # the system's own links are not replaced even with --force; - is standard output
    assert_error(run_cli("export", known.drift, "-o", "/dev/stdout", "--force"), 2,
                 "/dev/stdout is a symbolic link")
    assert os.path.islink("/dev/stdout")


def test_plot_directory_that_is_a_link_refused(known, tmp_path):
    """Was: the plots written into wherever the link pointed."""
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "plots"
    os.symlink(real, link)
    p = run_cli("plot", known.drift, "--format", "png", "-o", link)
    assert_error(p, 2, "%s (the output directory) is a symbolic link to %s" % (link, real))
    assert list(real.iterdir()) == []
    dangling = tmp_path / "gone"
    os.symlink(tmp_path / "nothing", dangling)
    assert_error(run_cli("plot", known.drift, "-o", dangling), 2, "(dangling")
    assert not (tmp_path / "nothing").exists()


def test_regular_output_replaced_whole(known, tmp_path):
    """An existing regular file is replaced (a new file renamed over it), as before."""
    out = tmp_path / "t.csv"
    out.write_text("old\n" * 100000)
    assert_ok(run_cli("export", known.drift, "--csv", "-o", out))
    text = out.read_text()
    assert text.startswith("label,") and "old" not in text
    assert [x.name for x in tmp_path.iterdir()] == ["t.csv"]
