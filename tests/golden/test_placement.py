#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Golden tests of `fabricbench placement` on hwloc XML topologies.

    test_placement.py FABRICBENCH GOLDEN_DIR

Each GOLDEN_DIR/hwloc/*.expected file is one case: its first line is the command's arguments
after `fabricbench`, its second the exit code, then the exact standard output, then (after a
line "# stderr") the exact standard error when there is one:

    # placement --topology two-socket-hca1.xml --device mlx5_0 --placement nic --ranks 4
    # exit 0
    placement on two-socket-hca1.xml: ...

The command runs in GOLDEN_DIR/hwloc, so a topology is named by its file name and the output
holds no path of this machine. JSON outputs must also parse. Then `fabricbench placement`
runs on this machine (no --topology), which must succeed whatever its hardware.
Standard library only.
"""
import json
import os
import shlex
import subprocess
import sys


def run(fab, args, cwd):
    p = subprocess.run([fab] + args, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=60)
    return p.returncode, p.stdout, p.stderr


def parse_case(path):
    with open(path) as f:
        lines = f.read().split("\n")
    if len(lines) < 3 or not lines[0].startswith("# ") or not lines[1].startswith("# exit "):
        raise ValueError("%s: the first lines must be '# ARGS' and '# exit N'" % path)
    args = shlex.split(lines[0][2:])
    code = int(lines[1][len("# exit "):])
    body = "\n".join(lines[2:])
    if "# stderr\n" in body:
        out, err = body.split("# stderr\n", 1)
    else:
        out, err = body, ""
    return args, code, out, err


def diff(name, want, got):
    w, g = want.split("\n"), got.split("\n")
    for i in range(max(len(w), len(g))):
        a = w[i] if i < len(w) else "<end>"
        b = g[i] if i < len(g) else "<end>"
        if a != b:
            return "%s line %d:\n  expected: %s\n  got:      %s" % (name, i + 1, a, b)
    return "%s differs" % name


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: test_placement.py FABRICBENCH GOLDEN_DIR")
    fab, golden = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    hdir = os.path.join(golden, "hwloc")
    cases = sorted(f for f in os.listdir(hdir) if f.endswith(".expected"))
    failures = []
    used = set()
    if len(cases) < 10:
        failures.append("only %d cases in %s" % (len(cases), hdir))
    for case in cases:
        args, code, want_out, want_err = parse_case(os.path.join(hdir, case))
        if args[:1] != ["placement"] or "--topology" not in args:
            failures.append("%s: not a `placement --topology FILE` case" % case)
            continue
        used.add(args[args.index("--topology") + 1])
        rc, out, err = run(fab, args, hdir)
        problems = []
        if rc != code:
            problems.append("exit %d, expected %d" % (rc, code))
        if out != want_out:
            problems.append(diff("stdout", want_out, out))
        if err != want_err:
            problems.append(diff("stderr", want_err, err))
        if "--json" in args and rc == 0:
            try:
                json.loads(out)
            except ValueError as e:
                problems.append("stdout is not JSON: %s" % e)
        print("%-40s %s" % (case, "ok" if not problems else "FAILED"))
        for p in problems:
            failures.append("%s: %s" % (case, p))
    for xml in sorted(f for f in os.listdir(hdir) if f.endswith(".xml")):
        if xml not in used:
            failures.append("%s: no case uses this topology" % xml)

    # This machine: auto (no NIC named) binds nothing and succeeds; with a NIC hwloc knows
    # here, policy nic succeeds too.
    rc, out, err = run(fab, ["placement"], hdir)
    if rc != 0 or not out.startswith("placement on this machine: policy none (asked auto)"):
        failures.append("this machine: exit %d\n%s%s" % (rc, out, err))
    rc, out, err = run(fab, ["placement", "--ranks", "3", "--json"], hdir)
    try:
        doc = json.loads(out)
        if rc != 0 or doc["topology"] is not None or len(doc["ranks"]) != 3:
            failures.append("this machine, --json: exit %d\n%s%s" % (rc, out, err))
        elif doc["nics"]:
            nic = doc["nics"][0]["name"]
            rc, out, err = run(fab, ["placement", "--ranks", "2", "--device", nic,
                                     "--placement", "nic", "--json"], hdir)
            doc = json.loads(out)
            if rc != 0 or doc["policy"] != "nic" or doc["nic"] != nic:
                failures.append("this machine, nic %s: exit %d\n%s%s" % (nic, rc, out, err))
            else:
                print("this machine: nic %s -> cpus %s" %
                      (nic, ", ".join(r["cpus"] for r in doc["ranks"])))
        else:
            print("this machine: hwloc knows no NIC here")
    except (ValueError, KeyError) as e:
        failures.append("this machine, --json: %s (exit %d)\n%s%s" % (e, rc, out, err))

    for f in failures:
        print("FAILED: " + f)
    print("%d cases, %d failures" % (len(cases), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
