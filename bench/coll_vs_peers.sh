#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fabricbench's collectives against OSU and IMB by the peers' own definitions (issue 29's
# benchmark; not a test). In each of ROUNDS rounds, for every rank count of RANKS and every
# kernel of KERNELS (allreduce, alltoall), four runs next to each other, A B C D in odd rounds
# and D C B A in even ones, so every tool sees the same minutes of a shared machine:
#   fb_barrier  fabricbench run KERNEL --sync barrier (OSU's and IMB's loop: a barrier between
#               calls, not timed): its osu_avg_us, imb_tmin_us, imb_tmax_us
#   osu         osu_allreduce -T mpi_float / osu_alltoall, -f (avg, min, max over ranks)
#   imb         IMB-MPI1 Allreduce / Alltoall (-sync 1, its default): t_min, t_max, t_avg
#   fb_none     fabricbench run KERNEL, calls back to back (the default): time_us and the
#               peers' columns without the barrier
# Every tool runs the same fixed iterations (ITERS, WARMUP) of the same sizes: allreduce
# 8 B to 1 MiB (each rank's buffer, float32 sums in all three); alltoall with 8 B to 1 MiB in
# fabricbench's bytes (everything a rank sends, nccl-tests' size), which is n times the
# peers' size (what a rank sends to each other rank): the peers run 8 B to 1 MiB / n.
# Then bench/coll_vs_peers.py prints, per kernel, ranks and size, the medians over the rounds
# of the per-round ratios fabricbench / peer (docs/PERFORMANCE.md, "Issue 29").
#
# usage: bench/coll_vs_peers.sh [ROUNDS]           (default 5)
# env:   OSU_DIR      OSU's collectives: the directory holding osu_allreduce and osu_alltoall
#                     (a build tree's c/mpi/collective/blocking, or its top directory);
#                     unset or missing: OSU is left out, with a note
#        IMB_DIR      the directory holding IMB-MPI1 (make IMB-MPI1 in IMB's source);
#                     unset or missing: IMB is left out, with a note
#        RANKS        rank counts (default "2 4"; every run oversubscribes this machine's cores)
#        KERNELS      (default "allreduce alltoall")
#        ITERS        timed calls per size in every tool (default 500)
#        WARMUP       untimed calls before them (default 50; IMB: its own warm-up)
#        BUILD_DIR    (default build)
#        MPIRUN_ARGS  (default: --bind-to none --mca mpi_yield_when_idle 1); always added:
#                     --oversubscribe --mca pml ucx --mca pml_ucx_tls any
#                     --mca pml_ucx_devices any (what fabricbench sets itself)
#        FABRICBENCH_ARGS  extra options for every fabricbench run (default none)
#        OUT          where the raw outputs go (default: a new directory under /tmp); kept
# exit:  0 done; 1 a run failed (its output is kept, the report says which); 2 a tool is
#        missing (neither peer found, fabricbench not built)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
fb=$build/fabricbench
me=coll_vs_peers
rounds=${1:-5}
ranks=${RANKS:-2 4}
kernels=${KERNELS:-allreduce alltoall}
iters=${ITERS:-500}
warm=${WARMUP:-50}

die() { echo "$me: $*" >&2; exit 1; }
missing() { echo "$me: $*" >&2; exit 2; }
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || missing "ROUNDS must be a positive whole number (got '$rounds')"
[[ "$iters" =~ ^[1-9][0-9]*$ ]] || missing "ITERS must be a positive whole number (got '$iters')"
[[ "$warm" =~ ^[0-9]+$ ]] || missing "WARMUP must be a whole number (got '$warm')"
for n in $ranks; do
    if ! [[ "$n" =~ ^[1-9][0-9]*$ ]] || [ "$n" -lt 2 ]; then
        missing "RANKS: '$n' is not a rank count of 2 or more"
    fi
done
for k in $kernels; do
    case $k in allreduce | alltoall) ;; *) missing "KERNELS: '$k' is not allreduce or alltoall" ;; esac
done
[ -x "$fb" ] || missing "$fb not built (cmake --build $build --target fabricbench)"
command -v mpirun >/dev/null || missing "mpirun not found (apt-get install openmpi-bin)"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || missing "python3 with numpy needed (apt-get install python3-numpy)"

# the peers: found where the variables say, or left out
osu_bin="" imb_bin="" notes=""
if [ -n "${OSU_DIR:-}" ]; then
    for d in "$OSU_DIR" "$OSU_DIR/c/mpi/collective/blocking" "$OSU_DIR/mpi/collective/blocking" \
        "$OSU_DIR/mpi/collective"; do
        if [ -x "$d/osu_allreduce" ] && [ -x "$d/osu_alltoall" ]; then osu_bin=$d; break; fi
    done
    [ -n "$osu_bin" ] || notes+="OSU left out: no osu_allreduce and osu_alltoall under OSU_DIR=$OSU_DIR; "
else
    notes+="OSU left out: OSU_DIR is not set; "
fi
if [ -n "${IMB_DIR:-}" ] && [ -x "$IMB_DIR/IMB-MPI1" ]; then
    imb_bin=$IMB_DIR/IMB-MPI1
else
    notes+="IMB left out: no IMB-MPI1 in IMB_DIR=${IMB_DIR:-(not set)}; "
fi
[ -n "$osu_bin$imb_bin" ] || missing "neither peer found (${notes%; }): set OSU_DIR and/or IMB_DIR"
[ -z "$notes" ] || echo "$me: ${notes%; }" >&2

out=${OUT:-$(mktemp -d /tmp/$me.XXXXXX)}
mkdir -p "$out"
opts=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && opts+=(--allow-run-as-root)
# shellcheck disable=SC2206
opts+=(${MPIRUN_ARGS:---bind-to none --mca mpi_yield_when_idle 1} --mca pml ucx
    --mca pml_ucx_tls any --mca pml_ucx_devices any)
# shellcheck disable=SC2206
fbargs=(${FABRICBENCH_ARGS:-})

# the sizes: LO:HI in bytes for fabricbench and for the peers (powers of two)
log2() { local n=$1 l=0; while [ "$n" -gt 1 ]; do n=$((n / 2)); l=$((l + 1)); done; echo $l; }
peer_hi() { [ "$1" = alltoall ] && echo $((1048576 / $2)) || echo 1048576; }
fb_sizes() { [ "$1" = alltoall ] && echo "$((8 * $2)):1M" || echo "8:1M"; }

now() { date +%s.%N; }
failed=0
limit=$((600 + iters))
# run ROUND NP KERNEL TOOL FILE CMD...: CMD's stdout to FILE, stderr to FILE.err, the command
# in FILE.cmd, a line "ROUND NP KERNEL TOOL FILE RC SECONDS LOAD" in runs.txt
run() {
    local round=$1 np=$2 k=$3 tool=$4 file=$5 t0 rc=0 s
    shift 5
    printf '%q ' "$@" >"$file.cmd"
    echo >>"$file.cmd"
    t0=$(now)
    timeout -k 10 "$limit" "$@" >"$file" 2>"$file.err" || rc=$?
    s=$(echo "$(now) - $t0" | bc -l)
    echo "$round $np $k $tool $file $rc $s $(cut -d' ' -f1 /proc/loadavg)" >>"$out/runs.txt"
    if [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        printf '  np %-2s %-9s %-10s FAILED (exit %s), see %s.err\n' "$np" "$k" "$tool" "$rc" "$file" >&2
        tail -3 "$file.err" | sed 's/^/    /' >&2
    else
        printf '  np %-2s %-9s %-10s %6.2f s\n' "$np" "$k" "$tool" "$s" >&2
    fi
}

one() { # one ROUND NP KERNEL TOOL
    local r=$1 np=$2 k=$3 tool=$4 f=$out/$3-np$2-$4-$1.out hi
    hi=$(peer_hi "$k" "$np")
    case $tool in
    fb_barrier | fb_none)
        local sync=none
        [ "$tool" = fb_barrier ] && sync=barrier
        run "$r" "$np" "$k" "$tool" "$f" mpirun -np "$np" "${opts[@]}" "$fb" run "$k" \
            -m "$(fb_sizes "$k" "$np")" -i "$iters" -x "$warm" --sync "$sync" --placement none \
            -o none -q --csv - "${fbargs[@]}"
        ;;
    osu)
        local extra=()
        [ "$k" = allreduce ] && extra=(-T mpi_float)
        run "$r" "$np" "$k" "$tool" "$f" mpirun -np "$np" "${opts[@]}" "$osu_bin/osu_$k" \
            -m "8:$hi" -i "$iters" -x "$warm" -f "${extra[@]}"
        ;;
    imb)
        local name=Allreduce
        [ "$k" = alltoall ] && name=Alltoall
        run "$r" "$np" "$k" "$tool" "$f" mpirun -np "$np" "${opts[@]}" "$imb_bin" "$name" \
            -npmin "$np" -msglog "3:$(log2 "$hi")" -zero_size off -iter "$iters" \
            -iter_policy off -time 600 -sync 1
        ;;
    esac
}

tools=(fb_barrier)
[ -n "$osu_bin" ] && tools+=(osu)
[ -n "$imb_bin" ] && tools+=(imb)
tools+=(fb_none)
: >"$out/runs.txt"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "host: $(hostname), $(nproc) CPUs ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), kernel $(uname -r), load at the start: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "rounds: $rounds, ranks: $ranks, kernels: $kernels, iterations: $iters, warm-up: $warm"
    echo "mpirun: mpirun -np N ${opts[*]} ($(mpirun --version 2>/dev/null | head -1))"
    echo "fabricbench: $("$fb" --version 2>/dev/null | head -1 || true) ${fbargs[*]}"
    [ -z "$osu_bin" ] || echo "osu: $osu_bin ($("$osu_bin/osu_allreduce" -v 2>/dev/null | grep -m1 -o 'OSU MPI[^#]*v[0-9.]*' || echo 'version unknown'))"
    [ -z "$imb_bin" ] || echo "imb: $imb_bin"
    [ -z "$notes" ] || echo "note: ${notes%; }"
} | tee "$out/conditions.txt" >&2
echo "outputs: $out" >&2

for r in $(seq 1 "$rounds"); do
    order=("${tools[@]}")
    if [ $((r % 2)) = 0 ]; then
        order=()
        for ((i = ${#tools[@]} - 1; i >= 0; i--)); do order+=("${tools[$i]}"); done
    fi
    echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg); ${order[*]})" >&2
    for np in $ranks; do
        for k in $kernels; do
            for t in "${order[@]}"; do one "$r" "$np" "$k" "$t"; done
        done
    done
done
echo "end: $(date -u +%FT%TZ), load: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/conditions.txt" >&2

rc=0
/usr/bin/python3 "$src/bench/coll_vs_peers.py" "$out" | tee "$out/report.txt" || rc=$?
[ "$rc" = 0 ] || die "the report failed (exit $rc); raw outputs in $out"
[ "$failed" = 0 ] || die "$failed run(s) failed (see $out/*.err)"
