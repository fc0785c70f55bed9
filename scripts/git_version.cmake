# Writes OUT with the current `git describe --dirty` (+ untracked files; only when it changed, so
# that nothing recompiles needlessly).
set(desc "unknown")
set(commit "unknown")
find_program(GIT git)
if(GIT AND EXISTS "${SRC}/.git")
  execute_process(COMMAND ${GIT} -C ${SRC} describe --always --dirty --abbrev=12
                  OUTPUT_VARIABLE desc OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  execute_process(COMMAND ${GIT} -C ${SRC} rev-parse HEAD
                  OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(desc STREQUAL "")
    set(desc "unknown")
  endif()
  # `describe --dirty` ignores untracked files; a build that compiles a new, uncommitted source
  # file is not the commit either: count untracked (not ignored) files too.
  execute_process(COMMAND ${GIT} -C ${SRC} status --porcelain --untracked-files=normal
                  OUTPUT_VARIABLE status OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(NOT status STREQUAL "" AND NOT desc MATCHES "-dirty$" AND NOT desc STREQUAL "unknown")
    set(desc "${desc}-dirty")
  endif()
  if(commit STREQUAL "")
    set(commit "unknown")
  endif()
endif()
set(text "#pragma once\n#define LIEBENCH_GIT_DESCRIBE \"${desc}\"\n#define LIEBENCH_GIT_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
  file(READ "${OUT}" old)
else()
  set(old "")
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUT}" "${text}")
endif()
