#!/usr/bin/env bash
# Runs a scaling study: one `mpirun` per layout RANKSxTHREADS, each writing a part file, then
# merges them into one result file and prints the scaling table.
#
#   scripts/run_layouts.sh EXP.cfg OUT.h5 ["1x1 2x1 1x2"] [-- extra liebench run args]
#
# Without the layout list, scaling.layouts is read from EXP.cfg. With a list, it is passed to
# every job as --scaling.layouts (all parts must share one configuration to be merged).
# Environment: LIEBENCH (binary; default build/liebench next to this script's repository),
# MPIRUN (default mpirun), MPIRUN_FLAGS (extra flags, e.g. --oversubscribe --allow-run-as-root).
# Ranks with one thread are bound to one core each; hybrid layouts RxT get T cores per rank
# (--map-by slot:PE=T) with OMP_NUM_THREADS=T and OMP_PROC_BIND=close.
# On a SLURM cluster, slurm/scaling_array.sbatch runs the same jobs as an array (slurm/submit.sh --scaling).
. "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
LIEBENCH="${LIEBENCH:-$root/build/liebench}"
MPIRUN="${MPIRUN:-mpirun}"
MPIRUN_FLAGS="${MPIRUN_FLAGS:-}"
if [[ "$(id -u)" == 0 ]]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi

if [[ $# -lt 2 ]]; then
  echo "usage: $0 EXP.cfg OUT.h5 [\"1x1 2x1 ...\"] [-- liebench run args]" >&2
  exit 2
fi
cfg="$1"; out="$2"; shift 2
readable_file run_layouts.sh EXP.cfg "$cfg"
layouts=""
override=()
if [[ $# -gt 0 && "$1" != "--" ]]; then
  layouts="$1"; shift
  override=("--scaling.layouts=$layouts")
fi
[[ $# -gt 0 && "$1" == "--" ]] && shift
extra=("$@")
if [[ -z "$layouts" ]]; then
  # scaling.layouts = ... at top level, or layouts = ... inside a [scaling] section
  layouts="$(awk '
    /^[[:space:]]*\[/ { sec = $0; gsub(/[][[:space:]]/, "", sec); next }
    /^[[:space:]]*#/ { next }
    {
      line = $0; sub(/#.*/, "", line)
      split(line, kv, "="); key = kv[1]; gsub(/[[:space:]]/, "", key)
      if ((sec == "" && key == "scaling.layouts") || (sec == "scaling" && key == "layouts")) {
        val = substr(line, index(line, "=") + 1); gsub(/"/, "", val); print val
      }
    }' "$cfg" | tail -n 1)"
  [[ -n "$layouts" ]] || layouts="1x1"
fi

parts_dir="${out%.h5}.parts"
mkdir -p "$parts_dir"
parts=()
for layout in $layouts; do
  ranks="${layout%x*}"; threads="${layout#*x}"
  part="$parts_dir/layout_${layout}.h5"
  # One core per rank, or T consecutive cores per rank for hybrid layouts (their threads are
  # then kept on them by OMP_PROC_BIND=close), so that ranks never share cores.
  if [[ "$threads" == "1" ]]; then bind=(--bind-to core); else bind=(--map-by "slot:PE=$threads" --bind-to core); fi
  echo "run_layouts: $layout ($ranks ranks x $threads threads) -> $part" >&2
  # shellcheck disable=SC2086
  OMP_NUM_THREADS="$threads" OMP_PROC_BIND=close \
    $MPIRUN $MPIRUN_FLAGS -n "$ranks" "${bind[@]}" -x OMP_NUM_THREADS -x OMP_PROC_BIND \
    "$LIEBENCH" run "$cfg" "${override[@]}" "${extra[@]}" --output "$part" --force --quiet
  parts+=("$part")
done
"$LIEBENCH" merge "${parts[@]}" --output "$out" --force
"$LIEBENCH" report "$out" --table scaling
