#include "core/segments.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/env.hpp"
#include "core/heap_grow.hpp"
#include "core/log.hpp"
#include "core/peers.hpp"
#include "core/preflight.hpp"
#include "core/team.hpp"
#include "transport/transport.hpp"
#include "util/text.hpp"

#include <hwloc.h>
#include <hwloc/glibc-sched.h>
#include <link.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

namespace ushmem::core {
namespace {

// The built-in heap address: far from where Linux puts the program, its heap, libraries and
// stacks, and inside the application range of AddressSanitizer. ThreadSanitizer only shadows a
// few fixed ranges, so there each PE lets the kernel choose and addresses are translated.
#if defined(__SANITIZE_THREAD__)
constexpr std::uintptr_t default_heap_address = 0;
#else
constexpr std::uintptr_t default_heap_address = 0x200000000000ULL;  // 32 TiB
#endif
constexpr std::size_t huge_page = 2u << 20;

std::uintptr_t round_up(std::uintptr_t v, std::uintptr_t a) { return (v + a - 1) & ~(a - 1); }

struct static_range {
    std::uintptr_t lo = 0, hi = 0;
    // A GOT slot inside [lo, hi) through which shared libraries call (0: none); see find_static.
    std::uintptr_t shared_got_slot = 0;
    const char *shared_got_symbol = nullptr;
};

// Moving the data leaves it reading as zero until it is copied back, while UCX (and its memory
// hooks, libucm) run. That is harmless for the program's own variables, but a non-PIE program
// (ET_EXEC, e.g. Debian's /usr/bin/python3) that takes the address of a library function owns
// that function's canonical address: a PLT stub of the program jumping through the program's
// writable GOT (.got.plt, inside our range under partial RELRO), and every shared library's call
// to the function goes through that stub. Python does so for free(); libucm's shmat hook calls
// free() in the window and jumps to NULL. Such a slot is a dynamic symbol that is undefined in the
// program yet has a value (the stub's address), relocated by a JUMP_SLOT entry of DT_JMPREL.
void find_shared_got_slot(const struct dl_phdr_info *info, static_range &r) {
    if (info->dlpi_addr != 0) return;  // PIE: address-taking goes through the GOT, no stubs
    const ElfW(Dyn) *dyn = nullptr;
    for (int k = 0; k < info->dlpi_phnum; ++k)
        if (info->dlpi_phdr[k].p_type == PT_DYNAMIC)
            dyn = reinterpret_cast<const ElfW(Dyn) *>(info->dlpi_phdr[k].p_vaddr);
    if (!dyn) return;
    std::uintptr_t jmprel = 0, relsz = 0, symtab = 0, strtab = 0;
    bool rela = true;
    for (; dyn->d_tag != DT_NULL; ++dyn) {
        switch (dyn->d_tag) {
        case DT_JMPREL: jmprel = dyn->d_un.d_ptr; break;
        case DT_PLTRELSZ: relsz = dyn->d_un.d_val; break;
        case DT_SYMTAB: symtab = dyn->d_un.d_ptr; break;
        case DT_STRTAB: strtab = dyn->d_un.d_ptr; break;
        case DT_PLTREL: rela = dyn->d_un.d_val == DT_RELA; break;
        }
    }
    if (!jmprel || !symtab || !rela) return;
    const auto *rel = reinterpret_cast<const ElfW(Rela) *>(jmprel);
    const auto *syms = reinterpret_cast<const ElfW(Sym) *>(symtab);
    for (std::size_t i = 0; i < relsz / sizeof(ElfW(Rela)); ++i) {
        const ElfW(Sym) &sym = syms[ELF64_R_SYM(rel[i].r_info)];
        if (sym.st_shndx != SHN_UNDEF || sym.st_value == 0) continue;
        if (rel[i].r_offset < r.lo || rel[i].r_offset >= r.hi) continue;
        r.shared_got_slot = rel[i].r_offset;
        if (strtab) r.shared_got_symbol = reinterpret_cast<const char *>(strtab) + sym.st_name;
        return;
    }
}

int find_static(struct dl_phdr_info *info, size_t, void *arg) {
    // The first object is the program itself. Its writable PT_LOAD holds .data and .bss; the
    // part covered by PT_GNU_RELRO becomes read-only after relocation and is skipped.
    auto *r = static_cast<static_range *>(arg);
    std::uintptr_t relro_end = 0;
    for (int k = 0; k < info->dlpi_phnum; ++k) {
        const ElfW(Phdr) &p = info->dlpi_phdr[k];
        if (p.p_type == PT_GNU_RELRO) relro_end = info->dlpi_addr + p.p_vaddr + p.p_memsz;
        if (p.p_type == PT_LOAD && (p.p_flags & PF_W)) {
            std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
            r->lo = (info->dlpi_addr + p.p_vaddr) & ~(page - 1);
            r->hi = round_up(info->dlpi_addr + p.p_vaddr + p.p_memsz, page);
        }
    }
    if (relro_end > r->lo) r->lo = round_up(relro_end, std::uintptr_t(sysconf(_SC_PAGESIZE)));
    if (r->lo >= r->hi) r->lo = r->hi = 0;
    if (r->lo < r->hi) find_shared_got_slot(info, *r);
    return 1;  // stop after the program
}

// Copy without calling anything: while the program's data is being replaced, even a call
// through the program's own PLT would read a zeroed GOT entry. Also used for the copies out,
// because the segment spans sanitizer redzones between globals that an intercepted memcpy
// would (rightly, for a program) refuse to read.
inline void raw_copy(void *dst, const void *src, std::size_t n) {
    asm volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
}
} // namespace



namespace {
// The heap's reservation, between reserve_heap and map_heap (init, one thread): its address, the
// bytes reserved there, whether that worked.
struct heap_reservation {
    std::uintptr_t want = 0;
    std::size_t range = 0;
    bool reserved = false;
};
heap_reservation g_reservation;

// Reserve `len` bytes at `want`: UCX maps FIXED with SHM_REMAP, which would silently replace
// whatever lives there. MAP_FIXED_NOREPLACE fails instead.
bool reserve(std::uintptr_t want, std::size_t len) {
    void *r = mmap(reinterpret_cast<void *>(want), len, PROT_NONE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (r != MAP_FAILED && r != reinterpret_cast<void *>(want)) munmap(r, len);
    return r == reinterpret_cast<void *>(want);
}
} // namespace

bool heap_wanted() { return g_reservation.want != 0; }

bool reserve_heap(const char *routine) {
    heap_reservation &v = g_reservation;
    v = heap_reservation{};
    if (rt.cfg.symmetric_size == 0)
        fatal(routine, "SHMEM_SYMMETRIC_SIZE is 0; set it to the heap size per PE, e.g. 64M");
    const std::string &a = rt.cfg.heap_address;
    if (!util::parse_heap_address(a, default_heap_address, huge_page, v.want))
        fatal(routine, "malformed value USHMEM_HEAP_ADDRESS='%s': expected 'auto', 'any' or a non-zero "
                       "hex address that is a multiple of 2 MiB", a.c_str());
    if (!v.want) return false;
    // A heap that grows reserves its whole range (USHMEM_HEAP_MAX) PROT_NONE: the initial heap
    // replaces its start, the chunks (core/heap_grow.cpp) the rest as it grows. By this PE's own
    // cap: the one agreed (the least over PEs) is not larger, and map_heap returns the rest.
    const heap_request r = heap_request_of(rt.cfg);
    v.range = r.overflow ? 0 : plan_heap_growth(routine, std::size_t(r.total), heap_cap_here());
    v.reserved = v.range && reserve(v.want, v.range);
    return v.reserved;
}

void map_heap(const char *routine, bool all_want, bool all_reserved) {
    segment &h = rt.seg[seg_heap];
    // The teams' symmetric slots (core/team.cpp) come on top of what the program asked for
    // (the start-up vote has made sure that the sum fits the machine).
    const std::size_t size = heap_request_of(rt.cfg).total;
    const std::uintptr_t want = g_reservation.want;
    const std::size_t planned = plan_heap_growth(routine, size, rt.agreed.heap_cap);
    std::size_t range = g_reservation.range;
    bool reserved = g_reservation.reserved;
    // Every PE must get the fixed address, or none uses it (the vote: all_reserved, false where
    // some PE wants none).
    bool fixed = all_reserved;
    if (fixed && range > planned) {
        munmap(reinterpret_cast<void *>(want + planned), range - planned);
        range = planned;
    }
    // Should the whole range not be free everywhere, the heap alone is reserved and stays fixed.
    // Collective, so decided from what the vote made the same everywhere.
    if (!fixed && all_want && planned != size) {
        if (reserved) munmap(reinterpret_cast<void *>(want), range);
        range = size;
        reserved = reserve(want, range);
        fixed = bootstrap::all_true(reserved);
    }
    if (!fixed && reserved) munmap(reinterpret_cast<void *>(want), range);
    enable_heap_growth(fixed && range == planned);
    std::string err;
    if (!transport::map_allocate(fixed ? reinterpret_cast<void *>(want) : nullptr, size, fixed, h.mem, err)) {
        if (fixed) munmap(reinterpret_cast<void *>(want), range);
        fatal(routine, "cannot allocate the %s symmetric heap: %s; lower SHMEM_SYMMETRIC_SIZE or "
                       "check the shared memory limits (kernel.shmmax, kernel.shmall)",
              format_bytes(size).c_str(), err.c_str());
    }
    h.base = reinterpret_cast<std::uintptr_t>(h.mem.address);
    h.size = size;
    place_heap_on_local_numa(h.mem.address, size);
    h.page_size = mapping_page_size(h.base);
    // At the fixed address every PE reserved: the same everywhere, with no exchange. Otherwise a
    // peer's base is in its init-table entry (part_bases), read on first contact (segment_base).
    h.same_address = fixed;
}

void map_static(const char *routine) {
    segment &s = rt.seg[seg_static];
    static_range r;
    dl_iterate_phdr(find_static, &r);
    if (r.lo == r.hi) return;
    std::size_t len = r.hi - r.lo;
    std::string err;
    bool ok = false;
    if (rt.cfg.static_data && r.shared_got_slot) {
        // Not an error of the program: it keeps symmetric static data, reached through UCX.
        err = std::string("shared libraries call ") +
              (r.shared_got_symbol ? r.shared_got_symbol : "a library function") +
              " (and possibly more) through the program's GOT, which lies in it (non-PIE program)";
        if (rt.me == 0 && rt.cfg.debug)
            notice("global/static data stays private memory: %s; same-node access to it goes "
                   "through UCX emulation", err.c_str());
    } else if (rt.cfg.static_data) {
        // Move the data onto UCX-allocated shared memory at the same address, so that same-node
        // peers map it like the heap. Between the mapping and the copy back the data reads as
        // zero; signals are blocked and only this library's code runs in that window.
        void *save = std::malloc(len);
        if (save) {
            raw_copy(save, reinterpret_cast<void *>(r.lo), len);
            sigset_t all, old;
            sigfillset(&all);
            pthread_sigmask(SIG_SETMASK, &all, &old);
            ok = transport::map_allocate_quiet(reinterpret_cast<void *>(r.lo), len, true, s.mem, err);
            if (ok) raw_copy(reinterpret_cast<void *>(r.lo), save, len);
            pthread_sigmask(SIG_SETMASK, &old, nullptr);
            std::free(save);
        }
        if (!ok && rt.me == 0)
            notice("global/static data stays private memory (%s); same-node access to it goes "
                   "through UCX emulation", err.c_str());
    }
    if (!ok && !transport::map_register(reinterpret_cast<void *>(r.lo), len, s.mem, err))
        fatal(routine, "cannot register the program's static data: %s; set USHMEM_STATIC_DATA=0 "
                       "or report this", err.c_str());
    s.base = r.lo;
    s.size = len;
    s.page_size = mapping_page_size(s.base);
    // Under ASLR each PE's own address: a peer's is in its init-table entry (segment_base).
    s.same_address = false;
}

void unmap_static() {
    segment &s = rt.seg[seg_static];
    if (!s.mem.memh) {
        s = segment{};
        return;
    }
    if (s.mem.allocated) {
        // Give the program its data back as private memory, with the values it holds now.
        std::size_t len = s.size;
        void *addr = reinterpret_cast<void *>(s.base);
        void *save = std::malloc(len);
        if (!save) {
            // Leave the shared mapping in place rather than lose the program's data.
            s = segment{};
            return;
        }
        raw_copy(save, addr, len);
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_SETMASK, &all, &old);
        transport::unmap(s.mem);
        void *m = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
        if (m == addr) raw_copy(addr, save, len);
        pthread_sigmask(SIG_SETMASK, &old, nullptr);
        std::free(save);
        if (m != addr) {
            std::fprintf(stderr, "ushmem: finalize: cannot restore static data\n");
            std::abort();
        }
    } else {
        transport::unmap(s.mem);
    }
    s = segment{};
}

void unmap_heap() {
    unmap_heap_chunks();
    transport::unmap(rt.seg[seg_heap].mem);
    // The rest of a growing heap's reservation (chunks unmapped leave it PROT_NONE or unmapped).
    if (rt.grown.reserved) munmap(reinterpret_cast<void *>(rt.seg[seg_heap].base), rt.grown.reserved);
    rt.grown = heap_growth{};
    rt.seg[seg_heap] = segment{};
}



std::string progress_thread_cpus(int local_rank, const cpu_set_t &node_used, bool any_unbound) {
    // The PUs that no PE of this node is bound to (node_used: bootstrap::job); the progress thread
    // goes there so that it does not take the core of the PE it serves. Unbound PEs (or no spare
    // PU): no binding.
    if (any_unbound) return {};
    hwloc_topology_t topo;
    std::string result;
    if (hwloc_topology_init(&topo) != 0) return result;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t used = hwloc_bitmap_alloc();
        hwloc_cpuset_from_glibc_sched_affinity(topo, used, &node_used, sizeof node_used);
        const hwloc_const_bitmap_t machine = hwloc_topology_get_topology_cpuset(topo);
        hwloc_bitmap_t spare = hwloc_bitmap_alloc();
        hwloc_bitmap_andnot(spare, machine, used);
        int count = hwloc_bitmap_weight(spare);
        if (!hwloc_bitmap_isequal(used, machine) && count > 0) {
            int pick = local_rank % count, idx = hwloc_bitmap_first(spare);
            for (int k = 0; k < pick; ++k) idx = hwloc_bitmap_next(spare, idx);
            result = std::to_string(idx);
        }
        hwloc_bitmap_free(spare);
        hwloc_bitmap_free(used);
    }
    hwloc_topology_destroy(topo);
    return result;
}

void bind_current_thread(const std::string &cpus) {
    if (cpus.empty()) return;
    hwloc_topology_t topo;
    if (hwloc_topology_init(&topo) != 0) return;
    if (hwloc_topology_load(topo) == 0) {
        hwloc_bitmap_t set = hwloc_bitmap_alloc();
        hwloc_bitmap_list_sscanf(set, cpus.c_str());
        hwloc_set_cpubind(topo, set, HWLOC_CPUBIND_THREAD);
        hwloc_bitmap_free(set);
    }
    hwloc_topology_destroy(topo);
}

} // namespace ushmem::core
