#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-sided kernels against OSU's one-sided programs across two nodes: two network
# namespaces of tests/lib/vcluster.sh joined over TCP (fab0), osc ucx (Debian's Open MPI
# excludes it by default, and its default osc rdma makes no window across nodes over TCP),
# interleaved (A B A B ...), in the same mode (-w allocate -s flush; put_bibw pscw). There an
# operation takes microseconds, so neither tool's clock (OSU reads MPI_Wtime twice an
# iteration, fabricbench its clock once) weighs in the comparison, as it does within one host
# (bench/rma_vs_osu.sh). Prints the lines of bench/rma_vs_osu.sh: one per round, kernel and
# size, the two numbers, their ratio (fabricbench / OSU) and fabricbench's row quality. Not a
# test: it measures this machine.
#
# usage: bench/rma_vs_osu_nodes.sh FABRICBENCH OSU_ONE_SIDED_DIR [ROUNDS]
# env:   FAB_RMA_CASES as bench/rma_vs_osu.sh's ("kernel program column sizes [OSU options]"
#        separated by ';'), VC_NAME (default fbrma)
# Needs root, ip, tc; cleans up its namespaces on exit.
set -euo pipefail
FB=$(realpath "$1") OSU=$(realpath "$2") ROUNDS=${3:-5}
src=$(cd "$(dirname "$0")/.." && pwd)
export VC_NAME=${VC_NAME:-fbrma}
vc=$src/tests/lib/vcluster.sh
work=$(mktemp -d /var/tmp/fbrma-XXXXXX)
chmod 755 "$work"
CSV=$work/fb.csv
cleanup() { "$vc" down >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
"$vc" up 2 >/dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_orte_tmpdir_base=$work
hosts=vnode1,vnode2 btl=^openib,tcp,vader tls=tcp,self
MPI=("$vc" exec vnode1 mpirun --mca plm_rsh_agent "$("$vc" agent-path)" --host "$hosts"
     -np 2 --bind-to none --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any
     --mca btl "$btl" --mca osc ucx -x UCX_TLS="$tls" -x UCX_NET_DEVICES=fab0)
ALL=8,4096,1048576
CASES=("put_lat osu_put_latency loop_us $ALL" "get_lat osu_get_latency loop_us $ALL"
       "put_bw osu_put_bw MBps $ALL" "get_bw osu_get_bw MBps $ALL"
       "put_bibw osu_put_bibw MBps $ALL" "acc_lat osu_acc_latency loop_us $ALL -T mpi_int"
       "fop_lat osu_fop_latency loop_us 4 -T mpi_int" "cas_lat osu_cas_latency loop_us 4 -T mpi_int")
[ -n "${FAB_RMA_CASES:-}" ] && IFS=';' read -r -a CASES <<<"$FAB_RMA_CASES"
fb() { # kernel column size iterations: the column, then the row's quality
    : >"$CSV"
    "${MPI[@]}" "$FB" run "$1" -m "$3" -i "$4" -x "$(($4 / 10))" -q -o none --csv "$CSV" \
        --force >/dev/null 2>&1 || { echo "failed -"; return; }
    python3 -c "import csv,sys; r=[r for r in csv.DictReader(open(sys.argv[1])) if r['bytes'] == '$3']
print(r[-1]['$2'], r[-1]['quality']) if r else print('failed -')" "$CSV"
}
osu() { # program size iterations [options]: its row for the size
    local p=$1 s=$2 it=$3
    shift 3
    "${MPI[@]}" "$OSU/$p" -m "$s:$s" -i "$it" -x "$((it / 10))" "$@" 2>/dev/null |
        awk -v s="$s" '$1 == s { print $2; exit }'
}
for r in $(seq 1 "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        # shellcheck disable=SC2086 # a case's fields, split on purpose
        set -- $c
        k=$1 prog=$2 col=$3 sizes=${4:-$ALL}
        shift $(($# < 4 ? $# : 4))
        for s in ${sizes//,/ }; do
            it=2000; [ "$s" -ge 1048576 ] && it=200; [ "$col" = MBps ] && it=$((it / 20))
            [ "$it" -lt 20 ] && it=20
            read -r a q <<<"$(fb "$k" "$col" "$s" "$it")"
            b=$(osu "$prog" "$s" "$it" "$@")
            echo "round $r $k $s fabricbench $a osu ${b:-none} ratio" \
                "$(python3 -c "print('%.3f' % ($a / $b))" 2>/dev/null || echo n/a) quality $q"
        done
    done
done
