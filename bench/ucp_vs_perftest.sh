#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The UCP kernels against ucx_perftest (Debian's ucx-utils), interleaved (A B A B ...), two
# processes on this host with the same transports for both (UCX_TLS for ucx_perftest,
# --ucp-tls for fabricbench's own UCX context). Prints one line per round, transport, test and
# size: the two numbers and their ratio (fabricbench / ucx_perftest). Latency: fabricbench's
# loop_us (total time / iterations, halved: one way) against ucx_perftest's overall latency
# (the same, halved for its ping-pongs); bandwidth: MB/s, 10^6 bytes a second for both
# (ucx_perftest prints MiB/s: converted). The same number of messages for both. Latency lines
# also give the medians (fabricbench's p50_us, ucx_perftest's 50.0%ile) and their ratio: on a
# loaded machine the means are mostly the scheduler's.
# usage: bench/ucp_vs_perftest.sh FABRICBENCH [ROUNDS] [TLS ...]
# (FAB_UCP_CASES="ucp_tag_lat tag_lat loop_us;..." narrows the cases; a case's fourth field is
# an option for ucx_perftest, e.g. -O1: one operation outstanding for ucp_get_lat, whose
# latency, as ucx_perftest's for ucp_get, is not halved; FAB_UCP_FB_ARGS="--ucp-same-buffer"
# adds options to every fabricbench run: ucx_perftest's one buffer for ucp_put_bw and
# ucp_get_bw)
# Elsewhere than on this host's loopback (bench/ucp_vs_perftest_nodes.sh: two network
# namespaces): FAB_UCP_MPI="mpirun ..." replaces fabricbench's launcher (split on spaces),
# FAB_UCP_SERVER and FAB_UCP_CLIENT prefix ucx_perftest's server and client commands (split
# on spaces), FAB_UCP_PEER is the address the client connects to (127.0.0.1).
set -eu
FB=$1 ROUNDS=${2:-5}
shift $(($# < 2 ? $# : 2))
TLSES=("$@")
[ ${#TLSES[@]} -eq 0 ] && TLSES=("posix,self" "tcp,self")
MPI=(mpirun --allow-run-as-root --oversubscribe -np 2 --bind-to none)
if [ -n "${FAB_UCP_MPI:-}" ]; then read -r -d '' -a MPI <<<"$FAB_UCP_MPI" || true; fi
SERVER=() CLIENT=()
if [ -n "${FAB_UCP_SERVER:-}" ]; then read -r -d '' -a SERVER <<<"$FAB_UCP_SERVER" || true; fi
if [ -n "${FAB_UCP_CLIENT:-}" ]; then read -r -d '' -a CLIENT <<<"$FAB_UCP_CLIENT" || true; fi
SESSION=$(mktemp -d) CSV=$(mktemp)
export OMPI_MCA_orte_tmpdir_base=$SESSION
trap 'rm -rf "$SESSION" "$CSV"' EXIT
PORT=$((20000 + RANDOM % 20000))
# fabricbench-kernel ucx_perftest-test column [ucx_perftest option]
CASES=("ucp_tag_lat tag_lat loop_us" "ucp_put_lat ucp_put_lat loop_us" "ucp_tag_bw tag_bw MBps"
       "ucp_put_bw ucp_put_bw MBps" "ucp_get_lat ucp_get loop_us -O1" "ucp_am_bw ucp_am_bw MBps")
[ -n "${FAB_UCP_CASES:-}" ] && IFS=';' read -r -a CASES <<<"$FAB_UCP_CASES"
fb() { # tls kernel column size iterations (latency: loop_us and p50_us); the CSV to a file
    # read after the run (a reader in a pipe would start beside the measurement)
    : >"$CSV" # a failed run prints nothing, never the case before's row
    # shellcheck disable=SC2086 # FAB_UCP_FB_ARGS: options, split on purpose
    "${MPI[@]}" "$FB" run "$2" --ucp-tls "$1" -m "$4" -i "$5" -x "$(($5 / 10))" \
        ${FAB_UCP_FB_ARGS:-} -q -o none --csv "$CSV" --force >/dev/null 2>&1 || return 0
    python3 -c "import csv,sys; r=[r for r in csv.DictReader(open(sys.argv[1])) if r['bytes'] == '$4']
print(r[-1]['$3'], r[-1]['p50_us'] if '$3' == 'loop_us' else '') if r else None" "$CSV"
}
perftest() { # tls test column size iterations [option]: server in the background, client here
    local out
    # shellcheck disable=SC2086 # $6: an option or none, split on purpose
    # both bounded: a client that came before the server listened leaves it waiting
    UCX_TLS=$1 timeout 120 "${SERVER[@]}" ucx_perftest -p "$PORT" -t "$2" -s "$4" -n "$5" \
        -w "$(($5 / 10))" -f ${6:-} >/dev/null 2>&1 &
    sleep 0.5
    # shellcheck disable=SC2086 # as above
    out=$(UCX_TLS=$1 timeout 120 "${CLIENT[@]}" ucx_perftest "${FAB_UCP_PEER:-127.0.0.1}" -p "$PORT" \
        -t "$2" -s "$4" -n "$5" -w "$(($5 / 10))" -f ${6:-} 2>/dev/null)
    wait || true
    PORT=$((PORT + 1))
    # -f: one line "iterations p50 average overall(us) average overall(MiB/s) average overall"
    echo "$out" | awk -v col="$3" 'NF == 8 && $1 ~ /^[0-9]+$/ {
        if (col == "loop_us") print $4, $2; else printf "%.2f\n", $6 * 1048576 / 1e6 }'
}
for r in $(seq 1 "$ROUNDS"); do
    for tls in "${TLSES[@]}"; do
        for c in "${CASES[@]}"; do
            # shellcheck disable=SC2086 # a case's fields, split on purpose
            set -- $c
            for s in 8 1048576; do
                # n messages for both: fabricbench's bandwidth iteration is a window of 64
                if [ "$3" = MBps ]; then
                    n=64000; [ "$s" -ge 1048576 ] && n=1280; it=$((n / 64))
                else
                    n=20000; [ "$s" -ge 1048576 ] && n=1000; it=$n
                fi
                read -r a ap <<<"$(fb "$tls" "$1" "$3" "$s" "$it")"
                read -r b bp <<<"$(perftest "$tls" "$2" "$3" "$s" "$n" "${4:-}")"
                echo "round $r $tls $1 $s fabricbench ${a:-failed} perftest ${b:-failed} ratio" \
                    "$(python3 -c "print('%.3f' % ($a / $b))" 2>/dev/null || echo n/a)" \
                    ${ap:+"p50 $ap ${bp:-failed} ratio $(python3 -c "print('%.3f' % ($ap / $bp))" 2>/dev/null || echo n/a)"}
            done
        done
    done
done
