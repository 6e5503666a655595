#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-sided kernels against OSU's one-sided programs, interleaved (A B A B ...), in the same
# mode (-w allocate -s flush: fabricbench's defaults), pml ucx for both (fabricbench's default).
# Prints one line per round and size: the two numbers and their ratio (fabricbench / OSU).
# usage: bench/rma_vs_osu.sh FABRICBENCH OSU_ONE_SIDED_DIR [ROUNDS]
set -eu
FB=$1 OSU=$2 ROUNDS=${3:-5}
MPI=(mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none --mca pml ucx
     -x OMPI_MCA_pml_ucx_tls=any -x OMPI_MCA_pml_ucx_devices=any)
export OMPI_MCA_orte_tmpdir_base=$(mktemp -d)
# kernel osu-program column sizes
CASES=("put_lat osu_put_latency loop_us" "get_lat osu_get_latency loop_us" "put_bw osu_put_bw MBps")
fb() { # kernel column size iterations
    "${MPI[@]}" "$FB" run "$1" -m "$3" -i "$4" -x "$(($4 / 10))" --csv - 2>/dev/null |
        python3 -c "import csv,sys; r=list(csv.DictReader(sys.stdin)); print(r[-1]['$2'])"
}
osu() { # program size iterations
    "${MPI[@]}" "$OSU/$1" -m "$2:$2" -i "$3" -x "$(($3 / 10))" 2>/dev/null |
        awk -v s="$2" '$1 == s { print $2 }'
}
for r in $(seq 1 "$ROUNDS"); do
    for c in "${CASES[@]}"; do
        set -- $c
        for s in 8 4096 1048576; do
            it=20000; [ "$s" -ge 1048576 ] && it=200; [ "$3" = MBps ] && it=$((it / 20))
            a=$(fb "$1" "$3" "$s" "$it"); b=$(osu "$2" "$s" "$it")
            echo "round $r $1 $s fabricbench $a osu $b ratio $(python3 -c "print('%.3f' % ($a / $b))")"
        done
    done
done
