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
#    the cores of one binding), as studies/scaling/run_layouts.sh does.
liebench_launch() {
  local ranks="$1" threads="$2"
  shift 2
  local launcher="${LIEBENCH_LAUNCHER:-}"
  if [[ -z "$launcher" ]]; then
    if [[ -n "${SLURM_JOB_ID:-}" ]]; then launcher=srun; else launcher=mpirun; fi
  fi
  export OMP_NUM_THREADS="$threads"
  case "$launcher" in
    srun)
      export OMP_PROC_BIND="${OMP_PROC_BIND:-close}"
      srun --mpi="${SRUN_MPI:-pmix}" --kill-on-bad-exit=1 --ntasks="$ranks" --cpus-per-task="$threads" "$@"
      ;;
    mpirun)
      local flags=() bind=()
      read -r -a flags <<< "${MPIRUN_FLAGS:-}"
      if ((threads == 1)); then bind=(--bind-to core); else bind=(--bind-to none); fi
      "${MPIRUN:-mpirun}" "${flags[@]}" -n "$ranks" "${bind[@]}" -x OMP_NUM_THREADS "$@"
      ;;
    *)
      echo "liebench_launch: LIEBENCH_LAUNCHER='$launcher'; use srun or mpirun" >&2
      return 2
      ;;
  esac
}
