# SPDX-License-Identifier: BSD-3-Clause
"""No secret of the environment reaches any output (docs/SCHEMA.md, "The recorded environment").

One run under mpirun (latency, 8 B, 10 iterations) with every output at once: the HDF5 file,
JSON Lines, CSV, the JSON document and the Prometheus textfile, and a fabric profile of its own
whose settings keep values from the environment (`?=`). Its environment carries secret-bearing
variables of the kinds a cluster has: Slurm's token, tokens under other Slurm names, Slurm's
--export list, Open MPI's env list (AWS keys), ssh's identity in plm_rsh_args and
plm_rsh_agent, srun's arguments, the job's transport key (orte_precondition_transports), UCX
variables that name a key file or an identity, a command for UCX, a mail address, and allowed
names whose values carry a secret. The test then reads every output back (h5py: every attribute
and dataset; the text files whole; `fabricbench show`; standard output and error) and checks
that no secret value is anywhere, that no refused name is recorded, that allowed variables with
a secret-looking value are recorded as withheld, and that the allowed ones are recorded as
they are.

The Slurm variables and the launch-agent parameters reach the ranks through `env` on mpirun's
command line, so that mpirun itself neither believes it runs under Slurm nor uses them.

usage: test_secrets.py FABRICBENCH"""
import json
import os
import secrets
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from fabtest import check, enter_scratch, mpi_env, mpirun_cmd  # noqa: E402

enter_scratch()  # result files by relative names land in the test's own scratch directory

exe = sys.argv[1]
WITHHELD = "(withheld: the value looks like a secret)"
tag = secrets.token_hex(4)


def mark(i):
    """A value nobody else would write: what the outputs are searched for."""
    return "fabsec%02d%s" % (i, tag)


jwt_tail = mark(1)
key = "%s-%s" % (secrets.token_hex(8), secrets.token_hex(8))
# name -> value: none of these values (nor the markers in them) may reach any output
SECRET = {
    "SLURM_JWT": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJyb290In0." + jwt_tail,
    "SLURM_ACCESS_TOKEN": mark(2),
    "SLURMRESTD_TOKEN": mark(3),
    "SLURM_EXPORT_ENV": "ALL,GITHUB_TOKEN=" + mark(4),
    "OMPI_MCA_mca_base_env_list": "AWS_SECRET_ACCESS_KEY=%s;AWS_SESSION_TOKEN=%s" % (mark(5),
                                                                                   mark(6)),
    "OMPI_MCA_plm_rsh_args": "-i /root/.ssh/id_rsa_" + mark(7),
    "OMPI_MCA_plm_rsh_agent": "ssh -i /etc/ssh/%s_key -o BatchMode=yes" % mark(8),
    "OMPI_MCA_plm_slurm_args": "--export=ALL,DB_PASSWORD=" + mark(9),
    "OMPI_MCA_orte_precondition_transports": key,
    "UCX_SSL_KEY_FILE": "/etc/ssl/private/%s.key" % mark(10),
    "UCX_GDB_COMMAND": "gdb -x /root/%s.gdb" % mark(11),
    "UCX_ERROR_MAIL_TO": "%s@example.org" % mark(12),
    "AWS_SECRET_ACCESS_KEY": mark(13),
    "DB_PASSWORD": mark(14),
}
# allowed names whose values carry a secret: recorded, the value withheld
WITHHOLD = {
    "UCX_FABTEST_IDENTITY": "/root/.ssh/%s_ed25519" % mark(15),  # the profile's ?= too
    "OMPI_MCA_fabtest_label": "run AWS_SECRET_ACCESS_KEY=" + mark(16),
    "SLURM_STEP_ID": "0 API_TOKEN=" + mark(17),  # also the slurm_step_id attribute
    "UCX_FABTEST_CA": "/etc/pki/fabric/%s.pem" % mark(18),
    "SLURM_JOB_PARTITION": "eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0." + mark(19),
}
# allowed, recorded as they are
ALLOWED = {
    "SLURM_JOB_ID": "4242",
    "SLURM_NTASKS": "2",
    "SLURM_JOB_NODELIST": "node[01-02]",
    "SLURM_CPUS_PER_TASK": "1",
    "SLURM_JOB_NUM_NODES_HET_GROUP_0": "1",
    "UCX_IB_PKEY": "0x7fff",
    "UCX_FABTEST_SETTING": "ppr:2:node:pe=2",
}
# set, not secret, but not on the allow-list: not recorded
REFUSED_NAMES = ("SLURM_JOB_USER", "SLURM_SUBMIT_DIR", "SLURM_SRUN_COMM_HOST")
VIA_ENV = [k for k in list(SECRET) + list(WITHHOLD) + list(ALLOWED) + list(REFUSED_NAMES)
           if k.startswith(("SLURM", "OMPI_MCA_plm_rsh_agent", "OMPI_MCA_plm_slurm"))]
values = dict(SECRET, **WITHHOLD, **ALLOWED, SLURM_JOB_USER="bob",
              SLURM_SUBMIT_DIR="/home/bob", SLURM_SRUN_COMM_HOST="10.0.0.1")

with open("fabsec.conf", "w") as f:
    f.write("[fabsec]\nmatch = local\ndescription = shared memory, settings from the "
            "environment\nUCX_TLS = sm,self\nUCX_FABTEST_IDENTITY ?= /nonexistent\n"
            "OMPI_MCA_plm_rsh_args ?= -x\nexpect = sysv,posix,cma\n")
env = {k: v for k, v in values.items() if k not in VIA_ENV}
wrap = ["env"] + ["%s=%s" % (k, values[k]) for k in VIA_ENV]
cmd = (mpirun_cmd(2) + wrap +
       [exe, "run", "latency", "-m", "8", "-i", "10", "--fabrics-file", "fabsec.conf",
        "--fabric", "fabsec", "-o", "s.h5", "--json", "s.jsonl", "--csv", "s.csv",
        "--json-doc", "s.json", "--prom", "s.prom"])
p = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=mpi_env(env))
check(p.returncode == 0, "run: exit %d\n%s\n%s" % (p.returncode, p.stdout, p.stderr[-3000:]))
show = subprocess.run([exe, "show", "s.h5"], capture_output=True, text=True, timeout=60)
check(show.returncode == 0, "show: exit %d: %s" % (show.returncode, show.stderr))


def h5_strings(path):
    """Every attribute and dataset value of the file as text, with the object's name."""
    out = []

    def text(v):
        if isinstance(v, bytes):
            return v.decode("utf-8", "replace")
        if isinstance(v, np.ndarray):
            return " ".join(text(x) for x in v.ravel().tolist())
        return str(v)

    def visit(name, obj):
        for k, v in obj.attrs.items():
            out.append(("%s@%s" % (name, k), "%s=%s" % (k, text(v))))
        if isinstance(obj, h5py.Dataset):
            out.append((name, text(obj[()])))

    with h5py.File(path, "r") as f:
        visit("/", f)
        f.visititems(visit)
    return out


places = [("stdout", p.stdout), ("stderr", p.stderr), ("show", show.stdout + show.stderr)]
for name in ("s.jsonl", "s.csv", "s.json", "s.prom", "s.h5"):
    with open(name, "rb") as f:
        places.append((name, f.read().decode("utf-8", "replace")))
places += [("s.h5 " + n, t) for n, t in h5_strings("s.h5")]
needles = [v for v in list(SECRET.values()) + list(WITHHOLD.values())]
needles += [mark(i) for i in range(1, 20)]
leaks = ["%s: %s" % (where, n) for where, text in places for n in needles if n in text]
check(not leaks, "secrets in the outputs:\n" + "\n".join(leaks[:20]))

with h5py.File("s.h5", "r") as f:
    run = f["runs/run_0000"]
    recorded = {k: (v.decode() if isinstance(v, bytes) else v) for k, v in run["env"].attrs.items()}
    attrs = dict(run.attrs)
with open("s.jsonl") as f:
    jenv = json.loads(f.readline())["env"]
with open("s.json") as f:
    denv = json.load(f)["runs"][0]["run"]["env"]
check(recorded == jenv == denv, "HDF5, JSON Lines and the JSON document record different "
      "environments:\n%s\n%s\n%s" % (recorded, jenv, denv))
for k in list(SECRET) + list(REFUSED_NAMES):
    check(k not in recorded, "%s recorded: %r" % (k, recorded.get(k)))
for k in WITHHOLD:
    check(recorded.get(k) == WITHHELD, "%s: %r, not withheld" % (k, recorded.get(k)))
for k, v in ALLOWED.items():
    check(recorded.get(k) == v, "%s: %r recorded, set to %r" % (k, recorded.get(k), v))
check(recorded.get("OMPI_MCA_pml") == "ucx" and recorded.get("UCX_TLS") == "sm,self" and
      recorded.get("OMPI_MCA_mpi_yield_when_idle") == "1",
      "the run's own settings are recorded: %s" % recorded)
check(attrs["slurm_job_id"] == "4242" and attrs["slurm_nodelist"] == "node[01-02]" and
      attrs["slurm_step_id"] == WITHHELD, "Slurm attributes: %s %s %s" % (
          attrs["slurm_job_id"], attrs["slurm_nodelist"], attrs["slurm_step_id"]))
fenv = attrs["fabric_env"]
check("UCX_FABTEST_IDENTITY=%s (from the environment)" % WITHHELD in fenv and
      "OMPI_MCA_plm_rsh_args=(not recorded) (from the environment)" in fenv and
      "UCX_TLS=sm,self" in fenv, "fabric_env: %s" % fenv)
print("ok %d secret-bearing variables: no value in HDF5 (%d attributes and datasets), JSON "
      "Lines, CSV, the JSON document, the textfile, show, stdout, stderr; %d withheld, %d "
      "allowed recorded as set" % (len(SECRET), sum(1 for w, _ in places if w.startswith("s.h5 ")),
                                   len(WITHHOLD), len(ALLOWED)))
