#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Write the hwloc XML fixture topologies of the placement golden tests.

    /usr/bin/python3 make_topologies.py [OUTDIR]     (default: this script's directory)

Each topology is described below as data (packages, NUMA nodes, cores, threads, caches, PCI
devices, NUMA distances) and written in hwloc's XML v2 format, as `lstopo file.xml` would
export it with I/O devices kept. The layouts follow real machines (README.md in this
directory says which, and what was cut down); check a change with
`lstopo --input FILE.xml --of console -p --whole-io` and `hwloc-calc --input FILE.xml ...`.
Standard library only.
"""
import os
import sys
from xml.sax.saxutils import quoteattr

MIB = 1024 * 1024
GIB = 1024 * MIB


def mask(bits):
    """hwloc's XML bitmap form: 32-bit hex words, most significant first."""
    if not bits:
        return "0x0"
    value = 0
    for b in bits:
        value |= 1 << b
    words = []
    while value:
        words.append(value & 0xFFFFFFFF)
        value >>= 32
    return ",".join("0x%08x" % w for w in reversed(words))


class Writer:
    def __init__(self):
        self.lines = []
        self.gp = 0

    def gp_index(self):
        self.gp += 1
        return self.gp

    def open(self, depth, attrs, infos=(), empty=False):
        text = "  " * depth + "<object " + " ".join(
            "%s=%s" % (k, quoteattr(str(v))) for k, v in attrs)
        if empty and not infos:
            self.lines.append(text + "/>")
            return False
        self.lines.append(text + ">")
        for name, value in infos:
            self.lines.append("  " * (depth + 1) + "<info name=%s value=%s/>" %
                              (quoteattr(name), quoteattr(value)))
        return True

    def close(self, depth):
        self.lines.append("  " * depth + "</object>")


def sets(cpus, nodes):
    return [("cpuset", mask(cpus)), ("complete_cpuset", mask(cpus)),
            ("nodeset", mask(nodes)), ("complete_nodeset", mask(nodes))]


def write_topology(path, t):
    """t: packages, a list of dicts {model, clusters: [{numa, mem, cores: [(core_os, [pus])],
    io: [...]}], io: [...]}; io lists attach where they stand (machine, package, cluster)."""
    w = Writer()
    all_cpus = sorted(pu for p in t["packages"] for c in p["clusters"] for _, pus in c["cores"]
                      for pu in pus)
    all_nodes = sorted(c["numa"] for p in t["packages"] for c in p["clusters"])
    w.lines += ['<?xml version="1.0" encoding="UTF-8"?>',
                '<!DOCTYPE topology SYSTEM "hwloc2.dtd">', '<topology version="2.0">']
    w.open(1, [("type", "Machine"), ("os_index", 0)] + sets(all_cpus, all_nodes)[:2] +
           [("allowed_cpuset", mask(all_cpus))] + sets(all_cpus, all_nodes)[2:] +
           [("allowed_nodeset", mask(all_nodes)), ("gp_index", w.gp_index())],
           infos=[("Backend", "Linux"), ("OSName", "Linux"), ("Architecture", "x86_64"),
                  ("hwlocVersion", "2.9.0"), ("FixtureOf", t["about"])])
    for pidx, p in enumerate(t["packages"]):
        pcpus = sorted(pu for c in p["clusters"] for _, pus in c["cores"] for pu in pus)
        pnodes = sorted(c["numa"] for c in p["clusters"])
        w.open(2, [("type", "Package"), ("os_index", pidx)] + sets(pcpus, pnodes) +
               [("gp_index", w.gp_index())],
               infos=[("CPUVendor", p["vendor"]), ("CPUFamilyNumber", "6"),
                      ("CPUModelNumber", str(p["model_number"])), ("CPUModel", p["model"])])
        depth = 3
        grouped = len(p["clusters"]) > 1
        if not grouped:
            write_numa(w, depth, p["clusters"][0])
        w.open(depth, [("type", "L3Cache")] + sets(pcpus, pnodes) +
               [("gp_index", w.gp_index()), ("cache_size", p["l3"]), ("depth", 3),
                ("cache_linesize", 64), ("cache_associativity", p["l3_ways"]),
                ("cache_type", 0)])
        for c in p["clusters"]:
            cdepth = depth + 1
            if grouped:
                ccpus = sorted(pu for _, pus in c["cores"] for pu in pus)
                w.open(cdepth, [("type", "Group")] + sets(ccpus, [c["numa"]]) +
                       [("gp_index", w.gp_index()), ("kind", 1000), ("subkind", 0),
                        ("dont_merge", 0)], infos=[])
                write_numa(w, cdepth + 1, c)
                write_cores(w, cdepth + 1, c, p)
                write_io(w, cdepth + 1, c.get("io", []))
                w.close(cdepth)
            else:
                write_cores(w, cdepth, c, p)
        w.close(depth)
        if not grouped:
            write_io(w, depth, p["clusters"][0].get("io", []))
        write_io(w, depth, p.get("io", []))
        w.close(2)
    write_io(w, 2, t.get("io", []))
    w.close(1)
    if t.get("distances"):
        values = " ".join(str(v) for row in t["distances"] for v in row) + " "
        index = " ".join(str(n) for n in all_nodes) + " "
        w.lines += ['  <distances2 type="NUMANode" nbobjs="%d" kind="5" name="NUMALatency" '
                    'indexing="os">' % len(all_nodes),
                    '    <indexes length="%d">%s</indexes>' % (len(index), index),
                    '    <u64values length="%d">%s</u64values>' % (len(values), values),
                    '  </distances2>']
    w.lines.append("</topology>")
    with open(path, "w") as f:
        f.write("\n".join(w.lines) + "\n")


def write_numa(w, depth, c):
    ccpus = sorted(pu for _, pus in c["cores"] for pu in pus)
    w.open(depth, [("type", "NUMANode"), ("os_index", c["numa"])] + sets(ccpus, [c["numa"]]) +
           [("gp_index", w.gp_index()), ("local_memory", c["mem"])])
    w.lines.append("  " * (depth + 1) + '<page_type size="4096" count="%d"/>' % (c["mem"] // 4096))
    w.lines.append("  " * (depth + 1) + '<page_type size="2097152" count="0"/>')
    w.lines.append("  " * (depth + 1) + '<page_type size="1073741824" count="0"/>')
    w.close(depth)


def write_cores(w, depth, c, p):
    node = [c["numa"]]
    for core_os, pus in c["cores"]:
        for level, ctype, size, ways in ((2, 0, p["l2"], p["l2_ways"]), (1, 1, 32768, 8),
                                         (1, 2, 32768, 8)):
            name = {0: "L2Cache", 1: "L1Cache", 2: "L1iCache"}[ctype]
            w.open(depth, [("type", name)] + sets(pus, node) +
                   [("gp_index", w.gp_index()), ("cache_size", size), ("depth", level),
                    ("cache_linesize", 64), ("cache_associativity", ways),
                    ("cache_type", ctype)])
            depth += 1
        w.open(depth, [("type", "Core"), ("os_index", core_os)] + sets(pus, node) +
               [("gp_index", w.gp_index())])
        for pu in pus:
            w.open(depth + 1, [("type", "PU"), ("os_index", pu)] + sets([pu], node) +
                   [("gp_index", w.gp_index())], empty=True)
        w.close(depth)
        for _ in range(3):
            depth -= 1
            w.close(depth)


def write_io(w, depth, io):
    """io: host bridges, each {bus: (first, last), children: [bridge or device]}."""
    for hb in io:
        w.open(depth, [("type", "Bridge"), ("gp_index", w.gp_index()), ("bridge_type", "0-1"),
                       ("depth", 0), ("bridge_pci", "0000:[%02x-%02x]" % hb["bus"])])
        for child in hb["children"]:
            write_pci(w, depth + 1, child, 1)
        w.close(depth)


def write_pci(w, depth, d, bridge_depth):
    common = [("pci_busid", d["busid"]), ("pci_type", d["type"]),
              ("pci_link_speed", d.get("link", "0.000000"))]
    if "bus" in d:
        w.open(depth, [("type", "Bridge"), ("gp_index", w.gp_index()), ("bridge_type", "1-1"),
                       ("depth", bridge_depth),
                       ("bridge_pci", "0000:[%02x-%02x]" % d["bus"])] + common)
        for child in d["children"]:
            write_pci(w, depth + 1, child, bridge_depth + 1)
        w.close(depth)
        return
    w.open(depth, [("type", "PCIDev"), ("gp_index", w.gp_index())] + common)
    for name, osdev_type, infos in d.get("osdevs", []):
        w.open(depth + 1, [("type", "OSDev"), ("gp_index", w.gp_index()), ("name", name),
                           ("osdev_type", osdev_type)], infos=infos, empty=True)
        if infos:
            w.close(depth + 1)
    w.close(depth)


# ---- devices (hwloc osdev_type: 2 network interface, 3 OpenFabrics device)
def hca(busid, device_id, subsys, ibdev, netdev, guid, lid, link):
    gid = "fe80:0000:0000:0000:" + guid
    mac = "20:00:10:87:fe:80:00:00:00:00:00:00:" + ":".join(
        guid.replace(":", "")[i:i + 2] for i in range(0, 16, 2))
    return {"busid": busid, "type": "0207 [15b3:%s] [15b3:%s] 00" % (device_id, subsys),
            "link": link,
            "osdevs": [(netdev, 2, [("Address", mac), ("Port", "1")]),
                       (ibdev, 3, [("NodeGUID", guid), ("SysImageGUID", guid),
                                   ("Port1State", "4"), ("Port1LID", lid), ("Port1LMC", "0"),
                                   ("Port1GID0", gid)])]}


def ethernet(busid, vendor_device, subsys, netdev, mac, link="0.000000"):
    return {"busid": busid, "type": "0200 [%s] [%s] 00" % (vendor_device, subsys), "link": link,
            "osdevs": [(netdev, 2, [("Address", mac)])]}


def root_port(busid, device_id, bus, children):
    return {"busid": busid, "type": "0604 [8086:%s] [0000:0000] 04" % device_id,
            "link": "15.753846", "bus": bus, "children": children}


def cores(pu_of, package, first, count):
    """Cores first..first+count-1 of a package: (core OS index, [PU OS indexes])."""
    return [(c, pu_of(package, c)) for c in range(first, first + count)]


# ---- 1. two-socket-hca1: two Xeon Silver 4110 (Skylake-SP, 8 cores, 2 threads each),
# one NUMA node per socket (SLIT 10/21), Linux PU numbering: thread 0 of every core first
# (socket 0: 0-7, socket 1: 8-15), then the hyperthreads (16-23, 24-31). The ConnectX-5
# behind a root port of socket 1; the on-board X722 port on socket 0.
def two_socket_hca1():
    def pu_of(p, c):
        return [p * 8 + c, 16 + p * 8 + c]

    silver = {"vendor": "GenuineIntel", "model_number": 85,
              "model": "Intel(R) Xeon(R) Silver 4110 CPU @ 2.10GHz", "l3": 11534336,
              "l3_ways": 11, "l2": MIB, "l2_ways": 16}
    return {
        "about": "two Xeon Silver 4110 sockets, ConnectX-5 on socket 1 (fabricbench fixture)",
        "packages": [
            dict(silver, clusters=[{"numa": 0, "mem": 48 * GIB, "cores": cores(pu_of, 0, 0, 8)}],
                 io=[{"bus": (0x3a, 0x3d), "children": [
                     ethernet("0000:3d:00.0", "8086:37d2", "8086:37d2", "eno1",
                              "ac:1f:6b:2d:4e:10")]}]),
            dict(silver, clusters=[{"numa": 1, "mem": 48 * GIB, "cores": cores(pu_of, 1, 0, 8),
                                    "io": [{"bus": (0xd7, 0xd8), "children": [
                                        root_port("0000:d7:00.0", "2030", (0xd8, 0xd8), [
                                            hca("0000:d8:00.0", "1017", "0008", "mlx5_0", "ib0",
                                                "248a:0703:00b4:3ac0", "0x5",
                                                "15.753846")])]}]}]),
        ],
        "distances": [[10, 21], [21, 10]],
    }


# ---- 2. single-socket: one Xeon E-2278G (Coffee Lake, 8 cores, 2 threads each), one NUMA
# node and no distance matrix (a single node has no other to compare with). PU numbering
# 0-7, then the hyperthreads 8-15. A ConnectX-6 behind the CPU's root port; the I/O hangs under
# the Machine, as hwloc puts it on a single-node machine.
def single_socket():
    def pu_of(p, c):
        return [c, 8 + c]

    return {
        "about": "one Xeon E-2278G socket, ConnectX-6 (fabricbench fixture)",
        "packages": [
            {"vendor": "GenuineIntel", "model_number": 158,
             "model": "Intel(R) Xeon(R) E-2278G CPU @ 3.40GHz", "l3": 16 * MIB, "l3_ways": 16,
             "l2": 262144, "l2_ways": 4,
             "clusters": [{"numa": 0, "mem": 64 * GIB, "cores": cores(pu_of, 0, 0, 8)}]},
        ],
        "io": [{"bus": (0x00, 0x01), "children": [
            root_port("0000:00:01.0", "1901", (0x01, 0x01), [
                hca("0000:01:00.0", "101b", "0007", "mlx5_0", "ib0", "b859:9f03:0021:7e4a",
                    "0x11", "31.507692")]),
            ethernet("0000:00:1f.6", "8086:15bc", "15d9:1c48", "eno1", "3c:ec:ef:41:22:0a")]}],
    }


# ---- 3. two-hca: two Skylake-SP sockets with sub-NUMA clustering (SNC-2: two NUMA nodes
# per socket, SLIT 10 local, 11 the other cluster of the socket, 21 the other socket), cut
# down to 4 cores (2 per cluster, 2 threads each). PU numbering: thread 0 of every core
# first (socket 0: 0-3, socket 1: 4-7), then the hyperthreads (8-11, 12-15). One ConnectX-5
# per socket: mlx5_0 in socket 0's first cluster (NUMA 0), mlx5_1 in socket 1's second
# cluster (NUMA 3).
def two_hca():
    def pu_of(p, c):
        return [p * 4 + c, 8 + p * 4 + c]

    gold = {"vendor": "GenuineIntel", "model_number": 85,
            "model": "Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz", "l3": 23068672, "l3_ways": 11,
            "l2": MIB, "l2_ways": 16}
    return {
        "about": "two Skylake-SP sockets in SNC-2 mode, one ConnectX-5 per socket "
                 "(fabricbench fixture, cut down to 4 cores a socket)",
        "packages": [
            dict(gold, clusters=[
                {"numa": 0, "mem": 24 * GIB, "cores": cores(pu_of, 0, 0, 2),
                 "io": [{"bus": (0x17, 0x18), "children": [
                     root_port("0000:17:00.0", "2030", (0x18, 0x18), [
                         hca("0000:18:00.0", "1017", "0008", "mlx5_0", "ib0",
                             "506b:4b03:00c1:2e10", "0x21", "15.753846")])]}]},
                {"numa": 1, "mem": 24 * GIB, "cores": cores(pu_of, 0, 2, 2)}]),
            dict(gold, clusters=[
                {"numa": 2, "mem": 24 * GIB, "cores": cores(pu_of, 1, 0, 2)},
                {"numa": 3, "mem": 24 * GIB, "cores": cores(pu_of, 1, 2, 2),
                 "io": [{"bus": (0xae, 0xaf), "children": [
                     root_port("0000:ae:00.0", "2030", (0xaf, 0xaf), [
                         hca("0000:af:00.0", "1017", "0008", "mlx5_1", "ib1",
                             "506b:4b03:00c1:2e38", "0x22", "15.753846")])]}]}]),
        ],
        "distances": [[10, 11, 21, 21], [11, 10, 21, 21], [21, 21, 10, 11], [21, 21, 11, 10]],
    }


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    for name, t in (("two-socket-hca1", two_socket_hca1()), ("single-socket", single_socket()),
                    ("two-hca", two_hca())):
        write_topology(os.path.join(out, name + ".xml"), t)


if __name__ == "__main__":
    main()
