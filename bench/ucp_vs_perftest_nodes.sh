#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The UCP kernels against ucx_perftest across two nodes: two network namespaces of
# tests/lib/vcluster.sh joined over TCP (fab0), UCX_TLS=tcp,self and UCX_NET_DEVICES=fab0 for
# both tools; bench/ucp_vs_perftest.sh's rounds (its lines, its FAB_UCP_CASES and
# FAB_UCP_FB_ARGS): fabricbench's ranks on vnode1 and vnode2, ucx_perftest's server on
# vnode2 and its client on vnode1. There an operation takes microseconds, so neither tool's clock weighs in
# the comparison, as it does over shared memory on one host. Not a test: it measures this
# machine.
#
# usage: bench/ucp_vs_perftest_nodes.sh FABRICBENCH [ROUNDS]
# env:   VC_NAME (default fbucp)
# Needs root, ip, tc; cleans up its namespaces on exit.
set -euo pipefail
FB=$(realpath "$1") ROUNDS=${2:-5}
export VC_NAME=${VC_NAME:-fbucp}
# shellcheck source=bench/two_nodes.sh
. "$(dirname "$0")/two_nodes.sh"
export UCX_NET_DEVICES=fab0
FAB_UCP_MPI="$vc exec vnode1 mpirun --mca plm_rsh_agent $("$vc" agent-path) --host vnode1,vnode2
 -np 2 --bind-to none -x UCX_NET_DEVICES=fab0" FAB_UCP_SERVER="$vc exec vnode2" \
    FAB_UCP_CLIENT="$vc exec vnode1" FAB_UCP_PEER=$("$vc" ip vnode2) \
    "$src/bench/ucp_vs_perftest.sh" "$FB" "$ROUNDS" tcp,self
