#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Start-up cost as whole processes (issue 29 item 4; not a test): `mpirun -np 2` of
#   base  BASE run latency -m 8 -i 1000 -x 100 -o none   (another fabricbench build, e.g. main's)
#   new   NEW  run latency -m 8 -i 1000 -x 100 -o none   (this build)
#   osu   osu_latency -m 8:8 -i 1000 -x 100
# each rank wrapped in bench/rusage_exec.c (user and system CPU in microseconds from wait4,
# peak RSS), ROUNDS rounds, base new osu in odd rounds and osu new base in even ones, bound
# (--bind-to core) then unbound (--bind-to none) in each round. All three run over pml ucx
# as fabricbench selects it (--mca pml ucx, pml_ucx_tls/devices any). Prints per binding the
# medians (CPU user+sys of both ranks, the larger rank's peak RSS, mpirun's wall time) and the
# medians of the per-round ratios with their range.
#
# usage: bench/startup_cpu.sh [ROUNDS]            (default 7)
# env:   BASE      the fabricbench to compare with (default: none, then only new and osu)
#        NEW       (default build/fabricbench)
#        RUSAGE    the wrapper (default build/fab_rusage_exec)
#        OSU_LAT   osu_latency (default: OSU_DIR's libexec/osu-micro-benchmarks/mpi/
#                  pt2pt/osu_latency)
#        OUT       where the raw per-rank lines go (default: a new directory under /tmp)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
rounds=${1:-7}
new=${NEW:-$src/build/fabricbench}
base=${BASE:-}
wrap=${RUSAGE:-$src/build/fab_rusage_exec}
osu=${OSU_LAT:-${OSU_DIR:+$OSU_DIR/libexec/osu-micro-benchmarks/mpi/pt2pt/osu_latency}}
[ -n "$osu" ] || { echo "startup_cpu: set OSU_LAT to osu_latency or OSU_DIR to an OSU install" >&2; exit 2; }
out=${OUT:-$(mktemp -d /tmp/startup_cpu.XXXXXX)}
mkdir -p "$out"
for f in "$new" "$wrap" "$osu" ${base:+"$base"}; do
    [ -x "$f" ] || { echo "startup_cpu: $f: not found or not executable" >&2; exit 2; }
done
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
progs=(${base:+base} new osu)
cmd_of() {
    case $1 in
    base) echo "$base run latency -m 8 -i 1000 -x 100 -o none" ;;
    new) echo "$new run latency -m 8 -i 1000 -x 100 -o none" ;;
    osu) echo "$osu -m 8:8 -i 1000 -x 100" ;;
    esac
}
echo "date: $(date -u +%FT%TZ); load before: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/info"
for r in $(seq 1 "$rounds"); do
    order=("${progs[@]}")
    if [ $((r % 2)) = 0 ]; then
        order=()
        for ((i = ${#progs[@]} - 1; i >= 0; i--)); do order+=("${progs[i]}"); done
    fi
    for bind in core none; do
        for p in "${order[@]}"; do
            d=$(mktemp -d)
            t0=$(date +%s%N)
            # shellcheck disable=SC2046 # the command's words
            OMPI_MCA_orte_tmpdir_base=$d mpirun -np 2 --oversubscribe --mca pml ucx \
                --mca pml_ucx_tls any --mca pml_ucx_devices any --bind-to "$bind" \
                "$wrap" -o "$out/$bind-$p-$r.%r" $(cmd_of "$p") >"$out/$bind-$p-$r.log" 2>&1
            t1=$(date +%s%N)
            rm -rf "$d"
            echo "$(((t1 - t0) / 1000))" >"$out/$bind-$p-$r.wall"
        done
    done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$out/info"
python3 - "$out" "$rounds" "${progs[@]}" <<'EOF'
import statistics as st, sys
out, rounds, progs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def one(bind, p, r):
    ranks = [open(f"{out}/{bind}-{p}-{r}.{k}").read().split() for k in (0, 1)]
    cpu = sum(int(x[0]) + int(x[1]) for x in ranks) / 1e6
    rss = max(int(x[2]) for x in ranks) / 1024
    wall = int(open(f"{out}/{bind}-{p}-{r}.wall").read()) / 1e6
    return cpu, rss, wall
for bind in ("core", "none"):
    v = {p: [one(bind, p, r) for r in range(1, rounds + 1)] for p in progs}
    print(f"\n{'bound' if bind == 'core' else 'unbound'} ({rounds} rounds): medians")
    print("| | CPU user+sys, both ranks (s) | peak RSS, larger rank (MiB) | wall (s) |")
    print("|---|---|---|---|")
    for p in progs:
        print(f"| {p} | " + " | ".join(f"{st.median(x[i] for x in v[p]):.4f}" for i in range(3)) + " |")
    pairs = [(a, b) for a, b in (("new", "osu"), ("base", "osu"), ("new", "base")) if a in v and b in v]
    for a, b in pairs:
        cells = []
        for i in range(3):
            q = [x[i] / y[i] for x, y in zip(v[a], v[b])]
            cells.append(f"{st.median(q):.2f} ({min(q):.2f}-{max(q):.2f})")
        print(f"| {a} / {b} | " + " | ".join(cells) + " |")
EOF
echo "raw: $out"
