# SPDX-License-Identifier: BSD-3-Clause
"""The layout rules of docs/DEVELOPING.md, checked on the source tree:

- no .c file over 600 lines, no header over 150, src/cli/main.c under 150;
- every file of src/ sits in one of the concern folders, and includes project headers by
  their folder ("core/log.h");
- the folders' include graph has only the arrows of ALLOWED (docs/DEVELOPING.md, "The folder
  graph"), and no cycle: a folder includes only folders below it;
- no include cycle between modules (a module is a .c file and its header: A depends on B when
  A.c or A.h includes B.h);
- every .c file of src/ has a header of its own (name.h), or is a part of a module, named
  module_part.c beside module.h (net/fabric_check.c implements part of net/fabric.h); but
  cli/main.c;
- the harness (src/) names no kernel that owns options or checks of its own (defined in its
  file: an option table, a check function), nor those options: what a kernel owns lives in
  its file in kernels/ (a kernel that points to a support library's options and check owns
  none);
- a kernel includes fab_kernel.h and at most one support header (sock/sock.h, sock/udp.h,
  sock/incast.h, rma/rma.h, ucp/ucp.h, coll/a2av.h or cong/cong.h);
- no C function (src/, kernels/) over 80 lines unless the comment directly above it says why,
  with the marker "long:" and a reason (/* long: one switch over the schema's attributes */).

usage: test_layout.py SOURCE_DIR"""
import os
import re
import sys

src = sys.argv[1]
FOLDERS = ("core", "kernel", "sock", "rma", "ucp", "coll", "cong", "net", "measure", "pairs", "output",
           "cli")
# The arrows of the folder graph: which folders the files of a folder may include (besides
# its own). kernels/ is the kernels' folder (fab_kernel.h is kernel/'s). A new arrow is a
# decision about the layers: add it here and to the graph in docs/DEVELOPING.md.
ALLOWED = {
    "core": (),
    "kernel": ("core",),
    "sock": ("core", "kernel"),
    "rma": ("core", "kernel"),
    "ucp": ("core", "kernel", "net"),
    "coll": ("core", "kernel"),
    "cong": ("core", "kernel"),
    "kernels": ("kernel", "sock", "rma", "ucp", "coll", "cong"),
    "net": ("core",),
    "measure": ("core", "kernel", "net"),
    "pairs": ("core", "kernel", "net", "measure"),
    "output": ("core", "kernel", "net", "measure", "pairs"),
    "cli": ("core", "kernel", "net", "measure", "pairs", "output"),
}
MAX_C, MAX_H, MAX_MAIN = 600, 150, 150
problems = []


def lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().count("\n")


def strip_comments_strings(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)


files = []
for top in ("src", "kernels"):
    for root, _, names in os.walk(os.path.join(src, top)):
        files += [os.path.join(root, n) for n in names if n.endswith((".c", ".h"))]

modules = {}  # "core/log" -> set of "core/world", ...
folders = {}  # "measure" -> {"core": 'src/measure/row.h includes "core/measopts.h"', ...}
for path in sorted(files):
    rel = os.path.relpath(path, src)
    n = lines(path)
    folder = rel.split(os.sep)[1] if rel.startswith("src" + os.sep) else rel.split(os.sep)[0]
    with open(path, encoding="utf-8") as f:
        incs = re.findall(r'^\s*#\s*include\s*"([^"]+)"', f.read(), re.M)
    for inc in incs:
        dep = "kernel" if inc == "fab_kernel.h" else inc.split("/")[0] if "/" in inc else None
        if dep in FOLDERS and dep != folder:
            folders.setdefault(folder, {}).setdefault(dep, '%s includes "%s"' % (rel, inc))
    if path.endswith(".c") and n > MAX_C:
        problems.append("%s has %d lines (at most %d for a .c file)" % (rel, n, MAX_C))
    if path.endswith(".h") and n > MAX_H:
        problems.append("%s has %d lines (at most %d for a header)" % (rel, n, MAX_H))
    if rel.startswith("src" + os.sep):
        inner = os.path.relpath(path, os.path.join(src, "src"))
        if os.sep not in inner or inner.split(os.sep)[0] not in FOLDERS:
            problems.append("%s is not in one of src/{%s}" % (rel, ",".join(FOLDERS)))
            continue
        mod = inner[:-2]
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for inc in re.findall(r'^#include "([^"]+)"', text, re.M):
            if inc in ("fab_version.h", "fab_schema.h"):
                continue  # generated into the build directory
            if inc.split("/")[0] not in FOLDERS:
                problems.append('%s includes "%s": name project headers by folder, '
                                'e.g. "core/log.h"' % (rel, inc))
                continue
            dep = inc[:-2]
            if dep != mod:
                modules.setdefault(mod, set()).add(dep)
        modules.setdefault(mod, set())

# A .c file of src/ has its header, or is part of a module: module_part.c beside module.h.
for path in sorted(files):
    rel = os.path.relpath(path, src)
    if not rel.startswith("src" + os.sep) or not path.endswith(".c"):
        continue
    d, name = os.path.split(path)
    base = name[:-2]
    parts = base.split("_")
    owners = ["_".join(parts[:i]) + ".h" for i in range(len(parts), 0, -1)]
    if rel != os.path.join("src", "cli", "main.c") and \
            not any(os.path.isfile(os.path.join(d, h)) for h in owners):
        problems.append("%s has no header of its own (%s.h) and is no part of a module "
                        "(module_part.c beside module.h)" % (rel, base))

# The folder graph: only the arrows of ALLOWED, and no cycle.
for f in sorted(folders):
    for dep in sorted(folders[f]):
        if dep not in ALLOWED.get(f, ()):
            problems.append("folder %s includes %s, an arrow the folder graph does not have (%s; "
                            "allowed from %s: %s)" % (f, dep, folders[f][dep], f,
                                                      ", ".join(ALLOWED.get(f, ())) or "none"))
fstate = {}


def fvisit(f, path):
    fstate[f] = 1
    for d in sorted(folders.get(f, ())):
        if fstate.get(d) == 1:
            cyc = path[path.index(d):] + [d]
            problems.append("folder cycle: " + " -> ".join(
                "%s (%s)" % (a, folders[a][b]) for a, b in zip(cyc, cyc[1:])))
        elif fstate.get(d) is None:
            fvisit(d, path + [d])
    fstate[f] = 2


for f in sorted(folders):
    if fstate.get(f) is None:
        fvisit(f, [f])

main = os.path.join(src, "src", "cli", "main.c")
if lines(main) >= MAX_MAIN:
    problems.append("src/cli/main.c has %d lines (under %d)" % (lines(main), MAX_MAIN))

# Cycles: depth-first search over the module graph, reporting each cycle once.
state, stack, seen_cycles = {}, [], set()


def visit(m):
    state[m] = 1
    stack.append(m)
    for d in sorted(modules.get(m, ())):
        if state.get(d) == 1:
            cyc = stack[stack.index(d):] + [d]
            key = frozenset(cyc)
            if key not in seen_cycles:
                seen_cycles.add(key)
                problems.append("include cycle: " + " -> ".join(cyc))
        elif d in modules and state.get(d) is None:
            visit(d)
    stack.pop()
    state[m] = 2


for m in sorted(modules):
    if state.get(m) is None:
        visit(m)

# What a kernel owns stays in its file: a kernel with options or a check of its own is not
# named in src/, and neither are its options (as --name or FABRICBENCH_NAME).
owned = []  # (what, pattern)
kdir = os.path.join(src, "kernels")
for name in sorted(os.listdir(kdir)):
    if not name.endswith(".c"):
        continue
    with open(os.path.join(kdir, name), encoding="utf-8") as f:
        text = f.read()
    # its own: an options table or a check defined in its file; a kernel that points to a
    # support library's (sock/: `.options = &fab_sock_kopts`, `.check = fab_incast_check`)
    # owns nothing of them, and the library, not the kernel, is what src/ names
    opts = re.search(r"\.options\s*=\s*&?\s*(\w+)", text)
    chk = re.search(r"\.check\s*=\s*(\w+)", text)
    defined = lambda sym: re.search(r"^[^\n]*\b%s\b\s*(\(|=|\[)" % re.escape(sym), text, re.M)
    if not (re.search(r"\.options\s*=\s*&\s*\(", text) or (opts and defined(opts.group(1)))
            or (chk and defined(chk.group(1)))):
        continue
    kname = name[:-2]
    owned.append((kname, re.compile(r"\b%s\b" % re.escape(kname))))
    # its option rows: the entries of its fab_opt_t tables (not of other tables: columns)
    rows = "".join(re.findall(r"fab_opt_t\s+\w+\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\};", text, re.S))
    for opt in re.findall(r'^\s*\{\s*"([a-z][a-z0-9-]*)",', rows, re.M):
        env = "FABRICBENCH_" + opt.upper().replace("-", "_")
        owned.append(("--" + opt, re.compile(r"--%s\b|\b%s\b" % (re.escape(opt), env))))
harness = [p for p in files if os.path.relpath(p, src).startswith("src" + os.sep)]
for what, pat in owned:
    for path in harness:
        with open(path, encoding="utf-8") as f:
            raw = f.read()
        if pat.search(raw):
            problems.append("%s names '%s', which a kernel owns (kernels/): move it there"
                            % (os.path.relpath(path, src), what))

# A kernel includes its interface and at most one support library (issue 30): fab_kernel.h,
# plus sock/sock.h or sock/udp.h for a socket kernel, rma/rma.h for a one-sided one, ucp/ucp.h
# for a UCP one, coll/a2av.h for alltoallv; the harness's headers (kernel/traits.h,
# measure/, output/ ...) never.
KERNEL_HEADERS = ("kernel/fab_kernel.h", "fab_kernel.h")
SUPPORT_HEADERS = ("sock/sock.h", "sock/udp.h", "sock/incast.h", "rma/rma.h", "ucp/ucp.h", "coll/a2av.h",
                   "cong/cong.h")
nkernels = 0
for name in sorted(os.listdir(kdir)):
    if not name.endswith(".c"):
        continue
    nkernels += 1
    with open(os.path.join(kdir, name), encoding="utf-8") as f:
        incs = re.findall(r'^#include "([^"]+)"', f.read(), re.M)
    support = [i for i in incs if i in SUPPORT_HEADERS]
    other = [i for i in incs if i not in KERNEL_HEADERS + SUPPORT_HEADERS]
    if other or len(support) > 1 or not any(i in KERNEL_HEADERS for i in incs):
        problems.append("kernels/%s includes %s: a kernel includes fab_kernel.h and at most one "
                        "of %s" % (name, incs, ", ".join(SUPPORT_HEADERS)))
if nkernels < 10:
    problems.append("found %d kernels in kernels/: the include check read the wrong folder"
                    % nkernels)

# Every source file names its licence in its first lines (after a shebang or a modulefile's
# magic line): SPDX-License-Identifier: BSD-3-Clause (LICENSE).
SPDX = "SPDX-License-Identifier: BSD-3-Clause"
SOURCE_EXT = (".c", ".h", ".cpp", ".py", ".sh", ".sbatch", ".cmake", ".toml", ".in")
nspdx = 0
for top in ("src", "kernels", "analysis", "bench", "cmake", "jobscripts", "scripts", "tests",
            "share"):
    for root, dirs, names in os.walk(os.path.join(src, top)):
        dirs[:] = [d for d in dirs if d not in ("__pycache__", "golden")]
        for n in names:
            path = os.path.join(root, n)
            if not (n.endswith(SOURCE_EXT) or n in ("CMakeLists.txt", "fabrics.conf",
                                                      "fabricbench-analyze")):
                continue
            with open(path, encoding="utf-8", errors="replace") as f:
                head = [f.readline() for _ in range(2)]
            nspdx += 1
            if not any(SPDX in line for line in head):
                problems.append("%s does not start with %s" % (os.path.relpath(path, src), SPDX))
if not os.path.isfile(os.path.join(src, "LICENSE")):
    problems.append("no LICENSE at the top of the tree")

# Functions by meaning: no C function over MAX_FUNC lines (from its first line to its closing
# brace) unless the comment block directly above it says why: "long: REASON". The sources are
# clang-formatted (BreakBeforeBraces: Linux), so a function's body opens with "{" alone at the
# start of a line, outside any braces.
MAX_FUNC = 80
LONG_MARKER = re.compile(r"\blong:\s*\S")


def blank_comments_strings(text):
    """Comments, strings and character constants blanked, newlines kept (lines stay lines)."""
    def blank(m):
        return re.sub(r"[^\n]", " ", m.group(0))
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', blank, text,
                  flags=re.S)


def functions(text):
    """(name, first line, length, reason) of each function defined in C text: lines 0-based;
    reason: the "long:" comment directly above it, or None."""
    raw, code = text.split("\n"), blank_comments_strings(text).split("\n")
    found, depth, start = [], 0, None
    for i, line in enumerate(code):
        if depth == 0 and line.rstrip() == "{" and i > 0 and code[i - 1].rstrip().endswith(")"):
            first = i - 1  # the signature: back to a blank line or the end of a declaration
            while first > 0 and code[first - 1].strip() and \
                    not code[first - 1].rstrip().endswith((";", "}", "{")) and \
                    not code[first - 1].startswith("#"):
                first -= 1
            name = re.search(r"(\w+)\s*\(", " ".join(code[first:i]))
            start = (name.group(1) if name else "?", first)
        for c in line:
            depth += {"{": 1, "}": -1}.get(c, 0)
        if depth == 0 and start and "}" in line:
            name, first = start
            above, j = [], first - 1  # the comment block ending on the line above
            if j >= 0 and raw[j].rstrip().endswith("*/"):
                while j >= 0:
                    above.insert(0, raw[j])
                    if "/*" in raw[j]:
                        break
                    j -= 1
            reason = LONG_MARKER.search(" ".join(above))
            found.append((name, first, i - first + 1, reason.group(0) if reason else None))
            start = None
    return found


def long_functions(text):
    return [(n, first, length) for n, first, length, reason in functions(text)
            if length > MAX_FUNC and not reason]


# The check checks itself: a function one line too long is found, and passes with a reason.
_body = "int f(int a)\n{\n" + "    a++;\n" * (MAX_FUNC - 3) + "    return a;\n}\n"
assert long_functions("/* short */\n" + _body.replace("    a++;\n", "", 1)) == []
assert [n for n, _, _ in long_functions("/* no reason */\n" + _body)] == ["f"]
assert long_functions("/* f: one switch\n * long: one case per field */\n" + _body) == []
nfunc, nlong = 0, 0
for path in sorted(files):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    found = functions(text)
    nfunc += len(found)
    nlong += sum(1 for f in found if f[2] > MAX_FUNC and f[3])
    for name, first, length in long_functions(text):
        problems.append("%s:%d: %s has %d lines (at most %d): split it into functions by meaning, "
                        "or say why above it (/* long: REASON */)"
                        % (os.path.relpath(path, src), first + 1, name, length, MAX_FUNC))
if nfunc < 100:
    problems.append("only %d C functions found: the function scan is broken" % nfunc)
print("functions: %d, %d over %d lines with a reason (long:)" % (nfunc, nlong, MAX_FUNC))

for p in problems:
    print("FAIL: " + p)
if problems:
    sys.exit(1)
nfolders = len({os.path.relpath(p, src).split(os.sep)[0 if p.startswith(kdir) else 1]
                for p in files})
print("PASS layout: %d files, %d modules, no cycle; %d folders, %d arrows, all allowed, no "
      "cycle; %d source files name their licence; kernel-owned names: %s"
      % (len(files), len(modules), nfolders, sum(len(v) for v in folders.values()), nspdx,
         ", ".join(w for w, _ in owned) or "none"))
