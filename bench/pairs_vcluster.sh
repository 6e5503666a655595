#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The pairs kernels on N real network namespaces (tests/lib/vcluster.sh): the time per round and
# the result file's size, for docs/PERFORMANCE.md. Not a test: it measures this machine.
#
# usage: bench/pairs_vcluster.sh [NODES [SCHEDULE [RATE [-- fabricbench run options]]]]
#        defaults: 4 rounds none (RATE: an htb limit on fab0 such as 250mbit; none: unshaped)
# env:   BUILD_DIR (default build), VC_NAME (default fbbench)
# Needs root, ip, tc; cleans up its namespaces on exit.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
nodes=${1:-4} schedule=${2:-rounds} rate=${3:-none}
shift $(($# < 3 ? $# : 3))
[ "${1:-}" = -- ] && shift
export VC_NAME=${VC_NAME:-fbbench}
vc=$src/tests/lib/vcluster.sh
work=$(mktemp -d /var/tmp/fbbench-XXXXXX)
chmod 755 "$work"
cleanup() { "$vc" down >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$vc" up "$nodes" >/dev/null
[ "$rate" = none ] || "$vc" shape 0 "$rate" >/dev/null
hosts=$("$vc" nodes | paste -sd,)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
for k in pairs_latency pairs_bw; do
    out=$work/$k.h5
    t0=$(date +%s.%N)
    "$vc" exec vnode1 mpirun --mca plm_rsh_agent "$("$vc" agent-path)" --host "$hosts" \
        -np "$nodes" --bind-to none --mca mpi_yield_when_idle 1 "$build/fabricbench" run "$k" \
        --fabric tcp --device fab0 --schedule "$schedule" --placement none -o "$out" "$@" \
        >"$work/$k.out" 2>"$work/$k.err" || true
    t1=$(date +%s.%N)
    rounds=$(grep -c "round .* done" "$work/$k.err" || true)
    verdict=$(sed -n 's/^# verdict: //p' "$work/$k.out")
    printf '%s: %d nodes, %s schedule, fab0 %s: %.1f s in all; %s\n' "$k" "$nodes" \
        "$schedule" "$rate" "$(echo "$t1 - $t0" | bc)" "$verdict"
    grep "progress" "$work/$k.err" | sed 's/^/  /'
    grep "^# \(suspect\|slow:\|line rate\)" "$work/$k.out" | sed 's/^/  /' || true
    printf '  file: %s bytes\n' "$(stat -c %s "$out")"
done
