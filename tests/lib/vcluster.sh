#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# vcluster.sh - a virtual cluster of N "nodes" on one Linux machine, for testing MPI
# (Open MPI + UCX) the way it runs across nodes, without a second machine or RDMA hardware.
#
# Each node is a network namespace plus a UTS namespace (its own hostname). A command run in
# a node also gets a private mount namespace in which /sys/class/net shows the node's NICs
# (UCX lists NICs there) and the node's hosts file and resolv.conf are bound over /etc (node
# names resolve from that file; there is no name server, so DNS goes to loopback inside the
# node). The nodes are wired to one or two Linux bridges ("fabrics") in a namespace of their
# own:
#
#   fabric 0: node interface fab0, 10.77.0.<i>/25        (node i = 1..N, N <= 100)
#   fabric 1: node interface fab1, 10.77.0.<128+i>/25    (unless VC_FABRICS=1)
#
# With VC_LEAVES=2 each fabric is two leaf bridges joined by one trunk (a veth pair): leaf a
# (brF) holds nodes 1..ceil(N/2), leaf b (brFb) the rest. Traffic between the leaves shares
# the trunk, as flows share a spine link of a real fat tree, and `shape-trunk` limits it
# (congestion tests need such a shared link).
#
# Nothing is added to the root network namespace and no route leaves a node: traffic from a
# node reaches only the other nodes of the same instance.
#
# Instances: every name this script creates derives from VC_NAME, so that instances with
# different names run side by side:
#   network namespaces    $VC_NAME-<node> and $VC_NAME-fabric (the bridges)
#   state directory       /run/vcluster-$VC_NAME (VC_STATE): nodes, hosts, UTS namespace
#                         bind mounts (uts/<node>), the mpirun agent (bin/vc-agent)
#   per-node /etc files   /etc/netns/$VC_NAME-<node>/{hosts,resolv.conf}
# Node hostnames are ${VC_PREFIX}1..N in every instance (each node has its own UTS namespace).
#
# Usage (as root):
#   vcluster.sh up N              create N nodes (a failed up removes what it made)
#   vcluster.sh down              end processes inside the nodes, remove everything; works on a
#                                 partial up and when nothing is up
#   vcluster.sh status            nodes, addresses, qdiscs, byte counters, processes inside
#   vcluster.sh exec NODE CMD...  run CMD inside NODE (the working directory is kept)
#   vcluster.sh agent [-opts] HOST CMD...
#                                 ssh-like launcher: joins CMD's words and runs them with
#                                 bash -c inside HOST (a node name, NODE-fabF alias or address).
#                                 For mpirun: --mca plm_rsh_agent "$(vcluster.sh agent-path)"
#   vcluster.sh agent-path        print the agent's path ($VC_STATE/bin/vc-agent)
#   vcluster.sh shape FAB RATE [NODE...]
#                                 limit fabric FAB (0|1) to RATE (e.g. 1gbit, 250mbit) with htb,
#                                 both directions of each node's link (default: all nodes)
#   vcluster.sh unshape FAB [NODE...]   remove that limit
#   vcluster.sh shape-trunk FAB RATE    limit the trunk between fabric FAB's two leaves to RATE
#                                 (htb, both directions; VC_LEAVES=2)
#   vcluster.sh unshape-trunk FAB       remove that limit
#   vcluster.sh leaf NODE         print the node's leaf: a or b (always a with VC_LEAVES=1)
#   vcluster.sh counters NODE [IFACE]   print "rx_bytes tx_bytes" of IFACE (default fab0)
#   vcluster.sh nodes             list the node names, one a line
#   vcluster.sh ip NODE [FAB]     print a node's address on fabric FAB (default 0)
#   vcluster.sh hosts             print the hosts file the nodes use
#   vcluster.sh env               print VC_NAME, VC_STATE, VC_AGENT, VC_NODES, VC_FABRICS,
#                                 VC_LEAVES as shell assignments (eval "$(vcluster.sh env)")
#
# Environment:
#   VC_NAME     instance name: letters, digits and _ (at most 16); default fbvc
#   VC_STATE    state directory; default /run/vcluster-$VC_NAME
#   VC_PREFIX   node name prefix (letters and digits, at most 8); default vnode
#   VC_FABRICS  1 or 2 fabrics; default 2 (fixed at `up`: later commands read it from state)
#   VC_LEAVES   1 or 2 leaf bridges per fabric; default 1 (fixed at `up`, like VC_FABRICS)
#   VC_MTU      MTU of every fabric link; default 1500
#   VC_AGENT_LOG  a file the agent appends one line per call to (for debugging launchers)
#
# Exit status: 0 on success, 1 on an error (message on stderr), 2 for a usage error.
set -euo pipefail

VC_NAME=${VC_NAME:-fbvc}
[[ "$VC_NAME" =~ ^[A-Za-z0-9_]{1,16}$ ]] || {
    echo "vcluster: VC_NAME must be 1-16 letters, digits or _ (got '$VC_NAME')" >&2
    exit 2
}
VC_STATE=${VC_STATE:-/run/vcluster-$VC_NAME}
VC_PREFIX=${VC_PREFIX:-vnode}
VC_FABRICS=${VC_FABRICS:-2}
VC_LEAVES=${VC_LEAVES:-1}
VC_MTU=${VC_MTU:-1500}
# Commands run inside a node (and launchers they start) stay in this instance.
export VC_NAME VC_STATE
FABNS=$VC_NAME-fabric
SELF=$(readlink -f "${BASH_SOURCE[0]}")
# once up, the numbers of fabrics and leaves are the ones the cluster was built with
[ -f "$VC_STATE/fabrics" ] && VC_FABRICS=$(cat "$VC_STATE/fabrics")
[ -f "$VC_STATE/leaves" ] && VC_LEAVES=$(cat "$VC_STATE/leaves")

die() {
    echo "vcluster[$VC_NAME]: $*" >&2
    exit 1
}
say() { echo "vcluster[$VC_NAME]: $*"; }
elapsed() { awk -v a="$1" -v b="$EPOCHREALTIME" 'BEGIN{printf "%.2f", b-a}'; }
need_root() { [ "$(id -u)" = 0 ] || die "must run as root"; }
need_tools() {
    local t
    for t in "$@"; do command -v "$t" >/dev/null || die "$t not found (iproute2 / util-linux)"; done
}
nsname() { echo "$VC_NAME-$1"; } # node -> its network namespace
nodes() {
    if [ -f "$VC_STATE/nodes" ]; then cat "$VC_STATE/nodes"; fi
    return 0
}
is_node() { grep -qx -- "$1" "$VC_STATE/nodes" 2>/dev/null; }
netns_exists() { [ -e "/run/netns/$1" ]; }
node_ip() { # node [fabric] -> address
    local n=${1:-} f=${2:-0} i
    [[ "$f" =~ ^[01]$ ]] || die "fabric must be 0 or 1"
    i=$(grep -nx -- "$n" "$VC_STATE/nodes" 2>/dev/null | cut -d: -f1)
    [ -n "$i" ] || die "unknown node '$n'"
    echo "10.77.0.$((i + 128 * f))"
}

# The leaf of the node at position i (1-based) of N: a (nodes 1..ceil(N/2)) or b (the rest,
# with VC_LEAVES=2); leaf_bridge gives its bridge on fabric f.
leaf_of() { if [ "$VC_LEAVES" = 2 ] && [ "$1" -gt $((($2 + 1) / 2)) ]; then echo b; else echo a; fi; }
leaf_bridge() { if [ "$(leaf_of "$2" "$3")" = b ]; then echo "br${1}b"; else echo "br$1"; fi; }

# Run a command inside a node: its net and UTS namespaces and a new mount namespace (a slave
# of the current one) in which
#  - /sys/class/net and /sys/devices/virtual/net come from a sysfs mounted in the node's netns
#    (UCX and hwloc list NICs there; the rest of /sys, e.g. /sys/fs/cgroup, stays as it is),
#  - /etc/hosts and /etc/resolv.conf are the node's (/etc/netns/$VC_NAME-NODE/*).
run_in_node() {
    local n=$1
    shift
    is_node "$n" || die "unknown node '$n' (nodes: $(nodes | tr '\n' ' '))"
    exec nsenter --net="/run/netns/$(nsname "$n")" --uts="$VC_STATE/uts/$n" -- \
        unshare --mount --propagation slave -- "$SELF" _mounts "$n" "$@"
}
cmd_mounts() { # internal: runs inside the node's new mount namespace
    local n=$1
    shift
    local m=$VC_STATE/sysmnt
    mount -t sysfs sysfs "$m"
    mount --bind "$m/class/net" /sys/class/net
    mount --bind "$m/devices/virtual/net" /sys/devices/virtual/net
    umount -l "$m"
    mount --bind "/etc/netns/$(nsname "$n")/hosts" /etc/hosts
    mount --bind "/etc/netns/$(nsname "$n")/resolv.conf" /etc/resolv.conf
    exec "$@"
}
# host name / alias / address -> node name
resolve_node() {
    local h=$1 n
    is_node "$h" && {
        echo "$h"
        return
    }
    n=$(awk -v h="$h" '$1 == h {print $2; exit} {for (i = 2; i <= NF; i++) if ($i == h) {print $2; exit}}' \
        "$VC_STATE/hosts" 2>/dev/null)
    n=${n%-fab[01]}
    is_node "$n" || die "agent: no node for host '$h' (nodes: $(nodes | tr '\n' ' '))"
    echo "$n"
}

# Names of the nodes this instance may have made, from every trace a partial `up` can leave.
known_nodes() {
    {
        nodes
        cat "$VC_STATE/nodes.tmp" 2>/dev/null || true
        ls "$VC_STATE/uts" 2>/dev/null || true
        ip netns list 2>/dev/null | awk '{print $1}' | sed -n "s/^$VC_NAME-//p" | grep -vx fabric || true
        ls /etc/netns 2>/dev/null | sed -n "s/^$VC_NAME-//p" || true
    } | { grep -E "^[A-Za-z0-9]+$" || true; } | sort -u
}

do_up() {
    local N=$1 t0=$EPOCHREALTIME
    mkdir -p "$VC_STATE/uts" "$VC_STATE/bin" "$VC_STATE/sysmnt"
    : >"$VC_STATE/nodes.tmp"
    echo "$VC_FABRICS" >"$VC_STATE/fabrics"
    echo "$VC_LEAVES" >"$VC_STATE/leaves"
    # whether /run/netns was a mount point before (ip netns makes it one) and /etc/netns existed
    if grep -q ' /run/netns ' /proc/self/mountinfo; then echo 1; else echo 0; fi >"$VC_STATE/netns_premounted"
    if [ -d /etc/netns ]; then echo 1; else echo 0; fi >"$VC_STATE/etcnetns_pre"

    # fabric namespace with one bridge per fabric, or two (leaves a and b) and a trunk
    ip netns add "$FABNS"
    ip -n "$FABNS" link set lo up
    # no IPv6 (router/neighbour solicitations) in any namespace we create: quiet byte counters
    ip netns exec "$FABNS" sh -c 'for k in default all; do echo 1 > /proc/sys/net/ipv6/conf/$k/disable_ipv6; done' \
        2>/dev/null || true
    local f
    for ((f = 0; f < VC_FABRICS; f++)); do
        ip -n "$FABNS" link add "br$f" type bridge stp_state 0 forward_delay 0
        ip -n "$FABNS" link set "br$f" mtu "$VC_MTU" up
        if [ "$VC_LEAVES" = 2 ]; then
            ip -n "$FABNS" link add "br${f}b" type bridge stp_state 0 forward_delay 0
            ip -n "$FABNS" link set "br${f}b" mtu "$VC_MTU" up
            ip -n "$FABNS" link add "tr$f-a" type veth peer name "tr$f-b"
            ip -n "$FABNS" link set "tr$f-a" mtu "$VC_MTU" master "br$f" up
            ip -n "$FABNS" link set "tr$f-b" mtu "$VC_MTU" master "br${f}b" up
        fi
    done

    printf '127.0.0.1 localhost\n::1 localhost ip6-localhost ip6-loopback\n' >"$VC_STATE/hosts"
    printf '# vcluster: no name server; lookups go to 127.0.0.1 inside the node\noptions timeout:1 attempts:1\n' \
        >"$VC_STATE/resolv.conf"

    local i n ns
    for ((i = 1; i <= N; i++)); do
        n="$VC_PREFIX$i"
        ns=$(nsname "$n")
        echo "$n" >>"$VC_STATE/nodes.tmp"
        ip netns add "$ns"
        ip netns exec "$ns" sh -c 'for k in default all; do echo 1 > /proc/sys/net/ipv6/conf/$k/disable_ipv6; done' \
            2>/dev/null || true
        ip -n "$ns" link set lo up
        touch "$VC_STATE/uts/$n"
        unshare --uts="$VC_STATE/uts/$n" hostname "$n"
        for ((f = 0; f < VC_FABRICS; f++)); do
            ip link add "fab$f" netns "$ns" type veth peer name "$n-f$f" netns "$FABNS"
            ip -n "$FABNS" link set "$n-f$f" mtu "$VC_MTU" master "$(leaf_bridge "$f" "$i" "$N")" up
            ip -n "$ns" link set "fab$f" mtu "$VC_MTU" up
            ip -n "$ns" addr add "10.77.0.$((i + 128 * f))/25" dev "fab$f"
        done
        echo "10.77.0.$i $n $n-fab0" >>"$VC_STATE/hosts"
        if [ "$VC_FABRICS" = 2 ]; then echo "10.77.0.$((i + 128)) $n-fab1" >>"$VC_STATE/hosts"; fi
        mkdir -p "/etc/netns/$ns"
    done
    # per-node /etc/hosts and resolv.conf (bound over /etc inside the node)
    for n in $(cat "$VC_STATE/nodes.tmp"); do
        cp "$VC_STATE/hosts" "$VC_STATE/resolv.conf" "/etc/netns/$(nsname "$n")/"
    done
    # mpirun's rsh agent; it carries the instance with it
    printf '#!/bin/sh\nVC_NAME=%s VC_STATE=%s exec %s agent "$@"\n' "$VC_NAME" "$VC_STATE" "$SELF" \
        >"$VC_STATE/bin/vc-agent"
    chmod +x "$VC_STATE/bin/vc-agent"
    mv "$VC_STATE/nodes.tmp" "$VC_STATE/nodes"
    # (bridge ports forward at once: STP is off)
    say "up $N node(s) [$(nodes | tr '\n' ' ')] fabrics=$VC_FABRICS leaves=$VC_LEAVES in $(elapsed "$t0") s"
    say "agent = $VC_STATE/bin/vc-agent"
}

cmd_up() {
    need_root
    need_tools ip nsenter unshare
    local N=${1:-}
    [[ "$N" =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] && [ "$N" -le 100 ] || die "usage: up N (1..100)"
    [[ "$VC_FABRICS" =~ ^[12]$ ]] || die "VC_FABRICS must be 1 or 2"
    [[ "$VC_LEAVES" =~ ^[12]$ ]] || die "VC_LEAVES must be 1 or 2"
    [[ "$VC_PREFIX" =~ ^[A-Za-z][A-Za-z0-9]{0,7}$ ]] || die "VC_PREFIX must be 1-8 letters or digits"
    [[ "$VC_MTU" =~ ^[0-9]+$ ]] || die "VC_MTU must be a number"
    [ -e "$VC_STATE" ] && die "already up, or left over ($VC_STATE exists): run down first"
    [ -z "$(known_nodes)" ] && ! netns_exists "$FABNS" ||
        die "namespaces or /etc/netns entries of instance $VC_NAME exist: run down first"
    # a failed up removes what it made (errexit works in the subshell only outside a condition)
    local rc
    set +e
    (
        set -e
        do_up "$N"
    )
    rc=$?
    set -e
    if [ $rc != 0 ]; then
        cmd_down >/dev/null 2>&1 || true
        die "up failed; removed what it had made"
    fi
}

# inode numbers of this instance's network namespaces (nodes: $1, default known_nodes)
cluster_inos() {
    local n
    for n in ${1-$(known_nodes)} fabric; do
        if netns_exists "$VC_NAME-$n"; then stat -L -c %i "/run/netns/$VC_NAME-$n"; fi
    done
    return 0
}
# PIDs of processes in the network namespaces whose inodes are given (one stat for all of
# /proc: a stat per process takes seconds on a loaded machine)
pids_in() {
    [ -n "${1// /}" ] || return 0
    { stat -L -c '%i %n' /proc/[0-9]*/ns/net 2>/dev/null || true; } |
        awk -v inos="$1" -v self=$$ 'BEGIN {split(inos, a, " "); for (i in a) want[a[i]] = 1}
            want[$1] {split($2, f, "/"); if (f[3] != self) print f[3]}' | tr '\n' ' '
}
pids_in_cluster() { pids_in "$(cluster_inos | tr '\n' ' ')"; }

cmd_down() {
    need_root
    local t0=$EPOCHREALTIME nn
    nn=$(known_nodes)
    if [ ! -e "$VC_STATE" ] && [ -z "$nn" ] && ! netns_exists "$FABNS"; then
        say "nothing to do"
        return 0
    fi
    # end what runs inside: TERM, up to 2 s to exit, then KILL
    local inos pids i
    inos=$(cluster_inos "$nn" | tr '\n' ' ')
    pids=$(pids_in "$inos")
    if [ -n "${pids// /}" ]; then
        say "terminating processes inside the cluster: $pids"
        kill -TERM $pids 2>/dev/null || true
        for i in $(seq 40); do
            sleep 0.1
            pids=$(pids_in "$inos")
            [ -n "${pids// /}" ] || break
            if [ "$i" = 20 ]; then kill -KILL $pids 2>/dev/null || true; fi
        done
        [ -z "${pids// /}" ] || say "warning: processes still inside: $pids"
    fi
    local n
    for n in $nn; do
        if grep -q " $VC_STATE/uts/$n " /proc/self/mountinfo; then umount "$VC_STATE/uts/$n" || umount -l "$VC_STATE/uts/$n"; fi
        if netns_exists "$(nsname "$n")"; then ip netns del "$(nsname "$n")"; fi
        rm -rf "/etc/netns/$(nsname "$n")"
    done
    if netns_exists "$FABNS"; then ip netns del "$FABNS"; fi
    if [ "$(cat "$VC_STATE/etcnetns_pre" 2>/dev/null)" = 0 ]; then rmdir /etc/netns 2>/dev/null || true; fi
    if [ "$(cat "$VC_STATE/netns_premounted" 2>/dev/null)" = 0 ] && [ -z "$(ls -A /run/netns 2>/dev/null)" ]; then
        umount /run/netns 2>/dev/null || true
        rmdir /run/netns 2>/dev/null || true
    fi
    # anything still mounted under the state directory (a UTS file of an unknown node)
    { grep -o " $VC_STATE/[^ ]* " /proc/self/mountinfo || true; } | sort -r | while read -r m; do umount -l "$m" || true; done
    rm -rf "$VC_STATE"
    say "down in $(elapsed "$t0") s"
}

cmd_exec() {
    need_root
    local n=${1:-}
    shift || true
    [ -n "$n" ] && [ $# -gt 0 ] || die "usage: exec NODE CMD..."
    n=$(resolve_node "$n")
    run_in_node "$n" "$@"
}

# ssh-compatible: [options] HOST command words... The words are joined with spaces and run by
# a shell on the target, as ssh does (Open MPI quotes e.g. the HNP URI for that shell).
cmd_agent() {
    while [ $# -gt 0 ] && [[ "$1" == -* ]]; do
        case "$1" in -[lopiFEcmLRDSWwJb]) shift ;; esac # options that take a value
        shift
    done
    local h=${1:-}
    shift || true
    [ -n "$h" ] || die "agent: usage: agent [opts] HOST CMD..."
    local n
    n=$(resolve_node "$h")
    if [ -n "${VC_AGENT_LOG:-}" ]; then echo "$(date +%T.%N) $(hostname) -> $n: $*" >>"$VC_AGENT_LOG"; fi
    run_in_node "$n" /bin/bash -c "$*"
}

tc_rate_bps() { # 1gbit / 500mbit / 64kbit -> bits per second
    local r=${1,,} num unit
    num=${r%%[a-z]*}
    unit=${r#"$num"}
    [[ "$num" =~ ^[0-9]+$ ]] || die "rate must be a whole number with gbit/mbit/kbit (got $1)"
    case "$unit" in
    gbit) echo $((num * 1000000000)) ;;
    mbit) echo $((num * 1000000)) ;;
    kbit) echo $((num * 1000)) ;;
    *) die "rate unit must be gbit, mbit or kbit (got $1)" ;;
    esac
}
# the two ends of a node's link on fabric f: "netns:device" (node egress, bridge-port egress)
fab_links() { echo "$(nsname "$2"):fab$1 $FABNS:$2-f$1"; }
check_fab() {
    [[ "${1:-}" =~ ^[01]$ ]] && [ "$1" -lt "$VC_FABRICS" ] || die "fabric must be 0..$((VC_FABRICS - 1))"
}

# burst of the htb limit at a rate: about 1 ms at RATE, at least 64 KiB (veth passes 64 KB GSO
# super-packets)
htb_burst() {
    local bps burst
    bps=$(tc_rate_bps "$1")
    burst=$((bps / 8 / 1000))
    [ $burst -ge 65536 ] || burst=65536
    echo "$burst"
}
# limit the egress of device DEV in netns NS to RATE with BURST bytes
htb_limit() {
    local ns=$1 dev=$2 rate=$3 burst=$4
    # htb cannot change a class in place: replace the whole qdisc
    tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null || true
    tc -n "$ns" qdisc add dev "$dev" root handle 1: htb default 10
    tc -n "$ns" class add dev "$dev" parent 1: classid 1:10 htb \
        rate "$rate" ceil "$rate" burst "$burst" cburst "$burst" quantum 65536
}

cmd_shape() {
    need_root
    need_tools tc
    [ $# -ge 2 ] || die "usage: shape FAB RATE [NODE...]"
    local f=$1 rate=$2
    shift 2
    check_fab "$f"
    local list=("$@")
    [ ${#list[@]} -gt 0 ] || mapfile -t list < <(nodes)
    local burst n l
    burst=$(htb_burst "$rate")
    for n in "${list[@]}"; do
        is_node "$n" || die "unknown node '$n'"
        for l in $(fab_links "$f" "$n"); do
            htb_limit "${l%%:*}" "${l#*:}" "$rate" "$burst"
        done
    done
    say "fabric $f limited to $rate (burst $burst B) on ${list[*]}"
}

# the trunk between fabric f's leaves: its two ends (egress a->b, egress b->a), in $FABNS
check_trunk() {
    check_fab "$1"
    [ "$VC_LEAVES" = 2 ] || die "no trunk: the cluster was made with VC_LEAVES=$VC_LEAVES (2 makes one)"
}

cmd_shape_trunk() {
    need_root
    need_tools tc
    [ $# = 2 ] || die "usage: shape-trunk FAB RATE"
    local f=$1 rate=$2 burst dev
    check_trunk "$f"
    burst=$(htb_burst "$rate")
    for dev in "tr$f-a" "tr$f-b"; do htb_limit "$FABNS" "$dev" "$rate" "$burst"; done
    say "trunk of fabric $f limited to $rate (burst $burst B), both directions"
}

cmd_unshape_trunk() {
    need_root
    need_tools tc
    [ $# = 1 ] || die "usage: unshape-trunk FAB"
    local f=$1 dev
    check_trunk "$f"
    for dev in "tr$f-a" "tr$f-b"; do tc -n "$FABNS" qdisc del dev "$dev" root 2>/dev/null || true; done
    say "trunk of fabric $f unlimited"
}

cmd_leaf() {
    local n=${1:-} i
    [ $# = 1 ] || die "usage: leaf NODE"
    i=$(grep -nx -- "$n" "$VC_STATE/nodes" 2>/dev/null | cut -d: -f1)
    [ -n "$i" ] || die "unknown node '$n'"
    leaf_of "$i" "$(nodes | wc -l)"
}

cmd_unshape() {
    need_root
    need_tools tc
    [ $# -ge 1 ] || die "usage: unshape FAB [NODE...]"
    local f=$1
    shift
    check_fab "$f"
    local list=("$@") n l
    [ ${#list[@]} -gt 0 ] || mapfile -t list < <(nodes)
    for n in "${list[@]}"; do
        is_node "$n" || die "unknown node '$n'"
        for l in $(fab_links "$f" "$n"); do
            tc -n "${l%%:*}" qdisc del dev "${l#*:}" root 2>/dev/null || true
        done
    done
    say "fabric $f unlimited on ${list[*]}"
}

cmd_counters() {
    local n=${1:-} dev=${2:-fab0}
    [ -n "$n" ] || die "usage: counters NODE [IFACE]"
    is_node "$n" || die "unknown node '$n'"
    [[ "$dev" =~ ^[A-Za-z0-9_.-]+$ ]] || die "bad interface name '$dev'"
    ip netns exec "$(nsname "$n")" sh -c \
        "echo \$(cat /sys/class/net/$dev/statistics/rx_bytes) \$(cat /sys/class/net/$dev/statistics/tx_bytes)"
}

cmd_status() {
    [ -f "$VC_STATE/nodes" ] || {
        say "down"
        return 0
    }
    local n f
    for n in $(nodes); do
        echo "== $n ($(nsenter --uts="$VC_STATE/uts/$n" hostname), netns $(nsname "$n"), leaf $(cmd_leaf "$n"))"
        ip -n "$(nsname "$n")" -br addr show | grep -v '^lo' || true
        for ((f = 0; f < VC_FABRICS; f++)); do
            echo "   fab$f rx/tx bytes: $(cmd_counters "$n" "fab$f")  qdisc:" \
                "$(tc -n "$(nsname "$n")" qdisc show dev "fab$f" root | head -1)"
        done
    done
    if [ "$VC_LEAVES" = 2 ]; then
        for ((f = 0; f < VC_FABRICS; f++)); do
            echo "== trunk of fabric $f: a->b qdisc: $(tc -n "$FABNS" qdisc show dev "tr$f-a" root | head -1);" \
                "b->a qdisc: $(tc -n "$FABNS" qdisc show dev "tr$f-b" root | head -1)"
        done
    fi
    echo "== processes inside: $(pids_in_cluster)"
}

cmd_env() {
    echo "VC_NAME=$VC_NAME"
    echo "VC_STATE=$VC_STATE"
    echo "VC_AGENT=$VC_STATE/bin/vc-agent"
    echo "VC_NODES='$(nodes | tr '\n' ' ' | sed 's/ $//')'"
    echo "VC_FABRICS=$VC_FABRICS"
    echo "VC_LEAVES=$VC_LEAVES"
}

usage() {
    sed -n '2,/^set -euo/p' "$SELF" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 2
}

cmd=${1:-}
shift || true
case "$cmd" in
up) cmd_up "$@" ;;
down) cmd_down ;;
exec) cmd_exec "$@" ;;
agent) cmd_agent "$@" ;;
agent-path) echo "$VC_STATE/bin/vc-agent" ;;
_mounts) cmd_mounts "$@" ;;
shape) cmd_shape "$@" ;;
unshape) cmd_unshape "$@" ;;
shape-trunk) cmd_shape_trunk "$@" ;;
unshape-trunk) cmd_unshape_trunk "$@" ;;
leaf) cmd_leaf "$@" ;;
counters) cmd_counters "$@" ;;
status) cmd_status ;;
hosts) cat "$VC_STATE/hosts" ;;
nodes) nodes ;;
ip) node_ip "$@" ;;
env) cmd_env ;;
-h | --help | help) usage ;;
*) usage ;;
esac
