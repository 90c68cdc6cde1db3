// Init-time tables held once per node (node_table.hpp: the contract).
#include "core/node_table.hpp"

#include "bootstrap/bootstrap.hpp"
#include "core/log.hpp"
#include "core/state.hpp"

#include <sys/mman.h>
#include <sys/shm.h>

#include <atomic>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <string>

namespace ushmem::core {

namespace {
// Why this node holds private tables (empty: it does not). Decided by the first exchange, alike on
// every PE of the node (each node for itself), and kept: later tables (a heap growth's) follow it.
std::string g_private_reason;

std::size_t table_words(std::size_t npes, std::size_t data_len) {
    return node_table::header_words + npes + 1 + (data_len + 7) / 8;
}

// Header, offsets and blobs into `w` (table_words long).
void write_table(std::uint64_t *w, const char *what, const std::vector<std::uint8_t> &all,
                 const std::vector<std::uint64_t> &offs, std::size_t npes) {
    const std::uint64_t data_len = offs[npes];
    w[node_table::w_magic] = node_table::magic;
    w[node_table::w_count] = npes;
    w[node_table::w_data_len] = data_len;
    std::memcpy(w + node_table::header_words, offs.data(), 8 * (npes + 1));
    if (data_len) std::memcpy(w + node_table::header_words + npes + 1, all.data(), data_len);
    // USHMEM_TEST_FAULT=bad_node_entry: the last PE's worker address points past the table, as a
    // table overwritten or filled by a mismatched library would (its first contact must say so).
    if (rt.cfg.test_fault == "bad_node_entry" && npes > 1 && std::strcmp(what, init_table_what) == 0)
        w[node_table::header_words + npes] = data_len + 4096;
}

// The job-wide fallback: every PE gets every blob, privately (the exchange before issue #50).
void gather_private(const char *what, const void *mine, std::size_t len, node_table &t) {
    std::vector<std::uint8_t> all;
    std::vector<std::size_t> offs;
    bootstrap::allgatherv(mine, len, all, offs);
    const std::size_t n = std::size_t(rt.npes);
    std::vector<std::uint64_t> o(offs.begin(), offs.end());
    std::vector<std::uint64_t> w(table_words(n, o[n]));
    write_table(w.data(), what, all, o, n);
    const std::size_t bytes = 8 * w.size();
    t.adopt_private(std::move(w), bytes);
}

} // namespace

void gather_node_table(const char *routine, const char *what, const void *mine, std::size_t len,
                       node_table &t) {
    t.release();
    const std::size_t n = std::size_t(rt.npes);
    if (!rt.cfg.node_tables) return gather_private(what, mine, len, t);
    std::vector<std::uint8_t> all;
    std::vector<std::uint64_t> offs;
    bootstrap::gatherv_to_node_first(mine, len, all, offs);
    // The node's first PE writes the table; {shmid or -1, its bytes, errno of the failure}.
    std::vector<std::uint64_t> w;
    std::int64_t seg[3] = {-1, 0, 0};
    if (rt.local_rank == 0) {
        w.resize(table_words(n, offs[n]));
        write_table(w.data(), what, all, offs, n);
        std::vector<std::uint8_t>().swap(all);
        seg[1] = std::int64_t(8 * w.size());
    }
    if (rt.local_size == 1) {  // nothing to share: this PE's own copy
        t.adopt_private(std::move(w), std::size_t(seg[1]));
        return;
    }
    // The node's first PE makes, fills and marks for removal the segment; the others map it.
    void *shm = nullptr;
    int err = 0;
    const bool refused = rt.cfg.test_fault == "refuse_node_table";  // as if the node's limits refused it
    if (rt.local_rank == 0 && g_private_reason.empty()) {
        const std::size_t bytes = std::size_t(seg[1]);
        const int id = refused ? (errno = ENOSPC, -1) : shmget(IPC_PRIVATE, bytes, IPC_CREAT | 0600);
        if (id < 0) err = errno;
        else {
            void *p = shmat(id, nullptr, 0);
            if (p == reinterpret_cast<void *>(-1)) err = errno;
            else shm = p;
            shmctl(id, IPC_RMID, nullptr);  // gone with its last process, whatever ends it
        }
        if (shm) {
            std::memcpy(shm, w.data(), bytes);
            mprotect(shm, bytes, PROT_READ);  // no stray store into every PE's table
            seg[0] = id;
        }
        seg[2] = err;
    }
    bootstrap::node_bcast(seg, sizeof seg);
    if (rt.local_rank != 0) {
        if (seg[0] < 0) err = int(seg[2]);
        else {
            void *p = shmat(int(seg[0]), nullptr, SHM_RDONLY);
            if (p == reinterpret_cast<void *>(-1)) err = errno;
            else if (static_cast<const std::uint64_t *>(p)[node_table::w_magic] != node_table::magic) {
                err = EINVAL;  // not our table: another IPC namespace's segment of that number
                shmdt(p);
            } else shm = p;
        }
    }
    // The node agrees (point to point with its first PE, not a reduction over the job: each
    // node decides for itself) that every PE of it mapped the table. If not, the node's PEs hold
    // private copies, from its first PE, and so do their later tables (a heap growth's); the
    // first PE says which PE could not and why, once.
    std::uint64_t verdict[2] = {0, 0};  // {the first failing PE + 1 (0: none), its errno}
    const std::vector<std::uint64_t> status = bootstrap::node_gather_u64(shm ? 0 : std::uint64_t(err ? err : EINVAL));
    if (rt.local_rank == 0) {
        std::size_t k = 0;
        for (int pe = 0; pe < rt.npes && !verdict[0]; ++pe)
            if (rt.node_of[std::size_t(pe)] == rt.node_of[std::size_t(rt.me)])
                if (status[k++]) verdict[0] = std::uint64_t(pe) + 1, verdict[1] = status[k - 1];
    }
    bootstrap::node_bcast(verdict, sizeof verdict);
    if (!verdict[0]) {
        t.adopt_shared(shm, std::size_t(seg[1]));
        return;
    }
    if (shm) shmdt(shm);
    const int failed = int(verdict[0] - 1);
    if (g_private_reason.empty()) {
        char why[200];
        std::snprintf(why, sizeof why, "PE %d could not %s this node's shared table of every PE's %s (%s)", failed,
                      seg[0] < 0 ? "make" : "map", what, std::strerror(int(verdict[1])));
        g_private_reason = why;
        if (rt.local_rank == 0)
            notice("%s: %s; this node's PEs hold their own copies of the init-time tables (memory per PE "
                   "grows with the job). Raise kernel.shmmax / kernel.shmall / kernel.shmmni, or "
                   "USHMEM_NODE_TABLES=0 to choose private copies",
                   routine, why);
    }
    if (rt.local_rank != 0) w.resize(std::size_t(seg[1]) / 8);
    bootstrap::node_bcast(w.data(), std::size_t(seg[1]));
    t.adopt_private(std::move(w), std::size_t(seg[1]));
}

void gather_node_table(const char *routine, const char *what, const blob_part *parts, std::size_t count,
                       node_table &t) {
    std::vector<std::uint8_t> blob(4 + 4 * count);
    const std::uint32_t c32 = std::uint32_t(count);
    std::memcpy(blob.data(), &c32, 4);
    for (std::size_t i = 0; i < count; ++i) {
        const std::uint32_t l = std::uint32_t(parts[i].len);
        std::memcpy(blob.data() + 4 + 4 * i, &l, 4);
        const auto *p = static_cast<const std::uint8_t *>(parts[i].data);
        if (parts[i].len) blob.insert(blob.end(), p, p + parts[i].len);
    }
    gather_node_table(routine, what, blob.data(), blob.size(), t);
}

const std::uint8_t *node_part(const char *routine, const char *what, const node_table &t, int pe, std::uint32_t part,
                              std::size_t *len) {
    std::size_t n = 0;
    const std::uint8_t *e = node_entry(routine, what, t, pe, &n);
    std::uint32_t count = 0;
    if (n >= 4) std::memcpy(&count, e, 4);
    const std::size_t head = 4 + 4 * std::size_t(count);
    std::size_t off = head, total = head, mine = 0;
    bool ok = n >= 4 && part < count && head <= n;
    for (std::uint32_t i = 0; ok && i < count; ++i) {
        std::uint32_t l;
        std::memcpy(&l, e + 4 + 4 * std::size_t(i), 4);
        if (i < part) off += l;
        if (i == part) mine = l;
        total += l;
    }
    if (!ok || total != n || mine == 0)
        fatal(routine, "PE %d's %s is %s in this node's table (part %u of %u, %zu bytes): PE %d cannot be reached; ending the job",
              pe, what, ok && total == n ? "missing a part" : "malformed", part, count, n, pe);
    if (len) *len = mine;
    return e + off;
}

const std::uint8_t *node_entry(const char *routine, const char *what, const node_table &t, int pe,
                               std::size_t *len) {
    const std::uint64_t *w = t.words();
    if (!w || w[node_table::w_magic] != node_table::magic || w[node_table::w_count] != std::uint64_t(rt.npes))
        fatal(routine, "the table of every PE's %s is %s (needed to reach PE %d); ending the job", what,
              w ? "malformed" : "missing", pe);
    const std::uint64_t data_len = w[node_table::w_data_len];
    const std::uint64_t *off = w + node_table::header_words;
    const std::uint64_t lo = off[pe], hi = off[pe + 1];
    if (lo >= hi || hi > data_len || std::uint64_t(t.bytes()) < 8 * table_words(std::size_t(rt.npes), data_len))
        fatal(routine,
              "PE %d's %s is %s in this node's table (bytes %" PRIu64 " to %" PRIu64 " of %" PRIu64
              "): PE %d cannot be reached; ending the job",
              pe, what, lo == hi ? "missing" : "malformed", lo, hi, data_len, pe);
    if (len) *len = std::size_t(hi - lo);
    return reinterpret_cast<const std::uint8_t *>(off + rt.npes + 1) + lo;
}

const char *node_tables_private_reason() {
    if (!rt.cfg.node_tables) return "USHMEM_NODE_TABLES=0";
    return g_private_reason.c_str();
}

} // namespace ushmem::core
