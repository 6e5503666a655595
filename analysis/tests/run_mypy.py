# SPDX-License-Identifier: BSD-3-Clause
"""ctest analysis.mypy: mypy over the analysis package with the committed configuration
(analysis/pyproject.toml, [tool.mypy]). Not a pytest module (no test_ prefix).

usage: run_mypy.py ANALYSIS_DIR [CACHE_DIR]
Exit 0 when mypy finds nothing; 1 when it finds errors or is not installed (the message says
to install python3-mypy, which `scripts/quickstart.sh test` installs)."""
import os
import subprocess
import sys


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.rsplit("\n\n", 1)[-1], file=sys.stderr)
        return 2
    analysis = os.path.abspath(argv[1])
    try:
        import mypy  # noqa: F401
    except ImportError:
        print("analysis.mypy: mypy is not installed for %s: apt-get install python3-mypy "
              "(scripts/quickstart.sh test installs it)" % sys.executable, file=sys.stderr)
        return 1
    cmd = [sys.executable, "-m", "mypy", "--config-file",
           os.path.join(analysis, "pyproject.toml")]
    if len(argv) == 3:
        cmd += ["--cache-dir", argv[2]]
    cmd.append(os.path.join(analysis, "fabricbench_analysis"))
    p = subprocess.run(cmd, cwd=analysis)
    return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
