#!/usr/bin/env bash
# Runs the SMPI build of liebench_steps on a simulated cluster:
#   scripts/smpi/run.sh PLATFORM NP [liebench_steps arguments...]
# PLATFORM: ib | eth (platforms/{ib64x16,eth64x16}.xml: 64 nodes x 16 cores) | loopback (NP
# ranks on one host, its cores linked by the node loopback: for comparisons with mpirun on this
# machine) | a path to a platform XML file. NP: 1..1024 ranks, filling node after node (16
# ranks per node). Prints liebench_steps's rank-0 summary line with the platform appended
# (platform=... simulated=1 host_speed=... wall_seconds=... host_load=..., the last the host's
# 1-minute load average when the run started); SimGrid's own log goes to
# stderr only on failure (or always with LIEBENCH_SMPI_VERBOSE=1).
# Environment: LIEBENCH_SMPI_STEPS (the SMPI liebench_steps; default: build-smpi next to
# LIEBENCH_BUILD_DIR, or <source>/build-smpi), LIEBENCH_SMPI_HOST_SPEED (default: the value in
# scripts/smpi/calibration.env written by calibrate.sh, else 1Gf with a note), LIEBENCH_SMPI_CFG
# (more --cfg=... options for smpirun, appended; the line then ends with smpi_cfg=...).
#
# Choices made here, and why (see scripts/smpi/README.md):
#  * collectives chosen explicitly, as Open MPI's coll/tuned fixed decision does for our
#    message sizes: every MPI_Allreduce of the compute core carries a few numbers (< 10000
#    bytes: recursive doubling, rdb); MPI_Bcast only at set-up (< 2048 bytes: binomial tree);
#    MPI_Allgatherv (the particles' partner gather, the chain's tridiagonal records) and
#    MPI_Barrier through SimGrid's `ompi` selector, its port of that decision by communicator
#    and message size (for our gathers at 64 ranks: Bruck, log2 P rounds; scripts/smpi/README.md
#    says how that was checked). MPI_Reduce_scatter (the particles' tiled pair kernel combines
#    its slots by a bitwise OR: exact, so no algorithm can change the bits) also through the
#    `ompi` selector. SMPI's default selection uses simple algorithms that are slow to
#    simulate at hundreds of ranks (particles N = 4000 on 64 ranks: 77 s with the default
#    reduce_scatter). MPI_Allgather and MPI_Alltoall (the cutoff path's splitter sample and
#    list counts, at rebuilds only) also through `ompi`: SimGrid's default for both posts P
#    requests per rank and waits on them together, whose host time grows as P^3 (the box on
#    256 ranks: 600 s of host time for a run the `ompi` selection simulates in seconds).
#  * no privatisation of globals (-no-privatize): the compute core keeps no per-rank state in
#    globals (its registries are filled once at load time and only read), and privatisation by
#    dlopen would copy the program once per rank.
#  * one OpenMP thread per rank: simulated ranks are cooperative contexts of one process.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/scripts/smpi"
die() { echo "smpi/run.sh: $*" >&2; exit 2; }
[ $# -ge 2 ] || die "usage: scripts/smpi/run.sh ib|eth|loopback|PLATFORM.xml NP [liebench_steps args...]"
platform="$1"; np="$2"; shift 2
[[ "$np" =~ ^[1-9][0-9]*$ ]] && [ "$np" -le 1024 ] || die "NP has value '$np'; expected 1..1024 ranks (64 nodes x 16 cores)"
if [ -n "${LIEBENCH_SMPI_STEPS:-}" ]; then steps="$LIEBENCH_SMPI_STEPS"
elif [ -n "${LIEBENCH_BUILD_DIR:-}" ]; then steps="${LIEBENCH_BUILD_DIR%/}-smpi/liebench_steps"
else steps="$ROOT/build-smpi/liebench_steps"; fi
[ -x "$steps" ] || die "SMPI program '$steps' not found: build it with scripts/smpi/build.sh (or set LIEBENCH_SMPI_STEPS)"
speed="${LIEBENCH_SMPI_HOST_SPEED:-}"
if [ -z "$speed" ] && [ -f "$HERE/calibration.env" ]; then speed="$(sed -n 's/^HOST_SPEED=//p' "$HERE/calibration.env")"; fi
if [ -z "$speed" ]; then speed="1Gf"; echo "smpi/run.sh: no calibration (scripts/smpi/calibrate.sh): host speed 1Gf" >&2; fi
[[ "$speed" =~ ^[0-9.eE+-]+[kMGT]?f$ ]] || die "host speed '$speed' is not a SimGrid speed such as 2.5Gf"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/liebench_smpi.XXXXXX")"
trap 'rm -rf "$tmp"' EXIT
case "$platform" in
  ib) xml="$HERE/platforms/ib64x16.xml" ;;
  eth) xml="$HERE/platforms/eth64x16.xml" ;;
  loopback) xml="" ;;
  *.xml) [ -f "$platform" ] || die "platform file '$platform' does not exist"; xml="$platform" ;;
  *) die "platform '$platform' unknown; expected ib, eth, loopback or a .xml file" ;;
esac
if [ -z "$xml" ]; then
  # one host with NP cores; ranks talk through its loopback (the shared-memory numbers above)
  cat > "$tmp/platform.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1"><zone id="one" routing="Full">
  <host id="node-0" speed="$speed" core="$np"/>
</zone></platform>
XML
  for ((r = 0; r < np; ++r)); do echo node-0; done > "$tmp/hosts"
else
  sed "s/@SPEED@/$speed/" "$xml" > "$tmp/platform.xml"
  for ((r = 0; r < np; ++r)); do echo "node-$((r / 16))"; done > "$tmp/hosts"
fi
cfg=(--cfg=smpi/host-speed:"$speed"
     --cfg=smpi/allreduce:rdb
     --cfg=smpi/allgather:ompi
     --cfg=smpi/allgatherv:ompi
     --cfg=smpi/alltoall:ompi
     --cfg=smpi/bcast:binomial_tree
     --cfg=smpi/barrier:ompi
     --cfg=smpi/reduce_scatter:ompi
     --cfg=smpi/display-timing:yes)
# extra SimGrid options, e.g. LIEBENCH_SMPI_CFG="--cfg=smpi/simulate-computation:no" (no compute
# bursts: the simulated time is the communication alone, without waits for slower ranks)
if [ -n "${LIEBENCH_SMPI_CFG:-}" ]; then read -r -a extra <<< "$LIEBENCH_SMPI_CFG"; cfg+=("${extra[@]}"); fi
# one host: its ranks talk through SimGrid's loopback link, given the platforms' node loopback
[ -n "$xml" ] || cfg+=(--cfg=network/loopback-lat:0.3e-6 --cfg=network/loopback-bw:20e9)
start=$(date +%s.%N)
load1="$(cut -d' ' -f1 /proc/loadavg)"  # the host's 1-minute load at the start (noise of the measured bursts)
set +e
OMP_NUM_THREADS=1 smpirun -no-privatize -np "$np" -platform "$tmp/platform.xml" -hostfile "$tmp/hosts" \
  "${cfg[@]}" "$steps" "$@" > "$tmp/out" 2> "$tmp/err"
rc=$?
set -e
end=$(date +%s.%N)
if [ $rc -ne 0 ] || [ "${LIEBENCH_SMPI_VERBOSE:-0}" = 1 ]; then cat "$tmp/err" >&2; fi
[ $rc -eq 0 ] || { echo "smpi/run.sh: smpirun of $steps on $np ranks ($platform) failed with status $rc" >&2; exit $rc; }
line="$(grep '^build=' "$tmp/out" | tail -n1)"
[ -n "$line" ] || { cat "$tmp/out" "$tmp/err" >&2; echo "smpi/run.sh: no summary line from $steps" >&2; exit 1; }
echo "$line platform=$platform simulated=1 host_speed=$speed wall_seconds=$(echo "$end - $start" | bc -l | sed 's/^\./0./') host_load=$load1${LIEBENCH_SMPI_CFG:+ smpi_cfg=${LIEBENCH_SMPI_CFG// /,}}"
