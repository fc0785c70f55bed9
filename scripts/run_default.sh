#!/usr/bin/env bash
# The README's main-job command. Sets everything up (Debian packages, build), then runs the
# built-in default experiment -- the double spherical pendulum of [P] 5.3 -- on 2 MPI ranks:
#   experiments/P_fig5_double_pendulum_convergence.cfg       (Fig. 5: orders of the Lie group methods)
#   experiments/P_fig6_7_double_pendulum_invariants.cfg      (Figs. 6-7: 1 - |q_i|^2 and q_i.w_i, t in [0, 5])
#   experiments/P_fig6_7_double_pendulum_invariants_3d.cfg   (the same on a genuinely 3-D state)
# writes results/default/<experiment>.h5, prints the tables (Markdown) and draws the plots
# (results/default/plots/*.png, *.pdf). About 10 s once built.
#   LIEBENCH_NP=4 bash scripts/run_default.sh     # other number of ranks
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$ROOT/scripts/setup.sh"

LB="${LIEBENCH_BUILD_DIR:-$ROOT/build}/liebench"
OUT="$ROOT/results/default"
NP="${LIEBENCH_NP:-2}"
mkdir -p "$OUT/plots"
if [ "$(id -u)" = 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
MPIRUN=(mpirun -n "$NP")
if [ "$NP" -gt "$(nproc)" ]; then MPIRUN+=(--oversubscribe); fi

for exp in P_fig5_double_pendulum_convergence P_fig6_7_double_pendulum_invariants P_fig6_7_double_pendulum_invariants_3d; do
  echo "== $exp  (${MPIRUN[*]} liebench run experiments/$exp.cfg --ranks_per_run=1)" >&2
  # ranks_per_run = 1: the grid points (methods x step sizes) of this small system run side by
  # side on the ranks; rank 0 merges them into the file one job would have written.
  # The run log (configuration, periodic lines, summary) goes to $OUT/$exp.h5.log, not between the tables.
  "${MPIRUN[@]}" "$LB" run "$ROOT/experiments/$exp.cfg" --ranks_per_run=1 --output "$OUT/$exp.h5" --force >/dev/null
  "$LB" report "$OUT/$exp.h5"
  /usr/bin/python3 "$ROOT/scripts/plots/plot_study.py" "$OUT/$exp.h5" --out "$OUT/plots" >/dev/null
  echo
done
echo "results: $OUT/*.h5 (liebench report FILE.h5 [--format md|tex|csv]), run logs: $OUT/*.h5.log, plots: $OUT/plots/" >&2
