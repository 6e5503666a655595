# SPDX-License-Identifier: BSD-3-Clause
"""Golden tests of `fabricbench inventory`.

usage: test_inventory.py FABRICBENCH GOLDEN_DIR

For every fixture tree GOLDEN_DIR/sysfs/NAME (a copy of the parts of /sys the inventory
reads), `fabricbench inventory --json --sysfs-root sysfs/NAME`, run in GOLDEN_DIR, must print
exactly GOLDEN_DIR/sysfs/NAME.expected.json: the same values and the same key order. The root
is printed as given, so a relative root keeps the expected files free of this machine's paths.
Also: the text form names every device and interface, a missing or wrong root exits 3 with a
message naming it, and this machine's own inventory is valid JSON with the loopback interface.
"""
import difflib
import json
import os
import shutil
import subprocess
import sys
import tempfile

REQUIRED = ["cx6-ib", "cx6dx-roce", "erdma", "port-down", "eth-vm"]
FAILURES = []


def check(cond, msg):
    if not cond:
        FAILURES.append(msg)
        print("FAIL: " + msg)
    return cond


def run(tool, args, cwd, env_extra=None):
    env = dict(os.environ)
    env.pop("FABRICBENCH_SYSFS_ROOT", None)
    if env_extra:
        env.update(env_extra)
    return subprocess.run([tool, "inventory"] + args, cwd=cwd, capture_output=True, text=True,
                          timeout=30, env=env)


def ordered(text):
    """The JSON with objects as lists of (key, value) pairs: equality then checks key order."""
    return json.loads(text, object_pairs_hook=lambda pairs: pairs)


def diff(expected, actual, name):
    a = json.dumps(expected, indent=2).splitlines()
    b = json.dumps(actual, indent=2).splitlines()
    return "\n".join(difflib.unified_diff(a, b, name + ".expected.json", "fabricbench output",
                                          lineterm=""))


def check_fixture(tool, golden, name):
    exp_path = os.path.join(golden, "sysfs", name + ".expected.json")
    if not check(os.path.exists(exp_path), "%s: no expected file %s" % (name, exp_path)):
        return
    with open(exp_path) as f:
        exp_text = f.read()
    expected = json.loads(exp_text)

    r = run(tool, ["--json", "--sysfs-root", "sysfs/" + name], golden)
    if not check(r.returncode == 0, "%s: exit %d, stderr: %s" % (name, r.returncode, r.stderr)):
        return
    check(r.stderr == "", "%s: unexpected stderr: %r" % (name, r.stderr))
    try:
        actual = json.loads(r.stdout)
    except ValueError as e:
        check(False, "%s: not JSON (%s):\n%s" % (name, e, r.stdout))
        return
    if not check(actual == expected, "%s: JSON differs from the expected file:\n%s" %
                 (name, diff(expected, actual, name))):
        return
    check(ordered(r.stdout) == ordered(exp_text), "%s: same values, different key order" % name)
    check(r.stdout.startswith('{\n  "sysfs_root": '), "%s: not indented by 2 spaces" % name)

    # The same through the environment variable, and with an absolute root (printed as given).
    r2 = run(tool, ["--json"], golden, {"FABRICBENCH_SYSFS_ROOT": "sysfs/" + name})
    check(r2.returncode == 0 and json.loads(r2.stdout) == expected,
          "%s: FABRICBENCH_SYSFS_ROOT gives another result" % name)
    absroot = os.path.join(os.path.abspath(golden), "sysfs", name)
    r3 = run(tool, ["--json", "--sysfs-root", absroot], "/")
    if check(r3.returncode == 0, "%s: absolute root: exit %d" % (name, r3.returncode)):
        got = json.loads(r3.stdout)
        check(got["sysfs_root"] == absroot, "%s: root not printed as given" % name)
        got["sysfs_root"] = expected["sysfs_root"]
        check(got == expected, "%s: an absolute root changes the inventory" % name)

    # The text form names every device, port class and interface.
    t = run(tool, ["--sysfs-root", "sysfs/" + name], golden)
    if not check(t.returncode == 0, "%s: text form exit %d" % (name, t.returncode)):
        return
    for d in expected["rdma_devices"]:
        check(d["name"] in t.stdout, "%s: text form lacks device %s" % (name, d["name"]))
        for p in d["ports"]:
            check(p["class"] in t.stdout, "%s: text form lacks class %s" % (name, p["class"]))
    for n in expected["net_interfaces"]:
        check(n["name"] in t.stdout, "%s: text form lacks interface %s" % (name, n["name"]))
    if not expected["rdma_devices"]:
        check("RDMA devices: none" in t.stdout, "%s: text form does not say no RDMA" % name)
    last = t.stdout.rstrip("\n").splitlines()[-1]
    check(last.startswith("Notes: "), "%s: text form does not end with the notes" % name)
    if expected["note"]:
        check(expected["note"] in last, "%s: text notes differ from the JSON note" % name)


def check_sensitivity(tool, golden, scratch):
    """A changed fixture gives another inventory (the comparison can fail)."""
    tree = os.path.join(scratch, "roce")
    shutil.copytree(os.path.join(golden, "sysfs", "cx6dx-roce"), tree, symlinks=True)
    speed = os.path.join(tree, "sys", "class", "net", "ens1f0", "speed")
    with open(speed, "w") as f:
        f.write("25000\n")
    gid3 = os.path.join(tree, "sys", "class", "infiniband", "mlx5_0", "ports", "1", "gids", "3")
    with open(gid3, "w") as f:
        f.write("0000:0000:0000:0000:0000:0000:0000:0000\n")
    r = run(tool, ["--json", "--sysfs-root", tree], "/")
    if check(r.returncode == 0, "modified fixture: exit %d" % r.returncode):
        port = json.loads(r.stdout)["rdma_devices"][0]["ports"][0]
        check(port["data_gbps"] == 25, "modified fixture: data_gbps %r, wanted 25 (netdev speed)"
              % port["data_gbps"])
        check(port["rocev2_gid_index"] == 1,
              "modified fixture: RoCE v2 index %r, wanted 1 (the IPv4-mapped 3 is now empty, "
              "link-local 1 is what is left)" % port["rocev2_gid_index"])


def check_roce_gid(tool, golden):
    """--fabric roce asks UCX for the IPv4-mapped RoCE v2 GID (3), not the link-local one (1),
    and a UCX_IB_GID_INDEX the user set stands (the profile says ?=)."""
    tree = os.path.join(golden, "sysfs", "cx6dx-roce")
    r = run(tool, ["--fabric", "roce", "--sysfs-root", tree], "/")
    check(r.returncode == 0 and "UCX_IB_GID_INDEX=3" in r.stdout,
          "roce profile GID: exit %d: %s %s" % (r.returncode, r.stdout, r.stderr))
    r = run(tool, ["--fabric", "roce", "--sysfs-root", tree], "/", {"UCX_IB_GID_INDEX": "0"})
    check(r.returncode == 0 and "UCX_IB_GID_INDEX=0 (from the environment)" in r.stdout and
          "UCX_IB_GID_INDEX=3" not in r.stdout and "rocev2_gid_index: 0\n" in r.stdout,
          "the user's UCX_IB_GID_INDEX must stand: %s %s" % (r.stdout, r.stderr))


def check_bad_roots(tool, scratch):
    missing = os.path.join(scratch, "does-not-exist")
    r = run(tool, ["--json", "--sysfs-root", missing], "/")
    check(r.returncode == 3, "missing root: exit %d, wanted 3" % r.returncode)
    check(missing in r.stderr, "missing root: message does not name it: %r" % r.stderr)
    check("--sysfs-root" in r.stderr, "missing root: message does not say what to do")
    check(r.stdout == "", "missing root: printed on stdout: %r" % r.stdout)

    empty = os.path.join(scratch, "empty")
    os.mkdir(empty)
    r = run(tool, ["--sysfs-root", empty], "/")
    check(r.returncode == 3, "root without sys/class/net: exit %d, wanted 3" % r.returncode)
    check(empty in r.stderr and "sys/class/net" in r.stderr,
          "root without sys/class/net: message: %r" % r.stderr)

    r = run(tool, [], "/", {"FABRICBENCH_SYSFS_ROOT": missing})
    check(r.returncode == 3 and missing in r.stderr,
          "FABRICBENCH_SYSFS_ROOT missing: exit %d, %r" % (r.returncode, r.stderr))


def check_this_machine(tool):
    r = run(tool, ["--json"], "/")
    if not check(r.returncode == 0, "this machine: exit %d: %s" % (r.returncode, r.stderr)):
        return
    check(r.stderr == "", "this machine: something on stderr (libibverbs?): %r" % r.stderr)
    try:
        inv = json.loads(r.stdout)
    except ValueError as e:
        check(False, "this machine: not JSON (%s)" % e)
        return
    check(inv["sysfs_root"] == "/", "this machine: root %r" % inv["sysfs_root"])
    check(inv["source"] in ("sysfs", "sysfs+libibverbs"), "this machine: source %r" % inv["source"])
    names = [n["name"] for n in inv["net_interfaces"]]
    check("lo" in names, "this machine: no lo in %s" % names)
    real = sorted(os.listdir("/sys/class/net"))
    check(sorted(names) == real[:64], "this machine: interfaces %s, sysfs has %s" % (names, real))
    for n in inv["net_interfaces"]:
        if n["name"] == "lo":
            check(n["loopback"] is True, "this machine: lo is not marked loopback")
    ib = "/sys/class/infiniband"
    devs = sorted(os.listdir(ib)) if os.path.isdir(ib) else []
    got = sorted(d["name"] for d in inv["rdma_devices"])
    check(got == devs, "this machine: RDMA devices %s, sysfs has %s" % (got, devs))
    t = run(tool, [], "/")
    check(t.returncode == 0 and "lo" in t.stdout, "this machine: text form failed")
    check(t.stderr == "", "this machine: text form wrote on stderr: %r" % t.stderr)


def main():
    tool = os.path.abspath(sys.argv[1])
    golden = os.path.abspath(sys.argv[2])
    sysfs = os.path.join(golden, "sysfs")
    trees = sorted(e for e in os.listdir(sysfs) if os.path.isdir(os.path.join(sysfs, e)))
    for name in REQUIRED:
        check(name in trees, "fixture %s is missing" % name)
    for name in trees:
        check_fixture(tool, golden, name)
        print("fixture %s: checked" % name)
    scratch = tempfile.mkdtemp(prefix="fabtest-inventory-")
    try:
        check_sensitivity(tool, golden, scratch)
        check_roce_gid(tool, golden)
        check_bad_roots(tool, scratch)
    finally:
        shutil.rmtree(scratch, True)
    check_this_machine(tool)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("golden.inventory: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
