// shmemx_info / ushmem-info: see info.hpp.
#include "core/info.hpp"
#include "core/wait.hpp"

#include "core/env.hpp"
#include "core/heap_grow.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "transport/transport.hpp"
#include "util/text.hpp"

#include <hwloc.h>
#include <unistd.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#ifndef USHMEM_VERSION_STRING
#define USHMEM_VERSION_STRING "unknown"
#endif
#ifndef USHMEM_BUILD_TYPE
#define USHMEM_BUILD_TYPE "unknown"
#endif
#ifndef USHMEM_BUILD_SANITIZE
#define USHMEM_BUILD_SANITIZE ""
#endif

namespace ushmem::core {

std::string progress_thread_binding;

namespace {

std::string json_str(const std::string &s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        if (c == '"' || c == '\\') o += '\\', o += char(c);
        else if (c == '\n') o += "\\n";
        else if (c == '\t') o += "\\t";
        else if (c < 0x20) {
            char b[8];
            std::snprintf(b, sizeof b, "\\u%04x", c);
            o += b;
        } else o += char(c);
    }
    return o + "\"";
}

std::string hex(std::uintptr_t v) {
    char b[32];
    std::snprintf(b, sizeof b, "%#" PRIxPTR, v);
    return b;
}

// The lanes UCX chose for an endpoint, from its own report (ucp_ep_print_info).
util::ep_lanes endpoint_lanes(transport::ep_h ep) {
    char *buf = nullptr;
    std::size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return {};
    transport::print_ep_info(ep, f);
    std::fclose(f);
    util::ep_lanes r = util::parse_ep_lanes(std::string_view(buf, len));
    std::free(buf);
    return r;
}

struct topo_info {
    int cores = 0, pus = 0, numa = 0, packages = 0;
    std::string pe_cpus, heap_numa;
};

topo_info topology(const segment &heap) {
    topo_info t;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return t;
    if (hwloc_topology_load(topo) == 0) {
        t.cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
        t.pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
        t.numa = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
        t.packages = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        char *txt = nullptr;
        if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0 &&
            hwloc_bitmap_list_asprintf(&txt, set) >= 0) {
            t.pe_cpus = txt;
            std::free(txt);
            txt = nullptr;
        }
        // Where the heap's pages are (touched pages only; the heap is touched at init).
        if (heap.base && hwloc_get_area_memlocation(topo, reinterpret_cast<void *>(heap.base),
                                                    heap.page_size ? heap.page_size : 4096, set,
                                                    HWLOC_MEMBIND_BYNODESET) == 0 &&
            hwloc_bitmap_list_asprintf(&txt, set) >= 0) {
            t.heap_numa = txt;
            std::free(txt);
        }
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
    return t;
}

const char *kind_name(env_kind k) {
    switch (k) {
    case env_kind::size: return "size";
    case env_kind::boolean: return "boolean";
    case env_kind::integer: return "integer";
    case env_kind::seconds: return "seconds";
    case env_kind::choice: return "choice";
    case env_kind::string: return "string";
    }
    return "?";
}

} // namespace

std::string info_report(const char *routine, bool json, bool header) {
    const segment &h = rt.seg[seg_heap], &st = rt.seg[seg_static];
    topo_info topo = topology(h);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    int local = 0;
    for (int pe = 0; pe < rt.npes; ++pe)
        if (rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)]) ++local;
    // What waits do follows from this (core/wait_policy.hpp): with more PEs than CPUs they sleep early.
    bool oversubscribed = rt.node_cpus > 0 && local > rt.node_cpus;
    const transport::lanes_info &l = transport::lanes();

    struct peer_row {
        int pe;
        bool same_node, direct;
        util::ep_lanes lanes;
    };
    std::vector<peer_row> peers;
    for (int pe = 0; pe < rt.npes; ++pe) {
        peer &p = target(routine, pe, seg_heap);
        peer_row r{pe, rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)],
                   p.how[seg_heap] == route::direct, {}};
        // (the thread that progresses the worker may create one meanwhile: an acknowledgement)
        if (transport::ep_h ep = __atomic_load_n(&p.ep, __ATOMIC_ACQUIRE)) r.lanes = endpoint_lanes(ep);
        peers.push_back(r);
    }

    std::ostringstream o;
    if (json) {
        o << "{\"pe\": " << rt.me << ", \"npes\": " << rt.npes << ", \"host\": " << json_str(host)
          << ", \"version\": " << json_str(USHMEM_VERSION_STRING) << ", \"openshmem\": \"1.6\""
          << ", \"build\": {\"type\": " << json_str(USHMEM_BUILD_TYPE)
          << ", \"sanitize\": " << json_str(USHMEM_BUILD_SANITIZE)
          << ", \"compiler\": " << json_str(__VERSION__)
          << ", \"ucx\": " << json_str(transport::ucx_version())
          << ", \"hwloc_api\": " << json_str(hex(HWLOC_API_VERSION)) << "}";
        o << ", \"settings\": [";
        bool first = true;
        const settings in_effect = settings_in_effect();
        for (const env_var &v : env_table()) {
            o << (first ? "" : ", ") << "{\"name\": " << json_str(v.name) << ", \"type\": "
              << json_str(kind_name(v.kind)) << ", \"default\": " << json_str(v.default_value)
              << ", \"value\": " << json_str(setting_text(in_effect, v)) << ", \"given\": "
              << json_str(env_value_text(v)) << ", \"range\": " << json_str(env_range_text(v)) << ", \"set\": "
              << (std::getenv(v.name) ? "true" : "false") << ", \"description\": "
              << json_str(v.description) << "}";
            first = false;
        }
        o << "], \"heap\": {\"address\": " << json_str(hex(h.base)) << ", \"size\": " << h.size
          << ", \"page_size\": " << h.page_size << ", \"same_address\": " << (h.same_address ? "true" : "false")
          << ", \"ucx_allocated\": " << (h.mem.allocated ? "true" : "false")
          << ", \"numa_nodes\": " << json_str(topo.heap_numa) << ", \"growth\": " << heap_growth_json() << "}";
        o << ", \"static_data\": {\"address\": " << json_str(hex(st.base)) << ", \"size\": " << st.size
          << ", \"ucx_allocated\": " << (st.mem.allocated ? "true" : "false") << "}";
        o << ", \"ucx_resources\": " << json_str(l.resources);
        o << ", \"progress_thread\": {\"running\": " << (rt.progress_thread ? "true" : "false")
          << ", \"cpus\": " << json_str(progress_thread_binding) << "}";
        o << ", \"topology\": {\"packages\": " << topo.packages << ", \"cores\": " << topo.cores
          << ", \"pus\": " << topo.pus << ", \"numa_nodes\": " << topo.numa
          << ", \"pes_on_node\": " << local << ", \"node_cpus\": " << rt.node_cpus << ", \"oversubscribed\": " << (oversubscribed ? "true" : "false")
          << ", \"pe_cpus\": " << json_str(topo.pe_cpus) << "}";
        o << ", \"wait_policy\": " << json_str(wait_describe());
        o << ", \"peers\": [";
        for (std::size_t i = 0; i < peers.size(); ++i) {
            const peer_row &r = peers[i];
            o << (i ? ", " : "") << "{\"pe\": " << r.pe << ", \"same_node\": " << (r.same_node ? "true" : "false")
              << ", \"direct\": " << (r.direct ? "true" : "false") << ", \"lanes\": {\"rma\": "
              << json_str(r.lanes.rma) << ", \"amo\": " << json_str(r.lanes.amo) << ", \"am\": "
              << json_str(r.lanes.am) << "}}";
        }
        o << "]}";
        return o.str();
    }
    char line[512];
    if (header) {
        o << "ushmem " USHMEM_VERSION_STRING " (OpenSHMEM 1.6)\n";
        o << "build: " USHMEM_BUILD_TYPE;
        if (std::strlen(USHMEM_BUILD_SANITIZE)) o << ", sanitizer " USHMEM_BUILD_SANITIZE;
        o << ", GCC-compatible compiler " __VERSION__ << ", UCX " << transport::ucx_version()
          << ", hwloc API " << hex(HWLOC_API_VERSION) << "\n\nsettings:\n";
        const settings in_effect = settings_in_effect();
        for (const env_var &v : env_table()) {
            std::snprintf(line, sizeof line, "  %-26s %-8s %-8s default %-8s %s\n", v.name,
                          kind_name(v.kind), setting_text(in_effect, v).c_str(), v.default_value,
                          std::getenv(v.name) ? "(set)" : "");
            o << line;
        }
        std::snprintf(line, sizeof line, "\ntopology: %d package(s), %d core(s), %d hardware thread(s), %d NUMA node(s)\n",
                      topo.packages, topo.cores, topo.pus, topo.numa);
        o << line << "UCX resources: " << l.resources << "\n\n";
    }
    std::snprintf(line, sizeof line, "PE %d of %d on %s\n", rt.me, rt.npes, host);
    o << line;
    std::snprintf(line, sizeof line, "  heap: %s at %s, %s pages%s, NUMA node(s) %s, %s address on every PE\n",
                  format_bytes(h.size).c_str(), hex(h.base).c_str(), format_bytes(h.page_size).c_str(),
                  h.mem.allocated ? " (UCX-allocated shared memory)" : "",
                  topo.heap_numa.empty() ? "?" : topo.heap_numa.c_str(),
                  h.same_address ? "same" : "per-PE translated");
    o << line << "  heap growth: " << heap_growth_text() << "\n";
    std::snprintf(line, sizeof line, "  static data: %s at %s (%s)\n", format_bytes(st.size).c_str(),
                  hex(st.base).c_str(), st.mem.allocated ? "UCX shared memory" : "registered in place");
    o << line;
    std::snprintf(line, sizeof line, "  bound to CPUs %s; progress thread %s%s%s\n",
                  topo.pe_cpus.empty() ? "?" : topo.pe_cpus.c_str(),
                  rt.progress_thread ? "running" : "not needed",
                  rt.progress_thread && !progress_thread_binding.empty() ? " on CPUs " : "",
                  rt.progress_thread ? progress_thread_binding.c_str() : "");
    o << line;
    std::snprintf(line, sizeof line, "  node: %d PE(s) on %d CPU(s) (of %d hardware threads)%s\n", local,
                  rt.node_cpus, topo.pus, oversubscribed ? " (oversubscribed)" : "");
    o << line;
    o << "  waits: " << wait_describe() << "\n";
    o << "  peer  node    route   RMA lanes                AMO lanes                AM lanes\n";
    for (const peer_row &r : peers) {
        std::snprintf(line, sizeof line, "  %4d  %-6s  %-6s  %-24s %-24s %s\n", r.pe,
                      r.same_node ? "same" : "remote", r.direct ? "direct" : "ucx",
                      r.lanes.rma.empty() ? "-" : r.lanes.rma.c_str(),
                      r.lanes.amo.empty() ? "-" : r.lanes.amo.c_str(),
                      r.lanes.am.empty() ? "-" : r.lanes.am.c_str());
        o << line;
    }
    return o.str();
}
} // namespace ushmem::core
