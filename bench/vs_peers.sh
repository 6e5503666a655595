#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# fabricbench against OSU and IMB in one table (issue 29's benchmark; not a test). In each of
# ROUNDS rounds, every case of CASES runs its tools next to each other, A B C in odd rounds and
# C B A in even ones, so every tool sees the same minutes of a shared machine:
#   fb_fixed  fabricbench with fixed iterations (-i, -x): OSU's defaults for the size
#             (point to point), 1,000 and 100 (collectives)
#   fb_adapt  fabricbench's default, adaptive measurement (no -i)
#   osu       the OSU program with the same -i, -x (both fabricbench columns are divided by it)
#   imb       IMB-MPI1 (collectives only, when IMB_DIR is given), -sync 1 -iter_policy off
# Collectives run with --sync barrier and compare fabricbench's osu_avg_us (OSU's definition:
# the mean over ranks of each rank's mean) with OSU's avg and IMB's t_avg. Then
# bench/vs_peers.py prints the medians over the rounds of the per-round ratios
# fabricbench / peer (rates: fabricbench's rate / the peer's; times: fabricbench's / the
# peer's), their range, and per speed regime of the round (from OSU's 8 B latency).
#
# usage: bench/vs_peers.sh [ROUNDS]                 (default 7; ROUNDS=1 for a quick check)
# env:   ROUNDS       the same, when no argument is given
#        CASES        groups or cases, comma separated (default pt2pt,coll,startup,sweep):
#                     pt2pt = lat8,lat64k,bw8,bibw8,msgrate8; coll = ar2,ar4,a2a4,ar8;
#                     startup (mpirun -np 2 of fabricbench latency 8 B and of osu_latency:
#                     wall, CPU, peak RSS); sweep (fabricbench's default run against
#                     osu_latency, osu_bw, osu_bibw, osu_mbw_mr with their defaults)
#        OSU_DIR      an OSU build or install: its top directory, or one holding the programs
#                     (found below it: c/mpi/pt2pt/standard, c/mpi/collective/blocking,
#                     libexec/osu-micro-benchmarks/mpi/...); required
#        IMB_DIR      the directory holding IMB-MPI1; unset: IMB is left out, with a note
#        TIMEOUT      seconds allowed to every process started (default 300)
#        REGIME_US    OSU's 8 B one-way latency that separates the fast and the slow regime
#                     of a round (default 0.25)
#        BUILD_DIR    (default build)
#        MPIRUN_ARGS  (default: --bind-to none); always added: --oversubscribe --mca pml ucx
#                     --mca pml_ucx_tls any --mca pml_ucx_devices any (what fabricbench sets
#                     itself); collectives also --mca mpi_yield_when_idle 1
#        OUT          where the raw outputs go (default: a new directory under /tmp); kept
#        TABLE        the report as Markdown (default: OUT/table.md)
# exit:  0 done; 1 a run failed or timed out (the report leaves it out and says so);
#        2 a tool is missing (the message says how to get it)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$src/build}
fb=$build/fabricbench
me=vs_peers
rounds=${1:-${ROUNDS:-7}}
cases_arg=${CASES:-pt2pt,coll,startup,sweep}
limit=${TIMEOUT:-300}
regime=${REGIME_US:-0.25}

missing() { echo "$me: $*" >&2; exit 2; }
how_to_get() {
    cat >&2 <<'EOF'
OSU micro-benchmarks (https://mvapich.cse.ohio-state.edu/benchmarks/):
  curl -LO https://mvapich.cse.ohio-state.edu/download/mvapich/osu-micro-benchmarks-7.4.tar.gz
  tar xf osu-micro-benchmarks-7.4.tar.gz && cd osu-micro-benchmarks-7.4
  ./configure CC=mpicc CXX=mpicxx && make -j
  export OSU_DIR=$PWD
Intel MPI Benchmarks (https://github.com/intel/mpi-benchmarks):
  git clone --depth 1 https://github.com/intel/mpi-benchmarks && cd mpi-benchmarks
  make IMB-MPI1 CC=mpicc CXX=mpicxx CPPFLAGS=-DOMPI_SKIP_MPICXX=1
  export IMB_DIR=$PWD
EOF
}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || missing "ROUNDS must be a positive whole number (got '$rounds')"
[[ "$limit" =~ ^[1-9][0-9]*$ ]] || missing "TIMEOUT must be a positive whole number (got '$limit')"
cases=()
for c in ${cases_arg//,/ }; do
    case $c in
    pt2pt) cases+=(lat8 lat64k bw8 bibw8 msgrate8) ;;
    coll) cases+=(ar2 ar4 a2a4 ar8) ;;
    lat8 | lat64k | bw8 | bibw8 | msgrate8 | ar2 | ar4 | a2a4 | ar8 | startup | sweep) cases+=("$c") ;;
    *) missing "CASES: '$c' is not pt2pt, coll, startup, sweep or one of their cases" ;;
    esac
done
[ ${#cases[@]} -gt 0 ] || missing "CASES is empty"
[ -x "$fb" ] || missing "$fb not built (cmake --build $build --target fabricbench)"
command -v mpirun >/dev/null || missing "mpirun not found (apt-get install openmpi-bin)"
command -v timeout >/dev/null || missing "timeout not found (coreutils)"
[ -x /usr/bin/time ] || missing "/usr/bin/time not found (apt-get install time)"
/usr/bin/python3 -c 'import numpy' 2>/dev/null || missing "python3 with numpy needed (apt-get install python3-numpy)"

# the peers: OSU is required, IMB optional
[ -n "${OSU_DIR:-}" ] || { how_to_get; missing "OSU_DIR is not set (see above)"; }
osu_find() { # osu_find PROGRAM: its path under OSU_DIR, or nothing
    local d
    for d in "$OSU_DIR" "$OSU_DIR/c/mpi/pt2pt/standard" "$OSU_DIR/c/mpi/collective/blocking" \
        "$OSU_DIR/mpi/pt2pt/standard" "$OSU_DIR/mpi/collective/blocking" "$OSU_DIR/mpi/pt2pt" \
        "$OSU_DIR/mpi/collective" "$OSU_DIR/libexec/osu-micro-benchmarks/mpi/pt2pt" \
        "$OSU_DIR/libexec/osu-micro-benchmarks/mpi/collective"; do
        if [ -x "$d/$1" ]; then echo "$d/$1"; return; fi
    done
}
declare -A osu
need=(osu_latency)
for c in "${cases[@]}"; do
    case $c in
    bw8) need+=(osu_bw) ;; bibw8) need+=(osu_bibw) ;; msgrate8) need+=(osu_mbw_mr) ;;
    ar*) need+=(osu_allreduce) ;; a2a*) need+=(osu_alltoall) ;;
    sweep) need+=(osu_bw osu_bibw osu_mbw_mr) ;;
    esac
done
for p in "${need[@]}"; do
    osu[$p]=$(osu_find "$p")
    [ -n "${osu[$p]}" ] || { how_to_get; missing "$p not found under OSU_DIR=$OSU_DIR (see above)"; }
done
imb="" notes=""
if [ -n "${IMB_DIR:-}" ]; then
    [ -x "$IMB_DIR/IMB-MPI1" ] || { how_to_get; missing "no IMB-MPI1 in IMB_DIR=$IMB_DIR (see above)"; }
    imb=$IMB_DIR/IMB-MPI1
else
    notes="IMB left out: IMB_DIR is not set"
    echo "$me: $notes" >&2
fi

out=${OUT:-$(mktemp -d /tmp/$me.XXXXXX)}
mkdir -p "$out"
table=${TABLE:-$out/table.md}
opts=(--oversubscribe)
[ "$(id -u)" -eq 0 ] && opts+=(--allow-run-as-root)
# shellcheck disable=SC2206
opts+=(${MPIRUN_ARGS:---bind-to none} --mca pml ucx --mca pml_ucx_tls any --mca pml_ucx_devices any)
copts=(--mca mpi_yield_when_idle 1)
fbq=(-o none -q)

now() { date +%s.%N; }
failed=0
sess="" # the running mpirun's session directory, removed also when the script is stopped
trap 'rm -rf "$sess"' EXIT
# run ROUND CASE TOOL FILE CMD...: CMD's stdout to FILE, stderr to FILE.err, the command in
# FILE.cmd, with a time limit and a session directory of its own; a line
# "ROUND CASE TOOL FILE RC SECONDS LOAD" in runs.txt
run() {
    local round=$1 case=$2 tool=$3 file=$4 t0 rc=0 s
    shift 4
    printf '%q ' "$@" >"$file.cmd"
    echo >>"$file.cmd"
    sess=$(mktemp -d /tmp/$me-ompi.XXXXXX)
    t0=$(now)
    OMPI_MCA_orte_tmpdir_base=$sess timeout -k 10 "$limit" "$@" >"$file" 2>"$file.err" || rc=$?
    s=$(echo "$(now) - $t0" | bc -l)
    rm -rf "$sess"
    sess=""
    echo "$round $case $tool $file $rc $s $(cut -d' ' -f1 /proc/loadavg)" >>"$out/runs.txt"
    if [ "$rc" != 0 ]; then
        failed=$((failed + 1))
        printf '  %-8s %-9s FAILED (exit %s%s), see %s.err\n' "$case" "$tool" "$rc" \
            "$([ "$rc" = 124 ] || [ "$rc" = 137 ] && echo ", timed out after $limit s")" "$file" >&2
        tail -3 "$file.err" | sed 's/^/    /' >&2
    else
        printf '  %-8s %-9s %6.2f s\n' "$case" "$tool" "$s" >&2
    fi
}
# with_time PREFIX CMD...: one rank's CMD under /usr/bin/time, its "wall user sys maxrss_kB"
# in PREFIX.RANK
# shellcheck disable=SC2016 # $0 and $OMPI_COMM_WORLD_RANK are the rank's, expanded by its sh
with_time=(/bin/sh -c 'exec /usr/bin/time -f "%e %U %S %M" -o "$0.$OMPI_COMM_WORLD_RANK" "$@"')

# the cases. Point to point: kernel, size, OSU's default iterations and warm-up for the size
# (c/util/osu_util.h; windows of 64 in bw, bibw, msgrate, both tools), the OSU program
pt2pt_case() { # lat8 -> "latency 8 10000 100 osu_latency"
    case $1 in
    lat8) echo "latency 8 10000 100 osu_latency" ;;
    lat64k) echo "latency 65536 1000 10 osu_latency" ;;
    bw8) echo "bw 8 100 10 osu_bw" ;;
    bibw8) echo "bibw 8 100 10 osu_bibw" ;;
    msgrate8) echo "msgrate 8 100 10 osu_mbw_mr" ;;
    esac
}
# Collectives: kernel, ranks, fabricbench's sizes, the peers' largest; 1,000 iterations and
# 100 of warm-up in every tool (as bench/coll_vs_peers.sh)
coll_case() { # ar4 -> "allreduce 4 FB_SIZES OSU_MAX"
    case $1 in
    ar2) echo "allreduce 2 8,64K,1M 1048576" ;;
    ar4) echo "allreduce 4 8,64K,1M 1048576" ;;
    ar8) echo "allreduce 8 8,64K,1M 1048576" ;;
    a2a4) echo "alltoall 4 32,256K 65536" ;; # fabricbench's bytes: 4 x the peers' 8 B, 64 KiB
    esac
}
citers=1000 cwarm=100

tools_of() {
    case $1 in
    startup) echo "fb_start osu_start" ;;
    sweep) echo "fb_sweep osu_sweep" ;;
    ar* | a2a*) echo "fb_fixed fb_adapt osu${imb:+ imb}" ;;
    *) echo "fb_fixed fb_adapt osu" ;;
    esac
}

one() { # one ROUND CASE TOOL
    local r=$1 c=$2 t=$3 f=$out/$2-$3-$1.out
    local k sz it wu prog np fsz hi
    rm -f "$f.csv" # fabricbench does not overwrite a CSV (OUT given again)
    case $c in
    lat8 | lat64k | bw8 | bibw8 | msgrate8)
        read -r k sz it wu prog <<<"$(pt2pt_case "$c")"
        case $t in
        fb_fixed) run "$r" "$c" "$t" "$f" mpirun -np 2 "${opts[@]}" "$fb" run "$k" -m "$sz" \
            -i "$it" -x "$wu" "${fbq[@]}" --csv "$f.csv" ;;
        fb_adapt) run "$r" "$c" "$t" "$f" mpirun -np 2 "${opts[@]}" "$fb" run "$k" -m "$sz" \
            "${fbq[@]}" --csv "$f.csv" ;;
        osu) run "$r" "$c" "$t" "$f" mpirun -np 2 "${opts[@]}" "${osu[$prog]}" -m "$sz:$sz" \
            -i "$it" -x "$wu" ;;
        esac
        ;;
    ar* | a2a*)
        read -r k np fsz hi <<<"$(coll_case "$c")"
        case $t in
        fb_fixed) run "$r" "$c" "$t" "$f" mpirun -np "$np" "${opts[@]}" "${copts[@]}" "$fb" run \
            "$k" -m "$fsz" -i "$citers" -x "$cwarm" --sync barrier --placement none \
            "${fbq[@]}" --csv "$f.csv" ;;
        fb_adapt) run "$r" "$c" "$t" "$f" mpirun -np "$np" "${opts[@]}" "${copts[@]}" "$fb" run \
            "$k" -m "$fsz" --sync barrier --placement none "${fbq[@]}" --csv "$f.csv" ;;
        osu) # one run a size: OSU's -m is a range, and the sizes between cost minutes at 8 ranks
            local extra=() s
            [ "$k" = allreduce ] && extra=(-T mpi_float)
            for s in $(printf '%s\n' 8 65536 "$hi" | sort -un); do
                run "$r" "$c" "$t" "${f%.out}-$s.out" mpirun -np "$np" "${opts[@]}" "${copts[@]}" \
                    "${osu[osu_$k]}" -m "$s:$s" -i "$citers" -x "$cwarm" -f "${extra[@]}"
            done ;;
        imb)
            local name=Allreduce
            [ "$k" = alltoall ] && name=Alltoall
            printf '%s\n' 8 65536 "$hi" | sort -un >"$out/imb-$c.lengths"
            run "$r" "$c" "$t" "$f" mpirun -np "$np" "${opts[@]}" "${copts[@]}" "$imb" "$name" \
                -npmin "$np" -msglen "$out/imb-$c.lengths" -iter "$citers" -iter_policy off \
                -time 600 -sync 1 ;;
        esac
        ;;
    startup)
        rm -f "$f.time".*
        if [ "$t" = fb_start ]; then
            run "$r" "$c" "$t" "$f" mpirun -np 2 "${opts[@]}" "${with_time[@]}" "$f.time" \
                "$fb" run latency -m 8 -i 1000 -x 100 -o none
        else
            run "$r" "$c" "$t" "$f" mpirun -np 2 "${opts[@]}" "${with_time[@]}" "$f.time" \
                "${osu[osu_latency]}" -m 8:8 -i 1000 -x 100
        fi
        ;;
    sweep)
        if [ "$t" = fb_sweep ]; then
            run "$r" "$c" "$t" "$f" mpirun -np 2 "${opts[@]}" "$fb" run "${fbq[@]}" --csv "$f.csv"
        else
            for p in osu_latency osu_bw osu_bibw osu_mbw_mr; do
                run "$r" "$c" "$t" "$out/$c-$t-$p-$r.out" mpirun -np 2 "${opts[@]}" "${osu[$p]}"
            done
        fi
        ;;
    esac
}

: >"$out/runs.txt"
{
    echo "date: $(date -u +%FT%TZ)"
    echo "machine: $(hostname), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) CPUs, kernel $(uname -r)"
    echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "mpi: $(mpirun --version 2>/dev/null | head -1), UCX $(ucx_info -v 2>/dev/null | sed -n 's/^# Version //p' | head -1)"
    echo "mpirun: mpirun -np N ${opts[*]} (collectives also ${copts[*]})"
    echo "fabricbench: $("$fb" --version 2>/dev/null | head -1 || true)"
    echo "osu: $OSU_DIR ($("${osu[osu_latency]}" -v 2>/dev/null | grep -m1 -o 'OSU MPI[^#]*v[0-9.]*' || echo 'version unknown'))"
    [ -z "$imb" ] || echo "imb: $imb"
    [ -z "$notes" ] || echo "note: $notes"
    echo "rounds: $rounds, cases: ${cases[*]}, timeout: $limit s a process, regime threshold: $regime us"
} | tee "$out/conditions.txt" >&2
echo "outputs: $out" >&2

for r in $(seq 1 "$rounds"); do
    echo "round $r/$rounds (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
    # the round's regime, from OSU's 8 B latency: measured by the lat8 case, or else a probe
    if [[ " ${cases[*]} " != *" lat8 "* ]]; then
        run "$r" probe osu "$out/probe-osu-$r.out" mpirun -np 2 "${opts[@]}" \
            "${osu[osu_latency]}" -m 8:8 -i 10000 -x 1000
    fi
    for c in "${cases[@]}"; do
        read -r -a tl <<<"$(tools_of "$c")"
        if [ $((r % 2)) = 0 ]; then
            rev=()
            for ((i = ${#tl[@]} - 1; i >= 0; i--)); do rev+=("${tl[$i]}"); done
            tl=("${rev[@]}")
        fi
        for t in "${tl[@]}"; do one "$r" "$c" "$t"; done
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg), end: $(date -u +%FT%TZ)" | tee -a "$out/conditions.txt" >&2

rc=0
/usr/bin/python3 "$src/bench/vs_peers.py" "$out" "$regime" >"$table" || rc=$?
cat "$table"
echo "$me: the table is in $table; raw outputs in $out" >&2
[ "$rc" = 0 ] || { echo "$me: the report failed (exit $rc)" >&2; exit 1; }
[ "$failed" = 0 ] || { echo "$me: $failed run(s) failed (see $out/*.err)" >&2; exit 1; }
