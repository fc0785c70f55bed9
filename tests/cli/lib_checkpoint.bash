# Helpers of the checkpoint tests (sourced after lib_studies.bash). Kills are timed from the
# run's own progress output (progress_interval = 0.05 s, on every run of a case so that the
# result files carry the same keys), never from a wall-clock guess: a signal is sent once the
# run reports a randomly chosen fraction done, so it lands inside the run on a loaded machine.
PROGRESS=(--progress_interval=0.05)

# signal_ranks SIG PID VIA_MPIRUN: the signal to the liebench processes (as SLURM's --signal
# delivers it to the tasks; mpirun itself would end the job on SIGTERM): PID, or its children.
signal_ranks() {
  if [[ "$3" == 1 ]]; then
    local kids=""
    for _ in $(seq 1 100); do kids=$(pgrep -P "$2") && break; sleep 0.02; done
    [[ -n "$kids" ]] && kill "-$1" $kids 2>/dev/null
  else
    kill "-$1" "$2" 2>/dev/null
  fi
}

# last_percent LOG: the last "NN.N% done" the run reported (0 if none yet)
last_percent() {
  local p
  p=$(grep -o '[0-9.]*% done' "$1" 2>/dev/null | tail -n 1 | tr -d '% done')
  echo "${p:-0}"
}

# wait_for_percent LOG PID TARGET: until the run reported >= TARGET percent done (status 0), or
# it ended (status 1); gives up after 240 s (status 2: a loaded machine may be that slow).
wait_for_percent() {
  for _ in $(seq 1 4800); do
    kill -0 "$2" 2>/dev/null || return 1
    awk -v a="$(last_percent "$1")" -v b="$3" 'BEGIN { exit !(a + 0 >= b + 0) }' && return 0
    sleep 0.05
  done
  return 2
}

# random_target FROM: a percentage between FROM and FROM + 60% of what is left (uniform)
random_target() {
  awk -v f="$1" -v r="$RANDOM" 'BEGIN { printf "%.1f\n", f + (100 - f) * (0.02 + 0.58 * r / 32767) }'
}

# stop_and_restart NAME OUT SIGNALS RUNNERS CMD...: runs `RUNNER CMD -o OUT` (no -q: progress is
# the clock), sends the next signal of SIGNALS (e.g. "TERM USR1 TERM") at a random moment after a
# random progress target, and repeats with the next runner of RUNNERS (e.g. "1 2": 1 rank, then 2
# ranks via mpirun, cycling) until the run finishes. SIGTERM/SIGUSR1/SIGINT must end in exit 5
# with the checkpoint line and file, no temporary and no result file; SIGKILL in 137 (or mpirun's
# failure) and a restart from the last periodic checkpoint. Sets STOPS (signals that landed).
stop_and_restart() {
  # A loaded machine may let a short study finish between two progress polls, before any signal
  # landed: then the whole case runs again from scratch (at most 3 attempts); every attempt that
  # was stopped is checked in full, and at least one must have been stopped.
  local attempt
  for attempt in 1 2 3; do
    stop_and_restart_once "$@" || return 1
    (( STOPS > 0 )) && return 0
    echo "     ($1: attempt $attempt finished before any signal landed; running it again)"
    rm -f "$2" "$2.ckpt.h5"
  done
  bad "$1: no signal landed inside the run (3 attempts)"
  return 1
}

stop_and_restart_once() {
  local name=$1 out=$2; local -a sigs=($3) runners=($4); shift 4
  local round=0 st pid sig ranks via target stale=""
  STOPS=0
  while (( round < 12 )); do
    ranks=${runners[$((round % ${#runners[@]}))]}
    sig=${sigs[$round]:-}
    if [[ $ranks -eq 1 ]]; then via=0; "$LB" "$@" -o "$out" "${PROGRESS[@]}" > run.log 2>&1 &
    else via=1; "${MPIRUN[@]}" -n "$ranks" "$LB" "$@" -o "$out" "${PROGRESS[@]}" > run.log 2>&1 & fi
    pid=$!
    if [[ -n "$sig" ]]; then
      target=$(random_target "${LAST_PCT:-0}")
      if wait_for_percent run.log $pid "$target"; then
        sleep "$(awk -v r="$RANDOM" 'BEGIN { print 0.05 * r / 32767 }')"
        signal_ranks "$sig" $pid $via
      fi
    fi
    wait $pid; st=$?
    LAST_PCT=$(last_percent run.log)
    [[ -n "${CKPT_DEBUG:-}" ]] && echo "     $name round $round ($ranks rank(s), SIG${sig:-none} at >= ${target:-}%): exit $st at $LAST_PCT%"
    round=$((round + 1))
    if [[ $st -eq 0 ]]; then
      break
    elif [[ $st -gt 128 && -e "$out" ]]; then
      # the result is renamed into place only when complete: the signal (SIGKILL too) came after
      # that; a SIGKILL between the rename and the checkpoint's removal leaves the checkpoint
      # (the same command then says the output exists; rm it)
      echo "     ($name: the signal came after the result was committed, exit $st, result complete)"
      rm -f "$out.ckpt.h5"; st=0; break
    elif [[ "$sig" == KILL ]]; then
      STOPS=$((STOPS + 1))
      [[ -e "$out" ]] && { bad "$name: result file written by a killed run"; return 1; }
      stale="$stale $(compgen -G "$out.tmp.*" | tr '\n' ' ')"  # SIGKILL cannot clean up
    elif [[ $st -eq 5 ]]; then
      STOPS=$((STOPS + 1))
      grep -q "checkpoint written to $out.ckpt.h5" run.log || { bad "$name: exit 5 without the checkpoint line: $(tail -3 run.log)"; return 1; }
      [[ -e "$out.ckpt.h5" ]] || bad "$name: exit 5 but no $out.ckpt.h5"
      for t in $(compgen -G "$out.tmp.*"); do
        [[ " $stale " == *" $t "* ]] || bad "$name: temporary result file $t left after exit 5"
      done
      [[ -e "$out" ]] && bad "$name: result file written by a stopped run"
    else
      bad "$name: exit status $st after SIG${sig:-none}: $(tail -5 run.log)"; return 1
    fi
  done
  LAST_PCT=0
  [[ $st -eq 0 ]] || { bad "$name: never finished"; return 1; }
  [[ -e "$out.ckpt.h5" ]] && bad "$name: checkpoint left after the finished run"
  echo "     ($name: stopped $STOPS times)"
}
