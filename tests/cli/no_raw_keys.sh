#!/usr/bin/env bash
# No raw key read below the plan (issue 24, docs/architecture.md "Typed options"): in src/methods,
# src/models and src/studies the configuration (lie::Config) is seen only by parse functions,
# the regions between "// <edge>" and "// </edge>" (a registry entry's parse function, the
# plan). Comments and includes aside, anywhere else a mention of Config, of a variable cfg/cfg_, or a call of one of its
# getters fails this test, naming file and line. Declarations (a parse function's prototype
# ending in ';', the entries' `parse` members) are not reads.
# Args: liebench binary (unused), source dir, work dir.
set -u
src="$2"
pattern='\bConfig\b|(?<![.\w])cfg_?\b|\.(get_(string|double|positive|nonnegative|int|int_at_least|bool|list|double_list|int_list|choice)|was_set|resolved_text|resolved_pairs|source_text|command_line)\('
fail=0
for f in "$src"/src/methods/*.[ch]pp "$src"/src/models/*.[ch]pp "$src"/src/studies/*.[ch]pp; do
  out=$(awk '
    /\/\/ <edge>/ { inside = 1; next }
    /\/\/ <\/edge>/ { inside = 0; next }
    /^#include/ { next }
    !inside { line = $0; sub(/\/\/.*/, "", line); printf "%s:%d: %s\n", FILENAME, FNR, line }' "$f" |
        grep -P -- "^[^:]*:[0-9]+: .*($pattern)" |
        grep -vP -- '^[^:]*:[0-9]+: (\s*class Config;|.*\(.*\bConfig&[^{]*\);\s*$|.*std::function<\w+\(const Config&\)> parse( = nullptr)?;)')
  if [ -n "$out" ]; then echo "$out"; fail=1; fi
done
if [ "$fail" -ne 0 ]; then
  echo "no_raw_keys: configuration read below the plan (above); parse the key in the entry's parse function" \
       "(// <edge> ... // </edge>) and pass the typed option down" >&2
  exit 1
fi
echo "no_raw_keys: no raw key read outside the parse functions"
