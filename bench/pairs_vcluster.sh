#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The pairs kernels on N real network namespaces (tests/lib/vcluster.sh): the wall time, the
# rounds and retests, the verdict and the result file's size, for docs/PERFORMANCE.md. Not a
# test: it measures this machine.
#
# usage: bench/pairs_vcluster.sh [NODES [SCHEDULE [RATE [-- fabricbench run options]]]]
#        defaults: 4 rounds none (RATE: an htb limit on every node's fab0 such as 1gbit;
#        none: unshaped)
# env:   BUILD_DIR (default build), VC_NAME (default fbbench),
#        SLOW=NODE:RATE  one node's fab0 limited to RATE after RATE (e.g. vnode3:250mbit),
#        KERNELS (default pairs_latency,pairs_bw: each run on its own),
#        TIMEOUT seconds per run (default 900; a run cut short says so)
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
slow=${SLOW:-}
[ -z "$slow" ] || "$vc" shape 0 "${slow#*:}" "${slow%%:*}" >/dev/null
hosts=$("$vc" nodes | paste -sd,)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
for k in ${KERNELS:-pairs_latency pairs_bw}; do
    out=$work/$k.h5
    t0=$(date +%s.%N)
    rc=0
    timeout "${TIMEOUT:-900}" "$vc" exec vnode1 mpirun --mca plm_rsh_agent "$("$vc" agent-path)" \
        --host "$hosts" -np "$nodes" --bind-to none --mca mpi_yield_when_idle 1 \
        "$build/fabricbench" run "$k" --fabric tcp --device fab0 --schedule "$schedule" \
        --placement none -o "$out" "$@" >"$work/$k.out" 2>"$work/$k.err" || rc=$?
    t1=$(date +%s.%N)
    verdict=$(sed -n 's/^# verdict: //p' "$work/$k.out")
    [ "$rc" = 124 ] && verdict="cut short after ${TIMEOUT:-900} s"
    printf '%s: %d nodes, %s schedule, fab0 %s%s: %.1f s in all, exit %s; %s\n' "$k" "$nodes" \
        "$schedule" "$rate" "${slow:+, $slow}" "$(echo "$t1 - $t0" | bc)" "$rc" "$verdict"
    grep "progress" "$work/$k.err" | sed 's/^/  /' || true
    # the row (every pair one sample), the time taken and the verdict
    grep -E "^ +[0-9]+ |^# $k: .* measured in|^# (suspect|slow:|line rate|retest|only under)" \
        "$work/$k.out" | sed 's/^/  /' || true
    [ -f "$out" ] && printf '  file: %s bytes\n' "$(stat -c %s "$out")"
    echo "  load after: $(cut -d' ' -f1-3 /proc/loadavg)"
done
