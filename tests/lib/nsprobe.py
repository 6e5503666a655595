# SPDX-License-Identifier: BSD-3-Clause
"""Can this machine build a virtual cluster (tests/lib/vcluster.sh) at all?

Being root is not enough: a container without CAP_SYS_ADMIN (or with a seccomp profile that
forbids unshare) cannot create namespaces, and `vcluster.sh up` would fail. The tests that
build a cluster (tests/cluster, tests/slurm) ask here first and skip (exit 77) with the
reason instead of failing. Imports nothing beyond the standard library, so that a skip needs
no other package."""
import subprocess


def namespace_problem():
    """None when this process may create the namespaces vcluster.sh uses (network, UTS, and
    mount for commands run in a node), else why not, in words. Needs unshare (util-linux):
    check that it is installed first."""
    try:
        p = subprocess.run(["unshare", "--net", "--uts", "--mount", "true"],
                           capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return "cannot create namespaces here (unshare --net --uts --mount: %s)" % e
    if p.returncode != 0:
        err = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
        return ("cannot create namespaces here (unshare --net --uts --mount: %s; no "
                "CAP_SYS_ADMIN in this container?)" % err)
    return None
