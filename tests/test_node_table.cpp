// node_entry: a peer's entry in a node table is handed out only when it lies inside the table;
// a missing or malformed one ends the job naming the PE (issue #50; core/node_table.hpp).
#include "core/node_table.hpp"
#include "core/state.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace core = ushmem::core;

namespace {
// A private table of the given blobs, laid out as gather_node_table lays it out.
core::node_table make_table(const std::vector<std::string> &blobs, std::vector<std::uint64_t> *offsets_out = nullptr) {
    std::vector<std::uint64_t> offs{0};
    std::string data;
    for (const auto &b : blobs) data += b, offs.push_back(data.size());
    if (offsets_out) *offsets_out = offs;
    std::vector<std::uint64_t> w(core::node_table::header_words + offs.size() + (data.size() + 7) / 8);
    w[core::node_table::w_magic] = core::node_table::magic;
    w[core::node_table::w_count] = blobs.size();
    w[core::node_table::w_data_len] = data.size();
    std::memcpy(w.data() + core::node_table::header_words, offs.data(), 8 * offs.size());
    std::memcpy(w.data() + core::node_table::header_words + offs.size(), data.data(), data.size());
    core::node_table t;
    const std::size_t bytes = 8 * w.size();
    t.adopt_private(std::move(w), bytes);
    return t;
}

class NodeTable : public ::testing::Test {
protected:
    int saved_npes = 0;
    void SetUp() override { saved_npes = core::rt.npes, core::rt.npes = 3; }
    void TearDown() override { core::rt.npes = saved_npes; }
};
} // namespace

TEST_F(NodeTable, EntriesComeBackWithTheirLengths) {
    core::node_table t = make_table({"a", "bb", "ccc"});
    for (int pe = 0; pe < 3; ++pe) {
        std::size_t len = 0;
        const std::uint8_t *p = core::node_entry("test", "worker address", t, pe, &len);
        EXPECT_EQ(len, std::size_t(pe + 1));
        EXPECT_EQ(std::string(reinterpret_cast<const char *>(p), len), std::string(std::size_t(pe + 1), char('a' + pe)));
    }
    core::node_table moved = std::move(t);
    EXPECT_TRUE(t.empty());
    EXPECT_FALSE(moved.empty());
    EXPECT_FALSE(moved.shared());
}

TEST_F(NodeTable, MissingEntryEndsTheJobNamingThePe) {
    core::node_table t = make_table({"a", "", "ccc"});
    EXPECT_EXIT(core::node_entry("shmem_putmem", "worker address", t, 1), ::testing::ExitedWithCode(1),
                "shmem_putmem .*PE 1's worker address is missing in this node's table");
}

TEST_F(NodeTable, EntryPastTheTableEndsTheJobNamingThePe) {
    core::node_table t = make_table({"a", "bb", "ccc"});
    // The last offset pointing past the blobs, as USHMEM_TEST_FAULT=bad_node_entry writes it.
    auto *w = const_cast<std::uint64_t *>(t.words());
    w[core::node_table::header_words + 3] = 4096;
    EXPECT_EXIT(core::node_entry("shmem_getmem", "segment rkey", t, 2), ::testing::ExitedWithCode(1),
                "PE 2's segment rkey is malformed in this node's table \\(bytes 3 to 4096 of 6\\)");
}

TEST_F(NodeTable, TableOfAnotherJobSizeIsRefused) {
    core::node_table t = make_table({"a", "bb"});  // 2 entries, the job has 3 PEs
    EXPECT_EXIT(core::node_entry("shmem_putmem", "worker address", t, 0), ::testing::ExitedWithCode(1),
                "the table of every PE's worker address is malformed \\(needed to reach PE 0\\)");
    core::node_table none;
    EXPECT_EXIT(core::node_entry("shmem_putmem", "worker address", none, 0), ::testing::ExitedWithCode(1),
                "the table of every PE's worker address is missing");
}

TEST_F(NodeTable, PartsOfAnEntryComeBackAndABadPartEndsTheJob) {
    auto entry = [](std::vector<std::string> parts, int lie = -1) {
        std::string e(4 + 4 * parts.size(), '\0');
        const std::uint32_t c = std::uint32_t(parts.size());
        std::memcpy(e.data(), &c, 4);
        for (std::size_t i = 0; i < parts.size(); ++i) {
            const std::uint32_t l = std::uint32_t(parts[i].size()) + (int(i) == lie ? 7 : 0);
            std::memcpy(e.data() + 4 + 4 * i, &l, 4);
        }
        for (const auto &p : parts) e += p;
        return e;
    };
    core::node_table t = make_table({entry({"addr0", "hk0", "sk0"}), entry({"address1", "h1", "s1"}, 1),
                                     entry({"a2", "", "s2"})});
    std::size_t len = 0;
    const std::uint8_t *p = core::node_part("test", core::init_table_what, t, 0, core::part_heap_rkey, &len);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(p), len), "hk0");
    p = core::node_part("test", core::init_table_what, t, 0, core::part_worker, &len);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(p), len), "addr0");
    p = core::node_part("test", core::init_table_what, t, 2, core::part_static_rkey, &len);
    EXPECT_EQ(std::string(reinterpret_cast<const char *>(p), len), "s2");
    EXPECT_EXIT(core::node_part("shmem_putmem", core::init_table_what, t, 1, core::part_worker),
                ::testing::ExitedWithCode(1), "PE 1's entry \\(worker address, memory keys\\) is malformed in this node's table");
    EXPECT_EXIT(core::node_part("shmem_putmem", core::init_table_what, t, 2, core::part_heap_rkey),
                ::testing::ExitedWithCode(1), "PE 2's entry \\(worker address, memory keys\\) is missing a part");
}
