# SPDX-License-Identifier: BSD-3-Clause
"""Fixtures of the analysis tests: result files written by the real fabricbench, copies edited
with h5py, and files of known values (made by inputs.py: once per ctest run by the test
analysis.inputs, or, when pytest runs by hand, once per session in a temporary directory).

Two kinds of input, for two kinds of test:

- `results`: real runs (and copies with their metadata or structure edited). Their values are
  whatever this machine measured, as noisy as it is busy, so a test on them asserts only shapes,
  definitions and exit codes, never a verdict that depends on speed or noise.
- `known`: files of chosen values (known_values.py) in the shape of a real file. Every test of
  statistics, noise or verdicts (PASS/WARN/FAIL, better/worse, percent changes, summary
  numbers) reads these, so that its outcome is decided by the values it chose.

The fabricbench binary comes from --fabricbench PATH or the FABRICBENCH environment variable
(ctest sets it). Without it (and without FABTEST_ANALYSIS_INPUTS) every test that needs a real
run errors with a message saying so: nothing is skipped.
"""
import os
import shutil
import subprocess
import sys

import inputs
import known_matrix
import pytest

ANALYSIS = inputs.ANALYSIS
LAUNCHER = os.path.join(ANALYSIS, "fabricbench-analyze")

# The input files: made once by the ctest analysis.inputs and read from
# FABTEST_ANALYSIS_INPUTS, or, without it (pytest run by hand), made here in the session's
# temporary directory by the same makers (inputs.py), each set when a test first needs it.
INPUTS = os.environ.get("FABTEST_ANALYSIS_INPUTS")
# The parts of this directory that ctest runs as tests of their own, side by side
# (tests/CMakeLists.txt: analysis.pytest.PART, --part PART): the test files of each part but
# the last; every other file is in the last part.
# Balanced by the files' times (--durations=0 under a load of 5: render about 73 s, hostile
# 63 s, read 66 s of test bodies, the inputs made before them apart).
PARTS = {"render": ("test_plot_report.py", "test_figures.py", "test_sockets.py"),
         "hostile": ("test_hostile.py", "test_matrix_hostile.py", "test_quality.py",
                     "test_matrix.py"),
         "read": ()}


def pytest_addoption(parser):
    parser.addoption("--fabricbench", default=os.environ.get("FABRICBENCH"),
                     help="the fabricbench binary that writes the result files "
                     "(default: $FABRICBENCH)")
    parser.addoption("--part", choices=sorted(PARTS),
                     help="only the test files of this part (conftest.py PARTS; default: all)")
    parser.addoption("--parts", help="with --part: every part the caller runs, comma-separated "
                     "(checked against PARTS, so that no test file is left out)")


def pytest_configure(config):
    parts = config.getoption("--parts")
    if parts is not None and sorted(parts.split(",")) != sorted(PARTS):
        raise pytest.UsageError("--parts %s: the parts are %s (conftest.py PARTS; "
                                "tests/CMakeLists.txt runs each)" % (parts, ",".join(PARTS)))


def pytest_ignore_collect(collection_path, config):
    part = config.getoption("--part")
    name = collection_path.name
    if part is None or not name.startswith("test_") or not name.endswith(".py"):
        return None
    listed = [p for p, files in PARTS.items() if name in files]
    last = list(PARTS)[-1]
    return (listed[0] if listed else last) != part


@pytest.fixture(scope="session")
def fabricbench(request):
    path = request.config.getoption("--fabricbench")
    if not path:
        pytest.fail("no fabricbench binary: set FABRICBENCH=/path/to/build/fabricbench or pass "
                    "--fabricbench PATH (ctest -R analysis sets it)", pytrace=False)
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        pytest.fail("FABRICBENCH=%s is not an executable file: build it first (cmake --build "
                    "build)" % path, pytrace=False)
    if shutil.which("mpirun") is None:
        pytest.fail("mpirun is not on PATH (apt-get install openmpi-bin)", pytrace=False)
    return os.path.abspath(path)


_MADE = {}


def _inputs(request, name):
    """The input set `name` (inputs.SETS): read from FABTEST_ANALYSIS_INPUTS, else made once
    in this session."""
    try:
        if INPUTS:
            return inputs.load(INPUTS, name)
        if name not in _MADE:
            if name == "known":
                _inputs(request, "results")
            d = str(request.getfixturevalue("tmp_path_factory").mktemp("inputs"))
            fb = None if name == "known" else request.getfixturevalue("fabricbench")
            _MADE[name] = inputs.make(name, fb, d, _MADE)
        return _MADE[name]
    except inputs.InputError as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def results(request):
    """Real runs (and copies with their metadata or structure edited): inputs.make_results."""
    return _inputs(request, "results")


@pytest.fixture(scope="session")
def known(request):
    """Files of known values shaped like the real shm.h5: inputs.make_known."""
    return _inputs(request, "known")


@pytest.fixture(scope="session")
def pairs(request):
    """The pairs kernels' real run and files of known matrices: inputs.make_pairs (and
    known_matrix as pairs.km)."""
    p = _inputs(request, "pairs")
    p.km = known_matrix
    return p


@pytest.fixture(scope="session")
def live(request):
    """One real run's three outputs: {"h5", "jsonl", "doc": path} (inputs.make_live)."""
    return dict(vars(_inputs(request, "live")))


@pytest.fixture(scope="session")
def congestion(request):
    """A real run of the congestion kernels (incast, none) on 4 ranks: inputs.make_congestion."""
    return _inputs(request, "congestion")


@pytest.fixture(scope="session")
def repeats(request):
    """F.h5 (--repeat 3) and G.h5 (one more run, other outputs): inputs.make_repeats."""
    return _inputs(request, "repeats")


def run_launcher(*args, cwd=None):
    """fabricbench-analyze through its launcher, in a process of its own, as a user runs it."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.pop("MPLBACKEND", None)
    return subprocess.run([sys.executable, LAUNCHER] + [str(a) for a in args],
                          capture_output=True, text=True, timeout=300, env=env, cwd=cwd)


def run_cli(*args, cwd=None):
    """fabricbench-analyze's command line in this process (cli.main, which the launcher calls:
    a second Python starting numpy, h5py and matplotlib cost about a second a call, 150 s of the
    suite), its exit code, stdout and stderr caught as the launcher's would be. An exception
    that escapes main (it never should) becomes stderr's Traceback, which the assertions
    refuse. FABTEST_ANALYZE_SUBPROCESS=1 runs every call through the launcher instead;
    run_launcher always does (test_end_to_end, the --help, --version and usage checks)."""
    if os.environ.get("FABTEST_ANALYZE_SUBPROCESS") == "1":
        return run_launcher(*args, cwd=cwd)
    import contextlib
    import io
    import traceback

    from fabricbench_analysis import cli

    out, err = io.BytesIO(), io.BytesIO()
    tout = io.TextIOWrapper(out, encoding="utf-8", errors="backslashreplace", write_through=True)
    terr = io.TextIOWrapper(err, encoding="utf-8", errors="backslashreplace", write_through=True)
    here = os.getcwd()
    try:
        if cwd is not None:
            os.chdir(str(cwd))
        with contextlib.redirect_stdout(tout), contextlib.redirect_stderr(terr):
            try:
                code = cli.main([str(a) for a in args])
            except SystemExit as e:  # argparse: usage errors (2), --help and --version (0)
                code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
            except Exception:  # noqa: BLE001 -- shown as a launcher would show it
                traceback.print_exc()
                code = 1
    finally:
        os.chdir(here)
    return subprocess.CompletedProcess(["fabricbench-analyze"] + [str(a) for a in args],
                                       code if code is not None else 0,
                                       out.getvalue().decode("utf-8", "backslashreplace"),
                                       err.getvalue().decode("utf-8", "backslashreplace"))


QUALITY_HEADLINE = ("DISTURBED: ", "BELOW THE FLOOR: ", "a few rows not comparable: ",
                    "rows marked [disturbed] or [invalid]")


def without_quality(text):
    """summary's text without its first lines on the row quality (quality.headline), which a
    real run on a busy machine has: the table's lines as on a quiet machine."""
    lines = text.splitlines()
    while lines and lines[0].startswith(QUALITY_HEADLINE):
        lines.pop(0)
    return lines


def assert_ok(p):
    assert p.returncode == 0, "exit %d\nstdout:\n%s\nstderr:\n%s" % (p.returncode, p.stdout,
                                                                   p.stderr)
    assert "Traceback" not in p.stderr, p.stderr


def assert_error(p, code, *phrases):
    """Exit code `code`, a one-line error naming what was wrong, a hint, no traceback."""
    assert p.returncode == code, "exit %d, expected %d\nstdout:\n%s\nstderr:\n%s" % (
        p.returncode, code, p.stdout, p.stderr)
    assert "Traceback" not in p.stderr, p.stderr
    assert "fabricbench-analyze: error: " in p.stderr or code == 2, p.stderr
    for ph in phrases:
        assert ph in p.stderr, "%r not in stderr:\n%s" % (ph, p.stderr)
