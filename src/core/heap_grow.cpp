// Growing the symmetric heap: see heap_grow.hpp. Growth happens inside a collective allocation
// whose allocator state is the same on every PE (memory.cpp), so every PE decides to grow at the
// same call, by the same bytes, at the same heap offset; one allgather then tells every PE
// whether all mappings succeeded, so that no PE keeps a chunk the others lack.
#include "core/heap_grow.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/preflight.hpp"
#include "core/runtime.hpp"
#include "core/mappings.hpp"
#include "core/stats.hpp"
#include "transport/transport.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <csignal>
#include <string>
#include <vector>

namespace ushmem::core {
namespace {
constexpr std::size_t huge_page = 2u << 20;
// The automatic USHMEM_HEAP_MAX's cap: beyond it the chunk tables (64 B per chunk and peer used)
// grow with no program of this machine class in need; a program that needs more sets it.
constexpr std::uint64_t auto_max_cap = std::uint64_t(64) << 30;

std::size_t round_up(std::size_t v, std::size_t a) { return (v + a - 1) / a * a; }

// Puts the reservation back over [addr, addr + len) after a chunk there is unmapped, so that
// nothing else lands in the heap's range.
void re_reserve(std::uintptr_t addr, std::size_t len) {
    mmap(reinterpret_cast<void *>(addr), len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
         -1, 0);
}
} // namespace

std::uint64_t heap_cap_here() {
    // The node's memory shared among its PEs: more cannot be backed when every PE grows alike.
    const machine_memory m = read_machine_memory();
    const std::uint64_t local = std::uint64_t(std::max(rt.local_size, 1));
    return std::min<std::uint64_t>(m.mem_total ? m.mem_total / local : auto_max_cap, auto_max_cap);
}

std::size_t plan_heap_growth(const char *routine, std::size_t initial, std::uint64_t auto_cap) {
    heap_growth &g = rt.grown;
    g = heap_growth{};
    if (!rt.cfg.heap_grow) return initial;
    const std::size_t chunk = rt.cfg.heap_chunk;
    if ((chunk & (chunk - 1)) || chunk % huge_page)
        fatal(routine, "USHMEM_HEAP_CHUNK=%zu is not a power of two of at least 2 MiB; set it to e.g. 64M",
              chunk);
    g.shift = unsigned(__builtin_ctzll(chunk));
    g.start = round_up(initial, chunk);
    std::uint64_t max = rt.cfg.heap_max;
    if (max == 0) max = auto_cap;
    g.limit = max > g.start ? std::size_t(max - g.start) / chunk * chunk : 0;
    if ((g.limit >> g.shift) > max_heap_chunks)
        fatal(routine, "USHMEM_HEAP_MAX=%" PRIu64 " holds more than %zu chunks of USHMEM_HEAP_CHUNK=%zu; raise "
                       "USHMEM_HEAP_CHUNK (e.g. %s) or lower USHMEM_HEAP_MAX",
              max, max_heap_chunks, chunk, size_setting_for(max / max_heap_chunks).c_str());
    return g.start + g.limit;
}

void enable_heap_growth(bool fixed) {
    heap_growth &g = rt.grown;
    if (!rt.cfg.heap_grow || !fixed) {
        g = heap_growth{};
        return;
    }
    g.on = true;
    g.reserved = g.start + g.limit;
    g.chunk_of.assign(g.limit >> g.shift, 0);
    g.chunks.reserve(g.chunk_of.size());
}

bool grow_heap(const char *routine, std::size_t size, std::size_t alignment, std::string &why) {
    heap_growth &g = rt.grown;
    char buf[512];
    if (!g.on) {
        why = rt.cfg.heap_grow ? "the heap cannot grow: it is not at the same address on every PE (USHMEM_HEAP_ADDRESS)"
                               : "";
        return false;
    }
    const std::size_t chunk = std::size_t(1) << g.shift;
    const std::size_t extra = alignment > 64 ? alignment : 0;
    const std::size_t need = size > g.limit || extra > g.limit ? SIZE_MAX : round_up(size + extra, chunk);
    if (need > g.limit - g.mapped) {
        const std::uint64_t wanted = need == SIZE_MAX ? std::uint64_t(size) + extra : need;
        std::snprintf(buf, sizeof buf,
                      "the heap cannot grow by the %s this needs: %s mapped (%s initial heap and %s in %zu "
                      "chunk%s) of USHMEM_HEAP_MAX=%s; raise USHMEM_HEAP_MAX (e.g. USHMEM_HEAP_MAX=%s) or free "
                      "symmetric memory",
                      format_bytes_approx(wanted).c_str(), format_bytes_approx(rt.seg[seg_heap].size + g.mapped).c_str(),
                      format_bytes_approx(rt.seg[seg_heap].size).c_str(), format_bytes_approx(g.mapped).c_str(),
                      g.chunks.size(), g.chunks.size() == 1 ? "" : "s", format_bytes_approx(g.start + g.limit).c_str(),
                      size_setting_for(std::uint64_t(g.start) + g.mapped + std::min<std::uint64_t>(wanted, UINT64_MAX / 4)).c_str());
        why = buf;
        ++g.failures;
        stats::count_heap_growth(0);
        return false;
    }
    heap_chunk c;
    c.off = g.start + g.mapped;
    c.len = need;
    const std::uintptr_t addr = rt.seg[seg_heap].base + c.off;
    std::string err;
    bool ok;
    if (rt.cfg.test_fault == "refuse_growth" && rt.me == rt.npes - 1 && g.growths + g.failures == 0) {
        ok = false;  // (USHMEM_TEST_FAULT: this PE's first growth fails, as out of memory would)
        err = "refused by USHMEM_TEST_FAULT=refuse_growth";
    } else {
        ok = transport::map_allocate(reinterpret_cast<void *>(addr), need, true, c.mem, err);
    }
    if (ok) {
        place_heap_on_local_numa(c.mem.address, need);
        c.page_size = mapping_page_size(addr);
    }
    // (USHMEM_TEST_FAULT: a PE that dies in the middle of a growth, its chunk mapped and not yet
    // agreed: the test checks that the job still leaves nothing behind.)
    if (ok && rt.cfg.test_fault == "kill_in_growth" && rt.me == rt.npes - 1) raise(SIGKILL);
    // Every PE's outcome and page size, in one exchange.
    struct outcome { std::uint64_t ok, page; } mine{ok ? 1u : 0u, c.page_size};
    std::vector<outcome> all(std::size_t(rt.npes));
    bootstrap::allgather(&mine, sizeof mine, all.data());
    std::vector<int> failed;
    std::uint64_t small = 0, small_page = 0;
    for (int pe = 0; pe < rt.npes; ++pe) {
        const outcome &o = all[std::size_t(pe)];
        if (!o.ok) failed.push_back(pe);
        else if (o.page && o.page < huge_page) ++small, small_page = o.page;
    }
    if (!failed.empty()) {
        if (ok) transport::unmap(c.mem);
        re_reserve(addr, need);
        // The first failing PE's reason, for the one message.
        std::vector<std::uint8_t> texts;
        std::vector<std::size_t> offs;
        bootstrap::allgatherv(err.c_str(), err.size() + 1, texts, offs);
        std::string list;
        for (std::size_t i = 0; i < failed.size() && i < 8; ++i) list += (i ? ", " : "") + std::to_string(failed[i]);
        if (failed.size() > 8) list += ", ...";
        std::snprintf(buf, sizeof buf,
                      "the heap could not grow by %s at %#" PRIxPTR " on PE%s %s (%s); %s mapped of USHMEM_HEAP_MAX=%s; "
                      "free memory on the node (huge pages: vm.nr_hugepages), or lower USHMEM_HEAP_CHUNK",
                      format_bytes_approx(need).c_str(), addr, failed.size() == 1 ? "" : "s", list.c_str(),
                      reinterpret_cast<const char *>(texts.data() + offs[std::size_t(failed[0])]),
                      format_bytes_approx(rt.seg[seg_heap].size + g.mapped).c_str(), format_bytes_approx(g.start + g.limit).c_str());
        why = buf;
        ++g.failures;
        stats::count_heap_growth(0);
        return false;
    }
    const std::vector<std::uint8_t> packed = transport::pack_rkey(c.mem);
    gather_node_table(routine, "heap chunk rkey", packed.data(), packed.size(), c.rkeys);
    restrict_shm_permissions();  // UCX creates its segments 0660 (docs/security.md)
    const std::size_t k = g.chunks.size();
    const std::size_t first = (c.off - g.start) >> g.shift, n = need >> g.shift;
    g.chunks.push_back(std::move(c));
    for (std::size_t i = 0; i < n; ++i) g.chunk_of[first + i] = std::uint16_t(k);
    rt.heap.add_region(g.start + g.mapped, need);
    __atomic_store_n(&g.mapped, g.mapped + need, __ATOMIC_RELEASE);
    ++g.growths;
    stats::count_heap_growth(need);
    if (small && !g.small_page_notice) {
        g.small_page_notice = true;
        if (rt.me == 0 && rt.cfg.hugepage_notice)
            notice("the symmetric heap grew by %s on %s pages, not 2 MiB huge pages, on %" PRIu64 " of %d PEs "
                   "(the huge page pool is used up); reserve more (echo N > /proc/sys/vm/nr_hugepages), or "
                   "USHMEM_HUGEPAGE_NOTICE=0 to silence",
                   format_bytes_approx(need).c_str(), format_bytes(std::size_t(small_page)).c_str(), small,
                   rt.npes);
    }
    return true;
}

void unmap_heap_chunks() {
    heap_growth &g = rt.grown;
    for (auto it = g.chunks.rbegin(); it != g.chunks.rend(); ++it) transport::unmap(it->mem);
    g.chunks.clear();
    __atomic_store_n(&g.mapped, std::size_t(0), __ATOMIC_RELEASE);
}

std::string heap_growth_text() {
    const heap_growth &g = rt.grown;
    const segment &h = rt.seg[seg_heap];
    if (!g.on)
        return rt.cfg.heap_grow ? "fixed (growth off: the heap is not at the same address on every PE)"
                                : "fixed (USHMEM_HEAP_GROW=0)";
    char buf[256];
    std::snprintf(buf, sizeof buf, "grows: reserved [%#" PRIxPTR ", %#" PRIxPTR ") (%s), mapped %s: initial %s + %zu chunk%s (%s, %" PRIu64 " growth%s)",
                  h.base, h.base + g.reserved, format_bytes_approx(g.reserved).c_str(),
                  format_bytes_approx(h.size + g.mapped).c_str(), format_bytes_approx(h.size).c_str(),
                  g.chunks.size(), g.chunks.size() == 1 ? "" : "s", format_bytes_approx(g.mapped).c_str(),
                  g.growths, g.growths == 1 ? "" : "s");
    std::string s = buf;
    // Page sizes of the chunks, grouped: "2 MiB pages x 3, 4 KiB pages x 1".
    std::vector<std::pair<std::size_t, std::size_t>> pages;
    for (const heap_chunk &c : g.chunks) {
        auto it = std::find_if(pages.begin(), pages.end(), [&](auto &p) { return p.first == c.page_size; });
        if (it == pages.end()) pages.push_back({c.page_size, 1});
        else ++it->second;
    }
    for (std::size_t i = 0; i < pages.size(); ++i)
        s += (i ? ", " : "; chunks on ") + format_bytes(pages[i].first) + " pages x " + std::to_string(pages[i].second);
    return s;
}

std::string heap_growth_json() {
    const heap_growth &g = rt.grown;
    std::string s = std::string("{\"on\": ") + (g.on ? "true" : "false") +
                    ", \"reserved\": " + std::to_string(g.reserved) +
                    ", \"initial\": " + std::to_string(rt.seg[seg_heap].size) +
                    ", \"mapped\": " + std::to_string(rt.seg[seg_heap].size + g.mapped) +
                    ", \"chunk\": " + std::to_string(g.on ? std::size_t(1) << g.shift : 0) +
                    ", \"growths\": " + std::to_string(g.growths) + ", \"failures\": " + std::to_string(g.failures) +
                    ", \"chunks\": [";
    for (std::size_t i = 0; i < g.chunks.size(); ++i)
        s += (i ? ", " : "") + std::string("{\"offset\": ") + std::to_string(g.chunks[i].off) +
             ", \"size\": " + std::to_string(g.chunks[i].len) + ", \"page_size\": " +
             std::to_string(g.chunks[i].page_size) + "}";
    return s + "]}";
}

} // namespace ushmem::core
