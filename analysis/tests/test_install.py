# SPDX-License-Identifier: BSD-3-Clause
"""The installed fabricbench-analyze finds its package (cmake --install into a scratch prefix;
tests/install/test_install.py checks the rest of the install)."""
import os
import subprocess

import pytest
from conftest import ANALYSIS


def test_installed_launcher(results, tmp_path):
    build = os.environ.get("FABRICBENCH_BUILD_DIR")
    if not build:
        pytest.skip("FABRICBENCH_BUILD_DIR is not set (ctest sets it): the install is not "
                    "tested in this run")
    cmake = os.environ.get("CMAKE_COMMAND", "cmake")
    prefix = tmp_path / "prefix"
    p = subprocess.run([cmake, "--install", build, "--prefix", str(prefix)],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    exe = prefix / "bin" / "fabricbench-analyze"
    assert os.access(exe, os.X_OK)
    pkg = prefix / "lib" / "python3" / "dist-packages" / "fabricbench_analysis"
    assert (pkg / "cli.py").is_file() and not (pkg / "__pycache__").exists()
    text = exe.read_text()
    # a launcher of the package (python3 -m), not an edit of sys.path
    assert "-m fabricbench_analysis" in text and "sys.path" not in text
    # Run it from elsewhere, without the source tree anywhere on the path.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    p = subprocess.run([str(exe), "summary", results.shm], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "peak Gb/s" in p.stdout
    p = subprocess.run([str(exe), "--version"], capture_output=True, text=True, env=env,
                       cwd=str(tmp_path), timeout=60)
    assert p.returncode == 0 and p.stdout.startswith("fabricbench-analyze")
    assert ANALYSIS not in text


def test_module_entry_point(results):
    """python3 -m fabricbench_analysis from the source tree works like the launcher."""
    import sys
    env = dict(os.environ, PYTHONPATH=ANALYSIS, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run([sys.executable, "-m", "fabricbench_analysis", "summary", results.tcp],
                       capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    assert "peak Gb/s" in p.stdout
