// Start-up checks made before anything is created (core::init): the settings that every PE must
// share, and a symmetric heap that the machine can hold.
#pragma once

#include "core/env.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ushmem::core {

// The variables that must have the same value on every PE: they decide the layout of the symmetric
// heap (its size, the team slots, the SHMEM_DEBUG check records) or which collective algorithm
// every PE runs. Every name is one of env_defs.h (tests/test_preflight.cpp checks it).
const std::vector<const char *> &alike_settings();

// A setting's value as parsed, one text per value: "4194304" for 4M and 4096K alike, "1" for yes
// and on. "" for a name that is not a setting.
std::string setting_value(const settings &s, std::string_view name);

// This PE's words of the start-up vote (core/startup_vote.hpp) on the alike settings: 2 per
// setting, appended to `w`.
void settings_vote_words(std::vector<std::uint64_t> &w);
// Given those words after the vote (the MIN over PEs), when an alike setting differs between PEs:
// collective over the job (bootstrap), PE 0 ends the job naming each such variable with the values
// and the PEs that have them. Every PE calls it with the same words.
void check_settings_alike(const char *routine, const std::uint64_t *voted);

// The heap the settings ask for: SHMEM_SYMMETRIC_SIZE plus the team slots (core/team.cpp), the sum
// rounded up to 2 MiB huge pages (what map_heap maps). `overflow` when that exceeds 64 bits.
struct heap_request {
    std::uint64_t user = 0, teams = 0, total = 0;
    bool overflow = false;
};
heap_request heap_request_of(const settings &cfg);

// What the machine offers a new heap: /proc/meminfo, /proc/sys (vm, kernel.shm*), System V usage
// and /dev/shm. Fields that could not be read keep their defaults.
struct machine_memory {
    bool meminfo = false;                      // /proc/meminfo read
    std::uint64_t mem_total = 0, mem_available = 0, swap_total = 0, swap_free = 0;
    std::uint64_t commit_limit = 0, committed = 0;
    std::uint64_t huge_free = 0, huge_reserved = 0, huge_page = 0;  // pages, pages, bytes
    std::uint64_t overcommit = 0;              // vm.overcommit_memory
    std::uint64_t shmmax = 0, shmall = 0;      // kernel.shmmax (bytes), kernel.shmall (pages); 0: unknown
    std::uint64_t shm_used = 0;                // pages of System V shared memory in use
    std::uint64_t page = 4096;
    std::uint64_t dev_shm_free = 0;            // /dev/shm, for the report only
    std::uint64_t huge_bytes() const {
        return (huge_free > huge_reserved ? huge_free - huge_reserved : 0) * huge_page;
    }
};
machine_memory read_machine_memory();

// Why this machine cannot give one PE a heap of `bytes`, "" when it can: more than the System V
// limits allow, or (unless free huge pages hold it) more than the kernel's overcommit policy lets
// a shared-memory segment reserve (vm.overcommit_memory 0: MemTotal + SwapTotal; 2: CommitLimit -
// Committed_AS; 1: the 64 TiB the address space has room for). A request that fails these fails
// in UCX anyway, after its fallbacks. Pure (unit-tested).
std::string heap_unfit(std::uint64_t bytes, const machine_memory &m);

// Why the heap that the settings ask for (SHMEM_SYMMETRIC_SIZE plus the team slots) cannot be had
// on this PE: the sizes, the variable to lower and what its machine has; "" when it can.
std::string heap_fit_problem();
// The lowest PE with a heap problem, `first` (the start-up vote; no_problem when none), ends the
// job with its `problem`: collective over the job when there is one. Before UCX allocates anything.
inline constexpr std::uint64_t no_problem = ~std::uint64_t(0);
void check_heap_fits(const char *routine, const std::string &problem, std::uint64_t first);

} // namespace ushmem::core
