#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fabricbench's default sweep against OSU's four point-to-point defaults (issue 16's
# benchmark; not a test). In one go, ROUNDS rounds of A B: A = `fabricbench run` (latency,
# bw, bibw, msgrate, 1 B to 4 MiB, defaults), B = osu_latency, osu_bw, osu_bibw, osu_mbw_mr
# with their defaults, each on 2 local ranks with the same mpirun options. Then
# bench/sweep_vs_osu.py prints the wall-time ratio, each tool's run-to-run spread per kernel
# and size class, and the ratio of medians per size. See docs/PERFORMANCE.md.
#
# usage: bench/sweep_vs_osu.sh [ROUNDS]            (default 5)
#        bench/sweep_vs_osu.sh --file-cost [ROUNDS] fabricbench alone, interleaved:
#            -o none | -o FILE | -o FILE --samples  (the cost of the result file, of --samples)
# env:   OSU_DIR      the directory holding osu_latency, osu_bw, osu_bibw, osu_mbw_mr
#                     (required for the sweep; OSU is not part of this repository: build it
#                     from source elsewhere, see docs/PERFORMANCE.md)
#        BUILD_DIR    (default build)
#        MPIRUN_ARGS  (default: --bind-to core); always added: --mca pml ucx
#                     --mca pml_ucx_tls any --mca pml_ucx_devices any (what fabricbench sets
#                     itself, so that OSU goes through UCX too)
#        FABRICBENCH_ARGS  extra options for fabricbench run (default none)
#        OUT          where the raw outputs go (default: a new directory under /tmp); kept
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
fb=$build/fabricbench
osu=${OSU_DIR:-}
mode=sweep
if [ "${1:-}" = --file-cost ]; then mode="file"; shift; fi
rounds=${1:-5}
[ -x "$fb" ] || { echo "sweep_vs_osu: $fb not built (cmake --build $build)" >&2; exit 2; }
if [ "$mode" = sweep ]; then
    [ -n "$osu" ] || { echo "sweep_vs_osu: set OSU_DIR to OSU's c/mpi/pt2pt/standard (docs/PERFORMANCE.md)" >&2; exit 2; }
    for p in osu_latency osu_bw osu_bibw osu_mbw_mr; do
        [ -x "$osu/$p" ] || { echo "sweep_vs_osu: $osu/$p missing (set OSU_DIR)" >&2; exit 2; }
    done
fi
out=${OUT:-$(mktemp -d /tmp/sweep_vs_osu.XXXXXX)}
mkdir -p "$out"
opts=(-np 2)
[ "$(id -u)" -eq 0 ] && opts+=(--allow-run-as-root)
# shellcheck disable=SC2206
opts+=(${MPIRUN_ARGS:---bind-to core} --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any)
# shellcheck disable=SC2206
fbargs=(${FABRICBENCH_ARGS:-})

now() { date +%s.%N; }
# timed NAME ROUND OUTFILE CMD...: runs CMD, stdout to OUTFILE, appends "ROUND NAME SECONDS"
timed() {
    local name=$1 round=$2 file=$3; shift 3
    local t0 t1
    t0=$(now)
    "$@" > "$file" 2> "$file.err" || { echo "sweep_vs_osu: $name failed, see $file.err" >&2; exit 1; }
    t1=$(now)
    echo "$round $name $(echo "$t1 - $t0" | bc -l)" >> "$out/times.txt"
    printf '  %-18s %6.2f s\n' "$name" "$(echo "$t1 - $t0" | bc -l)" >&2
}

: > "$out/times.txt"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname), $(nproc) CPUs, load: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "mode: $mode, rounds: $rounds"
    echo "mpirun: mpirun ${opts[*]}"
    echo "fabricbench: $("$fb" --version 2>/dev/null | head -1 || true) ${fbargs[*]}"
    if [ "$mode" = sweep ]; then
        echo "osu: $osu ($(head -c 300 "$osu/../../../../config.log" 2>/dev/null |
            grep -o 'OSU-Micro-Benchmarks configure [0-9.]*' || echo 'version: see its output'))"
    fi
} | tee "$out/conditions.txt" >&2
echo "outputs: $out" >&2

for r in $(seq 1 "$rounds"); do
    echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    echo "$r $(cut -d' ' -f1 /proc/loadavg)" >> "$out/load.txt"
    if [ "$mode" = sweep ]; then
        timed fabricbench "$r" "$out/fb-$r.out" \
            mpirun "${opts[@]}" "$fb" run -q -o none --csv "$out/fb-$r.csv" "${fbargs[@]}"
        t0=$(now)
        for p in osu_latency osu_bw osu_bibw osu_mbw_mr; do
            timed "$p" "$r" "$out/$p-$r.out" mpirun "${opts[@]}" "$osu/$p"
        done
        echo "$r osu_total $(echo "$(now) - $t0" | bc -l)" >> "$out/times.txt"
    else
        rm -f "$out/fb-$r.h5" "$out/fbs-$r.h5"
        timed fb_none "$r" "$out/fb-none-$r.out" \
            mpirun "${opts[@]}" "$fb" run -q -o none "${fbargs[@]}"
        timed fb_file "$r" "$out/fb-file-$r.out" \
            mpirun "${opts[@]}" "$fb" run -q -o "$out/fb-$r.h5" "${fbargs[@]}"
        timed fb_file_samples "$r" "$out/fb-samples-$r.out" \
            mpirun "${opts[@]}" "$fb" run -q -o "$out/fbs-$r.h5" --samples "${fbargs[@]}"
        stat -c "%s %n" "$out/fb-$r.h5" "$out/fbs-$r.h5" >> "$out/files.txt"
    fi
done
/usr/bin/python3 "$src/bench/sweep_vs_osu.py" "$out" | tee "$out/report.txt"
