#!/usr/bin/env bash
# The cost model's network terms (scripts/smpi/README.md, "Cost model") against the simulation
# of MPI alone, through run.sh (the same platforms and collective choices as the studies):
#   bash scripts/smpi/allgather_check.sh [PLATFORM [TOTAL_BYTES [RANKS...]]]
#     MPI_Allgatherv of TOTAL_BYTES in equal shares (allgather_check.c) against (C3);
#     defaults: ib 98304 (the chain's records of 1024 blocks) 16 64 256
#   bash scripts/smpi/allgather_check.sh --shift [PLATFORM [BYTES [RANKS DISTANCE]...]]
#     every rank sends BYTES to rank + DISTANCE at once (shift_check.c) against (C2), with the
#     messages of one node sharing its link (DISTANCE >= 16) or its loopback (DISTANCE < 16);
#     defaults: ib 49152, 2 ranks at distance 1 and 32 ranks at distance 16
#   bash scripts/smpi/allgather_check.sh --plan [PLATFORM [N [RANKS...]]]
#     the particles' four point-to-point phases of one field evaluation (the two-level exchange
#     through the tiles' roots: pos_up, pos_down, sum_up, sum_down; messages from pair_plan.py,
#     each phase's all posted at once: phase_check.c) against (C10)'s phase term; defaults: ib
#     4000 32 64; LIEBENCH_PLAN_PHASES="expand exchange": the former direct scheme's two. With
#     LIEBENCH_SMPI_CFG=--cfg=smpi/simulate-computation:no the host's measured time between MPI
#     calls (a few us per message on this machine) is left out of the simulation.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
mode=allgather
if [ "${1:-}" = --shift ]; then mode=shift; shift; fi
if [ "${1:-}" = --plan ]; then mode=phase; shift; fi
plat="${1:-ib}"
case "$mode" in shift) size="${2:-49152}" ;; phase) size="${2:-4000}" ;; *) size="${2:-98304}" ;; esac
shift $(( $# < 2 ? $# : 2 ))
runs=("$@")
if [ ${#runs[@]} -eq 0 ]; then
  case "$mode" in shift) runs=(2 1 32 16) ;; phase) runs=(32 64) ;; *) runs=(16 64 256) ;; esac
fi
[[ "$size" =~ ^[1-9][0-9]*$ ]] || { echo "smpi/allgather_check.sh: the byte count (--plan: N) has value '$size'; expected a positive integer" >&2; exit 2; }
command -v smpicc > /dev/null || { echo "smpi/allgather_check.sh: smpicc not found: run scripts/smpi/install.sh" >&2; exit 2; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/liebench_agcheck.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
prog="$tmp/check"
smpicc -O2 "$HERE/${mode}_check.c" -o "$prog" 2> "$tmp/cc.log" || { cat "$tmp/cc.log" >&2; exit 1; }
compare() {  # LINE: the summary line of one run
  /usr/bin/python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import cost_model as c
kv = dict(x.split("=", 1) for x in sys.argv[2].split())
plat, P = kv["platform"], int(kv["ranks"])
p = c.Platform.load(plat)
if "phase_seconds" in kv:
    import warnings
    import numpy as np
    with warnings.catch_warnings():  # one rank: an empty message file
        warnings.simplefilter("ignore")
        m = np.loadtxt(kv["message_file"], dtype=np.int64, ndmin=2).reshape(-1, 3)
    n, sim = int(m[:, 2].sum()), float(kv["phase_seconds"])
    m, what = c.p2p_phase(p, m[:, 0], m[:, 1], m[:, 2]), kv["message_file"].rsplit("/", 1)[-1]
elif "allgatherv_seconds" in kv:
    n, sim = int(kv["total_bytes"]), float(kv["allgatherv_seconds"])
    m, what = c.allgatherv(p, P, n), "allgatherv " + c.allgatherv_algorithm(P, n)
else:
    n, d, sim = int(kv["bytes"]), int(kv["distance"]), float(kv["sendrecv_seconds"])
    cross = P > c.CORES_PER_NODE and d % P >= 1 and P > 1 and (d >= c.CORES_PER_NODE)
    k = min(d, c.CORES_PER_NODE) if cross else 1
    m, what = p.message(n, cross, k, k * P / c.CORES_PER_NODE), f"shift by {d}"
print(f"{plat} {P} {n} {sim:.3e} {m:.3e} " + (f"{100 * (m - sim) / sim:+.0f} %" if sim > 0 else "na") + f" ({what})")
' "$HERE" "$1"
}
echo "platform ranks bytes simulated_s model_s (model - sim) / sim"
if [ "$mode" = phase ]; then
  for np in "${runs[@]}"; do
    for phase in ${LIEBENCH_PLAN_PHASES:-pos_up pos_down sum_up sum_down}; do
      msgs="$tmp/N${size}_P${np}_$phase.txt"
      /usr/bin/python3 "$HERE/pair_plan.py" "$size" "$np" --messages "$phase" > "$msgs"
      compare "$(LIEBENCH_SMPI_STEPS="$prog" "$HERE/run.sh" "$plat" "$np" "$msgs")"
    done
  done
elif [ "$mode" = allgather ]; then
  for np in "${runs[@]}"; do compare "$(LIEBENCH_SMPI_STEPS="$prog" "$HERE/run.sh" "$plat" "$np" "$size" 10)"; done
else
  [ $(( ${#runs[@]} % 2 )) -eq 0 ] || { echo "smpi/allgather_check.sh --shift: give RANKS DISTANCE pairs" >&2; exit 2; }
  for ((i = 0; i < ${#runs[@]}; i += 2)); do
    compare "$(LIEBENCH_SMPI_STEPS="$prog" "$HERE/run.sh" "$plat" "${runs[i]}" "$size" "${runs[i + 1]}")"
  done
fi
