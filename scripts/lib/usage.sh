# The help and the argument checks of the scripts under scripts/. Sourced first thing, before a
# script does anything,
#   . "$(dirname "${BASH_SOURCE[0]}")/lib/usage.sh" && usage_if_asked "${BASH_SOURCE[0]}" "$@"
# (../lib from a subfolder). When the script's first argument is -h or --help it prints the
# script's header -- its leading comment block, which says what it does, its arguments and the
# environment variables it reads -- on stdout and exits 0, with no other effect (no package
# installed, nothing built or run). tests/cli/script_help.sh checks every script.
usage_if_asked() {
  local script=$1
  shift
  case "${1-}" in
    -h | --help)
      awk 'NR == 1 && /^#!/ { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$script"
      exit 0
      ;;
  esac
}

# The arguments' checks of the scripts, one line on stderr and exit 2 when they fail (before the
# script starts anything):
#   positive_int PROGRAM NAME VALUE     VALUE must be a positive integer
#   readable_file PROGRAM NAME PATH     PATH must be a readable file
#   executable PROGRAM NAME PATH HINT   PATH must be an executable file; HINT says how to get one
positive_int() {
  [[ $3 =~ ^[1-9][0-9]*$ ]] || { echo "$1: $2=$3; give a positive integer (see $1 --help)" >&2; exit 2; }
}
readable_file() {
  [[ -f $3 && -r $3 ]] || { echo "$1: $2 '$3' is not a readable file (see $1 --help)" >&2; exit 2; }
}
executable() {
  [[ -f $3 && -x $3 ]] || { echo "$1: $2 '$3' is not an executable; $4" >&2; exit 2; }
}
