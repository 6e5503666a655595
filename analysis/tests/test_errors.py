# SPDX-License-Identifier: BSD-3-Clause
"""Inputs that are not what they should be: a clear message, a documented exit code, no
traceback (docs/ANALYSIS.md: 2 usage, 3 unreadable input, 4 nothing in common)."""
import pytest
from conftest import assert_error, assert_ok, run_cli, run_launcher

from fabricbench_analysis.model.errors import AnalysisError
from fabricbench_analysis.reading.loading import SCHEMA_VERSION

COMMANDS = [("summary",), ("compare", "SHM"), ("plot", "-o", "OUT"), ("report", "-o", "OUT"),
            ("check", "--baseline", "SHM"), ("export", "--csv")]


def _args(cmd, results, tmp_path, bad):
    out = []
    for a in cmd:
        out.append(results.shm if a == "SHM" else str(tmp_path / "out") if a == "OUT" else a)
    return out + [bad]


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_random_bytes(results, tmp_path, cmd):
    p = run_cli(*_args(cmd, results, tmp_path, results.random))
    assert_error(p, 3, results.random + " is not an HDF5 file", "hint:")


@pytest.mark.parametrize("cmd", COMMANDS, ids=[c[0] for c in COMMANDS])
def test_damaged_contents(results, tmp_path, cmd):
    """HDF5 opens it; reading an attribute fails (a global heap's signature overwritten)."""
    p = run_cli(*_args(cmd, results, tmp_path, results.damaged))
    assert_error(p, 3, results.damaged + " is damaged: ", "heap", "hint: copy the file again")
    assert len(p.stderr.splitlines()) == 2, p.stderr


def test_damaged_baseline(results):
    p = run_cli("check", "--baseline", results.damaged, results.shm)
    assert_error(p, 3, results.damaged + " is damaged: ", "hint:")


def test_unexpected_error_while_loading(results, monkeypatch):
    """What no damaged file is known to raise still names the file, exit 3."""
    from fabricbench_analysis.reading import loading

    class Odd(Exception):
        pass

    def boom(*_args):
        raise Odd("something new")
    monkeypatch.setattr(loading, "_read_run", boom)
    with pytest.raises(AnalysisError) as e:
        loading.load([results.shm])
    assert e.value.code == 3
    assert e.value.message.startswith(results.shm + " could not be read: Odd: something new")
    assert "report this as a bug" in e.value.hint


def test_last_resort_guard(results, monkeypatch, capsys):
    """A bug anywhere: one error line and a hint, exit 5 (not 1, check's FAIL), no traceback."""
    from fabricbench_analysis import cli
    from fabricbench_analysis.render import summary

    def boom(*_args):
        raise ZeroDivisionError("division by zero")
    monkeypatch.setattr(summary, "summarize", boom)
    monkeypatch.delenv("FABRICBENCH_ANALYZE_DEBUG", raising=False)
    assert cli.main(["summary", results.shm]) == 5
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if "note:" not in ln]
    assert lines == ["fabricbench-analyze: error: unexpected ZeroDivisionError: division by "
                     "zero", lines[1]] and lines[1].startswith("hint: this is a bug"), err
    assert "Traceback" not in err
    monkeypatch.setenv("FABRICBENCH_ANALYZE_DEBUG", "1")
    with pytest.raises(ZeroDivisionError):
        cli.main(["summary", results.shm])


def test_truncated(results):
    p = run_cli("summary", results.truncated)
    assert_error(p, 3, results.truncated + " is truncated", "copy it again")


def test_newer_schema(results):
    p = run_cli("summary", results.newer)
    assert_error(p, 3, "schema_version %d" % (SCHEMA_VERSION + 1),
                 "reads version %d only" % SCHEMA_VERSION)


def test_other_hdf5(results):
    assert_error(run_cli("summary", results.other_hdf5), 3, "not a fabricbench result")


def test_missing_and_directory(results, tmp_path):
    assert_error(run_cli("summary", tmp_path / "nope.h5"), 3, "no such file")
    assert_error(run_cli("summary", tmp_path), 3, "is a directory")


def test_text_output_given(results, tmp_path):
    f = tmp_path / "out.txt"
    f.write_text("# fabricbench 0.1.0\n# kernel: latency\n")
    assert_error(run_cli("summary", f), 3, "text output")
    # JSON Lines are read (jsonload.py): a run record without what fabricbench writes in it
    f.write_text('{"record": "run"}\n')
    assert_error(run_cli("summary", f), 3, "(JSON Lines): line 1 (run record): has no units")
    f.write_text("kernel,bytes\nlatency,8\n")
    assert_error(run_cli("summary", f), 3, "CSV")


def test_interrupted_loads_with_a_note(results):
    p = run_cli("summary", results.interrupted)
    assert_ok(p)
    assert "note:" in p.stderr and "interrupted (SIGINT)" in p.stderr
    assert "interrupted" in p.stdout


def test_usage_errors(results):
    p = run_launcher()
    assert p.returncode == 2 and "a command is required" in p.stderr
    p = run_launcher("summary")
    assert p.returncode == 2 and "FILE.h5" in p.stderr
    p = run_launcher("frobnicate", results.shm)
    assert p.returncode == 2 and "invalid choice" in p.stderr
    p = run_launcher("plot", results.shm)
    assert p.returncode == 2 and "-o" in p.stderr
    assert_error(run_launcher("summary", "--run", "run_0009", results.shm), 2, "has no run")
    assert_error(run_launcher("compare", "--sigma", "0", results.shm, results.tcp), 2)
    assert_error(run_launcher("summary", "--label", "a", "--label", "b", results.shm), 2,
                 "2 labels for 1 files")


def test_help_and_version():
    p = run_launcher("--help")
    assert_ok(p)
    for c in ("summary", "compare", "plot", "report", "check", "export", "exit codes"):
        assert c in p.stdout
    p = run_launcher("--version")
    assert_ok(p)
    assert p.stdout.startswith("fabricbench-analyze ")
