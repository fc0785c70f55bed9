#!/usr/bin/env bash
# Submits a liebench study to SLURM as a job array (one part of the study grid per array task)
# plus a merge job that runs when every task has succeeded; or, with --local, runs the same
# job scripts here with mpirun, one part after another, and merges.
#
#   slurm/submit.sh EXP.cfg OUT.h5 [options] [-- more liebench run arguments]
#
#   --parts K             array tasks = parts of the study grid (default 1)
#   --ntasks P            MPI ranks per part (default 1)
#   --cpus-per-task T     OpenMP threads per rank (default 1)
#   --scaling             a scaling study: one array task per layout RANKSxTHREADS (each on one
#                         node, --exclusive), instead of --parts/--ntasks/--cpus-per-task
#   --layouts "1x1 2x1"   the layouts of --scaling (default: scaling.layouts of EXP.cfg)
#   --time T, --partition P, --account A
#                         sbatch options of every job (array tasks and merge)
#   --sbatch-arg ARG      one more sbatch option for every job, e.g. --sbatch-arg=--qos=short
#                         (repeatable)
#   --liebench PATH       the binary (default: $LIEBENCH, else the liebench installed beside this
#                         script, PREFIX/bin/liebench for PREFIX/share/liebench/slurm/submit.sh;
#                         never a guess inside the sources); on a cluster it must be reachable
#                         from the compute nodes
#   --signal-lead S       study arrays: SLURM sends SIGUSR1 S seconds before the time limit
#                         (#SBATCH --signal=B:USR1@S, default 120); a single-run study then
#                         checkpoints and the task requeues itself (#SBATCH --requeue) to
#                         continue; 0: no signal, no requeue
#   --local               run here: the parts one after another with mpirun ($MPIRUN, default
#                         mpirun; $MPIRUN_FLAGS), then the merge; nothing is submitted
#   --dry-run             render the job scripts into a temporary directory and print the
#                         sbatch commands; nothing is submitted or written next to OUT
#   --force               replace OUT and the files of an earlier submission for OUT
#   --no-check            do not validate the experiment (`liebench run --check`) first
#
# Files next to OUT (= STEM.h5): STEM.parts/ the part files (part_<i>of<K>.h5, or
# layout_<RxT>.h5); STEM.slurm/ the rendered job scripts exactly as submitted (self-contained:
# `sbatch STEM.slurm/study_array.sbatch` resubmits the array), submit.txt (command, versions, sbatch
# commands, job ids), logs/, and report.md (the tables, written by the merge job).
# Environment: SRUN_MPI (srun --mpi plugin, default pmix; written into the job scripts);
# with --local MPIRUN, MPIRUN_FLAGS. sbatch passes the whole environment to the jobs.
# Standard output: "ARRAY_JOB_ID MERGE_JOB_ID" after a submission (e.g. for squeue/scancel).
# Exit status: 0 submitted (or, with --local, done); 2 bad arguments or experiment; 1 other errors.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
command_line="$(printf '%q ' "$0" "$@")"

die() { echo "submit: $*" >&2; exit 2; }
# usage [STATUS]: the options on stderr, exit 2 (missing arguments); usage 0 (--help): stdout, exit 0
usage() {
  local status=${1:-2}
  {
    echo "usage:"
    sed -n '/^#   slurm\/submit.sh/,/^# Exit status/p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
  } >&$((status == 0 ? 1 : 2))
  exit "$status"
}

# ---- arguments
exp="" out="" parts=1 ntasks=1 cpus=1 scaling=0 layouts="" mode=submit force=0 check=1 signal_lead=120
liebench="${LIEBENCH:-}"
sbatch_opts=() run_args=() positional=()
parts_set=0 ntasks_set=0 cpus_set=0
need() { [[ $# -ge 2 && -n "$2" ]] || die "option $1 needs a value"; }
while [[ $# -gt 0 ]]; do
  case "$1" in
    --parts) need "$@"; parts="$2"; parts_set=1; shift 2 ;;
    --parts=*) parts="${1#*=}"; parts_set=1; shift ;;
    --ntasks) need "$@"; ntasks="$2"; ntasks_set=1; shift 2 ;;
    --ntasks=*) ntasks="${1#*=}"; ntasks_set=1; shift ;;
    --cpus-per-task) need "$@"; cpus="$2"; cpus_set=1; shift 2 ;;
    --cpus-per-task=*) cpus="${1#*=}"; cpus_set=1; shift ;;
    --scaling) scaling=1; shift ;;
    --layouts) need "$@"; layouts="$2"; shift 2 ;;
    --layouts=*) layouts="${1#*=}"; shift ;;
    --time | --partition | --account) need "$@"; sbatch_opts+=("$1=$2"); shift 2 ;;
    --time=* | --partition=* | --account=*) sbatch_opts+=("$1"); shift ;;
    --sbatch-arg) need "$@"; sbatch_opts+=("$2"); shift 2 ;;
    --sbatch-arg=*) sbatch_opts+=("${1#*=}"); shift ;;
    --signal-lead) need "$@"; signal_lead="$2"; shift 2 ;;
    --signal-lead=*) signal_lead="${1#*=}"; shift ;;
    --liebench) need "$@"; liebench="$2"; shift 2 ;;
    --liebench=*) liebench="${1#*=}"; shift ;;
    --local) mode=local; shift ;;
    --dry-run) mode=dry-run; shift ;;
    --force) force=1; shift ;;
    --no-check) check=0; shift ;;
    -h | --help) usage 0 ;;
    --) shift; run_args=("$@"); break ;;
    -*) die "unknown option '$1' (slurm/submit.sh --help lists them; liebench run arguments go after --)" ;;
    *) positional+=("$1"); shift ;;
  esac
done
[[ ${#positional[@]} -eq 2 ]] || usage
exp="${positional[0]}"
out="${positional[1]}"

posint() { [[ "$2" =~ ^[1-9][0-9]*$ ]] || die "option $1 has value '$2'; expected an integer >= 1"; }
posint --parts "$parts"
posint --ntasks "$ntasks"
posint --cpus-per-task "$cpus"
[[ -f "$exp" ]] || die "experiment file '$exp' does not exist"
[[ "$out" == *.h5 ]] || die "output '$out' must end in .h5"
[[ -d "$(dirname "$out")" ]] || die "output directory '$(dirname "$out")' does not exist; create it (mkdir -p)"
[[ "$signal_lead" =~ ^(0|[1-9][0-9]*)$ ]] || die "option --signal-lead has value '$signal_lead'; expected seconds >= 0"
if [[ -z "$liebench" ]]; then
  # an installed submit.sh (PREFIX/share/liebench/slurm) uses the liebench installed with it;
  # from the sources there is no default: which build (directory) is meant cannot be guessed
  if [[ "$here" == */share/liebench/slurm && -x "$here/../../../bin/liebench" ]]; then
    liebench="$here/../../../bin/liebench"
  else
    die "no liebench binary given: add --liebench PATH or set LIEBENCH=PATH (e.g. LIEBENCH=\$PWD/build/liebench, the build to run)"
  fi
fi
[[ -x "$liebench" ]] || die "liebench binary '$liebench' is not executable (build it, or give --liebench PATH)"
for a in "${run_args[@]}"; do
  case "$a" in
    --output* | -o | --part* | --force | --check | --scaling.layouts*)
      die "liebench run argument '$a' is set by submit.sh (use --layouts for scaling.layouts)" ;;
  esac
done
exp="$(cd "$(dirname "$exp")" && pwd)/$(basename "$exp")"
out="$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
liebench="$(cd "$(dirname "$liebench")" && pwd)/$(basename "$liebench")"
stem="${out%.h5}"
parts_dir="$stem.parts"
job_dir="$stem.slurm"
name="$(basename "$stem")"

# value of KEY in an experiment file: `KEY = v` at top level, or `SUB = v` in a [SECTION]
# (the last one wins); a --KEY=v among the liebench run arguments overrides it
cfg_value() {
  local key="$1" section="$2" sub="$3" a v=""
  v="$(awk -v key="$key" -v section="$section" -v sub_="$sub" '
    /^[[:space:]]*\[/ { sec = $0; gsub(/[][[:space:]]/, "", sec); next }
    /^[[:space:]]*[#;]/ { next }
    index($0, "=") > 0 {
      line = $0; sub(/[[:space:]]#.*/, "", line)
      k = substr(line, 1, index(line, "=") - 1); gsub(/[[:space:]]/, "", k)
      if ((sec == "" && k == key) || (section != "" && sec == section && k == sub_)) {
        val = substr(line, index(line, "=") + 1); gsub(/"/, "", val)
        gsub(/^[[:space:]]+|[[:space:]]+$/, "", val); last = val
      }
    }
    END { print last }' "$exp")"
  for a in "${run_args[@]}"; do [[ "$a" == "--$key="* ]] && v="${a#*=}"; done
  echo "$v"
}

study_kind="$(cfg_value study "" "")"
[[ -n "$study_kind" ]] || study_kind=simulate
if ((scaling)); then
  [[ "$study_kind" == scaling ]] || die "--scaling needs a scaling study, but $exp has study = $study_kind"
  ((parts_set || ntasks_set || cpus_set)) && die "--parts, --ntasks and --cpus-per-task do not apply to --scaling (the layouts set them)"
  [[ -n "$layouts" ]] || layouts="$(cfg_value scaling.layouts scaling layouts)"
  [[ -n "$layouts" ]] || layouts="1x1"
  read -r -a layout_list <<< "${layouts//,/ }"
  max_cores=1
  for l in "${layout_list[@]}"; do
    [[ "$l" =~ ^([1-9][0-9]*)x([1-9][0-9]*)$ ]] || die "layout '$l' of --layouts is not RANKSxTHREADS (e.g. 2x1)"
    c=$((BASH_REMATCH[1] * BASH_REMATCH[2]))
    ((c > max_cores)) && max_cores=$c
  done
  layouts="${layout_list[*]}"
  tasks=${#layout_list[@]}
else
  [[ "$study_kind" != scaling ]] || die "$exp is a scaling study: submit it with --scaling (one task per layout)"
  [[ -z "$layouts" ]] || die "--layouts needs --scaling"
  tasks=$parts
  # rank groups (key ranks_per_run) split the grid inside one job, so they exclude parts; the
  # check below runs on one rank and cannot see this
  groups="$(cfg_value ranks_per_run "" "")"
  if [[ "$groups" =~ ^[1-9][0-9]*$ ]] && ((groups < ntasks)); then
    ((parts == 1)) || die "ranks_per_run = $groups splits the grid among rank groups inside each job, which cannot be combined with --parts $parts; use --parts 1 (one job of $ntasks ranks in groups of $groups) or drop ranks_per_run"
    ((ntasks % groups == 0)) || die "ranks_per_run = $groups must divide --ntasks $ntasks"
  fi
fi

# ---- earlier results
shopt -s nullglob
old_parts=("$parts_dir"/*.h5 "$parts_dir"/*.h5.tmp.* "$parts_dir"/*.h5.log "$parts_dir"/*.h5.log.tmp.*)
if ((!force)); then
  [[ ! -e "$out" ]] || die "'$out' exists; add --force to replace it"
  ((${#old_parts[@]} == 0)) || die "'$parts_dir' holds part files of an earlier submission; add --force to replace them"
  [[ ! -e "$job_dir" ]] || die "'$job_dir' (job scripts and logs of an earlier submission) exists; add --force to replace it"
fi

# ---- validate the experiment before anything is queued
if ((check)); then
  check_args=("${run_args[@]}" --check --output "$out" --force)
  if ((scaling)); then check_args+=("--scaling.layouts=1x1"); else check_args+=(--part "1/$parts"); fi
  OMP_NUM_THREADS=1 "$liebench" run "$exp" "${check_args[@]}" || exit $?
fi

# ---- render the job scripts
if [[ "$mode" == dry-run ]]; then
  render_dir="$(mktemp -d "${TMPDIR:-/tmp}/liebench-submit.XXXXXX")"
else
  if ((force)); then
    rm -f -- "${old_parts[@]}"
    rm -rf -- "$job_dir"
  fi
  render_dir="$job_dir"
fi
mkdir -p "$render_dir/logs"
logs="$job_dir/logs"
[[ "$mode" == dry-run ]] && logs="$render_dir/logs"
version="$("$liebench" --version 2>/dev/null | head -n 1 || echo unknown)"
git_describe="$(git -C "$root" describe --always --dirty 2>/dev/null || echo "not a git checkout")"

# render TEMPLATE DEST SBATCH_OPTIONS... -- VARIABLE_LINES...: a self-contained job script:
# the #SBATCH lines, the variables, liebench_launch, and the template without its own #SBATCH lines
render() {
  local template="$1" dest="$2"
  shift 2
  {
    echo "#!/usr/bin/env bash"
    while [[ $# -gt 0 && "$1" != "--" ]]; do echo "#SBATCH $1"; shift; done
    shift
    echo "# Rendered by slurm/submit.sh from slurm/$(basename "$template") on $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "# liebench: $version; sources: $git_describe"
    echo "# command: $command_line"
    printf '%s\n' "$@"
    if grep -q liebench_launch "$template"; then cat "$here/launch.bash"; fi
    sed -e '1d' -e '/^#SBATCH/d' "$template"
  } >"$dest"
  chmod +x "$dest"
}
assign() { printf '%s=%q\n' "$1" "$2"; }
assign_array() {
  local name="$1" a
  shift
  printf '%s=(' "$name"
  for a in "$@"; do printf ' %q' "$a"; done
  printf ' )\n'
}

common_vars=("$(assign LIEBENCH "$liebench")" "$(assign EXP "$exp")" "$(assign OUT "$out")"
  "$(assign PARTS_DIR "$parts_dir")" "$(assign SRUN_MPI "${SRUN_MPI:-pmix}")")
if ((scaling)); then
  array_script="$render_dir/scaling_array.sbatch"
  render "$here/scaling_array.sbatch" "$array_script" \
    "--job-name=lb-scaling-$name" "--array=0-$((tasks - 1))" --nodes=1 --exclusive \
    "--ntasks=$max_cores" --cpus-per-task=1 "--output=$logs/array_%A_%a.log" "${sbatch_opts[@]}" -- \
    "${common_vars[@]}" "$(assign LAYOUTS "$layouts")" "$(assign_array RUN_ARGS "${run_args[@]}")"
  report_args=(--table scaling)
else
  array_script="$render_dir/study_array.sbatch"
  # checkpoint before the time limit and requeue (liebench_checkpointed in launch.bash); the
  # task's log is appended to by every attempt
  requeue_opts=()
  ((signal_lead > 0)) && requeue_opts=("--signal=B:USR1@$signal_lead" --requeue --open-mode=append)
  render "$here/study_array.sbatch" "$array_script" \
    "--job-name=lb-$name" "--array=0-$((tasks - 1))" "--ntasks=$ntasks" "--cpus-per-task=$cpus" \
    "--output=$logs/array_%A_%a.log" "${requeue_opts[@]}" "${sbatch_opts[@]}" -- \
    "${common_vars[@]}" "$(assign PARTS "$parts")" "$(assign_array RUN_ARGS "${run_args[@]}")"
  report_args=()
fi
merge_script="$render_dir/merge.sbatch"
render "$here/merge.sbatch" "$merge_script" \
  "--job-name=lb-merge-$name" --ntasks=1 --cpus-per-task=1 "--output=$logs/merge_%j.log" \
  "${sbatch_opts[@]}" -- \
  "$(assign LIEBENCH "$liebench")" "$(assign OUT "$out")" "$(assign PARTS_DIR "$parts_dir")" \
  "$(assign SRUN_MPI "${SRUN_MPI:-pmix}")" \
  "$(assign REPORT "$job_dir/report.md")" "$(assign_array REPORT_ARGS "${report_args[@]}")"

provenance() {
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "user: $(id -un)  host: $(hostname)  directory: $PWD"
    echo "command: $command_line"
    echo "mode: $mode"
    echo "liebench: $version ($liebench)"
    echo "sources: $git_describe ($root)"
    echo "experiment: $exp (study = $study_kind)"
    if ((scaling)); then echo "layouts: $layouts"; else echo "parts: $parts x ($ntasks ranks x $cpus threads)"; fi
    echo "liebench run arguments: ${run_args[*]}"
    printf '%s\n' "$@"
  } >>"$render_dir/submit.txt"
}

case "$mode" in
  dry-run)
    echo "submit: dry run; job scripts rendered into $render_dir (nothing submitted)" >&2
    echo "sbatch --parsable $array_script"
    echo "sbatch --parsable --dependency=afterok:<array job id> --kill-on-invalid-dep=yes $merge_script"
    ;;
  local)
    provenance "local run: $tasks task(s) with ${MPIRUN:-mpirun} ${MPIRUN_FLAGS:-}, then merge"
    for ((i = 0; i < tasks; i++)); do
      log="$logs/local_array_$i.log"
      echo "submit: --local task $((i + 1))/$tasks (log $log)" >&2
      if ! LIEBENCH_LAUNCHER=mpirun LIEBENCH_TASK_ID=$i LIEBENCH_NTASKS=$ntasks LIEBENCH_THREADS=$cpus \
          bash "$array_script" >"$log" 2>&1; then
        cat "$log" >&2
        echo "submit: task $((i + 1))/$tasks failed (log $log); not merging" >&2
        exit 1
      fi
    done
    log="$logs/local_merge.log"
    if ! LIEBENCH_LAUNCHER=mpirun bash "$merge_script" >"$log" 2>&1; then
      cat "$log" >&2
      echo "submit: merge failed (log $log)" >&2
      exit 1
    fi
    cat "$job_dir/report.md"
    echo "submit: done: $out (report $job_dir/report.md, job scripts and logs in $job_dir)" >&2
    ;;
  submit)
    command -v sbatch >/dev/null || die "sbatch not found (no SLURM here? use --local)"
    array_id="$(sbatch --parsable "$array_script")"
    array_id="${array_id%%;*}"
    merge_id="$(sbatch --parsable "--dependency=afterok:$array_id" --kill-on-invalid-dep=yes "$merge_script")"
    merge_id="${merge_id%%;*}"
    provenance "sbatch --parsable $array_script -> job $array_id" \
      "sbatch --parsable --dependency=afterok:$array_id --kill-on-invalid-dep=yes $merge_script -> job $merge_id"
    echo "submit: array job $array_id ($tasks task(s)), merge job $merge_id (after all succeed) -> $out;" \
      "scripts and logs in $job_dir" >&2
    echo "$array_id $merge_id"
    ;;
esac
