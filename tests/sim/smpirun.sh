#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run the simulated build of fabricbench (cmake -DFAB_SIM=ON; the main build makes one in
# build/sim) on a simulated 2-level fat tree (tests/sim/fattree.cpp), one rank per node.
#
#   tests/sim/smpirun.sh [-s SIMDIR] [-w WORKDIR] LEAVES HOSTS_PER_LEAF [SLOW] -- ARGS...
#
# runs `smpirun ... SIMDIR/fabricbench ARGS` on LEAVES x HOSTS_PER_LEAF nodes node-0, node-1,
# ...; WORKDIR/switches (written by the platform) maps them to leaf switches for
# `fabricbench run ... --switches WORKDIR/switches`. SLOW sets FT_SLOW (node-5=3.125e9,
# leaf2-spine5=1e9, leaf2-spine5:down=1e9, ...: fattree.cpp's header). FT_* variables in the
# environment pass through (FT_BW, FT_LAT, FT_UPBW, FT_SPINES, FT_DELAY, FT_DUMP).
# SIMDIR defaults to build/sim, WORKDIR to the current directory. The exit code is
# fabricbench's. These are simulated times: a test of the tool's logic, never a measurement.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
simdir=$here/../../build/sim
work=$PWD
while getopts s:w: opt; do
    case $opt in
    s) simdir=$OPTARG ;;
    w) work=$OPTARG ;;
    *) exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if [ $# -lt 3 ]; then
    sed -n '2,14p' "$0" >&2
    exit 2
fi
leaves=$1 hosts=$2
shift 2
if [ "$1" != -- ]; then
    export FT_SLOW=$1
    shift
fi
[ "${1:-}" = -- ] && shift
for f in fabricbench fattree.so; do
    [ -e "$simdir/$f" ] || {
        echo "smpirun.sh: no $simdir/$f (build with SimGrid installed)" >&2
        exit 3
    }
done
command -v smpirun >/dev/null || {
    echo "smpirun.sh: no smpirun (apt-get install libsimgrid-dev)" >&2
    exit 3
}
n=$((leaves * hosts))
mkdir -p "$work"
for ((i = 0; i < n; i++)); do echo "node-$i"; done >"$work/hosts"
export FT_LEAVES=$leaves FT_HOSTS=$hosts FT_SWITCHES=$work/switches
export FT_BW=${FT_BW:-12.5e9} FT_LAT=${FT_LAT:-0.17e-6}
# The libraries the simulated tool still links (UCX) warn at exit about signals they never set.
export UCX_LOG_LEVEL=${UCX_LOG_LEVEL:-error}
# SimGrid's defaults model TCP: a latency factor of about 2, bandwidth at 94% and TCP-ACK
# cross traffic that makes healthy pairs look 30% slow. Off for an RDMA-like fabric; the ompi
# selector picks Open MPI's collective algorithms (../docs/DEVELOPING.md, "Simulation").
cfg=(--cfg=smpi/bw-factor:0:1 --cfg=smpi/lat-factor:0:1 --cfg=network/crosstraffic:0
    --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:1e9f
    --cfg=smpi/coll-selector:ompi --log=root.thres:warning)
# SIM_CFG: more settings for smpirun, words separated by spaces (a test's own --cfg=...).
read -r -a more <<<"${SIM_CFG:-}"
cfg+=("${more[@]}")
exec smpirun -np "$n" -platform "$simdir/fattree.so" -hostfile "$work/hosts" "${cfg[@]}" \
    "$simdir/fabricbench" "$@"
