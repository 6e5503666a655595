#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The socket kernels against the tools their users know (issue 18's fidelity benchmark; not a
# test). In one go, ROUNDS rounds; in each round every case runs once with fabricbench (A) and
# once with its peer tool (B), A B in odd rounds and B A in even ones, so both tools see the
# same minutes of a shared machine:
#   stream   loopback: tcp_stream --streams 1 and 4 against iperf3 -P 1 and -P 4
#   rr       loopback: tcp_rr -m SIZE against sockperf ping-pong --tcp -m SIZE, each RR_SIZES
#   udp      loopback: udp_rate --rate UDP_RATE -m 1460 against iperf3 -u -b UDP_RATE -l 1460
#            (skipped, with a note, while `fabricbench list` has no udp_rate)
#   vc       the same (stream, rr, udp at VC_UDP_RATE) between two nodes of the virtual cluster
#            (tests/lib/vcluster.sh), fab0 shaped to VC_RATE: fabricbench --fabric tcp
#            --device fab0 through mpirun inside vnode1, the peers' servers in vnode2 and their
#            clients in vnode1, all on the fab0 addresses
# The peers' servers are started here (loopback: free ports on 127.0.0.1; the cluster: vnode2's
# fab0 address) and ended on exit, also on a failure or a signal; every client and every
# fabricbench run has a time-out. Then bench/sockets_vs_peers.py prints per case the medians
# over the rounds, fabricbench / peer, each tool's spread (max - min) / median and the issue's
# targets (throughput within 5% of iperf3, p50 within 10% of sockperf). docs/PERFORMANCE.md,
# "Issue 18".
#
# usage: bench/sockets_vs_peers.sh [ROUNDS]               (default 5)
#        bench/sockets_vs_peers.sh --window-scan [ROUNDS]  loopback tcp_stream, 1 stream, at
#            each -w of WINDOWS, every one paired with its own iperf3 -P 1 run (which -w is
#            closest to iperf3's continuous stream)
# env:   PARTS        the cases to run, words of: stream rr udp vc (default: all four)
#        DURATION     measured seconds per run (default 2): iperf3 -t, sockperf -t, fabricbench -t
#        OMIT         seconds streamed before measuring (default 1; whole seconds, as iperf3
#                     3.12 reads -O): iperf3 -O, tcp_stream --omit
#        RR_SIZES     message sizes of the ping-pong, bytes (default "64 1024 16384")
#        UDP_RATE     loopback UDP rate, payload bits/s with K/M/G = 10^3/6/9 (default 1G)
#        VC_RATE      the htb limit on the cluster's fab0 (default 1gbit)
#        VC_UDP_RATE  the cluster's UDP rate (default 900M: below VC_RATE with headers)
#        WINDOWS      --window-scan's -w values (default "16 64 256 1024")
#        BUILD_DIR    (default build)
#        MPIRUN_ARGS  (default: --bind-to none --mca mpi_yield_when_idle 1, as the cluster
#                     tests run; the peers are not bound either)
#        FABRICBENCH_ARGS  extra options for every fabricbench run (default none)
#        OUT          where the raw outputs go (default: a new directory under /tmp); kept
#        VC_NAME      the cluster's instance name (default fbsvp<pid>)
# exit:  0 done; 1 a run failed (the report says which; its output is kept); 2 a tool or a
#        permission is missing (the message says what to install)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
fb=$build/fabricbench
mode=compare
if [ "${1:-}" = --window-scan ]; then mode=windows; shift; fi
rounds=${1:-5}
parts=${PARTS:-stream rr udp vc}
[ "$mode" = windows ] && parts=stream
dur=${DURATION:-2}
omit=${OMIT:-1}
rr_sizes=${RR_SIZES:-64 1024 16384}
udp_rate=${UDP_RATE:-1G}
vc_rate=${VC_RATE:-1gbit}
vc_udp_rate=${VC_UDP_RATE:-900M}
windows=${WINDOWS:-16 64 256 1024}
vc=$src/tests/lib/vcluster.sh
me=sockets_vs_peers

die() { echo "$me: $*" >&2; exit 1; }
missing() { echo "$me: $*" >&2; exit 2; }
has() { [[ " $parts " == *" $1 "* ]]; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || missing "ROUNDS must be a positive whole number (got '$rounds')"
[[ "$omit" =~ ^[0-9]+$ ]] || missing "OMIT must be whole seconds (iperf3 3.12 reads -O as an integer; got '$omit')"
[[ "$dur" =~ ^[1-9][0-9]*$ ]] || missing "DURATION must be whole seconds (sockperf -t; got '$dur')"
for p in $parts; do
    case $p in stream | rr | udp | vc) ;; *) missing "PARTS: unknown part '$p' (stream rr udp vc)" ;; esac
done

# --- what the parts need --------------------------------------------------------------------
[ -x "$fb" ] || missing "$fb not built (cmake --build $build --target fabricbench)"
command -v mpirun >/dev/null || missing "mpirun not found (apt-get install openmpi-bin)"
/usr/bin/python3 -c 'import h5py, numpy' 2>/dev/null ||
    missing "python3 with h5py and numpy needed (apt-get install python3-h5py python3-numpy)"
command -v ss >/dev/null || missing "ss not found (apt-get install iproute2)"
if has stream || has udp || has vc; then
    command -v iperf3 >/dev/null ||
        missing "iperf3 not found (apt-get install iperf3), or leave stream, udp and vc out of PARTS"
fi
if has rr || has vc; then
    command -v sockperf >/dev/null ||
        missing "sockperf not found (apt-get install sockperf), or leave rr and vc out of PARTS"
fi
if has vc; then
    [ "$(id -u)" -eq 0 ] || missing "the vc part needs root (network namespaces); or leave vc out of PARTS"
    for t in ip tc nsenter unshare; do
        command -v "$t" >/dev/null ||
            missing "$t not found (apt-get install iproute2 util-linux), or leave vc out of PARTS"
    done
    unshare --net --uts --mount true 2>/dev/null ||
        missing "cannot create namespaces here (CAP_SYS_ADMIN); leave vc out of PARTS"
fi
udp_note=""
if has udp || has vc; then
    if ! "$fb" list 2>/dev/null | awk '{print $1}' | grep -qx udp_rate; then
        udp_note="skipped: \`fabricbench list\` has no udp_rate in this build ($fb)"
        echo "$me: UDP cases $udp_note" >&2
    fi
fi

out=${OUT:-$(mktemp -d /tmp/$me.XXXXXX)}
mkdir -p "$out"
opts=(-np 2)
if [ "$(id -u)" -eq 0 ]; then
    opts+=(--allow-run-as-root)
    # mpirun's daemons on the cluster's other node, started through the agent, check it too
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fi
# shellcheck disable=SC2206
mpiargs=(${MPIRUN_ARGS:---bind-to none --mca mpi_yield_when_idle 1})
# shellcheck disable=SC2206
fbargs=(${FABRICBENCH_ARGS:-})
# every client's limit: its own seconds plus slack for a loaded machine
peer_t=$((dur + omit + 30))
fb_t=$((2 * (dur + omit) + 90))

# --- servers and clean-up -------------------------------------------------------------------
servers=()
child=""
vc_up=0
export VC_NAME=${VC_NAME:-fbsvp$$}
cleanup() {
    local rc=$? p
    trap - EXIT INT TERM
    [ -z "$child" ] || kill -TERM "$child" 2>/dev/null || true
    for p in "${servers[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
    for p in "${servers[@]}"; do
        for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$p" 2>/dev/null || true
    done
    if [ "$vc_up" = 1 ]; then "$vc" down >/dev/null 2>&1 || echo "$me: '$vc down' failed (VC_NAME=$VC_NAME)" >&2; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

free_port() {
    /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}
# listening NETNS PORT: whether something listens on TCP PORT (NETNS "-": this namespace)
listening() {
    if [ "$1" = - ]; then ss -Hltn "( sport = :$2 )" | grep -q .
    else ip netns exec "$1" ss -Hltn "( sport = :$2 )" | grep -q .; fi
}
# server NAME NETNS PORT CMD...: start CMD in the background (its own time-out inside CMD),
# wait up to 10 s for it to listen on PORT
server() {
    local name=$1 ns=$2 port=$3 pid
    shift 3
    "$@" >"$out/server-$name.log" 2>&1 &
    pid=$!
    servers+=("$pid")
    for _ in $(seq 100); do
        listening "$ns" "$port" && return 0
        kill -0 "$pid" 2>/dev/null || die "server $name ended at its start: $(tail -3 "$out/server-$name.log")"
        sleep 0.1
    done
    die "server $name does not listen on port $port after 10 s ($*), see $out/server-$name.log"
}
server_life=$((rounds * 900 + 600)) # an upper bound on the whole run, seconds

# --- one measured run -----------------------------------------------------------------------
now() { date +%s.%N; }
failed=0
# run ROUND CASE TOOL FILE LIMIT CMD...: CMD's stdout to FILE, stderr to FILE.err, CMD itself in
# FILE.cmd; a line "ROUND CASE TOOL FILE RC SECONDS" in runs.txt. CMD runs under timeout(1) in
# the background and is waited for, so that a signal to this script ends it at once (cleanup).
run() {
    local round=$1 case=$2 tool=$3 file=$4 limit=$5 t0 rc=0 s
    shift 5
    printf '%q ' "$@" >"$file.cmd"
    echo >>"$file.cmd"
    t0=$(now)
    timeout -k 10 "$limit" "$@" >"$file" 2>"$file.err" &
    child=$!
    wait "$child" || rc=$?
    child=""
    s=$(echo "$(now) - $t0" | bc -l)
    echo "$round $case $tool $file $rc $s" >>"$out/runs.txt"
    if [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        printf '  %-22s %-11s FAILED (exit %s%s), see %s.err\n' "$case" "$tool" "$rc" \
            "$([ "$rc" = 124 ] && echo ", time-out after $limit s")" "$file" >&2
        tail -3 "$file.err" | sed 's/^/    /' >&2
    else
        printf '  %-22s %-11s %6.2f s\n' "$case" "$tool" "$s" >&2
    fi
}
# fabricbench first in odd rounds, the peer first in even ones
fb_first() { [ $(($1 % 2)) = 1 ]; }

# --- the cases -------------------------------------------------------------------------------
# case_pair ROUND CASE WHERE "FABRICBENCH ARGS" PEER PEER_CMD...: one case of one round, both
# tools; WHERE local (mpirun here) or vc (mpirun inside vnode1, one rank on each node, the
# sockets over fab0). Files OUT/CASE-fabricbench-ROUND.{h5,out} and OUT/CASE-PEER-ROUND.out.
case_pair() {
    local r=$1 c=$2 where=$3 peer=$5 h5=$out/$2-fabricbench-$1.h5
    # shellcheck disable=SC2206
    local -a fa=($4) fcmd
    shift 5
    rm -f "$h5"
    if [ "$where" = local ]; then
        fcmd=(mpirun "${opts[@]}" "${mpiargs[@]}" "$fb" run -q -o "$h5" "${fa[@]}" "${fbargs[@]}")
    else
        fcmd=("$vc" exec vnode1 mpirun "${opts[@]}" --mca plm_rsh_agent "$agent" --host "vnode1,vnode2"
            "${mpiargs[@]}" "$fb" run -q -o "$h5" --fabric tcp --device fab0 "${fa[@]}" "${fbargs[@]}")
    fi
    if fb_first "$r"; then
        run "$r" "$c" fabricbench "$out/$c-fabricbench-$r.out" "$fb_t" "${fcmd[@]}"
        run "$r" "$c" "$peer" "$out/$c-$peer-$r.out" "$peer_t" "$@"
    else
        run "$r" "$c" "$peer" "$out/$c-$peer-$r.out" "$peer_t" "$@"
        run "$r" "$c" fabricbench "$out/$c-fabricbench-$r.out" "$fb_t" "${fcmd[@]}"
    fi
}

# --- conditions -------------------------------------------------------------------------------
: >"$out/runs.txt"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r), load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "mode: $mode, rounds: $rounds, parts: $parts, duration: $dur s, omit: $omit s"
    echo "tcp: $(sysctl -n net.ipv4.tcp_congestion_control), rmem $(sysctl -n net.ipv4.tcp_rmem | tr '\t' ' '), wmem $(sysctl -n net.ipv4.tcp_wmem | tr '\t' ' '), lo mtu $(cat /sys/class/net/lo/mtu)"
    echo "mpirun: mpirun ${opts[*]} ${mpiargs[*]} ($(mpirun --version 2>/dev/null | head -1))"
    echo "fabricbench: $("$fb" --version 2>/dev/null | head -1 || true) ${fbargs[*]}"
    command -v iperf3 >/dev/null && echo "iperf3: $(iperf3 --version 2>/dev/null | head -1)"
    command -v sockperf >/dev/null && echo "sockperf: $(sockperf --version 2>/dev/null | head -1 | sed 's/^sockperf, //')"
    [ -z "$udp_note" ] || echo "udp: $udp_note"
} | tee "$out/conditions.txt" >&2
echo "outputs: $out" >&2

# --- loopback servers ---------------------------------------------------------------------------
ip3_port="" sp_port=""
if has stream || has udp; then
    ip3_port=$(free_port)
    server iperf3 - "$ip3_port" timeout "$server_life" iperf3 -s -B 127.0.0.1 -p "$ip3_port"
fi
if has rr; then
    sp_port=$(free_port)
    server sockperf - "$sp_port" timeout "$server_life" sockperf server --tcp -i 127.0.0.1 -p "$sp_port"
fi

# --- the virtual cluster ------------------------------------------------------------------------
agent="" a1="" a2=""
if has vc; then
    vc_up=1
    VC_FABRICS=1 "$vc" up 2 >"$out/vcluster.log" 2>&1 || die "vcluster up failed: $(tail -3 "$out/vcluster.log")"
    "$vc" shape 0 "$vc_rate" >>"$out/vcluster.log" 2>&1 || die "vcluster shape failed: $(tail -3 "$out/vcluster.log")"
    agent=$("$vc" agent-path)
    a1=$("$vc" ip vnode1) a2=$("$vc" ip vnode2)
    echo "cluster: $VC_NAME, vnode1 $a1, vnode2 $a2, fab0 shaped to $vc_rate (htb both ways), $(tail -1 "$out/vcluster.log" | sed 's/^vcluster[^:]*: //')" |
        tee -a "$out/conditions.txt" >&2
    # fresh namespaces: the usual ports are free there
    server vc-iperf3 "$VC_NAME-vnode2" 5201 "$vc" exec vnode2 timeout "$server_life" iperf3 -s -B "$a2" -p 5201
    server vc-sockperf "$VC_NAME-vnode2" 11111 "$vc" exec vnode2 timeout "$server_life" sockperf server --tcp -i "$a2" -p 11111
fi

# --- rounds ---------------------------------------------------------------------------------------
for r in $(seq 1 "$rounds"); do
    echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg); $(fb_first "$r" && echo fabricbench || echo peer) first)" >&2
    echo "$r $(cut -d' ' -f1 /proc/loadavg)" >>"$out/load.txt"
    if [ "$mode" = windows ]; then
        for w in $windows; do
            case_pair "$r" "loop_stream_P1_w$w" local "tcp_stream --streams 1 -w $w -t $dur --omit $omit" iperf3 \
                iperf3 -c 127.0.0.1 -p "$ip3_port" -P 1 -t "$dur" -O "$omit" -J
        done
        continue
    fi
    if has stream; then
        for P in 1 4; do
            case_pair "$r" "loop_stream_P$P" local "tcp_stream --streams $P -t $dur --omit $omit" iperf3 \
                iperf3 -c 127.0.0.1 -p "$ip3_port" -P "$P" -t "$dur" -O "$omit" -J
        done
    fi
    if has rr; then
        for m in $rr_sizes; do
            case_pair "$r" "loop_rr_$m" local "tcp_rr -m $m -t $dur" sockperf \
                sockperf ping-pong --tcp -i 127.0.0.1 -p "$sp_port" -m "$m" -t "$dur"
        done
    fi
    if has udp && [ -z "$udp_note" ]; then
        case_pair "$r" "loop_udp_$udp_rate" local "udp_rate --rate $udp_rate -m 1460 -t $dur" iperf3 \
            iperf3 -c 127.0.0.1 -p "$ip3_port" -u -b "$udp_rate" -l 1460 -t "$dur" -J
    fi
    if has vc; then
        for P in 1 4; do
            case_pair "$r" "vc_stream_P$P" vc "tcp_stream --streams $P -t $dur --omit $omit" iperf3 \
                "$vc" exec vnode1 iperf3 -c "$a2" -B "$a1" -p 5201 -P "$P" -t "$dur" -O "$omit" -J
        done
        for m in $rr_sizes; do
            case_pair "$r" "vc_rr_$m" vc "tcp_rr -m $m -t $dur" sockperf \
                "$vc" exec vnode1 sockperf ping-pong --tcp -i "$a2" -p 11111 --client_ip "$a1" -m "$m" -t "$dur"
        done
        if [ -z "$udp_note" ]; then
            case_pair "$r" "vc_udp_$vc_udp_rate" vc "udp_rate --rate $vc_udp_rate -m 1460 -t $dur" iperf3 \
                "$vc" exec vnode1 iperf3 -c "$a2" -B "$a1" -p 5201 -u -b "$vc_udp_rate" -l 1460 -t "$dur" -J
        fi
    fi
done

rc=0
/usr/bin/python3 "$src/bench/sockets_vs_peers.py" "$out" | tee "$out/report.txt" || rc=$?
[ "$rc" = 0 ] || die "the report failed (exit $rc); raw outputs in $out"
[ "$failed" = 0 ] || die "$failed run(s) failed (see the report and $out/*.err)"
