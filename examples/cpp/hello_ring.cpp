// Ring: every PE writes its number into its right neighbour's symmetric array, then reads the
// array of its left neighbour back.
#include <ushmem/ushmem.hpp>

#include <cstdio>
#include <vector>

int main() {
    ushmem::runtime rt;  // shmem_init; shmem_finalize at the end of main
    const int me = rt.my_pe(), n = rt.n_pes();
    const int right = (me + 1) % n, left = (me + n - 1) % n;

    ushmem::symmetric<int> inbox(4);  // collective: 4 ints on every PE, zeroed
    std::vector<int> mine{me, me * 10, me * 100, me * 1000};

    ushmem::put(inbox.on(right), mine);  // blocking typed put of the whole vector
    ushmem::barrier();                   // completes the puts everywhere

    bool ok = inbox[0] == left && inbox[3] == left * 1000;
    // Read one element of the left neighbour's array.
    int remote = inbox.on(left).get(1);
    ok = ok && remote == ((left + n - 1) % n) * 10;

    std::printf("PE %d/%d: got %d from PE %d (%s)\n", me, n, inbox[0], left, ok ? "ok" : "WRONG");
    ushmem::barrier();
    return ok ? 0 : 1;
}
