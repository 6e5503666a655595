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
# get_bw: OSU never writes the window MPI_Win_allocate gave it, so its gets read the kernel's
# zero page (in cache) where fabricbench's read a written window; over TCP fabricbench's
# median at 1 MiB was 0.84 of OSU's on one VM, 0.94 on another. Give it an OSU whose
# allocate_memory_one_sided writes the window (one memset) to compare like with like
# (docs/PERFORMANCE.md).
#
# usage: bench/rma_vs_osu_nodes.sh FABRICBENCH OSU_ONE_SIDED_DIR [ROUNDS]
# env:   FAB_RMA_CASES, FAB_RMA_FB_ARGS, FAB_RMA_ITERS (here 2000), FAB_RMA_ITERS_LARGE (200)
#        and FAB_RMA_MIN_ITERS (here 20) as bench/rma_vs_osu.sh's, which runs the rounds;
#        VC_NAME (default fbrma)
# Needs root, ip, tc; cleans up its namespaces on exit.
set -euo pipefail
FB=$(realpath "$1") OSU=$(realpath "$2") ROUNDS=${3:-5}
export VC_NAME=${VC_NAME:-fbrma}
# shellcheck source=bench/two_nodes.sh
. "$(dirname "$0")/two_nodes.sh"
# bench/rma_vs_osu.sh's rounds, launched inside vnode1 onto both nodes; 2000 iterations below
# 1 MiB (an operation takes tens of microseconds here), 200 from 1 MiB on
FAB_RMA_MPI="$vc exec vnode1 mpirun --mca plm_rsh_agent $("$vc" agent-path) --host vnode1,vnode2
 -np 2 --bind-to none --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any
 --mca btl ^openib,tcp,vader --mca osc ucx -x UCX_TLS=tcp,self -x UCX_NET_DEVICES=fab0" \
    FAB_RMA_ITERS=${FAB_RMA_ITERS:-2000} FAB_RMA_MIN_ITERS=${FAB_RMA_MIN_ITERS:-20} \
    "$src/bench/rma_vs_osu.sh" "$FB" "$OSU" "$ROUNDS"
