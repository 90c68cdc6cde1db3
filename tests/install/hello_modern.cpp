// Installed-tree check of the C++ API: built with `ushmemcxx` and no -std flag (the wrapper
// supplies C++20), a typed put around the ring and a fetch_add.
#include <ushmem/ushmem.hpp>

#include <cstdio>
#include <vector>

int main() {
    ushmem::runtime rt;
    const int me = rt.my_pe(), n = rt.n_pes();
    ushmem::symmetric<long> box(1);
    ushmem::put(box.on((me + 1) % n), std::vector<long>{me + 1L});
    ushmem::barrier();
    bool ok = box[0] == (me + n - 1) % n + 1;
    std::printf("hello_modern.cpp: PE %d of %d: %s\n", me, n, ok ? "OK" : "FAILED");
    ushmem::barrier();
    return ok ? 0 : 1;
}
