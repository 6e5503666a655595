#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Set up fabricbench on Debian 12 and either run the default benchmark or the test suite.
#
#   scripts/quickstart.sh bench   install what is missing, build the tool, run the point-to-point
#                                 suite with 2 local ranks (mpirun -np 2 --bind-to none
#                                 fabricbench run)
#   scripts/quickstart.sh test    install what is missing, build (warnings are errors), run
#                                 the whole test suite with ctest
#
# Environment: BUILD_DIR (default build), MPIRUN_ARGS (extra mpirun options for `bench`),
# FABRICBENCH_ARGS (extra `fabricbench run` options for `bench`).
set -euo pipefail

mode=${1:-}
case "$mode" in
bench | test) ;;
*)
    echo "usage: $0 bench|test" >&2
    exit 2
    ;;
esac

src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}

# Everything comes from Debian's archive. `bench` takes what building and running the tool
# needs (python3: CMake asks it where the analysis would be installed); `test` adds the
# analysis's modules, the tools the tests use and the peers they run.
packages=(cmake make gcc pkg-config git python3
    openmpi-bin libopenmpi-dev libucx-dev libhwloc-dev libibverbs-dev libhdf5-dev)
[ "$mode" = test ] && packages+=(ucx-utils hwloc hdf5-tools
    python3-numpy python3-h5py python3-matplotlib python3-pytest)
# analysis.mypy type-checks the analysis package (analysis/pyproject.toml, [tool.mypy]).
[ "$mode" = test ] && packages+=(python3-mypy)
# The test suite also checks formatting against the committed .clang-format.
[ "$mode" = test ] && packages+=(clang-format)
# The multi-node tests (tests/cluster) build a virtual cluster with ip and tc.
[ "$mode" = test ] && packages+=(iproute2)
# The --prom test (tests/mpi/test_node_exporter.py) scrapes the real node-exporter.
[ "$mode" = test ] && packages+=(prometheus-node-exporter)
# The Slurm tests (tests/slurm) run the job scripts on a real Slurm with munge.
[ "$mode" = test ] && packages+=(slurm-wlm slurmctld slurmd slurm-client munge)
# The sim tests (tests/sim) run a SimGrid build of the tool on a simulated fat tree: smpicc,
# smpirun and libsimgrid, and g++ for the platform plugin.
[ "$mode" = test ] && packages+=(libsimgrid-dev g++)
# The install tests (tests/install): man and its pages, bash completion's loader, the .deb
# (dpkg-shlibdeps), pip install of the analysis into a venv, and a real module command:
# environment-modules, unless Lmod (which conflicts with it) is there already.
[ "$mode" = test ] && packages+=(man-db bash-completion dpkg-dev python3-venv
    python3-setuptools python3-wheel)
if [ "$mode" = test ] &&
    ! dpkg-query -W -f='${Status}' lmod 2>/dev/null | grep -q "install ok installed"; then
    packages+=(environment-modules)
fi

missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "quickstart: installing ${missing[*]}"
    sudo=()
    if [ "$(id -u)" -ne 0 ]; then
        command -v sudo >/dev/null || {
            echo "quickstart: need root (or sudo) to install: ${missing[*]}" >&2
            exit 3
        }
        sudo=(sudo)
    fi
    "${sudo[@]}" apt-get update -qq
    DEBIAN_FRONTEND=noninteractive "${sudo[@]}" apt-get install -y -qq --no-install-recommends \
        "${missing[@]}"
fi

werror=OFF
[ "$mode" = test ] && werror=ON
# Build messages go to stderr, so that stdout of `bench` is the result table alone.
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFAB_WERROR=$werror >&2
if [ "$mode" = test ]; then
    cmake --build "$build" -j "$(nproc)" >&2
else
    # the tool alone: not the sanitizer copies, the unit tests or the simulator's variant
    cmake --build "$build" -j "$(nproc)" --target fabricbench >&2
fi

if [ "$mode" = test ]; then
    cd "$build"
    # as many tests at once as the machine has CPUs: one MPI test at a time (the MPI and Slurm
    # tests share a lock), the tests without MPI (unit, style, fuzz, the analysis parts, sim)
    # beside it, the cluster tests alone (RUN_SERIAL; docs/DEVELOPING.md, "Tests")
    exec ctest --output-on-failure --timeout 600 -j "$(nproc)"
fi

mpirun_opts=()
# Open MPI refuses to start as root unless told; a benchmark machine is often used as root.
[ "$(id -u)" -eq 0 ] && mpirun_opts+=(--allow-run-as-root)
[ "$(nproc)" -lt 2 ] && mpirun_opts+=(--oversubscribe)
# No core binding: on a machine that also runs other work (a laptop, a shared VM) pinned ranks
# sharing a busy core wait for scheduler ticks (README, "Running"). MPIRUN_ARGS can bind.
mpirun_opts+=(--bind-to none)
# shellcheck disable=SC2086
exec mpirun -np 2 "${mpirun_opts[@]}" ${MPIRUN_ARGS:-} "$build/fabricbench" run ${FABRICBENCH_ARGS:-}
