# The local SLURM of the SLURM tests (sourced after lib_studies.bash; .bash so that CTest's
# tests/cli/*.sh glob does not take it for a test). `slurm_up NAME TAG` brings up
# scripts/slurm_local.sh with its state in a fresh /tmp/liebench-slurm-TAG.* directory (a short
# path: munge and PMIx put UNIX sockets there, at most 107 characters), stops it on every exit
# (with the last lines of its logs after a failure, and "NAME: N s"), exports SLURM_CONF, and
# exits 77 (CTest: skipped) with the reason when SLURM cannot be brought up here (not root,
# packages not installable, daemons not starting); LIEBENCH_REQUIRE_SLURM=1 makes that a failure.
# shellcheck disable=SC2317  # trap handler
LOCAL_SLURM="$SRC/scripts/slurm_local.sh"
slurm_started=$SECONDS

slurm_cleanup() {
  local st=$?
  if ((st != 0 && st != 77)) && [[ -f "$SLURM_DIR/log/slurmctld.log" ]]; then
    echo "---- last lines of the SLURM logs ($SLURM_DIR/log)"
    tail -n 15 "$SLURM_DIR/log/slurmctld.log" "$SLURM_DIR/log/slurmd.log" 2>/dev/null || true
  fi
  bash "$LOCAL_SLURM" stop "$SLURM_DIR" 2>&1 | sed 's/^/    /'
  rm -rf "$SLURM_DIR"
  echo "$SLURM_TEST_NAME: $((SECONDS - slurm_started)) s"
}

slurm_up() {  # NAME TAG
  SLURM_TEST_NAME=$1
  SLURM_DIR="$(mktemp -d "/tmp/liebench-slurm-$2.XXXXXX")"
  trap slurm_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  local st=0 up
  up=$(bash "$LOCAL_SLURM" start "$SLURM_DIR" 2>&1) || st=$?
  if ((st != 0)); then
    echo "$up"
    if [[ "${LIEBENCH_REQUIRE_SLURM:-0}" == 1 ]]; then
      echo "FAIL SLURM could not be brought up (status $st) and LIEBENCH_REQUIRE_SLURM=1"
      exit 1
    fi
    echo "SKIP: SLURM could not be brought up here (scripts/slurm_local.sh start: status $st, reason above)"
    exit 77
  fi
  sed 's/^/    /' <<< "$up"
  export SLURM_CONF="$SLURM_DIR/slurm.conf"
  ok "local SLURM up in $((SECONDS - slurm_started)) s"
}
