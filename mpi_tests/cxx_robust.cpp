// C++ API under hostile but realistic use (issue #13).
//
// Usage: cxx_robust MODE
//   messages  every C++ error of the issue says what it is about: heap exhaustion (the PE and a
//             size derived from the request), a misaligned sym_ptr (hex address), an invalid
//             split_strided triplet (the reason), a bad broadcast root (value and range), a bounded
//             wait_until that times out (what it waited for, the value seen, the usual causes);
//             exits 0 when every check holds
//   unwind    a symmetric<> unwound on PE 0 only (its exception caught there) is leaked there and
//             freed on the others: the next symmetric allocation must end the job naming what each
//             PE did (mpi_tests/robust.cmake checks the message)
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <cstring>
#include <stdexcept>
#include <string>

namespace {
bool has(const std::string &text, const std::string &part) {
    if (text.find(part) != std::string::npos) return true;
    std::fprintf(stderr, "PE %d: message \"%s\" lacks \"%s\"\n", me, text.c_str(), part.c_str());
    return false;
}


void messages() {
    const std::string pe = "PE " + std::to_string(me);
    // Heap exhaustion: this PE, the library's numbers, and a size derived from the request (1 TiB
    // more than the 64 MiB heap: 2T).
    std::string m = message_of<ushmem::bad_symmetric_alloc>([] { ushmem::symmetric<char> big(std::size_t(1) << 40); });
    CHECK(has(m, "ushmem: symmetric allocation of 1099511627776 bytes failed on " + pe + ": cannot allocate "
                 "1099511627776 bytes: "));
    CHECK(has(m, "heap size SHMEM_SYMMETRIC_SIZE=67108864; raise SHMEM_SYMMETRIC_SIZE (e.g. SHMEM_SYMMETRIC_SIZE=2T)"));
    CHECK(m.find("returning NULL") == std::string::npos);
    // The constructor alone derives the size from the request too.
    CHECK(has(ushmem::bad_symmetric_alloc(std::size_t(3) << 30).what(), "SHMEM_SYMMETRIC_SIZE=4G or more"));

    // A misaligned address, in hex.
    ushmem::symmetric<long> s(4);
    char *odd = reinterpret_cast<char *>(s.data()) + 3;
    char hex[32];
    std::snprintf(hex, sizeof hex, "%#zx", std::size_t(reinterpret_cast<std::uintptr_t>(odd)));
    m = message_of<ushmem::invalid_argument>([&] { ushmem::sym_ptr<long>(reinterpret_cast<long *>(odd), 0); });
    CHECK(has(m, "sym_ptr on " + pe + ": address " + hex + " is not aligned to 8 bytes"));

    // An invalid triplet: the reason, on every PE, as invalid_argument.
    m = message_of<ushmem::invalid_argument>([] { ushmem::world().split_strided(0, 1, npes + 1); });
    CHECK(has(m, "ushmem: team split_strided(0, 1, " + std::to_string(npes + 1) + ") on " + pe + " failed: invalid PE triplet "
                 "(start 0, stride 1, size " + std::to_string(npes + 1) + ") for a parent team of " +
                 std::to_string(npes) + " PEs: its last PE, start + stride * (size - 1) = 0 + 1 * " +
                 std::to_string(npes) + " = " + std::to_string(npes) + ", is not a PE number of the parent team (0 to " +
                 std::to_string(npes - 1) + ")"));
    CHECK(m.find("returning") == std::string::npos);
    m = message_of<ushmem::invalid_argument>([] { ushmem::world().split_strided(-1, 1, 1); });
    CHECK(has(m, "start -1 is not a PE number of the parent team (0 to " + std::to_string(npes - 1) + ")"));
    m = message_of<ushmem::invalid_argument>([] { ushmem::world().split_2d(0); });
    CHECK(has(m, "ushmem: team split_2d(0) on " + pe + " failed: xrange 0 is invalid: it must be positive"));

    // A bad broadcast root: its value and the range.
    m = message_of<ushmem::invalid_argument>([&] {
        ushmem::broadcast(ushmem::world(), s.local(), std::span<const long>(s.local()), npes + 6);
    });
    CHECK(has(m, "broadcast on " + pe + ": root " + std::to_string(npes + 6) + " is not a PE of the team (0 to " +
                     std::to_string(npes - 1) + ")"));

    // A bounded wait_until that nobody satisfies: what it waited for, the value it saw, the causes.
    ushmem::symmetric<int> flag(1, 7);
    char addr[32];
    std::snprintf(addr, sizeof addr, "%#zx", std::size_t(reinterpret_cast<std::uintptr_t>(flag.data())));
    m = message_of<ushmem::timeout_error>(
        [&] { ushmem::wait_until(flag, 0, ushmem::cmp::ge, 8, std::chrono::milliseconds(100)); });
    CHECK(has(m, std::string("ushmem: wait_until: the variable at ") + addr + " still holds 7, not yet >= 8, at the "
                 "deadline. Usually no PE has written it"));
    CHECK(has(m, "or its writer has not completed the put"));
    CHECK(has(m, "(" + pe + ", after "));
    ushmem::barrier();
}

// PE 0 throws while holding a symmetric<>: its destructor leaks the block there (no collective free
// during unwinding), while the other PEs free it normally. The next allocation must end the job.
void unwind() {
    try {
        ushmem::symmetric<long> a(10);
        if (me == 0) throw std::runtime_error("only on PE 0");
    } catch (const std::runtime_error &) {
    }
    ushmem::symmetric<long> b(10);  // must not return
    std::printf("PE %d: the allocation after the one-sided unwinding returned\n", me);
    ++failures;
}
} // namespace

int main(int argc, char **argv) {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    if (argc == 2 && std::strcmp(argv[1], "messages") == 0) messages();
    else if (argc == 2 && std::strcmp(argv[1], "unwind") == 0) unwind();
    else ++failures;
    if (failures) {
        std::fprintf(stderr, "PE %d: %d failures\n", me, failures);
        shmem_global_exit(1);
    }
    std::printf("cxx_robust: PE %d OK\n", me);
    return 0;
}
