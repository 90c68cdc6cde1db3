// The runtime state (state.hpp: its contract). Defined here, apart from the lifecycle that fills
// it (runtime.cpp), so that the files that read it do not depend on the file that calls them.
#include "core/state.hpp"

namespace ushmem::core {

runtime rt;

settings settings_in_effect() {
    settings s = rt.cfg;
    s.bulk_min = rt.bulk_min;
    return s;
}

} // namespace ushmem::core
