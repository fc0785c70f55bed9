#!/usr/bin/env bash
# The simulated scaling studies (issue 17): the SMPI build of liebench_steps (scripts/smpi/run.sh)
# on 1 ... 1024 simulated ranks of both platforms (ib, eth). Every run prints one rank-0 line;
# this script prepends `case=NAME kind=strong|weak` and merges the lines into
# results/smpi/strong_summaries.txt and results/smpi/weak_summaries.txt (a line replaces the
# earlier line of the same case, platform and ranks, so subsets can be run one after another),
# then writes the strong-scaling table and plot (scaling_table.py: results/smpi/strong_scaling.*).
#   LIEBENCH_BUILD_DIR=$PWD/build bash scripts/smpi/scaling.sh [--cases=A,B] [--ranks=1,16,...]
#       [--platforms=ib,eth] [--list] [--dry-run]
# Quick look (a few minutes): --cases=chain_1e6,particles_4000 --ranks=1,16,64 --platforms=ib
#
# Cases (all RKMK4 unless named; random initial states and h = 1e-3 as
# experiments/scaling/chain_strong_N1e6.cfg and dipolar_strong_N4000.cfg; steps per run are the
# suite's choice: every step is the same work, and each simulated run should take minutes here):
#   chain_1e6        strong  chain N = 10^6, 1024 virtual blocks (the same arithmetic on every
#                            layout up to 1024 ranks: one final-state hash per case), 2 steps
#   chain_1e7        strong  chain N = 10^7, 1024 blocks, 1 step. Not sampled: one step is ~6 s of
#                            real compute here (split over the ranks, not replicated) and 2.7 GB
#   particles_4000   strong  dipolar particles N = 4000, all pairs, 1 step
#   particles_64000  strong  dipolar particles N = 64000, all pairs, 1 step of h = 0.01, the pair
#                            work MODELLED (LIEBENCH_SMPI_MODEL_PAIRS=1: each rank injects its
#                            ordered pair interactions / HOST_SPEED instead of running the kernel,
#                            4 10^9 pairs per evaluation; everything else runs), so no energy
#                            (--observables=no) and a state hash that only checks the layouts
#                            against each other
#   chain_rkmk54     strong  chain N = 10^6, 1024 blocks, RKMK5(4) with tol = 1e-6 from
#                            h0 = 1e-3 (the fixed runs' step) to t = 2e-3 (the error norm is a
#                            global reduction every trial step; the step size control is bitwise
#                            the same on every layout). With the default h0 (1e-3 t_final) the
#                            controller needs 6 steps (37 field evaluations) to reach any t_final:
#                            too long a simulation at 1024 ranks
#   chain_weak       weak    chain, 10^4 links per rank (N = 10^4 P), one virtual block per rank
#                            (blocks = P: the reduced tridiagonal system has P - 1 rows), 2 steps
#   particles_weak   weak    particles, N = 500 sqrt(P) (fixed pairs per rank, N^2/P = 250000:
#                            500, 2000, 4000, 8000, 16000 bodies at 1, 16, 64, 256, 1024 ranks),
#                            1 step. The pairs are split, not replicated; every rank holds the
#                            gathered positions and dipoles of all N bodies (6 N doubles: 0.77 GB
#                            over 1024 ranks at N = 16000), which fits here without
#                            SMPI_SHARED_MALLOC
#   box_2e21         strong  the cutoff path (issue 28): 128^3 = 2097152 dipolar LJ spheres on a
#                            lattice in a periodic cube at density 0.8, rc = 2.5, skin 0.3, the
#                            spatial decomposition (parallel/spatial_domains.hpp), dlm
#                            (h = 0.002), 2 steps, the real pair work
#   box_2e21_replay  strong  the same box replayed from the lattice geometry (liebench_steps
#                            --replay=yes, parallel/domain_replay.hpp): the decomposition's own
#                            placement and messages, the pair and body work injected from the
#                            calibration (BOX_ENTRY_NS, BOX_BODY_NS): beside box_2e21, the check
#                            of the replay's simulated time where the real path fits here
#   box_weak         weak    the replayed box at 2^17 bodies per rank: 64x64x32 on 1 rank ...
#                            512^3 = 1.34 10^8 bodies on 1024 ranks (the real path would need
#                            ~1 kB per body, 130 GB, in this one process)
# Weak-scaling lines carry different N per rank count, so their hashes differ by design.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${LIEBENCH_SMPI_RESULTS:-$ROOT/results/smpi}"
die() { echo "smpi/scaling.sh: $*" >&2; exit 2; }
all_cases=(chain_1e6 chain_1e7 particles_4000 particles_64000 chain_rkmk54 chain_weak particles_weak box_2e21 box_2e21_replay box_weak)
cases=("${all_cases[@]}"); ranks=(1 16 64 256 1024); platforms=(ib eth); dry=0; positional=()
for a in "$@"; do
  case "$a" in
    --cases=*) IFS=, read -r -a cases <<< "${a#--cases=}" ;;
    --ranks=*) IFS=, read -r -a ranks <<< "${a#--ranks=}" ;;
    --platforms=*) IFS=, read -r -a platforms <<< "${a#--platforms=}" ;;
    --list) printf '%s\n' "${all_cases[@]}"; exit 0 ;;
    --dry-run) dry=1 ;;
    [1-9]*) positional+=("$a") ;;  # the old form: scaling.sh 1 16 64
    *) die "unknown argument '$a'; expected --cases=A,B --ranks=1,16 --platforms=ib,eth --list --dry-run" ;;
  esac
done
[[ ${#positional[@]} -eq 0 ]] || ranks=("${positional[@]}")
for c in "${cases[@]}"; do
  [[ " ${all_cases[*]} " == *" $c "* ]] || die "case '$c' unknown; expected one of: ${all_cases[*]}"
done
for p in "${ranks[@]}"; do
  [[ "$p" =~ ^[1-9][0-9]*$ && "$p" -le 1024 ]] || die "rank count '$p' invalid; expected 1..1024"
done
for p in "${platforms[@]}"; do
  [[ "$p" == ib || "$p" == eth ]] || die "platform '$p' unknown; expected ib or eth"
done

# the replay's calibrated costs (calibrate.sh --box-only)
box_costs() {
  local f="$ROOT/scripts/smpi/calibration.env" e b
  e="$(sed -n 's/^BOX_ENTRY_NS=//p' "$f" 2>/dev/null)"; b="$(sed -n 's/^BOX_BODY_NS=//p' "$f" 2>/dev/null)"
  [[ -n "$e" && -n "$b" ]] || die "no BOX_ENTRY_NS / BOX_BODY_NS in $f: run scripts/smpi/calibrate.sh --box-only"
  echo "--replay=yes --entry_ns=$e --body_ns=$b"
}
# kind and liebench_steps arguments of case $1 on $2 ranks
kind_of() { case "$1" in *_weak) echo weak ;; *) echo strong ;; esac; }
args_of() {
  local p="$2"
  case "$1" in
    chain_1e6) echo "--model=chain --N=1000000 --blocks=1024 --initial=random --dt=1e-3 --steps=2" ;;
    chain_1e7) echo "--model=chain --N=10000000 --blocks=1024 --initial=random --dt=1e-3 --steps=1" ;;
    particles_4000) echo "--model=particles --N=4000 --initial=random --dt=1e-3 --steps=1" ;;
    particles_64000) echo "--model=particles --N=64000 --initial=random --dt=0.01 --steps=1 --observables=no" ;;
    chain_rkmk54) echo "--model=chain --N=1000000 --blocks=1024 --initial=random --method=rkmk54 --tol=1e-6 --h0=1e-3 --t_final=2e-3" ;;
    chain_weak) echo "--model=chain --N=$((10000 * p)) --blocks=$p --initial=random --dt=1e-3 --steps=2" ;;
    box_2e21) echo "--model=box --lattice=128 --method=dlm --steps=2" ;;
    box_2e21_replay) echo "--model=box --lattice=128 --method=dlm --steps=2 $(box_costs)" ;;
    box_weak)
      # 2^17 bodies per rank on the lattices whose Morton keys fill 0 .. N - 1 (LatticeSites)
      local lat
      case "$p" in
        1) lat=64,64,32 ;; 2) lat=64 ;; 4) lat=128,64,64 ;; 8) lat=128,128,64 ;; 16) lat=128 ;;
        32) lat=256,128,128 ;; 64) lat=256,256,128 ;; 128) lat=256 ;; 256) lat=512,256,256 ;;
        512) lat=512,512,256 ;; 1024) lat=512 ;;
        *) die "box_weak runs on powers of two ranks (2^17 bodies each); got $p" ;;
      esac
      echo "--model=box --lattice=$lat --method=dlm --steps=2 $(box_costs)" ;;
    particles_weak)
      # N = 500 sqrt(P), rounded to the nearest integer
      echo "--model=particles --N=$(awk -v p="$p" 'BEGIN { printf "%d", 500 * sqrt(p) + 0.5 }') --initial=random --dt=1e-3 --steps=1" ;;
  esac
}

mkdir -p "$OUT"
new="$(mktemp "${TMPDIR:-/tmp}/liebench_scaling.XXXXXX")"
trap 'rm -f "$new"' EXIT
echo "# scaling.sh start: $(uptime)" >&2
for c in "${cases[@]}"; do
  for plat in "${platforms[@]}"; do
    for np in "${ranks[@]}"; do
      read -r -a A <<< "$(args_of "$c" "$np")"
      if [[ $dry == 1 ]]; then echo "case=$c kind=$(kind_of "$c"): scripts/smpi/run.sh $plat $np ${A[*]}"; continue; fi
      modelled=0; [[ $c == particles_64000 ]] && modelled=1
      line="$(LIEBENCH_SMPI_MODEL_PAIRS=$modelled "$ROOT/scripts/smpi/run.sh" "$plat" "$np" "${A[@]}")" ||
        { echo "smpi/scaling.sh: case $c on $np ranks of $plat failed (above); lines so far kept" >&2; st=1; break 2; }
      echo "case=$c kind=$(kind_of "$c") $line" | tee -a "$new" >&2
    done
  done
done
echo "# scaling.sh end: $(uptime)" >&2
[[ $dry == 1 ]] && exit 0
# Merge: a new line replaces the old one of the same case, platform and ranks (under a lock, so
# that two subsets, e.g. --platforms=ib and --platforms=eth, can run side by side).
exec 9> "${TMPDIR:-/tmp}/liebench_smpi_scaling.lock"
flock 9
for kind in strong weak; do
  f="$OUT/${kind}_summaries.txt"
  grep " kind=$kind " "$new" > "$new.$kind" || true
  [[ -s "$new.$kind" ]] || { rm -f "$new.$kind"; continue; }
  touch "$f"
  awk 'function key(l,   k, i, n, kv) { n = split(l, kv, " "); k = "";
         for (i = 1; i <= n; ++i) if (kv[i] ~ /^(case|platform|ranks)=/) k = k " " kv[i]; return k }
       FNR == NR { seen[key($0)] = 1; print; next }
       /^case=/ && !(key($0) in seen) { print }' "$new.$kind" "$f" |
    sort -t' ' -k1,1 -s > "$f.tmp"
  mv "$f.tmp" "$f"
  rm -f "$new.$kind"
done
if [[ -s "$OUT/strong_summaries.txt" ]]; then
  /usr/bin/python3 "$ROOT/scripts/smpi/scaling_table.py" "$OUT/strong_summaries.txt" "$OUT/strong_scaling" > /dev/null
fi
exit "${st:-0}"
