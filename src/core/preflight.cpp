// Start-up checks: settings alike on every PE, and a heap the machine can hold (preflight.hpp).
#include "core/preflight.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/agree.hpp"
#include "core/env.hpp"
#include "core/log.hpp"
#include "core/runtime.hpp"
#include "core/team.hpp"
#include "util/text.hpp"

#include <sys/ipc.h>
#include <sys/shm.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <fstream>
#include <iterator>

namespace ushmem::core {
namespace {
constexpr std::uint64_t huge_page_2m = 2u << 20;

std::string canonical(std::size_t v) { return std::to_string(v); }
std::string canonical(bool v) { return v ? "1" : "0"; }
std::string canonical(long v) { return std::to_string(v); }
std::string canonical(const std::string &v) { return v; }
std::string canonical(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

const env_var *find_env(std::string_view name) {
    for (const env_var &v : env_table())
        if (name == v.name) return &v;
    return nullptr;
}

// The text a variable is set to on this PE (its default when unset).
std::string env_text(std::string_view name) {
    const env_var *v = find_env(name);
    return v ? env_value_text(*v) : std::string();
}

std::string read_file(const char *path) {
    std::ifstream f(path);
    return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

bool read_number(const char *path, std::uint64_t &out) { return util::parse_proc_number(read_file(path), out); }

// The PE `first` (the lowest with a problem, from the start-up vote) ends the job with its
// `problem`; nothing when `first` is none. Every PE calls it with the same `first`.
void first_problem_ends_job(const char *routine, const std::string &problem, std::uint64_t first) {
    if (first == no_problem) return;
    if (std::uint64_t(rt.me) == first) fatal(routine, "%s", problem.c_str());
    // The PE that reports ends the job; waiting keeps the report to one message.
    bootstrap::barrier_with_progress(nullptr, nullptr);
    bootstrap::abort_job(1);
}
} // namespace

const std::vector<const char *> &alike_settings() {
    static const std::vector<const char *> names = {
        "SHMEM_SYMMETRIC_SIZE", "SHMEM_DEBUG",          "USHMEM_MAX_TEAMS",      "USHMEM_TEAM_SCRATCH",
        "USHMEM_WORLD_SCRATCH", "USHMEM_COLL_FLAT_MAX", "USHMEM_COLL_FLAT_MAX_OVERSUBSCRIBED", "USHMEM_BARRIER_ALGO",  "USHMEM_BCAST_ALGO",     "USHMEM_BCAST_TREE_MIN", "USHMEM_BCAST_CHAIN_MIN",
        "USHMEM_REDUCE_ALGO",   "USHMEM_REDUCE_GATHER_MAX", "USHMEM_COLLECT_ALGO", "USHMEM_SCAN_ALGO",
        "USHMEM_ACTIVE_SET_WORLD_TEAM", "USHMEM_HEAP_GROW", "USHMEM_HEAP_MAX", "USHMEM_HEAP_CHUNK",
        "USHMEM_NODE_TABLES"};
    return names;
}

std::string setting_value(const settings &s, std::string_view name) {
#define USHMEM_ENV(field, nm, kind, def, lo, hi, desc) \
    if (name == nm) return canonical(s.field);
#include "core/env_defs.h"
#undef USHMEM_ENV
    return {};
}

void settings_vote_words(std::vector<std::uint64_t> &w) {
    // The minimum of each value's hash and of its complement (the maximum): equal everywhere
    // exactly when both agree.
    const std::vector<const char *> &names = alike_settings();
    const std::size_t n = names.size(), at = w.size();
    w.resize(at + 2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint64_t h = fnv1a().add(setting_value(rt.cfg, names[i])).h;
        w[at + i] = h;
        w[at + n + i] = ~h;
    }
}

void check_settings_alike(const char *routine, const std::uint64_t *w) {
    if (rt.npes == 1) return;
    const std::vector<const char *> &names = alike_settings();
    const std::size_t n = names.size();
    std::vector<std::size_t> differ;
    for (std::size_t i = 0; i < n; ++i)
        if (w[i] != ~w[n + i]) differ.push_back(i);
    if (differ.empty()) return;
    // Every PE's values of the differing variables: the parsed value (compared) and the text it
    // was set to (shown), NUL-separated.
    std::string mine;
    for (std::size_t i : differ) {
        mine += setting_value(rt.cfg, names[i]);
        mine += '\0';
        mine += env_text(names[i]);
        mine += '\0';
    }
    std::vector<std::uint8_t> all;
    std::vector<std::size_t> offsets;
    bootstrap::allgatherv(mine.data(), mine.size(), all, offsets);
    if (rt.me != 0) {
        bootstrap::barrier_with_progress(nullptr, nullptr);  // PE 0 reports and ends the job
        bootstrap::abort_job(1);
    }
    // fields[pe][2k], [2k + 1]: parsed value and text of differing variable k on that PE.
    std::vector<std::vector<std::string>> fields(std::size_t(rt.npes));
    for (int pe = 0; pe < rt.npes; ++pe) {
        const char *p = reinterpret_cast<const char *>(all.data() + offsets[std::size_t(pe)]);
        const char *end = reinterpret_cast<const char *>(all.data() + offsets[std::size_t(pe) + 1]);
        while (p < end) {
            fields[std::size_t(pe)].emplace_back(p);
            p += fields[std::size_t(pe)].back().size() + 1;
        }
    }
    std::string what;
    for (std::size_t k = 0; k < differ.size(); ++k) {
        // PEs grouped by value, in the order of their first PE.
        std::vector<std::string> values;
        for (int pe = 0; pe < rt.npes; ++pe) {
            const std::vector<std::string> &f = fields[std::size_t(pe)];
            values.push_back(2 * k < f.size() ? f[2 * k] : std::string());
        }
        const auto groups = group_by(values);
        what += what.empty() ? "" : "; ";
        what += names[differ[k]];
        what += " is";
        std::size_t shown = 0;
        for (auto &[value, pes] : groups) {
            if (++shown > 8) {
                what += " and " + std::to_string(groups.size() - 8) + " more values";
                break;
            }
            const std::vector<std::string> &f = fields[std::size_t(pes.front())];
            const std::string text = 2 * k + 1 < f.size() ? f[2 * k + 1] : value;
            what += (shown > 1 ? ", '" : " '") + text + "' on PE" + (pes.size() > 1 ? "s" : "") + pe_list(pes);
        }
    }
    fatal(routine,
          "settings that must be the same on every PE differ between PEs: %s. They size the "
          "symmetric heap or choose the collective algorithms, which every PE must do alike: give "
          "every PE the same environment (e.g. mpirun -x VAR=value)",
          what.c_str());
}

heap_request heap_request_of(const settings &cfg) {
    heap_request r;
    r.user = cfg.symmetric_size;
    // At most 2^20 slots (team.cpp): with 4 TiB of scratch each the pool's size cannot wrap.
    if (cfg.team_scratch > (std::uint64_t(1) << 42)) {
        r.overflow = true;
        return r;
    }
    r.teams = team_pool_bytes(cfg);
    r.overflow = r.teams == SIZE_MAX || r.user > UINT64_MAX - r.teams || r.user + r.teams > UINT64_MAX - huge_page_2m;
    r.total = r.overflow ? 0 : (r.user + r.teams + huge_page_2m - 1) / huge_page_2m * huge_page_2m;
    return r;
}

machine_memory read_machine_memory() {
    machine_memory m;
    const std::string mi = read_file("/proc/meminfo");
    m.meminfo = util::meminfo_value(mi, "MemTotal", m.mem_total);
    util::meminfo_value(mi, "MemAvailable", m.mem_available);
    util::meminfo_value(mi, "SwapTotal", m.swap_total);
    util::meminfo_value(mi, "SwapFree", m.swap_free);
    util::meminfo_value(mi, "CommitLimit", m.commit_limit);
    util::meminfo_value(mi, "Committed_AS", m.committed);
    util::meminfo_value(mi, "HugePages_Free", m.huge_free);
    util::meminfo_value(mi, "HugePages_Rsvd", m.huge_reserved);
    util::meminfo_value(mi, "Hugepagesize", m.huge_page);
    read_number("/proc/sys/vm/overcommit_memory", m.overcommit);
    read_number("/proc/sys/kernel/shmmax", m.shmmax);
    read_number("/proc/sys/kernel/shmall", m.shmall);
    struct shm_info si;
    if (shmctl(0, SHM_INFO, reinterpret_cast<struct shmid_ds *>(&si)) >= 0) m.shm_used = si.shm_tot;
    const long page = sysconf(_SC_PAGESIZE);
    if (page > 0) m.page = std::uint64_t(page);
    struct statvfs vs;
    if (statvfs("/dev/shm", &vs) == 0) m.dev_shm_free = std::uint64_t(vs.f_bavail) * vs.f_bsize;
    return m;
}

std::string heap_unfit(std::uint64_t bytes, const machine_memory &m) {
    char buf[512];
    // System V limits bind whatever backs the segment (UCX allocates it with shmget).
    if (m.shmmax && bytes > m.shmmax) {
        std::snprintf(buf, sizeof buf,
                      "it is larger than kernel.shmmax (%" PRIu64 " bytes), the largest System V shared "
                      "memory segment this machine allows",
                      m.shmmax);
        return buf;
    }
    const std::uint64_t pages = bytes / m.page + (bytes % m.page != 0);
    if (m.shmall && pages > (m.shmall > m.shm_used ? m.shmall - m.shm_used : 0)) {
        std::snprintf(buf, sizeof buf,
                      "it needs %" PRIu64 " pages of System V shared memory and kernel.shmall allows %" PRIu64
                      " in all, %" PRIu64 " of them in use",
                      pages, m.shmall, m.shm_used);
        return buf;
    }
    if (!m.meminfo || bytes <= m.huge_bytes()) return {};
    // Without huge pages the segment's memory is accounted as the kernel's overcommit policy says.
    if (m.overcommit == 2) {
        const std::uint64_t left = m.commit_limit > m.committed ? m.commit_limit - m.committed : 0;
        if (bytes <= left) return {};
        std::snprintf(buf, sizeof buf,
                      "it is more than the memory that may still be committed (CommitLimit %s - "
                      "Committed_AS %s, vm.overcommit_memory=2)",
                      format_bytes_approx(m.commit_limit).c_str(), format_bytes_approx(m.committed).c_str());
        return buf;
    }
    if (m.overcommit == 1) {
        if (bytes <= (std::uint64_t(1) << 46)) return {};
        return "it is more than the 64 TiB of address space a heap may have";
    }
    if (bytes <= m.mem_total + m.swap_total) return {};
    std::snprintf(buf, sizeof buf,
                  "it is more than this machine's memory and swap can back (MemTotal %s + SwapTotal %s; "
                  "vm.overcommit_memory=0)",
                  format_bytes_approx(m.mem_total).c_str(), format_bytes_approx(m.swap_total).c_str());
    return buf;
}

std::string heap_fit_problem() {
    const heap_request r = heap_request_of(rt.cfg);
    const std::string size = env_text("SHMEM_SYMMETRIC_SIZE"), teams = env_text("USHMEM_MAX_TEAMS"),
                      scratch = env_text("USHMEM_TEAM_SCRATCH"), world = env_text("USHMEM_WORLD_SCRATCH");
    // The variable that makes the request large.
    const bool big_world = rt.cfg.world_scratch > rt.cfg.symmetric_size && rt.cfg.world_scratch >= r.teams / 2;
    const char *lower = big_world ? "lower USHMEM_WORLD_SCRATCH"
                        : r.teams > r.user || (r.overflow && rt.cfg.team_scratch > rt.cfg.symmetric_size)
                            ? "lower USHMEM_MAX_TEAMS (each team slot takes USHMEM_TEAM_SCRATCH plus about "
                              "7 KiB, more when there are many slots) or USHMEM_TEAM_SCRATCH"
                            : "lower SHMEM_SYMMETRIC_SIZE";
    std::string problem;
    if (r.overflow) {
        problem = "the symmetric heap asked for is too large: SHMEM_SYMMETRIC_SIZE=" + size + " plus USHMEM_MAX_TEAMS=" +
                  teams + " team slots of USHMEM_TEAM_SCRATCH=" + scratch + " scratch each and USHMEM_WORLD_SCRATCH=" +
                  world + " add up to more than 16 EiB (2^64 bytes); " + lower;
    } else {
        const machine_memory m = read_machine_memory();
        const std::string why = heap_unfit(r.total, m);
        if (!why.empty()) {
            char text[1024];
            std::snprintf(text, sizeof text,
                          "cannot have a symmetric heap of %s (SHMEM_SYMMETRIC_SIZE=%s (%s), plus %s for the team "
                          "slots: USHMEM_MAX_TEAMS=%s slots, USHMEM_TEAM_SCRATCH=%s of scratch each, "
                          "USHMEM_WORLD_SCRATCH=%s for SHMEM_TEAM_WORLD): %s. This "
                          "PE's machine has %s in free huge pages (%" PRIu64 " of %s), MemAvailable %s, /dev/shm "
                          "%s free; %s",
                          format_bytes_approx(r.total).c_str(), size.c_str(), format_bytes_approx(r.user).c_str(),
                          format_bytes_approx(r.teams).c_str(), teams.c_str(), scratch.c_str(), world.c_str(), why.c_str(),
                          format_bytes_approx(m.huge_bytes()).c_str(),
                          m.huge_free > m.huge_reserved ? m.huge_free - m.huge_reserved : 0,
                          format_bytes_approx(m.huge_page).c_str(), format_bytes_approx(m.mem_available).c_str(),
                          format_bytes_approx(m.dev_shm_free).c_str(), lower);
            problem = text;
        }
    }
    return problem;
}

void check_heap_fits(const char *routine, const std::string &problem, std::uint64_t first) {
    first_problem_ends_job(routine, problem, first);
}

} // namespace ushmem::core
