// util/text: the parsers of what the environment, the kernel and UCX print, on samples of the real
// thing (UCX 1.13.1, Linux 6.x) and on the malformed inputs that must be refused.
#include "util/text.hpp"

#include <gtest/gtest.h>

using namespace ushmem::util;

namespace {
constexpr std::uintptr_t two_mib = 2u << 20;
}

TEST(HeapAddress, AutoAnyAndHex) {
    std::uintptr_t a = 1;
    EXPECT_TRUE(parse_heap_address("auto", 0x200000000000, two_mib, a));
    EXPECT_EQ(a, 0x200000000000u);
    EXPECT_TRUE(parse_heap_address("any", 0x200000000000, two_mib, a));
    EXPECT_EQ(a, 0u);
    EXPECT_TRUE(parse_heap_address("0x300000000000", 0, two_mib, a));
    EXPECT_EQ(a, 0x300000000000u);
    EXPECT_TRUE(parse_heap_address("7F0000000000", 0, two_mib, a));
    EXPECT_EQ(a, 0x7f0000000000u);
}

TEST(HeapAddress, RefusesMalformed) {
    std::uintptr_t a = 0;
    for (const char *bad : {"", "0x", "0", "0x0", "12Q", "0x200000000001", "-0x200000000000",
                            " 0x200000000000", "0x200000000000 ", "0x10000000000000000", "Auto"})
        EXPECT_FALSE(parse_heap_address(bad, 0x200000000000, two_mib, a)) << "'" << bad << "'";
}

TEST(Maps, SysvIdsOnce) {
    const char *maps =
        "55d0c0a00000-55d0c0a21000 r--p 00000000 fd:01 1234 /usr/bin/prog\n"
        "200000000000-200010400000 rw-s 00000000 00:01 98311 /SYSV00000000 (deleted)\n"
        "7f0000000000-7f0000200000 rw-s 00000000 00:01 98312 /SYSV00000000 (deleted)\n"
        "7f0000200000-7f0000400000 rw-s 00200000 00:01 98311 /SYSV00000000 (deleted)\n"
        "7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]";  // no final newline
    EXPECT_EQ(sysv_ids_in_maps(maps), (std::vector<int>{98311, 98312}));
    EXPECT_TRUE(sysv_ids_in_maps("/SYSV only a name\n1-2 rw-s 0 0:0 x /SYSV\n").empty());
    EXPECT_TRUE(sysv_ids_in_maps("1-2 rw-s 0 00:01 99999999999 /SYSV0 (deleted)\n").empty());
}

TEST(Smaps, KernelPageSizeOfTheRightMapping) {
    const char *smaps =
        "1f0000000000-1f0000200000 rw-s 00000000 00:01 1 /SYSV0 (deleted)\n"
        "Size:               2048 kB\n"
        "KernelPageSize:        4 kB\n"
        "200000000000-200010400000 rw-s 00000000 00:01 98311 /SYSV00000000 (deleted)\n"
        "Size:             266240 kB\n"
        "KernelPageSize:     2048 kB\n"
        "MMUPageSize:        2048 kB\n";
    EXPECT_EQ(page_size_in_smaps(smaps, 0x200000000000), std::size_t(2048) << 10);
    EXPECT_EQ(page_size_in_smaps(smaps, 0x1f0000000000), std::size_t(4096));
    EXPECT_EQ(page_size_in_smaps(smaps, 0x300000000000), 0u);  // no such mapping
    EXPECT_EQ(page_size_in_smaps("200000000000-1 r\nKernelPageSize: x kB\n", 0x200000000000), 0u);
    EXPECT_EQ(page_size_in_smaps("200000000000-1 r\nKernelPageSize: 99999999999999999999 kB\n",
                                 0x200000000000), 0u);
}

TEST(UcxResources, SharedMemoryAndNetwork) {
    const char *info =
        "#      resource 0  :  md 0  dev 0  flags -- self/memory0\n"
        "#      resource 1  :  md 1  dev 1  flags -- tcp/lo\n"
        "#      resource 3  :  md 2  dev 3  flags -- sysv/memory\n"
        "#      resource 4  :  md 3  dev 3  flags -- posix/memory\n"
        "#      resource 5  :  md 4  dev 3  flags -- cma/memory\n";
    ucx_resources r = parse_ucx_resources(info);
    EXPECT_EQ(r.names, "self/memory0 tcp/lo sysv/memory posix/memory cma/memory");
    EXPECT_TRUE(r.shared_memory_rma);
    EXPECT_FALSE(r.network_rdma);
    r = parse_ucx_resources("#  resource 0 : md 0 dev 0 flags -- tcp/lo\n# flags --\n"
                            "# resource 2 : md 1 dev 1 flags -- rc_mlx5/mlx5_0:1\n");
    EXPECT_EQ(r.names, "tcp/lo rc_mlx5/mlx5_0:1");
    EXPECT_FALSE(r.shared_memory_rma);
    EXPECT_TRUE(r.network_rdma);
}

TEST(EpLanes, SharedMemoryEndpoint) {
    const char *ep =
        "#                 lane[0]:  0:self/memory0.0 md[0]          -> md[0]/self/sysdev[255] amo#0 am am_bw#0\n"
        "#                 lane[1]:  3:sysv/memory.0 md[2]           -> md[2]/sysv/sysdev[255]\n"
        "#                 lane[2]:  4:posix/memory.0 md[3]          -> md[3]/posix/sysdev[255]\n"
        "#\n"
        "#                  put[1]: 0..<short>..4294967296..<bcopy>..(inf)\n"
        "#                  get[1]: 0..<bcopy>..(inf)\n"
        "#                  put[2]: 0..<short>..4294967296..<bcopy>..(inf)\n";
    ep_lanes l = parse_ep_lanes(ep);
    EXPECT_EQ(l.rma, "sysv/memory.0,posix/memory.0");
    EXPECT_EQ(l.amo, "self/memory0.0");
    EXPECT_EQ(l.am, "self/memory0.0");
}

TEST(EpLanes, TcpOnlyIsEmulated) {
    ep_lanes l = parse_ep_lanes(
        "#                 lane[0]:  0:tcp/lo.0 md[0]                -> md[0]/tcp/sysdev[255] am am_bw#0 wireup\n");
    EXPECT_EQ(l.rma, "emulated over AM");
    EXPECT_EQ(l.amo, "emulated over AM");
    EXPECT_EQ(l.am, "tcp/lo.0");
}

TEST(EpLanes, BadIndexesAllocateNothing) {
    ep_lanes l = parse_ep_lanes("lane[18446744073709551615]: 0:x -> y rma\nlane[4000000000]: 0:x -> y am\n"
                                "put[999]:\nlane[]: -> \n->lane[0]:\n");
    EXPECT_EQ(l.rma, "");
    EXPECT_EQ(l.am, "");
}

TEST(Meminfo, FieldsInBytesOrAsCounted) {
    const char *mi =
        "MemTotal:       24683620 kB\n"
        "MemAvailable:   19454516 kB\n"
        "SwapTotal:             0 kB\n"
        "HugePages_Total:    2000\n"
        "HugePages_Free:     1988\n"
        "Hugepagesize:       2048 kB\n";
    std::uint64_t v = 7;
    EXPECT_TRUE(meminfo_value(mi, "MemAvailable", v));
    EXPECT_EQ(v, 19454516ull << 10);
    EXPECT_TRUE(meminfo_value(mi, "SwapTotal", v));
    EXPECT_EQ(v, 0u);
    EXPECT_TRUE(meminfo_value(mi, "HugePages_Free", v));
    EXPECT_EQ(v, 1988u);
    EXPECT_TRUE(meminfo_value(mi, "Hugepagesize", v));
    EXPECT_EQ(v, 2u << 20);
    // A field is matched whole, not by its prefix ("HugePages_" is no field, "MemTotal" is not
    // "Mem"); absent fields leave the value alone.
    v = 7;
    EXPECT_FALSE(meminfo_value(mi, "Mem", v));
    EXPECT_FALSE(meminfo_value(mi, "HugePages_", v));
    EXPECT_FALSE(meminfo_value(mi, "CommitLimit", v));
    EXPECT_EQ(v, 7u);
}

TEST(Meminfo, RefusesMalformed) {
    std::uint64_t v = 7;
    for (const char *bad : {"MemAvailable: 12x kB\n", "MemAvailable: kB\n", "MemAvailable: 12 MB\n",
                            "MemAvailable: 12 kB extra\n", "MemAvailable: -12 kB\n",
                            "MemAvailable: 99999999999999999999 kB\n", "MemAvailable: 18014398509481984 kB\n",
                            "MemAvailable 12 kB\n", ""})
        EXPECT_FALSE(meminfo_value(bad, "MemAvailable", v)) << "'" << bad << "'";
    EXPECT_EQ(v, 7u);
}

TEST(ProcNumber, OneDecimal) {
    std::uint64_t v = 7;
    EXPECT_TRUE(parse_proc_number("18446744073692774399\n", v));
    EXPECT_EQ(v, 18446744073692774399ull);
    EXPECT_TRUE(parse_proc_number(" 0 \n", v));
    EXPECT_EQ(v, 0u);
    v = 7;
    for (const char *bad : {"", "\n", "12 13\n", "12\n3", "-1\n", "0x10\n", "18446744073709551616\n", "1.5"})
        EXPECT_FALSE(parse_proc_number(bad, v)) << "'" << bad << "'";
    EXPECT_EQ(v, 7u);
}
