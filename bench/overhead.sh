#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Harness overhead benchmark: runs bench/overhead.c (fabricbench's harness and a plain MPI
# loop, alternating in one MPI job) on 2 local ranks and prints per-round values and the
# medians' ratios. See docs/PERFORMANCE.md for recorded results.
#
# usage: bench/overhead.sh [ROUNDS [LAT_ITERS [BW_ITERS [TIMER]]]]
#        (defaults 30 200000 100 auto; TIMER is fabricbench's --timer: auto, tsc or clock)
# env:   BUILD_DIR (default build), MPIRUN_ARGS (default: --bind-to core)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
[ -x "$build/fab_bench_overhead" ] || cmake --build "$build" --target fab_bench_overhead
opts=(-np 2)
[ "$(id -u)" -eq 0 ] && opts+=(--allow-run-as-root)
# shellcheck disable=SC2086
exec mpirun "${opts[@]}" ${MPIRUN_ARGS:---bind-to core} "$build/fab_bench_overhead" \
    "${1:-30}" "${2:-200000}" "${3:-100}" "${4:-auto}"
