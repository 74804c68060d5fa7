# Run at every build (io/cli/CMakeLists.txt): writes OUT with the git commit of
# SOURCE_DIR (`unknown` outside a git checkout), touching it only when the
# commit changed, so `preflight --version` names the commit it was built from.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE status)
if(NOT status EQUAL 0 OR commit STREQUAL "")
  set(commit "unknown")
endif()
execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                OUTPUT_VARIABLE dirty OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
if(NOT dirty STREQUAL "" AND NOT commit STREQUAL "unknown")
  string(APPEND commit "-dirty")
endif()
file(WRITE "${OUT}.new" "#pragma once\n#define PREFLIGHT_GIT_COMMIT \"${commit}\"\n")
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUT}.new" "${OUT}")
file(REMOVE "${OUT}.new")
