# The help of every script under scripts/: sourced first thing, before the script does anything,
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
