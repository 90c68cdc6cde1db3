// Start-up checks (core/preflight.cpp): which settings must be alike, their values as compared, and
// the verdict on a heap request for a machine (pure: machine_memory is given).
#include "core/preflight.hpp"

#include <gtest/gtest.h>

#include <string>

using namespace ushmem::core;

namespace {
constexpr std::uint64_t GiB = std::uint64_t(1) << 30;

// This VM: 23.5 GiB, no swap, 2000 huge pages of 2 MiB with 1988 free (8 reserved), overcommit 0,
// unlimited System V.
machine_memory vm() {
    machine_memory m;
    m.meminfo = true;
    m.mem_total = 24683620ull << 10;
    m.mem_available = 19454516ull << 10;
    m.huge_free = 1988;
    m.huge_reserved = 8;
    m.huge_page = 2u << 20;
    m.shmmax = 18446744073692774399ull;
    m.shmall = 18446744073692774399ull;
    m.dev_shm_free = 24 * GiB;
    return m;
}
} // namespace

TEST(Preflight, AlikeSettingsAreSettings) {
    settings s;
    std::string err;
    ASSERT_TRUE(load_settings(s, err, [](const char *) -> const char * { return nullptr; })) << err;
    for (const char *name : alike_settings()) {
        bool known = false;
        for (const env_var &v : env_table()) known = known || std::string(v.name) == name;
        EXPECT_TRUE(known) << name << " is not in env_defs.h";
    }
    EXPECT_EQ(setting_value(s, "SHMEM_SYMMETRIC_SIZE"), std::to_string(64u << 20));
    EXPECT_EQ(setting_value(s, "NO_SUCH_SETTING"), "");
}

TEST(Preflight, ValuesCompareAsParsed) {
    // 4M and 4096K, yes and 1: the same value; 4M and 8M are not.
    auto value = [](const char *size, const char *debug, const char *name) {
        static std::string sz, dbg;
        sz = size;
        dbg = debug;
        settings s;
        std::string err;
        EXPECT_TRUE(load_settings(s, err, [](const char *n) -> const char * {
            if (std::string(n) == "SHMEM_SYMMETRIC_SIZE") return sz.c_str();
            if (std::string(n) == "SHMEM_DEBUG") return dbg.c_str();
            return nullptr;
        })) << err;
        return setting_value(s, name);
    };
    EXPECT_EQ(value("4M", "yes", "SHMEM_SYMMETRIC_SIZE"), value("4096K", "1", "SHMEM_SYMMETRIC_SIZE"));
    EXPECT_EQ(value("4M", "yes", "SHMEM_DEBUG"), value("4096K", "1", "SHMEM_DEBUG"));
    EXPECT_NE(value("4M", "0", "SHMEM_SYMMETRIC_SIZE"), value("8M", "0", "SHMEM_SYMMETRIC_SIZE"));
    EXPECT_NE(value("4M", "0", "SHMEM_DEBUG"), value("4M", "on", "SHMEM_DEBUG"));
}

TEST(Preflight, HeapFitsOrSaysWhy) {
    const machine_memory m = vm();
    EXPECT_EQ(m.huge_bytes(), 1980ull * (2u << 20));
    EXPECT_EQ(heap_unfit(256u << 20, m), "");
    EXPECT_EQ(heap_unfit(20 * GiB, m), "");  // more than is free, less than memory + swap: lazily backed
    EXPECT_NE(heap_unfit(100 * GiB, m).find("more than this machine's memory and swap can back (MemTotal 23.5 GiB + "
                                            "SwapTotal 0 bytes; vm.overcommit_memory=0)"),
              std::string::npos)
        << heap_unfit(100 * GiB, m);
    machine_memory swap = m;
    swap.swap_total = 100 * GiB;
    EXPECT_EQ(heap_unfit(100 * GiB, swap), "");
    // Huge pages hold what memory + swap could not (they are reserved outside the accounting).
    machine_memory huge = m;
    huge.mem_total = GiB;
    EXPECT_EQ(heap_unfit(3 * GiB, huge), "");
    EXPECT_NE(heap_unfit(5 * GiB, huge), "");
}

TEST(Preflight, OvercommitPolicies) {
    machine_memory m = vm();
    m.overcommit = 1;  // anything the address space holds
    EXPECT_EQ(heap_unfit(100 * GiB, m), "");
    EXPECT_EQ(heap_unfit(std::uint64_t(64) << 40, m), "");
    EXPECT_NE(heap_unfit(std::uint64_t(100) << 40, m).find("64 TiB of address space"), std::string::npos);
    m.overcommit = 2;  // what may still be committed (beyond the free huge pages)
    m.huge_free = 0;
    m.commit_limit = 12 * GiB;
    m.committed = 10 * GiB;
    EXPECT_EQ(heap_unfit(GiB, m), "");
    EXPECT_NE(heap_unfit(3 * GiB, m).find("CommitLimit 12.0 GiB - Committed_AS 10.0 GiB"), std::string::npos);
    m.committed = 13 * GiB;  // already over
    EXPECT_NE(heap_unfit(64u << 20, m), "");
}

TEST(Preflight, SystemVLimits) {
    machine_memory m = vm();
    m.shmmax = 32u << 20;
    EXPECT_NE(heap_unfit(64u << 20, m).find("larger than kernel.shmmax (33554432 bytes)"), std::string::npos);
    m = vm();
    m.shmall = 20000;  // pages
    m.shm_used = 5000;
    EXPECT_EQ(heap_unfit(15000ull * 4096, m), "");
    EXPECT_NE(heap_unfit(15001ull * 4096, m).find("needs 15001 pages of System V shared memory and kernel.shmall "
                                                  "allows 20000 in all, 5000 of them in use"),
              std::string::npos);
    // Unknown figures (0) check nothing.
    machine_memory none;
    EXPECT_EQ(heap_unfit(std::uint64_t(1) << 62, none), "");
}

TEST(Preflight, RequestAddsTheTeamSlotsAndRounds) {
    settings s;
    std::string err;
    ASSERT_TRUE(load_settings(s, err, [](const char *) -> const char * { return nullptr; })) << err;
    heap_request r = heap_request_of(s);
    EXPECT_FALSE(r.overflow);
    EXPECT_EQ(r.user, 64u << 20);
    EXPECT_GT(r.teams, 0u);
    EXPECT_EQ(r.total % (2u << 20), 0u);
    EXPECT_GE(r.total, r.user + r.teams);
    EXPECT_LT(r.total, r.user + r.teams + (2u << 20));
    s.symmetric_size = ~std::size_t(0) - 4096;  // the sum would wrap
    EXPECT_TRUE(heap_request_of(s).overflow);
    s.symmetric_size = 1;
    s.team_scratch = std::size_t(16000000) << 40;  // the slots' product would wrap
    EXPECT_TRUE(heap_request_of(s).overflow);
}

TEST(Preflight, Formatting) {
    EXPECT_EQ(format_bytes_approx(0), "0 bytes");
    EXPECT_EQ(format_bytes_approx(1023), "1023 bytes");
    EXPECT_EQ(format_bytes_approx(19454516ull << 10), "18.6 GiB");
    EXPECT_EQ(format_bytes_approx(99999ull << 40), "97.7 PiB");
    EXPECT_EQ(size_setting_for(0), "1M");
    EXPECT_EQ(size_setting_for(3u << 20), "4M");
    EXPECT_EQ(size_setting_for((std::uint64_t(1) << 40) + (64u << 20)), "2T");
    EXPECT_EQ(size_setting_for(std::uint64_t(1) << 30), "1G");
}
