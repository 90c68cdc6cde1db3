// ushmem bootstrap: the only code that talks to MPI. It forms the job (rank, size, node-local
// peers) and moves the small blobs the transport needs at startup (worker addresses, packed rkeys,
// segment bases). Nothing here is on the data path.
#pragma once

#include <sched.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ushmem::bootstrap {

struct job {
    int rank = -1;
    int size = 0;
    int local_rank = -1;           // rank among the PEs of this node
    int local_size = 0;
    // CPUs the PEs of this node may run on: the union of their affinity masks, which a cpuset
    // (cgroup, container, batch allocation) or the launcher's binding restricts. More PEs than
    // that on the node means they share CPUs, whatever the machine's count of online CPUs.
    int node_cpus = 0;
    cpu_set_t node_used_cpus{};    // that union
    bool node_any_unbound = false; // some PE of this node may run on every online CPU
    std::vector<int> node_of;      // node index of every PE (node = its lowest world rank's order)
};

// Initialise MPI if the program has not (ushmem then also finalises it), and describe the job.
// `comm` is an MPI_Comm passed as a pointer, or nullptr for MPI_COMM_WORLD.
// Returns false with `err` set when MPI cannot be brought up.
bool join(const void *comm, job &out, std::string &err);

// Collective over the job: every rank contributes `mine`; `all` receives the concatenation and
// `offsets[i]` where rank i's blob starts (offsets has size+1 entries). Blobs may differ in length.
void allgatherv(const void *mine, std::size_t len, std::vector<std::uint8_t> &all,
                std::vector<std::size_t> &offsets);

// Collective over the job, hierarchical: every rank's `mine` reaches the first rank of its node
// only (local_rank 0), where `all` receives them concatenated in rank order and `offsets[i]` is
// where rank i's starts (size+1 entries); elsewhere both come back empty. Each rank sends its
// blob once, to its node's first rank; the first ranks exchange their nodes' blobs among
// themselves. (What a node shares, core/node_table.cpp, is built from it.)
void gatherv_to_node_first(const void *mine, std::size_t len, std::vector<std::uint8_t> &all,
                           std::vector<std::uint64_t> &offsets);
// Collective over this node's ranks: `len` bytes of the node's first rank's `buf` to all of them.
void node_bcast(void *buf, std::size_t len);
// Collective over this node's ranks: every rank's `mine` to the node's first rank, which gets them
// in rank order (one per rank of the node); elsewhere the result is empty. Point to point.
std::vector<std::uint64_t> node_gather_u64(std::uint64_t mine);

// Fixed-size allgather of `len` bytes per rank into `all` (size * len bytes).
void allgather(const void *mine, std::size_t len, void *all);

// Logical AND / MIN over ranks.
bool all_true(bool mine);
std::uint64_t min_u64(std::uint64_t mine);
std::uint64_t max_u64(std::uint64_t mine);
std::uint64_t sum_u64(std::uint64_t mine);
// Element-wise MIN over ranks of `n` words, in place (a max: the MIN of the complements).
void min_u64s(std::uint64_t *words, std::size_t n);

// A barrier that keeps calling `progress` while it waits, so that a peer which needs our
// transport to make progress (e.g. to close an endpoint) is never stuck behind MPI.
void barrier_with_progress(void (*progress)(void *), void *arg);

// The same barrier in two halves, for a caller that keeps its own watch while it waits (the
// finalize barrier names the PEs that have not reached it): ibarrier_begin starts it;
// ibarrier_test returns true once every rank has begun it (then it is over). One at a time.
void ibarrier_begin();
bool ibarrier_test();

// True once MPI is finalised (by us or by the program): no bootstrap call may then be made.
bool usable();

// Tear down: finalise MPI only if join() initialised it. Idempotent. (join and leave: named apart
// from core::init and core::finalize, the library's lifecycle, which calls them.)
void leave();

// End the whole job with `status`: MPI_Abort when MPI is usable and no other process of this node
// has begun to; a later process of the node waits (wait_for_launcher, 10 s) for that abort to end
// it, then exits with the status. Without MPI: _exit(status).
[[noreturn]] void abort_job(int status);

// Sleep `seconds` with the launcher's termination signals (SIGTERM, SIGINT, SIGHUP) let in: for a
// process that expects the launcher to end it.
void wait_for_launcher(unsigned seconds);
} // namespace ushmem::bootstrap
