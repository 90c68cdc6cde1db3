// MPI implementation of the bootstrap interface.
#include "bootstrap/bootstrap.hpp"

#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>

namespace ushmem::bootstrap {
namespace {
MPI_Comm g_comm = MPI_COMM_NULL;  // our duplicate: our collectives never match the program's
// For the hierarchical exchanges below (gatherv_to_node_first, node_bcast), point to point over
// g_comm: no communicator of their own, whose creation costs Open MPI several reductions over the
// job (about a second each with 32 PEs on four simulated hosts of a 2-core machine). Set by join:
// this node's first rank (its lowest), this node's ranks, and on a first rank every node's first.
// Tags: member to first, first to first, first to members (the tables of one init follow each
// other; MPI keeps messages of one tag between two ranks in order).
int g_first = -1;
std::vector<int> g_members;
std::vector<int> g_firsts;
constexpr int tag_blob = 0x7531, tag_pack = 0x7532, tag_bcast = 0x7533, tag_cpus = 0x7534, tag_word = 0x7535;
bool g_we_initialized = false;

// The abstract socket name this job's PEs on this node contend for when they end the job
// (abort_job). Built at init, so that abort_job formats nothing (it may run in a signal handler).
sockaddr_un g_abort_name{};
socklen_t g_abort_name_len = 0;

// This PE's shared-memory domain, as one word: the processes that may attach each other's System
// V segments, which is what ushmem's node means (the node tables, the direct path). Those share a
// kernel (boot id), an IPC namespace and, as launchers name hosts, a host name; a container or a
// simulated host with its own IPC namespace is a node of its own even where the host name repeats.
std::uint64_t node_key() {
    std::uint64_t h = 1469598103934665603ULL;  // FNV-1a
    auto add = [&h](const char *p, std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) h = (h ^ static_cast<unsigned char>(p[i])) * 1099511628211ULL;
    };
    char host[256] = {};
    gethostname(host, sizeof host - 1);
    add(host, std::strlen(host) + 1);
    char buf[64] = {};
    if (FILE *f = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
        std::size_t n = std::fread(buf, 1, sizeof buf, f);
        std::fclose(f);
        add(buf, n);
    }
    struct stat st {};
    if (stat("/proc/self/ns/ipc", &st) == 0) {
        add(reinterpret_cast<const char *>(&st.st_ino), sizeof st.st_ino);
        add(reinterpret_cast<const char *>(&st.st_dev), sizeof st.st_dev);
    }
    return h;
}

bool mpi_alive() {
    int inited = 0, fin = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&fin);
    return inited && !fin;
}
} // namespace

bool join(const void *comm, job &out, std::string &err) {
    int inited = 0;
    MPI_Initialized(&inited);
    if (!inited) {
        if (comm) {
            err = "a communicator was given but MPI is not initialized; call MPI_Init first";
            return false;
        }
        // SERIALIZED is enough: ushmem calls MPI only at init and finalize, from one thread.
        int provided = 0;
        if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS) {
            err = "MPI_Init_thread failed; launch the program with mpirun";
            return false;
        }
        g_we_initialized = true;
    } else {
        int fin = 0;
        MPI_Finalized(&fin);
        if (fin) {
            err = "MPI is already finalized; ushmem cannot bootstrap";
            return false;
        }
    }
    MPI_Comm parent = comm ? *static_cast<const MPI_Comm *>(comm) : MPI_COMM_WORLD;
    if (g_comm != MPI_COMM_NULL) MPI_Comm_free(&g_comm);  // re-initialization after finalize
    // Our duplicate is made while the node keys are gathered on the parent: creating it costs
    // Open MPI a few reductions over the job (1.7 s of start-up with 32 PEs on four simulated
    // hosts of a 2-core machine), and the gather's own rounds then overlap them. A collective on
    // the parent is as safe as the duplication itself, which is one; no message of ours goes
    // point to point on it.
    MPI_Request dup;
    MPI_Comm_idup(parent, &g_comm, &dup);
    MPI_Comm_rank(parent, &out.rank);
    MPI_Comm_size(parent, &out.size);

    // Node-local peers: one allgather of a word naming this PE's shared-memory domain
    // (node_key), then, on the node, point to point with its first rank for the CPUs and the
    // abort name. Not MPI_Comm_split_type: creating a communicator costs Open MPI several
    // reductions over the whole job, and with 32 PEs on four simulated hosts of a 2-core machine
    // it took 1.9 s, a quarter of start-up, plus 0.7 s for the node's reductions (issue #50).
    const std::uint64_t key = node_key();
    std::vector<std::uint64_t> keys(std::size_t(out.size));
    MPI_Allgather(&key, 1, MPI_UINT64_T, keys.data(), 1, MPI_UINT64_T, parent);
    MPI_Wait(&dup, MPI_STATUS_IGNORE);
    MPI_Comm_set_errhandler(g_comm, MPI_ERRORS_ARE_FATAL);
    // A node is named by its lowest rank; nodes are numbered in the order of those ranks.
    out.node_of.assign(std::size_t(out.size), -1);
    g_firsts.clear();
    for (int i = 0; i < out.size; ++i) {
        if (out.node_of[std::size_t(i)] >= 0) continue;
        const int node = int(g_firsts.size());
        g_firsts.push_back(i);
        for (int j = i; j < out.size; ++j)
            if (keys[std::size_t(j)] == keys[std::size_t(i)]) out.node_of[std::size_t(j)] = node;
    }
    const int my_node = out.node_of[std::size_t(out.rank)];
    g_first = g_firsts[std::size_t(my_node)];
    g_members.clear();
    for (int i = 0; i < out.size; ++i)
        if (out.node_of[std::size_t(i)] == my_node) {
            if (i == out.rank) out.local_rank = int(g_members.size());
            g_members.push_back(i);
        }
    out.local_size = int(g_members.size());
    if (out.rank != g_first) g_firsts.clear();  // kept by the nodes' first ranks only
    // The node's CPUs as its PEs see them (bootstrap.hpp, node_cpus; 0 when unknown), ORed on the
    // first rank, and a name for this job on this node drawn there (abort_job).
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    if (sched_getaffinity(0, sizeof cpus, &cpus) != 0) CPU_ZERO(&cpus);
    struct {
        cpu_set_t used;            // the union of the node's PEs' affinity masks
        std::uint64_t any_unbound; // some PE of the node may run on every online CPU
        std::uint64_t key;         // the abort name's
    } facts{};
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    if (out.rank == g_first) {
        facts.used = cpus;
        facts.any_unbound = CPU_COUNT(&cpus) >= online;
        for (int r : g_members) {
            if (r == out.rank) continue;
            cpu_set_t theirs;
            MPI_Recv(&theirs, int(sizeof theirs), MPI_BYTE, r, tag_cpus, g_comm, MPI_STATUS_IGNORE);
            CPU_OR(&facts.used, &facts.used, &theirs);
            if (CPU_COUNT(&theirs) >= online) facts.any_unbound = 1;
        }
        std::random_device rd;
        facts.key = (std::uint64_t(rd()) << 32) ^ rd() ^ std::uint64_t(getpid());
    } else {
        MPI_Send(&cpus, int(sizeof cpus), MPI_BYTE, g_first, tag_cpus, g_comm);
    }
    node_bcast(&facts, sizeof facts);
    out.node_cpus = CPU_COUNT(&facts.used);
    out.node_used_cpus = facts.used;
    out.node_any_unbound = facts.any_unbound != 0;
    g_abort_name.sun_family = AF_UNIX;
    // Abstract namespace (leading NUL): no file, gone with the last process that holds it.
    int len = std::snprintf(g_abort_name.sun_path + 1, sizeof g_abort_name.sun_path - 1,
                            "ushmem-abort-%016llx", static_cast<unsigned long long>(facts.key));
    g_abort_name_len = socklen_t(offsetof(sockaddr_un, sun_path) + 1 + std::size_t(len));
    return true;
}

void allgatherv(const void *mine, std::size_t len, std::vector<std::uint8_t> &all,
                std::vector<std::size_t> &offsets) {
    int n = 0;
    MPI_Comm_size(g_comm, &n);
    std::vector<int> lens(n), displs(n);
    int l = int(len);
    MPI_Allgather(&l, 1, MPI_INT, lens.data(), 1, MPI_INT, g_comm);
    offsets.assign(n + 1, 0);
    for (int i = 0; i < n; ++i) offsets[i + 1] = offsets[i] + std::size_t(lens[i]);
    for (int i = 0; i < n; ++i) displs[i] = int(offsets[i]);
    all.resize(std::max<std::size_t>(offsets[n], 1));
    MPI_Allgatherv(mine, l, MPI_BYTE, all.data(), lens.data(), displs.data(), MPI_BYTE, g_comm);
}

void gatherv_to_node_first(const void *mine, std::size_t len, std::vector<std::uint8_t> &all,
                           std::vector<std::uint64_t> &offsets) {
    all.clear();
    offsets.clear();
    int me = 0, n = 0;
    MPI_Comm_rank(g_comm, &me);
    MPI_Comm_size(g_comm, &n);
    // 1. On the node: every rank sends its bytes to the node's first rank (one message each).
    if (me != g_first) {
        MPI_Send(mine, int(len), MPI_BYTE, g_first, tag_blob, g_comm);
        return;
    }
    // The node's pack: [count][count x (rank, len)][their bytes, in that order].
    const std::size_t count = g_members.size();
    std::vector<std::vector<std::uint8_t>> blobs(count);
    for (std::size_t k = 0; k < count; ++k) {
        const int r = g_members[k];
        if (r == me) {
            blobs[k].assign(static_cast<const std::uint8_t *>(mine), static_cast<const std::uint8_t *>(mine) + len);
            continue;
        }
        MPI_Status st;
        MPI_Probe(r, tag_blob, g_comm, &st);
        int got = 0;
        MPI_Get_count(&st, MPI_BYTE, &got);
        blobs[k].resize(std::size_t(got));
        MPI_Recv(blobs[k].data(), got, MPI_BYTE, r, tag_blob, g_comm, MPI_STATUS_IGNORE);
    }
    std::vector<std::uint8_t> pack(4 + 8 * count);
    const std::uint32_t c32 = std::uint32_t(count);
    std::memcpy(pack.data(), &c32, 4);
    for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t rl[2] = {std::uint32_t(g_members[k]), std::uint32_t(blobs[k].size())};
        std::memcpy(pack.data() + 4 + 8 * k, rl, 8);
        pack.insert(pack.end(), blobs[k].begin(), blobs[k].end());
    }
    blobs.clear();
    // 2. Among the nodes' first ranks: every node's pack, one message to and from each other first.
    const std::size_t nodes = g_firsts.size();
    std::vector<std::vector<std::uint8_t>> packs(nodes);
    std::vector<MPI_Request> sends;
    sends.reserve(nodes);
    for (std::size_t i = 0; i < nodes; ++i)
        if (g_firsts[i] != me) {
            sends.emplace_back();
            MPI_Isend(pack.data(), int(pack.size()), MPI_BYTE, g_firsts[i], tag_pack, g_comm, &sends.back());
        }
    for (std::size_t i = 0; i < nodes; ++i) {
        if (g_firsts[i] == me) continue;
        MPI_Status st;
        MPI_Probe(g_firsts[i], tag_pack, g_comm, &st);
        int got = 0;
        MPI_Get_count(&st, MPI_BYTE, &got);
        packs[i].resize(std::size_t(got));
        MPI_Recv(packs[i].data(), got, MPI_BYTE, g_firsts[i], tag_pack, g_comm, MPI_STATUS_IGNORE);
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    for (std::size_t i = 0; i < nodes; ++i)
        if (g_firsts[i] == me) packs[i] = std::move(pack);
    // 3. Ordered by rank: lengths first, then the bytes.
    std::vector<const std::uint8_t *> from(std::size_t(n), nullptr);
    std::vector<std::uint32_t> sizes(std::size_t(n), 0);
    for (const auto &pk : packs) {
        if (pk.size() < 4) continue;
        std::uint32_t cnt;
        std::memcpy(&cnt, pk.data(), 4);
        if (pk.size() < 4 + 8 * std::size_t(cnt)) continue;
        const std::uint8_t *data = pk.data() + 4 + 8 * std::size_t(cnt);
        const std::uint8_t *end = pk.data() + pk.size();
        for (std::uint32_t k = 0; k < cnt; ++k) {
            std::uint32_t rl[2];
            std::memcpy(rl, pk.data() + 4 + 8 * std::size_t(k), 8);
            if (rl[1] > std::size_t(end - data)) break;  // a short pack: its entries stay missing
            if (rl[0] < std::uint32_t(n)) from[rl[0]] = data, sizes[rl[0]] = rl[1];
            data += rl[1];
        }
    }
    offsets.assign(std::size_t(n) + 1, 0);
    for (int i = 0; i < n; ++i) offsets[std::size_t(i) + 1] = offsets[std::size_t(i)] + sizes[std::size_t(i)];
    all.resize(std::max<std::uint64_t>(offsets[std::size_t(n)], 1));
    for (int i = 0; i < n; ++i)
        if (sizes[std::size_t(i)]) std::memcpy(all.data() + offsets[std::size_t(i)], from[std::size_t(i)], sizes[std::size_t(i)]);
}

void node_bcast(void *buf, std::size_t len) {
    int me = 0;
    MPI_Comm_rank(g_comm, &me);
    if (me != g_first) {
        MPI_Recv(buf, int(len), MPI_BYTE, g_first, tag_bcast, g_comm, MPI_STATUS_IGNORE);
        return;
    }
    for (int r : g_members)
        if (r != me) MPI_Send(buf, int(len), MPI_BYTE, r, tag_bcast, g_comm);
}

std::vector<std::uint64_t> node_gather_u64(std::uint64_t mine) {
    int me = 0;
    MPI_Comm_rank(g_comm, &me);
    if (me != g_first) {
        MPI_Send(&mine, 1, MPI_UINT64_T, g_first, tag_word, g_comm);
        return {};
    }
    std::vector<std::uint64_t> all(g_members.size());
    for (std::size_t k = 0; k < g_members.size(); ++k) {
        if (g_members[k] == me) all[k] = mine;
        else MPI_Recv(&all[k], 1, MPI_UINT64_T, g_members[k], tag_word, g_comm, MPI_STATUS_IGNORE);
    }
    return all;
}

std::uint64_t sum_u64(std::uint64_t mine) {
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_UINT64_T, MPI_SUM, g_comm);
    return mine;
}

void allgather(const void *mine, std::size_t len, void *all) {
    MPI_Allgather(mine, int(len), MPI_BYTE, all, int(len), MPI_BYTE, g_comm);
}

bool all_true(bool mine) {
    int v = mine ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, g_comm);
    return v != 0;
}

std::uint64_t min_u64(std::uint64_t mine) {
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_UINT64_T, MPI_MIN, g_comm);
    return mine;
}

std::uint64_t max_u64(std::uint64_t mine) {
    MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_UINT64_T, MPI_MAX, g_comm);
    return mine;
}

void min_u64s(std::uint64_t *words, std::size_t n) {
    MPI_Allreduce(MPI_IN_PLACE, words, int(n), MPI_UINT64_T, MPI_MIN, g_comm);
}

void barrier_with_progress(void (*progress)(void *), void *arg) {
    MPI_Request req;
    MPI_Ibarrier(g_comm, &req);
    int done = 0;
    while (!done) {
        if (progress) progress(arg);
        MPI_Test(&req, &done, MPI_STATUS_IGNORE);
    }
}

namespace {
MPI_Request g_ibarrier = MPI_REQUEST_NULL;
} // namespace

void ibarrier_begin() { MPI_Ibarrier(g_comm, &g_ibarrier); }

bool ibarrier_test() {
    int done = 0;
    MPI_Test(&g_ibarrier, &done, MPI_STATUS_IGNORE);
    return done != 0;
}

bool usable() { return g_comm != MPI_COMM_NULL && mpi_alive(); }

void leave() {
    if (g_comm != MPI_COMM_NULL && mpi_alive()) MPI_Comm_free(&g_comm);
    g_comm = MPI_COMM_NULL;
    g_members.clear();
    g_firsts.clear();
    g_first = -1;
    if (g_we_initialized && mpi_alive()) MPI_Finalize();
    g_we_initialized = false;
}

namespace {
// Whether this process is the first of its node to end the job. Open MPI 4.1's mpirun can crash
// (SIGSEGV in its PMIx log relay, leaving its /dev/shm segments behind) when several processes of
// a node call MPI_Abort in the same instant, which is what happens when every PE meets the same
// fatal error, calls shmem_global_exit, or sees the same dead peer. So one PE per node calls
// MPI_Abort: the first to bind the job's abstract socket name, which it holds until it dies.
// Anything unexpected (no name, socket refused) counts as first: MPI_Abort as before.
bool first_to_abort_on_node() {
    if (g_abort_name_len == 0) return true;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return true;
    if (bind(fd, reinterpret_cast<const sockaddr *>(&g_abort_name), g_abort_name_len) == 0) return true;
    const bool taken = errno == EADDRINUSE;
    close(fd);
    return !taken;
}
} // namespace

void wait_for_launcher(unsigned seconds) {
    sigset_t term;
    sigemptyset(&term);
    for (int sig : {SIGTERM, SIGINT, SIGHUP}) sigaddset(&term, sig);
    pthread_sigmask(SIG_UNBLOCK, &term, nullptr);
    timespec left{time_t(seconds), 0};
    while (nanosleep(&left, &left) != 0) {
    }
}

void abort_job(int status) {
    // One thread of the process ends it: a second (the progress thread seeing the peers drop
    // while the first is inside MPI_Abort) waits for the end rather than exit with its own
    // status first. The same thread again (a signal handler that exits) cannot wait for itself:
    // it exits at once, as it did when MPI_Abort returned on re-entry.
    static std::atomic<bool> ending{false};
    static thread_local bool t_ending = false;
    if (ending.exchange(true)) {
        if (!t_ending)
            for (;;) pause();
        _exit(status);
    }
    t_ending = true;
    if (mpi_alive()) {
        if (first_to_abort_on_node())
            MPI_Abort(g_comm != MPI_COMM_NULL ? g_comm : MPI_COMM_WORLD, status);
        // Another PE of the node is aborting the job: its MPI_Abort ends this process too. An exit
        // of our own meanwhile would only race that teardown (mpirun then loses the processes'
        // last output, or its relay of the abort message fails). Exit only if nothing comes.
        wait_for_launcher(10);
    }
    _exit(status);
}

} // namespace ushmem::bootstrap
