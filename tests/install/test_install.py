#!/usr/bin/python3
# SPDX-License-Identifier: BSD-3-Clause
"""Installing fabricbench as a site would (issue 17, item 5), each case in a scratch directory
removed at the end, also when it fails:

  tree        cmake --install into a scratch prefix: every file in its place, nothing naming
              the build or source tree, fabricbench-analyze from elsewhere and from a moved
              tree, the installed tool reading the installed fabrics.conf, a job script run
              from the install (it finds the fabricbench installed with it)
  module      the installed modulefile with the real `module` command (environment-modules
              or Lmod): fabricbench --version, man -w, the analysis, the completion found by
              bash-completion, system man pages still found, unload undoing it
  man         fabricbench(1) and fabricbench-analyze(1): every command, kernel and option of
              --help in the rendered page, man --warnings silent, man -w finding the
              installed pages
  completion  the bash completion in bash: complete -p, COMP_WORDS/COMP_CWORD and COMPREPLY
              for commands, kernels, options and their values, --fabric names from
              fabrics.conf (and from --fabrics-file), bash-completion's loader
  deb         cpack -G DEB: the package's fields and dependencies (apt's simulation on this
              machine), dpkg -i into a scratch root and what it installed, dpkg --purge
  pip         pip install of analysis/ into a fresh venv with system site packages (offline):
              import fabricbench_analysis, the console script on a real result file

    test_install.py CASE FABRICBENCH BUILD_DIR SOURCE_DIR

Exit 0 pass, 1 fail, 77 skipped (a tool the case needs is not installed: the reason is
printed; scripts/quickstart.sh test installs them)."""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from fabtest import (MPIRUN_OPTS, WORKDIR, check, enter_scratch, fail, mpi_env,  # noqa: E402
                     mpirun_cmd)

enter_scratch()  # result files by relative names land in the test's own scratch directory

CASE, EXE, BUILD, SRC = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3], sys.argv[4]
PYTHON = "/usr/bin/python3"
CMAKE = os.environ.get("CMAKE_COMMAND", "cmake")
CPACK = os.path.join(os.path.dirname(CMAKE), "cpack") if os.sep in CMAKE else "cpack"
BASE_PATH = "/usr/local/bin:/usr/bin:/bin"


def skip(why):
    print("SKIP: " + why)
    sys.exit(77)


def run(cmd, timeout=120, **kw):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    except subprocess.TimeoutExpired as e:
        fail("timed out after %ss: %s\n%s%s" % (timeout, cmd, e.stdout, e.stderr))


def ok(cmd, what, timeout=120, **kw):
    p = run(cmd, timeout=timeout, **kw)
    check(p.returncode == 0, "%s: exit %d\n%s%s" % (what, p.returncode, p.stdout, p.stderr))
    return p


def clean_env(**extra):
    """A plain user's environment: no PYTHONPATH, MANPATH or XDG_DATA_DIRS of ours, no build
    directory on PATH."""
    env = {"PATH": BASE_PATH, "HOME": WORKDIR, "LC_ALL": "C.UTF-8",
           "PYTHONDONTWRITEBYTECODE": "1", "MPLBACKEND": "Agg"}
    env.update(extra)
    return env


def version():
    out = ok([EXE, "--version"], "fabricbench --version").stdout
    m = re.match(r"fabricbench (\S+) ", out)
    check(m, "no version in: " + out)
    return m.group(1)


def install(prefix):
    ok([CMAKE, "--install", BUILD, "--prefix", prefix], "cmake --install", timeout=180)
    return prefix


def run_help():
    return ok([EXE, "run", "--help"], "fabricbench run --help").stdout


def run_options(text):
    """Every option `run --help` lists: ['-m', '--sizes', ..., '--help']."""
    names = []
    for m in re.finditer(r"^  (?:(-\w), )?\s*(--[a-z][\w-]*)", text, flags=re.M):
        names += [n for n in m.groups() if n]
    check(len(names) > 40, "too few options parsed from run --help: %s" % names)
    return names


def kernels():
    out = ok([EXE, "list"], "fabricbench list").stdout
    # the kernels; after a blank line the families (`run rma`)
    return [ln.split()[0] for ln in out.split("\n\n")[0].splitlines() if ln.strip()]


def commands():
    """The commands `fabricbench --help` shows: the words after 'fabricbench '."""
    text = ok([EXE, "--help"], "fabricbench --help").stdout
    found = []
    for w in re.findall(r"\bfabricbench ([a-z][\w-]*)", text):
        if w not in found:
            found.append(w)
    check({"run", "list", "show", "inventory", "placement", "completion"} <= set(found),
          "commands in --help: %s" % found)
    return found


def profiles(conf):
    with open(conf) as f:
        return re.findall(r"^\[([^\]]+)\]", f.read(), flags=re.M)


# ---------------------------------------------------------------------------------- tree
def case_tree():
    ver = version()
    prefix = install(os.path.join(WORKDIR, "prefix"))
    expect = ["bin/fabricbench", "bin/fabricbench-analyze",
              "share/fabricbench/fabrics.conf",
              "share/fabricbench/jobscripts/README.md",
              "share/fabricbench/modulefiles/fabricbench/" + ver,
              "share/man/man1/fabricbench.1", "share/man/man1/fabricbench-analyze.1",
              "share/bash-completion/completions/fabricbench",
              "share/doc/fabricbench/README.md", "share/doc/fabricbench/jobscripts/README.md",
              "lib/python3/dist-packages/fabricbench_analysis/cli.py",
              "lib/python3/dist-packages/fabricbench_analysis/model/table.py",
              "lib/python3/dist-packages/fabricbench_analysis/schema.json"]
    for js in glob.glob(os.path.join(SRC, "jobscripts", "*.sbatch")):
        expect.append("share/fabricbench/jobscripts/" + os.path.basename(js))
    for doc in glob.glob(os.path.join(SRC, "docs", "*.md")):
        expect.append("share/doc/fabricbench/docs/" + os.path.basename(doc))
    for rel in expect:
        check(os.path.isfile(os.path.join(prefix, rel)), "not installed: " + rel)
    for rel in ["bin/fabricbench", "bin/fabricbench-analyze"] + \
            [e for e in expect if e.endswith(".sbatch")]:
        check(os.access(os.path.join(prefix, rel), os.X_OK), "not executable: " + rel)
    pkg = os.path.join(prefix, "lib/python3/dist-packages/fabricbench_analysis")
    check(not glob.glob(os.path.join(pkg, "**", "__pycache__"), recursive=True),
          "__pycache__ installed")
    src = os.path.join(SRC, "analysis/fabricbench_analysis")
    src_py = sorted(os.path.relpath(p, src) for p in glob.glob(
        os.path.join(src, "**", "*.py"), recursive=True))
    check(sorted(os.path.relpath(p, pkg) for p in glob.glob(
        os.path.join(pkg, "**", "*.py"), recursive=True)) == src_py,
          "the installed package (its subpackages too) differs from analysis/fabricbench_analysis")
    # Nothing installed names the build or the source tree (the binary aside: it keeps the
    # source tree's fabrics.conf as a last resort).
    for dirpath, _, files in os.walk(prefix):
        for name in files:
            path = os.path.join(dirpath, name)
            if path.endswith("bin/fabricbench"):
                continue
            with open(path, "rb") as f:
                data = f.read()
            for tree in {os.path.realpath(BUILD), os.path.realpath(SRC), BUILD, SRC}:
                check(tree.encode() not in data, "%s names %s" % (path, tree))
    # fabricbench-analyze from elsewhere, in a plain environment
    analyze = os.path.join(prefix, "bin", "fabricbench-analyze")
    p = ok([analyze, "--version"], "installed fabricbench-analyze", cwd=WORKDIR,
           env=clean_env())
    check(p.stdout.strip() == "fabricbench-analyze " + ver, "analyze version: " + p.stdout)
    # The installed tool reads the installed profile table (a site's own profile added)
    conf = os.path.join(prefix, "share/fabricbench/fabrics.conf")
    with open(conf, "a") as f:
        f.write("\n[sitefab]\nmatch = net\ndescription = a site's own\nUCX_TLS = tcp,self\n"
                "expect = tcp\n")
    p = ok([os.path.join(prefix, "bin/fabricbench"), "completion", "fabrics"],
           "installed fabricbench completion fabrics", env=clean_env())
    check(p.stdout.split() == ["any", "auto"] + profiles(conf) and "sitefab" in p.stdout,
          "fabric names of the installed table: " + p.stdout)
    jobscript(prefix)
    # A moved tree still runs (the launcher finds the package from where it is)
    moved = os.path.join(WORKDIR, "moved")
    os.rename(prefix, moved)
    p = ok([os.path.join(moved, "bin", "fabricbench-analyze"), "--version"],
           "fabricbench-analyze of a moved tree", cwd=WORKDIR, env=clean_env())
    check(p.stdout.startswith("fabricbench-analyze "), p.stdout)
    print("tree: %d files checked in %s, job script and moved tree fine" % (len(expect), prefix))


def jobscript(prefix):
    """fabricbench.sbatch run from the install with mpirun, no fabricbench on PATH but a
    decoy that must not run."""
    decoy = os.path.join(WORKDIR, "decoy")
    os.makedirs(decoy)
    with open(os.path.join(decoy, "fabricbench"), "w") as f:
        f.write("#!/bin/sh\necho decoy ran >&2\nexit 99\n")
    os.chmod(os.path.join(decoy, "fabricbench"), 0o755)
    out = os.path.join(WORKDIR, "jobout")
    env = mpi_env(clean_env(PATH=decoy + ":" + BASE_PATH))
    env.update({"FB_LAUNCH": "mpirun", "FB_KERNELS": "latency", "FB_SIZES": "8",
                "FB_OUTDIR": out, "FB_ARGS": "-i 200 -x 10 --timer clock -q",
                "FB_MPIRUN_ARGS": " ".join(["-np", "2", "--oversubscribe"] + MPIRUN_OPTS)})
    script = os.path.join(prefix, "share/fabricbench/jobscripts/fabricbench.sbatch")
    p = run(["bash", script], timeout=180, cwd=WORKDIR, env=env)
    check(p.returncode == 0, "installed fabricbench.sbatch: exit %d\n%s%s" %
          (p.returncode, p.stdout, p.stderr))
    check("decoy ran" not in p.stderr, "the job script ran fabricbench from PATH")
    check(os.path.join(prefix, "bin", "fabricbench") + " run latency" in p.stdout,
          "the job script did not run the installed fabricbench:\n" + p.stdout)
    # outside Slurm: fabricbench-HOST-UTCTIME-PID-any.h5
    files = os.listdir(out) if os.path.isdir(out) else []
    check([f for f in files if re.match(r"fabricbench-.+-\d{8}T\d{6}Z-\d+-any\.h5$", f)],
          "no result file in %s: %s" % (out, files))


# -------------------------------------------------------------------------------- module
MODULE_INITS = [("environment-modules", "/usr/share/modules/init/bash"),
                ("Lmod", "/usr/share/lmod/lmod/init/bash")]


def case_module():
    found = [(n, p) for n, p in MODULE_INITS if os.path.isfile(p)]
    if not found:
        skip("no module command: apt-get install environment-modules (or lmod)")
    ver = version()
    prefix = install(os.path.join(WORKDIR, "prefix"))
    system_page = run(["man", "-w", "man"], env=clean_env()).stdout.strip()
    for name, init in found:
        script = r'''
set -u
source %(init)s
unset MANPATH XDG_DATA_DIRS PYTHONPATH
module use %(prefix)s/share/fabricbench/modulefiles
module load fabricbench || { echo "module load failed"; exit 3; }
echo "which=$(command -v fabricbench)"
echo "version=$(fabricbench --version)"
echo "man=$(man -w fabricbench)"
echo "man_analyze=$(man -w fabricbench-analyze)"
echo "man_system=$(man -w man 2>/dev/null)"
echo "analyze=$(fabricbench-analyze --version)"
echo "import=$(%(python)s -c 'import fabricbench_analysis as m; print(m.__file__)')"
if [ -f /usr/share/bash-completion/bash_completion ]; then
    source /usr/share/bash-completion/bash_completion
    __load_completion fabricbench && echo "complete=$(complete -p fabricbench)"
fi
module unload fabricbench
echo "after=$(command -v fabricbench || echo none)"
echo "after_py=${PYTHONPATH-unset}"
''' % {"init": init, "prefix": prefix, "python": PYTHON}
        p = run(["bash", "--norc", "--noprofile", "-c", script], timeout=120,
                env=clean_env(), cwd=WORKDIR)
        check(p.returncode == 0, "%s: exit %d\n%s%s" % (name, p.returncode, p.stdout,
                                                        p.stderr))
        got = dict(ln.split("=", 1) for ln in p.stdout.splitlines() if "=" in ln)
        want = {"which": prefix + "/bin/fabricbench",
                "man": prefix + "/share/man/man1/fabricbench.1",
                "man_analyze": prefix + "/share/man/man1/fabricbench-analyze.1",
                "analyze": "fabricbench-analyze " + ver,
                "import": prefix + "/lib/python3/dist-packages/fabricbench_analysis/"
                                   "__init__.py",
                "after": "none", "after_py": "unset"}
        for k, v in want.items():
            check(got.get(k) == v, "%s: %s is %r, not %r\n%s%s" % (name, k, got.get(k), v,
                                                                  p.stdout, p.stderr))
        check(got.get("version", "").startswith("fabricbench %s " % ver),
              "%s: version %r" % (name, got.get("version")))
        check(got.get("man_system") == system_page,
              "%s: man's own pages lost after module load: %r (before: %r)" %
              (name, got.get("man_system"), system_page))
        if os.path.isfile("/usr/share/bash-completion/bash_completion"):
            check(got.get("complete") == "complete -F _fabricbench fabricbench",
                  "%s: bash-completion did not load ours: %r" % (name, got.get("complete")))
        print("module: %s: load, man -w, the analysis, completion and unload fine" % name)


# ----------------------------------------------------------------------------------- man
def render(page, width=80, locale="C"):
    """The page as man shows it, and its warnings."""
    env = clean_env(MANWIDTH=str(width), LC_ALL=locale, MAN_KEEP_FORMATTING="")
    p = run(["man", "--warnings", "-l", page], env=env)
    check(p.returncode == 0, "man -l %s: exit %d %s" % (page, p.returncode, p.stderr))
    return p.stdout, p.stderr


def check_page(page, words, what):
    text, warnings = render(page)
    check(warnings == "", "%s: man --warnings: %s" % (page, warnings))
    missing = [w for w in words if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(w),
                                                 text)]
    check(not missing, "%s: %s missing from the page: %s" % (page, what, missing))
    return text


def case_man():
    if not shutil.which("man"):
        skip("no man: apt-get install man-db")
    ver = version()
    gen = os.path.join(BUILD, "generated", "man")
    page = os.path.join(gen, "fabricbench.1")
    check(os.path.isfile(page), "no " + page + " (the build makes it)")
    opts = run_options(run_help())
    cmds = commands()
    text = check_page(page, opts, "run options")
    utf8, warnings = render(page, locale="C.UTF-8")
    check(warnings == "" and "--sizes" in utf8,
          "in UTF-8 the options do not read as typed (--sizes): " + warnings)
    check_page(page, kernels(), "kernels")
    check_page(page, ["fabricbench " + c for c in cmds], "commands")
    for sub in ("inventory", "placement"):
        usage = ok([EXE, sub, "--help"], sub + " --help").stdout
        check_page(page, re.findall(r"--[a-z][\w-]*", usage), sub + " options")
    check(re.search(r"fabricbench %s\s+\S+\s+FABRICBENCH\(1\)" % re.escape(ver), text),
          "the page's footer has no version %s" % ver)
    # fabricbench-analyze(1): every command and each command's options
    apage = os.path.join(gen, "fabricbench-analyze.1")
    launcher = [PYTHON, os.path.join(SRC, "analysis", "fabricbench-analyze")]
    env = dict(os.environ, COLUMNS="80", PYTHONDONTWRITEBYTECODE="1")
    top = ok(launcher + ["--help"], "fabricbench-analyze --help", env=env).stdout
    subs = re.findall(r"^    ([a-z]+)\s", top, flags=re.M)
    check(len(subs) >= 7, "commands of fabricbench-analyze: %s" % subs)
    check_page(apage, ["fabricbench-analyze " + s for s in subs], "commands")
    for s in subs:
        sub_help = ok(launcher + [s, "--help"], s + " --help", env=env).stdout
        check_page(apage, sorted(set(re.findall(r"(?<![\w-])--[a-z][\w-]*", sub_help))),
                   s + " options")
    # installed: man -w finds the pages through MANPATH, and through PATH alone (man-db maps
    # PREFIX/bin to PREFIX/share/man)
    prefix = install(os.path.join(WORKDIR, "prefix"))
    want = os.path.join(prefix, "share/man/man1/fabricbench.1")
    p = ok(["man", "-w", "fabricbench"], "man -w",
           env=clean_env(MANPATH=os.path.join(prefix, "share/man")))
    check(p.stdout.strip() == want, "man -w fabricbench with MANPATH: " + p.stdout)
    p = ok(["man", "-w", "fabricbench-analyze"], "man -w",
           env=clean_env(PATH=os.path.join(prefix, "bin") + ":" + BASE_PATH))
    check(p.stdout.strip() == os.path.join(prefix, "share/man/man1/fabricbench-analyze.1"),
          "man -w fabricbench-analyze with PATH: " + p.stdout)
    print("man: %d run options, %d commands, %d analyze commands in the pages; man -w fine" %
          (len(opts), len(cmds), len(subs)))


# ---------------------------------------------------------------------------- completion
def complete(script, words, env=None, pre=""):
    """COMPREPLY for the command line `words` (the last one being completed)."""
    quoted = " ".join("'%s'" % w.replace("'", "'\\''") for w in words)
    prog = r'''
%s
source '%s' || exit 3
COMP_WORDS=(%s); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}
_fabricbench
printf '%%s\n' "${COMPREPLY[@]}"
''' % (pre, script, quoted)
    p = run(["bash", "--norc", "--noprofile", "-c", prog], env=env or completion_env(),
            cwd=WORKDIR)
    check(p.returncode == 0, "completing %s: exit %d %s" % (words, p.returncode, p.stderr))
    return [w for w in p.stdout.split("\n") if w]


def completion_env():
    return clean_env(PATH=os.path.dirname(EXE) + ":" + BASE_PATH)


def case_completion():
    script = os.path.join(BUILD, "generated", "completion", "fabricbench")
    check(os.path.isfile(script), "no " + script + " (the build makes it)")
    p = ok(["bash", "--norc", "--noprofile", "-c", "source '%s' && complete -p fabricbench"
            % script], "complete -p")
    check(p.stdout.strip() == "complete -F _fabricbench fabricbench", p.stdout)
    ks = kernels()
    cmds = commands()
    got = complete(script, ["fabricbench", ""])
    check(set(cmds) <= set(got), "commands %s, completed %s" % (cmds, got))
    for c in got:  # each one a command the parser knows
        if c.startswith("-"):
            continue
        p = run([EXE, c, "--help"], env=completion_env())
        check("unknown command" not in p.stderr, "completed %s is no command: %s" %
              (c, p.stderr))
    al = complete(script, ["fabricbench", "run", "al"])
    check(sorted(al) == sorted(k for k in ks if k.startswith("al")) and
          {"allreduce", "allgather", "alltoall"} <= set(al), "run al -> %s" % al)
    got = complete(script, ["fabricbench", "run", "latency,b"])
    check(sorted(got) == sorted("latency," + k for k in ks if k.startswith("b")),
          "run latency,b -> %s" % got)
    check(complete(script, ["fabricbench", "run", "latency", "b"]) == [],
          "a second kernel word is offered")
    got = complete(script, ["fabricbench", "run", "--fa"])
    check("--fabric" in got and all(w.startswith("--fa") for w in got), "--fa -> %s" % got)
    opts = run_options(run_help())
    all_opts = complete(script, ["fabricbench", "run", "-"])
    check(set(opts) <= set(all_opts), "run - lacks %s" % sorted(set(opts) - set(all_opts)))
    for o in opts:
        check(o in complete(script, ["fabricbench", "run", o]), "%s does not complete" % o)
    conf = os.path.join(SRC, "share/fabricbench/fabrics.conf")
    names = ["any", "auto"] + profiles(conf)
    for words in (["--fabric", ""], ["--fabric", "=", ""], ["-m", "8", "--fabric", ""]):
        got = complete(script, ["fabricbench", "run"] + words)
        check(got == names, "run %s -> %s, not %s" % (words, got, names))
    got = complete(script, ["fabricbench", "run", "--fabric=t"])
    check(got == ["--fabric=" + n for n in names if n.startswith("t")], "--fabric=t -> %s" % got)
    own = os.path.join(WORKDIR, "site.conf")
    with open(own, "w") as f:
        f.write("[ib]\nmatch = rdma:ib\n[sitefab]\nmatch = net\n")
    got = complete(script, ["fabricbench", "run", "--fabrics-file", own, "--fabric", ""])
    check(got == ["any", "auto", "ib", "sitefab"], "--fabrics-file's names: %s" % got)
    # a hostile table: names a shell would expand are left out, never run
    hostile = os.path.join(WORKDIR, "hostile.conf")
    marker = os.path.join(WORKDIR, "ran")
    with open(hostile, "w") as f:
        f.write("[$(touch %s)]\nmatch = net\n[`touch %s`]\nmatch = net\n[a b]\nmatch = net\n"
                "[*]\nmatch = net\n[ok-1]\nmatch = net\n" % (marker, marker))
    got = complete(script, ["fabricbench", "run", "--fabrics-file", hostile, "--fabric", ""])
    check(got == ["any", "auto", "ok-1"] and not os.path.exists(marker),
          "a hostile table's names: %s (marker %s)" % (got, os.path.exists(marker)))
    # a table that is no regular file: refused at once, the build's names instead
    p = run([EXE, "completion", "fabrics", "--fabrics-file", "/dev/zero"], timeout=20)
    check(p.returncode == 2 and "not a regular file or a pipe" in p.stderr, "/dev/zero: %d %s" %
          (p.returncode, p.stderr))
    got = complete(script, ["fabricbench", "run", "--fabrics-file", "/dev/zero", "--fabric", ""])
    check(got == names, "with /dev/zero: %s" % got)
    big = os.path.join(WORKDIR, "big.conf")
    with open(big, "w") as f:
        f.write("# a comment\n" * 100000)
    p = run([EXE, "completion", "fabrics", "--fabrics-file", big], timeout=20)
    check(p.returncode == 2 and "over 1 MiB" in p.stderr, "a 1.2 MB table: %s" % p.stderr)
    p = run(["bash", "-c", "'%s' completion fabrics --fabrics-file "
             "<(printf '[piped]\\nmatch = net\\n')" % EXE])
    check(p.returncode == 0 and p.stdout.split() == ["any", "auto", "piped"],
          "a table from a pipe: %d %s %s" % (p.returncode, p.stdout, p.stderr))
    p = run([EXE, "completion", "zsh"])
    check(p.returncode == 2 and "no such shell" in p.stderr, "completion zsh: " + p.stderr)
    got = complete(script, ["fabricbench", "inventory", "--fabric", "r"])
    check(got == [n for n in names if n.startswith("r")], "inventory --fabric r -> %s" % got)
    # choices from run --help's "--NAME a|b|c"
    for name, choices in re.findall(r"^\s+--([\w-]+) ([a-z0-9_-]+(?:\|[a-z0-9_-]+)+)", run_help(),
                                    flags=re.M):
        if name == "fabric":
            continue
        got = complete(script, ["fabricbench", "run", "--" + name, ""])
        check(got == choices.split("|"), "--%s -> %s, not %s" % (name, got, choices))
    # files for FILE options, directories for DIR
    os.makedirs(os.path.join(WORKDIR, "dd"), exist_ok=True)
    open(os.path.join(WORKDIR, "res.h5"), "w").close()
    open(os.path.join(WORKDIR, "notes.txt"), "w").close()
    check("res.h5" in complete(script, ["fabricbench", "run", "-o", "re"]), "-o FILE")
    check(complete(script, ["fabricbench", "run", "--sysfs-root", "d"]) == ["dd"], "DIR")
    got = complete(script, ["fabricbench", "show", ""])
    check("res.h5" in got and "notes.txt" not in got and "dd" in got, "show -> %s" % got)
    # the other commands' options, from their --help
    for sub in ("inventory", "placement"):
        usage = ok([EXE, sub, "--help"], sub).stdout
        want = sorted(set(re.findall(r"--[a-z][\w-]*", usage)))
        got = complete(script, ["fabricbench", sub, "--"])
        check(sorted(set(got)) == want, "%s -- -> %s, not %s" % (sub, got, want))
    got = complete(script, ["fabricbench", "placement", "--placement", ""])
    check(got == ["auto", "nic", "numa", "core", "none"], "--placement -> %s" % got)
    # the tool cannot be run: the build's list of names
    env = clean_env(PATH=BASE_PATH)
    got = complete(script, ["/nonexistent/fabricbench", "run", "--fabric", ""], env=env)
    check(got == names, "without the tool: %s" % got)
    # the installed file, found by bash-completion's loader through XDG_DATA_DIRS
    prefix = install(os.path.join(WORKDIR, "prefix"))
    inst = os.path.join(prefix, "share/bash-completion/completions/fabricbench")
    check(open(inst).read() == open(script).read(), "installed completion differs")
    if os.path.isfile("/usr/share/bash-completion/bash_completion"):
        p = ok(["bash", "--norc", "--noprofile", "-c",
                "source /usr/share/bash-completion/bash_completion; __load_completion "
                "fabricbench && complete -p fabricbench"], "bash-completion's loader",
               env=clean_env(XDG_DATA_DIRS=os.path.join(prefix, "share")))
        check(p.stdout.strip() == "complete -F _fabricbench fabricbench", p.stdout)
    print("completion: %d commands, %d kernels, %d options, %d fabric names" %
          (len(cmds), len(ks), len(opts), len(names)))


# ----------------------------------------------------------------------------------- deb
def case_deb():
    for tool in ("dpkg", "dpkg-deb", "dpkg-shlibdeps"):
        if not shutil.which(tool):
            skip("%s is missing: apt-get install dpkg-dev" % tool)
    ver = version()
    out = os.path.join(WORKDIR, "pkg")
    ok([CPACK, "-G", "DEB", "--config", os.path.join(BUILD, "CPackConfig.cmake"), "-B", out],
       "cpack -G DEB", timeout=300, cwd=BUILD)
    arch = ok(["dpkg", "--print-architecture"], "dpkg").stdout.strip()
    deb = os.path.join(out, "fabricbench_%s_%s.deb" % (ver, arch))
    check(os.path.isfile(deb), "no %s: %s" % (deb, os.listdir(out)))
    info = ok(["dpkg-deb", "-f", deb], "dpkg-deb -f").stdout
    fields = dict(re.findall(r"^([\w-]+): (.*)$", info, flags=re.M))
    check(fields.get("Package") == "fabricbench" and fields.get("Version") == ver and
          fields.get("Architecture") == arch, "fields: %s" % fields)
    check(re.fullmatch(r"[^<>]+ <[^<>@\s]+@[^<>@\s]+>", fields.get("Maintainer", "")),
          "Maintainer: %r" % fields.get("Maintainer"))
    deps = [d.split()[0] for d in fields.get("Depends", "").split(", ")]
    for want in ("openmpi-bin", "python3", "python3-h5py", "python3-numpy",
                 "python3-matplotlib", "libopenmpi3", "libucx0", "libibverbs1", "libc6"):
        check(want in deps, "Depends lacks %s: %s" % (want, fields.get("Depends")))
    for lib in ("libhwloc", "libhdf5"):
        check(any(d.startswith(lib) for d in deps), "Depends lacks %s" % lib)
    # every dependency is there on this machine: apt would install the package alone
    if shutil.which("apt-get"):
        p = ok(["apt-get", "install", "-s", "--no-install-recommends", deb], "apt-get -s",
               timeout=120)
        inst = re.findall(r"^Inst (\S+)", p.stdout, flags=re.M)
        check(inst == ["fabricbench"], "apt would also install %s" % inst)
    control = os.path.join(WORKDIR, "control")
    ok(["dpkg-deb", "-e", deb, control], "dpkg-deb -e")
    for s in ("postinst", "prerm"):
        check(os.access(os.path.join(control, s), os.X_OK), "no executable " + s)
    # dpkg -i into a scratch root (never this machine's own)
    root = os.path.join(WORKDIR, "root")
    admin = os.path.join(root, "var/lib/dpkg")
    for d in ("updates", "info", "triggers"):
        os.makedirs(os.path.join(admin, d))
    open(os.path.join(admin, "status"), "w").close()
    dpkg = ["dpkg", "--root=" + root, "--force-script-chrootless", "--force-not-root",
            "--log=/dev/null"]
    ok(dpkg + ["--force-depends", "-i", deb], "dpkg -i into %s" % root, timeout=120)
    usr = os.path.join(root, "usr")
    p = ok([os.path.join(usr, "bin/fabricbench"), "--version"], "installed fabricbench",
           env=clean_env())
    check(p.stdout.startswith("fabricbench %s " % ver), p.stdout)
    p = ok(["man", "-w", "fabricbench"], "man -w",
           env=clean_env(MANPATH=os.path.join(usr, "share/man")))
    check(p.stdout.strip() == os.path.join(usr, "share/man/man1/fabricbench.1"), p.stdout)
    for rel in ("share/bash-completion/completions/fabricbench",
                "share/fabricbench/fabrics.conf", "share/doc/fabricbench/README.md",
                "share/doc/fabricbench/LICENSE", "share/doc/fabricbench/copyright",
                "share/fabricbench/modulefiles/fabricbench/" + ver):
        check(os.path.isfile(os.path.join(usr, rel)), "not in the package: /usr/" + rel)
    # Debian's machine-readable copyright file (DEP-5): the format line, the licence named
    # for every file and its text, the copyright holder
    cr = open(os.path.join(usr, "share/doc/fabricbench/copyright")).read()
    check(cr.startswith("Format: https://www.debian.org/doc/packaging-manuals/"
                        "copyright-format/1.0/\n"), "copyright: no DEP-5 Format line")
    check("\nFiles: *\nCopyright: 2026 the fabricbench authors\nLicense: BSD-3-Clause\n" in cr,
          "copyright: no Files: * paragraph naming the authors and BSD-3-Clause")
    check("\nLicense: BSD-3-Clause\n Redistribution and use" in cr,
          "copyright: no stand-alone BSD-3-Clause licence paragraph")
    for js in glob.glob(os.path.join(SRC, "jobscripts", "*.sbatch")):
        path = os.path.join(usr, "share/fabricbench/jobscripts", os.path.basename(js))
        check(os.access(path, os.X_OK), "job script missing: " + path)
        check('fb_bindir="/usr/bin"' in open(path).read(), path + " does not name /usr/bin")
    # /usr/lib/python3/dist-packages is /usr/bin/python3's own: the launcher adds nothing
    site = os.path.join(usr, "lib/python3/dist-packages")
    launcher = os.path.join(usr, "bin/fabricbench-analyze")
    check("PYTHONPATH" not in open(launcher).read(), "the /usr launcher sets PYTHONPATH")
    p = ok([PYTHON, "-c", "import fabricbench_analysis as m; print(m.__file__)"],
           "import from the package", env=clean_env(PYTHONPATH=site))
    check(p.stdout.strip() == os.path.join(site, "fabricbench_analysis/__init__.py"), p.stdout)
    p = ok([launcher, "--version"], "installed fabricbench-analyze",
           env=clean_env(PYTHONPATH=site))
    check(p.stdout.strip() == "fabricbench-analyze " + ver, p.stdout)
    ok(dpkg + ["--purge", "fabricbench"], "dpkg --purge", timeout=120)
    left = [os.path.join(d, f) for d, _, fs in os.walk(usr) for f in fs]
    check(not left, "left after --purge: %s" % left[:5])
    print("deb: %s (%d bytes), Depends %s; installed into a scratch root and purged" %
          (os.path.basename(deb), os.path.getsize(deb), fields.get("Depends")))


# ----------------------------------------------------------------------------------- pip
def case_pip():
    p = run([PYTHON, "-c", "import ensurepip, setuptools, wheel"])
    if p.returncode != 0:
        skip("python3-venv, python3-setuptools or python3-wheel is missing: %s" %
             p.stderr.strip().splitlines()[-1:])
    ver = version()
    src = os.path.join(WORKDIR, "src", "analysis")
    shutil.copytree(os.path.join(SRC, "analysis"), src,
                    ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info",
                                                  "tests"))
    venv = os.path.join(WORKDIR, "V")
    ok([PYTHON, "-m", "venv", "--system-site-packages", venv], "python3 -m venv", timeout=180)
    env = clean_env(PIP_DISABLE_PIP_VERSION_CHECK="1", PIP_NO_INPUT="1")
    ok([os.path.join(venv, "bin/pip"), "install", "--no-build-isolation", "--no-index", src],
       "pip install ./analysis", timeout=300, env=env, cwd=WORKDIR)
    p = ok([os.path.join(venv, "bin/python"), "-c",
            "import fabricbench_analysis as m, importlib.metadata as md; print(m.__file__); "
            "print(md.version('fabricbench-analysis'))"], "import in the venv", env=env,
           cwd=WORKDIR)
    where, dist_ver = p.stdout.split()
    check(where.startswith(venv + "/") and os.path.isfile(
        os.path.join(os.path.dirname(where), "schema.json")), "imported from %s" % where)
    check(dist_ver == ver, "the package's version %s, the project's %s" % (dist_ver, ver))
    script = os.path.join(venv, "bin/fabricbench-analyze")
    p = ok([script, "--version"], "the console script", env=env, cwd=WORKDIR)
    check(p.stdout.strip() == "fabricbench-analyze " + ver, p.stdout)
    # on a real result file
    h5 = os.path.join(WORKDIR, "r.h5")
    cmd = mpirun_cmd(2) + \
        [EXE, "run", "latency,bw", "-m", "8,64K", "-i", "100", "-x", "5", "--timer", "clock",
         "-q", "-o", h5]
    ok(cmd, "fabricbench run", timeout=180, env=mpi_env())
    p = ok([script, "summary", h5], "console script summary", env=env, cwd=WORKDIR)
    check("peak Gb/s" in p.stdout, "summary: " + p.stdout)
    print("pip: installed into %s, imported, console script ran summary" % venv)


CASES = {"tree": case_tree, "module": case_module, "man": case_man,
         "completion": case_completion, "deb": case_deb, "pip": case_pip}

if __name__ == "__main__":
    if CASE not in CASES:
        fail("unknown case %s (%s)" % (CASE, ", ".join(CASES)))
    CASES[CASE]()
    print("PASS: install.%s" % CASE)
