# Writes OUTPUT, a source file defining binamg::build_commit(): the commit the
# build was made from (git's short hash, "-dirty" when tracked files differ
# from it, "unknown" outside a git checkout). Run at every build, so the
# benchmarks' result files name the code that produced them; the file is
# rewritten only when the commit changes.
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed)
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" status --porcelain --untracked-files=no
                  OUTPUT_VARIABLE changes OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
  if(changes)
    string(APPEND commit "-dirty")
  endif()
endif()
set(content "// Written by cmake/build_commit.cmake at build time.
#include \"binamg/core/version.hpp\"

namespace binamg {
const char* build_commit() { return \"${commit}\"; }
}  // namespace binamg
")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" existing)
endif()
if(NOT "${existing}" STREQUAL "${content}")
  file(WRITE "${OUTPUT}" "${content}")
endif()
