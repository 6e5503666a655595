#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-sided kernels against OSU's one-sided programs, interleaved (A B A B ...), in the same
# mode (-w allocate -s flush: fabricbench's defaults; put_bibw pscw, both tools' default), pml
# ucx for both (fabricbench's default). Prints one line per round, kernel and size: the two
# numbers, their ratio (fabricbench / OSU) and the quality fabricbench gave its row.
# usage: bench/rma_vs_osu.sh FABRICBENCH OSU_ONE_SIDED_DIR [ROUNDS]
# FAB_RMA_CASES="put_lat osu_put_latency loop_us 8,4096;..." narrows the cases: kernel, OSU
# program, fabricbench's column, sizes, then OSU's own options (-T mpi_int: the int32 that
# fabricbench's accumulates and atomics use, OSU's default MPI_CHAR; osu_get_acc_latency has
# only MPI_CHAR, 4 times as many (1-byte) elements for the same bytes, and lock as its default:
# -s flush). Sizes left out: 8 B, 4 KiB and 1 MiB. FAB_RMA_FB_ARGS="--timer clock" gives
# fabricbench's runs more options (there: the clock OSU's MPI_Wtime reads).
# FAB_RMA_MPI="mpirun ..." replaces the launcher (split on spaces: bench/rma_vs_osu_nodes.sh's
# across two network namespaces); FAB_RMA_ITERS and FAB_RMA_ITERS_LARGE the latency
# iterations below 1 MiB and from 1 MiB on (20000, 200), bandwidth a twentieth of those, and
# FAB_RMA_MIN_ITERS the fewest of any row (none).
set -eu
FB=$1 OSU=$2 ROUNDS=${3:-5}
MPI=(mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca pml ucx
     -x OMPI_MCA_pml_ucx_tls=any -x OMPI_MCA_pml_ucx_devices=any)
if [ -n "${FAB_RMA_MPI:-}" ]; then read -r -d '' -a MPI <<<"$FAB_RMA_MPI" || true; fi
ITERS=${FAB_RMA_ITERS:-20000} ITERS_LARGE=${FAB_RMA_ITERS_LARGE:-200} MIN=${FAB_RMA_MIN_ITERS:-1}
SESSION=$(mktemp -d) CSV=$(mktemp)
export OMPI_MCA_orte_tmpdir_base=$SESSION
trap 'rm -rf "$SESSION" "$CSV"' EXIT
ALL=8,4096,1048576
CASES=("put_lat osu_put_latency loop_us $ALL" "get_lat osu_get_latency loop_us $ALL"
       "put_bw osu_put_bw MBps $ALL" "get_bw osu_get_bw MBps $ALL"
       "put_bibw osu_put_bibw MBps $ALL" "acc_lat osu_acc_latency loop_us $ALL -T mpi_int"
       "get_acc_lat osu_get_acc_latency loop_us $ALL -s flush"
       "fop_lat osu_fop_latency loop_us 4 -T mpi_int" "cas_lat osu_cas_latency loop_us 4 -T mpi_int")
[ -n "${FAB_RMA_CASES:-}" ] && IFS=';' read -r -a CASES <<<"$FAB_RMA_CASES"
fb() { # kernel column size iterations: the column, then the row's quality (a row fabricbench
    # marks disturbed ran while a rank waited for a core: a 4 ms scheduler slice in a 4 ms row).
    # The CSV goes to a file read after the run: a reader in a pipe (python's start-up) would
    # run beside the measurement, on a machine whose two cores the two ranks keep busy.
    # An empty file first: a failed run prints "failed", never the case before's row.
    : >"$CSV"
    # shellcheck disable=SC2086 # FAB_RMA_FB_ARGS: options, split on purpose
    "${MPI[@]}" "$FB" run "$1" -m "$3" -i "$4" -x "$(($4 / 10))" ${FAB_RMA_FB_ARGS:-} -q -o none \
        --csv "$CSV" --force >/dev/null 2>&1 || { echo "failed -"; return; }
    python3 -c "import csv,sys; r=[r for r in csv.DictReader(open(sys.argv[1])) if r['bytes'] == '$3']
print(r[-1]['$2'], r[-1]['quality']) if r else print('failed -')" "$CSV"
}
osu() { # program size iterations [options]: its row for the size (the atomics: their one row)
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
            it=$ITERS; [ "$s" -ge 1048576 ] && it=$ITERS_LARGE; [ "$col" = MBps ] && it=$((it / 20))
            [ "$it" -lt "$MIN" ] && it=$MIN
            read -r a q <<<"$(fb "$k" "$col" "$s" "$it")"
            b=$(osu "$prog" "$s" "$it" "$@")
            echo "round $r $k $s fabricbench $a osu ${b:-none} ratio" \
                "$(python3 -c "print('%.3f' % ($a / $b))" 2>/dev/null || echo n/a) quality $q"
        done
    done
done
