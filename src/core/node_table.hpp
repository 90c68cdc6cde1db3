// Tables that every PE of a node would otherwise hold identically: every PE's worker address and
// every PE's packed rkey of each symmetric segment (and of each grown heap chunk). Built by one
// collective exchange (gather_node_table), then held once per node, in a System V segment that
// the node's first PE fills and every PE of the node maps read-only (issue #50). A PE keeps only
// the view below; the peer's endpoint and unpacked rkey are still made on first contact (route.cpp).
//
// Contract:
//  - The segment is created 0600 (only this user's processes) and marked for removal (IPC_RMID)
//    as soon as it exists: it goes when the last PE of the node detaches or dies, so no kill,
//    even a SIGKILL of the first PE while it fills it, leaves it behind.
//  - A node of one PE, USHMEM_NODE_TABLES=0, or a node where the segment cannot be made or mapped
//    on any of its PEs (limits, another IPC namespace) holds private copies: with the setting, the
//    job-wide exchange as before #50; otherwise the node's PEs get the table from its first PE.
//    Each node agrees on its own way (point to point with its first PE, no collective over the
//    job), and the node's first PE says once why the shared one was not used.
//  - An entry is read with node_entry, which checks it against the table's bounds and ends the
//    job naming the PE whose entry is missing or malformed (never a hang, never a wild read).
//  - Written once at init (or by a growth, every PE alike), read by connect and resolve on any
//    thread, released by finalize (or with its heap chunk), in reverse order of creation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace ushmem::core {

class node_table {
public:
    node_table() = default;
    node_table(const node_table &) = delete;
    node_table &operator=(const node_table &) = delete;
    node_table(node_table &&o) noexcept { *this = static_cast<node_table &&>(o); }
    node_table &operator=(node_table &&o) noexcept;
    ~node_table() { release(); }

    void release();  // detach (shared) or free (private); idempotent
    bool empty() const { return words_ == nullptr; }
    bool shared() const { return shm_ != nullptr; }
    std::size_t bytes() const { return bytes_; }  // the whole table: header, offsets and blobs

    // Layout (shared or private alike): header words, then npes + 1 offsets, then the blobs.
    static constexpr std::uint64_t magic = 0x7573686d656d6e74ULL;  // "ushmemnt"
    enum : std::size_t { w_magic, w_count, w_data_len, header_words };

    // Filled by gather_node_table only.
    void adopt_shared(void *shm, std::size_t bytes);
    void adopt_private(std::vector<std::uint64_t> &&words, std::size_t bytes);
    const std::uint64_t *words() const { return words_; }

private:
    const std::uint64_t *words_ = nullptr;
    void *shm_ = nullptr;                    // shmat's address (shared)
    std::vector<std::uint64_t> private_;     // the table itself (private)
    std::size_t bytes_ = 0;
};

// The init table: one entry per PE in parts (worker address, the heap's packed rkey, the static
// data's, both segments' base addresses as two u64), so that init makes one exchange and one
// segment, not four. An entry in parts is [u32 count][count x u32 length][the parts' bytes]; a
// heap chunk's table holds plain blobs.
enum init_part : std::uint32_t {
    part_worker = 0,
    part_heap_rkey = 1,
    part_static_rkey = 2,
    part_bases = 3,
    init_parts = 4
};
// What it is called in messages (and whose last entry USHMEM_TEST_FAULT=bad_node_entry corrupts).
inline constexpr const char *init_table_what = "entry (worker address, memory keys)";

struct blob_part {
    const void *data;
    std::size_t len;
};

// Collective over the job: every PE's `mine` (`len` bytes) into `t`, `what` naming it in messages
// (e.g. "heap chunk rkey"). Each PE sends its blob once (bootstrap::gatherv_to_node_first).
void gather_node_table(const char *routine, const char *what, const void *mine, std::size_t len,
                       node_table &t);
// The same with an entry in parts (read back with node_part).
void gather_node_table(const char *routine, const char *what, const blob_part *parts, std::size_t count,
                       node_table &t);

// PE `pe`'s blob in `t`, and its length. Ends the job with a message naming `routine`, `what` and
// the PE when the entry is missing (empty) or malformed (outside the table).
const std::uint8_t *node_entry(const char *routine, const char *what, const node_table &t, int pe,
                               std::size_t *len = nullptr);
// Part `part` of PE `pe`'s entry in parts, checked as node_entry checks the entry (an empty or
// inconsistent part ends the job the same way).
const std::uint8_t *node_part(const char *routine, const char *what, const node_table &t, int pe, std::uint32_t part,
                              std::size_t *len = nullptr);

// Shared tables this PE maps (SHMEM_INFO, ushmem-info) and why the job holds private ones
// (empty: it does not).
std::size_t node_tables_mapped();
const char *node_tables_private_reason();

} // namespace ushmem::core
