# SPDX-License-Identifier: BSD-3-Clause
"""ctest analysis.inputs (FIXTURES_SETUP analysis_inputs): the analysis tests' input files,
made once for every analysis.pytest.* test (inputs.py). Not a pytest module.

usage: make_inputs.py DIR   (the fabricbench binary from $FABRICBENCH, as pytest takes it)
DIR is emptied first; DIR/inputs.json is written last, once every file is there. Exit 0, or 1
with what failed."""
import os
import shutil
import sys
import time

import inputs


def main(argv):
    if len(argv) != 2:
        print(__doc__.rsplit("\n\n", 1)[-1], file=sys.stderr)
        return 2
    fb = os.environ.get("FABRICBENCH")
    if not fb or not (os.path.isfile(fb) and os.access(fb, os.X_OK)):
        print("make_inputs.py: FABRICBENCH=%s is not an executable file (ctest sets it to the "
              "build's fabricbench)" % fb, file=sys.stderr)
        return 1
    if shutil.which("mpirun") is None:
        print("make_inputs.py: mpirun is not on PATH (apt-get install openmpi-bin)",
              file=sys.stderr)
        return 1
    d = os.path.abspath(argv[1])
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    t0 = time.monotonic()
    try:
        spent = inputs.make_all(os.path.abspath(fb), d)
    except inputs.InputError as e:
        print("FAIL: %s" % e)
        return 1
    print("ok the analysis tests' inputs in %s, %.1f s (%s)" % (
        d, time.monotonic() - t0, ", ".join("%s %.1f s" % kv for kv in spent.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
