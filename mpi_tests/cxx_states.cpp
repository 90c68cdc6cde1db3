// The C++ API in the states a new user reaches (issue #52): a completion whose continuation threw,
// a moved-from value_event, a polling loop of co_await yield_now(), co_await within on a
// completion type of the program's own, collectives on a team this PE is not a member of, and the
// text of size and index errors.
//
// Usage: cxx_states MODE, MODE one of
//   failed_then  a then() continuation that throws: every get()/wait()/value() rethrows the same
//                exception (an int and a std::string result), test() reports complete
//   moved_from   get/wait/test/value on a moved-from value_event throw invalid_argument naming the
//                routine, the PE and "moved-from event"
//   yield        1000 rounds of a token ring whose every wait is a loop of co_await yield_now():
//                under 3 s (prints the time; 4 PEs on 2 cores took 5 to 16 s before the fix)
//   within       co_await within(c, limit) on a completion of the program's own that never
//                completes: the timeout names what was awaited and keeps its wait's description,
//                with no empty PE list and no transport advice
//   nonmember    reduce, sync, broadcast, split on a team this PE is not in: invalid_argument
//                naming the routine, the PE and "not a member of this team"; my_pe()/n_pes() -1
//   messages     size and index errors name the routine and the PE; what() is the message alone
// Exits 0 when every check holds.
#include <ushmem/ushmem.hpp>

#include "cxx_check.h"

#include <chrono>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {
using namespace std::chrono_literals;

bool has(const std::string &text, const std::string &part) {
    if (text.find(part) != std::string::npos) return true;
    std::fprintf(stderr, "PE %d: message \"%s\" lacks \"%s\"\n", me, text.c_str(), part.c_str());
    return false;
}
bool lacks(const std::string &text, const std::string &part) {
    if (text.find(part) == std::string::npos) return true;
    std::fprintf(stderr, "PE %d: message \"%s\" has \"%s\"\n", me, text.c_str(), part.c_str());
    return false;
}
std::string on_me() { return " on PE " + std::to_string(me); }

// ---- failed_then ----
template <class T> void failed_then_of(ushmem::symmetric<long> &x, T (*make)(long)) {
    auto t = ushmem::fetch_add_async(x.at(0, (me + 1) % npes), 0L).then([make](long v) -> T {
        if (v >= 0) throw std::runtime_error("continuation failed");
        return make(v);
    });
    const void *first = nullptr;
    for (int i = 0; i < 3; ++i) {
        try {
            (void)t.get();
            CHECK(!"get() returned");
        } catch (const std::runtime_error &e) {
            CHECK(std::string(e.what()) == "continuation failed");
            if (i == 0) first = &e;
            else CHECK(&e == first);  // the same exception object, rethrown
        }
    }
    CHECK(t.test());
    CHECK(!message_of<std::runtime_error>([&] { t.wait(); }).empty());
    CHECK(!message_of<std::runtime_error>([&] { t.wait(1s); }).empty());
    CHECK(!message_of<std::runtime_error>([&] { (void)t.value(); }).empty());
    CHECK(!message_of<std::runtime_error>([&] { (void)t.get(1s); }).empty());
    // Inside a task: the co_await rethrows it too.
    auto task = [](decltype(t) &c) -> ushmem::task<int> {
        try {
            (void)co_await c;
        } catch (const std::runtime_error &) {
            co_return 1;
        }
        co_return 0;
    }(t);
    CHECK(ushmem::sync_wait(std::move(task)) == 1);
}
void failed_then() {
    ushmem::symmetric<long> x(1);
    x[0] = 0;
    ushmem::barrier();
    failed_then_of<long>(x, [](long v) { return v; });
    failed_then_of<std::string>(x, [](long v) { return std::string(100, char('a' + v % 26)); });
    // A test() that runs the continuation throws once; later test() report it complete.
    auto t = ushmem::fetch_add_async(x.at(0, 0), 0L).then([](long) -> long { throw std::runtime_error("x"); });
    bool threw = false;
    for (int i = 0; i < 1000000 && !threw; ++i) {
        try {
            if (t.test()) break;
        } catch (const std::runtime_error &) {
            threw = true;
        }
    }
    CHECK(threw);
    CHECK(t.test());
    ushmem::barrier();
}

// ---- moved_from ----
void moved_from() {
    ushmem::symmetric<long> x(1);
    x[0] = 5;
    ushmem::barrier();
    auto a = ushmem::fetch_add_async(x.at(0, (me + 1) % npes), 0L);
    auto b = std::move(a);
    const std::string moved = "moved-from event";
    CHECK(has(message_of<ushmem::invalid_argument>([&] { (void)a.get(); }), "value_event::get" + on_me() + ": " + moved));
    CHECK(has(message_of<ushmem::invalid_argument>([&] { a.wait(); }), "value_event::wait" + on_me() + ": " + moved));
    CHECK(has(message_of<ushmem::invalid_argument>([&] { (void)a.test(); }), "value_event::test" + on_me() + ": " + moved));
    CHECK(has(message_of<ushmem::invalid_argument>([&] { (void)a.value(); }), "value_event::value" + on_me()));
    CHECK(has(message_of<ushmem::invalid_argument>([&] { a.wait(1s); }), moved));
    CHECK(has(message_of<ushmem::invalid_argument>([&] { (void)a.get(1s); }), moved));
    CHECK(b.get() == 5);  // the event it was moved into owns the operation
    // Moved-from by move assignment too; assigning a live event to it makes it usable again.
    auto c = ushmem::fetch_add_async(x.at(0, me), 0L);
    b = std::move(c);
    CHECK(has(message_of<ushmem::invalid_argument>([&] { (void)c.get(); }), moved));
    c = ushmem::fetch_add_async(x.at(0, me), 0L);
    CHECK(c.get() == 5);
    CHECK(b.get() == 5);
    ushmem::barrier();
}

// ---- yield ----
// A token ring: PE 0 puts round r into PE 1's flag, each PE forwards it once its own flag shows r;
// every wait is a polling loop of co_await yield_now(), which must let the PE the token sits on
// run. 1000 rounds.
ushmem::task<> ring(ushmem::symmetric<long> &flag, int rounds) {
    const int next = (me + 1) % npes;
    for (long r = 1; r <= rounds; ++r) {
        if (me == 0) ushmem::put(flag.at(0, next), r);
        while (!ushmem::test(flag[0], ushmem::cmp::ge, r)) co_await ushmem::yield_now();
        if (me != 0) ushmem::put(flag.at(0, next), r);
    }
}
void yield() {
    ushmem::symmetric<long> flag(1);
    flag[0] = 0;
    ushmem::barrier();
    const int rounds = 1000;
    const auto start = std::chrono::steady_clock::now();
    ushmem::sync_wait(ring(flag, rounds));
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ushmem::barrier();
    if (me == 0) std::printf("cxx_states yield: %d PEs, %d rounds in %.3f s\n", npes, rounds, s);
    CHECK(s < 3.0);
}

// ---- within ----
// A completion of the program's own: a local flag that nobody sets.
struct never_set {
    long *flag;
    bool test() const { return ushmem::test(*flag, ushmem::cmp::ne, 0L); }
    void wait() const { ushmem::wait_until(*flag, ushmem::cmp::ne, 0L); }
    void wait(ushmem::wait_limit l, const char *) const { ushmem::wait_until(*flag, ushmem::cmp::ne, 0L, l); }
};
ushmem::task<> await_within(never_set c) { co_await ushmem::within(c, 100ms); }
void within() {
    ushmem::symmetric<long> flag(1);
    flag[0] = 0;
    ushmem::barrier();
    const std::string m = message_of<ushmem::timeout_error>([&] { ushmem::sync_wait(await_within(never_set{&flag[0]})); });
    CHECK(has(m, "ushmem: co_await within: the awaited completion was not complete before the deadline"));
    CHECK(has(m, "; its wait reported: wait_until: the variable at 0x"));  // the underlying description
    CHECK(has(m, "still holds 0, not yet != 0"));
    CHECK(has(m, "(PE " + std::to_string(me) + ", after "));
    CHECK(lacks(m, "; )"));
    CHECK(lacks(m, "UCX_TLS"));          // the transport advice is about ushmem's operations
    CHECK(lacks(m, "They stay in flight"));
    // A timeout_error built with an empty PE list prints none.
    CHECK(lacks(ushmem::timeout_error({}, 5ms, "ushmem: x").what(), "; )"));
    // On a ushmem event, the PE list and the advice stay (nothing pending here: no timeout, so a
    // completed event is awaited quietly).
    auto ok = [](ushmem::symmetric<long> &f) -> ushmem::task<long> {
        co_return co_await ushmem::within(ushmem::fetch_add_async(f.at(0, 0), 0L), 10s);
    }(flag);
    CHECK(ushmem::sync_wait(std::move(ok)) == 0);
    ushmem::barrier();
}

// ---- nonmember ----
void nonmember() {
    if (npes < 2) {
        std::printf("cxx_states nonmember: needs 2 PEs (every PE is in every team at 1); checks only a "
                    "default-constructed team\n");
    }
    // PE 0 alone: the others are not members.
    ushmem::team solo = npes >= 2 ? ushmem::world().split_strided(0, 1, 1) : ushmem::team();
    ushmem::symmetric<long> src(4), dst(4);
    if (solo.valid()) {
        CHECK(solo.my_pe() == 0 && solo.n_pes() == 1);
        ushmem::reduce<ushmem::reduce_op::sum>(solo, dst.local(), src.local());
        solo.sync();
    } else {
        CHECK(solo.my_pe() == -1 && solo.n_pes() == -1);  // the C API's -1, documented
        const std::string nm = "not a member of this team";
        std::string m = message_of<ushmem::invalid_argument>(
            [&] { ushmem::reduce<ushmem::reduce_op::sum>(solo, dst.local(), src.local()); });
        CHECK(has(m, "ushmem: reduce" + on_me() + ": this PE is " + nm));
        m = message_of<ushmem::invalid_argument>([&] { solo.sync(); });
        CHECK(has(m, "ushmem: team sync" + on_me() + ": this PE is " + nm));
        m = message_of<ushmem::invalid_argument>([&] { ushmem::barrier(solo); });
        CHECK(has(m, nm));
        m = message_of<ushmem::invalid_argument>([&] { ushmem::broadcast(solo, dst.local(), src.local(), 0); });
        CHECK(has(m, "ushmem: broadcast" + on_me() + ": this PE is " + nm));
        m = message_of<ushmem::invalid_argument>([&] { ushmem::fcollect(solo, dst.local(), src.local()); });
        CHECK(has(m, "ushmem: fcollect" + on_me() + ": this PE is " + nm));
        m = message_of<ushmem::invalid_argument>([&] { ushmem::sum_inscan(solo, dst.local(), src.local()); });
        CHECK(has(m, "ushmem: sum_inscan" + on_me() + ": this PE is " + nm));
        m = message_of<ushmem::invalid_argument>([&] { (void)solo.split_strided(0, 1, 1); });
        CHECK(has(m, "ushmem: team split_strided" + on_me() + ": this PE is " + nm));
        m = message_of<ushmem::invalid_argument>([&] { ushmem::context c(solo, 0); });
        CHECK(has(m, nm));
        CHECK(lacks(m, "invalid argument"));  // what() is the message alone
    }
    ushmem::barrier();
}

// ---- messages ----
void messages() {
    ushmem::symmetric<long> a(4);
    std::vector<long> eight(8);
    const int pe = (me + 1) % npes;
    std::string m = message_of<ushmem::invalid_argument>([&] { ushmem::put(a.on(pe), eight); });
    CHECK(m == "ushmem: put" + on_me() + ": 8 elements into 4");  // exactly: no ": invalid argument"
    m = message_of<ushmem::invalid_argument>([&] { ushmem::get(std::span<long>(eight).first(2), a.on(pe)); });
    CHECK(m == "ushmem: get" + on_me() + ": 4 elements into 2");
    m = message_of<ushmem::invalid_argument>([&] { (void)a.at(4, pe); });
    CHECK(m == "ushmem: symmetric::at" + on_me() + ": index 4 beyond size 4");
    m = message_of<ushmem::invalid_argument>([&] { (void)a.on(pe)[9]; });
    CHECK(m == "ushmem: sym_span" + on_me() + ": index 9 beyond size 4");
    m = message_of<ushmem::invalid_argument>([&] { (void)a.on(npes); });
    CHECK(m == "ushmem: symmetric::on" + on_me() + ": PE " + std::to_string(npes) + " is out of range [0, " +
                   std::to_string(npes) + ")");
    m = message_of<ushmem::invalid_argument>([&] { ushmem::iput(a.on(pe), 3, std::span<const long>(eight), 1, 3); });
    CHECK(has(m, "ushmem: iput destination" + on_me() + ": 3 elements at stride 3"));
    // The code stays: errc and category.
    try {
        ushmem::put(a.on(pe), eight);
    } catch (const ushmem::error &e) {
        CHECK(e.code() == ushmem::errc::invalid_argument);
        CHECK(std::string(e.code().category().name()) == "ushmem");
        CHECK(lacks(e.what(), ": invalid argument"));
    }
    ushmem::barrier();
}
} // namespace

int main(int argc, char **argv) {
    ushmem::runtime rt;
    me = rt.my_pe();
    npes = rt.n_pes();
    const char *mode = argc == 2 ? argv[1] : "";
    if (std::strcmp(mode, "failed_then") == 0) failed_then();
    else if (std::strcmp(mode, "moved_from") == 0) moved_from();
    else if (std::strcmp(mode, "yield") == 0) yield();
    else if (std::strcmp(mode, "within") == 0) within();
    else if (std::strcmp(mode, "nonmember") == 0) nonmember();
    else if (std::strcmp(mode, "messages") == 0) messages();
    else {
        std::fprintf(stderr, "cxx_states: unknown mode '%s'\n", mode);
        ++failures;
    }
    if (failures) {
        std::fprintf(stderr, "PE %d: %d failures\n", me, failures);
        shmem_global_exit(1);
    }
    std::printf("cxx_states %s: PE %d OK\n", mode, me);
    return 0;
}
