// Misuse of the C++ API that must not compile (mpi_tests/cxx.cmake compiles this file once per
// MISUSE_<case> and expects the compiler's output to carry the API's message), and, with no case
// defined, the correct uses next to them, which must compile (the control: a failure above is the
// misuse, not a broken include path). Never run.
#include <ushmem/ushmem.hpp>

#include <cstdint>
#include <optional>
#include <string>

void uses(ushmem::symmetric<int> &ints, ushmem::symmetric<long> &longs, ushmem::symmetric<double> &dbl,
          ushmem::symmetric<unsigned long> &ulongs, ushmem::batch &b) {
    // Correct: the element type, or a conversion that loses nothing by its type.
    ushmem::put(ints.at(0, 0), 3);
    ushmem::put(longs.at(0, 0), 3);        // int literal into a long
    ushmem::put(dbl.at(0, 0), 3);          // int into a double
    ushmem::put(dbl.at(0, 0), 2.5f);       // float into a double
    (void)ushmem::fetch_add(ulongs.at(0, 0), 1);  // int into an unsigned long
    ushmem::put(ints.at(0, 0), static_cast<int>(3.7));  // explicit conversion
    ints.at(0, 0).put(4);
    b.add(longs.at(0, 0), 2);
    ushmem::reduce<ushmem::reduce_op::sum>(ushmem::world(), dbl.local(), dbl.local());
    ushmem::reduce<ushmem::reduce_op::bit_and>(ushmem::world(), ulongs.local(), ulongs.local());
    auto moved = ushmem::fetch_add_async(longs.at(0, 0), 1L);
    auto then = std::move(moved).then([](long v) { return v + 1; });
    std::optional<int> r = ushmem::world().translate(0, ushmem::world());
    (void)r;

#if defined(MISUSE_put_double_into_int)
    ushmem::put(ints.at(0, 0), 3.7);
#elif defined(MISUSE_put_long_into_int)
    ushmem::put(ints.at(0, 0), 5L);
#elif defined(MISUSE_fetch_add_double_into_long)
    (void)ushmem::fetch_add(longs.at(0, 0), 1.5);
#elif defined(MISUSE_sym_ptr_put_double)
    ints.at(0, 0).put(2.5);
#elif defined(MISUSE_batch_add_double)
    b.add(longs.at(0, 0), 0.5);
#elif defined(MISUSE_reduce_bit_and_double)
    ushmem::reduce<ushmem::reduce_op::bit_and>(ushmem::world(), dbl.local(), dbl.local());
#elif defined(MISUSE_fetch_add_double_type)
    (void)ushmem::fetch_add(dbl.at(0, 0), 1.0);
#elif defined(MISUSE_value_event_then_lvalue)
    auto e = ushmem::fetch_add_async(longs.at(0, 0), 1L);
    auto t = e.then([](long v) { return v; });
#elif defined(MISUSE_dist_object_string)
    ushmem::dist_object<std::string> names("x");
#elif defined(MISUSE_translate_as_int)
    int pe = ushmem::world().translate(0, ushmem::world());
    (void)pe;
#elif defined(MISUSE_rpc_capture)
    int local = 3;
    (void)ushmem::rpc(0, [local](int k) { return k + local; }, 1);
#elif defined(MISUSE_rpc_pointer_argument)
    int local = 3;
    (void)ushmem::rpc(0, [](int *p) { return *p; }, &local);
#endif
}

int main() { return 0; }
