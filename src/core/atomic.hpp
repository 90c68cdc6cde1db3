// ushmem core: atomic memory operations, signals, point-to-point synchronization and locks.
//
// The one-mechanism rule: every atomic to one location goes through one mechanism, decided by the
// (peer, segment) route, which is the same for every caller of that peer's segment on this PE:
//   route::direct  CPU atomics (__atomic builtins, seq_cst) on the local mapping of the peer's
//                  memory, done inline below;
//   route::ucx     ucp_atomic_op_nbx (atomic.cpp). Fetching AND/OR/XOR are emulated there with a
//                  compare-and-swap loop, because UCX 1.13.1's shared-memory and self atomics
//                  return the right old value for them but write the old value back (not where
//                  UCX emulates the atomic on the target's CPU: tcp).
// Both end in CPU atomics on the target's memory when the target is on this node (UCX's sysv/self
// transports use them, and its software emulation over active messages runs them at the target),
// so same-node PEs that reach one location by different routes still see atomic results.
//
// Operands travel as the integer bit pattern of the type (uint32_t or uint64_t): the api layer
// bit-casts float and double for fetch/set/swap/compare_swap, and signed types add the same way
// in two's complement.
#pragma once

#include "core/compiler.hpp"
#include "core/context.hpp"
#include "core/peers.hpp"
#include "core/route.hpp"
#include "core/runtime.hpp"
#include "core/wait.hpp"
#include "transport/transport.hpp"
#include "util/put_pack.hpp"


#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ushmem::core {

enum class amo : std::uint8_t {
    fetch,      // result = *p
    set,        // *p = v
    swap,       // result = *p; *p = v
    cswap,      // result = *p; if (result == cmp) *p = v
    add,        // *p += v
    fetch_add,  // result = *p; *p += v
    band,       // *p &= v
    fetch_and,
    bor,        // *p |= v
    fetch_or,
    bxor,       // *p ^= v
    fetch_xor,
};

// The fetching atomics a context's get batch carries (put_pack.cpp: the initiator's record;
// rma.cpp: the target runs it), mapped both ways from this one table.
namespace batched {
using util::put_pack::fetch_kind;
inline constexpr struct {
    amo op;
    fetch_kind kind;
} pairs[] = {{amo::fetch, fetch_kind::fetch},         {amo::swap, fetch_kind::swap},
             {amo::cswap, fetch_kind::cswap},         {amo::fetch_add, fetch_kind::fetch_add},
             {amo::fetch_and, fetch_kind::fetch_and}, {amo::fetch_or, fetch_kind::fetch_or},
             {amo::fetch_xor, fetch_kind::fetch_xor}};
} // namespace batched
// `op` is a fetching atomic; `k` a kind that for_each_get accepted (not get). Anything else maps to
// fetch-add (never asked for).
constexpr util::put_pack::fetch_kind fetch_kind_of(amo op) {
    for (const auto &p : batched::pairs)
        if (p.op == op) return p.kind;
    return util::put_pack::fetch_kind::fetch_add;
}
constexpr amo amo_of(util::put_pack::fetch_kind k) {
    for (const auto &p : batched::pairs)
        if (p.kind == k) return p.op;
    return amo::fetch_add;
}
static_assert(amo_of(fetch_kind_of(amo::cswap)) == amo::cswap && amo_of(fetch_kind_of(amo::fetch_xor)) == amo::fetch_xor);

[[noreturn]] void fail_misaligned(const char *routine, const char *what, const void *addr,
                                  std::size_t size, int pe);

// Validates an AMO target of `size` bytes (symmetric, whole element in one segment, aligned to
// its size) and returns its peer record; `s`/`off` locate it. The caller has checked the PE.
inline peer &amo_target(const char *routine, const char *what, const void *dest, std::size_t size,
                        int pe, seg_id &s, std::size_t &off) {
    locate_or_fail(routine, what, dest, size, pe, s, off);
    if (USHMEM_UNLIKELY(reinterpret_cast<std::uintptr_t>(dest) & (size - 1)))
        fail_misaligned(routine, what, dest, size, pe);
    return target(routine, pe, s);
}

// CPU atomic on a directly mapped word. U is uint32_t or uint64_t.
template <class U> inline U amo_direct(amo op, U *p, U v, U cmp) {
    switch (op) {
    case amo::fetch: return __atomic_load_n(p, __ATOMIC_SEQ_CST);
    case amo::set: __atomic_store_n(p, v, __ATOMIC_SEQ_CST); return 0;
    case amo::swap: return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST);
    case amo::cswap:
        __atomic_compare_exchange_n(p, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
        return cmp;  // the old value either way
    case amo::add: __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); return 0;
    case amo::fetch_add: return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST);
    case amo::band: __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); return 0;
    case amo::fetch_and: return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST);
    case amo::bor: __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); return 0;
    case amo::fetch_or: return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST);
    case amo::bxor: __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); return 0;
    case amo::fetch_xor: return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST);
    }
    return 0;
}

// UCX route (atomic.cpp), instantiated for uint32_t and uint64_t.
//   amo_ucx_fetching: blocking; returns the old value (fetch, swap, cswap, fetch_*).
//   amo_ucx_post:     non-fetching (set, add, and, or, xor); completes at the next quiet.
//                     `signal`: it is a put_signal's or signal_add/set's signal, which a waiting
//                     PE is watching: never held in a pack (USHMEM_PUT_PACK_BLOCKING).
//   amo_ucx_nbi:      fetching, result into *fetch at the next quiet (where puts are packed, a
//                     record of the PE's get batch; otherwise the emulated bitwise ones complete
//                     before returning).
template <class U>
U amo_ucx_fetching(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
                   amo op, U v, U cmp);
template <class U>
void amo_ucx_post(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
                  amo op, U v, bool signal = false);
template <class U>
void amo_ucx_nbi(const char *routine, context &c, peer &p, int pe, seg_id s, std::size_t off,
                 amo op, void *fetch, U v, U cmp);

// ---- the AMO entry points of core. The caller has checked running and the PE. ----

template <class U>
inline U amo_fetching(const char *routine, context &c, amo op, const void *dest, U v, U cmp, int pe) {
    static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>);
    seg_id s;
    std::size_t off;
    peer &p = amo_target(routine, "target", dest, sizeof(U), pe, s, off);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        U old = amo_direct<U>(op, reinterpret_cast<U *>(p.direct[s] + off), v, cmp);
        if (op != amo::fetch) wake_after_rmw(p);
        return old;
    }
    return amo_ucx_fetching<U>(routine, c, p, pe, s, off, op, v, cmp);
}

template <class U>
inline void amo_post(const char *routine, context &c, amo op, void *dest, U v, int pe) {
    static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>);
    seg_id s;
    std::size_t off;
    peer &p = amo_target(routine, "target", dest, sizeof(U), pe, s, off);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        amo_direct<U>(op, reinterpret_cast<U *>(p.direct[s] + off), v, 0);
        wake_after_rmw(p);  // (every amo_direct is a full barrier, a seq_cst set included)
        return;
    }
    amo_ucx_post<U>(routine, c, p, pe, s, off, op, v);
}

template <class U>
inline void amo_nbi(const char *routine, context &c, amo op, void *fetch, const void *dest, U v, U cmp,
                    int pe) {
    static_assert(std::is_same_v<U, std::uint32_t> || std::is_same_v<U, std::uint64_t>);
    seg_id s;
    std::size_t off;
    peer &p = amo_target(routine, "target", dest, sizeof(U), pe, s, off);
    if (USHMEM_LIKELY(p.how[s] == route::direct)) {
        U old = amo_direct<U>(op, reinterpret_cast<U *>(p.direct[s] + off), v, cmp);
        if (op != amo::fetch) wake_after_rmw(p);
        std::memcpy(fetch, &old, sizeof old);  // fetch is the user's T (maybe float/double)
        return;
    }
    amo_ucx_nbi<U>(routine, c, p, pe, s, off, op, fetch, v, cmp);
}

// ---- signals (atomic.cpp) ----
// sig_op: 0 = set, 1 = add (the values of SHMEM_SIGNAL_SET / SHMEM_SIGNAL_ADD).
enum class sig_op : int { set = 0, add = 1 };

// Put n bytes, then update the signal word so that it is never visible before the data.
void put_signal(const char *routine, context &c, void *dest, const void *src, std::size_t n,
                std::uint64_t *sig_addr, std::uint64_t signal, int op, int pe, bool nbi);
// signal_add / signal_set: a signal update without data.
void signal_update(const char *routine, context &c, std::uint64_t *sig_addr, std::uint64_t signal,
                   sig_op op, int pe);
std::uint64_t signal_fetch(const char *routine, const std::uint64_t *sig_addr);

// ---- point-to-point synchronization (p2p.cpp) ----
// Instantiated for short, unsigned short, int, unsigned, long, unsigned long, long long and
// unsigned long long. `cmp` is an SHMEM_CMP_* value; an invalid one ends the job. Every load of
// an ivar is an atomic load with acquire semantics; waiting progresses UCX, spins briefly and
// then yields (wait_for), and honours USHMEM_WAIT_TIMEOUT.
template <class T> void wait_until(const char *routine, T *ivar, int cmp, T value);
template <class T> T wait_until_value(const char *routine, T *ivar, int cmp, T value);
template <class T> int test(const char *routine, T *ivar, int cmp, T value);
// The set forms. `values` is nullptr for the scalar-comparand forms (then `value` is used).
template <class T>
void wait_until_all(const char *routine, T *ivars, std::size_t n, const int *status, int cmp,
                    T value, const T *values);
template <class T>
std::size_t wait_until_any(const char *routine, T *ivars, std::size_t n, const int *status, int cmp,
                           T value, const T *values);
template <class T>
std::size_t wait_until_some(const char *routine, T *ivars, std::size_t n, std::size_t *indices,
                            const int *status, int cmp, T value, const T *values);
template <class T>
int test_all(const char *routine, T *ivars, std::size_t n, const int *status, int cmp, T value,
             const T *values);
template <class T>
std::size_t test_any(const char *routine, T *ivars, std::size_t n, const int *status, int cmp,
                     T value, const T *values);
template <class T>
std::size_t test_some(const char *routine, T *ivars, std::size_t n, std::size_t *indices,
                      const int *status, int cmp, T value, const T *values);

// (wait_described, the wait of wait_until and its forms: core/wait.hpp.)

// ---- distributed locks (lock.cpp) ----
void set_lock(const char *routine, long *lock);
int test_lock(const char *routine, long *lock);  // 0: acquired, 1: was held
void clear_lock(const char *routine, long *lock);

} // namespace ushmem::core
