#pragma once
// What was built: the library's version and the commit of its sources.

namespace binamg {

/// The library's version, "major.minor.patch".
const char* version();

/// The git commit the library was built from (short hash, with "-dirty" when
/// tracked files differed from it; "unknown" outside a git checkout).
const char* build_commit();

}  // namespace binamg
