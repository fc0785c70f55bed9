#!/usr/bin/env bash
# The benchmark of issue 16: every target of the issue measured side by side with its peer
# (LAMMPS, Boost.Odeint's RK4, a hand-written fixed-size Eigen RKMK4 loop, Eigen's matrix
# functions), the two programs alternated REPEAT times (A B A B ...), medians and their ratio.
# Records the machine (CPU model, flags, cores, GHz, load before and after) and writes
#   OUT/performance.h5   every sample, the machine and the table (h5py)
#   OUT/performance.md   one row per target: measured, peer, ratio, goal, met, why (notes.md)
#   OUT/raw.txt          the key=value lines of every program run
# A missed target's "why / what would close it" comes from results/performance/notes.md (by hand).
#   scripts/bench/all.sh [--quick] [--build DIR] [--out DIR] [--repeat K] [--no-peers]
# --quick: small sizes, 1 repeat, no peer installation, no rebuild if the programs exist
# (about half a minute: used by tests/cli/bench_quick.sh; its figures are not the targets').
# Timing under load is meaningless in absolute terms: run on a quiet machine; only the ratios of
# one run carry over. Environment: BENCH_THESIS_STEPS (default 10^5) shortens the [K] workload.
# On a shared machine see the autogroup note in scripts/bench/dipolar_efficiency.sh.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD="$ROOT/build"
OUT="$ROOT/results/performance"
QUICK=0
REPEAT=""
PEERS=1
while (($#)); do
  case $1 in
    --quick) QUICK=1 ;;
    --build) BUILD=$2; shift ;;
    --out) OUT=$2; shift ;;
    --repeat) REPEAT=$2; shift ;;
    --no-peers) PEERS=0 ;;
    -h|--help) usage_if_asked "${BASH_SOURCE[0]}" --help ;;
    *) echo "all.sh: unknown argument '$1' (--quick --build DIR --out DIR --repeat K --no-peers)" >&2; exit 2 ;;
  esac
  shift
done
if [ -z "$REPEAT" ]; then REPEAT=$((QUICK ? 1 : 3)); fi
positive_int all.sh --repeat "$REPEAT"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMPI_MCA_rmaps_base_oversubscribe=1
PY=/usr/bin/python3
PROGRAMS=(bench_pendulum_chain bench_pendulum_rhs bench_dipolar_run baseline_odeint_pendulum baseline_eigen_rkmk4 bench_groups)

# ---- build (the project's own Release build) and peers
have_all() { for p in "${PROGRAMS[@]}"; do [ -x "$BUILD/tests/$p" ] || return 1; done; }
if ((QUICK == 0)) || ! have_all; then
  if [ ! -f "$BUILD/CMakeCache.txt" ]; then
    LIEBENCH_BUILD_DIR="$BUILD" bash "$ROOT/scripts/setup.sh"
  else
    cmake --build "$BUILD" -j "$(nproc)" --target "${PROGRAMS[@]}" >&2
  fi
fi
have_all || { echo "all.sh: benchmark programs missing in $BUILD/tests (configure with -DLIEBENCH_BUILD_BENCHMARKS=ON)" >&2; exit 1; }
if ((PEERS && !QUICK)); then bash "$ROOT/scripts/bench/install_peers.sh" || echo "[bench] peers incomplete: their rows say 'not measured'" >&2; fi

mkdir -p "$OUT"
TMP=$(mktemp -d "$OUT/.bench.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
RAW="$TMP/raw.txt"
: > "$RAW"
T="$BUILD/tests"

# ---- the machine
{
  echo "machine cpu_model=$(lscpu | sed -n 's/^Model name: *//p' | tr ' ' '_')"
  mhz=$(lscpu | sed -n 's/^CPU max MHz: *//p;s/^CPU MHz: *//p' | head -1)
  [ -n "$mhz" ] || mhz=$(sed -n 's/^cpu MHz[[:space:]]*: *//p' /proc/cpuinfo | head -1)
  echo "machine cores=$(nproc) mhz=${mhz:-unknown}"
  echo "machine flags=$(grep -m1 -o -w -E 'avx2|fma|avx512f|avx512dq|avx512vl' /proc/cpuinfo | sort -u | tr '\n' ',' | sed 's/,$//')"
  echo "machine host=$(hostname) date=$(date -u +%Y-%m-%dT%H:%M:%SZ) git=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo none) quick=$QUICK repeat=$REPEAT"
  echo "machine load_before=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ',')"
} >> "$RAW"

# emit TAG REP CMD...: runs CMD, keeps its key=value lines (those with '='), tagged; a failing
# program fails the benchmark with its own message. Exit status 3 is a run whose energy error at
# the end of its timed steps was not finite or too large (bench_steady.hpp): its line says
# status=failed, its times "failed", and the row of the table "failed (...)"; the bench goes on.
emit() {
  local tag=$1 rep=$2; shift 2
  local out st=0
  out=$("$@" 2> "$TMP/err") || st=$?
  if ((st == 3)); then
    echo "[bench] $tag #$rep failed: $(grep -m1 'energy error' "$TMP/err")" >&2
  elif ((st != 0)); then
    echo "all.sh: '$*' failed:" >&2
    cat "$TMP/err" >&2
    exit 1
  fi
  printf '%s\n' "$out" | grep '=' | grep -v '^#' | sed "s/^/tag=$tag rep=$rep /" >> "$RAW" || true
  ((st == 3)) || echo "[bench] $tag #$rep done" >&2
}
one() { OMP_NUM_THREADS=1 mpirun -n 1 --bind-to core "$@"; }

# ---- sizes
# Steps inside the stable range (results/performance/notes.md, chain): the chain rows run the
# random state, whose explicit methods' stable step does not shrink with N (RKMK4: 0.02-0.035
# within 40 steps for N = 10^2 ... 10^5), at --dt=auto = 1e-3; the paper's straight chain would
# need h < 2.0/N (bench_pendulum_chain's header). Lie-Euler has no stable step on the chain's
# oscillations (first order: its energy error grows like h t; at h = 1e-3 over 20000 steps it
# reached 0.2 (N = 2) and 56 (N = 20)), so its rows take h = 1e-5 (errors near 1e-5). Every
# program checks that the energy error at the end of its timed steps is finite and at most 1e-3
# and reports no time otherwise (emit above). At least 3 steps are timed after a warm-up step.
if ((QUICK)); then
  SMALL_STEPS=2000; MIN_TIME=0.05; CHAIN_NS=(10000 100000); CHAIN_STEPS=3; GROUP_TIME=0.02
  THESIS_STEPS=200; PAIR_N=(200); PEAK_SECONDS=0.05
else
  SMALL_STEPS=20000; MIN_TIME=1; CHAIN_NS=(10000 100000 1000000 10000000); CHAIN_STEPS=3; GROUP_TIME=0.5
  THESIS_STEPS=100000; PAIR_N=(1000 4000 16000); PEAK_SECONDS=0.5  # issue 16: N = 1000 ... 16000
fi
# A shorter thesis run on a busy machine (its rows then say "not measured (short run)").
THESIS_STEPS=${BENCH_THESIS_STEPS:-$THESIS_STEPS}

# ---- target 5: group kernels (one program alternates suite and Eigen itself)
emit groups 1 one "$T/bench_groups" --rounds=$((QUICK ? 1 : 7)) --min_time=$GROUP_TIME --samples=$((QUICK ? 1024 : 4096))

# ---- target 2: small systems, N = 2 and 20, the four programs alternated
for N in 2 20; do
  for ((r = 1; r <= REPEAT; ++r)); do
    emit small_rkmk4_N$N $r one "$T/bench_pendulum_chain" --N=$N --steps=$SMALL_STEPS --dt=1e-3 --initial=random --method=rkmk4 --timers=off
    emit small_eigen_N$N $r one "$T/baseline_eigen_rkmk4" --N=$N --dt=1e-3 --min_time=$MIN_TIME
    emit small_lie_euler_N$N $r one "$T/bench_pendulum_chain" --N=$N --steps=$SMALL_STEPS --dt=1e-5 --initial=random --method=lie_euler --timers=off
    emit small_odeint_N$N $r one "$T/baseline_odeint_pendulum" --N=$N --dt=1e-3 --min_time=$MIN_TIME
  done
done

# ---- target 3: chain right-hand side (N = 100 and 10^6; dense [P] 5.2 at N = 100 / 1000)
RHS_FILTER='BM_Rhs(Tridiagonal/(100|1000|1000000)|Dense/(100|1000))/'
((QUICK)) && RHS_FILTER='BM_Rhs(Tridiagonal/(100|1000)|Dense/100)/'
rhs_lines() {  # bench_pendulum_rhs's summary tables -> key=value lines
  awk '/^O\(N\) right-hand side/ {t = 1; next} /^Dense Cholesky/ {t = 2; next}
       t == 1 && $1 ~ /^[0-9]+$/ {printf "program=suite_rhs N=%s s_per_rhs=%s ns_per_link_rhs=%s cpu_s_per_rhs=%s\n", $1, $2, $4, $3}
       t == 2 && $1 ~ /^[0-9]+$/ {printf "program=suite_dense_rhs N=%s s_per_rhs=%s dense_over_on=%s\n", $1, $2, $4}'
}
RHS_MIN=$( ((QUICK)) && echo 0.05 || echo 1)
suite_rhs() {
  local out
  out=$(OMP_NUM_THREADS=1 mpirun -n 1 --bind-to core "$T/bench_pendulum_rhs" --benchmark_filter="$RHS_FILTER" \
    --benchmark_min_time=$RHS_MIN 2>/dev/null) || return 1
  printf '%s\n' "$out" | rhs_lines
}
for ((r = 1; r <= REPEAT; ++r)); do
  emit chain_rhs $r suite_rhs
  emit chain_rhs_odeint_N100 $r one "$T/baseline_odeint_pendulum" --N=100 --min_time=$MIN_TIME
done

# ---- target 3: full RKMK4 step per link, growth and memory, against Odeint's RK4
for N in "${CHAIN_NS[@]}"; do
  for ((r = 1; r <= REPEAT; ++r)); do
    emit chain_rkmk4_N$N $r one "$T/bench_pendulum_chain" --N=$N --steps=$CHAIN_STEPS --dt=auto --initial=random --method=rkmk4
    emit chain_odeint_N$N $r one "$T/baseline_odeint_pendulum" --N=$N --dt=1e-3 --min_time=$MIN_TIME
  done
done

# ---- the yardstick of target 1's fraction of peak: this core's clock and FP64 FMA peak, measured
# (bench_fma_peak: a dependent add chain and independent FMA chains), before and after the pairs
emit fma_peak 1 one "$T/bench_fma_peak" --seconds=$PEAK_SECONDS
# ---- target 1: pair interactions against LAMMPS (J1's script), and the suite's own pair rate
# dipolar_vs_lammps.sh [BUILD_DIR] [REPEATS] [N ...] prints '#' lines, then one line per N:
#   N=<n> suite_pairs_per_second=<x> lammps_pairs_per_second=<y> ratio=<x/y> suite_gflops_per_second=<g>
# (older drafts printed "N suite lammps ratio" columns: both are read).
if [ -f "$ROOT/scripts/bench/dipolar_vs_lammps.sh" ]; then
  if command -v lmp >/dev/null 2>&1; then
    bash "$ROOT/scripts/bench/dipolar_vs_lammps.sh" "$BUILD" "$REPEAT" "${PAIR_N[@]}" > "$TMP/pairs.txt" 2> "$TMP/pairs.err" || {
      echo "all.sh: dipolar_vs_lammps.sh failed:" >&2; cat "$TMP/pairs.err" >&2; exit 1; }
    grep -v '^#' "$TMP/pairs.txt" | grep '^N=' | sed 's/^/tag=pairs_lammps rep=1 /' >> "$RAW" || true
    tr ',\t' '  ' < "$TMP/pairs.txt" | awk '$1 ~ /^[0-9]+$/ && NF >= 4 {printf "tag=pairs_lammps rep=1 N=%s suite_pairs_per_second=%s lammps_pairs_per_second=%s ratio=%s\n", $1, $2, $3, $4}' >> "$RAW"
    grep -q '^tag=pairs_lammps' "$RAW" || echo "status pairs_lammps=no_lines_from_script" >> "$RAW"
  else
    echo "status pairs_lammps=skipped_no_lmp" >> "$RAW"
  fi
else
  echo "status pairs_lammps=missing_script" >> "$RAW"
fi
if ! grep -q '^tag=pairs_lammps' "$RAW"; then  # the suite's own figure, LAMMPS's row "not measured"
  for N in "${PAIR_N[@]}"; do
    emit pairs_suite_N$N 1 one "$T/bench_dipolar_run" --mode force --n "$N" --evals $((QUICK ? 3 : 5))
  done
fi

emit fma_peak 2 one "$T/bench_fma_peak" --seconds=$PEAK_SECONDS

# ---- target 1b: the cutoff path in a periodic box against LAMMPS on its own ground (issue 28)
# dipolar_box_vs_lammps.sh [BUILD_DIR] [REPEATS] [n] [STEPS] prints '#' lines, then per rank count:
#   ranks=<P> N=<n^3> suite_step_s=<s> lammps_step_s=<s> ratio=<lammps/suite> lammps_pair_s=<s>
if command -v lmp >/dev/null 2>&1; then
  if bash "$ROOT/scripts/bench/dipolar_box_vs_lammps.sh" "$BUILD" "$REPEAT" $((QUICK ? 16 : 32)) $((QUICK ? 5 : 20)) \
      > "$TMP/box.txt" 2> "$TMP/box.err"; then
    grep '^ranks=' "$TMP/box.txt" | sed 's/^/tag=box_lammps rep=1 /' >> "$RAW" || true
  else
    echo "all.sh: dipolar_box_vs_lammps.sh failed:" >&2; cat "$TMP/box.err" >&2
    echo "status box_lammps=failed" >> "$RAW"
  fi
else
  echo "status box_lammps=skipped_no_lmp" >> "$RAW"
fi

# ---- target 1c: the cutoff path's time per pair within rc against the all-pairs kernel's time per
# pair (issue 27), one core, alternated in this run: bench_dipolar_run --box (1b's system) and
# --n 4000 (all pairs, the tiles)
for ((r = 1; r <= REPEAT; ++r)); do
  emit cutoff_rate $r one "$T/bench_dipolar_run" --mode force --box $((QUICK ? 16 : 32)) --evals $((QUICK ? 3 : 20))
  emit allpairs_rate $r one "$T/bench_dipolar_run" --mode force --n 4000 --evals $((QUICK ? 3 : 5))
done

# ---- target 4: the thesis workload ([K] 3.2.2), suite on 1 and 2 ranks, LAMMPS on the same state
THESIS="$ROOT/scripts/bench/thesis_workload.sh"
for ((r = 1; r <= REPEAT; ++r)); do
  if [ -f "$THESIS" ] && command -v lmp >/dev/null 2>&1; then
    emit thesis $r bash "$THESIS" "$BUILD" "$THESIS_STEPS" "$TMP/thesis"
  else
    emit thesis_suite_np1 $r env OMP_NUM_THREADS=1 mpirun -n 1 --bind-to core "$T/bench_dipolar_run" --mode integrate --n 100 --method rkmk4 --h 0.01 --steps $THESIS_STEPS
    emit thesis_suite_np2 $r env OMP_NUM_THREADS=1 mpirun -n 2 --bind-to core "$T/bench_dipolar_run" --mode integrate --n 100 --method rkmk4 --h 0.01 --steps $THESIS_STEPS
  fi
done

# ---- target 3: 10^8 links on 2 ranks, run for real (issue 27), last (it fills the memory), where
# the memory the largest N above predicts (bytes per link x 10^8, 5 % to spare) is available;
# otherwise the row says why not.
if ((!QUICK)); then
  NMAX=${CHAIN_NS[-1]}
  RSS_MB=$(grep "^tag=chain_rkmk4_N$NMAX " "$RAW" | grep -o 'maxrss_mb_rank0=[0-9.]*' | cut -d= -f2 | sort -g | tail -1)
  AVAIL_KB=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
  if [[ -n "$RSS_MB" && -n "$AVAIL_KB" ]] &&
     awk -v r="$RSS_MB" -v n="$NMAX" -v a="$AVAIL_KB" 'BEGIN {exit !(r * 1048576 / n * 1e8 * 1.05 < a * 1024)}'; then
    emit chain_1e8 1 env OMP_NUM_THREADS=1 mpirun -n 2 --bind-to core "$T/bench_pendulum_chain" --N=100000000 --steps=$CHAIN_STEPS --dt=auto --initial=random --method=rkmk4
  else
    echo "status chain_1e8=skipped_memory rss_mb_N$NMAX=${RSS_MB:-none} mem_available_kb=${AVAIL_KB:-none}" >> "$RAW"
  fi
fi

echo "machine load_after=$(cut -d' ' -f1-3 /proc/loadavg | tr ' ' ',')" >> "$RAW"
NOTES="$ROOT/results/performance/notes.md"
"$PY" "$ROOT/scripts/bench/report.py" "$RAW" "$TMP" "$NOTES"
for f in raw.txt performance.h5 performance.md; do mv -f "$TMP/$f" "$OUT/$f"; done
echo "[bench] wrote $OUT/performance.md, $OUT/performance.h5, $OUT/raw.txt" >&2
# docs/performance.md shows the latest full table (never a quick one, never one written elsewhere).
if ((QUICK == 0)) && [ "$(realpath "$OUT")" = "$(realpath "$ROOT/results/performance")" ]; then
  "$PY" - "$ROOT/docs/performance.md" "$OUT/performance.md" <<'PYEOF'
import sys
readme, table = sys.argv[1], open(sys.argv[2]).read().split("\n", 1)[1].strip()
s = open(readme).read()
b, e = "<!-- BEGIN bench table (scripts/bench/all.sh) -->", "<!-- END bench table -->"
if b in s and e in s:
    s = s[:s.index(b) + len(b)] + "\n" + table + "\n" + s[s.index(e):]
    open(readme + ".tmp", "w").write(s)
    import os
    os.replace(readme + ".tmp", readme)
PYEOF
fi
cat "$OUT/performance.md"
