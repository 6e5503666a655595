# SPDX-License-Identifier: BSD-3-Clause
"""The UCP kernels (ucp_tag_lat ... ucp_cswap_lat, src/ucp/): every kernel with --validate on 2
ranks and on 4 (the pair 0,1 and the pair 2,3), over the environment's transports and over
--ucp-tls tcp,self; their rows, semantics and description (UCX_TLS, the lanes) read back from
the HDF5 file with h5py; ucp_get_lat's target passive over shared memory, not over TCP; a
context or endpoint UCX cannot make (each rank says what failed, its rank and host, what to
try); a validation failure reaching the exit code; and the watchdog naming the UCP wait of a
rank whose peer was stopped.

usage: test_ucp.py FABRICBENCH"""
import os
import signal
import subprocess
import sys
import time

import h5py

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
import fabtest  # noqa: E402
from fabtest import (check, direct, enter_scratch, expect, h5_kernels, mpi_env, mpirun,  # noqa: E402
                     mpirun_cmd, text_lines)

enter_scratch()
exe = sys.argv[1]

LAT = ("ucp_tag_lat", "ucp_put_lat", "ucp_am_lat")  # ping-pongs, half the round trip
WHOLE = ("ucp_get_lat",)  # one operation and its completion, the whole round trip
BW = ("ucp_tag_bw", "ucp_put_bw", "ucp_get_bw", "ucp_am_bw")
AMO = ("ucp_add_lat", "ucp_fadd_lat", "ucp_swap_lat", "ucp_cswap_lat")  # 8 bytes, whole
PERFTEST = {"ucp_tag_lat": "tag_lat", "ucp_put_lat": "ucp_put_lat",
            "ucp_am_lat": "ucp_am_lat", "ucp_tag_bw": "tag_bw", "ucp_put_bw": "ucp_put_bw",
            "ucp_get_bw": "ucp_get", "ucp_get_lat": "ucp_get", "ucp_am_bw": "ucp_am_bw",
            "ucp_add_lat": "ucp_add", "ucp_fadd_lat": "ucp_fadd",
            "ucp_swap_lat": "ucp_swap", "ucp_cswap_lat": "ucp_cswap"}


def check_run(path, names, sizes, tls, described=True):
    """Rows present and validated, semantics and description as the kernel says."""
    ks = h5_kernels(path)
    check(sorted(ks) == sorted(names), "%s: kernels %s, not %s" % (path, sorted(ks), names))
    for name, (attrs, t) in ks.items():
        where = "%s (%s)" % (name, path)
        lat = 1.0 if name in LAT else 0.0
        expect(list(t["bytes"]) == list(sizes), "%s: sizes %s" % (where, list(t["bytes"])))
        expect(all(e == 0 for e in t["validation_errors"]), "%s: validation errors %s"
               % (where, list(t["validation_errors"])))
        expect(all(v == 1.0 for v in t["includes_remote_completion"]),
               "%s: includes_remote_completion %s" % (where, list(t["includes_remote_completion"])))
        for col in ("halved_round_trip", "ping_pong"):
            expect(all(v == lat for v in t[col]), "%s: %s %s, want %s"
                   % (where, col, list(t[col]), lat))
        expect(all(v > 0 for v in t["p50_us"]), "%s: p50_us %s" % (where, list(t["p50_us"])))
        if not described:  # the description is rank 0's, which is not in the pair
            continue
        detail = attrs.get("detail", "")
        for word in ("ucx_perftest -t %s" % PERFTEST[name], "UCX_TLS %s" % tls, "lanes "):
            expect(word in detail, "%s: detail lacks '%s': %s" % (where, word, detail))
        expect("lanes unknown" not in detail, "%s: lanes not found: %s" % (where, detail))
        expect(("half the round trip" if lat else "whole iterations") in detail,
               "%s: detail's semantics: %s" % (where, detail))


def run(np_, names, sizes, extra=(), path="r.h5", tls=None, described=True):
    args = [exe, "run", ",".join(names), "-m", ",".join(str(s) for s in sizes), "-i", "20",
            "-w", "4", "--validate", "-o", path, "--force"] + list(extra)
    if tls:
        args += ["--ucp-tls", tls]
    p = mpirun(np_, args)
    check(p.returncode == 0, "%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stderr))
    check_run(path, names, sizes, tls or "", described)
    return p


# Every kernel on 2 ranks: an eager size, one past UCX's rendezvous threshold on shared memory.
run(2, list(LAT + WHOLE + BW), [1, 4096, 262144])
# The atomics, on one 64-bit word (8 bytes, their default), over shared memory and TCP.
run(2, list(AMO), [8], path="amo.h5")
run(2, list(AMO), [8], tls="tcp,self", path="amotcp.h5")
# Over TCP (the kernels' context alone; MPI keeps its transports).
run(2, ["ucp_tag_lat", "ucp_put_lat", "ucp_get_lat", "ucp_put_bw", "ucp_get_bw", "ucp_am_bw"],
    [8, 65536], tls="tcp,self", path="tcp.h5")
# ucp_get_lat's target: passive where every lane that serves gets is shared memory or RDMA
# (UCX names posix's as one by its put[0]/get[0] lines, not on the lane's line), so rank 1
# does nothing, as ucx_perftest's; over TCP it must progress, and is told each get's end.
run(2, ["ucp_get_lat"], [8, 65536], tls="posix,self", path="passive.h5")
for path, words in (("passive.h5", ("rank 1 passive", "lanes posix/memory[rma")),
                    ("tcp.h5", ("which progresses meanwhile", "lanes tcp/"))):
    detail = h5_kernels(path)["ucp_get_lat"][0].get("detail", "")
    for w in words:
        expect(w in detail, "ucp_get_lat (%s): detail lacks '%s': %s" % (path, w, detail))

# 4 ranks: the pair measured, the others idle; a pair other than 0,1.
run(4, ["ucp_tag_lat", "ucp_put_bw"], [8, 1024])
p = run(4, ["ucp_put_lat", "ucp_get_bw", "ucp_am_lat"], [8], ["--pair", "2,3"], described=False)
expect("2 (" in p.stdout and "3 (" in p.stdout, "the pair 2,3 is not named:\n" + p.stdout)

# --ucp-same-buffer: ucx_perftest's layout (every operation of the window at one place), the
# data still validated; the detail says which layout a row had; a kernel that spreads nothing
# is warned that the option has no effect for it.
for same in (False, True):
    run(2, ["ucp_put_bw", "ucp_get_bw"], [8, 65536], ["--ucp-same-buffer"] if same else [],
        path="same.h5", tls="tcp,self" if same else None)
    for name, (attrs, t) in h5_kernels("same.h5").items():
        want = "at one place (--ucp-same-buffer" if same else "spread over the window"
        expect(want in attrs.get("detail", ""), "%s, same buffer %s: detail %s"
               % (name, same, attrs.get("detail")))
p = mpirun(2, [exe, "run", "ucp_tag_bw", "-m", "8", "-i", "10", "--ucp-same-buffer"])
expect(p.returncode == 0 and "--ucp-same-buffer is an option of kernels 'ucp_put_bw', "
       "'ucp_get_bw', which this run does not measure" in p.stderr,
       "ucp_tag_bw --ucp-same-buffer: exit %d\n%s" % (p.returncode, p.stderr))

# The table: the header names the perftest test and the lanes.
p = mpirun(2, [exe, "run", "ucp_tag_lat", "-m", "8", "-i", "10"])
check(p.returncode == 0, "ucp_tag_lat: exit %d\n%s" % (p.returncode, p.stderr))
head = "\n".join(text_lines(p.stdout))
expect("ucx_perftest -t tag_lat" in head and "lanes " in head, "header:\n" + p.stdout)
expect("one way" in [ln for ln in head.splitlines() if ln.startswith("# lat_us")][0], "ucp_tag_lat's header is not one way:\n" + head)
# A whole-round-trip kernel's header does not call its times one way.
p = mpirun(2, [exe, "run", "ucp_get_lat,ucp_add_lat", "-m", "8", "-i", "10"])
check(p.returncode == 0, "ucp_get_lat: exit %d\n%s" % (p.returncode, p.stderr))
heads = [ln for ln in p.stdout.splitlines() if ln.startswith("# lat_us")]
expect(len(heads) == 2 and all("one way" not in h and "whole" in h for h in heads),
       "whole kernels' lat_us headers: %s" % heads)

# The family: `run ucp` runs the twelve kernels in `list`'s order.
p = mpirun(2, [exe, "run", "ucp", "-m", "8", "-i", "5", "-o", "fam.h5", "--force"])
check(p.returncode == 0, "run ucp: exit %d\n%s" % (p.returncode, p.stderr))
fam = [ln.split()[0] for ln in direct([exe, "list"]).stdout.splitlines()
       if ln.startswith("ucp_")]
ran = [ln.split()[2].rstrip(":") for ln in p.stdout.splitlines() if ln.startswith("# kernel: ")]
expect(len(fam) == 12 and ran == fam and sorted(h5_kernels("fam.h5")) == sorted(fam),
       "run ucp ran %s, list has %s" % (ran, fam))

# An atomic of another size is refused before anything is measured (exit 2).
p = mpirun(2, [exe, "run", "ucp_fadd_lat", "-m", "8,16", "-i", "10"])
expect(p.returncode == 2, "ucp_fadd_lat -m 8,16: exit %d, not 2\n%s" % (p.returncode, p.stderr))
for w in ("64-bit word", "16 bytes", "-m 8"):
    expect(w in p.stderr, "ucp_fadd_lat -m 16: message lacks '%s':\n%s" % (w, p.stderr))

# What UCX cannot make: a context without transports, an endpoint nothing reaches. Each rank
# says what failed, its rank and host (the log's prefix) and what to try; exit 3.
for tls, words in (("nosuchtransport", ("UCX could not create its context", "ucp_init")),
                   ("self", ("UCX could not make an endpoint", "ucp_ep_create"))):
    p = mpirun(2, [exe, "run", "ucp_tag_lat", "-m", "8", "-i", "10", "--ucp-tls", tls])
    expect(p.returncode == 3, "--ucp-tls %s: exit %d, not 3\n%s" % (tls, p.returncode, p.stderr))
    for w in words + ("--ucp-tls", "ucx_info -d", "transports: %s" % tls, "[rank "):
        expect(w in p.stderr, "--ucp-tls %s: message lacks '%s':\n%s" % (tls, w, p.stderr))

# A validation failure reaches the table and the exit code (every check finds one bad byte).
p = mpirun(2, [exe, "run", "ucp_tag_lat,ucp_put_bw,ucp_cswap_lat", "-m", "8", "-i", "10",
                "--validate"],
           env={"FABRICBENCH_TEST_CORRUPT": "1"})
expect(p.returncode != 0, "corrupted validation passed: exit 0\n" + p.stdout)
expect("did not match" in p.stderr, "no validation error:\n" + p.stderr)

# The watchdog: rank 1 stopped for good; rank 0 names it and the UCP wait it is in. Rank 0
# spends nearly all its time there, but may be stopped between blocks (an MPI agreement):
# then the message names no UCP wait, and the test stops rank 1 in another run (3 tries).
def stall_once(path):
    cmd = mpirun_cmd(2) + [exe, "run", "ucp_tag_lat", "-m", "8:64K", "-t", "0.3",
                           "--stall-timeout", "5", "-o", path]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=mpi_env())
    deadline, rows = time.monotonic() + 180, 0
    while time.monotonic() < deadline and proc.poll() is None and rows < 2:
        try:
            with h5py.File(path, "r") as f:
                rows = sum(len(k["table/bytes"]) for k in f["runs/run_0000/kernels"].values())
        except (OSError, KeyError):
            pass
        time.sleep(0.1)
    check(rows >= 2, "no 2 rows of ucp_tag_lat within 180 s (exit %s)" % proc.poll())
    pids = fabtest.rank_pids(exe, path)
    check(len(pids) == 2, "ranks: %r" % pids)
    os.kill(pids[1], signal.SIGSTOP)
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
        check(False, "the job did not end within 60 s of the stop:\n" + err[-2000:])
    finally:
        try:
            os.kill(pids[1], signal.SIGKILL)
        except ProcessLookupError:
            pass
    check(proc.returncode == 3, "stopped rank: exit %d\n%s" % (proc.returncode, err[-2000:]))
    for w in ("stalled", "ucp_tag_lat", "rank 1 ("):
        check(w in err, "stall message lacks '%s':\n%s" % (w, err[-2000:]))
    return err


for i in range(3):
    err = stall_once("stop%d.h5" % i)
    if "waiting in ucp_" in err:
        break
expect("waiting in ucp_" in err, "no stall named a UCP wait in 3 tries:\n" + err[-2000:])
