// Facts about this process's mappings that the heap, its chunks and the static data share
// (mappings.hpp): the page size backing a mapping, NUMA placement, System V permissions.
#include "core/mappings.hpp"

#include "util/text.hpp"

#include <hwloc.h>
#include <sys/shm.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>

namespace ushmem::core {

namespace {
std::string read_file(const char *path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}
} // namespace

int restrict_shm_permissions() {
    // umask does not apply to shmget, and UCX gives no handle to the shmid: find our segments in
    // /proc/self/maps (util::sysv_ids_in_maps).
    int changed = 0;
    const pid_t self = getpid();
    for (int id : util::sysv_ids_in_maps(read_file("/proc/self/maps"))) {
        struct shmid_ds ds;
        if (shmctl(id, IPC_STAT, &ds) != 0 || ds.shm_cpid != self) continue;  // a peer's segment
        if ((ds.shm_perm.mode & 0777) == 0600) continue;
        ds.shm_perm.mode = (ds.shm_perm.mode & ~0777u) | 0600;
        if (shmctl(id, IPC_SET, &ds) == 0) ++changed;
    }
    return changed;
}

std::size_t mapping_page_size(std::uintptr_t addr) {
    // Read only as far as the mapping's KernelPageSize line: the kernel computes smaps as it is
    // read, and the whole of it cost ~4 ms, most of a heap growth's time (issue #51); the heap's
    // mappings come early (addresses ascend).
    char key[32];
    std::snprintf(key, sizeof key, "%" PRIxPTR "-", addr);
    std::ifstream f("/proc/self/smaps");
    std::string line, text;
    bool in = false;
    while (std::getline(f, line)) {
        if (!in && line.rfind(key, 0) != 0) continue;
        in = true;
        text += line;
        text += '\n';
        if (line.rfind("KernelPageSize:", 0) == 0) break;
    }
    return util::page_size_in_smaps(text, addr);
}

namespace {
int numa_node_count() {
    int n = 0;
    for (int i = 0; i < 1024; ++i) {
        char path[64];
        std::snprintf(path, sizeof path, "/sys/devices/system/node/node%d", i);
        if (access(path, F_OK) != 0) break;
        ++n;
    }
    return n;
}
} // namespace

void place_heap_on_local_numa(void *addr, std::size_t len) {
    // Loading the topology costs milliseconds: only where there is a choice to make.
    if (numa_node_count() <= 1) return;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
        if (hwloc_get_cpubind(topo, cpus, HWLOC_CPUBIND_PROCESS) == 0 && !hwloc_bitmap_iszero(cpus))
            // Pages are placed at first touch, which has not happened yet.
            hwloc_set_area_membind(topo, addr, len, cpus, HWLOC_MEMBIND_BIND, 0);
        hwloc_bitmap_free(cpus);
    }
    hwloc_topology_destroy(topo);
}

} // namespace ushmem::core
