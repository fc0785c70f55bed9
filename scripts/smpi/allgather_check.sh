#!/usr/bin/env bash
# The cost model's MPI_Allgatherv term (scripts/smpi/README.md, "Cost model" (C3)) against the
# simulation of the collective alone: builds allgather_check.c with smpicc, runs it through
# run.sh (the same platforms and collective choices as the studies) and prints, per rank count,
# the simulated and the modelled seconds of one MPI_Allgatherv.
#   bash scripts/smpi/allgather_check.sh [PLATFORM [TOTAL_BYTES [RANKS...]]]
#   defaults: ib 98304 (the chain's records of 1024 blocks) 16 64 256
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
plat="${1:-ib}"; total="${2:-98304}"; shift $(( $# < 2 ? $# : 2 ))
ranks=("$@"); [ ${#ranks[@]} -gt 0 ] || ranks=(16 64 256)
[[ "$total" =~ ^[1-9][0-9]*$ ]] || { echo "smpi/allgather_check.sh: TOTAL_BYTES has value '$total'; expected a positive integer" >&2; exit 2; }
command -v smpicc > /dev/null || { echo "smpi/allgather_check.sh: smpicc not found: run scripts/smpi/install.sh" >&2; exit 2; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/liebench_agcheck.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
smpicc -O2 "$HERE/allgather_check.c" -o "$tmp/allgather_check" 2> "$tmp/cc.log" || { cat "$tmp/cc.log" >&2; exit 1; }
echo "platform ranks total_bytes simulated_s model_s (model - sim) / sim"
for np in "${ranks[@]}"; do
  line="$(LIEBENCH_SMPI_STEPS="$tmp/allgather_check" "$HERE/run.sh" "$plat" "$np" "$total" 10)"
  /usr/bin/python3 -c '
import os, sys
sys.path.insert(0, sys.argv[1])
import cost_model as c
kv = dict(x.split("=", 1) for x in sys.argv[2].split())
P, total, sim = int(kv["ranks"]), int(kv["total_bytes"]), float(kv["allgatherv_seconds"])
m = c.allgatherv(c.Platform.load(kv["platform"]), P, total)
plat = kv["platform"]
print(f"{plat} {P} {total} {sim:.3e} {m:.3e} {100 * (m - sim) / sim:+.0f} % ({c.allgatherv_algorithm(P, total)})")
' "$HERE" "$line"
done
