#include "binamg/core/version.hpp"

namespace binamg {

const char* version() { return BINAMG_VERSION; }

}  // namespace binamg
