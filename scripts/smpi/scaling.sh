#!/usr/bin/env bash
# Strong scaling on the simulated clusters: the chain (N = 10^6 links, RKMK4, 1024 virtual
# blocks so that every layout does the same arithmetic) and the particles (N = 4000, all pairs,
# RKMK4) on 1, 16, 64, 256 and 1024 simulated ranks of both platforms (ib, eth). Every run is
# the SMPI build of liebench_steps (scripts/smpi/run.sh); its rank-0 summary lines are written
# to results/smpi/strong_summaries.txt, and results/smpi/strong_scaling.{md,csv,png} give
# simulated seconds per step, speedup and parallel efficiency T1 / (P T_P) per platform, with
# a check that every layout ended in the same final state (hash).
#   LIEBENCH_BUILD_DIR=$PWD/build bash scripts/smpi/scaling.sh [RANKS...]   (default 1 16 64 256 1024)
# Steps per run: the chain 2, the particles 1 (the suite's choice: a step is the same work at
# every step, and each simulated study should take a few minutes here). Set
# LIEBENCH_SMPI_CHAIN_N / LIEBENCH_SMPI_PARTICLES_N to change the sizes.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="$ROOT/results/smpi"
mkdir -p "$OUT"
ranks=("$@"); [ ${#ranks[@]} -gt 0 ] || ranks=(1 16 64 256 1024)
chain_n="${LIEBENCH_SMPI_CHAIN_N:-1000000}"
part_n="${LIEBENCH_SMPI_PARTICLES_N:-4000}"
# initial states and step sizes of studies/scaling/chain_strong_N1e6.cfg and
# dipolar_strong_N4000.cfg (random states, h = 1e-3)
cases=("chain --model=chain --N=$chain_n --blocks=1024 --initial=random --dt=1e-3 --steps=2"
       "particles --model=particles --N=$part_n --initial=random --dt=1e-3 --steps=1")
sum="$OUT/strong_summaries.txt.tmp"
: > "$sum"
echo "# before: $(uptime)" >&2
for c in "${cases[@]}"; do
  read -r name args <<< "$c"
  read -r -a A <<< "$args"
  for plat in ib eth; do
    for np in "${ranks[@]}"; do
      line="$("$ROOT/scripts/smpi/run.sh" "$plat" "$np" "${A[@]}")"
      echo "case=$name $line" | tee -a "$sum" >&2
    done
  done
done
echo "# after: $(uptime)" >&2
mv "$sum" "$OUT/strong_summaries.txt"
/usr/bin/python3 "$ROOT/scripts/smpi/scaling_table.py" "$OUT/strong_summaries.txt" "$OUT/strong_scaling"
