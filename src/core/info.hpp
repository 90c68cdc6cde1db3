// What ushmem-info shows (shmemx_info): this PE's settings, heap backing, per-peer routes and UCX
// lanes, and the hwloc topology and bindings. Built on demand; not on any data path.
#pragma once

#include <string>

namespace ushmem::core {

// The CPU list the progress thread was bound to ("" when unbound or not running); set at init.
extern std::string progress_thread_binding;

// This PE's report as text (human) or a JSON object. Resolves every peer (collective-free, but
// creates endpoints), so call it with the library running.
// header: also the version, build options, settings table and topology summary (text only).
std::string info_report(const char *routine, bool json, bool header);

} // namespace ushmem::core
