# liebench_launch RANKS THREADS PROGRAM ARGS...: runs one MPI program on RANKS ranks with
# THREADS OpenMP threads each. Sourced by the job scripts of slurm/ (slurm/submit.sh copies
# this function into the scripts it renders, so that a rendered script is self-contained).
#
# Launcher: $LIEBENCH_LAUNCHER, or srun inside a SLURM job and mpirun elsewhere.
#  - srun: srun --mpi=$SRUN_MPI (default pmix: Open MPI is a PMIx client) --ntasks=RANKS
#    --cpus-per-task=THREADS (Slurm 22.05's srun does not inherit --cpus-per-task from sbatch, so
#    it is always passed); OMP_PROC_BIND=close (unless set) keeps each rank's threads on the
#    CPUs SLURM binds its task to.
#  - mpirun: $MPIRUN (default mpirun) $MPIRUN_FLAGS -n RANKS, bound to cores with one thread
#    per rank and unbound for hybrid layouts (threads of different ranks would otherwise share
#    the cores of one binding), as scripts/run_layouts.sh does.
liebench_launch() {
  local ranks="$1" threads="$2"
  shift 2
  local launcher="${LIEBENCH_LAUNCHER:-}"
  if [[ -z "$launcher" ]]; then
    if [[ -n "${SLURM_JOB_ID:-}" ]]; then launcher=srun; else launcher=mpirun; fi
  fi
  export OMP_NUM_THREADS="$threads"
  # LIEBENCH_EXEC=1: the launcher replaces this shell (a background job's pid is then the
  # launcher's, which passes signals on to the ranks)
  local exec_=()
  [[ "${LIEBENCH_EXEC:-0}" == 1 ]] && exec_=(exec)
  case "$launcher" in
    srun)
      export OMP_PROC_BIND="${OMP_PROC_BIND:-close}"
      "${exec_[@]}" srun --mpi="${SRUN_MPI:-pmix}" --kill-on-bad-exit=1 --ntasks="$ranks" --cpus-per-task="$threads" "$@"
      ;;
    mpirun)
      local flags=() bind=()
      read -r -a flags <<< "${MPIRUN_FLAGS:-}"
      if ((threads == 1)); then bind=(--bind-to core); else bind=(--bind-to none); fi
      "${exec_[@]}" "${MPIRUN:-mpirun}" "${flags[@]}" -n "$ranks" "${bind[@]}" -x OMP_NUM_THREADS "$@"
      ;;
    *)
      echo "liebench_launch: LIEBENCH_LAUNCHER='$launcher'; use srun or mpirun" >&2
      return 2
      ;;
  esac
}

# liebench_checkpointed RANKS THREADS PROGRAM ARGS...: liebench_launch in the background, with
# SIGUSR1 and SIGTERM of this (batch) shell forwarded to it as SIGUSR1, so that a run checkpoints
# before the time limit: SLURM signals only the batch shell with `#SBATCH --signal=B:USR1@<lead>`,
# and bash runs a trap only between commands (hence background + wait); srun and mpirun pass
# SIGUSR1 on to every rank. liebench then writes OUT.ckpt.h5 and exits 5 (checkpointed, not
# finished). Inside a SLURM job the job then requeues itself (`scontrol requeue`, the job
# script has `#SBATCH --requeue`): the same command runs again from the top and continues from
# the checkpoint; a requeue refused by the cluster leaves exit status 5 (the task fails, and the
# merge job with it) and says how to resubmit. Returns the run's exit status otherwise.
liebench_checkpointed() {
  local pid st forwarded=0 interrupted=0
  LIEBENCH_EXEC=1 liebench_launch "$@" &
  pid=$!
  # shellcheck disable=SC2317  # invoked by the traps
  forward() {
    forwarded=1 interrupted=1
    echo "liebench_checkpointed: $1 received at $(date -u +%H:%M:%SZ); forwarding SIGUSR1 to the run (checkpoint)" >&2
    kill -USR1 "$pid" 2>/dev/null || true
  }
  trap 'forward SIGUSR1' USR1
  trap 'forward SIGTERM' TERM
  # `wait` returns early (status > 128) when a trap runs: wait again (bash keeps the status of
  # a child that ended meanwhile)
  while :; do
    interrupted=0 st=0
    wait "$pid" || st=$?
    ((interrupted)) || break
  done
  trap - USR1 TERM
  if ((st == 5)); then
    if [[ -n "${SLURM_JOB_ID:-}" ]]; then
      echo "liebench_checkpointed: checkpointed (exit status 5); requeueing job $SLURM_JOB_ID" \
        "(restart ${SLURM_RESTART_COUNT:-0} so far) to continue from the checkpoint" >&2
      if scontrol requeue "$SLURM_JOB_ID"; then
        # the requeue ends this script; should it still run, say so (the status is not used)
        sleep 30
        return 5
      fi
      echo "liebench_checkpointed: scontrol requeue $SLURM_JOB_ID failed; resubmit this task (same script," \
        "same array index) to continue from the checkpoint" >&2
    else
      echo "liebench_checkpointed: checkpointed (exit status 5); run the same script again to continue" >&2
    fi
  elif ((forwarded && st == 0)); then
    echo "liebench_checkpointed: the run finished before it could checkpoint" >&2
  fi
  return "$st"
}
