# SPDX-License-Identifier: BSD-3-Clause
"""The analysis package's imports: no cycle between its modules, and no module importing
another of the package inside a function, but for a reason written beside the import.

A cycle is looked for over every import of a package module, at the top of a module or inside
a function alike (an import moved into a function to dodge a cycle is still one). An import
inside a function is allowed in the entry points (cli.py, __init__.py, __main__.py: they
import a command's modules when it runs, so that --help, --version and a missing numpy's
message come without loading numpy and h5py) and where its line ends with a comment
`# lazy: WHY`. Imports of other packages (h5py, matplotlib) are not checked here.

The layers: the subpackages by concern, lowest first, model, reading, checks, render, and
the modules at the top of the package (cli, __main__) above them. A module imports modules of its
own layer or of a lower one, never of a higher one (an upward import fails, at the top of a
module or inside a function alike). The package's __init__ (its version, load()) is loaded
before any of its modules: importing it is allowed from anywhere. No module or subpackage at
the top of the package has the name of something its __init__ defines (importing the module
would replace that: a subpackage `load` replaced the function load).

usage: test_analysis_imports.py SOURCE_DIR [PACKAGE_DIR]
(PACKAGE_DIR: default SOURCE_DIR/analysis/fabricbench_analysis; another one to test the check.)
Prints what it finds; exit 0 clean, 1 a cycle or an import it does not allow."""
import ast
import os
import sys

ENTRY = {"cli", "__init__", "__main__"}  # module paths below the package, dotted
LAYERS = ("model", "reading", "checks", "render")  # lowest first; the top-level modules above


def layer(mod):
    """A module's layer: the index of its subpackage in LAYERS; len(LAYERS) for the modules
    at the top of the package; None for the package's __init__ (importable from anywhere)."""
    if mod == "__init__":
        return None
    top = mod.split(".")[0]
    return LAYERS.index(top) if top in LAYERS else len(LAYERS)


def layer_name(i):
    return LAYERS[i] if i < len(LAYERS) else "the top of the package"


def modules(pkg_dir):
    """{dotted name below the package ('' for __init__ of the top): path}."""
    out = {}
    for root, dirs, files in os.walk(pkg_dir):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "__pycache__")))
        rel = os.path.relpath(root, pkg_dir)
        parts = [] if rel == "." else rel.split(os.sep)
        for f in sorted(files):
            if f.endswith(".py"):
                name = f[:-3]
                dotted = ".".join(parts + ([] if name == "__init__" else [name]))
                out[dotted or "__init__"] = os.path.join(root, f)
    return out


def _is_package(path):
    return os.path.basename(path) == "__init__.py"


def targets(node, me, path, mods, top_name):
    """The package modules one import statement loads (dotted, as in `mods`)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
        bases = [n.split(".", 1)[1] if n.startswith(top_name + ".") else
                 ("__init__" if n == top_name else None) for n in names]
        return [b for b in bases if b in mods]
    # from X import a, b
    if node.level == 0:
        if node.module != top_name and not (node.module or "").startswith(top_name + "."):
            return []
        base = node.module[len(top_name) + 1:] if node.module != top_name else ""
    else:
        here = [] if me == "__init__" else me.split(".")
        if not _is_package(path):
            here = here[:-1]  # a module's package
        up = node.level - 1
        if up > len(here):
            return []
        pkg = here[:len(here) - up] if up else here
        base = ".".join(pkg + ([node.module] if node.module else []))
    out = []
    for a in node.names:
        sub = (base + "." if base else "") + a.name
        if sub in mods:
            out.append(sub)  # a module imported by name: from . import grouping
        elif (base or "__init__") in mods:
            out.append(base or "__init__")  # a name of a module: from .check import ORDER
    return out


def shadowed(pkg_dir, mods):
    """The modules and subpackages at the top of the package named as something the package's
    __init__ defines at its top level (a function, a class, a variable)."""
    path = os.path.join(pkg_dir, "__init__.py")
    if not os.path.isfile(path):
        return []
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    names = set()
    for n in tree.body:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(n.name)
        elif isinstance(n, (ast.Assign, ast.AnnAssign)):
            for t in (n.targets if isinstance(n, ast.Assign) else [n.target]):
                names.update(x.id for x in ast.walk(t) if isinstance(x, ast.Name))
    tops = sorted({m.split(".")[0] for m in mods if m != "__init__"})
    return ["%s: a module or subpackage named as the package's %s (__init__.py): importing it "
            "replaces that name in the package" % (m, m) for m in tops if m in names]


def scan(pkg_dir):
    """(graph {module: {module: line}}, problems [text])."""
    mods = modules(pkg_dir)
    top_name = os.path.basename(os.path.normpath(pkg_dir))
    graph = {m: {} for m in mods}
    problems = shadowed(pkg_dir, mods)
    for me, path in mods.items():
        with open(path, encoding="utf-8") as f:
            src = f.read()
        lines = src.splitlines()
        tree = ast.parse(src, path)
        in_function = {id(x) for f in ast.walk(tree)
                       if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                       for x in ast.walk(f)}
        for n in ast.walk(tree):
            if not isinstance(n, (ast.Import, ast.ImportFrom)):
                continue
            got = list(dict.fromkeys(t for t in targets(n, me, path, mods, top_name) if t != me))
            for t in got:
                graph[me].setdefault(t, n.lineno)
                lo, hi = layer(me), layer(t)
                if hi is not None and lo is not None and hi > lo:
                    problems.append("%s:%d: imports %s, a layer above it (%s imports %s): the "
                                    "layers, lowest first, are %s, then the top of the package"
                                    % (os.path.relpath(path, pkg_dir), n.lineno, t,
                                       layer_name(lo), layer_name(hi), ", ".join(LAYERS)))
            if got and id(n) in in_function and me.split(".")[-1] not in ENTRY and \
                    "# lazy:" not in lines[n.end_lineno - 1]:
                problems.append("%s:%d: imports %s inside a function: move it to the top, or "
                                "say why it is lazy (# lazy: WHY) where a cycle is not the "
                                "reason" % (os.path.relpath(path, pkg_dir), n.lineno,
                                            ", ".join(got)))
    return graph, problems


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def shortest_loop(graph, comp):
    """A shortest path of imports from comp's first module back to it: [m, ..., m]."""
    start = comp[0]
    prev = {start: None}
    todo = [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(graph[v]):
                if w == start:
                    path = [v]
                    while prev[path[-1]] is not None:
                        path.append(prev[path[-1]])
                    return [start] + path[::-1][1:] + [start] if v != start else [start, start]
                if w in comp and w not in prev:
                    prev[w] = v
                    nxt.append(w)
        todo = nxt
    return [start, start]


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__.rsplit("\n\n", 1)[-1], file=sys.stderr)
        return 2
    pkg_dir = argv[2] if len(argv) == 3 else os.path.join(argv[1], "analysis",
                                                          "fabricbench_analysis")
    graph, problems = scan(pkg_dir)
    for comp in cycles(graph):
        loop = shortest_loop(graph, comp)
        problems.append("import cycle between %d modules (%s), e.g. %s" % (
            len(comp), ", ".join(comp), " -> ".join(
                "%s (line %d)" % (a, graph[a][b]) for a, b in zip(loop, loop[1:])) +
            " -> " + loop[-1]))
    for p in problems:
        print("FAIL " + p)
    n = sum(len(v) for v in graph.values())
    print("%d modules, %d imports between them: %s" % (
        len(graph), n, "no cycle, no upward import between layers, no unexplained import "
        "inside a function" if not problems
        else "%d problem(s)" % len(problems)))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
