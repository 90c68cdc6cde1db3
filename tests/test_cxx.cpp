// The C++ API's pieces that need no running library: type mapping, event sizes, error types.
#include <ushmem/ushmem.hpp>

#include <gtest/gtest.h>

#include <tuple>
#include <type_traits>
#include <vector>

// Events are cheap: a context, one PE with its operation counts inline (no allocation), and a
// shared pointer used only by batches to several PEs; copying one never throws.
static_assert(sizeof(ushmem::event) <= 5 * sizeof(void *));
static_assert(std::is_nothrow_copy_constructible_v<ushmem::event>);
static_assert(std::is_nothrow_move_constructible_v<ushmem::event>);
static_assert(sizeof(ushmem::value_event<long>) <= 7 * sizeof(void *));  // event, slot, done flag
// value_event owns a heap slot for the fetched value: it moves (vectors of pending fetches), the
// slot does not.
static_assert(std::is_nothrow_move_constructible_v<ushmem::value_event<long>>);
static_assert(!std::is_copy_constructible_v<ushmem::value_event<long>>);
// Remote views are small values.
static_assert(sizeof(ushmem::sym_ptr<double>) == 2 * sizeof(void *));
static_assert(std::is_trivially_copyable_v<ushmem::sym_ptr<double>>);
static_assert(std::is_trivially_copyable_v<ushmem::sym_span<double>>);
// symmetric<> and team are move-only.
static_assert(!std::is_copy_constructible_v<ushmem::symmetric<int>>);
static_assert(std::is_nothrow_move_constructible_v<ushmem::symmetric<int>>);
static_assert(!std::is_copy_constructible_v<ushmem::team>);
static_assert(std::is_nothrow_move_constructible_v<ushmem::team>);
// [[nodiscard]]-returning functions: checked by the compiler (-Werror).

// Stored values: what converts without loss by its type passes, the rest is refused (the refusal
// itself, a static_assert, is tested by the cxx_misuse.* compile-fail tests).
static_assert(ushmem::detail::storable_as<int, int>);
static_assert(ushmem::detail::storable_as<int, long>);           // an int literal into a long
static_assert(ushmem::detail::storable_as<int, unsigned long>);  // -1 for a wrapping add
static_assert(ushmem::detail::storable_as<int, double>);
static_assert(ushmem::detail::storable_as<float, double>);
static_assert(!ushmem::detail::storable_as<double, int>);        // put(int_array.at(...), 3.7)
static_assert(!ushmem::detail::storable_as<double, float>);
static_assert(!ushmem::detail::storable_as<long, int>);
static_assert(!ushmem::detail::storable_as<bool, int>);
// Completions and the values of their compositions.
static_assert(ushmem::completion<ushmem::event> && ushmem::completion<ushmem::value_event<long>>);
static_assert(!ushmem::completion<int>);
using joined = decltype(ushmem::when_all(std::declval<ushmem::event>(), std::declval<ushmem::value_event<long>>(),
                                         std::declval<ushmem::value_event<double>>()));
static_assert(std::is_same_v<joined::value_type, std::tuple<long, double>>);
static_assert(std::is_void_v<decltype(ushmem::when_all(std::declval<ushmem::event>()))::value_type>);
static_assert(std::is_same_v<decltype(ushmem::when_all(std::declval<std::vector<ushmem::value_event<int>>>()))::value_type,
                             std::vector<int>>);
static_assert(std::is_same_v<decltype(std::declval<ushmem::value_event<long>>().then([](long v) { return v * 0.5; }))::value_type,
                             double>);
// Reduction tables: bit_and has no double.
static_assert(!ushmem::reduce_bitwise_type<double> && ushmem::reduce_bitwise_type<unsigned long>);
static_assert(ushmem::reduce_arith_type<double> && ushmem::reduce_minmax_type<int>);

// Error hierarchy.
static_assert(std::is_base_of_v<std::system_error, ushmem::error>);
static_assert(std::is_base_of_v<ushmem::error, ushmem::bad_symmetric_alloc>);
static_assert(std::is_base_of_v<ushmem::error, ushmem::invalid_argument>);
static_assert(std::is_base_of_v<ushmem::error, ushmem::timeout_error>);
static_assert(std::is_base_of_v<ushmem::error, ushmem::transport_error>);

TEST(CxxTypes, AmoTables) {
    // Extended: float, double and the standard types.
    EXPECT_TRUE(ushmem::amo_ext_type<float>);
    EXPECT_TRUE(ushmem::amo_ext_type<double>);
    EXPECT_TRUE(ushmem::amo_ext_type<long>);
    EXPECT_FALSE(ushmem::amo_ext_type<long double>);
    EXPECT_FALSE(ushmem::amo_ext_type<short>);
    EXPECT_FALSE(ushmem::amo_ext_type<char>);
    // Standard: integers of 4 and 8 bytes, no floating point.
    EXPECT_TRUE(ushmem::amo_std_type<int>);
    EXPECT_TRUE(ushmem::amo_std_type<unsigned long long>);
    EXPECT_TRUE(ushmem::amo_std_type<std::size_t>);
    EXPECT_TRUE(ushmem::amo_std_type<std::ptrdiff_t>);
    EXPECT_FALSE(ushmem::amo_std_type<double>);
    EXPECT_FALSE(ushmem::amo_std_type<short>);
    // Bitwise: unsigned and exact-width types.
    EXPECT_TRUE(ushmem::amo_bitwise_type<std::uint64_t>);
    EXPECT_TRUE(ushmem::amo_bitwise_type<unsigned int>);
    EXPECT_TRUE(ushmem::amo_bitwise_type<std::int32_t>);
    EXPECT_FALSE(ushmem::amo_bitwise_type<float>);
    EXPECT_FALSE(ushmem::amo_bitwise_type<long long>);
    // Point-to-point: short too.
    EXPECT_TRUE(ushmem::p2p_type<short>);
    EXPECT_TRUE(ushmem::p2p_type<std::uint64_t>);
    EXPECT_FALSE(ushmem::p2p_type<double>);
    // cv-qualified types map like the plain ones.
    EXPECT_TRUE(ushmem::amo_std_type<const int>);
}

TEST(CxxErrors, CodesAndMessages) {
    ushmem::bad_symmetric_alloc a(12345);
    EXPECT_EQ(a.requested(), 12345u);
    EXPECT_EQ(a.code(), ushmem::errc::bad_symmetric_alloc);
    EXPECT_NE(std::string(a.what()).find("SHMEM_SYMMETRIC_SIZE"), std::string::npos);
    EXPECT_NE(std::string(a.what()).find("12345"), std::string::npos);
    EXPECT_STREQ(a.code().category().name(), "ushmem");
    // The suggested heap size comes from the request (next power of two above it), not a constant.
    EXPECT_NE(std::string(ushmem::bad_symmetric_alloc(std::size_t(1) << 40).what()).find("SHMEM_SYMMETRIC_SIZE=2T"),
              std::string::npos);
    EXPECT_NE(std::string(ushmem::bad_symmetric_alloc(100).what()).find("SHMEM_SYMMETRIC_SIZE=1M"), std::string::npos);
    // With the PE and the library's account of the failure.
    ushmem::bad_symmetric_alloc b(64, 3, "cannot allocate 64 bytes aligned to 1099511627776 bytes");
    EXPECT_EQ(std::string(b.what()).rfind("ushmem: symmetric allocation of 64 bytes failed on PE 3: cannot allocate 64 "
                                          "bytes aligned to 1099511627776 bytes",
                                          0),
              0u)
        << b.what();
    EXPECT_EQ(b.requested(), 64u);

    ushmem::timeout_error t(3, std::chrono::milliseconds(1500), "wait");
    EXPECT_EQ(t.pe(), 3);
    EXPECT_EQ(t.elapsed(), std::chrono::milliseconds(1500));
    EXPECT_NE(std::string(t.what()).find("PE 3"), std::string::npos);
    EXPECT_NE(std::string(t.what()).find("1500 ms"), std::string::npos);
    EXPECT_EQ(t.code(), ushmem::errc::timeout);

    ushmem::invalid_argument i("bad");
    EXPECT_EQ(i.code(), ushmem::errc::invalid_argument);
    EXPECT_EQ(ushmem::transport_error("x").code(), ushmem::errc::transport);
    EXPECT_NE(ushmem::make_error_code(ushmem::errc::timeout).message(), "");
    // Catchable as the base and as std::system_error.
    try {
        throw ushmem::invalid_argument("z");
    } catch (const ushmem::error &e) {
        EXPECT_EQ(e.code().value(), int(ushmem::errc::invalid_argument));
    }
}

TEST(CxxViews, UncheckedArithmetic) {
    long buf[8] = {};
    ushmem::sym_ptr<long> p(ushmem::detail::unchecked, buf, 1);
    EXPECT_EQ((p + 3).address(), buf + 3);
    EXPECT_EQ((p + 3) - p, 3);
    EXPECT_EQ((p + 3).pe(), 1);
    ushmem::sym_span<long> s(ushmem::detail::unchecked, buf, 8, 1);
    EXPECT_EQ(s.subspan(2, 4).data(), buf + 2);
    EXPECT_EQ(s.subspan(2).size(), 6u);
    EXPECT_EQ(s[5].address(), buf + 5);
    EXPECT_THROW((void)s.subspan(9), ushmem::invalid_argument);
    EXPECT_THROW((void)s.subspan(4, 5), ushmem::invalid_argument);
    EXPECT_THROW((void)s[8], ushmem::invalid_argument);
}

// wait_limit: unbounded by default; any duration converts; negative durations clamp to zero (an
// already-passed deadline still makes one attempt, then times out).
static_assert(!ushmem::wait_limit{}.bounded());
static_assert(std::is_convertible_v<std::chrono::milliseconds, ushmem::wait_limit>);
static_assert(std::is_convertible_v<std::chrono::duration<double>, ushmem::wait_limit>);
static_assert(!std::is_convertible_v<int, ushmem::wait_limit>);

TEST(CxxTimeouts, WaitLimit) {
    using namespace std::chrono_literals;
    ushmem::wait_limit ms(3ms);
    EXPECT_TRUE(ms.bounded());
    EXPECT_EQ(ms.duration(), 3ms);
    ushmem::wait_limit neg(-5s);
    EXPECT_TRUE(neg.bounded());
    EXPECT_EQ(neg.duration(), 0ns);
    EXPECT_EQ(ushmem::wait_limit(std::chrono::duration<double>(0.5)).duration(), 500ms);
}

TEST(CxxTimeouts, PollUntilNamesTheTimeWaited) {
    using namespace std::chrono_literals;
    int polls = 0;
    try {
        ushmem::detail::poll_until(
            ushmem::detail::clock::now(), 2ms, [&] { return ++polls < 0; },
            [](std::chrono::nanoseconds elapsed) { throw ushmem::timeout_error(3, elapsed, "ushmem: test"); });
        FAIL() << "no timeout";
    } catch (const ushmem::timeout_error &e) {
        EXPECT_EQ(e.pe(), 3);
        EXPECT_GE(e.elapsed(), 2ms);
        EXPECT_NE(std::string(e.what()).find("(PE 3, after "), std::string::npos);
    }
    EXPECT_GT(polls, 0);
    int calls = 0;
    ushmem::detail::poll_until(
        ushmem::detail::clock::now(), 0ns, [&] { return ++calls == 1; },
        [](std::chrono::nanoseconds) { throw std::logic_error("done at the first poll must not time out"); });
    EXPECT_EQ(calls, 1);
}

// timeout_error::pending(): one entry per incomplete PE, listed in what(); pe() is the first.
TEST(CxxTimeouts, PendingPerPe) {
    using namespace std::chrono_literals;
    std::vector<ushmem::pe_progress> v{{3, 5, 2}, {7, 1, 0}, {9, ushmem::pe_progress::not_counted, 0}};
    ushmem::timeout_error e(v, 12ms, "ushmem: event::wait: late");
    EXPECT_EQ(e.pe(), 3);
    ASSERT_EQ(e.pending().size(), 3u);
    EXPECT_EQ(e.pending()[1].pe, 7);
    EXPECT_EQ(e.pending()[0].issued, 5u);
    EXPECT_EQ(e.pending()[0].completed, 2u);
    const std::string w = e.what();
    EXPECT_NE(w.find("PE 3: 2 of 5 operations complete"), std::string::npos) << w;
    EXPECT_NE(w.find("PE 7: 0 of 1 operation complete"), std::string::npos) << w;
    EXPECT_NE(w.find("PE 9: operations incomplete (not counted)"), std::string::npos) << w;
    EXPECT_NE(w.find("after 12 ms"), std::string::npos) << w;
    // Collectives and wait_until: no PE list, pe() is the waiting PE.
    ushmem::timeout_error c(2, 1ms, "x");
    EXPECT_TRUE(c.pending().empty());
    // Copies (as exceptions are) keep the list.
    ushmem::timeout_error copy = e;
    EXPECT_EQ(copy.pending().size(), 3u);
    EXPECT_EQ(ushmem::make_error_code(ushmem::errc::team_unusable).message(),
              "team unusable after a timed-out collective");
}

// An event records the operations it issued per PE: inline for one PE, shared for several.
TEST(CxxEvents, CountsPerPe) {
    ushmem::event one(SHMEM_CTX_DEFAULT, 4);
    EXPECT_EQ(one.pe(), 4);
    ASSERT_EQ(one.pes().size(), 1u);
    EXPECT_EQ(one.issued(0), 1u);
    EXPECT_EQ(one.fetches(0), 0u);
    EXPECT_TRUE(one.counted());
    EXPECT_FALSE(ushmem::event(SHMEM_CTX_DEFAULT, -1).counted());
    EXPECT_FALSE(ushmem::event().counted());
    ushmem::event get(SHMEM_CTX_DEFAULT, 2, 1, 1);
    EXPECT_EQ(get.fetches(0), 1u);

    auto counts = std::make_shared<const ushmem::detail::pe_counts>(
        ushmem::detail::pe_counts{{0, 2, 5}, {1, 2, std::size_t(1) << 40}, {0, 1, 7}});
    ushmem::event e3(SHMEM_CTX_DEFAULT, counts);
    EXPECT_EQ(e3.pe(), -1);
    ASSERT_EQ(e3.pes().size(), 3u);
    EXPECT_EQ(e3.pes()[2], 5);
    EXPECT_EQ(e3.issued(2), std::size_t(1) << 40);
    EXPECT_EQ(e3.fetches(1), 1u);
    ushmem::event copy = e3;  // shares the counts
    EXPECT_EQ(copy.pes().data(), e3.pes().data());
}

// when_all's timeout: the pending PEs of its parts merged, counts summed per PE, not_counted kept.
TEST(CxxCompose, MergePending) {
    using p = ushmem::pe_progress;
    std::vector<p> into{{1, 1, 0}, {2, 3, 1}};
    const std::vector<p> more{{1, 2, 1}, {3, 1, 0}, {2, p::not_counted, 0}};
    ushmem::detail::merge_pending(into, more);
    ASSERT_EQ(into.size(), 3u);
    EXPECT_EQ(into[0].pe, 1);
    EXPECT_EQ(into[0].issued, 3u);
    EXPECT_EQ(into[0].completed, 1u);
    EXPECT_EQ(into[1].pe, 2);
    EXPECT_EQ(into[1].issued, p::not_counted);
    EXPECT_EQ(into[2].pe, 3);
    EXPECT_EQ(into[2].issued, 1u);
}
