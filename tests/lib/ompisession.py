# SPDX-License-Identifier: BSD-3-Clause
"""An Open MPI session directory of this test's own.

Open MPI puts a job's session directory (its rendezvous files, shared-memory segments) under
orte_tmpdir_base, by default /tmp, named after the host, the user and a job family hashed from
mpirun's PID: two jobs that run at once on one machine can race for one name ("orte_session_dir
failed ... File exists"). Importing this module points every mpirun this process starts, and
every mpirun of its children (environments are inherited, Slurm jobs included), at a fresh
folder of its own, removed at exit; so the suite passes while other MPI jobs run here."""
import atexit
import os
import shutil
import tempfile

VAR = "OMPI_MCA_orte_tmpdir_base"

# Short (Unix socket paths under it must stay below 108 bytes), under the system's /tmp.
BASE = tempfile.mkdtemp(prefix="fbompi-", dir="/tmp")
atexit.register(shutil.rmtree, BASE, True)
os.environ[VAR] = BASE


def fresh():
    """A folder of its own under BASE for one mpirun: two mpiruns that one test starts at
    once (two runs meeting on one output, say) do not race for one session directory either."""
    return tempfile.mkdtemp(prefix="j", dir=BASE)
